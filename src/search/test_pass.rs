//! Tuning, then test: which jobs of a spec with a `[search]` or a `[test]` run, pass by
//! pass, decided from the results so far.
//!
//! The tuning passes are a search's rungs ([`super::decide`]) or, for a grid, one
//! pass of every tuning job. Once they are all scored, a `[test]` adds one pass: the
//! configurations of the last tuning pass (for a grid, all of them) are ranked by the
//! `[test]` metric, the mean over their tuning replicates at the full budget (lower first;
//! ties by spec order; a configuration with a failed job is never chosen), and the best
//! `top` of each solver entry on each board (or of each board, `per = "game"`, or of the
//! sweep, `per = "sweep"`) run their test replicates: the same parameters on seeds that
//! tuning never uses.
//!
//! Like a search's rungs, the decision is a pure function of the spec and the scores
//! (read at the module's edge, [`Scores::read`]), so an interrupted run resumes to the same
//! files and shards run their share of each pass.

use std::collections::HashMap;

use super::{self as search, Decided};
use crate::job::{Job, Split};
use crate::spec::{Per, Sweep};

/// The scores a decision reads: the search's metric (rungs) and the test's (ranking).
#[derive(Clone, Debug, Default)]
pub struct Scores {
    /// By job id, under the `[search]` ranking (empty without a search).
    pub search: HashMap<String, f64>,
    /// By job id, under the `[test]` ranking (empty without a test).
    pub test: HashMap<String, f64>,
    /// By job id, its rows (against every opponent): a model-based search counts a job
    /// as scored only when it has all of them (empty for the other searches).
    pub rows: HashMap<String, usize>,
}

impl Scores {
    /// Adds another file's scores (a shard's).
    pub fn extend(&mut self, other: Scores) {
        self.search.extend(other.search);
        self.test.extend(other.test);
        self.rows.extend(other.rows);
    }
}

/// The number of tuning passes: a search's rungs, or one.
pub fn tuning_passes(sweep: &Sweep) -> usize {
    match &sweep.search {
        Some(s) if s.method.proposes() => s.rounds() as usize,
        Some(s) => s.budgets().len(),
        None => 1,
    }
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
    if sweep.test.is_none() || !decided.finished {
        return decided;
    }
    let pool = decided.rungs.last().expect("one tuning pass at least").clone();
    add_test(sweep, jobs, scores, &mut decided, &pool);
    decided
}

/// Adds the test pass to a finished tuning decision: the configurations of the tuning
/// jobs `pool` ranked by the `[test]` metric, the best `top` per group, their test jobs
/// (which follow the tuning jobs in `jobs`, `replicates` per configuration in order).
pub fn add_test(sweep: &Sweep, jobs: &[Job], scores: &Scores, decided: &mut Decided, pool: &[usize]) {
    let test = sweep.test.as_ref().expect("a [test]");
    let tune_len = jobs.iter().position(|j| j.split == Split::Test).unwrap_or(jobs.len());
    let firsts = sweep.first_configurations();
    let configuration = |j: &Job| firsts[j.solver] + j.point;
    let mut sums: HashMap<usize, (f64, u32)> = HashMap::new();
    for &j in pool {
        let sum = sums.entry(configuration(&jobs[j])).or_default();
        *sum = (sum.0 + scores.test.get(&jobs[j].id).copied().unwrap_or(f64::INFINITY), sum.1 + 1);
    }
    let ranked = search::rank(
        sums.into_iter().map(|(c, (sum, n))| (sum / f64::from(n), c)).filter(|(mean, _)| mean.is_finite()).collect(),
    );
    let owner = |c: usize| {
        let solver = firsts.iter().rposition(|&f| f <= c).expect("configuration 0 is the first solver's");
        group_of(sweep, test.per, solver, c - firsts[solver])
    };
    let mut taken: HashMap<(usize, String), u32> = HashMap::new();
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
}

/// The group whose best `top` a `[test]` re-runs that point `point` of solver `solver`
/// belongs to, under `per`: (solver entry, board), (-, board) or one for the sweep.
pub fn group_of(sweep: &Sweep, per: Per, solver: usize, point: usize) -> (usize, String) {
    let game = || {
        let columns = sweep.solvers[solver].points[point].columns();
        columns.into_iter().find(|(name, _)| *name == "game").map(|(_, v)| v).unwrap_or_default()
    };
    match per {
        Per::Solver => (solver, game()),
        Per::Game => (usize::MAX, game()),
        Per::Sweep => (0, String::new()),
    }
}

/// The groups of [`group_of`], in order of first appearance, each with its points as
/// (solver, point).
pub fn groups(sweep: &Sweep, per: Per) -> Vec<Vec<(usize, usize)>> {
    let mut keys: Vec<(usize, String)> = Vec::new();
    let mut out: Vec<Vec<(usize, usize)>> = Vec::new();
    for (s, solver) in sweep.solvers.iter().enumerate() {
        for p in 0..solver.points.len() {
            let key = group_of(sweep, per, s, p);
            match keys.iter().position(|k| *k == key) {
                Some(at) => out[at].push((s, p)),
                None => {
                    keys.push(key);
                    out.push(vec![(s, p)]);
                }
            }
        }
    }
    out
}

