//! The statistics against scipy and numpy on fixed data. The expected values were computed
//! by scripts/tests/stats_reference.py (scipy 1.17, numpy 2.4), which holds the same data.

use super::paired::{holm, paired_t, probability_of_improvement, wilcoxon};
use super::robust::{RESAMPLES, Stat, bootstrap_interval};
use super::significance::{Significance, can_reject, floor, pairs_needed, sign_flip};

const X: [f64; 20] = [
    0.31, 0.12, 0.45, 0.27, 0.50, 0.08, 0.33, 0.29, 0.41, 0.22, 0.36, 0.18, 0.47, 0.25, 0.39, 0.14, 0.30, 0.44, 0.20,
    0.35,
];
const Y: [f64; 20] = [
    0.297, 0.049, 0.472, 0.206, 0.382, 0.107, 0.205, 0.299, 0.253, 0.185, 0.314, 0.261, 0.398, 0.244, 0.276, 0.173,
    0.281, 0.197, 0.215, 0.322,
];

fn differences() -> Vec<f64> {
    X.iter().zip(&Y).map(|(x, y)| x - y).collect()
}

fn close(a: f64, b: f64, tolerance: f64) {
    assert!((a - b).abs() <= tolerance * b.abs(), "{a} vs {b}");
}

#[test]
fn paired_t_is_scipys_ttest_rel() {
    let t = paired_t(&differences());
    close(t.mean, 0.0462, 1e-12);
    close(t.low, 0.010_309_672_061_497_667, 1e-10);
    close(t.high, 0.082_090_327_938_502_32, 1e-10);
    close(t.p_value, 0.014_366_162_509_025_1, 1e-9);
}

#[test]
fn wilcoxon_is_scipys_exact_test_without_ties() {
    let w = wilcoxon(&differences());
    assert!(w.exact);
    assert_eq!((w.n, w.statistic), (20, 43.0));
    close(w.p_value, 0.019_233_703_613_281_25, 1e-12);
}

#[test]
fn wilcoxon_above_25_is_scipys_normal_approximation() {
    let d: Vec<f64> = (1..=30).map(|k| ((0.013 * ((7 * k) % 31) as f64 - 0.15) * 1000.0).round() / 1000.0).collect();
    let w = wilcoxon(&d);
    assert!(!w.exact);
    assert_eq!(w.statistic, 132.0);
    close(w.p_value, 0.038_723_026_479_358_956, 1e-9);
}

#[test]
fn wilcoxon_with_ties_and_zeros_is_the_enumerated_distribution() {
    let tied = [0.2, -0.1, 0.1, 0.0, 0.3, 0.2, -0.2, 0.1, 0.4, 0.0, 0.3, 0.1];
    let w = wilcoxon(&tied);
    assert_eq!(w.n, 10, "zeros are dropped");
    close(w.p_value, 0.0625, 1e-12);
    assert_eq!(wilcoxon(&[0.0, 0.0]).p_value, 1.0);
}

#[test]
fn holm_steps_down() {
    let adjusted = holm(&[0.01, 0.04, 0.03, 0.20, 0.005]);
    let want = [0.04, 0.09, 0.09, 0.2, 0.025];
    for (a, b) in adjusted.iter().zip(want) {
        close(*a, b, 1e-12);
    }
}

#[test]
fn probability_of_improvement_is_mann_whitney_u_over_mn() {
    close(probability_of_improvement(&X, &Y, false), 0.6225, 1e-12);
    close(probability_of_improvement(&Y, &X, true), 0.6225, 1e-12);
    assert_eq!(probability_of_improvement(&[1.0], &[1.0], true), 0.5);
}

#[test]
fn aggregates_are_numpys() {
    close(Stat::Mean.of(&X), 0.303_000_000_000_000_05, 1e-14);
    close(Stat::Median.of(&X), 0.305, 1e-14);
    close(Stat::Iqm.of(&X), 0.307_000_000_000_000_05, 1e-14);
}

