//! Aggregating rows over replicates: mean regret with a Student-t 95% confidence interval,
//! mean outcome probabilities and training time (and an MCTS configuration's time per
//! searched position), per configuration, and how many of its rows were evaluated by
//! sampled games rather than exactly.
//!
//! A configuration is a grid point in one seat against one evaluation opponent: every
//! column but `job_id`, `replicate`, `seed` and the metrics. `--by` groups by other columns.
//! A group that holds several rows of one replicate (several configurations, pooled by a
//! coarser `--by`) is averaged per replicate first, as `compare` does: its runs share
//! their seeds, so they are not independent; `n` then counts replicates and the mean, the
//! standard deviation and the interval are those of the replicate means.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use super::result_row::{ResultRow, each_result};
use super::{Field, ParamColumn, Record, column};
use crate::job::Split;
use crate::spec::Sweep;

pub use crate::schema::{NEEDED_COLUMNS, config_columns};

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom: the one t
/// quantile ([`student_t_quantile`](crate::stats::special::student_t_quantile) at 0.975), rounded to three decimals up to 30 degrees
/// of freedom, as the printed tables give it (the figure every `ci95` of this project has
/// used there, so that a results file's intervals do not move), in full above.
pub fn t95(df: usize) -> f64 {
    let q = || crate::stats::special::student_t_quantile(0.975, df as f64);
    match df {
        0 => f64::NAN,
        1..=30 => (q() * 1000.0).round() / 1000.0,
        _ => q(),
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
    /// Successful rows evaluated by sampled games (`evaluation` = `sampled`), pooled with
    /// the exact ones in the means.
    pub sampled: usize,
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
    /// MCTS: the mean over rows of the evaluation time per position searched, in ms (NaN
    /// for other solvers: their moves are table lookups, their cost is `train_ms`).
    pub ms_per_move: f64,
    /// Whether some replicate has several rows here (then `n`, the mean, the standard
    /// deviation and the interval are over replicate means).
    pub pooled: bool,
}

/// One group's running totals: plain sums in row order for the means (as a sum over the
/// rows would give), and Welford's running mean and sum of squared deviations for the
/// standard deviation.
#[derive(Default)]
struct Acc {
    n: usize,
    failed: usize,
    sampled: usize,
    regret: f64,
    welford_mean: f64,
    welford_m2: f64,
    p: [f64; 3],
    train_ms: f64,
    /// MCTS rows: the sum of their ms per move, and how many.
    move_ms: (f64, usize),
    /// Regret per replicate: sum and rows.
    replicates: BTreeMap<u32, (f64, usize)>,
    /// Some row had no replicate number (rows built by hand): every row counts alone.
    unnumbered: bool,
}

/// Groups rows by columns and aggregates them, one row at a time: it keeps a few numbers
/// per group, never the rows.
pub struct Aggregator {
    by: Vec<String>,
    idx: Vec<usize>,
    /// Hashed, not ordered: a row finds its group without comparing keys column by column.
    groups: HashMap<Vec<String>, Acc>,
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
            groups: HashMap::new(),
            kinds: BTreeMap::new(),
            rows: 0,
            key: vec![String::new(); by.len()],
        }
    }

    /// Adds one results row.
    pub fn push(&mut self, row: &ResultRow<'_>) {
        self.rows += 1;
        for (k, &i) in self.key.iter_mut().zip(&self.idx) {
            k.clear();
            k.push_str(row.cell(i));
        }
        let kind = row.solver();
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
        if !row.ok() {
            acc.failed += 1;
            return;
        }
        let num = |x: Option<f64>| x.unwrap_or(f64::NAN);
        let x = num(row.regret());
        acc.n += 1;
        acc.sampled += usize::from(row.evaluation() == "sampled");
        acc.regret += x;
        let d = x - acc.welford_mean;
        acc.welford_mean += d / acc.n as f64;
        acc.welford_m2 += d * (x - acc.welford_mean);
        for (p, x) in acc.p.iter_mut().zip([row.p_win(), row.p_draw(), row.p_loss()]) {
            *p += num(x);
        }
        acc.train_ms += num(row.train_ms());
        if kind == "mcts"
            && let Some(ms) = row.ms_per_move()
        {
            acc.move_ms = (acc.move_ms.0 + ms, acc.move_ms.1 + 1);
        }
        match row.replicate() {
            Some(replicate) => {
                let r = acc.replicates.entry(replicate).or_default();
                *r = (r.0 + x, r.1 + 1);
            }
            None => acc.unnumbered = true,
        }
    }

    /// The grouping columns (positions in `by`) whose value varies between the rows of
    /// solver `kind`.
    pub fn varying_in(&self, kind: &str) -> Vec<usize> {
        self.kinds.get(kind).map_or_else(Vec::new, |(_, varies)| (0..varies.len()).filter(|&k| varies[k]).collect())
    }

    /// Rows added so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The grouping columns (positions in `by`) whose value varies between the rows of
    /// some solver kind (so a table shows what matters), but for a value the tool derived
    /// in every group (a schedule's `X_decay` where `X_min_at` is set, see
    /// [`super::derived`]): it restates what the user set.
    pub fn varying_within_kinds(&self) -> Vec<usize> {
        let by: Vec<&str> = self.by.iter().map(String::as_str).collect();
        (0..self.by.len())
            .filter(|&k| self.kinds.values().any(|(_, varies)| varies[k]))
            .filter(|&k| !self.groups.keys().all(|key| super::derived(&by, key, k)))
            .collect()
    }

    /// The groups, sorted by solver, game, seat and evaluation opponent (those of them
    /// grouped by), then mean regret, best first.
    pub fn groups(&self) -> Vec<Group> {
        let mut out: Vec<Group> = self
            .groups
            .iter()
            .map(|(key, a)| {
                let rows = a.n;
                let mean = |sum: f64| if rows == 0 { f64::NAN } else { sum / rows as f64 };
                let pooled = !a.unnumbered && a.replicates.values().any(|&(_, k)| k > 1);
                let (n, mean_regret, sd) = if pooled {
                    let means: Vec<f64> = a.replicates.values().map(|&(sum, k)| sum / k as f64).collect();
                    let n = means.len();
                    let m = means.iter().sum::<f64>() / n as f64;
                    let sd = if n < 2 {
                        f64::NAN
                    } else {
                        (means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
                    };
                    (n, m, sd)
                } else {
                    let sd = if rows < 2 { f64::NAN } else { (a.welford_m2 / (rows - 1) as f64).sqrt() };
                    (rows, mean(a.regret), sd)
                };
                Group {
                    key: key.clone(),
                    n,
                    failed: a.failed,
                    sampled: a.sampled,
                    mean_regret,
                    sd_regret: sd,
                    ci95: if n < 2 { f64::NAN } else { t95(n - 1) * sd / (n as f64).sqrt() },
                    p: a.p.map(mean),
                    train_ms: mean(a.train_ms),
                    ms_per_move: if a.move_ms.1 == 0 { f64::NAN } else { a.move_ms.0 / a.move_ms.1 as f64 },
                    pooled,
                }
            })
            .collect();
        // Key order first, so that ties keep the order they always had.
        out.sort_by(|a, b| a.key.cmp(&b.key));
        // Best first within each (solver, game, seat, evaluation opponent) block.
        let blocks: Vec<usize> =
            [Field::Solver.name(), ParamColumn::Game.name(), ParamColumn::Seat.name(), Field::EvalOpponent.name()]
                .iter()
                .filter_map(|c| self.by.iter().position(|b| b == c))
                .collect();
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
        a.push(&ResultRow::new(&csv::StringRecord::from(r.clone()), 0));
    }
    a.groups()
}

