//! Building rows: one `results.csv` row per (job, evaluated seat, evaluation opponent),
//! one `curves.csv` row per (checkpoint, seat, evaluation opponent).

use super::{CURVE_COLUMNS, CurveField, Field, ParamColumn, RESULT_COLUMNS, Record, column};
use crate::kinds::Params;
use crate::mdp::{EvalOpponent, Evaluation, GameTally, Seat};
use crate::solvers::params::fmt_f64;
use crate::stats::curve::CurveMetrics;

/// A regret whose magnitude is below this is floating-point noise and is reported as 0.
pub const REGRET_NOISE: f64 = 1e-12;

/// Regret with the noise of different summation orders removed.
pub fn regret(optimal: f64, value: f64) -> f64 {
    let r = optimal - value;
    if r.abs() < REGRET_NOISE { 0.0 } else { r }
}

/// What identifies a job in its rows.
#[derive(Clone, Debug)]
pub struct JobKey<'a> {
    /// The job id.
    pub id: &'a str,
    /// The label of the job's solver.
    pub label: &'a str,
    /// The replicate number.
    pub replicate: u32,
    /// The job's seed.
    pub seed: u64,
    /// The grid point.
    pub params: &'a Params,
    /// The rung of a search, if the job is one's.
    pub rung: Option<u32>,
    /// Tuning or test (`[test]`).
    pub split: crate::job::Split,
    /// The trial (configuration number) and round of a search, if the job is one's.
    pub trial: Option<(u32, u32)>,
    /// The program parameters' columns of the run's results (after every fixed column).
    pub extras: &'a [&'static str],
}

/// The exact and sampled result of one evaluated policy.
#[derive(Clone, Copy, Debug)]
pub struct Scored {
    /// The seat evaluated.
    pub seat: Seat,
    /// The evaluation opponent.
    pub opponent: EvalOpponent,
    /// Exact evaluation.
    pub eval: Evaluation,
    /// The optimum of (seat, opponent).
    pub optimal: f64,
    /// Sampled games (zero games when none were asked for).
    pub games: GameTally,
    /// `None` when `eval` is exact; else the standard error of its value, estimated
    /// from the sampled games it was computed from (`games`).
    pub sampled: Option<f64>,
}

/// A row of `job` in `seat` against `opponent` with its key columns filled in and the
/// rest empty.
pub fn head(job: &JobKey<'_>, seat: Seat, opponent: EvalOpponent) -> Record {
    let mut r = vec![String::new(); RESULT_COLUMNS.len() + job.extras.len()];
    r[Field::JobId.column()] = job.id.to_string();
    if let Some(point) = job.params.program() {
        for (name, value) in point.own() {
            let at = job.extras.iter().position(|&c| c == name).expect("a program's parameter has a column");
            r[RESULT_COLUMNS.len() + at] = value.show();
        }
    }
    r[Field::Solver.column()] = job.params.solver_name().to_string();
    r[Field::Replicate.column()] = job.replicate.to_string();
    r[Field::Seed.column()] = job.seed.to_string();
    r[Field::Label.column()] = job.label.to_string();
    for (name, value) in job.params.columns() {
        r[column(name)] = value;
    }
    r[ParamColumn::Seat.column()] = seat.name().to_string();
    r[Field::EvalOpponent.column()] = opponent.name().to_string();
    r[Field::Rung.column()] = job.rung.map(|k| k.to_string()).unwrap_or_default();
    r[Field::Split.column()] = job.split.name().to_string();
    if let Some((trial, round)) = job.trial {
        r[Field::Trial.column()] = trial.to_string();
        r[Field::Round.column()] = round.to_string();
    }
    r
}

