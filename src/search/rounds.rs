//! A model-based search (`[search] method = "tpe"`): which trials run, round by round,
//! decided from the scores of the rounds before.
//!
//! Each solver has its own search over its searched axes (sampled axes, and listed axes
//! as `choice`s): `trials` configurations in all. Round 0 holds the first `startup` points
//! of the solver's scrambled Sobol sequence (the same draw as `samples = startup,
//! sampler = "sobol"`, repeats dropped). Every later round proposes `min(batch, trials
//! left)` configurations with [`super::tpe::propose`] from every finished trial of the
//! earlier rounds, by a generator seeded with the master seed, the solver's label and the
//! round. A trial's score is the `[search]` metric's mean over its replicates (a failed
//! job scores +inf, the worst); a finished trial enters the estimator at the position of
//! its values on each axis ([`crate::spec::Sweep::searched_axes`]). A proposal that
//! repeats a configuration of the sweep (after rounding) is passed over for the next one
//! the estimator gives, at most [`ATTEMPTS`] times the round's size; a round that finds no
//! new configuration ends the search early.
//!
//! So the trials are a pure function of the spec and the finished rows: not of the
//! thread count, the order jobs finish in, interruptions or shards. A round is decided
//! once every job of the one before is scored; a larger `trials` (`--extend`) decides the
//! same rounds and goes on (the proposals of a round are a sequence whose first ones do
//! not depend on how many are asked for).
//!
//! Jobs are listed round by round (within a round: solver, trial, replicate), so a job's
//! index never changes as rounds are added; then the `[test]` jobs of every trial.

use std::collections::HashSet;

use super::Decided;
use super::test_split::{Scores, add_test};
use super::tpe::{Axis, Proposer, Trial};
use crate::kinds::Val;
use crate::seed::{fnv1a, mix};
use crate::spec::{Job, Split, Sweep};

/// How many proposals a round may pass over, per configuration it needs.
pub const ATTEMPTS: usize = 10;

/// One solver's trial: its values on the searched axes and the round it ran in.
#[derive(Clone, Debug, PartialEq)]
pub struct TrialPoint {
    /// One value per searched axis.
    pub values: Vec<Val>,
    /// The round that proposed it.
    pub round: u32,
}

/// What the scores decide for a model-based search.
pub struct Rounds {
    /// The sweep with every decided trial as a point of its solver, in trial order.
    pub sweep: Sweep,
    /// The tuning jobs round by round, then the `[test]` jobs of every trial.
    pub jobs: Vec<Job>,
    /// Per pass (each round, then the test), its jobs (indices into `jobs`) and its
    /// configurations (a solver's first configuration plus the trial).
    pub decided: Decided,
    /// Each solver's trials, in order.
    pub trials: Vec<Vec<TrialPoint>>,
    /// Whether no pass will follow the last decided one.
    pub last_pass: bool,
    /// Whether every round is decided and scored (the test pass, if any, follows).
    pub tuned: bool,
    /// Each solver's scored trials, as `(trial, score)` (+inf for a failed one).
    pub scores: Vec<Vec<(usize, f64)>>,
}

/// The seed of round `round`'s proposals for the solver labelled `label`.
pub fn round_seed(master: u64, label: &str, round: u32) -> u64 {
    mix(master, fnv1a(format!("tpe/{label}/{round}").as_bytes()))
}

/// The number of rounds a search has when no proposal repeats: round 0, then one per
/// `batch` of the trials left.
pub fn planned_rounds(trials: u64, startup: u64, batch: u64) -> u64 {
    1 + (trials - startup.min(trials)).div_ceil(batch)
}

