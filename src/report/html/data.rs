//! What a report shows, read from a results directory through the computations the other
//! readers use: `summary`'s [`Aggregator`] and `vs_best` marks, its bootstrap strata, the
//! paired blocks of `compare` and `importance`. The only I/O of the report; one row at a
//! time, keeping numbers per configuration, and curves only for the configurations drawn.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};

use super::{Embedded, embed};
use crate::job::Split;
use crate::report::compare::{
    AgainstBest, Mark, Procedure, Verdicts, against_best, best_marks_in, solver_block_columns, solvers_compared,
};
use crate::report::manifest::Manifest;
use crate::report::paired_runs::{Block, Metric, block_columns, default_config_columns, read_blocks_in};
use crate::report::result_row::{ResultRow, each_curve, each_result};
use crate::report::summary::{Aggregator, Group, NEEDED_COLUMNS, Strata, config_columns, strata_where};
use crate::report::{CURVE_COLUMNS, Field, ParamColumn, column};
use crate::stats::significance::Significance;

/// Learning curves drawn per panel: this many configurations, best first. Every panel
/// (seat, evaluation opponent, game) that has curves is drawn.
pub const CURVES_PER_PANEL: usize = 5;

/// One failed row.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Its job, solver label, seat, evaluation opponent and error message (the columns
    /// of [`FAILURE_COLUMNS`]).
    pub cells: [String; 5],
}

/// The columns of a [`Failure`]'s cells.
pub const FAILURE_COLUMNS: [&str; 5] = [
    Field::JobId.name(),
    Field::Label.name(),
    ParamColumn::Seat.name(),
    Field::EvalOpponent.name(),
    Field::Error.name(),
];

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

/// One trial of a search that runs trials in rounds (TPE, random search): its solver label, number and
/// round, its metric summed over its successful rows against the search's opponent, its
/// jobs' training time, and its configuration (the values of `summary`'s columns).
#[derive(Clone, Debug, Default)]
pub struct Trial {
    /// The solver's label.
    pub label: String,
    /// The trial's number within its solver.
    pub trial: u32,
    /// The round that proposed it.
    pub round: u32,
    /// The metric's sum and count over its rows.
    pub metric: (f64, u32),
    /// Its jobs.
    pub jobs: BTreeSet<String>,
    /// Training time of its jobs, ms.
    pub train_ms: f64,
    /// Its configuration: `(column, value)` of every configuration column.
    pub config: Vec<(&'static str, String)>,
}

impl Trial {
    /// The metric's mean over its rows (+inf without any).
    pub fn score(&self) -> f64 {
        if self.metric.1 == 0 { f64::INFINITY } else { self.metric.0 / f64::from(self.metric.1) }
    }
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
    /// The panels (seat, evaluation opponent, game) in the order the file first has them.
    pub panels: Vec<Vec<String>>,
    /// Configurations, as `summary` aggregates them, best first within each block.
    pub groups: Vec<Group>,
    /// Rows read in the split shown.
    pub rows: usize,
    /// `vs_best` marks and the lines on blocks that cannot reject.
    pub marks: BTreeMap<Vec<String>, Mark>,
    /// The lines on blocks whose design cannot reject.
    pub notes: Vec<String>,
    /// With test rows: per (seat, evaluation opponent, game) block of two solvers or more,
    /// one sentence that answers "which solver?" (see [`solvers_compared`]).
    pub answer: Vec<String>,
    /// A colour index per solver and configuration (see [`Data::colour_of_group`]).
    pub colours: HashMap<Vec<String>, usize>,
    /// With test rows: each configuration's tuning aggregate.
    pub tuned: BTreeMap<Vec<String>, Group>,
    /// Regrets per configuration (the bootstrap's strata).
    pub strata: Strata,
    /// Configurations with learning curves (keys of `groups`).
    pub learners: HashSet<Vec<String>>,
    /// Curves of the configurations drawn, by group key.
    pub curves: BTreeMap<Vec<String>, Curves>,
    /// Paired blocks (solver, seat, evaluation opponent, game) of the split shown.
    pub blocks: Vec<Block>,
    /// Each of `blocks` against its best (`summary`'s `vs_best` and the paired differences).
    pub compared: AgainstBest,
    /// Paired blocks of the tuning rows (importance needs the full grid).
    pub tune_blocks: Vec<Block>,
    /// Blocks of (seat, evaluation opponent, game) with the solver as the first
    /// configuration column: learners against each other.
    pub solver_blocks: Vec<Block>,
    /// A search's rungs (empty without a search).
    pub rungs: Vec<Rung>,
    /// A model-based search's trials, by label and trial number (empty without one), and
    /// the metric and opponent it ranks by.
    pub trials: (Vec<Trial>, String, String),
    /// Failed rows (at most `FAILURES_KEPT`) and how many there were.
    pub failures: (Vec<Failure>, usize),
    /// Boards, and rows evaluated exactly / by sampled games (all rows).
    pub boards: BTreeSet<String>,
    /// Successful rows evaluated exactly, by sampled games, as a bound (a best response
    /// past its node budget), and without an exact optimum (an empty regret).
    pub evaluation: (usize, usize, usize, usize),
    /// The results file, embedded.
    pub csv: Embedded,
}

/// Failed rows listed on the page.
pub const FAILURES_KEPT: usize = 100;

/// The group key's position of a column of `by`.
pub fn at(by: &[&str], name: &str) -> Option<usize> {
    by.iter().position(|c| *c == name)
}

/// Above this many configurations, each leaderboard panel shows its best [`TOP`] and one
/// line for the others.
pub const ALL_SHOWN: usize = 400;
/// Rows per leaderboard panel of a large sweep.
pub const TOP: usize = 40;

/// How many of a panel's `n` configurations the leaderboard shows, of `total` in all.
pub fn shown(total: usize, n: usize) -> usize {
    if total <= ALL_SHOWN { n } else { TOP.min(n) }
}

/// What one pass over the results gathers for the rows of one split.
struct Pass {
    agg: Aggregator,
    learners: HashSet<Vec<String>>,
    panels: Vec<Vec<String>>,
}

impl Pass {
    fn new(by: &[&str]) -> Pass {
        Pass { agg: Aggregator::new(by), learners: HashSet::new(), panels: Vec::new() }
    }
}

/// The one pass over `results.csv` that a page makes: both splits at once (each with its
/// aggregate, learners and panels), a search's rungs and a model-based search's trials
/// (from the tuning rows), the failed rows, the boards and how the successful rows were
/// evaluated.
struct Scan<'a> {
    /// `summary`'s default grouping columns.
    by: &'a [&'static str],
    /// Their positions.
    key_at: Vec<usize>,
    /// The positions of the budget columns (`episodes`, `iterations`): a rung's
    /// configurations leave them out.
    budget_at: [usize; 2],
    /// A model-based search's metric and opponent.
    searched: Option<(Field, String)>,
    /// The configuration of the row at hand (its buffers reused from row to row).
    key: Vec<String>,
    tune: Pass,
    test: Pass,
    rungs: BTreeMap<u32, Rung>,
    failures: Vec<Failure>,
    failed: usize,
    boards: BTreeSet<String>,
    evaluation: (usize, usize, usize, usize),
    trials: BTreeMap<(String, u32), Trial>,
}