/// A successful row; `curve` holds the learning-curve metrics of a learner and `q_error`
/// its learned table's distance to its target (both empty when there is none).
pub fn result_row(
    job: &JobKey<'_>,
    s: &Scored,
    curve: Option<CurveMetrics>,
    q_error: Option<f64>,
    train_ms: f64,
    eval_ms: f64,
) -> Record {
    let mut r = head(job, s.seat, s.opponent);
    let e = &s.eval;
    let (how, se) = match s.sampled {
        None => ("exact", 0.0),
        Some(se) => ("sampled", se),
    };
    let fields: [(Field, String); 16] = [
        (Field::Value, fmt_f64(e.value)),
        (Field::OptimalValue, fmt_f64(s.optimal)),
        (Field::Regret, fmt_f64(regret(s.optimal, e.value))),
        (Field::PWin, fmt_f64(e.p_win)),
        (Field::PDraw, fmt_f64(e.p_draw)),
        (Field::PLoss, fmt_f64(e.p_loss)),
        (Field::Games, s.games.games().to_string()),
        (Field::Wins, s.games.wins.to_string()),
        (Field::Draws, s.games.draws.to_string()),
        (Field::Losses, s.games.losses.to_string()),
        (Field::States, e.states.to_string()),
        (Field::Status, "ok".to_string()),
        (Field::TrainMs, format!("{train_ms:.3}")),
        (Field::EvalMs, format!("{eval_ms:.3}")),
        (Field::Evaluation, how.to_string()),
        (Field::ValueSe, fmt_f64(se)),
    ];
    for (field, value) in fields {
        r[field.column()] = value;
    }
    if let Some(c) = curve {
        r[Field::RegretAuc.column()] = fmt_f64(c.regret_auc);
        r[Field::SolvedAt.column()] = c.solved_at.map(|e| e.to_string()).unwrap_or_default();
    }
    if let Some(q_error) = q_error {
        r[Field::QError.column()] = fmt_f64(q_error);
    }
    r
}

/// The `metrics` cell of an MCTS row: the positions its job searched (every row of the
/// job holds the same number; searches are shared between its rows).
pub fn search_metrics(searches: usize) -> String {
    format!("{{\"searches\":{searches}}}")
}

/// The positions an MCTS row's job searched, read from its `metrics` cell (`None` for a
/// row of another solver, or one written before the number was kept).
pub fn searches(metrics: &str) -> Option<u64> {
    if !metrics.starts_with("{\"searches\":") {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(metrics).ok()?;
    value.get("searches")?.as_u64()
}

/// A failed row: parameters, status `failed` and the message; no metrics.
pub fn failed_row(job: &JobKey<'_>, seat: Seat, opponent: EvalOpponent, error: &str) -> Record {
    let mut r = head(job, seat, opponent);
    r[Field::Status.column()] = "failed".to_string();
    r[Field::Error.column()] = error.replace(['\n', '\r'], " ");
    r
}

/// A learning-curve row of a learner's checkpoint: its exact figure, its regret, and the
/// learner's exploration and step size then.
pub fn curve_row(job_id: &str, episode: u64, s: &Scored, epsilon: f64, alpha: f64) -> Record {
    CurvePoint { epsilon: Some(epsilon), alpha: Some(alpha), ..CurvePoint::of_scored(job_id, episode, s) }.record()
}

/// One learning-curve row's cells, as each writer of `curves.csv` has them: one policy's
/// exact figure at `episode`, in one seat against one opponent. A cell that does not
/// apply is `None` and written empty: a program's exploration and step size are its own,
/// and a search's figure has no regret where the optimum is not known.
#[derive(Clone, Debug)]
pub struct CurvePoint<'a> {
    pub job_id: &'a str,
    pub episode: u64,
    pub seat: Seat,
    pub opponent: EvalOpponent,
    pub value: f64,
    pub regret: Option<f64>,
    pub p_win: f64,
    pub p_draw: f64,
    pub p_loss: f64,
    pub epsilon: Option<f64>,
    pub alpha: Option<f64>,
}

