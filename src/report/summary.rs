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

/// One group's running totals: sums in row order (as a sum over the rows would be),
/// and the regrets themselves for the standard deviation (8 bytes per row).
#[derive(Default)]
struct Acc {
    failed: usize,
    regrets: Vec<f64>,
    p: [f64; 3],
    train_ms: f64,
}

/// Groups rows by columns and aggregates them, one row at a time: what it keeps is a few
/// numbers per group and one per successful row, never the rows.
pub struct Aggregator {
    by: Vec<String>,
    idx: Vec<usize>,
    groups: BTreeMap<Vec<String>, Acc>,
    /// Per solver kind: its first row's grouping values, and which of them vary.
    kinds: BTreeMap<String, (Vec<String>, Vec<bool>)>,
    rows: usize,
    key: Vec<String>,
}

impl Aggregator {
    /// An empty aggregate grouping by `by` (results column names).
    pub fn new(by: &[&str]) -> Aggregator {
        Aggregator {
            by: by.iter().map(|c| c.to_string()).collect(),
            idx: by.iter().map(|c| column(c)).collect(),
            groups: BTreeMap::new(),
            kinds: BTreeMap::new(),
            rows: 0,
            key: vec![String::new(); by.len()],
        }
    }

    /// Adds one results row, given as its fields by column position.
    pub fn push<'r>(&mut self, field: impl Fn(usize) -> &'r str) {
        self.rows += 1;
        for (k, &i) in self.key.iter_mut().zip(&self.idx) {
            k.clear();
            k.push_str(field(i));
        }
        let kind = field(column("solver"));
        if let Some((first, varies)) = self.kinds.get_mut(kind) {
            for ((v, f), k) in varies.iter_mut().zip(first.iter()).zip(&self.key) {
                *v |= f != k;
            }
        } else {
            self.kinds.insert(kind.to_string(), (self.key.clone(), vec![false; self.key.len()]));
        }
        let acc = match self.groups.get_mut(&self.key) {
            Some(a) => a,
            None => self.groups.entry(self.key.clone()).or_default(),
        };
        if field(column("status")) != "ok" {
            acc.failed += 1;
            return;
        }
        let num = |c: &str| field(column(c)).parse::<f64>().unwrap_or(f64::NAN);
        acc.regrets.push(num("regret"));
        for (p, c) in acc.p.iter_mut().zip(["p_win", "p_draw", "p_loss"]) {
            *p += num(c);
        }
        acc.train_ms += num("train_ms");
    }

    /// Rows added so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The grouping columns (positions in `by`) whose value varies between the rows of
    /// some solver kind (so a table shows what matters).
    pub fn varying_within_kinds(&self) -> Vec<usize> {
        (0..self.by.len()).filter(|&k| self.kinds.values().any(|(_, varies)| varies[k])).collect()
    }

    /// The groups, sorted by solver, seat and evaluation opponent (those of them grouped
    /// by), then mean regret, best first.
    pub fn groups(&self) -> Vec<Group> {
        let mut out: Vec<Group> = self
            .groups
            .iter()
            .map(|(key, a)| {
                let n = a.regrets.len();
                let mean = |sum: f64| if n == 0 { f64::NAN } else { sum / n as f64 };
                let mean_regret = mean(a.regrets.iter().sum());
                let sd = if n < 2 {
                    f64::NAN
                } else {
                    (a.regrets.iter().map(|x| (x - mean_regret).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
                };
                Group {
                    key: key.clone(),
                    n,
                    failed: a.failed,
                    mean_regret,
                    sd_regret: sd,
                    ci95: if n < 2 { f64::NAN } else { t95(n - 1) * sd / (n as f64).sqrt() },
                    p: a.p.map(mean),
                    train_ms: mean(a.train_ms),
                }
            })
            .collect();
        // Best first within each (solver, seat, evaluation opponent) block.
        let blocks: Vec<usize> =
            ["solver", "seat", "eval_opponent"].iter().filter_map(|c| self.by.iter().position(|b| b == c)).collect();
        out.sort_by(|a, b| {
            let ka: Vec<&String> = blocks.iter().map(|&i| &a.key[i]).collect();
            let kb: Vec<&String> = blocks.iter().map(|&i| &b.key[i]).collect();
            ka.cmp(&kb).then(a.mean_regret.total_cmp(&b.mean_regret))
        });
        out
    }
}

/// Groups rows by `by` (column names) and aggregates, as [`Aggregator`] does.
pub fn aggregate(rows: &[Record], by: &[&str]) -> Vec<Group> {
    let mut a = Aggregator::new(by);
    for r in rows {
        a.push(|i| r[i].as_str());
    }
    a.groups()
}

/// The grouping columns whose value varies between rows.
#[cfg(test)]
fn varying(rows: &[Record], columns: &[&str]) -> Vec<usize> {
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

/// One configuration's running totals for the end-of-run summary.
#[derive(Default)]
struct Totals {
    /// Successful rows and the sum of their regrets.
    n: usize,
    sum: f64,
    /// The same per (seat, evaluation opponent); failed rows make an entry with n = 0.
    per: BTreeMap<(String, String), (usize, f64)>,
}

/// One solver kind's configurations (keyed by their columns joined with a unit separator,
/// which orders them as the columns would), and which columns vary.
#[derive(Default)]
struct KindTotals {
    configs: BTreeMap<String, Totals>,
    first: Vec<String>,
    varies: Vec<bool>,
}

const SEP: char = '\u{1f}';

/// Prints the end-of-run summary: counts, wall time, the directory, and the best
/// configuration of each solver (see [`best_lines`]).
pub fn print_run_summary(
    sweep: &Sweep,
    results: &Path,
    dir: &Path,
    ran: usize,
    kept: usize,
    failed: usize,
    wall: Duration,
) -> anyhow::Result<()> {
    eprintln!(
        "{}: {ran} jobs run{}, {failed} failed, {:.1} s wall; results in {}",
        sweep.name,
        if kept > 0 { format!(" ({kept} kept from before)") } else { String::new() },
        wall.as_secs_f64(),
        dir.display()
    );
    for line in best_lines(results)? {
        eprintln!("{line}");
    }
    Ok(())
}

/// One line per solver kind: its best configuration by mean regret over its replicates,
/// and that configuration's mean regret per seat and evaluation opponent. Reads `results`
/// one row at a time and keeps only per-configuration totals, so memory grows with the
/// number of grid points, not rows. Sums run in file order, as [`aggregate`] does.
pub fn best_lines(results: &Path) -> anyhow::Result<Vec<String>> {
    let by: Vec<&str> = config_columns().into_iter().filter(|&c| c != "seat" && c != "eval_opponent").collect();
    let idx: Vec<usize> = by.iter().map(|c| column(c)).collect();
    let (solver, seat, opp, status, regret) =
        (column("solver"), column("seat"), column("eval_opponent"), column("status"), column("regret"));
    let mut kinds: BTreeMap<String, KindTotals> = BTreeMap::new();
    let mut r = super::files::open_checked(results, &super::RESULT_COLUMNS)?;
    let mut rec = csv::StringRecord::new();
    let mut key = String::new();
    while r.read_record(&mut rec)? {
        let k = match kinds.get_mut(&rec[solver]) {
            Some(k) => k,
            None => kinds.entry(rec[solver].to_string()).or_insert_with(|| KindTotals {
                first: idx.iter().map(|&i| rec[i].to_string()).collect(),
                varies: vec![false; idx.len()],
                ..KindTotals::default()
            }),
        };
        key.clear();
        for (j, &i) in idx.iter().enumerate() {
            k.varies[j] |= rec[i] != k.first[j];
            if j > 0 {
                key.push(SEP);
            }
            key.push_str(&rec[i]);
        }
        let t = match k.configs.get_mut(key.as_str()) {
            Some(t) => t,
            None => k.configs.entry(key.clone()).or_default(),
        };
        let e = t.per.entry((rec[seat].to_string(), rec[opp].to_string())).or_default();
        if &rec[status] == "ok" {
            let x = rec[regret].parse::<f64>().unwrap_or(f64::NAN);
            t.n += 1;
            t.sum += x;
            e.0 += 1;
            e.1 += x;
        }
    }
    let mean = |n: usize, sum: f64| if n == 0 { f64::NAN } else { sum / n as f64 };
    let mut lines = Vec::new();
    for (kind, k) in &kinds {
        let best = k
            .configs
            .iter()
            .filter(|(_, t)| t.n > 0)
            .reduce(|a, b| if mean(b.1.n, b.1.sum) < mean(a.1.n, a.1.sum) { b } else { a });
        let Some((best_key, t)) = best else { continue };
        let show: Vec<usize> = (0..by.len()).filter(|&j| k.varies[j]).collect();
        let g = Group {
            key: best_key.split(SEP).map(str::to_string).collect(),
            n: t.n,
            failed: 0,
            mean_regret: mean(t.n, t.sum),
            sd_regret: f64::NAN,
            ci95: f64::NAN,
            p: [f64::NAN; 3],
            train_ms: f64::NAN,
        };
        let parts: Vec<String> =
            t.per.iter().map(|((s, o), &(n, sum))| format!("{s} vs {o} {:.4}", mean(n, sum))).collect();
        lines.push(format!(
            "  best {kind}: {}  mean regret {:.4} ({}) over {} replicates",
            describe(&g, &by, &show),
            g.mean_regret,
            parts.join(", "),
            t.n / parts.len().max(1)
        ));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary as it was computed from rows held in memory, with [`aggregate`].
    fn best_lines_in_memory(rows: &[Record]) -> Vec<String> {
        let by: Vec<&str> = config_columns().into_iter().filter(|&c| c != "seat" && c != "eval_opponent").collect();
        let solver = column("solver");
        let mut kinds: Vec<&str> = rows.iter().map(|r| r[solver].as_str()).collect();
        kinds.sort();
        kinds.dedup();
        let mut out = Vec::new();
        for kind in kinds {
            let these: Vec<Record> = rows.iter().filter(|r| r[solver] == kind).cloned().collect();
            let show = varying(&these, &by);
            if let Some(best) = aggregate(&these, &by).into_iter().find(|g| g.n > 0) {
                let of_best: Vec<Record> = these
                    .iter()
                    .filter(|r| by.iter().zip(&best.key).all(|(c, v)| &r[column(c)] == v))
                    .cloned()
                    .collect();
                let parts: Vec<String> = aggregate(&of_best, &["seat", "eval_opponent"])
                    .iter()
                    .map(|g| format!("{} vs {} {:.4}", g.key[0], g.key[1], g.mean_regret))
                    .collect();
                out.push(format!(
                    "  best {kind}: {}  mean regret {:.4} ({}) over {} replicates",
                    describe(&best, &by, &show),
                    best.mean_regret,
                    parts.join(", "),
                    best.n / parts.len().max(1)
                ));
            }
        }
        out
    }

    #[test]
    fn streamed_best_lines_match_the_in_memory_aggregate() {
        let mut rows = Vec::new();
        let mut h: u64 = 7;
        for kind in ["q-learning", "mcts", "value-iteration"] {
            for alpha in ["0.1", "0.5", "1"] {
                for gamma in ["0.9", "1"] {
                    for seat in ["x", "o"] {
                        for opp in ["random", "minimax"] {
                            for _replicate in 0..3 {
                                h = crate::seed::splitmix64(h);
                                let mut r: Record = vec![String::new(); super::super::RESULT_COLUMNS.len()];
                                r[column("solver")] = kind.into();
                                r[column("alpha")] = alpha.into();
                                r[column("gamma")] = if kind == "mcts" { String::new() } else { gamma.into() };
                                r[column("seat")] = seat.into();
                                r[column("eval_opponent")] = opp.into();
                                // Regrets from a few values, so that ties happen; some rows fail,
                                // and every row of value-iteration fails.
                                let failed = h % 7 == 0 || kind == "value-iteration";
                                r[column("status")] = if failed { "failed".into() } else { "ok".into() };
                                r[column("regret")] = if failed { String::new() } else { format!("{}", (h >> 8) % 4) };
                                rows.push(r);
                            }
                        }
                    }
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.csv");
        super::super::files::write_atomic(&path, &super::super::RESULT_COLUMNS, rows.clone()).unwrap();
        let streamed = best_lines(&path).unwrap();
        assert_eq!(streamed, best_lines_in_memory(&rows));
        assert_eq!(streamed.len(), 2, "no line for a solver whose rows all failed: {streamed:?}");
        assert!(streamed[1].starts_with("  best q-learning: alpha="), "{streamed:?}");
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t95(4), 2.776);
        assert!((t95(40) - 2.021).abs() < 1e-3);
        assert!((t95(120) - 1.980).abs() < 1e-3);
    }
}