/// Per group (by key), the regrets of its successful rows per configuration (the default
/// configuration columns): the strata of the bootstrap (`summary --stat`, the report's IQM). One number per row is kept.
pub type Strata = BTreeMap<Vec<String>, BTreeMap<Vec<String>, Vec<f64>>>;

pub fn strata(path: &Path, by: &[&str], split: Option<Split>) -> Result<Strata> {
    strata_where(path, by, split, |_| true)
}

/// [`strata`] of the groups whose key `keep` accepts (the others are read, not kept).
pub fn strata_where(
    path: &Path,
    by: &[&str],
    split: Option<Split>,
    keep: impl Fn(&[String]) -> bool,
) -> Result<Strata> {
    let (by_at, config_at): (Vec<usize>, Vec<usize>) =
        (by.iter().map(|c| column(c)).collect(), config_columns().iter().map(|c| column(c)).collect());
    let mut out = Strata::new();
    let mut key = vec![String::new(); by.len()];
    each_result(path, &NEEDED_COLUMNS, |row| {
        let Some(x) = row.regret() else { return };
        if !row.ok() || split.is_some_and(|s| row.split() != s) {
            return;
        }
        for (k, &i) in key.iter_mut().zip(&by_at) {
            k.clear();
            k.push_str(row.cell(i));
        }
        if !keep(&key) {
            return;
        }
        let config: Vec<String> = config_at.iter().map(|&i| row.cell(i).to_string()).collect();
        out.entry(key.clone()).or_default().entry(config).or_default().push(x);
    })?;
    Ok(out)
}

