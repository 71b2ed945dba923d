//! `sarsa`: SARSA against a fixed opponent or in self-play (`solvers/sarsa.rs`),
//! with the tabular learners' parameters (`kinds/learner.rs`) and cost. Its learning curve
//! has `checkpoints` points; its `q_error` target is Q^π of its final behaviour policy (Q* when that is greedy).

use super::learner::{self, Target};
use super::{Agent, Declared, Param, Solver, Val, Values, Work};
use crate::bench::Calibration;
use crate::mdp::{Policy, Seat};
use crate::solvers::tabular::Checkpoint;
use crate::solvers::{QParams, sarsa};
use crate::spec::EvaluationSpec;

/// A grid point of `sarsa`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sarsa(pub QParams);

impl Declared for Sarsa {
    const NAME: &'static str = "sarsa";
    const PARAMS: &'static [&'static Param] = learner::PARAMS;

    fn build(v: &Values<'_>) -> Sarsa {
        Sarsa(learner::build(v))
    }
}

impl Solver for Sarsa {
    fn values(&self) -> Vec<Val> {
        learner::values(&self.0)
    }

    fn work(&self) -> Work {
        Work { episodes: self.0.episodes, iterations: 0 }
    }

    /// Training (about 1.0× Q-learning's time per episode, measured by `sweep bench`),
    /// plus an exact evaluation per checkpoint, seat and opponent.
    fn seconds(&self, seats: &[Seat], evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
        learner::seconds(&self.0, 1.0, seats, evaluation, cal)
    }

    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &Policy)) -> Agent {
        let trained = sarsa::train(&self.0, seed, marks, |c, t| record(c, &t.policy()));
        learner::agent(&self.0, &trained, Target::Behaviour)
    }
}
