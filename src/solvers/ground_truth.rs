//! The exact optimum of every (seat, opponent) MDP, built once and shared.
//!
//! Six MDPs (2 seats × 3 opponents), each solved by policy iteration: a few milliseconds
//! in all, done on first use. Learners read the MDPs to train and to be evaluated against.

use std::sync::OnceLock;

use super::policy_iteration::{self, Solution};
use crate::mdp::{AgentMdp, Opponent, Seat};

/// One MDP and its optimal solution.
#[derive(Debug)]
pub struct GroundTruth {
    /// The MDP of (seat, opponent).
    pub mdp: AgentMdp,
    /// Its optimal values and policy.
    pub solution: Solution,
}

static TABLE: OnceLock<Vec<GroundTruth>> = OnceLock::new();

fn slot(seat: Seat, opponent: Opponent) -> usize {
    let s = Seat::ALL.iter().position(|&x| x == seat).expect("a seat");
    let o = Opponent::ALL.iter().position(|&x| x == opponent).expect("an opponent");
    s * Opponent::ALL.len() + o
}

/// The MDP of `seat` against `opponent` with its exact solution.
pub fn ground_truth(seat: Seat, opponent: Opponent) -> &'static GroundTruth {
    let table = TABLE.get_or_init(|| {
        let mut v = Vec::new();
        for &s in Seat::ALL {
            for &o in Opponent::ALL {
                let mdp = AgentMdp::build(s, o);
                let solution = policy_iteration::solve(&mdp);
                v.push(GroundTruth { mdp, solution });
            }
        }
        v
    });
    &table[slot(seat, opponent)]
}