/// scipy.stats.bootstrap(method="percentile") with 200,000 resamples gives [0.2505,
/// 0.3545] for the mean and [0.235, 0.375] for the median; 2,000 resamples land within a
/// few thousandths of those.
#[test]
fn bootstrap_intervals_agree_with_scipys_percentile_bootstrap() {
    let strata = [X.to_vec()];
    let (low, high) = bootstrap_interval(Stat::Mean, &strata, RESAMPLES, 1, true);
    assert!((low - 0.2505).abs() < 0.006 && (high - 0.3545).abs() < 0.006, "[{low}, {high}]");
    let (low, high) = bootstrap_interval(Stat::Median, &strata, RESAMPLES, 1, true);
    assert!((low - 0.235).abs() < 0.015 && (high - 0.375).abs() < 0.015, "[{low}, {high}]");
    assert_eq!(
        bootstrap_interval(Stat::Iqm, &strata, RESAMPLES, 1, true),
        bootstrap_interval(Stat::Iqm, &strata, RESAMPLES, 1, true)
    );
}

#[test]
fn bootstrap_is_stratified_and_clamped() {
    // Two strata of one value each: every resample pools exactly {0, 1}, so the interval
    // of the mean is a point; unstratified it would spread over [0, 1].
    let (low, high) = bootstrap_interval(Stat::Mean, &[vec![0.0], vec![1.0]], 500, 3, true);
    assert_eq!((low, high), (0.5, 0.5));
    let (low, _) = bootstrap_interval(Stat::Mean, &[vec![-1.0, 0.5, 1.0]], 500, 3, true);
    assert!(low >= 0.0);
}

#[test]
fn sign_flip_permutation_is_scipys_exact_permutation_test() {
    let d = differences();
    close(sign_flip(&d), 0.011_632_919_311_523_438, 1e-12);
    close(sign_flip(&d[..5]), 0.1875, 1e-12);
    let tied = [0.2, -0.1, 0.1, 0.0, 0.3, 0.2, -0.2, 0.1, 0.4, 0.0, 0.3, 0.1];
    close(sign_flip(&tied), 0.0625, 1e-12);
    assert_eq!(sign_flip(&[0.0, 0.0]), 1.0);
    // Every sign alike: the rarest pattern, 2 of 2^n.
    assert_eq!(sign_flip(&[0.1, 0.3, 0.2, 0.5, 0.4]), 2.0 / 32.0);
    close(Significance::T.p_value(&d[..5]), 0.114_997_430_430_325_86, 1e-9);
}

#[test]
fn the_smallest_attainable_p_is_reached_and_never_beaten() {
    for n in 1..=8 {
        let alike: Vec<f64> = (1..=n).map(|k| 0.1 * k as f64).collect();
        for test in [Significance::Wilcoxon, Significance::Permutation] {
            assert_eq!(test.p_value(&alike), test.smallest_p(n), "{test} n = {n}");
        }
    }
    // Past the exact range the normal approximations' floors are those of all-alike signs.
    let alike: Vec<f64> = (1..=40).map(|k| 0.01 * k as f64).collect();
    close(Significance::Wilcoxon.p_value(&alike), Significance::Wilcoxon.smallest_p(40), 1e-9);
    let equal = vec![0.3; 40];
    close(Significance::Permutation.p_value(&equal), Significance::Permutation.smallest_p(40), 1e-9);
    assert_eq!(Significance::T.smallest_p(2), 0.0);
}

/// The replicates each test needs before it can reject at all at 0.05, for 1, 5, 10, 26
/// and 100 comparisons in a block (the table in the guide, docs/guide/src/statistics.md): the smallest n with
/// m · 2 / 2^n < 0.05 for the exact tests, 2 for the t test.
#[test]
fn replicates_needed_to_ever_reject() {
    for (m, n) in [(1, 6), (5, 8), (10, 9), (26, 11), (100, 12)] {
        for test in [Significance::Wilcoxon, Significance::Permutation] {
            assert_eq!(pairs_needed(test, m, 0.05), n, "{test} over {m}");
            assert!(floor(test, n - 1, m) >= 0.05 && floor(test, n, m) < 0.05);
        }
        assert_eq!(pairs_needed(Significance::T, m, 0.05), 2);
    }
    // The figures: 5 pairs never go below 0.0625; 6 pairs over 26 comparisons, 0.8125.
    close(floor(Significance::Wilcoxon, 5, 1), 0.0625, 1e-15);
    close(floor(Significance::Wilcoxon, 6, 26), 0.8125, 1e-15);
    assert!(!can_reject(Significance::Wilcoxon, 5, 1, 0.05));
}
