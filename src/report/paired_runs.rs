//! Results read back as paired runs: blocks of configurations whose runs share their
//! replicates, the input of `sweep compare`, `sweep importance` and the `vs_best` mark of
//! `sweep summary`.
//!
//! A block is one (solver, seat, evaluation opponent, and `game` where the file has such
//! a column), or fewer of these when some are compared with each other; a configuration
//! is the values of the configuration columns (by default every parameter but the seat).
//! A run is one replicate of a configuration: its metric is the mean over the rows of that
//! replicate (one row, unless the configuration columns are coarser than the grid).
//! Failed rows and rows without the metric are left out ([`counted`] decides which rows
//! count). A run that never reached regret 0 has no `solved_at`: it is counted apart
//! ([`Config::unsolved`]), never given a value. One number per (configuration, replicate)
//! is kept, never the rows. [`gaps`] pairs each tested configuration's test runs with its
//! tuning runs.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{Result, bail};

use crate::job::Split;
use crate::stats::anova::Grid;

use super::NEEDED_COLUMNS;
use super::result_row::{ResultRow, each_result};
use super::{Field, ParamColumn, RESULT_COLUMNS, column, param_columns};

crate::names::named_enum!(
    /// The metric a comparison ranks by.
    Metric, "metric", {
        /// Final regret (lower is better).
        Regret = "regret",
        /// Mean regret over the run (lower is better; learners only).
        RegretAuc = "regret_auc",
        /// First episode from which the run stays solved (lower is better; learners
        /// only; a run never solved has none and is counted apart).
        SolvedAt = "solved_at",
        /// Exact expected return (higher is better).
        Value = "value",
    }
);

impl Metric {
    /// Whether smaller values are better.
    pub fn lower_is_better(self) -> bool {
        self != Metric::Value
    }

    /// Whether the metric cannot be negative.
    pub fn non_negative(self) -> bool {
        self != Metric::Value
    }

    /// The column that holds the metric (`solved_at`: the first episode from which the run
    /// stays solved).
    pub fn field(self) -> Field {
        match self {
            Metric::Regret => Field::Regret,
            Metric::RegretAuc => Field::RegretAuc,
            Metric::SolvedAt => Field::SolvedAt,
            Metric::Value => Field::Value,
        }
    }

    /// The metric of a successful row: `None` when the row has no such metric (a solver
    /// without learning curves, a file of an older version), `Some(None)` for a learner's
    /// run that was never solved, else `Some(Some(value))`.
    fn read(self, row: &ResultRow<'_>) -> Option<Option<f64>> {
        match self {
            Metric::SolvedAt => {
                row.regret_auc()?;
                Some(row.solved_at())
            }
            other => row.number(other.field()).map(Some),
        }
    }
}

/// Whether a results row counts in a comparison: a successful row. (Every other filter on
/// rows belongs here too.)
pub fn counted(row: &ResultRow<'_>) -> bool {
    row.ok()
}

/// The block columns: the solver, the seat, the evaluation opponent, and `game` when the
/// results have it.
pub fn block_columns() -> Vec<&'static str> {
    let mut v = vec![Field::Solver.name(), ParamColumn::Seat.name(), Field::EvalOpponent.name()];
    if RESULT_COLUMNS.contains(&ParamColumn::Game.name()) {
        v.push(ParamColumn::Game.name());
    }
    v
}

/// The default configuration columns: every parameter but the seat.
pub fn default_config_columns() -> Vec<&'static str> {
    param_columns().into_iter().filter(|&c| c != ParamColumn::Seat.name()).collect()
}

/// One configuration's runs.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Values of the configuration columns.
    pub key: Vec<String>,
    /// The solver's label (of the first row).
    pub label: String,
    /// Metric per replicate: (sum, rows).
    runs: BTreeMap<u32, (f64, usize)>,
    /// Replicates with a row that has no value of the metric because the run was never
    /// solved (`solved_at`); such a replicate has no run.
    unsolved: std::collections::BTreeSet<u32>,
}

impl Config {
    /// The metric of each run, by replicate (never-solved replicates left out).
    pub fn runs(&self) -> BTreeMap<u32, f64> {
        self.runs
            .iter()
            .filter(|(r, _)| !self.unsolved.contains(r))
            .map(|(&r, &(sum, n))| (r, sum / n as f64))
            .collect()
    }