impl<'a> CurvePoint<'a> {
    /// The point of an exact evaluation against the enumerated optimum, with no
    /// exploration or step size.
    pub fn of_scored(job_id: &'a str, episode: u64, s: &Scored) -> CurvePoint<'a> {
        let e = &s.eval;
        CurvePoint {
            job_id,
            episode,
            seat: s.seat,
            opponent: s.opponent,
            value: e.value,
            regret: Some(regret(s.optimal, e.value)),
            p_win: e.p_win,
            p_draw: e.p_draw,
            p_loss: e.p_loss,
            epsilon: None,
            alpha: None,
        }
    }

    /// The row, in file order.
    pub fn record(&self) -> Record {
        let number = |x: Option<f64>| x.map(fmt_f64).unwrap_or_default();
        let cells: [(CurveField, String); CURVE_COLUMNS.len()] = [
            (CurveField::JobId, self.job_id.to_string()),
            (CurveField::Episode, self.episode.to_string()),
            (CurveField::Seat, self.seat.name().to_string()),
            (CurveField::EvalOpponent, self.opponent.name().to_string()),
            (CurveField::Value, fmt_f64(self.value)),
            (CurveField::Regret, number(self.regret)),
            (CurveField::PWin, fmt_f64(self.p_win)),
            (CurveField::PDraw, fmt_f64(self.p_draw)),
            (CurveField::PLoss, fmt_f64(self.p_loss)),
            (CurveField::Epsilon, number(self.epsilon)),
            (CurveField::Alpha, number(self.alpha)),
        ];
        debug_assert!(cells.iter().enumerate().all(|(i, (f, _))| f.column() == i), "in file order");
        cells.into_iter().map(|(_, cell)| cell).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::Evaluation;

    fn scored() -> Scored {
        let eval = Evaluation { value: 0.5, p_win: 0.6, p_draw: 0.3, p_loss: 0.1, states: 7 };
        Scored {
            seat: Seat::O,
            opponent: EvalOpponent::Fixed(crate::mdp::Opponent::Random),
            eval,
            optimal: 0.75,
            games: GameTally::default(),
            sampled: None,
        }
    }

    #[test]
    fn a_curve_point_writes_its_cells_in_file_order_and_leaves_what_does_not_apply_empty() {
        let cell = |r: &Record, f: CurveField| r[f.column()].clone();
        // A learner's point: every cell, the regret from the optimum.
        let learner = curve_row("j1", 200, &scored(), 0.25, 0.5);
        assert_eq!(learner.len(), CURVE_COLUMNS.len());
        assert_eq!(cell(&learner, CurveField::JobId), "j1");
        assert_eq!(cell(&learner, CurveField::Episode), "200");
        assert_eq!(cell(&learner, CurveField::Seat), "o");
        assert_eq!(cell(&learner, CurveField::EvalOpponent), "random");
        assert_eq!(cell(&learner, CurveField::Regret), fmt_f64(0.25));
        assert_eq!(cell(&learner, CurveField::PLoss), fmt_f64(0.1));
        assert_eq!(cell(&learner, CurveField::Epsilon), fmt_f64(0.25));
        assert_eq!(cell(&learner, CurveField::Alpha), fmt_f64(0.5));
        // A program's point: the same figure, its exploration and step size empty.
        let program = CurvePoint::of_scored("j1", 200, &scored()).record();
        assert_eq!(program[..CurveField::Epsilon.column()], learner[..CurveField::Epsilon.column()]);
        assert_eq!(cell(&program, CurveField::Epsilon), "");
        assert_eq!(cell(&program, CurveField::Alpha), "");
        // A searched point whose optimum is not known: no regret.
        let searched = CurvePoint { regret: None, ..CurvePoint::of_scored("j1", 200, &scored()) }.record();
        assert_eq!(cell(&searched, CurveField::Regret), "");
        assert_eq!(cell(&searched, CurveField::Value), fmt_f64(0.5));
    }
}
