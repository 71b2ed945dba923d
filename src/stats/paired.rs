//! Paired comparisons of two configurations run on the same replicates: the paired t
//! interval and test, the Wilcoxon signed-rank test, Holm's adjustment, and the
//! probability of improvement.
//!
//! Conventions (each checked against scipy in the tests, see
//! scripts/tests/stats_reference.py):
//!
//! - [`paired_t`] is `scipy.stats.ttest_rel` (two-sided) with the 95% interval of the mean
//!   difference. Differences that are all equal have no spread: the interval is that one
//!   value and the p-value is 1 if it is 0, else 0.
//! - [`wilcoxon`] follows `scipy.stats.wilcoxon` with `zero_method = "wilcox"`: zero
//!   differences are dropped, tied magnitudes get their mean rank. For n <= 25 nonzero
//!   differences the p-value is exact: the distribution of the sum of positive ranks over
//!   all 2^n sign patterns, with the tied (mid-)ranks as they are, computed by dynamic
//!   programming. Without ties this is scipy's exact p-value; with ties scipy switches to
//!   the normal approximation, whereas here it stays exact (the tests check it against a
//!   brute-force enumeration). Above 25 it is scipy's normal approximation (tie-corrected
//!   variance, no continuity correction). With no nonzero difference the p-value is 1.
//! - [`holm`] is Holm's step-down adjustment.
//! - [`probability_of_improvement`] is rliable's `P(X > Y)`: over every pair of a run of X
//!   and a run of Y, the share where X is better, ties counting one half (the Mann–Whitney
//!   U statistic over `m · n`).

use super::special::{normal_cdf, student_t_cdf, student_t_quantile};

/// The paired t summary of differences.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedT {
    /// Pairs.
    pub n: usize,
    /// Mean difference.
    pub mean: f64,
    /// The 95% interval of the mean difference (NaN for n < 2).
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
    /// Two-sided p-value of "mean difference = 0" (NaN for n < 2).
    pub p_value: f64,
    /// The standard error of the mean difference (NaN for n < 2; 0 when every
    /// difference is the same).
    pub se: f64,
}

impl PairedT {
    /// The two-sided interval of the mean difference at the confidence `confidence` (in
    /// (0, 1)): the 95% interval is `interval(0.95)`. NaN for n < 2; a single point when
    /// every difference is the same.
    pub fn interval(&self, confidence: f64) -> (f64, f64) {
        if self.n < 2 || confidence.is_nan() {
            return (f64::NAN, f64::NAN);
        }
        if self.se == 0.0 {
            return (self.mean, self.mean);
        }
        let half = student_t_quantile(0.5 + confidence / 2.0, (self.n - 1) as f64) * self.se;
        (self.mean - half, self.mean + half)
    }
}

/// The paired t interval and test of the differences `d`.
pub fn paired_t(d: &[f64]) -> PairedT {
    let n = d.len();
    let mean = if n == 0 { f64::NAN } else { d.iter().sum::<f64>() / n as f64 };
    if n < 2 {
        return PairedT { n, mean, low: f64::NAN, high: f64::NAN, p_value: f64::NAN, se: f64::NAN };
    }
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    if sd == 0.0 {
        return PairedT { n, mean, low: mean, high: mean, p_value: if mean == 0.0 { 1.0 } else { 0.0 }, se: 0.0 };
    }
    let df = (n - 1) as f64;
    let se = sd / (n as f64).sqrt();
    let half = student_t_quantile(0.975, df) * se;
    let t = mean / se;
    let p_value = (2.0 * student_t_cdf(-t.abs(), df)).min(1.0);
    PairedT { n, mean, low: mean - half, high: mean + half, p_value, se }
}

/// The Wilcoxon signed-rank test of differences `d`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wilcoxon {
    /// Nonzero differences.
    pub n: usize,
    /// The smaller of the sums of positive and of negative ranks (scipy's statistic).
    pub statistic: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// Whether the p-value is exact (else the normal approximation).
    pub exact: bool,
}

/// The most nonzero differences for which [`wilcoxon`] is exact.
pub const EXACT_UP_TO: usize = 25;

/// Mean ranks (from 1) of `values`; ties share the mean of their ranks.
pub fn mean_ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        start = end;
    }
    ranks
}

/// The Wilcoxon signed-rank test (see the module documentation for the conventions).
pub fn wilcoxon(d: &[f64]) -> Wilcoxon {
    let nonzero: Vec<f64> = d.iter().copied().filter(|&x| x != 0.0).collect();
    let n = nonzero.len();
    if n == 0 {
        return Wilcoxon { n, statistic: 0.0, p_value: 1.0, exact: true };
    }
    let ranks = mean_ranks(&nonzero.iter().map(|x| x.abs()).collect::<Vec<_>>());
    let plus: f64 = nonzero.iter().zip(&ranks).filter(|(x, _)| **x > 0.0).map(|(_, r)| r).sum();
    let total = (n * (n + 1)) as f64 / 2.0;
    let statistic = plus.min(total - plus);
    if n <= EXACT_UP_TO {
        return Wilcoxon { n, statistic, p_value: exact_p(&ranks, plus), exact: true };
    }
    let mut tie_term = 0.0;
    let mut sorted = ranks.clone();
    sorted.sort_by(f64::total_cmp);
    for group in sorted.chunk_by(|a, b| a == b) {
        let t = group.len() as f64;
        tie_term += t * t * t - t;
    }
    let nf = n as f64;
    let variance = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
    let z = (statistic - total / 2.0) / variance.sqrt();
    Wilcoxon { n, statistic, p_value: (2.0 * normal_cdf(-z.abs())).min(1.0), exact: false }
}

/// The exact two-sided p-value of the positive-rank sum `plus`: each rank is positive or
/// negative with probability 1/2, independently. Ranks are half-integers at worst, so
/// doubled they are integers and the distribution is a table of counts by doubled sum.
fn exact_p(ranks: &[f64], plus: f64) -> f64 {
    let doubled: Vec<usize> = ranks.iter().map(|r| (2.0 * r).round() as usize).collect();
    let most: usize = doubled.iter().sum();
    let mut counts = vec![0.0f64; most + 1];
    counts[0] = 1.0;
    let mut reach = 0;
    for &r in &doubled {
        for s in (0..=reach).rev() {
            if counts[s] > 0.0 {
                counts[s + r] += counts[s];
            }
        }
        reach += r;
    }
    let all = 2f64.powi(ranks.len() as i32);
    let observed = (2.0 * plus).round() as usize;
    let below: f64 = counts[..=observed].iter().sum::<f64>() / all;
    let above: f64 = counts[observed..].iter().sum::<f64>() / all;
    (2.0 * below.min(above)).min(1.0)
}

/// Holm's step-down adjustment of `p` (same order as given).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut adjusted = vec![f64::NAN; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        if p[i].is_nan() {
            continue;
        }
        running = running.max(((m - k) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

/// rliable's probability of improvement `P(X > Y)`: the share of pairs (a run of `x`, a
/// run of `y`) in which `x`'s is better (larger, or smaller when `lower_is_better`), ties
/// counting one half. NaN when either side is empty.
pub fn probability_of_improvement(x: &[f64], y: &[f64], lower_is_better: bool) -> f64 {
    if x.is_empty() || y.is_empty() {
        return f64::NAN;
    }
    let mut score = 0.0;
    for &a in x {
        for &b in y {
            let (a, b) = if lower_is_better { (b, a) } else { (a, b) };
            score += if a > b {
                1.0
            } else if a == b {
                0.5
            } else {
                0.0
            };
        }
    }
    score / (x.len() * y.len()) as f64
}
