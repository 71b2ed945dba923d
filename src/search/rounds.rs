//! A search over the solvers' space that runs in rounds (`[search] method = "tpe"`; any
//! method that [`proposes`](crate::spec::SearchMethod::proposes)): which trials run,
//! round by round, decided from the scores of the rounds before. BOHB's rungs are at the
//! end.
//!
//! Each solver has its own search over its searched axes (sampled axes, and listed axes
//! as `choice`s): `trials` configurations in all. Round 0 holds the first `startup` points
//! of the solver's scrambled Sobol sequence (the same draw as `samples = startup,
//! sampler = "sobol"`, repeats dropped). Every later round proposes `min(batch, trials
//! left)` configurations with [`super::tpe::propose`] from every finished trial of the
//! earlier rounds, by a generator seeded with the master seed, the solver's label and the
//! round (none once round 0 holds every trial: `startup = trials`). A trial's score is the `[search]` metric's mean over its replicates (a failed
//! job scores +inf, the worst); a finished trial enters the estimator at the position of
//! its values on each axis (`Sweep::searched_axes`). A proposal that
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
//! A run deciding pass after pass keeps what it proposed ([`Memo`], [`decide_with`]) and
//! proposes again only where the scores behind a round differ from those it saw.
//!
//! Jobs are listed round by round (within a round: solver, trial, replicate), so a job's
//! index never changes as rounds are added; then the `[test]` jobs of every trial.

use std::collections::{BTreeMap, HashSet};

use super::Decided;
use super::test_pass::{Scores, add_test};
use super::tpe::{Dimension, Proposer, Trial};
use crate::job::{Job, Split};
use crate::kinds::Val;
use crate::seed::{fnv1a, mix};
use crate::spec::Sweep;

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

/// Decides the passes of the model-based search `sweep` (as loaded: its points are round
/// 0's Sobol points) from `scores`: for TPE every round, for BOHB every rung, up to the
/// first not fully scored, then the test pass once tuning is scored.
pub fn decide(sweep: &Sweep, scores: &Scores) -> Rounds {
    decide_with(sweep, scores, &mut Memo::default())
}

/// The proposals a TPE decision made after each round, with the scores they came from,
/// kept by a run between its passes so that each pass proposes only its new round. The
/// proposals after round `r` are a function of the sweep and of the scores of rounds
/// `0..=r` alone, so where those are the same (bit for bit) the kept ones are what
/// proposing again would give.
#[derive(Debug, Default)]
pub struct Memo {
    /// The sweep's hash ([`Sweep::hash`]) the proposals belong to.
    sweep: String,
    /// Per round, every solver's `(trial, score bits)` so far and what followed.
    rounds: Vec<(ScoreBits, Vec<Proposed>)>,
}

/// Every solver's scored trials so far, as `(trial, the score's bits)`.
type ScoreBits = Vec<Vec<(usize, u64)>>;

/// A proposed configuration: its solver, its values on the searched axes and its
/// canonical key.
type Proposed = (usize, Vec<Val>, String);

/// [`decide`], reusing (and keeping) the proposals of `memo`: the same result.
pub fn decide_with(sweep: &Sweep, scores: &Scores, memo: &mut Memo) -> Rounds {
    if !sweep.search.as_ref().expect("a searched spec").method.proposes() {
        return decide_bohb(sweep, scores);
    }
    let hash = sweep.hash();
    if memo.sweep != hash {
        *memo = Memo { sweep: hash, rounds: Vec::new() };
    }
    decide_tpe(sweep, scores, memo)
}

