//! Rank correlation: Spearman's rho between two rankings of the same items, the Pearson
//! correlation of their mean ranks (ties share the mean of their ranks, as scipy's
//! `spearmanr` does). `sweep fidelity` uses it to ask whether the ranking of
//! configurations at a short budget predicts the final one.

use super::paired::mean_ranks;

/// Spearman's rank correlation of `x` and `y` (paired by position), in [-1, 1]; `None`
/// with fewer than two items or when either side is constant (no ranking to compare).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    assert_eq!(x.len(), y.len(), "paired values");
    if x.len() < 2 {
        return None;
    }
    let (rx, ry) = (mean_ranks(x), mean_ranks(y));
    let n = x.len() as f64;
    // Both rank lists have mean (n + 1) / 2, whatever the ties.
    let centre = (n + 1.0) / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        let (a, b) = (a - centre, b - centre);
        sxy += a * b;
        sxx += a * a;
        syy += b * b;
    }
    (sxx > 0.0 && syy > 0.0).then(|| (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The data and reference values of scripts/tests/stats_reference.py (scipy's
    // `spearmanr`).
    const EARLY: [f64; 8] = [0.31, 0.12, 0.45, 0.27, 0.50, 0.08, 0.33, 0.29];
    const FINAL: [f64; 8] = [0.05, 0.02, 0.09, 0.06, 0.04, 0.01, 0.08, 0.03];
    const EARLY_TIED: [f64; 8] = [0.2, 0.1, 0.2, 0.4, 0.1, 0.3, 0.2, 0.5];
    const FINAL_TIED: [f64; 8] = [0.03, 0.01, 0.02, 0.03, 0.01, 0.05, 0.00, 0.04];

    #[test]
    fn matches_scipy_with_and_without_ties() {
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        close(spearman(&EARLY, &FINAL).unwrap(), 0.6666666666666669);
        close(spearman(&EARLY_TIED, &FINAL_TIED).unwrap(), 0.7454710432056395);
    }

    #[test]
    fn properties() {
        // Any increasing map keeps the ranking; reversing it negates rho.
        let squared: Vec<f64> = EARLY.iter().map(|x| x * x + 1.0).collect();
        assert_eq!(spearman(&EARLY, &squared), Some(1.0));
        let negated: Vec<f64> = EARLY.iter().map(|x| -x).collect();
        assert_eq!(spearman(&EARLY, &negated), Some(-1.0));
        // Symmetric in its arguments.
        assert_eq!(spearman(&EARLY_TIED, &FINAL_TIED), spearman(&FINAL_TIED, &EARLY_TIED));
        // No ranking: one item, or a constant side.
        assert_eq!(spearman(&[0.1], &[0.2]), None);
        assert_eq!(spearman(&[0.1, 0.1, 0.1], &[0.1, 0.2, 0.3]), None);
    }
}
