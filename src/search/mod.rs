//! Successive halving and Hyperband: which of a searched spec's jobs run, decided rung by
//! rung from the results so far.
//!
//! A configuration is a grid point of a solver (its budget parameter aside), in spec
//! order. [`crate::spec::Sweep::jobs`] lists every configuration at every rung's budget;
//! [`decide`] picks the jobs a search runs. Rung by rung, every surviving configuration
//! runs all its replicates at the rung's budget; within each bracket, the best
//! `max(1, floor(n / eta))` of its `n` configurations (by the mean of the metric over
//! replicates, lower first; a failed job counts as +inf; ties by spec order) go on to the
//! next rung. The brackets are the method's ([`crate::spec::SearchMethod::brackets`]):
//! successive halving is one bracket that starts at rung 0 with every configuration;
//! Hyperband has one bracket per rung it may start at, the configurations shared out among
//! them by a fixed rule, each in exactly one (`spec/search/hyperband.rs`).
//!
//! Decisions are a pure function of the spec and the scores: not of thread counts,
//! shards, order of completion or interruptions. This module reads no file: the scores
//! come from the results file through its edge, `search/scores.rs`. [`survivors`] and [`rank`]
//! are the one cut and the one ranking, which `[test]`'s choice ([`test_pass`]) uses
//! too. [`tpe`] is the multivariate Parzen estimator for model-based proposals, a pure
//! function of the finished trials and a seed; [`rounds`] runs the methods that search a
//! space (round by round for TPE, rung by rung for BOHB).

pub mod rounds;
mod scores;
pub mod test_pass;
pub mod tpe;

pub use scores::{read_metric, read_scores};

use crate::job::Job;
use crate::spec::{SearchSpec, Sweep};

/// A configuration's jobs within one rung: the offset of its first job and its replicates.
#[derive(Clone, Copy, Debug)]
struct Configuration {
    offset: usize,
    replicates: usize,
}

/// What the results so far decide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    /// For each rung decided so far, the indices (into [`Sweep::jobs`]) of its jobs.
    pub rungs: Vec<Vec<usize>>,
    /// For each rung decided so far, its configurations (spec order).
    pub configurations: Vec<Vec<usize>>,
    /// Whether every rung is decided and every job of the last has a score.
    pub finished: bool,
}

impl Decided {
    /// Every decided job index, rung by rung.
    pub fn jobs(&self) -> impl Iterator<Item = usize> + '_ {
        self.rungs.iter().flatten().copied()
    }
}

fn configurations(sweep: &Sweep) -> Vec<Configuration> {
    let mut offset = 0;
    let mut out = Vec::new();
    for solver in &sweep.solvers {
        let replicates = solver.replicates as usize;
        for _ in &solver.points {
            out.push(Configuration { offset, replicates });
            offset += replicates;
        }
    }
    out
}

/// How many of a rung's `n` configurations go on: the best `max(1, floor(n / eta))`.
pub fn survivors(n: usize, eta: u64) -> usize {
    (n / eta as usize).max(1)
}

/// `(score, configuration)` pairs best first: lower scores first, ties by configuration
/// (spec order). The one ranking of the searches and of `[test]`'s choice.
pub fn rank(mut scored: Vec<(f64, usize)>) -> Vec<(f64, usize)> {
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    scored
}

/// The jobs of a searched `sweep` (whose [`Sweep::jobs`] are `jobs`) that the scores
/// decide: every rung up to the first whose jobs are not all scored. `score` gives a
/// finished job's metric by id (`None`: not finished).
pub fn decide(sweep: &Sweep, jobs: &[Job], score: impl Fn(&str) -> Option<f64>) -> Decided {
    let search = sweep.search.as_ref().expect("a searched spec");
    let configs = configurations(sweep);
    let rungs = search.budgets().len();
    let per_rung = jobs.len() / rungs;
    let mut brackets = search.brackets(configs.len());
    let mut decided = Decided { rungs: Vec::new(), configurations: Vec::new(), finished: false };
    for rung in 0..rungs {
        let mut running: Vec<usize> =
            brackets.iter().filter(|b| b.start <= rung).flat_map(|b| b.configurations.iter().copied()).collect();
        running.sort_unstable();
        let indices = |c: usize| {
            let config = configs[c];
            (0..config.replicates).map(move |r| rung * per_rung + config.offset + r)
        };
        let rung_jobs: Vec<usize> = running.iter().flat_map(|&c| indices(c)).collect();
        let scores: Vec<Option<f64>> = rung_jobs.iter().map(|&j| score(&jobs[j].id)).collect();
        let complete = scores.iter().all(Option::is_some);
        decided.rungs.push(rung_jobs);
        decided.configurations.push(running);
        if rung + 1 == rungs || !complete {
            decided.finished = complete && rung + 1 == rungs;
            break;
        }
        let mean = |c: usize| {
            let values: Vec<f64> = indices(c).map(|j| score(&jobs[j].id).unwrap_or(f64::INFINITY)).collect();
            values.iter().sum::<f64>() / values.len() as f64
        };
        for bracket in brackets.iter_mut().filter(|b| b.start <= rung) {
            let keep = survivors(bracket.configurations.len(), search.eta);
            let ranked = rank(bracket.configurations.iter().map(|&c| (mean(c), c)).collect());
            bracket.configurations = ranked.into_iter().take(keep).map(|(_, c)| c).collect();
            bracket.configurations.sort_unstable();
        }
    }
    decided
}

