//! One job on a board too big to enumerate (Connect Four, `6x7g4`): its agent is asked
//! only the positions its evaluation reaches, and the search values them
//! ([`crate::oracle::Scorer`]), so every row is exact where the reached positions fit and
//! labelled `sampled` or `bound` where they do not.
//!
//! The agent is an MCTS search over bitboards ([`crate::oracle::Uct`], seeded per position
//! by the job's seed, so a deterministic policy) or the job's program run as a policy
//! server ([`super::program::serve`]): it trains as it likes, then answers batches of
//! positions on its standard input. With `serve_checkpoints` it announces each checkpoint
//! policy while it trains (protocol `positions/2`), and each is scored like the final
//! one: a `curves.csv` row per exact figure, `regret_auc` and `solved_at` where every
//! checkpoint's regret is known. Every job of a run on one board searches with one
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
//! each position is asked once; `asked_at_checkpoints` the same over its checkpoints).

use std::time::{Duration, Instant};

use std::path::Path;

use super::StopToken;
use super::policy_server::{Announced, PolicyServer};
use super::program::{self, Killed, Slots};
use crate::job::Job;
use crate::kinds::{Agent as Trained, Execution};
use crate::mdp::{EvalOpponent, Opponent, Seat};
use crate::oracle::{Against, Agent, Asked, Figure, Limits, Method, Position, Scorer, Shape, Solver, Uct};
use crate::report::rows::{CurvePoint, JobKey, head, regret};
use crate::report::{Field, Record};
use crate::seed;
use crate::solvers::params::fmt_f64;
use crate::spec::{EvaluationSpec, SAMPLED_GAMES};
use crate::stats::curve::curve_metrics;

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
    /// Its `results.csv` rows and `curves.csv` rows (a program serving its checkpoints).
    Rows {
        rows: Vec<Record>,
        curves: Vec<Record>,
    },
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
        Execution::Program(point) => run_program(job, point, evaluation, (key, place), root),
    }
}

/// A program's job: started as a policy server, scored at each checkpoint it serves and
/// for its final policy.
fn run_program(
    job: &Job,
    point: &crate::kinds::CommandPoint,
    evaluation: &EvaluationSpec,
    (key, place): (&JobKey<'_>, &Place<'_>),
    root: Position,
) -> Result<Ran, String> {
    let started = Instant::now();
    // The episodes whose policies a positions/2 program may announce: 0 (before
    // training, the curve metrics' start) and the evaluation's checkpoints.
    let marks = match point.program.serve_checkpoints {
        true => evaluation.marks(point.episodes()),
        false => Vec::new(),
    };
    let env = program::Env {
        job_id: &job.id,
        seed: job.seed,
        checkpoints: &marks,
        results: place.results,
        stop: place.stop,
        slots: place.slots,
        from: evaluation.from.as_deref(),
    };
    let Some(mut serving) = program::serve(point, &env, BATCH)? else {
        return Ok(Ran::Abandoned);
    };
    let served = match point.program.serve_checkpoints {
        true => served_checkpoints(job, evaluation, root, &mut serving.server, &marks),
        false => Ok(Served::default()),
    };
    let scored = served.and_then(|mut served| {
        let figures = score(job, evaluation, root, &mut serving.server)?;
        served.final_is_last(&marks, &figures);
        // Its input closed, its grace to exit by itself, nothing more said.
        serving.server.finish()?;
        Ok((served, figures))
    });
    match (scored, serving.killed()) {
        (_, Some(Killed::Stopped)) => Ok(Ran::Abandoned),
        (Ok((served, figures)), _) => {
            // Training is what comes before the final policy's first answer, but
            // the checkpoints' evaluations; the rest is the evaluation (the
            // program's answers and the search).
            let wall = started.elapsed();
            // positions/2: the final policy's announcement; positions/1: its first answer.
            let ready = served.final_at.or(serving.server.first_answer()).unwrap_or_default();
            let training = ready.saturating_sub(served.evaluating).min(wall);
            let mut ran = rows(key, &figures, training.as_secs_f64() * 1e3, wall - training);
            if let Ran::Rows { rows, curves } = &mut ran {
                served.write(&job.id, &figures, rows, curves);
            }
            Ok(ran)
        }
        (Err(why), killed) => {
            let logs = serving.logs();
            logs.keep(place.results, &job.id);
            // The watchdog ends the program at the job's timeout; a batch's own wait
            // is longer, so a program that outlived its timeout is named as such.
            let timed_out = started.elapsed() >= point.program.timeout;
            let seconds = crate::kinds::param::fmt_short(point.program.timeout.as_secs_f64());
            let why = match killed {
                _ if timed_out && point.program.serve_checkpoints => format!(
                    "timed out after {seconds} s (the solver's timeout) while training or answering \
                     positions; with serve_checkpoints = true the program announces each policy before it \
                     answers (`checkpoint <episodes>`, `final`: protocol positions/2)"
                ),
                _ if timed_out => {
                    format!("timed out after {seconds} s (the solver's timeout) while answering positions")
                }
                _ => why,
            };
            Err(logs.explain(why))
        }
    }
}

