//! Which paired test makes a verdict, and whether a design can reject at all.
//!
//! Three two-sided tests of "the paired differences are centred on 0":
//!
//! - `wilcoxon`: the signed-rank test of [`super::paired::wilcoxon`] (exact up to 25 pairs);
//! - `t`: the paired t test of [`super::paired::paired_t`] (`scipy.stats.ttest_rel`);
//! - `permutation`: the exact sign-flip permutation test of the mean difference: under the
//!   null each difference keeps or flips its sign with probability 1/2, and the p-value is
//!   the share of the 2^n sign patterns whose sum is at least as far from 0 as the observed
//!   one (`scipy.stats.permutation_test` with `permutation_type = "samples"` and every
//!   pattern enumerated). Exact up to [`PERMUTATION_EXACT_UP_TO`] pairs, counted by meet in
//!   the middle (two halves of 2^(n/2) sums each, one of them sorted); above, the normal
//!   approximation of the sign-flip distribution (mean 0, variance the sum of squares).
//!
//! A rank or permutation test has a smallest attainable p-value: with n pairs no pattern is
//! rarer than "every sign alike", so p >= 2 / 2^n; Holm over m comparisons multiplies the
//! smallest by m. When that floor is not below the level, no data can make the test reject,
//! and a verdict must say so rather than "no difference" ([`floor`]). The t test has no
//! such floor (its p-value goes to 0 as the differences' spread does).

use super::paired::{EXACT_UP_TO, paired_t, wilcoxon};
use super::special::normal_cdf;

crate::names::named_enum!(
    /// The paired test that makes a verdict.
    Significance, "significance test", {
        /// Wilcoxon's signed-rank test.
        Wilcoxon = "wilcoxon",
        /// The paired t test.
        T = "t",
        /// The exact sign-flip permutation test of the mean difference.
        Permutation = "permutation",
    }
);

/// The most pairs for which the permutation test is exact.
pub const PERMUTATION_EXACT_UP_TO: usize = 30;

/// The significance level verdicts use unless told otherwise.
pub const DEFAULT_LEVEL: f64 = 0.05;

impl Significance {
    /// The two-sided p-value of the differences `d` (NaN when the test is undefined: the t
    /// test with fewer than two pairs).
    pub fn p_value(self, d: &[f64]) -> f64 {
        match self {
            Significance::Wilcoxon => wilcoxon(d).p_value,
            Significance::T => paired_t(d).p_value,
            Significance::Permutation => sign_flip(d),
        }
    }

    /// The smallest p-value the test can give with `n` pairs, whatever their values
    /// (0 for the t test with at least two pairs; 1 without any pair).
    pub fn smallest_p(self, n: usize) -> f64 {
        if n == 0 {
            return 1.0;
        }
        match self {
            Significance::T => {
                if n < 2 {
                    1.0
                } else {
                    0.0
                }
            }
            Significance::Wilcoxon if n > EXACT_UP_TO => {
                // Every rank on one side: the signed-rank statistic's farthest value.
                let nf = n as f64;
                let z = (nf * (nf + 1.0) / 4.0) / (nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0).sqrt();
                (2.0 * normal_cdf(-z)).min(1.0)
            }
            // Equal differences of one sign: the sum is sqrt(n) standard deviations out
            // (Cauchy–Schwarz: never farther).
            Significance::Permutation if n > PERMUTATION_EXACT_UP_TO => (2.0 * normal_cdf(-(n as f64).sqrt())).min(1.0),
            Significance::Wilcoxon | Significance::Permutation => (2.0 / 2f64.powi(n as i32)).min(1.0),
        }
    }
}

/// The smallest Holm-adjusted p-value that `test` can reach with `n` pairs in a family of
/// `comparisons` comparisons: the smallest raw p-value times the family size (Holm's first
/// step), at most 1.
pub fn floor(test: Significance, n: usize, comparisons: usize) -> f64 {
    (test.smallest_p(n) * comparisons.max(1) as f64).min(1.0)
}

/// Whether `test` can ever reject at the significance level `level` with `n` pairs among
/// `comparisons` comparisons (a rejection is an adjusted p-value below `level`).
pub fn can_reject(test: Significance, n: usize, comparisons: usize, level: f64) -> bool {
    floor(test, n, comparisons) < level
}

/// The fewest pairs with which `test` can ever reject at the significance level `level`
/// among `comparisons` comparisons.
pub fn pairs_needed(test: Significance, comparisons: usize, level: f64) -> usize {
    (1..).find(|&n| can_reject(test, n, comparisons, level)).expect("some n rejects")
}

/// The two-sided p-value of the exact sign-flip permutation test of the sum of `d`
/// (see the module documentation).
pub fn sign_flip(d: &[f64]) -> f64 {
    let n = d.len();
    if n == 0 {
        return 1.0;
    }
    let observed: f64 = d.iter().sum::<f64>().abs();
    let scale: f64 = d.iter().map(|x| x.abs()).sum();
    if scale == 0.0 {
        return 1.0;
    }
    if n > PERMUTATION_EXACT_UP_TO {
        let sd = d.iter().map(|x| x * x).sum::<f64>().sqrt();
        return (2.0 * normal_cdf(-observed / sd)).min(1.0);
    }
    // Sums that differ only by rounding count as equal to the observed one.
    let tolerance = 1e-12 * scale;
    let threshold = observed - tolerance;
    let (left, right) = d.split_at(n / 2);
    let left = signed_sums(left);
    let mut right = signed_sums(right);
    right.sort_by(f64::total_cmp);
    // Patterns with left + right >= threshold, or left + right <= -threshold.
    let mut extreme: u64 = 0;
    for a in left {
        let at_least = right.len() - right.partition_point(|&b| b < threshold - a);
        let at_most = right.partition_point(|&b| b <= -threshold - a);
        extreme += (at_least + at_most) as u64;
    }
    // With observed = 0 every pattern is counted twice at most: the p-value is then 1.
    (extreme as f64 / 2f64.powi(n as i32)).min(1.0)
}

/// The sum of every sign pattern of `d` (2^len values).
fn signed_sums(d: &[f64]) -> Vec<f64> {
    let mut sums = vec![0.0];
    for &x in d {
        sums = sums.iter().flat_map(|&s| [s + x, s - x]).collect();
    }
    sums
}