fn describe(g: &Group, by: &[&str], show: &[usize]) -> String {
    let parts: Vec<String> = show
        .iter()
        .filter(|&&k| by[k] != Field::Solver.name() && !g.key[k].is_empty())
        .map(|&k| super::setting(by[k], &g.key[k]))
        .collect();
    if parts.is_empty() { "(single configuration)".to_string() } else { parts.join(" ") }
}

/// The end-of-run summary, a line each: counts, wall time, the directory, the best
/// configuration of each solver in each seat and evaluation (see [`best_lines`]), and the
/// NashConv of self-play configurations evaluated against `best-response`
/// (see [`super::nash_conv`]).
pub fn run_summary(
    sweep: &Sweep,
    results: &Path,
    dir: &Path,
    ran: usize,
    kept: usize,
    failed: usize,
    wall: Duration,
) -> anyhow::Result<Vec<String>> {
    let mut lines = vec![format!(
        "{}: {} run{}, {failed} failed, {:.1} s wall; results in {}",
        sweep.name,
        crate::names::count(ran, "job"),
        if kept > 0 { format!(" ({kept} kept from before)") } else { String::new() },
        wall.as_secs_f64(),
        dir.display()
    )];
    lines.extend(best_lines(results)?);
    lines.extend(super::nash_conv::lines(results, Some(crate::job::Split::Tune))?);
    lines.extend(
        super::nash_conv::trivial_lines(results, Some(crate::job::Split::Tune))?.into_iter().map(|l| format!("  {l}")),
    );
    Ok(lines)
}

