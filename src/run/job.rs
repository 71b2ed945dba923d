//! One job: train (or solve), evaluate exactly in every seat against every evaluation
//! opponent, play the sampled games, and turn it all into rows.
//!
//! A job is a pure function of its parameters and seed; only the two timing columns
//! depend on the machine. Panics and errors become `status = failed` rows.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use super::StopToken;
use super::program::{self, Ran, Slots, Strict};
use crate::game::Board;
use crate::job::Job;
use crate::kinds::{Agent, Execution, SearchAgent, Train, search_policy};
use crate::mdp::{
    EvalOpponent, Evaluator, GameTally, Moves, Opponent, Policy, Seat, best_response, best_response_within, game_value,
    sample_games,
};
use crate::report::Record;
use crate::report::rows::{CurvePoint, JobKey, Scored, curve_row, failed_row, regret, result_row};
use crate::seed::{self, Stream};
use crate::solvers::ground_truth;
use crate::spec::{EvaluationSpec, SAMPLED_GAMES};
use crate::stats::curve::curve_metrics;
use std::path::Path;

use super::fault::{FAULT_VAR, Fault};

/// Environment variable that makes every job print, to standard error, how its
/// `train_ms` splits: the setup before its first checkpoint (the untrained table's,
/// at episode 0), its episodes, its checkpoints' exact evaluations, and what follows the
/// last one (`q_error`, the final table); then its `eval_ms`. Set to any value.
pub const PIECES_VAR: &str = "SWEEP_JOB_PIECES";

/// The rows of one finished job.
#[derive(Clone, Debug, Default)]
pub struct JobOutput {
    /// Its `results.csv` rows.
    pub rows: Vec<Record>,
    /// Its `curves.csv` rows.
    pub curves: Vec<Record>,
    /// The failure message, if it failed.
    pub failure: Option<String>,
    /// The run stopped while the job's program ran: nothing to write, the job runs again
    /// on resume.
    pub abandoned: bool,
    /// Where its training time went, when [`PIECES_VAR`] asks (a line the writer shows).
    pub pieces: Option<String>,
}

/// Where a job runs: the results folder (a program's states files and the logs of
/// failed programs go under it), the run's stop token and program slots, and the
/// program parameters' columns of the run's results (after every fixed column).
pub struct Place<'a> {
    /// The results folder.
    pub results: &'a Path,
    /// The run's stop token.
    pub stop: &'a StopToken,
    /// The run's program slots.
    pub slots: &'a Slots,
    /// The program parameters' columns.
    pub extras: &'a [&'static str],
}

/// Runs a job of the solver labelled `label`, failing it on purpose if `fault` says so;
/// never panics.
pub fn execute(
    job: &Job,
    evaluation: &EvaluationSpec,
    label: &str,
    fault: Option<&Fault>,
    place: &Place<'_>,
) -> JobOutput {
    let key = JobKey {
        extras: place.extras,
        id: &job.id,
        label,
        replicate: job.replicate,
        seed: job.seed,
        params: &job.params,
        rung: job.rung,
        split: job.split,
        trial: job.trial,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        injected_fault(&job.id, fault).and_then(|()| match &job.params {
            _ if !job.params.game().enumerable() => {
                let place = super::searched::Place { results: place.results, stop: place.stop, slots: place.slots };
                super::searched::run(job, evaluation, &key, &place).map(|ran| match ran {
                    super::searched::Ran::Rows { rows, curves } => JobOutput { rows, curves, ..JobOutput::default() },
                    super::searched::Ran::Abandoned => JobOutput { abandoned: true, ..JobOutput::default() },
                })
            }
            _ => match job.params.execution() {
                Execution::Program(point) => run_program(job, point, evaluation, &key, place),
                Execution::InProcess(kind) => run(job, kind, evaluation, &key),
            },
        })
    }));
    let message = match outcome {
        Ok(Ok(out)) => return out,
        Ok(Err(message)) => message,
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".to_string());
            format!("panicked: {text}")
        }
    };
    let mut rows = Vec::new();
    for seat in job.params.eval_seats() {
        for &opp in &evaluation.opponents {
            rows.push(failed_row(&key, seat, opp, &message));
        }
    }
    JobOutput { rows, curves: Vec::new(), failure: Some(message), ..JobOutput::default() }
}