/// Decides the rounds of the model-based search `sweep` (as loaded: its points are round
/// 0's) from `scores`: every round up to the first not fully scored, then the test pass
/// once the last round is scored.
pub fn decide(sweep: &Sweep, scores: &Scores) -> Rounds {
    let search = sweep.search.as_ref().expect("a searched spec");
    let wanted = search.trials as usize;
    let rows_per_job = |j: &Job| j.params.eval_seats().len() * sweep.evaluation.opponents.len();
    let score = |j: &Job| {
        let complete = scores.rows.get(&j.id).is_some_and(|&n| n == rows_per_job(j));
        complete.then(|| scores.search.get(&j.id).copied().unwrap_or(f64::INFINITY))
    };
    let solvers = sweep.solvers.len();
    let mut trials: Vec<Vec<TrialPoint>> = (0..solvers)
        .map(|s| {
            let mut points: Vec<TrialPoint> = (0..sweep.solvers[s].points.len())
                .map(|p| TrialPoint { values: sweep.searched_values(s, p), round: 0 })
                .collect();
            points.truncate(wanted);
            points
        })
        .collect();
    let mut seen: HashSet<String> =
        sweep.solvers.iter().flat_map(|s| &s.points).map(|p| p.canonical_key(sweep.seed, 0)).collect();
    let firsts: Vec<usize> = (0..solvers).map(|s| s * wanted).collect();
    let mut jobs: Vec<Job> = Vec::new();
    let mut decided = Decided { rungs: Vec::new(), configurations: Vec::new(), finished: false };
    let mut trial_scores: Vec<Vec<(usize, f64)>> = vec![Vec::new(); solvers];
    let mut round = 0u32;
    let last_pass = loop {
        // The jobs of this round.
        let of_round: Vec<Vec<Vec<Val>>> =
            trials.iter().map(|t| t.iter().filter(|p| p.round == round).map(|p| p.values.clone()).collect()).collect();
        let starts: Vec<usize> = trials.iter().map(|t| t.iter().position(|p| p.round == round).unwrap_or(0)).collect();
        let offset = jobs.len();
        let mut configurations = Vec::new();
        for mut job in sweep.with_trials(&of_round).jobs().into_iter().filter(|j| j.split == Split::Tune) {
            let trial = starts[job.solver] + job.point;
            (job.index, job.point, job.trial) = (jobs.len(), trial, Some((trial as u32, round)));
            if job.replicate == 0 {
                configurations.push(firsts[job.solver] + trial);
            }
            jobs.push(job);
        }
        decided.rungs.push((offset..jobs.len()).collect());
        decided.configurations.push(configurations);
        // Its scores.
        let round_scores: Vec<Option<f64>> = jobs[offset..].iter().map(score).collect();
        if round_scores.iter().any(Option::is_none) {
            let done = trials.iter().all(|t| t.len() == wanted);
            break done && sweep.test.is_none();
        }
        let mut sums: Vec<Vec<(f64, u32)>> = trials.iter().map(|t| vec![(0.0, 0); t.len()]).collect();
        for (job, s) in jobs[offset..].iter().zip(&round_scores) {
            let sum = &mut sums[job.solver][job.point];
            *sum = (sum.0 + s.expect("scored"), sum.1 + 1);
        }
        for (s, solver_sums) in sums.iter().enumerate() {
            for (t, &(sum, n)) in solver_sums.iter().enumerate() {
                if n > 0 {
                    trial_scores[s].push((t, sum / f64::from(n)));
                }
            }
        }
        // The next round's proposals.
        let mut proposed = false;
        for s in 0..solvers {
            let want = wanted - trials[s].len();
            let want = want.min(search.batch as usize);
            if want == 0 {
                continue;
            }
            let axes_spec = sweep.searched_axes(s);
            let axes: Vec<Axis> =
                axes_spec.iter().map(|(_, d)| d.choices().map_or(Axis::Continuous, Axis::Categorical)).collect();
            let finished: Vec<Trial> = trial_scores[s]
                .iter()
                .map(|&(t, score)| Trial {
                    u: axes_spec.iter().zip(&trials[s][t].values).map(|((_, d), v)| d.position(*v)).collect(),
                    score,
                })
                .collect();
            let mut proposer =
                Proposer::new(&axes, finished, round_seed(sweep.seed, &sweep.solvers[s].label, round + 1));
            let mut found = 0;
            for _ in 0..want * ATTEMPTS {
                let x = proposer.next_proposal();
                let values: Vec<Val> = axes_spec.iter().zip(&x).map(|((_, d), &x)| d.at_position(x)).collect();
                let probe = sweep.with_trials(&one_point(solvers, s, values.clone()));
                let key = probe.solvers[s].points[0].canonical_key(sweep.seed, 0);
                if seen.insert(key) {
                    trials[s].push(TrialPoint { values, round: round + 1 });
                    found += 1;
                    if found == want {
                        break;
                    }
                }
            }
            proposed |= found > 0;
        }
        if !proposed {
            decided.finished = true;
            break sweep.test.is_none();
        }
        round += 1;
    };
    let full =
        sweep.with_trials(&trials.iter().map(|t| t.iter().map(|p| p.values.clone()).collect()).collect::<Vec<_>>());
    let tune_len = jobs.len();
    let mut test_jobs: Vec<Job> = Vec::new();
    if sweep.test.is_some() {
        // Test jobs in (solver, trial, replicate) order, as `[test]` indexes them.
        let mut all = full.jobs();
        all.retain(|j| j.split == Split::Test);
        for (k, mut job) in all.into_iter().enumerate() {
            job.index = tune_len + k;
            test_jobs.push(job);
        }
    }
    // The test ranks configurations by solver's first + trial: renumber to the full sweep's.
    let full_firsts: Vec<usize> = full
        .solvers
        .iter()
        .scan(0, |first, s| {
            let this = *first;
            *first += s.points.len();
            Some(this)
        })
        .collect();
    for configurations in &mut decided.configurations {
        for c in configurations.iter_mut() {
            let (s, t) = (*c / wanted, *c % wanted);
            *c = full_firsts[s] + t;
        }
    }
    jobs.extend(test_jobs);
    let mut last_pass = last_pass;
    let tuned = decided.finished;
    if tuned && sweep.test.is_some() {
        let pool: Vec<usize> = (0..tune_len).collect();
        add_test(&full, &jobs, scores, &mut decided, &pool);
        last_pass = true;
    }
    Rounds { sweep: full, jobs, decided, trials, last_pass, tuned, scores: trial_scores }
}