/// One line per (solver kind, game, seat, evaluation opponent): the best configuration
/// there by mean regret over its replicates (ranked in each evaluation separately, so
/// adding an evaluation opponent never changes another's winner; regrets on different
/// boards are never compared). A game other than tic-tac-toe is named after the solver.
/// The ranking reads the tuning rows; a configuration that a `[test]` re-ran also shows
/// its mean over the test seeds. Reads `results` one row at a time (see [`Aggregator`]).
pub fn best_lines(results: &Path) -> anyhow::Result<Vec<String>> {
    let by = config_columns();
    let at = |name: &str| by.iter().position(|&c| c == name).unwrap_or_else(|| panic!("{name} is a column"));
    let (seat, opponent, game) =
        (at(ParamColumn::Seat.name()), at(Field::EvalOpponent.name()), at(ParamColumn::Game.name()));
    let (mut configs, mut tested) = (Aggregator::new(&by), Aggregator::new(&by));
    each_result(results, &NEEDED_COLUMNS, |row| match row.split() {
        Split::Tune => configs.push(&row),
        Split::Test => tested.push(&row),
    })?;
    let tested: BTreeMap<Vec<String>, Group> = tested.groups().into_iter().map(|g| (g.key.clone(), g)).collect();
    let mut lines = Vec::new();
    let mut groups = configs.groups().into_iter().peekable();
    // Groups come sorted by (solver, game, seat, evaluation opponent), then mean regret:
    // the first with a success in each block is the best.
    let block = |g: &Group| (g.key[0].clone(), g.key[seat].clone(), g.key[opponent].clone(), g.key[game].clone());
    while let Some(g) = groups.next() {
        let key = block(&g);
        // The block's configurations with a success and a regret (a row on a board too big
        // to enumerate has none against random where no exact optimum is known).
        let scored: Vec<Group> = std::iter::once(g)
            .chain(std::iter::from_fn(|| groups.next_if(|h| block(h) == key)))
            .filter(|g| g.n > 0 && !g.mean_regret.is_nan())
            .collect();
        let Some(best) = scored.first() else { continue };
        let show: Vec<usize> =
            configs.varying_in(&key.0).into_iter().filter(|&k| k != seat && k != opponent && k != game).collect();
        let on = match key.3.as_str() {
            "" | "3x3k3" => String::new(),
            g => format!(" on {g}"),
        };
        let test = tested
            .get(&best.key)
            .filter(|t| t.n > 0)
            .map(|t| format!("; test {:.4} over {} fresh seeds", t.mean_regret, t.n))
            .unwrap_or_default();
        if scored.len() > 1 && scored.iter().all(|g| g.mean_regret == best.mean_regret) {
            // Every configuration ties: naming one "best" would only name the first.
            lines.push(format!(
                "  every {}{on} ({} vs {}) ties: all {} configurations have mean regret {:.4}",
                key.0,
                key.1,
                key.2,
                scored.len(),
                best.mean_regret,
            ));
            continue;
        }
        lines.push(format!(
            "  best {}{on} ({} vs {}): {}  mean regret {:.4} over {}{test}",
            key.0,
            key.1,
            key.2,
            describe(best, &by, &show),
            best.mean_regret,
            crate::names::count(best.n, "replicate")
        ));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end-of-run summary computed directly from rows held in memory: group by
    /// configuration, mean regret of the successful rows, best (lowest, first on ties in
    /// key order) per solver, then the same per seat and evaluation opponent.
    fn best_lines_in_memory(rows: &[Record]) -> Vec<String> {
        let by = config_columns();
        let key = |r: &Record| by.iter().map(|c| r[column(c)].clone()).collect::<Vec<String>>();
        let mean = |rs: &[&Record]| {
            let ok: Vec<f64> = rs
                .iter()
                .filter(|r| r[column("status")] == "ok")
                .map(|r| r[column("regret")].parse().unwrap())
                .collect();
            (ok.len(), if ok.is_empty() { f64::NAN } else { ok.iter().sum::<f64>() / ok.len() as f64 })
        };
        type Configs<'r> = BTreeMap<Vec<String>, Vec<&'r Record>>;
        let mut blocks: BTreeMap<(String, String, String), Configs<'_>> = BTreeMap::new();
        let mut kinds: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
        for r in rows {
            let block = (r[column("solver")].clone(), r[column("seat")].clone(), r[column("eval_opponent")].clone());
            blocks.entry(block).or_default().entry(key(r)).or_default().push(r);
            kinds.entry(r[column("solver")].clone()).or_default().push(key(r));
        }
        let mut out = Vec::new();
        for ((kind, seat, opponent), configs) in &blocks {
            let mut best: Option<(&Vec<String>, usize, f64)> = None;
            let mut means = Vec::new();
            for (k, rs) in configs {
                let (n, m) = mean(rs);
                if n > 0 {
                    means.push(m);
                }
                if n > 0 && best.is_none_or(|(_, _, b)| m < b) {
                    best = Some((k, n, m));
                }
            }
            let Some((k, n, m)) = best else { continue };
            if means.len() > 1 && means.iter().all(|&x| x == m) {
                out.push(format!(
                    "  every {kind} ({seat} vs {opponent}) ties: all {} configurations have mean regret {m:.4}",
                    means.len()
                ));
                continue;
            }
            let all = &kinds[kind];
            let varies: Vec<String> = (0..by.len())
                .filter(|&j| {
                    !["solver", "seat", "eval_opponent"].contains(&by[j])
                        && !k[j].is_empty()
                        && all.iter().any(|o| o[j] != all[0][j])
                })
                .map(|j| super::super::setting(by[j], &k[j]))
                .collect();
            let what = if varies.is_empty() { "(single configuration)".to_string() } else { varies.join(" ") };
            out.push(format!(
                "  best {kind} ({seat} vs {opponent}): {what}  mean regret {m:.4} over {}",
                crate::names::count(n, "replicate")
            ));
        }
        out
    }

    #[test]
    fn streamed_best_lines_match_a_direct_computation() {
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
        assert_eq!(streamed.len(), 2 * 4, "no line for a solver whose rows all failed: {streamed:?}");
        assert!(streamed[4].starts_with("  best q-learning (o vs minimax): alpha="), "{streamed:?}");
    }

    #[test]
    fn aggregate_gives_the_two_pass_mean_sd_and_interval() {
        let mut h = 3u64;
        let mut rows = Vec::new();
        let mut xs = Vec::new();
        for i in 0..50 {
            h = crate::seed::splitmix64(h);
            let mut r: Record = vec![String::new(); super::super::RESULT_COLUMNS.len()];
            r[column("solver")] = "q-learning".into();
            r[column("status")] = if i % 10 == 9 { "failed".into() } else { "ok".into() };
            let x = (h >> 11) as f64 / (1u64 << 53) as f64 * 0.05 + 0.3;
            r[column("regret")] = format!("{x}");
            r[column("p_win")] = "0.5".into();
            if i % 10 != 9 {
                xs.push(x);
            }
            rows.push(r);
        }
        let g = &aggregate(&rows, &["solver"])[0];
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        assert_eq!((g.n, g.failed), (45, 5));
        assert_eq!(g.mean_regret, mean, "the mean is the plain sum in row order over n");
        assert!((g.sd_regret - sd).abs() <= 1e-12 * sd, "{} vs {sd}", g.sd_regret);
        assert!((g.ci95 - t95(44) * sd / n.sqrt()).abs() <= 1e-12);
        assert_eq!(g.p[0], 0.5);
    }

    #[test]
    fn t_quantiles() {
        assert_eq!(t95(4), 2.776);
        // The printed tables' figures (e.g. Fisher and Yates), 1 to 30 degrees of freedom.
        let printed = [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
            2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
        ];
        for (df, &t) in (1..).zip(&printed) {
            assert_eq!(t95(df), t, "{df} degrees of freedom");
        }
        assert!((t95(40) - 2.021).abs() < 1e-3);
        assert!((t95(120) - 1.980).abs() < 1e-3);
    }
}