fn injected_fault(id: &str, fault: Option<&Fault>) -> Result<(), String> {
    match fault {
        Some(Fault::Panic(prefix)) if id.starts_with(prefix.as_str()) => panic!("fault injected by {FAULT_VAR}"),
        Some(Fault::Error(prefix)) if id.starts_with(prefix.as_str()) => Err(format!("fault injected by {FAULT_VAR}")),
        _ => Ok(()),
    }
}

fn run(job: &Job, kind: &dyn Train, evaluation: &EvaluationSpec, key: &JobKey<'_>) -> Result<JobOutput, String> {
    let seats = job.params.eval_seats();
    let mut curves = Vec::new();
    // Per (seat, opponent), in row order: the untrained regret and the checkpoints' regrets.
    let mut tracks: Vec<(f64, Vec<(u64, f64)>)> = vec![(0.0, Vec::new()); seats.len() * evaluation.opponents.len()];
    let started = Instant::now();
    let mut evaluator = SPARE_EVALUATOR.with(|spare| spare.take()).unwrap_or_default();
    let mut pieces = Pieces::default();
    let agent = kind.train(job.seed, &evaluation.marks(job.params.work().episodes), &mut |c, policy| {
        pieces.checkpoint_starts(started);
        for (k, (&seat, &opp)) in
            seats.iter().flat_map(|s| evaluation.opponents.iter().map(move |o| (s, o))).enumerate()
        {
            let s = score_table(&mut evaluator, policy, seat, opp);
            let regret = regret(s.optimal, s.eval.value);
            if c.episode == 0 {
                tracks[k].0 = regret;
            } else {
                tracks[k].1.push((c.episode, regret));
                curves.push(curve_row(&job.id, c.episode, &s, c.epsilon, c.alpha));
            }
        }
        pieces.checkpoint_ends(started);
    });
    let train_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let (mut agent, q_error) = match agent {
        Agent::Policy(p) => (Actor::Moves(Box::new(p)), None),
        Agent::Learned { table, q_error } => (Actor::Moves(Box::new(table)), Some(q_error)),
        Agent::Search(m) => (Actor::Search(Box::new(SearchAgent::new(m, job.seed))), None),
    };
    let mut scored = Vec::new();
    for &seat in &seats {
        for (k, &opp) in evaluation.opponents.iter().enumerate() {
            let stream_key = (seat as u64) << 8 | k as u64;
            let mut rng = seed::keyed_rng(job.seed, Stream::Evaluation, stream_key);
            scored.push(agent.score(&mut evaluator, seat, opp, evaluation, &mut rng).map_err(|e| (seat, opp, e)));
        }
    }
    let eval_ms = started.elapsed().as_secs_f64() * 1e3;
    let pieces = std::env::var_os(PIECES_VAR).map(|_| pieces.line(&job.id, train_ms, eval_ms));
    if evaluator.heap_bytes() <= KEPT_EVALUATOR_BYTES {
        // A thread being torn down keeps nothing.
        let _ = SPARE_EVALUATOR.try_with(|spare| spare.set(Some(evaluator)));
    }
    // A search's own number: the positions it searched in all its rows (its evaluation
    // time over them is its time per move).
    let metrics = match &agent {
        Actor::Search(agent) => Some(crate::report::rows::search_metrics(agent.searched())),
        Actor::Moves(_) => None,
    };
    let rows = scored
        .iter()
        .zip(&tracks)
        .map(|(s, (start, points))| match s {
            Ok(s) => {
                let mut row = result_row(key, s, curve_metrics(*start, points), q_error, train_ms, eval_ms);
                if let Some(m) = &metrics {
                    row[crate::report::Field::Metrics.column()] = m.clone();
                }
                row
            }
            Err((seat, opp, message)) => failed_row(key, *seat, *opp, message),
        })
        .collect();
    Ok(JobOutput { rows, curves, pieces, ..JobOutput::default() })
}