/// Per solver, no point but `values` for solver `s`.
fn one_point(solvers: usize, s: usize, values: Vec<Val>) -> Vec<Vec<Vec<Val>>> {
    let mut out = vec![Vec::new(); solvers];
    out[s].push(values);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(extra: &str) -> Sweep {
        let text = format!(
            "replicates = 2\nseed = 5\n[evaluation]\ncheckpoints = 1\n[search]\nmethod = \"tpe\"\ntrials = 20\n\
             batch = 4\nstartup = 8\n{extra}\n[[solver]]\nkind = \"q-learning\"\nepisodes = 50\n\
             alpha = {{ loguniform = [0.01, 1.0] }}\ngamma = [0.9, 0.99]\n"
        );
        crate::spec::parse(&text, "tpe.toml").unwrap()
    }

    /// Scores every job of `rounds` by a bowl over alpha's position, gamma 0.99 better.
    fn score_all(rounds: &Rounds, scores: &mut Scores) {
        for j in &rounds.jobs {
            let values = rounds.sweep.searched_values(j.solver, j.point);
            let (Val::Real(alpha), Val::Real(gamma)) = (values[0], values[1]) else { panic!("{values:?}") };
            let score = (alpha.ln() - 0.1f64.ln()).powi(2) + if gamma > 0.95 { 0.0 } else { 1.0 };
            scores.search.insert(j.id.clone(), score);
            scores.rows.insert(j.id.clone(), 1);
        }
    }

    #[test]
    fn rounds_follow_the_scores_and_stay_put_as_they_grow() {
        let sweep = sweep("");
        let mut scores = Scores::default();
        let first = decide(&sweep, &scores);
        // Round 0: the startup Sobol points, the same draw as samples = 8 by sobol.
        assert_eq!(first.decided.rungs.len(), 1);
        assert_eq!(first.trials[0].len(), 8);
        assert_eq!(first.jobs.len(), 16);
        assert!(!first.last_pass);
        let mut rounds = first;
        let mut passes = vec![rounds.jobs.iter().map(|j| j.id.clone()).collect::<Vec<_>>()];
        while !rounds.decided.finished {
            score_all(&rounds, &mut scores);
            rounds = decide(&sweep, &scores);
            passes.push(rounds.jobs.iter().map(|j| j.id.clone()).collect());
        }
        // 8, then 4, 4, 4: 20 trials in 4 rounds, each pass a prefix of the next.
        assert_eq!(rounds.trials[0].len(), 20);
        assert_eq!(rounds.decided.rungs.len(), 4);
        assert_eq!(rounds.trials[0].iter().map(|t| t.round).max(), Some(3));
        for pair in passes.windows(2) {
            assert!(pair[1].starts_with(&pair[0]));
        }
        assert!(rounds.jobs.iter().enumerate().all(|(i, j)| j.index == i));
        let ids: HashSet<&str> = rounds.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids.len(), rounds.jobs.len(), "no two trials share a configuration");
        // The same scores decide the same rounds.
        let again = decide(&sweep, &scores);
        assert_eq!(again.jobs, rounds.jobs);
        // More trials: the same 20 first, then more.
        let more = crate::spec::parse(&sweep_text("").replace("trials = 20", "trials = 24"), "tpe.toml").unwrap();
        let extended = decide(&more, &scores);
        let old: Vec<&str> = rounds.jobs.iter().map(|j| j.id.as_str()).collect();
        let new: Vec<&str> = extended.jobs.iter().map(|j| j.id.as_str()).collect();
        assert!(new.starts_with(&old));
        assert_eq!(extended.trials[0].len(), 24);
    }

    fn sweep_text(extra: &str) -> String {
        format!(
            "replicates = 2\nseed = 5\n[evaluation]\ncheckpoints = 1\n[search]\nmethod = \"tpe\"\ntrials = 20\n\
             batch = 4\nstartup = 8\n{extra}\n[[solver]]\nkind = \"q-learning\"\nepisodes = 50\n\
             alpha = {{ loguniform = [0.01, 1.0] }}\ngamma = [0.9, 0.99]\n"
        )
    }

    #[test]
    fn the_startup_is_the_sobol_sampler_s_draw() {
        let sweep = sweep("");
        let text = "replicates = 2\nseed = 5\n[evaluation]\ncheckpoints = 1\n[[solver]]\nkind = \"q-learning\"\n\
                    episodes = 50\nsamples = 8\nsampler = \"sobol\"\nalpha = { loguniform = [0.01, 1.0] }\n\
                    gamma = { choice = [0.9, 0.99] }\n";
        let sampled = crate::spec::parse(text, "s.toml").unwrap();
        let ids = |s: &Sweep| s.jobs().into_iter().map(|j| j.id).collect::<Vec<_>>();
        assert_eq!(ids(&sweep), ids(&sampled));
    }

    #[test]
    fn positions_invert_the_draws() {
        use crate::spec::sample::Dist;
        let dists = [
            Dist::Uniform(0.5, 1.0),
            Dist::LogUniform(0.02, 1.0),
            Dist::OneMinusLogUniform(-3.0, -1.0),
            Dist::IntUniform(3, 17),
            Dist::IntLogUniform(1, 400),
            Dist::Choice(vec![Val::Real(0.1), Val::Real(0.2), Val::Count(7)]),
        ];
        for dist in dists {
            for k in 0..500 {
                let v = dist.value((k as f64 + 0.5) / 500.0);
                let u = dist.position(v);
                assert_eq!(dist.at_position(u).identity(), v.identity(), "{dist:?}: {v:?} at {u}");
                match dist.choices() {
                    Some(n) => assert!(u.fract() == 0.0 && u < n as f64),
                    None => assert!((0.0..1.0).contains(&u)),
                }
            }
        }
    }
}
