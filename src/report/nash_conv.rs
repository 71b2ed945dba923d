//! NashConv of self-play policies: the sum of the exploitability of a self-play table in
//! seat X and in seat O (the `regret` of its two `best-response` rows, one job), 0 exactly
//! when the table is a Nash equilibrium of the game. One line per self-play configuration,
//! under the end-of-run summary and under `sweep summary`, with the checkpoint episode
//! from which it stays 0 (from `curves.csv`, where the run recorded curves against
//! `best-response`).

use std::collections::BTreeMap;
use std::path::Path;

use super::files::Columns;
use super::result_row::{CurveRow, each_result};
use super::{CURVE_COLUMNS, CurveField, Field, NEEDED_COLUMNS, ParamColumn, column, config_columns};
use crate::job::Split;
use crate::mdp::EvalOpponent;

/// Per configuration (the default configuration columns but the seat), the NashConv of
/// each of its self-play jobs that has both seats' `best-response` rows, in job order.
pub fn per_config(results: &Path, split: Option<Split>) -> anyhow::Result<BTreeMap<Vec<String>, Vec<f64>>> {
    Ok(per_config_jobs(results, split)?
        .into_iter()
        .map(|(k, js)| (k, js.into_iter().map(|(_, v)| v).collect()))
        .collect())
}

/// Per configuration, each job's id and NashConv.
type JobsByConfig = BTreeMap<Vec<String>, Vec<(String, f64)>>;

/// [`per_config`] with each value's job id.
fn per_config_jobs(results: &Path, split: Option<Split>) -> anyhow::Result<JobsByConfig> {
    let by: Vec<usize> = config_columns().into_iter().filter(|&c| c != ParamColumn::Seat.name()).map(column).collect();
    // Per configuration, per job: the sum of the seats' exploitability and how many seats.
    let mut jobs: BTreeMap<Vec<String>, BTreeMap<String, (f64, u32)>> = BTreeMap::new();
    each_result(results, &NEEDED_COLUMNS, |row| {
        let wanted = row.opponent() == "self"
            && row.eval_opponent() == EvalOpponent::BEST_RESPONSE
            && row.ok()
            && split.is_none_or(|s| row.split() == s);
        let Some(r) = row.regret().filter(|_| wanted) else { return };
        let key = by.iter().map(|&i| row.cell(i).to_string()).collect();
        let e = jobs.entry(key).or_default().entry(row.job_id().to_string()).or_default();
        e.0 += r;
        e.1 += 1;
    })?;
    Ok(jobs
        .into_iter()
        .map(|(k, js)| {
            (k, js.into_iter().filter(|(_, (_, seats))| *seats == 2).map(|(id, (sum, _))| (id, sum)).collect())
        })
        .filter(|(_, v): &(_, Vec<(String, f64)>)| !v.is_empty())
        .collect())
}

/// Per job of `jobs`, the first checkpoint episode of `curves` from which its NashConv
/// (both seats' regret against `best-response`) is 0 at every later checkpoint, if any.
/// Read leniently: no file, a header that is not `curves.csv`'s (of this version or an
/// older one) or lacks a column needed here gives none, and a damaged row ends the reading.
fn first_zero(curves: &Path, jobs: &std::collections::HashSet<&str>) -> BTreeMap<String, u64> {
    let Ok(mut reader) = csv::Reader::from_path(curves) else { return BTreeMap::new() };
    let Ok(header) = reader.headers().cloned() else { return BTreeMap::new() };
    let needed = [CurveField::JobId, CurveField::Episode, CurveField::EvalOpponent, CurveField::Regret];
    let Ok(columns) = Columns::check(curves, header.iter(), &CURVE_COLUMNS) else { return BTreeMap::new() };
    if columns.require(curves, &needed.map(CurveField::name)).is_err() {
        return BTreeMap::new();
    }
    // Per job, per episode: the seats' summed regret and how many seats.
    let mut sums: BTreeMap<String, BTreeMap<u64, (f64, u32)>> = BTreeMap::new();
    let (mut rec, mut line) = (csv::StringRecord::new(), 1);
    while let Ok(true) = reader.read_record(&mut rec) {
        line += 1;
        columns.pad(&mut rec);
        let r = CurveRow::new(&rec, line);
        if r.eval_opponent() != EvalOpponent::BEST_RESPONSE || !jobs.contains(r.job_id()) {
            continue;
        }
        let (Some(e), Some(x)) = (r.episode(), r.regret()) else { continue };
        let s = sums.entry(r.job_id().to_string()).or_default().entry(e).or_default();
        *s = (s.0 + x, s.1 + 1);
    }
    let mut out = BTreeMap::new();
    for (id, checkpoints) in sums {
        // Walk back from the last checkpoint while the NashConv is 0.
        let mut from = None;
        for (&e, &(sum, seats)) in checkpoints.iter().rev() {
            if seats == 2 && sum == 0.0 {
                from = Some(e);
            } else {
                break;
            }
        }
        if let Some(e) = from {
            out.insert(id, e);
        }
    }
    out
}

