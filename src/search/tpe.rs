//! The tree-structured Parzen estimator (Bergstra et al., NeurIPS 2011), multivariate
//! (one joint kernel per trial over every axis, as Falkner et al., ICML 2018, use it), as a
//! pure function: the proposals are a function of the axes, the finished trials and a seed
//! alone, so a search that asks it gives the same points on any thread count, after a crash
//! or over a cluster.
//!
//! A trial is a point `u` of the unit cube, one coordinate per axis (the uniforms a sampled
//! axis maps to its values, see `spec/sample.rs`; a categorical axis holds its choice's
//! index), and its score (lower is better). [`propose`] splits the finished trials into
//! the good (the best `ceil(0.1 n)`, at most 25, at least 1) and the rest, fits a density
//! to each ([`Parzen`]: a mixture of one kernel per trial and one prior kernel) and, for
//! each proposal, draws [`CANDIDATES`] points from the good density and keeps the one with
//! the largest `ln l(x) - ln g(x)`. A batch's later proposals see the earlier ones as
//! finished with the worst score so far (the constant liar), so a batch spreads out.
//!
//! Kernels: a continuous axis has a normal truncated to `[0, 1]` at the trial's
//! coordinate, of width `0.2 · n^(-1/(d+4))` for `n` kernels over `d` axes (at least
//! 0.01), and the prior is a normal at 0.5 of width 1; a categorical axis of `k` choices
//! gives the trial's choice `(1 + 1/k) / 2` and the others an equal share of the rest, and
//! the prior `1/k` each. Every kernel has weight 1.

use rand::{Rng as _, SeedableRng};

use crate::seed::Rng;
use crate::stats::special::normal_cdf;

/// The points drawn from the good density for each proposal.
pub const CANDIDATES: usize = 24;

/// One dimension of the cube: what a coordinate holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// A coordinate in `[0, 1)`.
    Continuous,
    /// One of this many choices, as the index `0, 1, ..` in the coordinate.
    Categorical(usize),
}

/// A finished trial: its point and its score (lower is better; a failed trial scores
/// `f64::INFINITY`).
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The point, one coordinate per axis.
    pub u: Vec<f64>,
    /// Its score.
    pub score: f64,
}

/// A Parzen density over the cube: one kernel per point and one prior kernel.
#[derive(Clone, Debug)]
pub struct Parzen<'a> {
    axes: &'a [Dimension],
    points: Vec<&'a [f64]>,
    width: f64,
    /// Each point's log normalising constant over the continuous axes (the log of the
    /// width times `sqrt(2π)` times the kernel's mass inside `[0, 1]`), summed.
    ln_norms: Vec<f64>,
}

/// The log normalising constant of a normal of `width` at `mean` truncated to `[0, 1]`.
fn ln_norm(mean: f64, width: f64) -> f64 {
    let mass = normal_cdf((1.0 - mean) / width) - normal_cdf(-mean / width);
    (width * (2.0 * std::f64::consts::PI).sqrt()).ln() + mass.ln()
}

/// `ln(φ((x - mean) / width) / width)` truncated to `[0, 1]`.
fn ln_truncated_normal(x: f64, mean: f64, width: f64) -> f64 {
    let z = (x - mean) / width;
    -0.5 * z * z - ln_norm(mean, width)
}

/// The share a categorical kernel at choice `center` gives choice `x` of `k`.
fn categorical(x: usize, center: usize, k: usize) -> f64 {
    let own = (1.0 + 1.0 / k as f64) / 2.0;
    if k == 1 {
        1.0
    } else if x == center {
        own
    } else {
        (1.0 - own) / (k - 1) as f64
    }
}

/// `ln(Σ exp(terms))`, computed stably.
fn ln_sum_exp(terms: &[f64]) -> f64 {
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
}