    /// How many replicates were never solved (`solved_at` only; else 0).
    pub fn unsolved(&self) -> usize {
        self.unsolved.len()
    }

    /// A configuration with one run per value, replicates 0, 1, ... (for tests).
    #[cfg(test)]
    pub fn with_runs(label: &str, values: &[f64]) -> Config {
        let runs = values.iter().enumerate().map(|(r, &x)| (r as u32, (x, 1))).collect();
        Config { key: vec![label.to_string()], label: label.to_string(), runs, ..Config::default() }
    }

    /// The metric of each run, in replicate order.
    pub fn values(&self) -> Vec<f64> {
        self.runs().into_values().collect()
    }

    /// The mean over runs (NaN without runs).
    pub fn mean(&self) -> f64 {
        let v = self.values();
        if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 }
    }
}

/// One block: its key and its configurations in file (spec) order.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// Values of the block columns.
    pub key: Vec<String>,
    /// The configurations.
    pub configs: Vec<Config>,
}

impl Block {
    /// The configuration columns (by index) whose values differ within the block.
    pub fn varying(&self) -> Vec<usize> {
        let Some(first) = self.configs.first() else { return Vec::new() };
        (0..first.key.len()).filter(|&k| self.configs.iter().any(|c| c.key[k] != first.key[k])).collect()
    }

    /// The varying columns (`columns` names them by index) that are axes the user set: a
    /// schedule's `X_decay` is left out where every configuration sets its `X_min_at`,
    /// from which (and the episodes) the decay was derived (see [`super::derived`]).
    pub fn factors(&self, columns: &[&str]) -> Vec<usize> {
        self.varying()
            .into_iter()
            .filter(|&k| !self.configs.iter().all(|c| super::derived(columns, &c.key, k)))
            .collect()
    }
}

/// Every block of the results at `path` by the columns `block`, in file order, with
/// `config` as the configuration columns, from the rows of `split` only. Refuses unknown
/// columns.
pub fn read_blocks_in(
    path: &Path,
    metric: Metric,
    block: &[&str],
    config: &[&str],
    split: crate::job::Split,
) -> Result<Vec<Block>> {
    for c in config {
        if !RESULT_COLUMNS.contains(c) {
            bail!("--by {c}: no such column; columns are {}", RESULT_COLUMNS.join(", "));
        }
    }
    let blocks_at: Vec<usize> = block.iter().map(|c| column(c)).collect();
    let config_at: Vec<usize> = config.iter().map(|c| column(c)).collect();
    let mut blocks: Vec<Block> = Vec::new();
    // Block key → (its index, configuration key → its index).
    type Index = HashMap<Vec<String>, (usize, HashMap<Vec<String>, usize>)>;
    let mut index = Index::new();
    each_result(path, &NEEDED_COLUMNS, |row| {
        if !counted(&row) || row.split() != split {
            return;
        }
        let Some(x) = metric.read(&row) else { return };
        let block_key: Vec<String> = blocks_at.iter().map(|&i| row.cell(i).to_string()).collect();
        let config_key: Vec<String> = config_at.iter().map(|&i| row.cell(i).to_string()).collect();
        let (b, configs) = index.entry(block_key.clone()).or_insert_with(|| {
            blocks.push(Block { key: block_key, configs: Vec::new() });
            (blocks.len() - 1, HashMap::new())
        });
        let block = &mut blocks[*b];
        let c = *configs.entry(config_key.clone()).or_insert_with(|| {
            let label = row.label().to_string();
            block.configs.push(Config { key: config_key, label, ..Config::default() });
            block.configs.len() - 1
        });
        let replicate = row.replicate().unwrap_or(0);
        let config = &mut block.configs[c];
        let run = config.runs.entry(replicate).or_insert((0.0, 0));
        match x {
            Some(x) => run.0 += x,
            None => {
                config.unsolved.insert(replicate);
            }
        }
        run.1 += 1;
    })?;
    Ok(blocks)
}