/// Planned rungs, as `(configurations, budget, jobs)`, assuming no job fails (the counts
/// do not depend on the scores).
pub fn planned(sweep: &Sweep) -> Vec<(usize, u64, u64)> {
    let search = sweep.search.as_ref().expect("a searched spec");
    let configs = configurations(sweep);
    let mut brackets = search.brackets(configs.len());
    let mut out = Vec::new();
    for (rung, budget) in search.budgets().into_iter().enumerate() {
        let running: Vec<usize> =
            brackets.iter().filter(|b| b.start <= rung).flat_map(|b| b.configurations.iter().copied()).collect();
        let jobs = running.iter().map(|&c| configs[c].replicates as u64).sum();
        out.push((running.len(), budget, jobs));
        for bracket in brackets.iter_mut().filter(|b| b.start <= rung) {
            let keep = survivors(bracket.configurations.len(), search.eta);
            bracket.configurations.truncate(keep);
        }
    }
    out
}

/// Hyperband's brackets as planned: per bracket, its first rung and, rung by rung from
/// there, `(configurations, budget)`.
pub fn planned_brackets(sweep: &Sweep) -> Vec<(usize, Vec<(usize, u64)>)> {
    let search: &SearchSpec = sweep.search.as_ref().expect("a searched spec");
    let budgets = search.budgets();
    search
        .brackets(configurations(sweep).len())
        .into_iter()
        .map(|b| {
            let mut n = b.configurations.len();
            let mut rungs = Vec::new();
            for &budget in &budgets[b.start..] {
                rungs.push((n, budget));
                n = survivors(n, search.eta);
            }
            (b.start, rungs)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(method: &str, eta: u64, alphas: usize, replicates: u32) -> Sweep {
        let alphas: Vec<String> = (1..=alphas).map(|a| format!("{}", a as f64 / 100.0)).collect();
        let text = format!(
            "replicates = {replicates}\n[evaluation]\ncheckpoints = 1\n[search]\nmethod = \"{method}\"\neta = {eta}\n\
             min_budget = 10\nmax_budget = 270\n[[solver]]\nkind = \"q-learning\"\nalpha = [{}]\n",
            alphas.join(", ")
        );
        crate::spec::parse(&text, "search.toml").unwrap()
    }

    #[test]
    fn the_cut_keeps_at_least_one_and_the_ranking_breaks_ties_by_spec_order() {
        assert_eq!(
            [survivors(0, 3), survivors(2, 3), survivors(3, 3), survivors(8, 3), survivors(9, 3)],
            [1, 1, 1, 2, 3]
        );
        let ranked = rank(vec![(0.5, 2), (f64::INFINITY, 0), (0.1, 3), (0.5, 1)]);
        assert_eq!(ranked.iter().map(|r| r.1).collect::<Vec<_>>(), [3, 1, 2, 0]);
    }

    #[test]
    fn budgets_run_down_from_the_maximum_by_eta() {
        let s = sweep("halving", 3, 2, 1).search.unwrap();
        assert_eq!(s.budgets(), [10, 30, 90, 270]);
        let odd = SearchSpec { min_budget: 7, max_budget: 100, eta: 2, ..s.clone() };
        assert_eq!(odd.budgets(), [13, 25, 50, 100]);
        let one = SearchSpec { eta: 1000, ..s };
        assert_eq!(one.budgets(), [270]);
    }

    #[test]
    fn the_best_share_goes_on_ties_by_spec_order() {
        let sweep = sweep("halving", 3, 9, 2);
        let jobs = sweep.jobs();
        assert_eq!(jobs.len(), 9 * 2 * 4);
        // Configuration c scores |c - 4| on replicate 0 and 0 on replicate 1: 4 best, then
        // 3 and 5 (tied; 3 first in spec order).
        let score = |id: &str| {
            let j = jobs.iter().find(|j| j.id == id).unwrap();
            Some(if j.replicate == 0 { (j.point as f64 - 4.0).abs() } else { 0.0 })
        };
        let decided = decide(&sweep, &jobs, score);
        assert!(decided.finished);
        assert_eq!(decided.configurations, [(0..9).collect::<Vec<_>>(), vec![3, 4, 5], vec![4], vec![4]]);
        assert_eq!(decided.rungs[1], [24, 25, 26, 27, 28, 29]);
        assert!(
            decided
                .jobs()
                .all(|j| jobs[j].rung == Some(decided.rungs.iter().position(|r| r.contains(&j)).unwrap() as u32))
        );
        let planned: Vec<usize> = planned(&sweep).iter().map(|p| p.0).collect();
        assert_eq!(planned, [9, 3, 1, 1]);
        // Nothing scored yet: only rung 0 is decided.
        let none = decide(&sweep, &jobs, |_| None);
        assert_eq!((none.rungs.len(), none.finished), (1, false));
    }

    #[test]
    fn hyperband_shares_every_configuration_out_once() {
        let sweep = sweep("hyperband", 3, 40, 1);
        let search = sweep.search.as_ref().unwrap();
        let brackets = search.brackets(40);
        let starts: Vec<usize> = brackets.iter().map(|b| b.start).collect();
        assert_eq!(starts, [0, 1, 2, 3]);
        let mut all: Vec<usize> = brackets.iter().flat_map(|b| b.configurations.clone()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..40).collect::<Vec<_>>());
        // Hyperband's nominal sizes 27, 12, 6, 4: the first bracket gets the most.
        assert!(brackets[0].configurations.len() > brackets[3].configurations.len());
        let planned = planned(&sweep);
        assert_eq!(planned.last().unwrap().1, 270);
    }
}
