//! `q-learning`: tabular Q-learning against a fixed opponent (`solvers/q_learning.rs`) or
//! in self-play (`opponent = "self"`, `solvers/self_play.rs`), with its parameters and
//! cost. Its learning curve has a point after each checkpoint episode the job asks for;
//! its `q_error` target is Q*.

use super::learner;
use super::{Agent, Declared, Execution, Param, Seats, Solver, Train, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::Need;
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Seat};
use crate::solvers::QParams;
use crate::solvers::q_learning::{self, Checkpoint};

impl Declared for QParams {
    const NAME: &'static str = "q-learning";
    const PARAMS: &'static [&'static Param] = learner::PARAMS;
    const RUNS_A_PROGRAM: bool = false;

    fn build(v: &Values<'_>) -> Option<QParams> {
        Some(learner::build(v))
    }
}

impl Solver for QParams {
    fn values(&self) -> Vec<Val> {
        learner::values_with(self, &[])
    }

    fn work(&self) -> Work {
        Work { episodes: self.episodes, iterations: 0 }
    }

    fn seats(&self) -> Seats {
        Seats::of(self.seat, self.opponent)
    }

    /// Training, plus an exact evaluation per checkpoint, seat and opponent.
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        learner::load(self, Self::NAME, seats, evaluation)
    }

    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        learner::memory(self, Self::NAME, 0, seats, evaluation)
    }

    fn execution(&self) -> Execution<'_> {
        Execution::InProcess(self)
    }
}

impl Train for QParams {
    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
        let trained = q_learning::train_table(self, seed, marks, |c, t| record(c, t));
        learner::agent(self, trained, Self::NAME)
    }
}
