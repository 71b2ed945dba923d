//! `policy-iteration` and `value-iteration`: the exact optimum of one (seat, opponent)
//! MDP. They take the same parameters (`seat`, `opponent`: a fixed opponent) and differ
//! only in the algorithm that solves (see `solvers/policy_iteration.rs` and
//! `solvers/value_iteration.rs`).

use super::param::{OPPONENT, SEAT};
use super::{Agent, Declared, Param, Solver, Val, Values, Work};
use crate::bench::Calibration;
use crate::mdp::{Policy, Seat};
use crate::solvers::params::ExactParams;
use crate::solvers::q_learning::Checkpoint;
use crate::solvers::{ground_truth, policy_iteration, value_iteration};
use crate::spec::EvaluationSpec;

/// Exact policy iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolicyIteration(pub ExactParams);

/// Exact value iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueIteration(pub ExactParams);

const PARAMS: &[&Param] = &[&SEAT, &OPPONENT];

fn build(v: &Values<'_>) -> ExactParams {
    ExactParams { seat: v.choice(&SEAT), opponent: v.choice(&OPPONENT) }
}

fn values(p: &ExactParams) -> Vec<Val> {
    vec![Val::Name(p.seat.name()), Val::Name(p.opponent.name())]
}

/// Building the MDP and solving it, then one exact evaluation per (seat, opponent).
fn seconds(seats: &[Seat], evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
    cal.solve_s * 2.0 + (seats.len() * evaluation.opponents.len()) as f64 * cal.eval_s
}

impl Declared for PolicyIteration {
    const NAME: &'static str = "policy-iteration";
    const PARAMS: &'static [&'static Param] = PARAMS;

    fn build(v: &Values<'_>) -> PolicyIteration {
        PolicyIteration(build(v))
    }
}

impl Solver for PolicyIteration {
    fn values(&self) -> Vec<Val> {
        values(&self.0)
    }

    fn work(&self) -> Work {
        Work::default()
    }

    fn seconds(&self, seats: &[Seat], evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
        seconds(seats, evaluation, cal)
    }

    fn train(&self, _seed: u64, _marks: &[u64], _record: &mut dyn FnMut(Checkpoint, &Policy)) -> Agent {
        let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, self.0.seat, self.0.opponent);
        Agent::Table(policy_iteration::solve(&truth.mdp).policy(&truth.mdp))
    }
}

impl Declared for ValueIteration {
    const NAME: &'static str = "value-iteration";
    const PARAMS: &'static [&'static Param] = PARAMS;

    fn build(v: &Values<'_>) -> ValueIteration {
        ValueIteration(build(v))
    }
}

impl Solver for ValueIteration {
    fn values(&self) -> Vec<Val> {
        values(&self.0)
    }

    fn work(&self) -> Work {
        Work::default()
    }

    fn seconds(&self, seats: &[Seat], evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
        seconds(seats, evaluation, cal)
    }

    fn train(&self, _seed: u64, _marks: &[u64], _record: &mut dyn FnMut(Checkpoint, &Policy)) -> Agent {
        let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, self.0.seat, self.0.opponent);
        Agent::Table(value_iteration::solve(&truth.mdp).0.policy(&truth.mdp))
    }
}
