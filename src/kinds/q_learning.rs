//! `q-learning`: tabular Q-learning against a fixed opponent (`solvers/q_learning.rs`) or
//! in self-play (`opponent = "self"`, `solvers/self_play.rs`), with its parameters and
//! cost. Its learning curve has a point after each checkpoint episode the job asks for.

use super::param::{
    ALPHA, ALPHA_DECAY, ALPHA_MIN, EPISODES, EPSILON, EPSILON_DECAY, EPSILON_MIN, GAMMA, Q_INIT, SEAT, SYMMETRY,
    TRAIN_OPPONENT,
};
use super::{Agent, Declared, Param, Solver, Val, Values, Work};
use crate::bench::Calibration;
use crate::mdp::{Policy, Seat};
use crate::solvers::q_learning::{self, Checkpoint};
use crate::solvers::{QParams, TrainOpponent, self_play};
use crate::spec::EvaluationSpec;

impl Declared for QParams {
    const NAME: &'static str = "q-learning";
    const PARAMS: &'static [&'static Param] = &[
        &SEAT,
        &TRAIN_OPPONENT,
        &EPISODES,
        &ALPHA,
        &ALPHA_DECAY,
        &ALPHA_MIN,
        &GAMMA,
        &EPSILON,
        &EPSILON_DECAY,
        &EPSILON_MIN,
        &Q_INIT,
        &SYMMETRY,
    ];

    fn build(v: &Values<'_>) -> QParams {
        QParams {
            seat: v.choice(&SEAT),
            opponent: v.choice(&TRAIN_OPPONENT),
            episodes: v.count(&EPISODES),
            alpha: v.real(&ALPHA),
            alpha_decay: v.real(&ALPHA_DECAY),
            alpha_min: v.real(&ALPHA_MIN),
            gamma: v.real(&GAMMA),
            epsilon: v.real(&EPSILON),
            epsilon_decay: v.real(&EPSILON_DECAY),
            epsilon_min: v.real(&EPSILON_MIN),
            q_init: v.real(&Q_INIT),
            symmetry: v.flag(&SYMMETRY),
        }
    }
}

impl Solver for QParams {
    fn values(&self) -> Vec<Val> {
        vec![
            Val::Name(self.seat.name()),
            Val::Name(self.opponent.name()),
            Val::Count(self.episodes),
            Val::Real(self.alpha),
            Val::Real(self.alpha_decay),
            Val::Real(self.alpha_min),
            Val::Real(self.gamma),
            Val::Real(self.epsilon),
            Val::Real(self.epsilon_decay),
            Val::Real(self.epsilon_min),
            Val::Real(self.q_init),
            Val::Flag(self.symmetry),
        ]
    }

    fn work(&self) -> Work {
        Work { episodes: self.episodes, iterations: 0 }
    }

    /// Training, plus an exact evaluation per checkpoint, seat and opponent.
    fn seconds(&self, seats: &[Seat], evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
        // Self-play games are about twice as long as the agent's half of a game.
        let games_per_episode = if self.opponent == TrainOpponent::SelfPlay { 2.0 } else { 1.0 };
        let evals = (seats.len() * evaluation.opponents.len()) as f64;
        self.episodes as f64 * games_per_episode / cal.q_per_s
            + f64::from(evaluation.checkpoints) * evals * (cal.eval_s + 2e-5)
    }

    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &Policy)) -> Agent {
        let policy = match self.opponent {
            TrainOpponent::SelfPlay => self_play::train(self, seed, marks, |c, t| record(c, &t.policy())),
            TrainOpponent::Fixed(_) => q_learning::train(self, seed, marks, |c, t| record(c, &t.policy())),
        };
        Agent::Table(policy)
    }
}