impl<'a> Scan<'a> {
    /// An empty pass over rows grouped by `by`, ranking a model-based search's trials by
    /// the metric and opponent of `searched`.
    fn new(by: &'a [&'static str], searched: Option<(Field, String)>) -> Scan<'a> {
        Scan {
            by,
            key_at: by.iter().map(|c| column(c)).collect(),
            budget_at: [ParamColumn::Episodes.column(), ParamColumn::Iterations.column()],
            searched,
            key: vec![String::new(); by.len()],
            tune: Pass::new(by),
            test: Pass::new(by),
            rungs: BTreeMap::new(),
            failures: Vec::new(),
            failed: 0,
            boards: BTreeSet::new(),
            evaluation: (0, 0, 0, 0),
            trials: BTreeMap::new(),
        }
    }

    /// Takes in one row of the results.
    fn row(&mut self, row: &ResultRow<'_>) {
        let s = row.split();
        let pass = if s == Split::Test { &mut self.test } else { &mut self.tune };
        pass.agg.push(row);
        let p = [row.seat(), row.eval_opponent(), row.game()];
        if !pass.panels.iter().any(|q| q.iter().zip(&p).all(|(a, b)| a == b)) {
            pass.panels.push(p.map(String::from).to_vec());
        }
        if row.regret_auc().is_some() {
            for (k, &i) in self.key.iter_mut().zip(&self.key_at) {
                k.clear();
                k.push_str(row.cell(i));
            }
            if !pass.learners.contains(&self.key) {
                pass.learners.insert(self.key.clone());
            }
        }
        if !self.boards.contains(row.game()) {
            self.boards.insert(row.game().to_string());
        }
        let ok = row.ok();
        self.outcome(row, ok);
        if let (Some(_), Some(t), Split::Tune) = (&self.searched, row.trial(), s) {
            self.trial(row, t, ok);
        }
        if let (Some(r), Split::Tune) = (row.rung(), s) {
            let rung_of = self.rungs.entry(r).or_insert_with(|| Rung { rung: r, ..Rung::default() });
            rung(rung_of, row, &self.key_at, self.budget_at, ok);
        }
    }

    /// Counts a row by how it was evaluated (`ok`), or as a failure, keeping the first
    /// [`FAILURES_KEPT`] failed rows.
    fn outcome(&mut self, row: &ResultRow<'_>, ok: bool) {
        if ok {
            match row.evaluation() {
                _ if row.regret().is_none() => self.evaluation.3 += 1,
                "sampled" => self.evaluation.1 += 1,
                "bound" => self.evaluation.2 += 1,
                _ => self.evaluation.0 += 1,
            }
        } else {
            self.failed += 1;
            if self.failures.len() < FAILURES_KEPT {
                let cells = [row.job_id(), row.label(), row.seat(), row.eval_opponent(), row.error()];
                self.failures.push(Failure { cells: cells.map(String::from) });
            }
        }
    }

    /// Adds a tuning row of trial `t` of a model-based search to its trial: its job's
    /// training time once per job, and its metric when it succeeded (`ok`) against the
    /// search's opponent.
    fn trial(&mut self, row: &ResultRow<'_>, t: u32, ok: bool) {
        let Some((metric, opponent)) = &self.searched else { return };
        let label = row.label().to_string();
        let trial = self.trials.entry((label.clone(), t)).or_insert_with(|| Trial {
            label,
            trial: t,
            round: row.round().unwrap_or(0),
            config: self.by.iter().zip(&self.key_at).map(|(&n, &i)| (n, row.cell(i).to_string())).collect(),
            ..Trial::default()
        });
        if trial.jobs.insert(row.job_id().to_string()) {
            trial.train_ms += row.train_ms().unwrap_or(0.0);
        }
        if ok && row.eval_opponent() == opponent.as_str() {
            if let Some(x) = row.number(*metric) {
                trial.metric = (trial.metric.0 + x, trial.metric.1 + 1);
            }
        }
    }
}

