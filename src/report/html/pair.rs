//! Two results directories side by side (`sweep report A B`): the configurations they
//! share (same solver, parameters, seat, evaluation opponent and game), each side's mean
//! regret and interval as `summary` computes them, the difference; and what only one of
//! them has. The directories may come from different specs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};

use super::{Cell, Facts, Part, Section, Stands, Table, page, page_table};
use crate::job::Split;
use crate::report::manifest::Manifest;
use crate::report::result_row::each_result;
use crate::report::summary::{Aggregator, Group, NEEDED_COLUMNS, config_columns};
use crate::report::{Field, ParamColumn, splits};

/// One side: its directory, manifest, the rows shown and its configurations.
pub struct Side {
    /// The directory as given.
    pub dir: String,
    /// Its manifest, when readable.
    pub manifest: Option<Manifest>,
    /// The rows shown (test when the file has test rows, as `summary`).
    pub split: Split,
    /// Configurations by key.
    pub groups: BTreeMap<Vec<String>, Group>,
}

/// Two sides.
pub struct Pair {
    /// The first directory (A).
    pub a: Side,
    /// The second directory (B).
    pub b: Side,
}

fn side(dir: &Path) -> Result<Side> {
    let results = dir.join("results.csv");
    let split = splits::shown(&results)?;
    let mut agg = Aggregator::new(&config_columns());
    each_result(&results, &NEEDED_COLUMNS, |row| {
        if row.split() == split {
            agg.push(&row);
        }
    })
    .with_context(|| results.display().to_string())?;
    if agg.rows() == 0 {
        anyhow::bail!("{}: results.csv has no rows yet", dir.display());
    }
    Ok(Side {
        dir: dir.display().to_string(),
        manifest: Manifest::read(dir).ok(),
        split,
        groups: agg.groups().into_iter().map(|g| (g.key.clone(), g)).collect(),
    })
}

/// Reads two results directories.
pub fn read_pair(a: &Path, b: &Path) -> Result<Pair> {
    Ok(Pair { a: side(a)?, b: side(b)? })
}

fn interval(g: &Group) -> (f64, f64) {
    if g.ci95.is_nan() { (f64::NAN, f64::NAN) } else { ((g.mean_regret - g.ci95).max(0.0), g.mean_regret + g.ci95) }
}

/// The page comparing two directories.
pub fn pair_page(p: &Pair) -> String {
    let by = config_columns();
    let show = distinguishing_columns(p, &by);
    let names: Vec<String> = show.iter().map(|&k| by[k].to_string()).collect();
    let mut header = names.clone();
    header.extend(
        [
            "n_a",
            "mean_regret_a",
            "ci95_low_a",
            "ci95_high_a",
            "n_b",
            "mean_regret_b",
            "ci95_low_b",
            "ci95_high_b",
            "difference",
        ]
        .map(String::from),
    );
    let mut shared = Vec::new();
    for (key, ga) in &p.a.groups {
        let Some(gb) = p.b.groups.get(key) else { continue };
        let mut r = key_cells(key, &show);
        let (la, ha) = interval(ga);
        let (lb, hb) = interval(gb);
        r.extend([Cell::int(ga.n), Cell::Float(ga.mean_regret), Cell::Float(la), Cell::Float(ha)]);
        r.extend([Cell::int(gb.n), Cell::Float(gb.mean_regret), Cell::Float(lb), Cell::Float(hb)]);
        r.push(Cell::Float(gb.mean_regret - ga.mean_regret));
        shared.push((Stands::Config(key.join("|")), r));
    }
    let (only_a, only_b) = (only_in(&p.a, &p.b, &names, &show), only_in(&p.b, &p.a, &names, &show));
    let same_seed = match (&p.a.manifest, &p.b.manifest) {
        (Some(a), Some(b)) => a.master_seed == b.master_seed,
        _ => false,
    };
    let sections = vec![
        shared_section(header, shared, same_seed),
        Section {
            id: "only-a",
            title: format!("Only in A ({})", only_a.rows.len()),
            how: "Configurations that only the first directory ran.".into(),
            parts: vec![Part::Table(only_a)],
        },
        Section {
            id: "only-b",
            title: format!("Only in B ({})", only_b.rows.len()),
            how: "Configurations that only the second directory ran.".into(),
            parts: vec![Part::Table(only_b)],
        },
    ];
    page("sweep report: A and B", &pair_facts(p, &by), &sections, None)
}