/// A command job: runs its program (see `run/program.rs`), then scores the policies it
/// wrote exactly, like a learner's: every checkpoint for the curves, the final policy
/// for the rows. A position the policy reaches and lacks fails the job, naming it.
fn run_program(
    job: &Job,
    point: &crate::kinds::CommandPoint,
    evaluation: &EvaluationSpec,
    key: &JobKey<'_>,
    place: &Place<'_>,
) -> Result<JobOutput, String> {
    let marks = evaluation.marks(job.params.work().episodes);
    let env = program::Env {
        job_id: &job.id,
        seed: job.seed,
        checkpoints: &marks,
        results: place.results,
        stop: place.stop,
        slots: place.slots,
        from: None,
    };
    let (policy, hash, checkpoints, metrics, (wall, read), logs) = match program::run(point, &env) {
        Ran::Done { policy, hash, checkpoints, metrics, wall, read, logs } => {
            (policy, hash, checkpoints, metrics, (wall, read), logs)
        }
        Ran::Failed(why) => return Err(why),
        Ran::Abandoned => return Ok(JobOutput { abandoned: true, ..JobOutput::default() }),
    };
    let seats = job.params.eval_seats();
    let pairs: Vec<(Seat, EvalOpponent)> =
        seats.iter().flat_map(|&s| evaluation.opponents.iter().map(move |&o| (s, o))).collect();
    let started = Instant::now();
    let mut evaluator = SPARE_EVALUATOR.with(|spare| spare.take()).unwrap_or_default();
    // A policy that lacks a position it reaches fails the job, its logs kept.
    let failed = |why: String| {
        logs.keep(place.results, &job.id);
        logs.explain(why)
    };
    let (tracks, curves) = score_checkpoints(&mut evaluator, &job.id, &checkpoints, &pairs).map_err(failed)?;
    let scored = score_final(&mut evaluator, job, evaluation, &policy, &pairs).map_err(failed)?;
    if evaluator.heap_bytes() <= KEPT_EVALUATOR_BYTES {
        let _ = SPARE_EVALUATOR.try_with(|spare| spare.set(Some(evaluator)));
    }
    // A program's train_ms is its wall time from the spawn to its exit; eval_ms is
    // sweep's reading and scoring of what it wrote.
    let eval_ms = (started.elapsed() + read).as_secs_f64() * 1e3;
    let train_ms = wall.as_secs_f64() * 1e3;
    let metrics_column = crate::report::Field::Metrics.column();
    let rows = scored
        .iter()
        .zip(&tracks)
        .map(|(s, (start, points))| {
            let start = start.or(points.first().map(|p| p.1)).unwrap_or(0.0);
            let mut row = result_row(key, s, curve_metrics(start, points), None, train_ms, eval_ms);
            row[metrics_column] = metrics.clone().unwrap_or_default();
            row[crate::report::Field::PolicyHash.column()] = format!("{hash:016x}");
            row
        })
        .collect();
    Ok(JobOutput { rows, curves, ..JobOutput::default() })
}

/// Per (seat, opponent) of a program's job: the regret at episode 0, if the program wrote
/// that checkpoint, and at the later ones.
type Track = (Option<f64>, Vec<(u64, f64)>);

/// A program's checkpoints scored against each (seat, opponent) of `pairs`: their regret
/// tracks and the curve rows of every checkpoint after episode 0. Err: why a checkpoint
/// fails (a position it reaches and lacks).
fn score_checkpoints(
    evaluator: &mut Evaluator,
    job_id: &str,
    checkpoints: &[(u64, Policy)],
    pairs: &[(Seat, EvalOpponent)],
) -> Result<(Vec<Track>, Vec<Record>), String> {
    let mut curves = Vec::new();
    let mut tracks: Vec<Track> = vec![(None, Vec::new()); pairs.len()];
    for (episode, p) in checkpoints {
        let strict = Strict::new(p);
        for (k, &(seat, opp)) in pairs.iter().enumerate() {
            let s = score_table(evaluator, &strict, seat, opp);
            if let Some(b) = strict.take_missing() {
                return Err(missing(&format!("checkpoint {episode}"), b, seat, opp));
            }
            let regret = regret(s.optimal, s.eval.value);
            if *episode == 0 {
                tracks[k].0 = Some(regret);
            } else {
                tracks[k].1.push((*episode, regret));
                // A program's exploration and step size are its own: left empty.
                curves.push(CurvePoint::of_scored(job_id, *episode, &s).record());
            }
        }
    }
    Ok((tracks, curves))
}