/// The metric and opponent a search that runs trials in rounds (`method = "tpe"` or
/// `"random"`, see [`SearchMethod::proposes`](crate::spec::SearchMethod::proposes)) ranks
/// them by, from the manifest's spec; none without such a search, or when it ranks by
/// another metric than `regret` or `regret_auc`.
fn tpe_ranking(manifest: Option<&Manifest>) -> Option<(Field, String)> {
    let search = manifest?.spec.get("search")?;
    let text = |k: &str| search.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
    let metric = text("metric");
    let field = [Field::Regret, Field::RegretAuc].into_iter().find(|f| f.name() == metric)?;
    crate::spec::search::method(search.get("method")?.as_str()?)?.proposes().then(|| (field, text("opponent")))
}

/// The grouping columns a table shows (positions in `by`), as `summary` chooses them:
/// those that vary within a kind (among the tuning rows when there are test rows), and
/// the solver, seat and evaluation opponent.
fn shown_columns(by: &[&str], agg: &Aggregator, tuned: Option<&Pass>) -> Vec<usize> {
    let mut show = tuned.map_or(agg.varying_within_kinds(), |t| t.agg.varying_within_kinds());
    let always = [Field::Solver.name(), ParamColumn::Seat.name(), Field::EvalOpponent.name()];
    show.extend((0..by.len()).filter(|&k| always.contains(&by[k])));
    show.sort_unstable();
    show.dedup();
    show
}

/// The leaderboard's `vs_best` marks, the lines on blocks that cannot reject, and the
/// answers to "which solver?": on test rows as `compare --by solver` gives them (from
/// `solver_blocks`, with no lines), on tuning rows as `summary` does (from `blocks`, with
/// no answers).
fn leaderboard_marks(
    split: Split,
    blocks: &[Block],
    solver_blocks: &[Block],
    by: &[&str],
) -> (BTreeMap<Vec<String>, Mark>, Vec<String>, Vec<String>) {
    if split == Split::Test {
        let (marks, answer) = solvers_compared(solver_blocks, by, Significance::T, Verdicts::default().level);
        (marks, Vec::new(), answer)
    } else {
        let (marks, notes) = best_marks_in(blocks, by, Procedure::Mcb, Verdicts::default().level);
        (marks, notes, Vec::new())
    }
}

