//! `sarsa-lambda`: SARSA(lambda) against a fixed opponent or in self-play
//! (`solvers/sarsa_lambda.rs`), with the tabular learners' parameters (`kinds/learner.rs`),
//! its `lambda` and its cost (its row in `solvers/learners.rs`). Its learning curve has
//! `checkpoints` points; its `q_error` target is Q^π of its final behaviour policy (Q* when
//! that is greedy).

use super::learner;
use super::param::LAMBDA;
use super::{Agent, Declared, Execution, Param, Seats, Solver, Train, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::Need;
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Seat};
use crate::solvers::sarsa_lambda::{self, SarsaLambdaParams};
use crate::solvers::tabular::Checkpoint;

impl Declared for SarsaLambdaParams {
    const NAME: &'static str = "sarsa-lambda";
    const PARAMS: &'static [&'static Param] = learner::TRACED_PARAMS;
    const RUNS_A_PROGRAM: bool = false;

    fn build(v: &Values<'_>) -> Option<SarsaLambdaParams> {
        Some(SarsaLambdaParams { learner: learner::build(v), lambda: v.real(&LAMBDA) })
    }
}

impl Solver for SarsaLambdaParams {
    fn values(&self) -> Vec<Val> {
        learner::values_with(&self.learner, &[Val::Real(self.lambda)])
    }

    fn work(&self) -> Work {
        Work { episodes: self.learner.episodes, iterations: 0 }
    }

    fn seats(&self) -> Seats {
        Seats::of(self.learner.seat, self.learner.opponent)
    }

    /// A learner's; in self-play its traces span both sides' moves, as Q(lambda)'s do
    /// ([`crate::cost::boards::traces_self_play`]).
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
        let mut load = learner::load(&self.learner, Self::NAME, seats, evaluation);
        if let Some(t) = load.training.as_mut().filter(|t| t.seat.is_none()) {
            t.extra = if self.lambda > 0.0 { crate::cost::boards::traces_self_play(self.learner.game) } else { 0.0 };
        }
        load
    }

    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
        learner::memory(&self.learner, Self::NAME, 0, seats, evaluation)
    }

    fn execution(&self) -> Execution<'_> {
        Execution::InProcess(self)
    }
}

impl Train for SarsaLambdaParams {
    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
        let trained = sarsa_lambda::train(self, seed, marks, |c, t| record(c, t));
        learner::agent(&self.learner, trained, Self::NAME)
    }
}