/// A program's final policy scored against each (seat, opponent) of `pairs`, with sampled
/// games against the fixed opponents when the evaluation asks for them. Err: why it
/// fails (a position it reaches and lacks).
fn score_final(
    evaluator: &mut Evaluator,
    job: &Job,
    evaluation: &EvaluationSpec,
    policy: &Policy,
    pairs: &[(Seat, EvalOpponent)],
) -> Result<Vec<Scored>, String> {
    let strict = Strict::new(policy);
    let mut scored = Vec::with_capacity(pairs.len());
    for (k, &(seat, opp)) in pairs.iter().enumerate() {
        let mut s = score_table(evaluator, &strict, seat, opp);
        if let Some(b) = strict.take_missing() {
            return Err(missing("the final policy", b, seat, opp));
        }
        if let (EvalOpponent::Fixed(fixed), true) = (opp, evaluation.games > 0) {
            let stream_key = (seat as u64) << 8 | k as u64;
            let mut rng = seed::keyed_rng(job.seed, Stream::Evaluation, stream_key);
            s.games = sample_games(policy.game(), seat, fixed, evaluation.games, &mut rng, |b| strict.get_or_first(b));
        }
        scored.push(s);
    }
    Ok(scored)
}

/// Why a program's policy fails: it lacks a position it reaches.
fn missing(which: &str, b: Board, seat: Seat, opp: EvalOpponent) -> String {
    format!(
        "{which} has no move for {b} ({} to move), a position it reaches as {seat} against {}; write a move for \
         every row of $SWEEP_STATES",
        if b.to_move() == Seat::X.player() { "x" } else { "o" },
        opp.name()
    )
}

/// An evaluator's buffers up to this size (the states of 3x4k4 and smaller boards) are
/// kept by the thread for its next job: allocating and first touching them again cost a
/// short job more than an evaluation. Bigger ones (4x4k4) are freed with their job, as
/// the memory budget counts them.
const KEPT_EVALUATOR_BYTES: usize = 16 << 20;

thread_local! {
    /// The evaluator of the thread's last job, when small enough to keep.
    static SPARE_EVALUATOR: std::cell::Cell<Option<Evaluator>> = const { std::cell::Cell::new(None) };
}

/// Where a job's training time went (see [`PIECES_VAR`]): milliseconds since the job
/// started at the first checkpoint's start and at the last one's end, and in all
/// checkpoints.
#[derive(Debug, Default)]
struct Pieces {
    first: Option<f64>,
    last_end: f64,
    in_checkpoints: f64,
    checkpoints: usize,
    entered: f64,
}

impl Pieces {
    fn checkpoint_starts(&mut self, started: Instant) {
        self.entered = started.elapsed().as_secs_f64() * 1e3;
        self.first.get_or_insert(self.entered);
    }

    fn checkpoint_ends(&mut self, started: Instant) {
        self.last_end = started.elapsed().as_secs_f64() * 1e3;
        self.in_checkpoints += self.last_end - self.entered;
        self.checkpoints += 1;
    }

    /// `setup_ms`, `episodes_ms`, `checkpoints_ms` (and how many), `after_ms`, `eval_ms`.
    fn line(&self, id: &str, train_ms: f64, eval_ms: f64) -> String {
        let (setup, after) = match self.first {
            Some(first) => (first, train_ms - self.last_end),
            None => (0.0, 0.0),
        };
        let episodes = train_ms - setup - self.in_checkpoints - after;
        format!(
            "job {id}: train_ms {train_ms:.3} = setup {setup:.3} + episodes {episodes:.3} + {} checkpoints {:.3} + \
             after {after:.3}; eval_ms {eval_ms:.3}",
            self.checkpoints, self.in_checkpoints
        )
    }
}

/// What a finished job plays with.
enum Actor {
    /// A move per position (written out, or a learned table's greedy move): always scored
    /// exactly.
    Moves(Box<dyn Moves>),
    /// A search per position: scored exactly while it reaches at most `exact_searches`
    /// agent states, else by sampled games (whose `states` is then the positions searched
    /// for the row, in the exact attempt and in the games).
    Search(Box<SearchAgent>),
}