/// The grouping columns shown (positions in `by`): those that tell configurations apart,
/// whose value differs between two configurations of one solver on either side or
/// across them, and the solver, seat, evaluation opponent and game.
fn distinguishing_columns(p: &Pair, by: &[&str]) -> Vec<usize> {
    let solver = by.iter().position(|c| *c == Field::Solver.name()).unwrap_or(0);
    let keys: Vec<&Vec<String>> = p.a.groups.keys().chain(p.b.groups.keys()).collect();
    let mut show: Vec<usize> = (0..by.len())
        .filter(|&k| {
            let mut first: BTreeMap<&str, &str> = BTreeMap::new();
            keys.iter().any(|key| *first.entry(&key[solver]).or_insert(&key[k]) != key[k])
        })
        .collect();
    let always = [Field::Solver.name(), ParamColumn::Seat.name(), Field::EvalOpponent.name(), ParamColumn::Game.name()];
    show.extend((0..by.len()).filter(|&k| always.contains(&by[k])));
    show.sort_unstable();
    show.dedup();
    show
}

/// The cells of a configuration's shown grouping columns.
fn key_cells(key: &[String], show: &[usize]) -> Vec<Cell> {
    show.iter().map(|&k| Cell::text(key[k].clone())).collect()
}

/// The table of the configurations only `x` has (not `y`), each with its mean regret and
/// interval, under the grouping columns `names` (positions `show`).
fn only_in(x: &Side, y: &Side, names: &[String], show: &[usize]) -> Table {
    let mut header = names.to_vec();
    header.extend(["n", "mean_regret", "ci95_low", "ci95_high"].map(String::from));
    let rows = x
        .groups
        .iter()
        .filter(|(k, _)| !y.groups.contains_key(*k))
        .map(|(k, g)| {
            let mut r = key_cells(k, show);
            let (l, h) = interval(g);
            r.extend([Cell::int(g.n), Cell::Float(g.mean_regret), Cell::Float(l), Cell::Float(h)]);
            (Stands::Config(k.join("|")), r)
        })
        .collect();
    page_table(header, rows)
}

/// The section of the configurations both sides ran (`shared`, under `header`), saying
/// whether the sides used the same master seed.
fn shared_section(header: Vec<String>, shared: Vec<(Stands, Vec<Cell>)>, same_seed: bool) -> Section {
    let n_shared = shared.len();
    Section {
        id: "shared",
        title: format!("Shared configurations ({n_shared})"),
        how: format!(
            "Configurations both directories ran (same solver, parameters, seat, opponent and board): each side's mean \
             regret over its replicates with its Student-t 95% interval, as `sweep summary` prints them; difference = \
             B - A (negative: B is better). {}",
            if same_seed {
                "Both used the same master seed, so replicate k had the same seed on both sides."
            } else {
                "The master seeds differ: the sides are independent samples."
            }
        ),
        parts: if n_shared == 0 {
            vec![Part::Note(
                "None: every configuration of one differs from those of the other in a parameter, the seat, the \
                 opponent or the board (the columns below show where)."
                    .into(),
            )]
        } else {
            vec![Part::Table(page_table(header, shared))]
        },
    }
}

/// The facts at the top of the page: each side's directory, spec and rows shown, whether
/// the specs are the same, and the boards.
fn pair_facts(p: &Pair, by: &[&str]) -> Facts {
    let mut facts: Facts = Vec::new();
    for (tag, s) in [("A", &p.a), ("B", &p.b)] {
        let spec = s.manifest.as_ref().map_or("no manifest.json".to_string(), |m| {
            let name = m.spec.get("name").and_then(|v| v.as_str()).unwrap_or("");
            format!("{name}, hash {}, master seed {}, {} {}", m.spec_hash, m.master_seed, m.tool, m.tool_version)
        });
        facts.push((tag.into(), format!("{} ({spec}; {} rows)", s.dir, s.split.name())));
    }
    let same = matches!((&p.a.manifest, &p.b.manifest), (Some(a), Some(b)) if a.spec_hash == b.spec_hash);
    facts.push(("specs".into(), if same { "the same spec (same hash)".into() } else { "different specs".into() }));
    let boards: BTreeSet<&str> =
        p.a.groups
            .keys()
            .chain(p.b.groups.keys())
            .filter_map(|k| by.iter().position(|c| *c == ParamColumn::Game.name()).map(|i| k[i].as_str()))
            .collect();
    facts.push(("board".into(), boards.into_iter().collect::<Vec<_>>().join(", ")));
    facts
}
