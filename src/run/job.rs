//! One job: train (or solve), evaluate exactly in every seat against every evaluation
//! opponent, play the sampled games, and turn it all into rows.
//!
//! A job is a pure function of its parameters and seed; only the two timing columns
//! depend on the machine. Panics and errors become `status = failed` rows.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use crate::mdp::{Evaluator, GameTally, Opponent, Policy, Seat, sample_games};
use crate::report::Record;
use crate::report::rows::{JobKey, Scored, curve_row, failed_row, result_row};
use crate::seed::{self, Stream};
use crate::solvers::mcts::Searcher;
use crate::solvers::q_learning::{self, checkpoint_episodes};
use crate::solvers::{Params, TrainOpponent, ground_truth, policy_iteration, self_play, value_iteration};
use crate::spec::{EvaluationSpec, Job};

/// Environment variable that makes chosen jobs fail on purpose, to test failure handling:
/// `panic:PREFIX` or `error:PREFIX` fails every job whose id starts with `PREFIX`.
pub const FAULT_VAR: &str = "SWEEP_FAULT";

/// The rows of one finished job.
#[derive(Clone, Debug, Default)]
pub struct JobOutput {
    /// Its `results.csv` rows.
    pub rows: Vec<Record>,
    /// Its `curves.csv` rows.
    pub curves: Vec<Record>,
    /// The failure message, if it failed.
    pub failure: Option<String>,
}

/// Runs a job; never panics.
pub fn execute(job: &Job, evaluation: &EvaluationSpec) -> JobOutput {
    let key = JobKey { id: &job.id, replicate: job.replicate, seed: job.seed, params: &job.params };
    let outcome = catch_unwind(AssertUnwindSafe(|| run(job, evaluation, &key)));
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
    JobOutput { rows, curves: Vec::new(), failure: Some(message) }
}

fn injected_fault(id: &str) -> Result<(), String> {
    let Ok(spec) = std::env::var(FAULT_VAR) else { return Ok(()) };
    match spec.split_once(':') {
        Some(("panic", prefix)) if id.starts_with(prefix) => panic!("fault injected by {FAULT_VAR}"),
        Some(("error", prefix)) if id.starts_with(prefix) => Err(format!("fault injected by {FAULT_VAR}")),
        _ => Ok(()),
    }
}

/// How a trained agent picks moves.
enum Agent {
    /// A table over positions.
    Table(Policy),
    /// A search per position, cached.
    Search(crate::solvers::MctsParams),
}

fn run(job: &Job, evaluation: &EvaluationSpec, key: &JobKey<'_>) -> Result<JobOutput, String> {
    injected_fault(&job.id)?;
    let seats = job.params.eval_seats();
    let mut curves = Vec::new();
    let started = Instant::now();
    let agent = match &job.params {
        Params::PolicyIteration(p) => {
            let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, p.seat, p.opponent);
            Agent::Table(policy_iteration::solve(&truth.mdp).policy(&truth.mdp))
        }
        Params::ValueIteration(p) => {
            let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, p.seat, p.opponent);
            Agent::Table(value_iteration::solve(&truth.mdp).0.policy(&truth.mdp))
        }
        Params::QLearning(q) => {
            let marks = checkpoint_episodes(q.episodes, evaluation.checkpoints);
            let mut evaluator = Evaluator::new();
            let mut record = |c: q_learning::Checkpoint, policy: Policy| {
                for &seat in &seats {
                    for &opp in &evaluation.opponents {
                        let s = score_table(&mut evaluator, &policy, seat, opp);
                        curves.push(curve_row(&job.id, c.episode, &s, c.epsilon, c.alpha));
                    }
                }
            };
            let policy = match q.opponent {
                TrainOpponent::SelfPlay => self_play::train(q, job.seed, &marks, |c, t| record(c, t.policy())),
                TrainOpponent::Fixed(_) => q_learning::train(q, job.seed, &marks, |c, t| record(c, t.policy())),
            };
            Agent::Table(policy)
        }
        Params::Mcts(m) => Agent::Search(*m),
    };
    let train_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    let policy = match agent {
        Agent::Table(p) => p,
        Agent::Search(m) => search_policy(&m, job.seed, &seats, &evaluation.opponents),
    };
    let mut evaluator = Evaluator::new();
    let mut scored = Vec::new();
    for &seat in &seats {
        for (k, &opp) in evaluation.opponents.iter().enumerate() {
            let mut s = score_table(&mut evaluator, &policy, seat, opp);
            let stream_key = (seat as u64) << 8 | k as u64;
            let mut rng = seed::keyed_rng(job.seed, Stream::Evaluation, stream_key);
            s.games = if evaluation.games > 0 {
                sample_games(policy.game(), seat, opp, evaluation.games, &mut rng, |b| policy.get_or_first(b))
            } else {
                GameTally::default()
            };
            scored.push(s);
        }
    }
    let eval_ms = started.elapsed().as_secs_f64() * 1e3;
    let rows = scored.iter().map(|s| result_row(key, s, train_ms, eval_ms)).collect();
    Ok(JobOutput { rows, curves, failure: None })
}

/// Exact score of a table policy (positions it lacks: lowest legal cell).
fn score_table(evaluator: &mut Evaluator, policy: &Policy, seat: Seat, opp: Opponent) -> Scored {
    let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, seat, opp);
    let eval = evaluator.evaluate(&truth.mdp, |_, b| policy.get_or_first(b));
    Scored { seat, opponent: opp, eval, optimal: truth.solution.value, games: GameTally::default() }
}

/// Runs one search per position that any evaluation reaches, and returns the moves as a
/// table. Each search is seeded by the job seed and the position, so the table is the
/// same whatever order the positions are met in.
pub fn search_policy(m: &crate::solvers::MctsParams, seed: u64, seats: &[Seat], opponents: &[Opponent]) -> Policy {
    let mut searcher = Searcher::new();
    let mut policy = Policy::new(crate::game::Game::TIC_TAC_TOE);
    let mut evaluator = Evaluator::new();
    for &seat in seats {
        for &opp in opponents {
            let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, seat, opp);
            evaluator.evaluate(&truth.mdp, |s, b| {
                let pos = truth.mdp.position(s);
                match policy.get(b) {
                    Some(c) => c,
                    None => {
                        let c = searcher.choose(m, seed, b);
                        policy.set(pos, c);
                        c
                    }
                }
            });
        }
    }
    policy
}

/// The job's final greedy policy (trained again from its seed, without checkpoints), over
/// every position that the evaluations reach. Used by `reproduce --policy-out` and `play`.
pub fn policy(job: &Job, evaluation: &EvaluationSpec) -> Policy {
    let seats = job.params.eval_seats();
    match &job.params {
        Params::PolicyIteration(p) | Params::ValueIteration(p) => {
            let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, p.seat, p.opponent);
            truth.solution.policy(&truth.mdp)
        }
        Params::QLearning(q) => match q.opponent {
            TrainOpponent::SelfPlay => self_play::train(q, job.seed, &[], |_, _| {}),
            TrainOpponent::Fixed(_) => q_learning::train(q, job.seed, &[], |_, _| {}),
        },
        Params::Mcts(m) => {
            let mut opponents = evaluation.opponents.clone();
            if !opponents.contains(&Opponent::Random) {
                opponents.push(Opponent::Random);
            }
            search_policy(m, job.seed, &seats, &opponents)
        }
    }
}