/// What a `positions/2` program's checkpoints gave: every row's figure at each checkpoint
/// it announced, the time spent evaluating them, and when (from its start) it announced
/// its final policy.
#[derive(Default)]
struct Served {
    checkpoints: Vec<(u64, Vec<RowFigure>)>,
    evaluating: Duration,
    final_at: Option<Duration>,
}

/// Scores each checkpoint a `positions/2` program announces, up to its final policy.
fn served_checkpoints(
    job: &Job,
    evaluation: &EvaluationSpec,
    root: Position,
    server: &mut PolicyServer,
    marks: &[u64],
) -> Result<Served, String> {
    let mut served = Served::default();
    loop {
        match server.announced()? {
            Announced::Final => {
                served.final_at = Some(server.age());
                return Ok(served);
            }
            Announced::Checkpoint(episode) => {
                if !marks.contains(&episode) {
                    let asked: Vec<String> = marks.iter().map(u64::to_string).collect();
                    return Err(format!(
                        "the policy program announced checkpoint {episode}, which sweep did not ask for \
                         ($SWEEP_CHECKPOINT_EPISODES = {})",
                        asked.join(",")
                    ));
                }
                if let Some(&(last, _)) = served.checkpoints.last()
                    && episode <= last
                {
                    return Err(format!(
                        "the policy program announced checkpoint {episode} after checkpoint {last}: checkpoints \
                         come in rising order"
                    ));
                }
                let at = Instant::now();
                let figures = score(job, evaluation, root, server)?;
                served.evaluating += at.elapsed();
                served.checkpoints.push((episode, figures));
                server.resume()?;
            }
        }
    }
}

impl Served {
    /// The last checkpoint (the episodes trained) is the final policy when the program
    /// served some checkpoints but not that one: its figures are the final ones, asked
    /// nothing more.
    fn final_is_last(&mut self, marks: &[u64], figures: &[RowFigure]) {
        let Some(&last) = marks.last().filter(|&&e| e > 0) else { return };
        if self.checkpoints.is_empty() || self.checkpoints.last().is_some_and(|c| c.0 == last) {
            return;
        }
        let at = figures.iter().map(|f| RowFigure { asked: 0, ..f.clone() }).collect();
        self.checkpoints.push((last, at));
    }

    /// Adds the checkpoints to the job's rows (`figures` the final policy's, in the same
    /// order): a curve row per checkpoint after episode 0 and row whose figure is exact
    /// (a sampled or bounded figure is no point of a curve), `regret_auc` and `solved_at`
    /// where every checkpoint's regret is known, and the positions asked at the
    /// checkpoints in `metrics`.
    fn write(&self, job_id: &str, figures: &[RowFigure], rows: &mut [Record], curves: &mut Vec<Record>) {
        if self.checkpoints.is_empty() {
            return;
        }
        for (k, row) in rows.iter_mut().enumerate() {
            let mut start = None;
            let mut points = Vec::new();
            let mut complete = true;
            let mut asked = 0;
            for (episode, at) in &self.checkpoints {
                let f = &at[k];
                asked += f.asked;
                let regret = match (f.figure.method, f.optimal) {
                    (Method::Exact, Some(o)) => Some(regret(o, f.figure.value)),
                    _ => None,
                };
                complete &= regret.is_some();
                match (*episode, regret) {
                    (0, r) => start = r,
                    (e, Some(r)) => points.push((e, r)),
                    (_, None) => {}
                }
                if *episode > 0 && f.figure.method == Method::Exact {
                    let point = CurvePoint {
                        job_id,
                        episode: *episode,
                        seat: f.seat,
                        opponent: f.opponent,
                        value: f.figure.value,
                        regret,
                        p_win: f.figure.p_win,
                        p_draw: f.figure.p_draw,
                        p_loss: f.figure.p_loss,
                        epsilon: None,
                        alpha: None,
                    };
                    curves.push(point.record());
                }
            }
            if complete && let Some(first) = points.first().map(|p| p.1) {
                let metrics = curve_metrics(start.unwrap_or(first), &points).expect("points");
                row[Field::RegretAuc.column()] = fmt_f64(metrics.regret_auc);
                row[Field::SolvedAt.column()] = metrics.solved_at.map(|e| e.to_string()).unwrap_or_default();
            }
            // Each policy is asked a position once per seat, whatever the row's opponent.
            row[Field::Metrics.column()] =
                format!("{{\"asked\":{},\"asked_at_checkpoints\":{asked}}}", figures[k].asked);
        }
    }
}

/// One row's figure: its seat, opponent, optimum (if known) and the positions its agent
/// was asked in that seat, all its rows together.
#[derive(Clone)]
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
    Ran::Rows { rows, curves: Vec::new() }
}