impl<'a> Parzen<'a> {
    /// The density of `points` over `axes`.
    pub fn new(axes: &'a [Dimension], points: Vec<&'a [f64]>) -> Parzen<'a> {
        let n = (points.len() + 1) as f64;
        let width = (0.2 * n.powf(-1.0 / (axes.len() as f64 + 4.0))).max(0.01);
        let ln_norms = points
            .iter()
            .map(|p| {
                let continuous = axes.iter().zip(p.iter()).filter(|(a, _)| **a == Dimension::Continuous);
                continuous.map(|(_, &c)| ln_norm(c, width)).sum()
            })
            .collect();
        Parzen { axes, points, width, ln_norms }
    }

    /// The log-density at `x`: the mean over the kernels (the points' and the prior) of
    /// each kernel's product over the axes.
    pub fn ln_density(&self, x: &[f64]) -> f64 {
        let prior: f64 = self
            .axes
            .iter()
            .zip(x)
            .map(|(axis, &v)| match *axis {
                Dimension::Continuous => ln_truncated_normal(v, 0.5, 1.0),
                Dimension::Categorical(k) => -(k as f64).ln(),
            })
            .sum();
        let mut terms = Vec::with_capacity(self.points.len() + 1);
        terms.push(prior);
        let half_precision = -0.5 / (self.width * self.width);
        for (p, norm) in self.points.iter().zip(&self.ln_norms) {
            let kernel: f64 = self
                .axes
                .iter()
                .zip(x)
                .zip(p.iter())
                .map(|((axis, &v), &c)| match *axis {
                    Dimension::Continuous => half_precision * (v - c) * (v - c),
                    Dimension::Categorical(k) => categorical(v as usize, c as usize, k).ln(),
                })
                .sum();
            terms.push(kernel - norm);
        }
        ln_sum_exp(&terms) - (terms.len() as f64).ln()
    }

    /// A point drawn from the density.
    pub fn draw(&self, rng: &mut Rng) -> Vec<f64> {
        let kernel = rng.random_range(0..=self.points.len());
        let center = (kernel > 0).then(|| self.points[kernel - 1]);
        self.axes
            .iter()
            .enumerate()
            .map(|(j, axis)| match (*axis, center) {
                (Dimension::Continuous, None) => truncated_normal(rng, 0.5, 1.0),
                (Dimension::Continuous, Some(c)) => truncated_normal(rng, c[j], self.width),
                (Dimension::Categorical(k), None) => rng.random_range(0..k) as f64,
                (Dimension::Categorical(k), Some(c)) => {
                    let own = c[j] as usize;
                    let mut r: f64 = rng.random();
                    (0..k)
                        .find(|&x| {
                            r -= categorical(x, own, k);
                            r < 0.0
                        })
                        .unwrap_or(k - 1) as f64
                }
            })
            .collect()
    }
}

/// A normal draw truncated to `[0, 1)` (by rejection: at least a third of the draws land
/// inside for the widths used here).
fn truncated_normal(rng: &mut Rng, mean: f64, width: f64) -> f64 {
    loop {
        // Box–Muller: two uniforms, one normal.
        let (a, b): (f64, f64) = (rng.random(), rng.random());
        let z = (-2.0 * (1.0 - a).ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos();
        let x = mean + width * z;
        if (0.0..1.0).contains(&x) {
            return x;
        }
    }
}

/// How many of `n` finished trials count as good: `ceil(0.1 n)`, between 1 and 25.
pub fn good_count(n: usize) -> usize {
    n.div_ceil(10).clamp(1, 25)
}

/// `batch` proposals from the finished `trials` over `axes`, drawn with a generator seeded
/// by `seed`; a pure function of its arguments (see the module's documentation). The
/// first `k` of them do not depend on `batch`.
pub fn propose(axes: &[Dimension], trials: &[Trial], batch: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut proposer = Proposer::new(axes, trials.to_vec(), seed);
    (0..batch).map(|_| proposer.next_proposal()).collect()
}

/// Proposals one at a time: each is scored by the constant liar (as the worst finished
/// trial) before the next is drawn.
pub struct Proposer<'a> {
    axes: &'a [Dimension],
    seen: Vec<Trial>,
    worst: f64,
    rng: Rng,
}