/// The grid of a block over its varying columns (`factors`), refused unless every
/// combination of their values is present exactly once.
pub fn block_grid(block: &Block, columns: &[&str]) -> Result<(Vec<usize>, Grid)> {
    block_grid_of(block, columns, Config::mean)
}

/// The grid of a block as [`block_grid`] builds it, each cell holding `value` of its
/// configuration (its mean, or one replicate's run).
pub fn block_grid_of(block: &Block, columns: &[&str], value: impl Fn(&Config) -> f64) -> Result<(Vec<usize>, Grid)> {
    grid_over(block, block.factors(columns), columns, value)
}

/// The grid of [`block_grid_of`] over `factors` (the block's varying columns, computed once
/// by the caller).
pub fn grid_over(
    block: &Block,
    factors: Vec<usize>,
    columns: &[&str],
    value: impl Fn(&Config) -> f64,
) -> Result<(Vec<usize>, Grid)> {
    // Each factor's levels in order of appearance, and each level's index.
    let mut levels: Vec<Vec<&str>> = vec![Vec::new(); factors.len()];
    let mut index: Vec<HashMap<&str, usize>> = vec![HashMap::new(); factors.len()];
    for c in &block.configs {
        for (f, &k) in factors.iter().enumerate() {
            if !index[f].contains_key(c.key[k].as_str()) {
                index[f].insert(&c.key[k], levels[f].len());
                levels[f].push(&c.key[k]);
            }
        }
    }
    let cells: usize = levels.iter().map(Vec::len).product();
    let mut values = vec![f64::NAN; cells];
    for c in &block.configs {
        let at =
            factors.iter().zip(&levels).zip(&index).fold(0, |at, ((&k, l), i)| at * l.len() + i[c.key[k].as_str()]);
        values[at] = value(c);
    }
    let missing = values.iter().filter(|v| v.is_nan()).count();
    if missing > 0 || block.configs.len() != cells {
        let names: Vec<&str> = factors.iter().map(|&k| columns[k]).collect();
        bail!(
            "{}: the grid over {} is not full ({} of {cells} combinations have results): importance needs every \
             combination; run the full grid or choose columns with --by",
            block.key.join("/"),
            names.join(" × "),
            cells - missing
        );
    }
    Ok((factors, Grid { levels: levels.iter().map(Vec::len).collect(), values }))
}

/// One tested configuration: its mean metric over its tuning and its test replicates.
#[derive(Clone, Debug)]
pub struct Gap {
    /// The block's key (see [`block_columns`]).
    pub block: Vec<String>,
    /// The solver's label.
    pub label: String,
    /// The configuration's key (values of the configuration columns).
    pub config: Vec<String>,
    /// The configuration as `column=value` for the columns that vary in its tuning block.
    pub name: String,
    /// Tuning replicates and their mean.
    pub tune: (usize, f64),
    /// Test replicates and their mean.
    pub test: (usize, f64),
}

impl Gap {
    /// Test mean minus tuning mean.
    pub fn gap(&self) -> f64 {
        self.test.1 - self.tune.1
    }
}

/// Every configuration with test rows, matched with its tuning rows (same block and
/// configuration key), in file order.
pub fn gaps(path: &Path, metric: Metric, config: &[&str]) -> Result<Vec<Gap>> {
    let tune = read_blocks_in(path, metric, &block_columns(), config, Split::Tune)?;
    let test = read_blocks_in(path, metric, &block_columns(), config, Split::Test)?;
    let find = |block: &Block, key: &[String]| {
        let tuned = tune.iter().find(|b| b.key == block.key)?;
        let name: Vec<String> = tuned.factors(config).iter().map(|&k| super::setting(config[k], &key[k])).collect();
        Some((tuned.configs.iter().find(|c| c.key == key)?.clone(), name.join(" ")))
    };
    let mut out = Vec::new();
    for block in &test {
        for c in &block.configs {
            let Some((tuned, name)) = find(block, &c.key) else { continue };
            out.push(Gap {
                block: block.key.clone(),
                label: c.label.clone(),
                config: c.key.clone(),
                name,
                tune: (tuned.values().len(), tuned.mean()),
                test: (c.values().len(), c.mean()),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_is_spelt_as_its_column() {
        for &m in Metric::ALL {
            assert_eq!(m.name(), m.field().name());
        }
    }
}
