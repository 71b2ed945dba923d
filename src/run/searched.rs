//! One job on a board too big to enumerate (Connect Four, `6x7g4`): its agent is asked
//! only the positions its evaluation reaches, and the search values them
//! ([`crate::oracle::Scorer`]), so every row is exact where the reached positions fit and
//! labelled `sampled` or `bound` where they do not.
//!
//! The agent is an MCTS search over bitboards ([`crate::oracle::Uct`], seeded per position
//! by the job's seed, so a deterministic policy) or the job's program run as a policy
//! server ([`super::program::serve`]): it trains as it likes, then answers batches of
//! positions on its standard input. Every job of a run on one board searches with one
//! shared transposition table ([`crate::oracle::shared_table`], [`SEARCH_TABLE_BYTES`]),
//! so a position one job valued is known to the next.
//!
//! The rows: `value` and `p_win`/`p_draw`/`p_loss` against each evaluation opponent from
//! `[evaluation] from` (default the empty board); `optimal_value` the seat's game value
//! against `minimax`, `minimax-uniform` and a best response (perfect play reaches it and
//! they concede no more), and against `random` 1 when the seat wins by force, else empty
//! (no exact optimum is known without the whole table), with `regret` empty with it;
//! `accuracy` the share of the agent's moves that are optimal, weighted by how often play
//! reaches them; `states` the positions the figure kept or searched; `metrics` the
//! positions the agent was asked in that seat, all its rows together (`{"asked": n}`;
//! each position is asked once).

use std::time::{Duration, Instant};

use std::path::Path;

use super::StopToken;
use super::program::{self, Killed, Slots};
use crate::job::Job;
use crate::kinds::{Agent as Trained, Execution};
use crate::mdp::{EvalOpponent, Opponent, Seat};
use crate::oracle::{Against, Agent, Asked, Figure, Limits, Position, Scorer, Shape, Solver, Uct};
use crate::report::rows::{JobKey, head, regret};
use crate::report::{Field, Record};
use crate::seed;
use crate::solvers::params::fmt_f64;
use crate::spec::{EvaluationSpec, SAMPLED_GAMES};

/// The transposition table every job of a run on one searched board shares (1 GiB; its
/// memory is mapped as the search first touches it).
pub const SEARCH_TABLE_BYTES: usize = 1 << 30;

/// The most positions a row keeps for an exact evaluation against `random` (or a best
/// response's layers) before it samples games (or searches for the best response).
pub const EXACT_POSITIONS: usize = 2_000_000;

/// The most positions a best-response search visits before its row reports a bound.
pub const NODE_BUDGET: u64 = 50_000_000;

/// Positions a policy server is asked per batch.
pub const BATCH: usize = 1024;

/// The opponent of `eval_opponent` as the scorer plays it (a saved policy is refused
/// when the spec is read).
fn against(opp: EvalOpponent) -> Result<Against, String> {
    Ok(match opp {
        EvalOpponent::BestResponse => Against::BestResponse,
        EvalOpponent::Fixed(Opponent::Random) => Against::Random,
        EvalOpponent::Fixed(Opponent::Minimax) => Against::Minimax,
        EvalOpponent::Fixed(Opponent::MinimaxUniform) => Against::MinimaxUniform,
        other => return Err(format!("{} cannot be played on a board too big to enumerate", other.name())),
    })
}

/// What a job on a searched board gave: its rows, or nothing because the run stopped while
/// its program ran (the job runs again on resume).
pub enum Ran {
    Rows(Vec<Record>),
    Abandoned,
}

/// Where a job runs: the results folder (the logs of a failed program go under it), the
/// run's stop token and its program slots.
pub struct Place<'a> {
    pub results: &'a Path,
    pub stop: &'a StopToken,
    pub slots: &'a Slots,
}

/// Runs a job on a searched board.
pub fn run(job: &Job, evaluation: &EvaluationSpec, key: &JobKey<'_>, place: &Place<'_>) -> Result<Ran, String> {
    let game = job.params.game();
    let root = match &evaluation.from {
        Some(from) => crate::spec::start_position(game, from)?,
        None => Position::empty(Shape::of_game(game)),
    };
    let started = Instant::now();
    // Only kinds whose game is a `SEARCHED_GAME` get here (the spec reader refuses the
    // others on these boards): a search, which trains nothing, and programs.
    match job.params.execution() {
        Execution::InProcess(kind) => {
            let Trained::Search(m) = kind.train(job.seed, &[], &mut |_, _| {}) else {
                return Err(format!("{} does not play boards too big to enumerate", job.params.solver_name()));
            };
            if m.opponent_model != crate::solvers::OpponentModel::Adversarial
                || m.final_move != crate::solvers::FinalMove::Visits
            {
                return Err(format!(
                    "on {game} MCTS searches with opponent_model = \"adversarial\" and final_move = \"visits\" only"
                ));
            }
            let mut agent = Uct::new(m.iterations, m.uct_c, job.seed);
            let scored = score(job, evaluation, root, &mut agent)?;
            Ok(rows(key, &scored, 0.0, started.elapsed()))
        }
        Execution::Program(point) => {
            let env = program::Env {
                job_id: &job.id,
                seed: job.seed,
                checkpoints: &[],
                results: place.results,
                stop: place.stop,
                slots: place.slots,
                from: evaluation.from.as_deref(),
            };
            let Some(mut serving) = program::serve(point, &env, BATCH)? else {
                return Ok(Ran::Abandoned);
            };
            let scored = score(job, evaluation, root, &mut serving.server);
            match (scored, serving.killed()) {
                (_, Some(Killed::Stopped)) => Ok(Ran::Abandoned),
                (Ok(s), _) => {
                    // Training is what comes before the first answer; the rest is the
                    // evaluation (the program's answers and the search).
                    let wall = started.elapsed();
                    let training = serving.server.first_answer().unwrap_or_default().min(wall);
                    Ok(rows(key, &s, training.as_secs_f64() * 1e3, wall - training))
                }
                (Err(why), killed) => {
                    let logs = serving.logs();
                    logs.keep(place.results, &job.id);
                    // The watchdog ends the program at the job's timeout; a batch's own wait
                    // is longer, so a program that outlived its timeout is named as such.
                    let timed_out = started.elapsed() >= point.program.timeout;
                    let why = match killed {
                        _ if timed_out => format!(
                            "timed out after {} s (the solver's timeout) while answering positions",
                            crate::kinds::param::fmt_short(point.program.timeout.as_secs_f64())
                        ),
                        _ => why,
                    };
                    Err(logs.explain(why))
                }
            }
        }
    }
}