/// The bootstrap's strata of the configurations the leaderboard shows: in each panel, the
/// best [`shown`] of `groups` by mean regret.
fn leaderboard_strata(results: &Path, by: &[&str], groups: &[Group], split: Split) -> Result<Strata> {
    let mut per_panel: BTreeMap<Vec<String>, Vec<&Group>> = BTreeMap::new();
    for g in groups {
        per_panel.entry(panel(by, &g.key)).or_default().push(g);
    }
    let wanted: HashSet<&[String]> = per_panel
        .into_values()
        .flat_map(|mut gs| {
            gs.sort_by(|a, b| a.mean_regret.total_cmp(&b.mean_regret));
            let n = shown(groups.len(), gs.len());
            gs.into_iter().take(n).map(|g| g.key.as_slice())
        })
        .collect();
    strata_where(results, by, Some(split), |k| wanted.contains(k))
}

/// Reads a results directory (or its `results.csv`) for a page.
pub fn read(dir: &Path) -> Result<Data> {
    let results = dir.join("results.csv");
    let manifest = Manifest::read(dir).ok();
    let by = config_columns();
    // A model-based search ranks by its metric against its opponent (the manifest's).
    let mut scan = Scan::new(&by, tpe_ranking(manifest.as_ref()));
    each_result(&results, &NEEDED_COLUMNS, |row| scan.row(&row)).with_context(|| format!("{}", results.display()))?;
    let Scan { tune, test, rungs, failures, failed, boards, evaluation, trials, searched, .. } = scan;
    // Both splits were read; the test rows are shown when there are any, as `summary` does.
    let split = if test.agg.rows() > 0 { Split::Test } else { Split::Tune };
    let (shown_pass, tuned) = if split == Split::Test { (test, Some(tune)) } else { (tune, None) };
    let Pass { agg, learners, panels } = shown_pass;
    if agg.rows() == 0 {
        anyhow::bail!("{}: results.csv has no rows yet", dir.display());
    }
    let show = shown_columns(&by, &agg, tuned.as_ref());
    let blocks = read_blocks_in(&results, Metric::Regret, &block_columns(), &default_config_columns(), split)?;
    let compared = against_best(&blocks, Verdicts::default());
    let (outer, solver_config) = solver_block_columns();
    let solver_blocks = read_blocks_in(&results, Metric::Regret, &outer, &solver_config, split)?;
    // On test rows the leaderboard answers "which solver?" as `compare --by solver` does.
    let (marks, mut notes, answer) = leaderboard_marks(split, &blocks, &solver_blocks, &by);
    notes.extend(crate::report::nash_conv::trivial_lines(&results, Some(split))?);
    let tuned_groups =
        tuned.map_or(BTreeMap::new(), |t| t.agg.groups().into_iter().map(|g| (g.key.clone(), g)).collect());
    let groups = agg.groups();
    let drawn = top_learners(&groups, &learners, &by);
    let colours = colours(&groups, &drawn, &by);
    let curves = read_curves(dir, &by, &drawn, split)?;
    let tune_blocks = if split == Split::Test {
        read_blocks_in(&results, Metric::Regret, &block_columns(), &default_config_columns(), Split::Tune)?
    } else {
        blocks.clone()
    };
    let strata = leaderboard_strata(&results, &by, &groups, split)?;
    let bytes = std::fs::read(&results).with_context(|| format!("cannot read {}", results.display()))?;
    Ok(Data {
        dir: dir.display().to_string(),
        manifest,
        split,
        strata,
        by,
        show,
        rows: agg.rows(),
        panels,
        groups,
        marks,
        notes,
        answer,
        colours,
        tuned: tuned_groups,
        learners,
        curves,
        blocks,
        compared,
        tune_blocks,
        solver_blocks,
        rungs: rungs.into_values().collect(),
        trials: {
            let (metric, opponent) = searched.map(|(f, o)| (f.name().to_string(), o)).unwrap_or_default();
            (trials.into_values().collect(), metric, opponent)
        },
        failures: (failures, failed),
        boards,
        evaluation,
        csv: embed("results.csv", &bytes),
    })
}

/// Adds a search's row to its rung; `budget_at`: the positions of the budget columns.
fn rung(rung: &mut Rung, row: &ResultRow<'_>, key_at: &[usize], budget_at: [usize; 2], ok: bool) {
    let budget = if row.episodes().is_empty() { row.iterations() } else { row.episodes() };
    if !rung.budgets.contains(budget) {
        rung.budgets.insert(budget.to_string());
    }
    let config: Vec<String> =
        key_at.iter().filter(|i| !budget_at.contains(i)).map(|&i| row.cell(i).to_string()).collect();
    rung.configurations.insert(config);
    if rung.jobs.insert(row.job_id().to_string()) {
        rung.train_ms += row.train_ms().unwrap_or(0.0);
    }
    rung.failed += usize::from(!ok);
}

