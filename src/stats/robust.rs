//! Robust aggregates of a configuration's runs and their bootstrap intervals, as rliable
//! defines them (Agarwal et al., "Deep Reinforcement Learning at the Edge of the
//! Statistical Precipice", NeurIPS 2021):
//!
//! - the mean, the median (`numpy.median`) and the interquartile mean (IQM, the mean of
//!   the middle half: `scipy.stats.trim_mean(x, 0.25)`, which cuts `floor(n / 4)` runs
//!   from each end);
//! - a stratified percentile bootstrap: each resample draws, within every stratum (a
//!   configuration), as many runs as it has, with replacement; the statistic of the pooled
//!   resample is recorded, and the interval is the 2.5% and 97.5% quantiles of the
//!   recorded values (linear interpolation, numpy's default). The generator is seeded, so
//!   an interval is reproducible. An interval of a quantity that cannot be negative is
//!   clamped at 0.

use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Resamples per bootstrap interval.
pub const RESAMPLES: usize = 2000;

crate::names::named_enum!(
    /// An aggregate of runs.
    Stat, "statistic", {
        /// The arithmetic mean.
        Mean = "mean",
        /// The median.
        Median = "median",
        /// The interquartile mean.
        Iqm = "iqm",
    }
);

impl Stat {
    /// The statistic of `values` (NaN when empty).
    pub fn of(self, values: &[f64]) -> f64 {
        if values.is_empty() {
            return f64::NAN;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        match self {
            Stat::Mean => values.iter().sum::<f64>() / values.len() as f64,
            Stat::Median => quantile(&sorted, 0.5),
            Stat::Iqm => {
                let cut = sorted.len() / 4;
                let middle = &sorted[cut..sorted.len() - cut];
                middle.iter().sum::<f64>() / middle.len() as f64
            }
        }
    }
}

/// The `q`-quantile of sorted `values` by linear interpolation (numpy's default).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (position - below as f64) * (sorted[above] - sorted[below])
}

/// The stratified percentile bootstrap 95% interval of `stat` over `strata` (each a
/// configuration's runs), from `resamples` resamples drawn by a generator seeded with
/// `seed`; clamped at 0 when `non_negative`. NaN when there are no runs.
pub fn bootstrap_interval(
    stat: Stat,
    strata: &[Vec<f64>],
    resamples: usize,
    seed: u64,
    non_negative: bool,
) -> (f64, f64) {
    let total: usize = strata.iter().map(Vec::len).sum();
    if total == 0 || resamples == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut pooled = Vec::with_capacity(total);
    let mut recorded = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        pooled.clear();
        for stratum in strata {
            for _ in 0..stratum.len() {
                let k = ((u64::from(rng.next_u32()) * stratum.len() as u64) >> 32) as usize;
                pooled.push(stratum[k]);
            }
        }
        recorded.push(stat.of(&pooled));
    }
    recorded.sort_by(f64::total_cmp);
    let (low, high) = (quantile(&recorded, 0.025), quantile(&recorded, 0.975));
    if non_negative { (low.max(0.0), high.max(0.0)) } else { (low, high) }
}
