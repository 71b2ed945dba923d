//! A binomial proportion's 95% interval: Wilson's score interval (Wilson, 1927), which
//! stays inside [0, 1] and keeps its width where the share is 0 or 1 (a normal interval
//! there has none).
//!
//! For `k` successes in `n` trials, `p = k / n` and `z` the normal quantile:
//! centre `(p + z²/2n) / (1 + z²/n)`, half width
//! `z / (1 + z²/n) * sqrt(p(1 - p)/n + z²/4n²)`. The centre is not `p` (it leans toward
//! 1/2), so the interval is given by its ends, with its half width beside them.

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// Wilson's 95% interval of `successes` in `trials` (at least one): its low and high ends
/// and its half width.
///
/// ```
/// let (lo, hi, half) = sweep::stats::binomial::wilson95(8, 10);
/// assert!((lo - 0.490_162).abs() < 1e-6 && (hi - 0.943_318).abs() < 1e-6);
/// assert!((half - (hi - lo) / 2.0).abs() < 1e-12);
/// ```
pub fn wilson95(successes: usize, trials: usize) -> (f64, f64, f64) {
    assert!(trials > 0 && successes <= trials, "{successes} successes in {trials} trials");
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0), half)
}