impl Actor {
    /// The row's scores in `seat` against `opp`: exact, or sampled where an exact
    /// evaluation would need more searches than `[evaluation] exact_searches`; plus the
    /// extra sampled games of `[evaluation] games`, drawn from `rng`. A best response is
    /// always exact and plays no sampled games: beyond `exact_searches` it is refused
    /// (`Err`, a failed row), never estimated.
    fn score(
        &mut self,
        evaluator: &mut Evaluator,
        seat: Seat,
        opp: EvalOpponent,
        evaluation: &EvaluationSpec,
        rng: &mut seed::Rng,
    ) -> Result<Scored, String> {
        let opp = match (opp, &mut *self) {
            (EvalOpponent::Fixed(opp), _) => opp,
            (EvalOpponent::BestResponse, Actor::Moves(policy)) => {
                return Ok(score_table(evaluator, policy.as_ref(), seat, EvalOpponent::BestResponse));
            }
            (EvalOpponent::BestResponse, Actor::Search(agent)) => {
                let limit = usize::try_from(evaluation.exact_searches).unwrap_or(usize::MAX);
                let eval = best_response_within(agent.game(), seat, limit, |b| agent.choose(b)).ok_or_else(|| {
                    format!(
                        "best-response: a best response reaches more than exact_searches = {limit} positions of the \
                         search; raise [evaluation] exact_searches for an exact worst case"
                    )
                })?;
                let (optimal, games) = (game_value(agent.game(), seat), GameTally::default());
                return Ok(Scored { seat, opponent: EvalOpponent::BestResponse, eval, optimal, games, sampled: None });
            }
        };
        let games = evaluation.games;
        let extra = |game, rng: &mut seed::Rng, choose: &mut dyn FnMut(Board) -> u8| {
            if games == 0 { GameTally::default() } else { sample_games(game, seat, opp, games, rng, choose) }
        };
        Ok(match self {
            Actor::Moves(policy) => {
                let mut s = score_table(evaluator, policy.as_ref(), seat, opp.into());
                s.games = extra(policy.game(), rng, &mut |b| policy.get_or_first(b));
                s
            }
            Actor::Search(agent) => {
                let truth = ground_truth(agent.game(), seat, opp);
                let limit = usize::try_from(evaluation.exact_searches).unwrap_or(usize::MAX);
                let optimal = truth.solution.value;
                let before = agent.searched();
                if let Some(eval) = evaluator.evaluate_within(&truth.mdp, limit, |_, b| agent.choose(b)) {
                    let games = extra(agent.game(), rng, &mut |b| agent.choose(b));
                    return Ok(Scored { seat, opponent: opp.into(), eval, optimal, games, sampled: None });
                }
                let n = if evaluation.games > 0 { evaluation.games } else { SAMPLED_GAMES };
                let games = sample_games(agent.game(), seat, opp, n, rng, |b| agent.choose(b));
                let eval = games.as_evaluation(agent.searched() - before);
                Scored { seat, opponent: opp.into(), eval, optimal, games, sampled: Some(games.standard_error()) }
            }
        })
    }
}

/// Exact score of a table policy (positions it lacks: lowest legal cell); against the
/// best response, `optimal` is the seat's game value.
fn score_table(evaluator: &mut Evaluator, policy: &dyn Moves, seat: Seat, opp: EvalOpponent) -> Scored {
    let games = GameTally::default();
    let (eval, optimal) = match opp {
        EvalOpponent::Fixed(opp) => {
            let truth = ground_truth(policy.game(), seat, opp);
            (evaluator.evaluate(&truth.mdp, |_, b| policy.get_or_first(b)), truth.solution.value)
        }
        EvalOpponent::BestResponse => {
            let game = policy.game();
            (best_response(game, seat, |b| policy.get_or_first(b)), game_value(game, seat))
        }
    };
    Scored { seat, opponent: opp, eval, optimal, games, sampled: None }
}

/// The job's final greedy policy (trained again from its seed, without checkpoints), over
/// every position that the evaluations reach; `None` for a program's job (its policy is
/// what its program hands back). Used by `reproduce --policy-out` and `play`.
pub fn policy(job: &Job, evaluation: &EvaluationSpec) -> Option<Policy> {
    let Execution::InProcess(kind) = job.params.execution() else { return None };
    Some(match kind.train(job.seed, &[], &mut |_, _| {}) {
        Agent::Policy(policy) => policy,
        Agent::Learned { table, .. } => table.policy(),
        Agent::Search(m) => {
            // A best response reaches no position the random opponent does not.
            let mut opponents: Vec<Opponent> = evaluation.opponents.iter().filter_map(|o| o.fixed()).collect();
            if !opponents.contains(&Opponent::Random) {
                opponents.push(Opponent::Random);
            }
            search_policy(&m, job.seed, &job.params.eval_seats(), &opponents)
        }
    })
}
