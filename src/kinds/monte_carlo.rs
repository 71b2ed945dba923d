//! `monte-carlo`: first-visit Monte Carlo control against a fixed opponent or in self-play
//! (`solvers/monte_carlo.rs`), with the tabular learners' parameters (`kinds/learner.rs`),
//! its `step` (`alpha` or `average`) and cost. Its learning curve has `checkpoints` points;
//! its `q_error` target is Q^π of its final behaviour policy (Q* when that is greedy).

use super::learner;
use super::param::STEP;
use super::{Agent, Declared, Execution, Param, Seats, Solver, Train, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::Need;
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Seat};
use crate::solvers::tabular::Checkpoint;
use crate::solvers::{MonteCarloParams, StepRule, monte_carlo};

impl Declared for MonteCarloParams {
    const NAME: &'static str = "monte-carlo";
    const PARAMS: &'static [&'static Param] = learner::MONTE_CARLO_PARAMS;
    const RUNS_A_PROGRAM: bool = false;

    fn build(v: &Values<'_>) -> Option<MonteCarloParams> {
        Some(MonteCarloParams { learner: learner::build(v), step: v.choice(&STEP) })
    }
}

impl Solver for MonteCarloParams {
    fn values(&self) -> Vec<Val> {
        learner::values_with(&self.learner, &[Val::Name(self.step.name())])
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

    /// A learner's, with a return count per table slot when `step = "average"`.
    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        let counts = if self.step == StepRule::Average { 4 } else { 0 };
        learner::memory(&self.learner, Self::NAME, counts, seats, evaluation)
    }

    fn execution(&self) -> Execution<'_> {
        Execution::InProcess(self)
    }
}

impl Train for MonteCarloParams {
    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
        let trained = monte_carlo::train(self, seed, marks, |c, t| record(c, t));
        learner::agent(&self.learner, trained, Self::NAME)
    }
}