/// One line per (game, seat) whose `best-response` rows are trivially 0: the seat loses
/// to a best response whatever it plays (its value against one is -1, the game is lost
/// for it), so no policy is exploitable beyond that and a regret of 0 there says nothing
/// about the policy.
pub fn trivial_lines(results: &Path, split: Option<Split>) -> anyhow::Result<Vec<String>> {
    let mut lost: std::collections::BTreeSet<(String, String)> = Default::default();
    each_result(results, &NEEDED_COLUMNS, |row| {
        if row.eval_opponent() == EvalOpponent::BEST_RESPONSE
            && row.ok()
            && split.is_none_or(|s| row.split() == s)
            && row.optimal_value().is_some_and(|v| v == -1.0)
        {
            let game = if row.game().is_empty() { "3x3k3" } else { row.game() };
            lost.insert((game.to_string(), row.seat().to_string()));
        }
    })?;
    Ok(lost
        .into_iter()
        .map(|(game, seat)| {
            format!(
                "{game}, seat {seat}: every policy loses to a best response (the game is lost for {seat}), so its \
                 regret against best-response is 0 whatever it learned: those rows say nothing about the policy"
            )
        })
        .collect())
}

/// One line per self-play configuration with `best-response` rows: the mean NashConv over
/// its replicates, the smallest and largest, and in how many it is 0.
pub fn lines(results: &Path, split: Option<Split>) -> anyhow::Result<Vec<String>> {
    let configs = per_config_jobs(results, split)?;
    let ids: std::collections::HashSet<&str> = configs.values().flatten().map(|(id, _)| id.as_str()).collect();
    let zero_from = results.parent().map_or_else(BTreeMap::new, |dir| first_zero(&dir.join("curves.csv"), &ids));
    let names: Vec<&str> = config_columns().into_iter().filter(|&c| c != ParamColumn::Seat.name()).collect();
    let keys: Vec<&Vec<String>> = configs.keys().collect();
    // Show the columns that tell the configurations apart (and the solver).
    let varies = |k: usize| keys.iter().any(|o| o[k] != keys[0][k]);
    let mut out = Vec::new();
    for (key, values) in &configs {
        let parts: Vec<String> = (0..names.len())
            .filter(|&k| {
                ![Field::Solver.name(), Field::EvalOpponent.name()].contains(&names[k])
                    && !key[k].is_empty()
                    && varies(k)
            })
            .map(|k| super::setting(names[k], &key[k]))
            .collect();
        let what = if parts.is_empty() { String::new() } else { format!(" {}", parts.join(" ")) };
        let mean = values.iter().map(|(_, v)| v).sum::<f64>() / values.len() as f64;
        let (min, max) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &(_, v)| (a.min(v), b.max(v)));
        let zero = values.iter().filter(|(_, v)| *v == 0.0).count();
        let mut episodes: Vec<u64> = values.iter().filter_map(|(id, _)| zero_from.get(id).copied()).collect();
        episodes.sort_unstable();
        let from = match episodes.len() {
            0 => String::new(),
            k => format!(
                "; 0 for good from episode {} (the median checkpoint over the {k} that got there; earliest {})",
                episodes[(k - 1) / 2],
                episodes[0]
            ),
        };
        out.push(format!(
            "  nash_conv {} (self-play{what}): mean {mean:.4} (min {min:.4}, max {max:.4}) over {}; 0 in {zero}{from}",
            key[0],
            crate::names::count(values.len(), "replicate"),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Field, RESULT_COLUMNS, Record};

    #[test]
    fn sums_the_two_seats_of_each_job() {
        let row = |job: &str, seat: &str, opp: &str, eval: &str, regret: &str| -> Record {
            let mut r = vec![String::new(); RESULT_COLUMNS.len()];
            r[column("job_id")] = job.into();
            r[column("solver")] = "q-learning".into();
            r[column("seat")] = seat.into();
            r[column("opponent")] = opp.into();
            r[Field::EvalOpponent.column()] = eval.into();
            r[column("status")] = "ok".into();
            r[column("regret")] = regret.into();
            r
        };
        let rows = vec![
            row("a", "x", "self", "best-response", "1"),
            row("a", "o", "self", "best-response", "0.5"),
            row("a", "x", "self", "random", "0.25"),
            row("b", "x", "self", "best-response", "0"),
            row("b", "o", "self", "best-response", "0"),
            row("c", "x", "self", "best-response", "1"),
            row("d", "o", "random", "best-response", "1"),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.csv");
        crate::report::files::write_atomic(&path, &RESULT_COLUMNS, rows).unwrap();
        let configs = per_config(&path, None).unwrap();
        assert_eq!(configs.len(), 1);
        assert_eq!(configs.values().next().unwrap(), &vec![1.5, 0.0]);
        let lines = lines(&path, None).unwrap();
        assert_eq!(
            lines,
            vec!["  nash_conv q-learning (self-play): mean 0.7500 (min 0.0000, max 1.5000) over 2 replicates; 0 in 1"]
        );
    }
}
