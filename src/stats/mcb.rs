//! Which configurations could be the best: Hsu's multiple comparisons with the best (MCB)
//! for configurations run on the same replicates, with the critical value of Dunnett's
//! one-sided many-to-one comparisons, and how many replicates would likely shrink the set.
//!
//! The model is the randomized complete block design: configuration `i` on replicate `r`
//! scores `y_ir = mu_i + beta_r + e_ir`, the replicate (its seed) a block shared by every
//! configuration, the errors independent with one variance `sigma^2`. Its estimate `s^2` is
//! the two-way residual mean square, with `nu = (k - 1)(n - 1)` degrees of freedom for `k`
//! configurations on `n` replicates. With `d` the one-sided Dunnett critical value for
//! `k - 1` comparisons at the significance level `level` and `nu` degrees of freedom, and
//! the margin `h = d s sqrt(2 / n)`, for "lower is better":
//!
//! - `gap_i = mean_i - min_{j != i} mean_j` (how far behind the best of the others);
//! - the simultaneous `1 - level` interval of `mu_i - min_{j != i} mu_j` is
//!   `[min(0, gap_i - h), max(0, gap_i + h)]` (Hsu's constrained MCB intervals);
//! - configuration `i` could be the best when `gap_i <= h`; this is also Gupta's subset
//!   selection rule (`mean_i <= min_j mean_j + h`), and the set holds the best
//!   configuration with probability at least `1 - level`.
//!
//! References: J. C. Hsu, *Multiple Comparisons: Theory and Methods* (Chapman & Hall,
//! 1996), chapter 4; J. C. Hsu, "Constrained simultaneous confidence intervals for
//! multiple comparisons with the best", *Annals of Statistics* 12 (1984); S. S. Gupta,
//! "On some multiple decision (selection and ranking) rules", *Technometrics* 7 (1965);
//! C. W. Dunnett, "A multiple comparison procedure for comparing several treatments with a
//! control", *JASA* 50 (1955).
//!
//! Dunnett's critical value `d` solves `P(max_i T_i <= d) = 1 - level` for `k - 1`
//! Student-t statistics with correlation 1/2, which is the one-dimensional mixture
//! `E[Phi(Z + sqrt(2) d S)^(k-1)]`, `Z` standard normal and `S` distributed as
//! `sqrt(chi^2_nu / nu)`; both expectations are integrated by composite Gauss–Legendre
//! quadrature (accurate to about 1e-9 in the probability; checked against scipy's
//! multivariate t distribution in scripts/tests/test_mcb.py, and against Student's t for
//! one comparison here).
//!
//! Replicates that would likely shrink the set: the smallest `n'` at which a member's
//! observed gap would exceed the margin with 80% power, if the means and `s` stay as
//! observed: `gap >= (d(nu') + t_0.8(nu')) s sqrt(2 / n')`, `nu' = (k - 1)(n' - 1)`.

use super::special::{ln_gamma, normal_cdf, student_t_quantile};

/// The power at which a planned number of replicates "would likely" exclude a configuration.
pub const POWER: f64 = 0.8;

/// The most replicates a plan names; beyond it, "more than" this.
pub const MOST_REPLICATES: usize = 1_000_000;

/// The MCB analysis of one block of configurations.
#[derive(Clone, Debug, PartialEq)]
pub struct Mcb {
    /// Replicates (every configuration has each).
    pub n: usize,
    /// Degrees of freedom of `s`: `(k - 1)(n - 1)`.
    pub df: f64,
    /// The pooled standard deviation `s` (the two-way residual mean square's root).
    pub sd: f64,
    /// Dunnett's one-sided critical value `d`.
    pub critical: f64,
    /// The margin `h = d s sqrt(2 / n)`.
    pub margin: f64,
    /// Per configuration, in the order given.
    pub rows: Vec<McbRow>,
}

/// One configuration's MCB result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McbRow {
    /// Its mean.
    pub mean: f64,
    /// How far it is behind the best of the others (negative: ahead of them all).
    pub gap: f64,
    /// The lower end of the simultaneous interval of its true gap.
    pub low: f64,
    /// The upper end.
    pub high: f64,
    /// Whether it could be the best: `gap <= margin`.
    pub could_be_best: bool,
}