impl<'a> Proposer<'a> {
    /// A proposer over `axes` from the finished `trials`, its generator seeded by `seed`.
    pub fn new(axes: &'a [Dimension], trials: Vec<Trial>, seed: u64) -> Proposer<'a> {
        let worst = trials.iter().map(|t| t.score).filter(|s| !s.is_nan()).fold(f64::NEG_INFINITY, f64::max);
        Proposer { axes, seen: trials, worst, rng: Rng::seed_from_u64(seed) }
    }

    /// The next proposal: of [`CANDIDATES`] draws from the good trials' density, the one
    /// with the highest ratio of good to bad density.
    pub fn next_proposal(&mut self) -> Vec<f64> {
        let seen = &self.seen;
        // Best first; ties (and NaN, last) in the order the trials finished.
        let mut order: Vec<usize> = (0..seen.len()).collect();
        order.sort_by(|&a, &b| seen[a].score.total_cmp(&seen[b].score).then(a.cmp(&b)));
        let good = good_count(seen.len()).min(seen.len());
        let (best, rest) = order.split_at(good);
        let l = Parzen::new(self.axes, best.iter().map(|&i| seen[i].u.as_slice()).collect());
        let g = Parzen::new(self.axes, rest.iter().map(|&i| seen[i].u.as_slice()).collect());
        let mut chosen: Option<(f64, Vec<f64>)> = None;
        for _ in 0..CANDIDATES {
            let x = l.draw(&mut self.rng);
            let gain = l.ln_density(&x) - g.ln_density(&x);
            if chosen.as_ref().is_none_or(|(top, _)| gain > *top) {
                chosen = Some((gain, x));
            }
        }
        let (_, x) = chosen.expect("at least one candidate");
        let lie = if self.worst.is_finite() { self.worst } else { f64::INFINITY };
        self.seen.push(Trial { u: x.clone(), score: lie });
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The density at fixed points against the formula written out by hand: one axis, two
    /// points, so three kernels (the prior's and the points').
    #[test]
    fn the_log_density_is_the_mixture_written_out() {
        let axes = [Dimension::Continuous];
        let (a, b) = ([0.2], [0.9]);
        let p = Parzen::new(&axes, vec![&a, &b]);
        let width = 0.2 * 3f64.powf(-0.2);
        let phi = |z: f64| (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let kernel = |x: f64, m: f64, w: f64| phi((x - m) / w) / w / (normal_cdf((1.0 - m) / w) - normal_cdf(-m / w));
        for x in [0.0, 0.1, 0.2, 0.55, 0.9, 0.999] {
            let direct = (kernel(x, 0.5, 1.0) + kernel(x, 0.2, width) + kernel(x, 0.9, width)) / 3.0;
            let got = p.ln_density(&[x]);
            assert!((got - direct.ln()).abs() < 1e-12, "x {x}: {got} vs {}", direct.ln());
        }
        // A density: it integrates to 1 over the unit interval (midpoint rule).
        let n = 20_000;
        let total: f64 = (0..n).map(|i| p.ln_density(&[(i as f64 + 0.5) / n as f64]).exp()).sum::<f64>() / n as f64;
        assert!((total - 1.0).abs() < 1e-6, "{total}");
    }

    #[test]
    fn a_categorical_density_sums_to_one_and_favours_its_points() {
        let axes = [Dimension::Categorical(3), Dimension::Continuous];
        let (a, b) = ([2.0, 0.5], [2.0, 0.4]);
        let p = Parzen::new(&axes, vec![&a, &b]);
        let n = 4000;
        let mass: Vec<f64> = (0..3)
            .map(|k| {
                (0..n).map(|i| p.ln_density(&[k as f64, (i as f64 + 0.5) / n as f64]).exp()).sum::<f64>() / n as f64
            })
            .collect();
        assert!((mass.iter().sum::<f64>() - 1.0).abs() < 1e-6, "{mass:?}");
        // Prior 1/3; each point's kernel 2/3 on its choice: (1/3 + 2/3 + 2/3) / 3 = 5/9.
        assert!((mass[2] - 5.0 / 9.0).abs() < 1e-6, "{mass:?}");
        // Draws follow the density.
        let mut rng = Rng::seed_from_u64(1);
        let draws = 30_000;
        let twos = (0..draws).filter(|_| p.draw(&mut rng)[0] == 2.0).count();
        assert!((twos as f64 / draws as f64 - 5.0 / 9.0).abs() < 0.01, "{twos}");
    }

    #[test]
    fn proposals_are_a_function_of_their_arguments() {
        let axes = [Dimension::Continuous, Dimension::Continuous, Dimension::Categorical(4)];
        let trials: Vec<Trial> = (0..30)
            .map(|i| {
                let u = vec![(i as f64 * 0.37) % 1.0, (i as f64 * 0.61) % 1.0, (i % 4) as f64];
                Trial { score: (u[0] - 0.3).powi(2) + (u[1] - 0.7).powi(2), u }
            })
            .collect();
        let a = propose(&axes, &trials, 8, 42);
        assert_eq!(a, propose(&axes, &trials, 8, 42));
        assert_ne!(a, propose(&axes, &trials, 8, 43));
        assert_eq!(a.len(), 8);
        assert!(a.iter().all(|x| (0.0..1.0).contains(&x[0]) && (0.0..1.0).contains(&x[1])));
        assert!(a.iter().all(|x| x[2].fract() == 0.0 && (0.0..4.0).contains(&x[2])));
        // The constant liar spreads a batch: no two proposals coincide.
        for i in 0..a.len() {
            for j in 0..i {
                assert_ne!(a[i], a[j]);
            }
        }
    }

    /// On a bowl with its minimum at (0.3, 0.7), 60 trials (12 random, then batches of 8)
    /// find a lower minimum than 60 random points, in the median over 20 seeds.
    #[test]
    fn it_beats_random_search_on_a_bowl() {
        let axes = [Dimension::Continuous, Dimension::Continuous];
        let f = |u: &[f64]| (u[0] - 0.3).powi(2) + (u[1] - 0.7).powi(2);
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            (v[v.len() / 2 - 1] + v[v.len() / 2]) / 2.0
        };
        let (mut tpe, mut random) = (Vec::new(), Vec::new());
        for seed in 0..20u64 {
            let mut rng = Rng::seed_from_u64(1000 + seed);
            let mut point = || vec![rng.random::<f64>(), rng.random::<f64>()];
            let mut trials: Vec<Trial> = (0..12).map(|_| point()).map(|u| Trial { score: f(&u), u }).collect();
            random.push((0..60).map(|_| f(&point())).fold(f64::INFINITY, f64::min));
            for round in 0..6 {
                for u in propose(&axes, &trials, 8, seed * 100 + round) {
                    trials.push(Trial { score: f(&u), u });
                }
            }
            tpe.push(trials.iter().map(|t| t.score).fold(f64::INFINITY, f64::min));
        }
        let (t, r) = (median(tpe), median(random));
        assert!(t < r, "median best: tpe {t}, random {r}");
    }
}
