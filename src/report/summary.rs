//! Aggregating rows over replicates: mean regret with a Student-t 95% confidence interval,
//! mean outcome probabilities and training time, per configuration.
//!
//! A configuration is a grid point in one seat against one evaluation opponent: every
//! column but `job_id`, `replicate`, `seed` and the metrics. `--by` groups by other columns.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::{Record, column};
use crate::spec::Sweep;

/// The columns that define a configuration by default: the solver, every parameter
/// column, and the evaluation opponent.
pub fn config_columns() -> Vec<&'static str> {
    let mut v = vec!["solver"];
    v.extend(crate::solvers::params::PARAM_COLUMNS);
    v.push("eval_opponent");
    v
}

/// Two-sided 95% quantiles of Student's t for 1..=30 degrees of freedom.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (a table up to
/// 30, then the Cornish–Fisher expansion around the normal quantile, within 1e-3).
pub fn t95(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T95[df - 1],
        _ => {
            let z: f64 = 1.959_964;
            let d = df as f64;
            z + (z.powi(3) + z) / (4.0 * d) + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

/// One configuration's aggregate.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The values of the grouping columns.
    pub key: Vec<String>,
    /// Successful rows.
    pub n: usize,
    /// Failed rows.
    pub failed: usize,
    /// Mean regret.
    pub mean_regret: f64,
    /// Sample standard deviation of the regret (NaN for n < 2).
    pub sd_regret: f64,
    /// Half-width of the 95% confidence interval of the mean (NaN for n < 2).
    pub ci95: f64,
    /// Mean P(win), P(draw), P(loss).
    pub p: [f64; 3],
    /// Mean training time in ms.
    pub train_ms: f64,
}

/// Groups rows by `by` (column names) and aggregates; sorted by solver, seat and
/// evaluation opponent (those of them in `by`), then mean regret, best first.
pub fn aggregate(rows: &[Record], by: &[&str]) -> Vec<Group> {
    let idx: Vec<usize> = by.iter().map(|c| column(c)).collect();
    let mut groups: BTreeMap<Vec<String>, Vec<&Record>> = BTreeMap::new();
    for r in rows {
        groups.entry(idx.iter().map(|&i| r[i].clone()).collect()).or_default().push(r);
    }
    let num = |r: &Record, c: &str| r[column(c)].parse::<f64>().unwrap_or(f64::NAN);
    let mut out: Vec<Group> = groups
        .into_iter()
        .map(|(key, rs)| {
            let ok: Vec<&&Record> = rs.iter().filter(|r| r[column("status")] == "ok").collect();
            let n = ok.len();
            let mean = |c: &str| if n == 0 { f64::NAN } else { ok.iter().map(|r| num(r, c)).sum::<f64>() / n as f64 };
            let mean_regret = mean("regret");
            let sd = if n < 2 {
                f64::NAN
            } else {
                (ok.iter().map(|r| (num(r, "regret") - mean_regret).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
            };
            Group {
                key,
                n,
                failed: rs.len() - n,
                mean_regret,
                sd_regret: sd,
                ci95: if n < 2 { f64::NAN } else { t95(n - 1) * sd / (n as f64).sqrt() },
                p: [mean("p_win"), mean("p_draw"), mean("p_loss")],
                train_ms: mean("train_ms"),
            }
        })
        .collect();
    // Best first within each (solver, seat, evaluation opponent) block.
    let blocks: Vec<usize> =
        ["solver", "seat", "eval_opponent"].iter().filter_map(|c| by.iter().position(|b| b == c)).collect();
    out.sort_by(|a, b| {
        let ka: Vec<&String> = blocks.iter().map(|&i| &a.key[i]).collect();
        let kb: Vec<&String> = blocks.iter().map(|&i| &b.key[i]).collect();
        ka.cmp(&kb).then(a.mean_regret.total_cmp(&b.mean_regret))
    });
    out
}

/// The grouping columns whose value varies between rows (so a table shows what matters).
pub fn varying(rows: &[Record], columns: &[&str]) -> Vec<usize> {
    (0..columns.len())
        .filter(|&k| {
            let c = column(columns[k]);
            rows.first().is_some_and(|f| rows.iter().any(|r| r[c] != f[c]))
        })
        .collect()
}

fn describe(g: &Group, by: &[&str], show: &[usize]) -> String {
    let parts: Vec<String> = show
        .iter()
        .filter(|&&k| by[k] != "solver" && !g.key[k].is_empty())
        .map(|&k| format!("{}={}", by[k], g.key[k]))
        .collect();
    if parts.is_empty() { "(single configuration)".to_string() } else { parts.join(" ") }
}

/// Prints the end-of-run summary: counts, wall time, the directory, and the best
/// configuration of each solver by mean regret over its replicates.
pub fn print_run_summary(
    sweep: &Sweep,
    rows: &[Record],
    dir: &Path,
    ran: usize,
    kept: usize,
    failed: usize,
    wall: Duration,
) {
    eprintln!(
        "{}: {ran} jobs run{}, {failed} failed, {:.1} s wall; results in {}",
        sweep.name,
        if kept > 0 { format!(" ({kept} kept from before)") } else { String::new() },
        wall.as_secs_f64(),
        dir.display()
    );
    let by: Vec<&str> = config_columns().into_iter().filter(|&c| c != "seat" && c != "eval_opponent").collect();
    let solver = column("solver");
    let mut kinds: Vec<&str> = rows.iter().map(|r| r[solver].as_str()).collect();
    kinds.dedup();
    kinds.sort();
    kinds.dedup();
    for kind in kinds {
        let these: Vec<Record> = rows.iter().filter(|r| r[solver] == kind).cloned().collect();
        let show = varying(&these, &by);
        if let Some(best) = aggregate(&these, &by).into_iter().find(|g| g.n > 0) {
            // The same configuration, per evaluated seat and opponent.
            let of_best: Vec<Record> =
                these.iter().filter(|r| by.iter().zip(&best.key).all(|(c, v)| &r[column(c)] == v)).cloned().collect();
            let parts: Vec<String> = aggregate(&of_best, &["seat", "eval_opponent"])
                .iter()
                .map(|g| format!("{} vs {} {:.4}", g.key[0], g.key[1], g.mean_regret))
                .collect();
            eprintln!(
                "  best {kind}: {}  mean regret {:.4} ({}) over {} replicates",
                describe(&best, &by, &show),
                best.mean_regret,
                parts.join(", "),
                best.n / parts.len().max(1)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles() {
        assert_eq!(t95(4), 2.776);
        assert!((t95(40) - 2.021).abs() < 1e-3);
        assert!((t95(120) - 1.980).abs() < 1e-3);
    }
}
