//! What a report shows, read from a results directory through the computations the other
//! readers use: `summary`'s [`Aggregator`] and `vs_best` marks, its bootstrap strata, the
//! paired blocks of `compare` and `importance`. The only I/O of the report; one row at a
//! time, keeping numbers per configuration, and curves only for the configurations drawn.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use anyhow::{Context, Result};

use super::{Embedded, embed};
use crate::report::compare::{Verdicts, best_marks};
use crate::report::files::each_row;
use crate::report::manifest::Manifest;
use crate::report::paired_runs::{Block, Metric, block_columns, default_config_columns, read_blocks_in};
use crate::report::summary::{Aggregator, Group, NEEDED_COLUMNS, Strata, config_columns, strata};
use crate::report::{CURVE_COLUMNS, RESULT_COLUMNS, column, splits};
use crate::spec::Split;

/// Learning curves drawn per panel: this many configurations, best first.
pub const CURVES_PER_PANEL: usize = 5;
/// Panels (seat, evaluation opponent, game) with curves drawn.
pub const CURVE_PANELS: usize = 6;

/// One failed row.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its job, solver label, seat, evaluation opponent and error message.
    pub cells: [String; 5],
}

/// One rung of a search: its number, budget values, configurations, jobs, failures, the
/// training time spent, and the best mean regret there.
#[derive(Clone, Debug, Default)]
pub struct Rung {
    /// The rung.
    pub rung: u32,
    /// The budgets its jobs ran at (episodes or iterations).
    pub budgets: BTreeSet<String>,
    /// Its configurations (job keys without the replicate).
    pub configurations: BTreeSet<Vec<String>>,
    /// Jobs (rows against one evaluation opponent and seat count once per job).
    pub jobs: BTreeSet<String>,
    /// Failed rows.
    pub failed: usize,
    /// Training time of its jobs, ms.
    pub train_ms: f64,
}

/// The learning curves of one configuration: one curve per replicate, (episode, regret).
pub type Curves = Vec<Vec<(f64, f64)>>;

/// Everything a page of one directory shows.
pub struct Data {
    /// The directory as given.
    pub dir: String,
    /// The manifest, when it could be read.
    pub manifest: Option<Manifest>,
    /// The rows shown (summary's default: test when the file has test rows).
    pub split: Split,
    /// `summary`'s default grouping columns.
    pub by: Vec<&'static str>,
    /// The grouping columns a table shows (positions in `by`), as `summary` chooses them.
    pub show: Vec<usize>,
    /// Configurations, as `summary` aggregates them, best first within each block.
    pub groups: Vec<Group>,
    /// Rows read in the split shown.
    pub rows: usize,
    /// `vs_best` marks and the lines on blocks that cannot reject.
    pub marks: BTreeMap<Vec<String>, &'static str>,
    /// The lines on blocks whose design cannot reject.
    pub notes: Vec<String>,
    /// With test rows: each configuration's tuning aggregate.
    pub tuned: BTreeMap<Vec<String>, Group>,
    /// Regrets per configuration (the bootstrap's strata).
    pub strata: Strata,
    /// Configurations with learning curves (keys of `groups`).
    pub learners: BTreeSet<Vec<String>>,
    /// Curves of the configurations drawn, by group key.
    pub curves: BTreeMap<Vec<String>, Curves>,
    /// Paired blocks (solver, seat, evaluation opponent, game) of the split shown.
    pub blocks: Vec<Block>,
    /// Paired blocks of the tuning rows (importance needs the full grid).
    pub tune_blocks: Vec<Block>,
    /// Blocks of (seat, evaluation opponent, game) with the solver as the first
    /// configuration column: learners against each other.
    pub solver_blocks: Vec<Block>,
    /// A search's rungs (empty without a search).
    pub rungs: Vec<Rung>,
    /// Failed rows (at most [`FAILURES_KEPT`]) and how many there were.
    pub failures: (Vec<Failure>, usize),
    /// Boards, and rows evaluated exactly / by sampled games (all rows).
    pub boards: BTreeSet<String>,
    /// Rows evaluated exactly and by sampled games.
    pub evaluation: (usize, usize),
    /// The results file, embedded.
    pub csv: Embedded,
}