/// The rounds of a TPE search.
fn decide_tpe(sweep: &Sweep, scores: &Scores, memo: &mut Memo) -> Rounds {
    let search = sweep.search.as_ref().expect("a searched spec");
    let wanted = search.trials as usize;
    let score = job_score(sweep, scores);
    let solvers = sweep.solvers.len();
    let mut trials = first_trials(sweep, wanted);
    let mut seen: HashSet<String> =
        sweep.solvers.iter().flat_map(|s| &s.points).map(|p| p.canonical_key(sweep.seed, 0)).collect();
    let firsts: Vec<usize> = (0..solvers).map(|s| s * wanted.max(1)).collect();
    let mut jobs: Vec<Job> = Vec::new();
    let mut decided = Decided { rungs: Vec::new(), configurations: Vec::new(), finished: false };
    let mut trial_scores: Vec<Vec<(usize, f64)>> = vec![Vec::new(); solvers];
    let mut round = 0u32;
    let last_pass = loop {
        // The jobs of this round.
        let of_round: Vec<Vec<Vec<Val>>> =
            trials.iter().map(|t| t.iter().filter(|p| p.round == round).map(|p| p.values.clone()).collect()).collect();
        let starts: Vec<usize> = trials.iter().map(|t| t.iter().position(|p| p.round == round).unwrap_or(0)).collect();
        let pass = sweep.with_trials(&of_round).jobs();
        let offset = add_pass(&mut jobs, &mut decided, pass, |job| {
            let trial = starts[job.solver] + job.point;
            (job.point, job.trial) = (trial, Some((trial as u32, round)));
            firsts[job.solver] + trial
        });
        // Its scores.
        let round_scores: Vec<Option<f64>> = jobs[offset..].iter().map(&score).collect();
        if round_scores.iter().any(Option::is_none) {
            let total: usize = trials.iter().map(Vec::len).sum();
            let done = match search.per_sweep {
                true => total == wanted,
                false => trials.iter().all(|t| t.len() == wanted),
            };
            break done && sweep.test.is_none();
        }
        add_trial_means(&jobs[offset..], &round_scores, &trials, &mut trial_scores);
        let new = next_round(sweep, round, &trials, &trial_scores, &seen, memo);
        let proposed = !new.is_empty();
        for (s, values, key) in new {
            seen.insert(key);
            trials[s].push(TrialPoint { values, round: round + 1 });
        }
        if !proposed {
            decided.finished = true;
            break sweep.test.is_none();
        }
        round += 1;
    };
    finish(sweep, scores, trials, jobs, decided, last_pass, wanted.max(1), trial_scores)
}

/// A job's score from `scores`: the `[search]` metric's value once every row of the job
/// is in (+inf for a job without one: it failed); none before.
fn job_score<'a>(sweep: &'a Sweep, scores: &'a Scores) -> impl Fn(&Job) -> Option<f64> + 'a {
    let rows_per_job = |j: &Job| j.params.eval_seats().len() * sweep.evaluation.opponents.len();
    move |j: &Job| {
        let complete = scores.rows.get(&j.id).is_some_and(|&n| n == rows_per_job(j));
        complete.then(|| scores.search.get(&j.id).copied().unwrap_or(f64::INFINITY))
    }
}

/// Round 0 of a TPE search: each solver's points as loaded (its Sobol points), at most
/// `wanted` of them.
fn first_trials(sweep: &Sweep, wanted: usize) -> Vec<Vec<TrialPoint>> {
    (0..sweep.solvers.len())
        .map(|s| {
            let mut points: Vec<TrialPoint> = (0..sweep.solvers[s].points.len())
                .map(|p| TrialPoint { values: sweep.searched_values(s, p), round: 0 })
                .collect();
            points.truncate(wanted);
            points
        })
        .collect()
}

/// Appends the tuning jobs of one pass to `jobs`, numbered on from them, each placed by
/// `place` (which sets its point, trial and rung and returns its configuration), and
/// records the pass in `decided`: its jobs and the configurations of its first
/// replicates. Returns the index of the pass's first job.
fn add_pass(
    jobs: &mut Vec<Job>,
    decided: &mut Decided,
    pass: Vec<Job>,
    mut place: impl FnMut(&mut Job) -> usize,
) -> usize {
    let offset = jobs.len();
    let mut configurations = Vec::new();
    for mut job in pass.into_iter().filter(|j| j.split == Split::Tune) {
        job.index = jobs.len();
        let configuration = place(&mut job);
        if job.replicate == 0 {
            configurations.push(configuration);
        }
        jobs.push(job);
    }
    decided.rungs.push((offset..jobs.len()).collect());
    decided.configurations.push(configurations);
    offset
}

