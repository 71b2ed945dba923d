//! The search's edge: each finished job's score, read from a results file (the mean of
//! the `[search]` or `[test]` metric over its rows against the judged opponent).

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;

use super::test_pass::Scores;
use crate::mdp::{EvalOpponent, Seat};
use crate::report::result_row::each_result;
use crate::report::{Field, ParamColumn};
use crate::spec::{Metric, SearchSpec, Sweep};

/// Sums of the metric over a job's rows: all of them against the search's opponent, and
/// those of its seat.
#[derive(Default)]
struct Sums {
    all: (f64, u32),
    seat: (f64, u32),
    failed: bool,
}

/// The metric of every finished job in the results file `path` (none when it does not
/// exist): the mean over its rows against the search's opponent (in the search's seat
/// when it names one and the job is evaluated there); +inf for a failed job.
pub fn read_scores(path: &Path, search: &SearchSpec) -> Result<HashMap<String, f64>> {
    read_metric(path, search.metric, search.opponent, search.seat)
}

/// The `metric` of every finished job in the results file `path`, judged against
/// `opponent` in `seat` as [`read_scores`] does (also for a `[test]` table's ranking).
pub fn read_metric(
    path: &Path,
    metric: Metric,
    opponent: EvalOpponent,
    seat: Option<Seat>,
) -> Result<HashMap<String, f64>> {
    let metric = match metric {
        Metric::Regret => Field::Regret,
        Metric::RegretAuc => Field::RegretAuc,
    };
    if !path.exists() {
        return Ok(HashMap::new());
    }
    let (judged, seated) = (opponent, seat);
    let needed = [
        Field::JobId.name(),
        Field::EvalOpponent.name(),
        ParamColumn::Seat.name(),
        Field::Status.name(),
        metric.name(),
    ];
    let mut sums: HashMap<String, Sums> = HashMap::new();
    each_result(path, &needed, |row| {
        if row.eval_opponent() != judged.name() {
            return;
        }
        let entry = sums.entry(row.job_id().to_string()).or_default();
        let v = row.number(metric).unwrap_or(f64::INFINITY);
        entry.failed |= !row.ok();
        entry.all = (entry.all.0 + v, entry.all.1 + 1);
        if seated.is_some_and(|s| s.name() == row.seat()) {
            entry.seat = (entry.seat.0 + v, entry.seat.1 + 1);
        }
    })?;
    let mean = |(sum, n): (f64, u32)| sum / f64::from(n);
    Ok(sums
        .into_iter()
        .map(|(job, s)| {
            let score = if s.failed {
                f64::INFINITY
            } else if s.seat.1 > 0 {
                mean(s.seat)
            } else {
                mean(s.all)
            };
            (job, score)
        })
        .collect())
}

impl Scores {
    /// Reads both from the results file `path` (empty when it does not exist).
    pub fn read(path: &Path, sweep: &Sweep) -> Result<Scores> {
        let search = match &sweep.search {
            Some(search) => read_scores(path, search)?,
            None => HashMap::new(),
        };
        let test = match &sweep.test {
            Some(t) => read_metric(path, t.metric, t.opponent, t.seat)?,
            None => HashMap::new(),
        };
        let mut rows = HashMap::new();
        if sweep.search.as_ref().is_some_and(|s| s.method.models()) && path.exists() {
            each_result(path, &[Field::JobId.name()], |row| *rows.entry(row.job_id().to_string()).or_insert(0) += 1)?;
        }
        Ok(Scores { search, test, rows })
    }
}
