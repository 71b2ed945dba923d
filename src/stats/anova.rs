//! Functional ANOVA over a full grid (Hutter, Hoos and Leyton-Brown, "An Efficient
//! Approach for Assessing Hyperparameter Importance", ICML 2014), on the grid itself
//! rather than on a surrogate model: with every combination of levels present and each
//! cell weighted equally, the metric `y` splits exactly into a mean, main effects
//! `f_i(a) = mean(y | x_i = a) - mu` and pairwise interactions
//! `f_ij(a, b) = mean(y | x_i = a, x_j = b) - mu - f_i(a) - f_j(b)`; the share of a term is
//! the mean of its square over the grid divided by the variance of `y` over the cells.
//! Higher-order interactions take the rest.

/// A full grid of cell values: `levels[i]` levels of factor `i`, `values` in row-major
/// order (the last factor varying fastest).
#[derive(Clone, Debug)]
pub struct Grid {
    /// Levels per factor.
    pub levels: Vec<usize>,
    /// One value per cell (already averaged over replicates).
    pub values: Vec<f64>,
}

/// The importance of one term.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// The factors of the term: one for a main effect, two for an interaction.
    pub factors: Vec<usize>,
    /// Its share of the variance, in [0, 1] (NaN when the metric does not vary, or varies
    /// only by rounding: a spread under 1e-12 of its largest magnitude).
    pub share: f64,
}

impl Grid {
    /// The factor levels of cell `c`.
    fn coordinates(&self, mut c: usize) -> Vec<usize> {
        let mut at = vec![0; self.levels.len()];
        for (i, &l) in self.levels.iter().enumerate().rev() {
            at[i] = c % l;
            c /= l;
        }
        at
    }

    /// Means of the cells grouped by the levels of `factors` (row-major over them).
    fn marginal(&self, factors: &[usize]) -> Vec<f64> {
        let size: usize = factors.iter().map(|&i| self.levels[i]).product();
        let (mut sums, mut counts) = (vec![0.0; size], vec![0usize; size]);
        for (c, &y) in self.values.iter().enumerate() {
            let at = self.coordinates(c);
            let k = factors.iter().fold(0, |k, &i| k * self.levels[i] + at[i]);
            sums[k] += y;
            counts[k] += 1;
        }
        sums.iter().zip(&counts).map(|(s, &n)| s / n as f64).collect()
    }

    /// Every main effect, then every pairwise interaction (`i < j`), with its share.
    pub fn importance(&self) -> Vec<Term> {
        let cells = self.values.len() as f64;
        let mu = self.values.iter().sum::<f64>() / cells;
        let variance = self.values.iter().map(|y| (y - mu).powi(2)).sum::<f64>() / cells;
        // A metric that varies only in its last bits (the same value summed in another
        // order) does not vary: dividing by that noise would give shares beyond 1.
        let scale = self.values.iter().fold(0.0_f64, |m, y| m.max(y.abs()));
        let varies = variance > (scale * 1e-12).powi(2);
        let share = |v: f64| if varies { v / variance } else { f64::NAN };
        let factors = self.levels.len();
        let mains: Vec<Vec<f64>> = (0..factors).map(|i| self.marginal(&[i]).iter().map(|m| m - mu).collect()).collect();
        let mut terms: Vec<Term> =
            mains.iter().enumerate().map(|(i, f)| Term { factors: vec![i], share: share(mean_square(f)) }).collect();
        for i in 0..factors {
            for j in i + 1..factors {
                let pair = self.marginal(&[i, j]);
                let lj = self.levels[j];
                let effects: Vec<f64> =
                    pair.iter().enumerate().map(|(k, m)| m - mu - mains[i][k / lj] - mains[j][k % lj]).collect();
                terms.push(Term { factors: vec![i, j], share: share(mean_square(&effects)) });
            }
        }
        terms
    }
}

fn mean_square(values: &[f64]) -> f64 {
    values.iter().map(|v| v * v).sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Means of equal regrets summed in different orders differ in their last bit; that
    /// is no variance to share out.
    #[test]
    fn rounding_noise_is_no_variance() {
        let x = 0.392_708_333_333_333_3_f64;
        let values: Vec<f64> = (0..12).map(|i| if i % 5 == 0 { x + x * f64::EPSILON } else { x }).collect();
        let terms = Grid { levels: vec![3, 4], values }.importance();
        assert!(terms.iter().all(|t| t.share.is_nan()), "{terms:?}");
    }

    /// y = 3·a + b + 2·a·c over a ∈ {-1, 1}, b ∈ {-1, 0, 1}, c ∈ {-1, 1}: every term is
    /// orthogonal, so the variance 9 + 2/3 + 4 splits into those shares exactly.
    #[test]
    fn a_known_decomposition() {
        let (a, b, c) = ([-1.0, 1.0], [-1.0, 0.0, 1.0], [-1.0, 1.0]);
        let mut values = Vec::new();
        for x in a {
            for y in b {
                for z in c {
                    values.push(3.0 * x + y + 2.0 * x * z + 5.0);
                }
            }
        }
        let terms = Grid { levels: vec![2, 3, 2], values }.importance();
        let total = 9.0 + 2.0 / 3.0 + 4.0;
        let want = [
            (vec![0], 9.0 / total),
            (vec![1], 2.0 / 3.0 / total),
            (vec![2], 0.0),
            (vec![0, 1], 0.0),
            (vec![0, 2], 4.0 / total),
            (vec![1, 2], 0.0),
        ];
        assert_eq!(terms.len(), want.len());
        for (term, (factors, share)) in terms.iter().zip(want) {
            assert_eq!(term.factors, factors);
            assert!((term.share - share).abs() < 1e-12, "{term:?} vs {share}");
        }
        let sum: f64 = terms.iter().map(|t| t.share).sum();
        assert!((sum - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_constant_metric_has_no_shares() {
        let terms = Grid { levels: vec![2], values: vec![1.0, 1.0] }.importance();
        assert!(terms[0].share.is_nan());
    }
}
