//! Every configuration of a block against a baseline, paired by replicate: the mean
//! difference with its 95% paired-t interval, the Wilcoxon signed-rank p-value,
//! Holm-adjusted across the block, rliable's probability of improvement, and a verdict.
//! The statistics themselves are in [`crate::stats::paired`].

use anyhow::{Result, bail};

use super::paired_runs::{Block, Metric};
use crate::stats::paired::{PairedT, Wilcoxon, holm, paired_t, probability_of_improvement, wilcoxon};

/// The level below which a Holm-adjusted p-value separates two configurations.
pub const ALPHA: f64 = 0.05;

/// Which configuration the others are compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    /// The configuration with the best mean metric in each block (ties: the first in spec
    /// order).
    Best,
    /// The configuration whose label is this, or whose columns have these values
    /// (`col=value,col=value`).
    Named(String),
}

impl Baseline {
    /// `best` or anything else as a name.
    pub fn parse(s: &str) -> Baseline {
        if s == "best" { Baseline::Best } else { Baseline::Named(s.to_string()) }
    }

    /// The baseline's index in `block`, none when no configuration of the block matches a
    /// named baseline; an error when several do.
    pub fn find(&self, block: &Block, columns: &[&str], metric: Metric) -> Result<Option<usize>> {
        match self {
            Baseline::Best => Ok(best(block, metric)),
            Baseline::Named(name) => {
                let wanted: Vec<(&str, &str)> = name.split(',').filter_map(|p| p.split_once('=')).collect();
                let matches: Vec<usize> = (0..block.configs.len())
                    .filter(|&i| {
                        let c = &block.configs[i];
                        if wanted.is_empty() {
                            return c.label == *name;
                        }
                        wanted.iter().all(|(col, value)| {
                            *col == "label" && c.label == *value
                                || columns.iter().position(|x| x == col).is_some_and(|k| c.key[k] == *value)
                        })
                    })
                    .collect();
                if matches.len() > 1 {
                    bail!(
                        "--baseline {name} matches {} configurations of {}: name more columns (col=value,col=value)",
                        matches.len(),
                        block.key.join("/")
                    );
                }
                Ok(matches.first().copied())
            }
        }
    }
}

/// The configuration with the best mean (ties: the first), if any has runs.
pub fn best(block: &Block, metric: Metric) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, c) in block.configs.iter().enumerate() {
        let m = c.mean();
        let better = |b: f64| if metric.lower_is_better() { m < b } else { m > b };
        if !m.is_nan() && best.is_none_or(|(_, b)| better(b)) {
            best = Some((i, m));
        }
    }
    best.map(|(i, _)| i)
}

/// One configuration against the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Its index in the block.
    pub config: usize,
    /// Its runs.
    pub runs: usize,
    /// Its mean metric.
    pub mean: f64,
    /// Paired differences (configuration minus baseline) and their t interval.
    pub difference: PairedT,
    /// The signed-rank test of the differences.
    pub wilcoxon: Wilcoxon,
    /// The Wilcoxon p-value, Holm-adjusted across the block (NaN for the baseline).
    pub p_holm: f64,
    /// P(this configuration's run is better than the baseline's).
    pub p_improve: f64,
    /// `baseline`, `better`, `worse` or `indistinguishable`.
    pub verdict: &'static str,
}

/// Every configuration of `block` against the one at `baseline`, in block order.
pub fn compare_block(block: &Block, baseline: usize, metric: Metric) -> Vec<Comparison> {
    let base_runs = block.configs[baseline].runs();
    let base_values: Vec<f64> = base_runs.values().copied().collect();
    let mut out: Vec<Comparison> = block
        .configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let runs = c.runs();
            let d: Vec<f64> = runs.iter().filter_map(|(r, x)| base_runs.get(r).map(|y| x - y)).collect();
            let values: Vec<f64> = runs.values().copied().collect();
            Comparison {
                config: i,
                runs: values.len(),
                mean: c.mean(),
                difference: paired_t(&d),
                wilcoxon: wilcoxon(&d),
                p_holm: f64::NAN,
                p_improve: probability_of_improvement(&values, &base_values, metric.lower_is_better()),
                verdict: "baseline",
            }
        })
        .collect();
    let others: Vec<usize> = (0..out.len()).filter(|&i| i != baseline).collect();
    let adjusted = holm(&others.iter().map(|&i| out[i].wilcoxon.p_value).collect::<Vec<_>>());
    for (&i, p) in others.iter().zip(adjusted) {
        let c = &mut out[i];
        c.p_holm = p;
        let lower = c.difference.mean < 0.0;
        c.verdict = if p.is_nan() || p >= ALPHA || c.difference.mean == 0.0 {
            "indistinguishable"
        } else if lower == metric.lower_is_better() {
            "better"
        } else {
            "worse"
        };
    }
    out
}