/// The test jobs a `[test]` runs, as `(configurations, jobs)`: exact for a grid whose
/// jobs all succeed; for a search, an upper bound (which solvers reach the last rung
/// depends on the scores).
pub fn planned(sweep: &Sweep) -> Option<(u64, u64)> {
    let test = sweep.test.as_ref()?;
    let top = u64::from(test.top);
    let mut configurations: u64 = groups(sweep, test.per).iter().map(|g| (g.len() as u64).min(top)).sum();
    if sweep.search.as_ref().is_some_and(|s| !s.method.proposes()) {
        let last = search::planned(sweep).last().map_or(0, |r| r.0 as u64);
        configurations = configurations.min(last);
    }
    Some((configurations, configurations * u64::from(test.replicates)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two solvers (3 and 2 points), 2 tuning replicates, a `[test]` of 3 replicates.
    fn sweep(test: &str) -> Sweep {
        let text = format!(
            "replicates = 2\n[evaluation]\ncheckpoints = 1\n[test]\nreplicates = 3\n{test}\n\
             [[solver]]\nkind = \"q-learning\"\nepisodes = 10\nalpha = [0.1, 0.2, 0.3]\n\
             [[solver]]\nkind = \"sarsa\"\nepisodes = 10\nalpha = [0.1, 0.2]\n"
        );
        crate::spec::parse(&text, "t.toml").unwrap()
    }

    /// Scores every tuning job by `score(configuration)`; test jobs by `test`.
    fn scores(jobs: &[Job], score: impl Fn(usize) -> f64, test: Option<f64>) -> Scores {
        let firsts = [0, 3];
        let mut out = Scores::default();
        for j in jobs {
            let s = match j.split {
                Split::Tune => Some(score(firsts[j.solver] + j.point)),
                Split::Test => test,
            };
            if let Some(s) = s {
                out.test.insert(j.id.clone(), s);
            }
        }
        out
    }

    #[test]
    fn the_best_of_each_solver_run_their_test_jobs_ties_by_spec_order() {
        let sweep = sweep("top = 1");
        let jobs = sweep.jobs();
        assert_eq!(jobs.len(), 5 * 2 + 5 * 3);
        // Nothing scored: the tuning pass only.
        let none = decide(&sweep, &jobs, &Scores::default());
        assert_eq!((none.rungs.len(), none.finished), (1, false));
        // Configuration 1 fails (+inf); 0 and 2 tie (0 first); 4 beats 3.
        let score = |c: usize| [0.5, f64::INFINITY, 0.5, 0.9, 0.1][c];
        let decided = decide(&sweep, &jobs, &scores(&jobs, score, None));
        assert!(!decided.finished);
        assert_eq!(decided.configurations[1], [0, 4]);
        let tested: Vec<&Job> = decided.rungs[1].iter().map(|&j| &jobs[j]).collect();
        assert_eq!(tested.len(), 6);
        for (k, job) in tested.iter().enumerate() {
            let (solver, point) = if k < 3 { (0, 0) } else { (1, 1) };
            assert_eq!((job.split, job.solver, job.point, job.replicate), (Split::Test, solver, point, k as u32 % 3));
        }
        assert!(decide(&sweep, &jobs, &scores(&jobs, score, Some(0.0))).finished);
        // Over the sweep: the best two, whoever owns them.
        let sweep = self::sweep("top = 2\nper = \"sweep\"");
        let decided = decide(&sweep, &jobs, &scores(&jobs, score, None));
        assert_eq!(decided.configurations[1], [0, 4]);
        let decided = decide(&sweep, &jobs, &scores(&jobs, |c| c as f64, None));
        assert_eq!(decided.configurations[1], [0, 1]);
    }

    #[test]
    fn each_board_of_a_solver_entry_gets_its_own_test() {
        // One entry on two boards, two step sizes: the best of each board is tested.
        let text = "replicates = 2\n[evaluation]\ncheckpoints = 1\n[test]\nreplicates = 3\n\
                    [[solver]]\nkind = \"q-learning\"\nepisodes = 10\nalpha = [0.1, 0.2]\n\
                    game = [\"3x3k3\", \"3x4k3\"]\n\
                    [[solver]]\nkind = \"sarsa\"\nepisodes = 10\nalpha = [0.1, 0.2]\ngame = \"3x4k3\"\n";
        let sweep = crate::spec::parse(text, "t.toml").unwrap();
        let jobs = sweep.jobs();
        let game = |c: usize| {
            let (s, p) = if c < 4 { (0, c) } else { (1, c - 4) };
            sweep.solvers[s].points[p].columns().into_iter().find(|(n, _)| *n == "game").unwrap().1
        };
        // Scores: configuration c scores c (so the first of each group wins).
        let mut scores = Scores::default();
        let firsts = [0, 4];
        for j in &jobs {
            if j.split == Split::Tune {
                scores.test.insert(j.id.clone(), (firsts[j.solver] + j.point) as f64);
            }
        }
        let chosen = &decide(&sweep, &jobs, &scores).configurations[1];
        let boards: Vec<(usize, String)> = chosen.iter().map(|&c| (usize::from(c >= 4), game(c))).collect();
        assert_eq!(chosen.len(), 3, "{boards:?}");
        let mut seen = boards.clone();
        seen.dedup();
        assert_eq!(seen.len(), 3, "one per (entry, board): {boards:?}");
        assert_eq!(planned(&sweep), Some((3, 9)));
        // per = "game": the best of each board, whichever entry.
        let text = text.replace("replicates = 3\n", "replicates = 3\nper = \"game\"\n");
        let sweep = crate::spec::parse(&text, "t.toml").unwrap();
        let chosen = &decide(&sweep, &jobs, &scores).configurations[1];
        assert_eq!(chosen.len(), 2);
        assert_ne!(game(chosen[0]), game(chosen[1]));
        assert_eq!(planned(&sweep), Some((2, 6)));
    }
}