/// The MCB analysis of `runs[i][r]`, configuration `i` on replicate `r` (every
/// configuration on the same `n` replicates, in the same order), at the significance
/// level `level`. `None` with fewer than two configurations or two replicates.
pub fn mcb(runs: &[Vec<f64>], lower_is_better: bool, level: f64) -> Option<Mcb> {
    let k = runs.len();
    let n = runs.first()?.len();
    if k < 2 || n < 2 || runs.iter().any(|r| r.len() != n) {
        return None;
    }
    let sign = if lower_is_better { 1.0 } else { -1.0 };
    let means: Vec<f64> = runs.iter().map(|r| r.iter().sum::<f64>() / n as f64).collect();
    let replicate_means: Vec<f64> = (0..n).map(|r| runs.iter().map(|c| c[r]).sum::<f64>() / k as f64).collect();
    let grand = means.iter().sum::<f64>() / k as f64;
    let mut sse = 0.0;
    for (c, m) in runs.iter().zip(&means) {
        for (y, b) in c.iter().zip(&replicate_means) {
            sse += (y - m - b + grand).powi(2);
        }
    }
    // Residuals of rounding size only: no spread at all (runs that differ by a constant).
    let largest = runs.iter().flatten().fold(0.0f64, |a, y| a.max(y.abs()));
    if sse <= (k * n) as f64 * (64.0 * f64::EPSILON * largest).powi(2) {
        sse = 0.0;
    }
    let df = ((k - 1) * (n - 1)) as f64;
    let sd = (sse / df).sqrt();
    let critical = dunnett_critical(k - 1, df, level);
    let margin = critical * sd * (2.0 / n as f64).sqrt();
    let rows = (0..k)
        .map(|i| {
            let best_other = (0..k).filter(|&j| j != i).map(|j| sign * means[j]).fold(f64::INFINITY, f64::min);
            let gap = sign * means[i] - best_other;
            McbRow {
                mean: means[i],
                gap,
                low: (gap - margin).min(0.0),
                high: (gap + margin).max(0.0),
                could_be_best: gap <= margin,
            }
        })
        .collect();
    Some(Mcb { n, df, sd, critical, margin, rows })
}

impl Mcb {
    /// The smallest number of replicates at which a configuration `gap` behind the best
    /// would likely (power [`POWER`]) be excluded, if the means and `s` stay as observed;
    /// `None` when not within [`MOST_REPLICATES`] (or never: a gap of 0).
    pub fn replicates_to_exclude(&self, gap: f64, level: f64) -> Option<usize> {
        let k = self.rows.len();
        // The margin plus the power term at n replicates; it falls as n grows.
        let needed = |n: usize| {
            let df = ((k - 1) * (n - 1)) as f64;
            (dunnett_critical(k - 1, df, level) + student_t_quantile(POWER, df)) * self.sd * (2.0 / n as f64).sqrt()
        };
        if gap <= 0.0 || needed(MOST_REPLICATES) >= gap {
            return None;
        }
        if self.sd == 0.0 {
            return Some(2);
        }
        // Solve n = 2 ((d + t) s / gap)^2 by fixed-point steps (d and t change slowly with
        // n), then step to the smallest n that excludes: a few critical values, not a
        // bisection over a million.
        let mut n = self.n.max(2);
        for _ in 0..8 {
            let d_plus_t = needed(n) / (self.sd * (2.0 / n as f64).sqrt());
            let next = (2.0 * (d_plus_t * self.sd / gap).powi(2)).ceil().clamp(2.0, MOST_REPLICATES as f64) as usize;
            if next == n {
                break;
            }
            n = next;
        }
        while needed(n) >= gap {
            n += 1;
        }
        while n > 2 && needed(n - 1) < gap {
            n -= 1;
        }
        Some(n)
    }
}

/// `P(max_i T_i <= d)` for `comparisons` Student-t statistics with correlation 1/2 and `df`
/// degrees of freedom (Dunnett's one-sided distribution).
pub fn dunnett_cdf(d: f64, comparisons: usize, df: f64) -> f64 {
    Mixture::new(df).cdf(d, comparisons)
}