/// Adds each trial of a scored round (its jobs and their scores) to its solver's
/// `trial_scores` with its mean score over its replicates, in trial order.
fn add_trial_means(
    round_jobs: &[Job],
    round_scores: &[Option<f64>],
    trials: &[Vec<TrialPoint>],
    trial_scores: &mut [Vec<(usize, f64)>],
) {
    let mut sums: Vec<Vec<(f64, u32)>> = trials.iter().map(|t| vec![(0.0, 0); t.len()]).collect();
    for (job, s) in round_jobs.iter().zip(round_scores) {
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
}

/// The proposals after round `round` (see [`propose_round`]): as this run's earlier
/// passes kept them in `memo` if the scores they came from are the same, else proposed
/// now and kept in place of the rounds after.
fn next_round(
    sweep: &Sweep,
    round: u32,
    trials: &[Vec<TrialPoint>],
    trial_scores: &[Vec<(usize, f64)>],
    seen: &HashSet<String>,
    memo: &mut Memo,
) -> Vec<Proposed> {
    let input: ScoreBits = trial_scores.iter().map(|s| s.iter().map(|&(t, x)| (t, x.to_bits())).collect()).collect();
    match memo.rounds.get(round as usize).filter(|(earlier, _)| *earlier == input) {
        Some((_, new)) => new.clone(),
        None => {
            let new = propose_round(sweep, round, trials, trial_scores, seen);
            memo.rounds.truncate(round as usize);
            memo.rounds.push((input, new.clone()));
            new
        }
    }
}

/// A round's new configurations, proposed after round `round` from every finished trial
/// of the rounds up to it, as `(solver, values, canonical key)` in proposal order; none
/// that `seen` (every configuration so far) holds. Its size is `min(batch, trials
/// left)` per solver (or over the sweep), unless the proposals keep repeating.
fn propose_round(
    sweep: &Sweep,
    round: u32,
    trials: &[Vec<TrialPoint>],
    trial_scores: &[Vec<(usize, f64)>],
    seen: &HashSet<String>,
) -> Vec<Proposed> {
    let search = sweep.search.as_ref().expect("a searched spec");
    let wanted = search.trials as usize;
    let solvers = sweep.solvers.len();
    let axes_specs: Vec<_> = (0..solvers).map(|s| sweep.searched_axes(s)).collect();
    let all_axes: Vec<Vec<Dimension>> = axes_specs
        .iter()
        .map(|a| a.iter().map(|(_, d)| d.choices().map_or(Dimension::Continuous, Dimension::Categorical)).collect())
        .collect();
    let finished_of: Vec<Vec<Trial>> = (0..solvers)
        .map(|s| {
            let position = |t: usize| -> Vec<f64> {
                axes_specs[s].iter().zip(&trials[s][t].values).map(|((_, d), v)| d.position(*v)).collect()
            };
            trial_scores[s].iter().map(|&(t, score)| Trial { u: position(t), score }).collect()
        })
        .collect();
    let solver_proposer = |s: usize| {
        let seed = round_seed(sweep.seed, &sweep.solvers[s].label, round + 1);
        Proposer::new(&all_axes[s], finished_of[s].clone(), seed)
    };
    // A proposal's values and key, if it is a configuration not seen yet.
    let mut fresh: HashSet<String> = HashSet::new();
    let mut new_one = |s: usize, x: Vec<f64>| -> Option<Proposed> {
        let values: Vec<Val> = axes_specs[s].iter().zip(&x).map(|((_, d), &x)| d.at_position(x)).collect();
        let probe = sweep.with_trials(&one_point(solvers, s, values.clone()));
        let key = probe.solvers[s].points[0].canonical_key(sweep.seed, 0);
        (!seen.contains(&key) && fresh.insert(key.clone())).then_some((s, values, key))
    };
    let mut new = Vec::new();
    if search.per_sweep {
        // One search over the union: the solver is a categorical, chosen first; then the
        // chosen solver's own estimator proposes its values.
        let total: usize = trials.iter().map(Vec::len).sum();
        let want = (wanted - total).min(search.batch as usize);
        let chooser_axes = [Dimension::Categorical(solvers)];
        let finished: Vec<Trial> = (0..solvers)
            .flat_map(|s| trial_scores[s].iter().map(move |&(_, score)| Trial { u: vec![s as f64], score }))
            .collect();
        let seed = mix(sweep.seed, fnv1a(format!("tpe/sweep/{}", round + 1).as_bytes()));
        let mut chooser = Proposer::new(&chooser_axes, finished, seed);
        let mut proposers: Vec<Option<Proposer>> = (0..solvers).map(|_| None).collect();
        for _ in 0..want * ATTEMPTS {
            if new.len() == want {
                break;
            }
            let s = (chooser.next_proposal()[0] as usize).min(solvers - 1);
            let x = proposers[s].get_or_insert_with(|| solver_proposer(s)).next_proposal();
            new.extend(new_one(s, x));
        }
        return new;
    }
    for (s, of_solver) in trials.iter().enumerate() {
        let want = (wanted - of_solver.len()).min(search.batch as usize);
        if want == 0 {
            continue;
        }
        let mut proposer = solver_proposer(s);
        let mut found = 0;
        for _ in 0..want * ATTEMPTS {
            if let Some(one) = new_one(s, proposer.next_proposal()) {
                new.push(one);
                found += 1;
                if found == want {
                    break;
                }
            }
        }
    }
    new
}

/// The end of a decision: the sweep with every trial (at the full budget), the `[test]`
/// jobs of every trial after the tuning jobs, the configurations renumbered to that
/// sweep's, and the test pass once tuning is scored (ranked over every trial of TPE, over
/// the last rung of BOHB). Configurations were counted as `solver * stride + trial`.
#[allow(clippy::too_many_arguments)]
fn finish(
    sweep: &Sweep,
    scores: &Scores,
    trials: Vec<Vec<TrialPoint>>,
    mut jobs: Vec<Job>,
    mut decided: Decided,
    mut last_pass: bool,
    stride: usize,
    trial_scores: Vec<Vec<(usize, f64)>>,
) -> Rounds {
    let values: Vec<Vec<Vec<Val>>> = trials.iter().map(|t| t.iter().map(|p| p.values.clone()).collect()).collect();
    let search = sweep.search.as_ref().expect("a searched spec");
    let full = match search.method.proposes() {
        true => sweep.with_trials(&values),
        false => sweep.with_trials_at(&values, search.max_budget),
    };
    let tune_len = jobs.len();
    if sweep.test.is_some() {
        // Test jobs in (solver, trial, replicate) order, as `[test]` indexes them.
        let all = full.jobs().into_iter().filter(|j| j.split == Split::Test);
        for (k, mut job) in all.enumerate() {
            job.index = tune_len + k;
            jobs.push(job);
        }
    }
    // The test ranks configurations by solver's first + trial: renumber to the full sweep's.
    let firsts = full.first_configurations();
    for configurations in &mut decided.configurations {
        for c in configurations.iter_mut() {
            *c = firsts[*c / stride] + *c % stride;
        }
    }
    let tuned = decided.finished;
    if tuned && sweep.test.is_some() {
        let pool: Vec<usize> = match search.method.proposes() {
            true => (0..tune_len).collect(),
            false => decided.rungs.last().expect("one rung at least").clone(),
        };
        add_test(&full, &jobs, scores, &mut decided, &pool);
        last_pass = true;
    }
    Rounds { sweep: full, jobs, decided, trials, last_pass, tuned, scores: trial_scores }
}

/// The rungs of a BOHB search: Hyperband's brackets (the bracket of `s` cuts starts at
/// rung `last - s` with its nominal number of configurations, and every rung keeps the
/// best `max(1, floor(n / eta))` of each bracket's `n`, as [`super::decide`] does), run
/// rung by rung over all brackets at once. A bracket's configurations are proposed when
/// it starts: by TPE from the trials scored at the highest rung that has at least `d + 2`
/// of them (`d` searched axes), or, while no rung has that many, the next points of the
/// solver's Sobol sequence.
fn decide_bohb(sweep: &Sweep, scores: &Scores) -> Rounds {
    let search = sweep.search.as_ref().expect("a searched spec");
    let budgets = search.budgets();
    let nominal = search.nominal_brackets();
    let score = job_score(sweep, scores);
    let solvers = sweep.solvers.len();
    let mut bohb = Bohb::new(sweep, budgets.len());
    let stride = (nominal.iter().sum::<u64>() as usize).max(1);
    let mut jobs: Vec<Job> = Vec::new();
    let mut decided = Decided { rungs: Vec::new(), configurations: Vec::new(), finished: false };
    let mut last_pass = false;
    for (rung, &budget) in budgets.iter().enumerate() {
        // The bracket that starts here.
        for s in 0..solvers {
            bohb.start_bracket(s, rung, nominal[rung] as usize);
        }
        // This rung's jobs: every bracket's current configurations at its budget.
        let running = bohb.running();
        let values: Vec<Vec<Vec<Val>>> =
            running.iter().zip(&bohb.trials).map(|(r, t)| r.iter().map(|&i| t[i].values.clone()).collect()).collect();
        let pass = sweep.with_trials_at(&values, budget).jobs();
        let offset = add_pass(&mut jobs, &mut decided, pass, |job| {
            let trial = running[job.solver][job.point];
            (job.point, job.trial, job.rung) = (trial, Some((trial as u32, rung as u32)), Some(rung as u32));
            job.solver * stride + trial
        });
        let rung_scores: Vec<Option<f64>> = jobs[offset..].iter().map(&score).collect();
        if rung_scores.iter().any(Option::is_none) {
            last_pass = rung + 1 == budgets.len() && sweep.test.is_none();
            break;
        }
        let mut sums: BTreeMap<(usize, usize), (f64, u32)> = Default::default();
        for (job, s) in jobs[offset..].iter().zip(&rung_scores) {
            let sum = sums.entry((job.solver, job.point)).or_default();
            *sum = (sum.0 + s.expect("scored"), sum.1 + 1);
        }
        for (&(s, t), &(sum, n)) in &sums {
            bohb.observed[s][rung].push((t, sum / f64::from(n)));
        }
        if rung + 1 == budgets.len() {
            decided.finished = true;
            last_pass = sweep.test.is_none();
            break;
        }
        bohb.cut(&sums, search.eta);
    }
    let scored = observed_scores(&bohb.observed);
    finish(sweep, scores, bohb.trials, jobs, decided, last_pass, stride, scored)
}

/// A BOHB decision under way. Per solver: the points of its Sobol sequence and how many
/// have been taken, its trials, its brackets' current configurations (trial numbers) and,
/// per rung, the trials scored there as `(trial, mean score)`; and the canonical key of
/// every configuration proposed so far.
struct Bohb<'a> {
    sweep: &'a Sweep,
    pool: Vec<Vec<Vec<Val>>>,
    taken: Vec<usize>,
    trials: Vec<Vec<TrialPoint>>,
    brackets: Vec<Vec<Vec<usize>>>,
    observed: Vec<Vec<Vec<(usize, f64)>>>,
    seen: HashSet<String>,
}

