//! `q-lambda`: Watkins's Q(lambda) against a fixed opponent or in self-play
//! (`solvers/q_lambda.rs`), with the tabular learners' parameters (`kinds/learner.rs`), its
//! `lambda` and its cost (its row in `solvers/learners.rs`). Its learning curve has
//! `checkpoints` points; its `q_error` target is Q*.

use super::learner;
use super::param::LAMBDA;
use super::{Agent, Declared, Execution, Param, Seats, Solver, Train, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::Need;
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Opponent, Seat};
use crate::solvers::tabular::Checkpoint;
use crate::solvers::{QLambdaParams, TrainOpponent, q_lambda};

impl Declared for QLambdaParams {
    const NAME: &'static str = "q-lambda";
    const PARAMS: &'static [&'static Param] = learner::TRACED_PARAMS;
    const RUNS_A_PROGRAM: bool = false;

    fn build(v: &Values<'_>) -> Option<QLambdaParams> {
        Some(QLambdaParams { learner: learner::build(v), lambda: v.real(&LAMBDA) })
    }
}

impl Solver for QLambdaParams {
    fn values(&self) -> Vec<Val> {
        learner::values_with(&self.learner, &[Val::Real(self.lambda)])
    }

    fn work(&self) -> Work {
        Work { episodes: self.learner.episodes, iterations: 0 }
    }

    fn seats(&self) -> Seats {
        Seats::of(self.learner.seat, self.learner.opponent)
    }

    /// A learner's; in self-play its traces span both sides' moves, which costs more
    /// per episode on some boards ([`crate::cost::boards::traces_self_play`]). Its
    /// policies reach more states than Q-learning's in an evaluation: 1.5 times as many
    /// trained against random, four times after self-play (measured on 3x4k4 and 4x4g4:
    /// 1.2 to 1.8 times against random as a seat, 1.7 to 2.6 in self-play, 5 to 8 against
    /// minimax-uniform after self-play); trained against minimax, as many (3x4k3 as O:
    /// a tenth of a millisecond an evaluation).
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        let mut load = learner::load(&self.learner, Self::NAME, seats, evaluation);
        if let Some(t) = load.training.as_mut().filter(|t| t.seat.is_none()) {
            t.extra = if self.lambda > 0.0 { crate::cost::boards::traces_self_play(self.learner.game) } else { 0.0 };
        }
        load.evaluations *= match self.learner.opponent {
            TrainOpponent::SelfPlay => 4.0,
            TrainOpponent::Fixed(Opponent::Random) => 1.5,
            TrainOpponent::Fixed(_) => 1.0,
        };
        load
    }

    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        learner::memory(&self.learner, Self::NAME, 0, seats, evaluation)
    }

    fn execution(&self) -> Execution<'_> {
        Execution::InProcess(self)
    }
}

impl Train for QLambdaParams {
    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
        let trained = q_lambda::train(self, seed, marks, |c, t| record(c, t));
        learner::agent(&self.learner, trained, Self::NAME)
    }
}
