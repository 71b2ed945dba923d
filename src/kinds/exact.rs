//! `policy-iteration` and `value-iteration`: the exact optimum of one (seat, opponent)
//! MDP. They take the same parameters (`seat`, `opponent`: a fixed opponent) and differ
//! only in the algorithm that solves (see `solvers/policy_iteration.rs` and
//! `solvers/value_iteration.rs`).

use super::param::{GAME, OPPONENT, SEAT};
use super::{Agent, Declared, Execution, Param, Seats, Solver, Train, Val, Values, Work};
use crate::cost::Load;
use crate::cost::memory::{self, Need, Shared};
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Policy, Seat};
use crate::solvers::params::ExactParams;
use crate::solvers::q_learning::Checkpoint;
use crate::solvers::{GroundTruth, ground_truth, policy_iteration, value_iteration};

/// An exact kind: its grid-point type `$kind` and `$name`, and how it solves one MDP
/// (`$solve`, from the ground truth of its (seat, opponent) to a policy).
macro_rules! exact_kind {
    ($(#[$doc:meta])* $kind:ident, $name:literal, $solve:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $kind(pub ExactParams);

        impl Declared for $kind {
            const NAME: &'static str = $name;
            const PARAMS: &'static [&'static Param] = &[&SEAT, &OPPONENT, &GAME];
            const RUNS_A_PROGRAM: bool = false;

            fn build(v: &Values<'_>) -> Option<$kind> {
                Some($kind(ExactParams { seat: v.choice(&SEAT), opponent: v.choice(&OPPONENT), game: v.game(&GAME) }))
            }
        }

        impl Solver for $kind {
            fn values(&self) -> Vec<Val> {
                vec![Val::Name(self.0.seat.name()), Val::Name(self.0.opponent.key()), Val::Game(self.0.game)]
            }

            fn work(&self) -> Work {
                Work::default()
            }

            fn seats(&self) -> Seats {
                Seats::One(self.0.seat)
            }

            /// The kind's own solve (the MDP and its ground truth are shared, built before
            /// the first job) and an evaluation per seat and opponent (costed as a learned
            /// policy's, an upper bound). The calibration's solve builds tic-tac-toe's MDP
            /// too; a job's solve alone takes about a third of it per agent state (measured:
            /// 60 jobs on 3x4k4 took 240 ms, 60 on 4x4g4 255 ms, evaluations included).
            fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
                let mut load = Load::new(self.0.game, seats);
                load.solves = 0.35 * load.states_over_tic_tac_toe;
                load.evaluations = seats
                    .iter()
                    .flat_map(|&s| evaluation.opponents.iter().map(move |&o| (s, o)))
                    .map(|(s, o)| crate::cost::boards::evaluation(self.0.game, s, o, false, false))
                    .sum();
                load
            }

            /// The solved policy and the evaluator; the MDP and its optimum are shared.
            fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
                let game = self.0.game;
                let mut shared = Need::evaluations(game, seats, &evaluation.opponents);
                shared.insert(Shared::Mdp(game, self.0.seat, self.0.opponent));
                let job = memory::policy(game) + memory::evaluator(memory::side(game, self.0.seat));
                Need { job, shared }
            }

            fn execution(&self) -> Execution<'_> {
                Execution::InProcess(self)
            }
        }

        impl Train for $kind {
            fn train(&self, _seed: u64, _marks: &[u64], _record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent {
                let truth = ground_truth(self.0.game, self.0.seat, self.0.opponent);
                let solve: fn(&GroundTruth) -> Policy = $solve;
                Agent::Policy(solve(truth))
            }
        }
    };
}

exact_kind!(
    /// Exact policy iteration.
    PolicyIteration, "policy-iteration", |t| policy_iteration::solve(&t.mdp).policy(&t.mdp)
);

exact_kind!(
    /// Exact value iteration.
    ValueIteration, "value-iteration", |t| value_iteration::solve(&t.mdp).0.policy(&t.mdp)
);