/// One row's figure: its seat, opponent, optimum (if known) and the positions its agent
/// was asked in that seat, all its rows together.
struct RowFigure {
    seat: Seat,
    opponent: EvalOpponent,
    figure: Figure,
    optimal: Option<f64>,
    asked: usize,
}

/// Every row's figure of `agent`, seat by seat (the agent is asked each position once per
/// seat).
fn score(
    job: &Job,
    evaluation: &EvaluationSpec,
    root: Position,
    agent: &mut dyn Agent,
) -> Result<Vec<RowFigure>, String> {
    let game = job.params.game();
    let table = crate::oracle::shared_table(Shape::of_game(game), SEARCH_TABLE_BYTES);
    let mut solver = Solver::on_table(table);
    let games = if evaluation.games > 0 { evaluation.games } else { SAMPLED_GAMES };
    let mut rows = Vec::new();
    for seat in job.params.eval_seats() {
        let mut asked = Asked::new(agent);
        for (k, &opp) in evaluation.opponents.iter().enumerate() {
            let limits = Limits {
                positions: EXACT_POSITIONS,
                nodes: NODE_BUDGET,
                games: u32::try_from(games).unwrap_or(u32::MAX),
                seed: seed::mix(job.seed, (seat as u64) << 8 | k as u64),
                threads: 1,
            };
            let mut scorer = Scorer::new(root, seat == Seat::X, &mut asked, &mut solver, limits);
            let value = f64::from(scorer.game_value());
            let figure = scorer.score(against(opp)?)?;
            let optimal = match opp {
                EvalOpponent::Fixed(Opponent::Random) => (value == 1.0).then_some(1.0),
                _ => Some(value),
            };
            rows.push(RowFigure { seat, opponent: opp, figure, optimal, asked: 0 });
        }
        let seat_rows = evaluation.opponents.len();
        let at = rows.len() - seat_rows;
        for row in &mut rows[at..] {
            row.asked = asked.asked();
        }
    }
    Ok(rows)
}

/// The job's rows: `train_ms` a program's time to its first answer (its start and
/// training; 0 for MCTS, which does not train), `eval_ms` the rest of the job's wall time.
fn rows(key: &JobKey<'_>, scored: &[RowFigure], train_ms: f64, eval: Duration) -> Ran {
    let eval_ms = eval.as_secs_f64() * 1e3;
    let rows = scored
        .iter()
        .map(|row| {
            let f = &row.figure;
            let mut r = head(key, row.seat, row.opponent);
            let games = f.games.map_or(0, u64::from);
            let count = |p: f64| if games == 0 { 0 } else { (p * games as f64).round() as u64 };
            let se = f.half_width.map_or(0.0, |h| h / 1.959_963_984_540_054);
            let fields: [(Field, String); 17] = [
                (Field::Value, fmt_f64(f.value)),
                (Field::OptimalValue, row.optimal.map(fmt_f64).unwrap_or_default()),
                (Field::Regret, row.optimal.map(|o| fmt_f64(regret(o, f.value))).unwrap_or_default()),
                (Field::PWin, fmt_f64(f.p_win)),
                (Field::PDraw, fmt_f64(f.p_draw)),
                (Field::PLoss, fmt_f64(f.p_loss)),
                (Field::Games, games.to_string()),
                (Field::Wins, count(f.p_win).to_string()),
                (Field::Draws, count(f.p_draw).to_string()),
                (Field::Losses, count(f.p_loss).to_string()),
                (Field::States, f.positions.to_string()),
                (Field::Status, "ok".to_string()),
                (Field::TrainMs, format!("{train_ms:.3}")),
                (Field::EvalMs, format!("{eval_ms:.3}")),
                (Field::Evaluation, f.method.name().to_string()),
                (Field::ValueSe, fmt_f64(se)),
                (Field::Accuracy, f.accuracy.map(fmt_f64).unwrap_or_default()),
            ];
            for (field, value) in fields {
                r[field.column()] = value;
            }
            r[Field::Metrics.column()] = format!("{{\"asked\":{}}}", row.asked);
            r
        })
        .collect();
    Ran::Rows(rows)
}