/// Dunnett's one-sided critical value: the `d` with `P(max_i T_i <= d) = 1 - level` for
/// `comparisons` Student-t statistics with correlation 1/2 and `df` degrees of freedom.
/// Remembered per arguments: a summary asks for the same few values again and again.
pub fn dunnett_critical(comparisons: usize, df: f64, level: f64) -> f64 {
    type Key = (usize, u64, u64);
    static KNOWN: std::sync::Mutex<Option<std::collections::HashMap<Key, f64>>> = std::sync::Mutex::new(None);
    let key = (comparisons, df.to_bits(), level.to_bits());
    if let Some(&d) = KNOWN.lock().ok().as_ref().and_then(|m| m.as_ref()?.get(&key)) {
        return d;
    }
    let d = solve_critical(comparisons, df, level);
    if let Ok(mut known) = KNOWN.lock() {
        known.get_or_insert_with(Default::default).insert(key, d);
    }
    d
}

fn solve_critical(comparisons: usize, df: f64, level: f64) -> f64 {
    let target = 1.0 - level;
    // One comparison is Student's t; more only raise d, Bonferroni bounds it above.
    let mut low = student_t_quantile(target, df);
    if comparisons <= 1 {
        return low;
    }
    let mut high = student_t_quantile(1.0 - level / comparisons as f64, df);
    let mixture = Mixture::new(df);
    let f = |d: f64| mixture.cdf(d, comparisons) - target;
    let (mut f_low, mut f_high) = (f(low), f(high));
    if f_low >= 0.0 {
        return low;
    }
    if f_high <= 0.0 {
        return high;
    }
    // Regula falsi, Illinois variant: halve the weight of an end kept twice.
    let mut side = 0;
    for _ in 0..200 {
        let mid = (low * f_high - high * f_low) / (f_high - f_low);
        let f_mid = f(mid);
        if f_mid.abs() < 1e-14 || high - low < 1e-12 {
            return mid;
        }
        if f_mid < 0.0 {
            low = mid;
            f_low = f_mid;
            if side == -1 {
                f_high /= 2.0;
            }
            side = -1;
        } else {
            high = mid;
            f_high = f_mid;
            if side == 1 {
                f_low /= 2.0;
            }
            side = 1;
        }
    }
    0.5 * (low + high)
}

/// The quadrature of `E[Phi(Z + sqrt(2) d S)^m]`: nodes and weights over `S` (its density
/// folded in) and over `Z` (the normal density folded in).
struct Mixture {
    s: Vec<(f64, f64)>,
    z: Vec<(f64, f64)>,
}

