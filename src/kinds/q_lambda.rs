//! `q-lambda`: Watkins's Q(lambda) against a fixed opponent or in self-play
//! (`solvers/q_lambda.rs`), with the tabular learners' parameters (`kinds/learner.rs`), its
//! `lambda` and its cost (its row in `solvers/learners.rs`). Its learning curve has
//! `checkpoints` points; its `q_error` target is Q*.

use super::learner;
use super::param::LAMBDA;
use super::{Agent, Declared, Param, Seats, Solver, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::Need;
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Seat};
use crate::solvers::tabular::Checkpoint;
use crate::solvers::{QLambdaParams, q_lambda};

impl Declared for QLambdaParams {
    const NAME: &'static str = "q-lambda";
    const PARAMS: &'static [&'static Param] = learner::Q_LAMBDA_PARAMS;

    fn build(v: &Values<'_>) -> QLambdaParams {
        QLambdaParams { learner: learner::build(v), lambda: v.real(&LAMBDA) }
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

    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        learner::load(&self.learner, Self::NAME, seats, evaluation)
    }

    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        learner::memory(&self.learner, Self::NAME, 0, seats, evaluation)
    }

    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
        let trained = q_lambda::train(self, seed, marks, |c, t| record(c, t));
        learner::agent(&self.learner, trained, Self::NAME)
    }
}