/// Failed rows listed on the page.
pub const FAILURES_KEPT: usize = 100;

/// The group key's position of a column of `by`.
pub fn at(by: &[&str], name: &str) -> Option<usize> {
    by.iter().position(|c| *c == name)
}

/// Reads a results directory (or its `results.csv`) for a page.
pub fn read(dir: &Path) -> Result<Data> {
    let results = dir.join("results.csv");
    let manifest = Manifest::read(dir).ok();
    let split = splits::shown(&results)?;
    let by = config_columns();
    let (mut agg, mut tuned) = (Aggregator::new(&by), Aggregator::new(&by));
    let mut learners = BTreeSet::new();
    let mut rungs: BTreeMap<u32, Rung> = BTreeMap::new();
    let (mut failures, mut failed) = (Vec::new(), 0);
    let (mut boards, mut evaluation) = (BTreeSet::new(), (0, 0));
    let key_at: Vec<usize> = by.iter().map(|c| column(c)).collect();
    let c = |name: &str| column(name);
    each_row(&results, &RESULT_COLUMNS, &NEEDED_COLUMNS, |rec| {
        let s = splits::of_row(rec);
        if s == split {
            agg.push(|i| &rec[i]);
        } else if s == Split::Tune {
            tuned.push(|i| &rec[i]);
        }
        if !rec[c("regret_auc")].is_empty() && s == split {
            learners.insert(key_at.iter().map(|&i| rec[i].to_string()).collect::<Vec<_>>());
        }
        boards.insert(rec[c("game")].to_string());
        let ok = &rec[c("status")] == "ok";
        if ok {
            if &rec[c("evaluation")] == "sampled" { evaluation.1 += 1 } else { evaluation.0 += 1 }
        } else {
            failed += 1;
            if failures.len() < FAILURES_KEPT {
                let cell = |n: &str| rec[c(n)].to_string();
                failures.push(Failure {
                    cells: [cell("job_id"), cell("label"), cell("seat"), cell("eval_opponent"), cell("error")],
                });
            }
        }
        if let (Ok(r), Split::Tune) = (rec[c("rung")].parse::<u32>(), s) {
            let rung = rungs.entry(r).or_insert_with(|| Rung { rung: r, ..Rung::default() });
            let budget = if rec[c("episodes")].is_empty() { &rec[c("iterations")] } else { &rec[c("episodes")] };
            rung.budgets.insert(budget.to_string());
            let config: Vec<String> = key_at
                .iter()
                .filter(|&&i| i != c("episodes") && i != c("iterations"))
                .map(|&i| rec[i].to_string())
                .collect();
            rung.configurations.insert(config);
            if rung.jobs.insert(rec[c("job_id")].to_string()) {
                rung.train_ms += rec[c("train_ms")].parse::<f64>().unwrap_or(0.0);
            }
            rung.failed += usize::from(!ok);
        }
    })
    .with_context(|| format!("{}", results.display()))?;
    if agg.rows() == 0 {
        anyhow::bail!("{}: results.csv has no rows yet", dir.display());
    }
    let test = split == Split::Test;
    let mut show = if test { tuned.varying_within_kinds() } else { agg.varying_within_kinds() };
    show.extend((0..by.len()).filter(|&k| ["solver", "seat", "eval_opponent"].contains(&by[k])));
    show.sort_unstable();
    show.dedup();
    let (marks, notes) = best_marks(&results, &by, Verdicts::default(), split)?;
    let tuned_groups =
        if test { tuned.groups().into_iter().map(|g| (g.key.clone(), g)).collect() } else { BTreeMap::new() };
    let groups = agg.groups();
    let curves = read_curves(dir, &by, &top_learners(&groups, &learners, &by), split)?;
    let blocks = read_blocks_in(&results, Metric::Regret, &block_columns(), &default_config_columns(), split)?;
    let tune_blocks = if test {
        read_blocks_in(&results, Metric::Regret, &block_columns(), &default_config_columns(), Split::Tune)?
    } else {
        blocks.clone()
    };
    let mut solver_config = vec!["solver"];
    solver_config.extend(default_config_columns());
    let outer: Vec<&str> = block_columns().into_iter().filter(|c| *c != "solver").collect();
    let solver_blocks = read_blocks_in(&results, Metric::Regret, &outer, &solver_config, split)?;
    let bytes = std::fs::read(&results).with_context(|| format!("cannot read {}", results.display()))?;
    Ok(Data {
        dir: dir.display().to_string(),
        manifest,
        split,
        strata: strata(&results, &by, Some(split))?,
        by,
        show,
        rows: agg.rows(),
        groups,
        marks,
        notes,
        tuned: tuned_groups,
        learners,
        curves,
        blocks,
        tune_blocks,
        solver_blocks,
        rungs: rungs.into_values().collect(),
        failures: (failures, failed),
        boards,
        evaluation,
        csv: embed("results.csv", &bytes),
    })
}

