//! The `split` column as readers use it: `tune` (a job of the grid or of a search's rungs)
//! or `test` (a chosen configuration re-run on fresh seeds, see `[test]`). A file of an
//! older version has no such column: its rows read as `tune` (a row's split is
//! [`super::result_row::ResultRow::split`]).
//!
//! `summary` and `compare` show the test rows of a file that has them (the tuning rows
//! with `--split tune`), and the gap between a tested configuration's tuning and test
//! means: with exact regret there is no evaluation noise, so the gap is the optimism of
//! choosing on the same seeds (overtuning) plus the seeds' own variation
//! ([`super::paired_runs::gaps`] computes it).

use std::path::Path;

use anyhow::Result;

use super::Field;
use super::result_row::each_result;
use crate::job::Split;

/// The split readers show by default: `test` when the file has test rows, else `tune`.
pub fn shown(path: &Path) -> Result<Split> {
    let mut test = false;
    each_result(path, &[Field::JobId.name()], |row| test |= row.split() == Split::Test)?;
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
