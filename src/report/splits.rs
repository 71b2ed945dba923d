//! The `split` column as readers use it: `tune` (a job of the grid or of a search's rungs)
//! or `test` (a chosen configuration re-run on fresh seeds, see `[test]`). A file of an
//! older version has no such column: its rows read as `tune`.
//!
//! `summary` and `compare` show the test rows of a file that has them (the tuning rows
//! with `--split tune`), and the gap between a tested configuration's tuning and test
//! means: with exact regret there is no evaluation noise, so the gap is the optimism of
//! choosing on the same seeds (overtuning) plus the seeds' own variation.

use std::path::Path;

use anyhow::Result;

use super::files::each_row;
use super::paired_runs::{Block, Metric, read_blocks_in};
use super::{Field, RESULT_COLUMNS};
use crate::spec::Split;

/// The split of a row, from its `split` cell (empty: a file of an older version, `tune`).
pub fn of(cell: &str) -> Split {
    if cell == Split::Test.name() { Split::Test } else { Split::Tune }
}

/// The split of a row padded to today's columns.
pub fn of_row(rec: &csv::StringRecord) -> Split {
    of(rec.get(Field::Split.column()).unwrap_or(""))
}

/// The split readers show by default: `test` when the file has test rows, else `tune`.
pub fn shown(path: &Path) -> Result<Split> {
    let mut test = false;
    each_row(path, &RESULT_COLUMNS, &["job_id"], |rec| test |= of_row(rec) == Split::Test)?;
    Ok(if test { Split::Test } else { Split::Tune })
}

/// Parses `--split` for clap.
pub fn arg(s: &str) -> Result<Split, String> {
    match s {
        "tune" => Ok(Split::Tune),
        "test" => Ok(Split::Test),
        other => Err(format!("{other:?} is not a split: use tune or test")),
    }
}

/// What a reader says about the split it shows (one line; readers print it when the file
/// has test rows or `--split` was given).
pub fn describe(split: Split, chosen: bool) -> String {
    match (split, chosen) {
        (Split::Test, _) => "split: test rows (the chosen configurations on fresh seeds; --split tune for the \
                             tuning rows)"
            .into(),
        (Split::Tune, true) => "split: tuning rows (--split test for the test rows)".into(),
        (Split::Tune, false) => "split: tuning rows (the file has no test rows)".into(),
    }
}

/// One tested configuration: its mean metric over its tuning and its test replicates.
#[derive(Clone, Debug)]
pub struct Gap {
    /// The block's key (see [`super::paired_runs::block_columns`]).
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
    let tune = read_blocks_in(path, metric, &super::paired_runs::block_columns(), config, Split::Tune)?;
    let test = read_blocks_in(path, metric, &super::paired_runs::block_columns(), config, Split::Test)?;
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