/// The panel of a configuration: its seat, evaluation opponent and game.
pub fn panel(by: &[&str], key: &[String]) -> Vec<String> {
    ["seat", "eval_opponent", "game"].iter().filter_map(|c| at(by, c)).map(|k| key[k].clone()).collect()
}

/// The learners' configurations whose curves are drawn: the best [`CURVES_PER_PANEL`] of
/// each of the first [`CURVE_PANELS`] panels.
pub fn top_learners(groups: &[Group], learners: &BTreeSet<Vec<String>>, by: &[&str]) -> BTreeSet<Vec<String>> {
    let mut per_panel: BTreeMap<Vec<String>, Vec<&Group>> = BTreeMap::new();
    for g in groups.iter().filter(|g| learners.contains(&g.key) && g.n > 0) {
        per_panel.entry(panel(by, &g.key)).or_default().push(g);
    }
    per_panel
        .into_values()
        .take(CURVE_PANELS)
        .flat_map(|mut gs| {
            gs.sort_by(|a, b| a.mean_regret.total_cmp(&b.mean_regret));
            gs.into_iter().take(CURVES_PER_PANEL).map(|g| g.key.clone())
        })
        .collect()
}

/// The curves of the configurations `wanted`, one per replicate: the jobs of each are
/// found in the results, then their points in `curves.csv` (against the row's evaluation
/// opponent, in its seat).
fn read_curves(
    dir: &Path,
    by: &[&str],
    wanted: &BTreeSet<Vec<String>>,
    split: Split,
) -> Result<BTreeMap<Vec<String>, Curves>> {
    let path = dir.join("curves.csv");
    if wanted.is_empty() || !path.exists() {
        return Ok(BTreeMap::new());
    }
    let key_at: Vec<usize> = by.iter().map(|c| column(c)).collect();
    // (job, seat, evaluation opponent) → (configuration, curve index).
    let mut jobs: HashMap<(String, String, String), (Vec<String>, usize)> = HashMap::new();
    let mut count: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    each_row(&dir.join("results.csv"), &RESULT_COLUMNS, &NEEDED_COLUMNS, |rec| {
        if splits::of_row(rec) != split || &rec[column("status")] != "ok" {
            return;
        }
        let key: Vec<String> = key_at.iter().map(|&i| rec[i].to_string()).collect();
        if wanted.contains(&key) {
            let n = count.entry(key.clone()).or_default();
            let id = (rec[0].to_string(), rec[column("seat")].to_string(), rec[column("eval_opponent")].to_string());
            jobs.insert(id, (key, *n));
            *n += 1;
        }
    })?;
    let mut out: BTreeMap<Vec<String>, Curves> = count.iter().map(|(k, &n)| (k.clone(), vec![Vec::new(); n])).collect();
    each_row(&path, &CURVE_COLUMNS, &CURVE_COLUMNS, |rec| {
        let id = (rec[0].to_string(), rec[2].to_string(), rec[3].to_string());
        if let Some((key, i)) = jobs.get(&id) {
            let (Ok(e), Ok(r)) = (rec[1].parse::<f64>(), rec[5].parse::<f64>()) else { return };
            out.get_mut(key).expect("a wanted configuration")[*i].push((e, r));
        }
    })?;
    Ok(out)
}