/// What a colour stands for on a page: a solver and its configuration (every default
/// configuration column but the board), the same in every panel and chart.
fn identity(solver: &str, value: impl Fn(&str) -> String) -> Vec<String> {
    let mut id = vec![solver.to_string()];
    id.extend(default_config_columns().into_iter().filter(|c| *c != ParamColumn::Game.name()).map(value));
    id
}

impl Data {
    /// The colour of a summary group (by its key): one per solver and configuration on
    /// the whole page.
    pub fn colour_of_group(&self, key: &[String]) -> (&'static str, bool) {
        let id = identity(at(&self.by, Field::Solver.name()).map_or("", |k| &key[k]), |c| {
            at(&self.by, c).map(|k| key[k].clone()).unwrap_or_default()
        });
        super::svg::series(self.colours.get(&id).copied().unwrap_or(0))
    }

    /// The colour of a block's configuration (its key by the default configuration
    /// columns), the same as [`Data::colour_of_group`] gives its group.
    pub fn colour_of_config(&self, solver: &str, key: &[String]) -> (&'static str, bool) {
        let columns = default_config_columns();
        let id = identity(solver, |c| columns.iter().position(|x| *x == c).map(|k| key[k].clone()).unwrap_or_default());
        super::svg::series(self.colours.get(&id).copied().unwrap_or(0))
    }
}

/// One colour index per solver and configuration, in the order a reader meets them: the
/// drawn learning curves first, then the leaderboard's groups best first.
fn colours(groups: &[Group], drawn: &BTreeSet<Vec<String>>, by: &[&str]) -> HashMap<Vec<String>, usize> {
    let mut out = HashMap::new();
    let of = |key: &[String]| {
        let solver = at(by, Field::Solver.name()).map_or("", |k| &key[k]);
        identity(solver, |c| at(by, c).map(|k| key[k].clone()).unwrap_or_default())
    };
    let mut ordered: Vec<&Group> = groups.iter().filter(|g| drawn.contains(&g.key)).collect();
    ordered.extend(groups.iter().filter(|g| !drawn.contains(&g.key)));
    for g in ordered {
        let next = out.len();
        out.entry(of(&g.key)).or_insert(next);
    }
    out
}

/// The panel of a configuration (its key by `by`): its seat, evaluation opponent and game.
pub fn panel(by: &[&str], key: &[String]) -> Vec<String> {
    PANEL.iter().filter_map(|c| at(by, c)).map(|k| key[k].clone()).collect()
}

/// The columns that make a panel: the seat, the evaluation opponent and the board.
pub const PANEL: [&str; 3] = [ParamColumn::Seat.name(), Field::EvalOpponent.name(), ParamColumn::Game.name()];

/// The learners' configurations whose curves are drawn: the best [`CURVES_PER_PANEL`] of
/// every panel.
pub fn top_learners(groups: &[Group], learners: &HashSet<Vec<String>>, by: &[&str]) -> BTreeSet<Vec<String>> {
    let mut per_panel: BTreeMap<Vec<String>, Vec<&Group>> = BTreeMap::new();
    for g in groups.iter().filter(|g| learners.contains(&g.key) && g.n > 0) {
        per_panel.entry(panel(by, &g.key)).or_default().push(g);
    }
    per_panel
        .into_values()
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
    each_result(&dir.join("results.csv"), &NEEDED_COLUMNS, |row| {
        if row.split() != split || !row.ok() {
            return;
        }
        let key: Vec<String> = key_at.iter().map(|&i| row.cell(i).to_string()).collect();
        if wanted.contains(&key) {
            let n = count.entry(key.clone()).or_default();
            let id = (row.job_id().to_string(), row.seat().to_string(), row.eval_opponent().to_string());
            jobs.insert(id, (key, *n));
            *n += 1;
        }
    })?;
    let mut out: BTreeMap<Vec<String>, Curves> = count.iter().map(|(k, &n)| (k.clone(), vec![Vec::new(); n])).collect();
    each_curve(&path, &CURVE_COLUMNS, |c| {
        let id = (c.job_id().to_string(), c.seat().to_string(), c.eval_opponent().to_string());
        if let Some((key, i)) = jobs.get(&id) {
            let (Some(e), Some(r)) = (c.episode(), c.regret()) else { return };
            out.get_mut(key).expect("a wanted configuration")[*i].push((e as f64, r));
        }
    })?;
    Ok(out)
}
