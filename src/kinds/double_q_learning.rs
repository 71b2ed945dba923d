//! `double-q-learning`: Double Q-learning against a fixed opponent or in self-play (`solvers/double_q_learning.rs`),
//! with the tabular learners' parameters (`kinds/learner.rs`) and cost. Its learning curve
//! has `checkpoints` points; its `q_error` target is Q*.

use super::learner::{self, Target};
use super::{Agent, Declared, Param, Solver, Val, Values, Work};
use crate::bench::Calibration;
use crate::mdp::{Policy, Seat};
use crate::solvers::tabular::Checkpoint;
use crate::solvers::{QParams, double_q_learning};
use crate::spec::EvaluationSpec;

/// A grid point of `double-q-learning`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DoubleQLearning(pub QParams);

impl Declared for DoubleQLearning {
    const NAME: &'static str = "double-q-learning";
    const PARAMS: &'static [&'static Param] = learner::PARAMS;

    fn build(v: &Values<'_>) -> DoubleQLearning {
        DoubleQLearning(learner::build(v))
    }
}

impl Solver for DoubleQLearning {
    fn values(&self) -> Vec<Val> {
        learner::values(&self.0)
    }

    fn work(&self) -> Work {
        Work { episodes: self.0.episodes, iterations: 0 }
    }

    /// Training (about 1.3× Q-learning's time per episode, measured by `sweep bench`),
    /// plus an exact evaluation per checkpoint, seat and opponent.
    fn seconds(&self, seats: &[Seat], evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
        learner::seconds(&self.0, 1.3, seats, evaluation, cal)
    }

    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &Policy)) -> Agent {
        let trained = double_q_learning::train(&self.0, seed, marks, |c, t| record(c, &t.policy()));
        learner::agent(&self.0, &trained, Target::Optimal)
    }
}
