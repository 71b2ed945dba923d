//! Tuning, then test: which jobs of a spec with a `[search]` or a `[test]` run, pass by
//! pass, decided from the results so far.
//!
//! The tuning passes are a search's rungs ([`crate::search::decide`]) or, for a grid, one
//! pass of every tuning job. Once they are all scored, a `[test]` adds one pass: the
//! configurations of the last tuning pass (for a grid, all of them) are ranked by the
//! `[test]` metric, the mean over their tuning replicates at the full budget (lower first;
//! ties by spec order; a configuration with a failed job is never chosen), and the best
//! `top` of each solver entry (or of the sweep, `per = "sweep"`) run their test
//! replicates: the same parameters on seeds that tuning never uses.
//!
//! Like a search's rungs, the decision is a pure function of the spec and the scores, so
//! an interrupted run resumes to the same files and shards run their share of each pass.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;

use crate::search::{self, Decided, read_metric, read_scores};
use crate::spec::{Job, Per, Split, Sweep};

/// The scores a decision reads: the search's metric (rungs) and the test's (ranking).
#[derive(Debug, Default)]
pub struct Scores {
    /// By job id, under the `[search]` ranking (empty without a search).
    pub search: HashMap<String, f64>,
    /// By job id, under the `[test]` ranking (empty without a test).
    pub test: HashMap<String, f64>,
}

impl Scores {
    /// Reads both from the results file `path` (empty when it does not exist).
    pub fn read(path: &Path, sweep: &Sweep) -> Result<Scores> {
        let search = match &sweep.search {
            Some(search) => read_scores(path, search)?,
            None => HashMap::new(),
        };
        let test = match &sweep.test {
            Some(t) => read_metric(path, t.metric, t.opponent, t.seat)?,
            None => HashMap::new(),
        };
        Ok(Scores { search, test })
    }

    /// Adds another file's scores (a shard's).
    pub fn extend(&mut self, other: Scores) {
        self.search.extend(other.search);
        self.test.extend(other.test);
    }
}

/// The number of tuning passes: a search's rungs, or one.
pub fn tuning_passes(sweep: &Sweep) -> usize {
    sweep.search.as_ref().map_or(1, |s| s.budgets().len())
}

/// The passes the scores decide for `sweep` (whose [`Sweep::jobs`] are `jobs`): every
/// tuning pass up to the first not fully scored, then, with a `[test]` and once tuning is
/// finished, the test pass (the last entry of `rungs`, its chosen configurations the last
/// entry of `configurations`).
pub fn decide(sweep: &Sweep, jobs: &[Job], scores: &Scores) -> Decided {
    let tune_len = jobs.iter().position(|j| j.split == Split::Test).unwrap_or(jobs.len());
    let configurations: usize = sweep.solvers.iter().map(|s| s.points.len()).sum();
    let mut decided = match &sweep.search {
        Some(_) => search::decide(sweep, &jobs[..tune_len], |id| scores.search.get(id).copied()),
        None => {
            let all: Vec<usize> = (0..tune_len).collect();
            let finished = jobs[..tune_len].iter().all(|j| scores.test.contains_key(&j.id));
            Decided { rungs: vec![all], configurations: vec![(0..configurations).collect()], finished }
        }
    };
    let Some(test) = &sweep.test else { return decided };
    if !decided.finished {
        return decided;
    }
    let firsts: Vec<usize> = sweep
        .solvers
        .iter()
        .scan(0, |first, s| {
            let this = *first;
            *first += s.points.len();
            Some(this)
        })
        .collect();
    let configuration = |j: &Job| firsts[j.solver] + j.point;
    let mut sums: HashMap<usize, (f64, u32)> = HashMap::new();
    for &j in decided.rungs.last().expect("one tuning pass at least") {
        let sum = sums.entry(configuration(&jobs[j])).or_default();
        *sum = (sum.0 + scores.test.get(&jobs[j].id).copied().unwrap_or(f64::INFINITY), sum.1 + 1);
    }
    let mut ranked: Vec<(f64, usize)> =
        sums.into_iter().map(|(c, (sum, n))| (sum / f64::from(n), c)).filter(|(mean, _)| mean.is_finite()).collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let owner = |c: usize| match test.per {
        Per::Solver => firsts.iter().rposition(|&f| f <= c).expect("configuration 0 is the first solver's"),
        Per::Sweep => 0,
    };
    let mut taken: HashMap<usize, u32> = HashMap::new();
    let mut chosen: Vec<usize> = Vec::new();
    for (_, c) in ranked {
        let count = taken.entry(owner(c)).or_default();
        if *count < test.top {
            *count += 1;
            chosen.push(c);
        }
    }
    chosen.sort_unstable();
    let n = test.replicates as usize;
    let pass: Vec<usize> = chosen.iter().flat_map(|&c| (0..n).map(move |r| tune_len + c * n + r)).collect();
    decided.finished = pass.iter().all(|&j| scores.test.contains_key(&jobs[j].id));
    decided.rungs.push(pass);
    decided.configurations.push(chosen);
    decided
}

/// The test jobs a `[test]` runs, as `(configurations, jobs)`: exact for a grid whose
/// jobs all succeed; for a search, an upper bound (which solvers reach the last rung
/// depends on the scores).
pub fn planned(sweep: &Sweep) -> Option<(u64, u64)> {
    let test = sweep.test.as_ref()?;
    let top = u64::from(test.top);
    let points = sweep.solvers.iter().map(|s| s.points.len() as u64);
    let mut configurations = match test.per {
        Per::Solver => points.map(|n| n.min(top)).sum(),
        Per::Sweep => points.sum::<u64>().min(top),
    };
    if sweep.search.is_some() {
        let last = search::planned(sweep).last().map_or(0, |r| r.0 as u64);
        configurations = configurations.min(last);
    }
    Some((configurations, configurations * u64::from(test.replicates)))
}