impl Mixture {
    fn new(df: f64) -> Mixture {
        let s = if df > 1e7 {
            vec![(1.0, 1.0)]
        } else {
            // S is about normal with sd 1 / sqrt(2 df) for large df; 12 of them cover it.
            let spread = 12.0 / (2.0 * df).sqrt();
            let (a, b) = ((1.0 - spread).max(0.0), 1.0 + spread);
            let ln_c = std::f64::consts::LN_2 + df / 2.0 * (df / 2.0).ln() - ln_gamma(df / 2.0);
            let nodes: Vec<(f64, f64)> = composite(a, b, 5)
                .into_iter()
                .map(|(x, w)| (x, w * (ln_c + (df - 1.0) * x.ln() - df * x * x / 2.0).exp()))
                .collect();
            // Normalised: the density's mass over the range, as the quadrature sees it, is 1.
            let mass: f64 = nodes.iter().map(|(_, w)| w).sum();
            nodes.into_iter().map(|(x, w)| (x, w / mass)).collect()
        };
        let z = composite(-9.0, 9.0, 7)
            .into_iter()
            .map(|(x, w)| (x, w * (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt()))
            .collect();
        Mixture { s, z }
    }

    fn cdf(&self, d: f64, m: usize) -> f64 {
        let shift = std::f64::consts::SQRT_2 * d;
        let mut total = 0.0;
        for &(s, ws) in &self.s {
            let inner: f64 = self.z.iter().map(|&(z, wz)| wz * normal_cdf(z + shift * s).powi(m as i32)).sum();
            total += ws * inner;
        }
        total
    }
}

/// Composite Gauss–Legendre nodes and weights over `[a, b]`: `panels` equal panels of
/// [`GAUSS_POINTS`] points each.
fn composite(a: f64, b: f64, panels: usize) -> Vec<(f64, f64)> {
    let rule = gauss_legendre(GAUSS_POINTS);
    let width = (b - a) / panels as f64;
    let mut out = Vec::with_capacity(panels * rule.len());
    for p in 0..panels {
        let centre = a + width * (p as f64 + 0.5);
        out.extend(rule.iter().map(|&(x, w)| (centre + x * width / 2.0, w * width / 2.0)));
    }
    out
}

/// Points of each Gauss–Legendre panel.
const GAUSS_POINTS: usize = 16;

/// The `n`-point Gauss–Legendre rule on [-1, 1]: the roots of the Legendre polynomial
/// `P_n` by Newton's method, with weights `2 / ((1 - x^2) P_n'(x)^2)`.
fn gauss_legendre(n: usize) -> Vec<(f64, f64)> {
    (1..=n)
        .map(|i| {
            let mut x = (std::f64::consts::PI * (i as f64 - 0.25) / (n as f64 + 0.5)).cos();
            let mut derivative = 0.0;
            for _ in 0..100 {
                // P_n(x) and P_{n-1}(x) by the three-term recurrence.
                let (mut p, mut previous) = (1.0, 0.0);
                for j in 1..=n {
                    let jf = j as f64;
                    (p, previous) = (((2.0 * jf - 1.0) * x * p - (jf - 1.0) * previous) / jf, p);
                }
                derivative = n as f64 * (x * p - previous) / (x * x - 1.0);
                let step = p / derivative;
                x -= step;
                if step.abs() < 1e-16 {
                    break;
                }
            }
            (x, 2.0 / ((1.0 - x * x) * derivative * derivative))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_legendre_integrates_polynomials_exactly() {
        let rule = gauss_legendre(GAUSS_POINTS);
        assert!((rule.iter().map(|(_, w)| w).sum::<f64>() - 2.0).abs() < 1e-14);
        // x^30 is within the rule's degree 2n - 1 = 31: its integral is 2/31.
        let x30: f64 = rule.iter().map(|(x, w)| w * x.powi(30)).sum();
        assert!((x30 - 2.0 / 31.0).abs() < 1e-14, "{x30}");
    }

    #[test]
    fn one_comparison_is_students_t() {
        for df in [1.0, 4.0, 9.0, 234.0] {
            let t = student_t_quantile(0.95, df);
            assert!((dunnett_cdf(t, 1, df) - 0.95).abs() < 1e-9, "df {df}: {}", dunnett_cdf(t, 1, df));
            assert_eq!(dunnett_critical(1, df, 0.05), t);
        }
    }

    #[test]
    fn critical_values_agree_with_dunnetts_tables() {
        // Dunnett's one-sided tables at level 0.05: 2 comparisons at df 10: 2.15; 5 at df 20:
        // 2.39. To more digits, the same mixture integrated by scipy's adaptive quadrature
        // (scipy.integrate.quad, tolerance 1e-13) and solved by brentq: 2.1506138267,
        // 2.3887793846, and 2.7343209229 for 26 comparisons at df 234 (scipy's randomized
        // multivariate t gives 2.1501, 2.3887 and 2.7356 to its Monte Carlo error). The
        // normal limit for 2 comparisons: 1.916 (bivariate normal, 1.9163319447).
        assert!((dunnett_critical(2, 10.0, 0.05) - 2.150_613_826_7).abs() < 1e-8);
        assert!((dunnett_critical(5, 20.0, 0.05) - 2.388_779_384_6).abs() < 1e-8);
        assert!((dunnett_critical(26, 234.0, 0.05) - 2.734_320_922_9).abs() < 1e-8);
        assert!((dunnett_critical(2, 1e8, 0.05) - 1.916_331_944_7).abs() < 1e-6);
        // More comparisons, or fewer degrees of freedom, need a larger d.
        assert!(dunnett_critical(26, 234.0, 0.05) > dunnett_critical(5, 234.0, 0.05));
        assert!(dunnett_critical(5, 9.0, 0.05) > dunnett_critical(5, 234.0, 0.05));
    }

    #[test]
    fn a_clear_loser_is_excluded_and_ties_stay() {
        // Three configurations on five replicates; the third is 0.3 worse on each.
        let noise = [0.01, -0.02, 0.015, 0.0, -0.005];
        let runs: Vec<Vec<f64>> = [0.0, 0.0, 0.3]
            .iter()
            .enumerate()
            .map(|(i, shift)| noise.iter().enumerate().map(|(r, e)| shift + e * (1.0 + (i * r) as f64 * 0.1)).collect())
            .collect();
        let m = mcb(&runs, true, 0.05).unwrap();
        assert_eq!(m.rows.iter().map(|r| r.could_be_best).collect::<Vec<_>>(), [true, true, false]);
        assert!(m.rows[2].low > 0.0 || m.rows[2].low == 0.0 && m.rows[2].gap > m.margin);
        assert!(m.rows.iter().all(|r| r.low <= 0.0 && r.high >= 0.0));
        // Larger is better: the order turns over.
        let m = mcb(&runs, false, 0.05).unwrap();
        assert_eq!(m.rows.iter().map(|r| r.could_be_best).collect::<Vec<_>>(), [false, false, true]);
    }

    #[test]
    fn without_spread_only_the_ties_of_the_best_stay() {
        let runs = vec![vec![0.0, 0.0, 0.0], vec![0.0, 0.0, 0.0], vec![0.1, 0.1, 0.1]];
        let m = mcb(&runs, true, 0.05).unwrap();
        assert_eq!((m.sd, m.margin), (0.0, 0.0));
        assert_eq!(m.rows.iter().map(|r| r.could_be_best).collect::<Vec<_>>(), [true, true, false]);
    }

    #[test]
    fn the_set_holds_the_best_with_the_confidence_it_claims() {
        // Gupta's least favourable configuration, every mean equal: the set keeps a given
        // configuration with probability exactly 1 - level. 4,000 simulated blocks of 8
        // configurations on 5 replicates, with replicate effects: the rate within 3.5
        // standard errors of 0.95.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(36);
        let mut normal = move || {
            let (u, v): (f64, f64) = (rng.random(), rng.random());
            (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
        };
        let trials = 4000;
        let mut kept = 0;
        for _ in 0..trials {
            let block: Vec<f64> = (0..5).map(|_| 3.0 * normal()).collect();
            let runs: Vec<Vec<f64>> = (0..8).map(|_| block.iter().map(|b| b + normal()).collect()).collect();
            kept += mcb(&runs, true, 0.05).unwrap().rows[0].could_be_best as usize;
        }
        let rate = kept as f64 / trials as f64;
        let se = (0.95f64 * 0.05 / trials as f64).sqrt();
        assert!((rate - 0.95).abs() < 3.5 * se, "kept {kept} of {trials}: {rate}");
    }

    #[test]
    fn more_replicates_exclude_a_smaller_gap() {
        let runs: Vec<Vec<f64>> =
            (0..4).map(|i| (0..6).map(|r| 0.01 * i as f64 + 0.05 * ((r * 7 + i * 3) % 5) as f64).collect()).collect();
        let m = mcb(&runs, true, 0.05).unwrap();
        let near = m.replicates_to_exclude(0.01, 0.05).unwrap();
        let far = m.replicates_to_exclude(0.03, 0.05).unwrap();
        assert!(far < near, "{far} vs {near}");
        // At the planned n the planned margin plus the power term is below the gap, and
        // one replicate fewer it is not.
        let k = m.rows.len();
        let term = |n: usize| {
            let df = ((k - 1) * (n - 1)) as f64;
            (dunnett_critical(k - 1, df, 0.05) + student_t_quantile(POWER, df)) * m.sd * (2.0 / n as f64).sqrt()
        };
        assert!(term(far) < 0.03 && term(far - 1) >= 0.03);
        assert_eq!(m.replicates_to_exclude(0.0, 0.05), None);
    }
}