impl<'a> Bohb<'a> {
    /// A decision of `sweep` over `rungs` rungs that has taken nothing yet.
    fn new(sweep: &'a Sweep, rungs: usize) -> Bohb<'a> {
        let solvers = sweep.solvers.len();
        let pool: Vec<Vec<Vec<Val>>> = (0..solvers)
            .map(|s| (0..sweep.solvers[s].points.len()).map(|p| sweep.searched_values(s, p)).collect())
            .collect();
        Bohb {
            sweep,
            pool,
            taken: vec![0usize; solvers],
            trials: vec![Vec::new(); solvers],
            brackets: vec![Vec::new(); solvers],
            observed: vec![vec![Vec::new(); rungs]; solvers],
            seen: HashSet::new(),
        }
    }

    /// Starts solver `s`'s bracket at rung `rung` with up to `want` configurations not
    /// seen before: proposed by TPE from the trials scored at the highest earlier rung
    /// that has at least `d + 2` of them, else the next points of its Sobol sequence.
    fn start_bracket(&mut self, s: usize, rung: usize, want: usize) {
        let sweep = self.sweep;
        let search = sweep.search.as_ref().expect("a searched spec");
        let solvers = sweep.solvers.len();
        let axes_spec = sweep.searched_axes(s);
        let model = self.observed[s][..rung].iter().rposition(|o| o.len() >= axes_spec.len() + 2);
        let mut new: Vec<Vec<Val>> = Vec::new();
        let seen = &mut self.seen;
        let mut fresh = |values: Vec<Val>, new: &mut Vec<Vec<Val>>| {
            let probe = sweep.with_trials_at(&one_point(solvers, s, values.clone()), search.max_budget);
            if seen.insert(probe.solvers[s].points[0].canonical_key(sweep.seed, 0)) {
                new.push(values);
            }
        };
        match model {
            Some(r) => {
                let axes: Vec<Dimension> = axes_spec
                    .iter()
                    .map(|(_, d)| d.choices().map_or(Dimension::Continuous, Dimension::Categorical))
                    .collect();
                let finished: Vec<Trial> = self.observed[s][r]
                    .iter()
                    .map(|&(t, score)| Trial {
                        u: axes_spec.iter().zip(&self.trials[s][t].values).map(|((_, d), v)| d.position(*v)).collect(),
                        score,
                    })
                    .collect();
                let seed = mix(round_seed(sweep.seed, &sweep.solvers[s].label, rung as u32), fnv1a(b"bohb"));
                let mut proposer = Proposer::new(&axes, finished, seed);
                for _ in 0..want * ATTEMPTS {
                    let x = proposer.next_proposal();
                    fresh(axes_spec.iter().zip(&x).map(|((_, d), &x)| d.at_position(x)).collect(), &mut new);
                    if new.len() == want {
                        break;
                    }
                }
            }
            None => {
                while new.len() < want && self.taken[s] < self.pool[s].len() {
                    fresh(self.pool[s][self.taken[s]].clone(), &mut new);
                    self.taken[s] += 1;
                }
            }
        }
        let first = self.trials[s].len();
        self.trials[s].extend(new.into_iter().map(|values| TrialPoint { values, round: rung as u32 }));
        self.brackets[s].push((first..self.trials[s].len()).collect());
    }

    /// Each solver's configurations at the current rung: those of every bracket, in trial
    /// order.
    fn running(&self) -> Vec<Vec<usize>> {
        self.brackets
            .iter()
            .map(|b| {
                let mut all: Vec<usize> = b.iter().flatten().copied().collect();
                all.sort_unstable();
                all
            })
            .collect()
    }

    /// Keeps the best `max(1, floor(n / eta))` of each bracket's `n` configurations by
    /// their mean scores at the rung just scored (`sums`, by solver and trial), in trial
    /// order.
    fn cut(&mut self, sums: &BTreeMap<(usize, usize), (f64, u32)>, eta: u64) {
        let mean = |s: usize, t: usize| sums.get(&(s, t)).map_or(f64::INFINITY, |&(sum, n)| sum / f64::from(n));
        for (s, solver_brackets) in self.brackets.iter_mut().enumerate() {
            for bracket in solver_brackets.iter_mut() {
                let keep = super::survivors(bracket.len(), eta);
                let ranked = super::rank(bracket.iter().map(|&t| (mean(s, t), t)).collect());
                *bracket = ranked.into_iter().take(keep).map(|(_, t)| t).collect();
                bracket.sort_unstable();
            }
        }
    }
}

/// Each solver's scored trials at the highest rung scored so far (scores at different
/// budgets do not compare), as `(trial, score)` in trial order.
fn observed_scores(observed: &[Vec<Vec<(usize, f64)>>]) -> Vec<Vec<(usize, f64)>> {
    observed
        .iter()
        .map(|rungs| {
            let mut top = rungs.iter().rev().find(|r| !r.is_empty()).cloned().unwrap_or_default();
            top.sort_by_key(|&(t, _)| t);
            top
        })
        .collect()
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

    /// A BOHB search whose rung-0 scores favour small alphas: rung by rung its counts are
    /// Hyperband's, and once a rung has enough scores the next bracket is proposed by the
    /// model (not the Sobol points that follow), near the good alphas.
    #[test]
    fn bohb_runs_hyperband_s_brackets_with_proposed_configurations() {
        let text = "replicates = 2\nseed = 9\n[evaluation]\ncheckpoints = 1\n[search]\nmethod = \"bohb\"\neta = 3\n\
                    min_budget = 30\nmax_budget = 270\n[[solver]]\nkind = \"q-learning\"\n\
                    alpha = { loguniform = [0.001, 1.0] }\ngamma = { uniform = [0.5, 1.0] }\n";
        let sweep = crate::spec::parse(text, "bohb.toml").unwrap();
        // Rungs 30, 90, 270: brackets of ceil(3*9/3) = 9, ceil(3*3/2) = 5 and 3.
        assert_eq!(sweep.search.as_ref().unwrap().nominal_brackets(), [9, 5, 3]);
        assert_eq!(sweep.solvers[0].points.len(), 17);
        let mut scores = Scores::default();
        let mut rounds = decide(&sweep, &scores);
        while !rounds.decided.finished {
            for j in &rounds.jobs {
                let Val::Real(alpha) = rounds.sweep.searched_values(j.solver, j.point)[0] else { panic!() };
                scores.search.insert(j.id.clone(), alpha.ln() - 0.001f64.ln());
                scores.rows.insert(j.id.clone(), 1);
            }
            rounds = decide(&sweep, &scores);
        }
        let planned: Vec<usize> = super::super::planned(&sweep).iter().map(|r| r.0).collect();
        let ran: Vec<usize> = rounds.decided.configurations.iter().map(Vec::len).collect();
        assert_eq!(ran, planned);
        assert_eq!(ran, [9, 3 + 5, 1 + 1 + 3]);
        // Bracket 1 (trials 9..14) was proposed from rung 0's 9 scores (>= 2 axes + 2).
        let sobol = |t: usize| sweep.searched_values(0, t);
        let proposed: Vec<Vec<Val>> = rounds.trials[0][9..14].iter().map(|t| t.values.clone()).collect();
        assert!((9..14).all(|t| !proposed.contains(&sobol(t))));
        let alpha = |v: &[Val]| if let Val::Real(a) = v[0] { a } else { panic!() };
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let startup: Vec<f64> = rounds.trials[0][..9].iter().map(|t| alpha(&t.values)).collect();
        let later: Vec<f64> = rounds.trials[0][9..].iter().map(|t| alpha(&t.values)).collect();
        assert!(median(later.clone()) < median(startup.clone()), "{later:?} vs {startup:?}");
        // The same scores decide the same jobs.
        assert_eq!(decide(&sweep, &scores).jobs, rounds.jobs);
    }

    /// `per = "sweep"`: one search over two solvers, 24 trials in all; when SARSA scores
    /// far worse than Q-learning, the proposals go mostly to Q-learning.
    #[test]
    fn one_search_over_the_sweep_chooses_the_better_solver() {
        let text = "replicates = 1\nseed = 4\n[evaluation]\ncheckpoints = 1\n[search]\nmethod = \"tpe\"\ntrials = 24\n\
                    batch = 4\nstartup = 8\nper = \"sweep\"\n[[solver]]\nkind = \"q-learning\"\nepisodes = 50\n\
                    alpha = { uniform = [0.1, 1.0] }\n[[solver]]\nkind = \"sarsa\"\nepisodes = 50\n\
                    alpha = { uniform = [0.1, 1.0] }\n";
        let sweep = crate::spec::parse(text, "sweep.toml").unwrap();
        assert_eq!([sweep.solvers[0].points.len(), sweep.solvers[1].points.len()], [4, 4]);
        let mut scores = Scores::default();
        let mut rounds = decide(&sweep, &scores);
        while !rounds.decided.finished {
            for j in &rounds.jobs {
                scores.search.insert(j.id.clone(), if j.solver == 0 { 0.1 } else { 0.9 });
                scores.rows.insert(j.id.clone(), 1);
            }
            rounds = decide(&sweep, &scores);
        }
        let counts = [rounds.trials[0].len(), rounds.trials[1].len()];
        assert_eq!(counts[0] + counts[1], 24);
        let later = |s: usize| rounds.trials[s].iter().filter(|t| t.round > 0).count();
        assert!(later(0) > 3 * later(1), "{} q-learning and {} sarsa proposals", later(0), later(1));
    }

    /// A run keeps its proposals between passes ([`Memo`]): pass by pass, the decision
    /// equals one made from scratch, with one search per solver and one over the sweep;
    /// and when the scores differ from those the kept proposals came from (a shard's
    /// rows replaced, another sweep), they are proposed again.
    #[test]
    fn kept_proposals_decide_what_proposing_again_decides() {
        let two = "[[solver]]\nkind = \"sarsa\"\nepisodes = 50\nalpha = { loguniform = [0.01, 1.0] }\n\
                   gamma = [0.9, 0.99]\n";
        for extra in ["", "per = \"sweep\""] {
            let text = format!("{}{two}", sweep_text(extra));
            let sweep = crate::spec::parse(&text, "tpe.toml").unwrap();
            let mut memo = Memo::default();
            let mut scores = Scores::default();
            let mut rounds = decide_with(&sweep, &scores, &mut memo);
            let mut passes = 1;
            while !rounds.decided.finished {
                score_all(&rounds, &mut scores);
                rounds = decide_with(&sweep, &scores, &mut memo);
                let fresh = decide(&sweep, &scores);
                assert_eq!(rounds.jobs, fresh.jobs, "{extra}: pass {passes}");
                assert_eq!(rounds.trials, fresh.trials);
                passes += 1;
            }
            assert!(passes >= 4, "{passes}");
            // One entry per round: the last one empty, which ended the search.
            assert_eq!(memo.rounds.len(), rounds.decided.rungs.len());
            assert!(memo.rounds.last().unwrap().1.is_empty());
            // Other scores for the same jobs: the memo does not answer for them.
            let mut other = scores.clone();
            for x in other.search.values_mut() {
                *x = -*x;
            }
            assert_eq!(decide_with(&sweep, &other, &mut memo).jobs, decide(&sweep, &other).jobs);
            assert_ne!(decide(&sweep, &other).jobs, rounds.jobs);
            // Another sweep: the same.
            let more = crate::spec::parse(&text.replace("trials = 20", "trials = 24"), "tpe.toml").unwrap();
            assert_eq!(decide_with(&more, &scores, &mut memo).jobs, decide(&more, &scores).jobs);
        }
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
