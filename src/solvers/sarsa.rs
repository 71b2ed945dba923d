//! SARSA: on-policy temporal-difference control, against a fixed opponent or in self-play.
//!
//! Algorithm (Rummery & Niranjan 1994; Sutton & Barto 2018, §6.4): the agent picks its
//! move by the behaviour policy (ε-greedy or softmax); after its move and the opponent's
//! reply it picks its next move `a'` the same way, then
//!
//! `Q(s,a) += alpha * (target - Q(s,a))`, `target = r` if the game ended, else
//! `gamma * Q(s',a')`, and plays `a'`.
//!
//! The self-play form keeps one table seen from the side to move, as
//! [`self_play`](super::self_play) does: `target = -gamma * Q(s',a')`, where `a'` is the
//! move the opponent then plays from `s'`.
//!
//! - Assumptions: those of [`q_learning`](super::q_learning) (a fixed opponent, the agent
//!   MDP as the simulator) or of [`self_play`](super::self_play).
//! - Hyperparameters: those of Q-learning, with `exploration` (and its temperature). The
//!   draws are Q-learning's (one per decision, one per opponent reply), in the same order.
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: Q^π of its behaviour policy (under its own `gamma`). With a
//!   fixed epsilon SARSA converges toward the values of the ε-greedy policy, not Q*; only
//!   as exploration fades (GLIE) does it reach Q* (Singh et al. 2000). The `q_error`
//!   column compares the table with Q^π of the final behaviour policy, or with Q* when
//!   that policy is greedy.
//!
//! No allocation inside an episode. References: Rummery & Niranjan 1994; Sutton & Barto
//! 2018, §6.4; Singh, Jaakkola, Littman & Szepesvári 2000.

use std::borrow::Cow;

use rand::RngCore;

use super::driver::{self, Episodes, outcome};
use super::params::QParams;
use super::self_play::{END, Successors};
use super::tabular::{Checkpoint, Exploration, QTable, Trained};
use crate::mdp::AgentMdp;
use crate::seed;

/// Trains SARSA against `params.opponent` (a fixed one or itself); calls `checkpoint` after
/// each listed episode.
pub fn train(params: &QParams, seed: u64, checkpoints: &[u64], checkpoint: impl FnMut(Checkpoint, &QTable)) -> Trained {
    let gamma = params.gamma;
    driver::train(params, seed, checkpoints, checkpoint, |table, _| Sarsa { table, gamma })
}

/// SARSA's state: its table and its discount.
struct Sarsa {
    table: QTable,
    gamma: f64,
}

impl Episodes for Sarsa {
    #[inline]
    fn fixed(&mut self, mdp: &AgentMdp, rng: &mut seed::Rng, first: usize, exploration: Exploration, alpha: f64) {
        episode(&mut self.table, mdp, rng, first, exploration, alpha, self.gamma);
    }

    #[inline]
    fn self_play(&mut self, successors: &Successors, rng: &mut seed::Rng, exploration: Exploration, alpha: f64) {
        self_play_episode(&mut self.table, successors, rng, exploration, alpha, self.gamma);
    }

    fn table(&self) -> Cow<'_, QTable> {
        Cow::Borrowed(&self.table)
    }

    fn into_table(self) -> QTable {
        self.table
    }
}

/// One game against the fixed opponent from agent state `s`.
#[inline]
fn episode(
    table: &mut QTable,
    mdp: &AgentMdp,
    rng: &mut impl RngCore,
    s: usize,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut slot = table.choose(s, table.greedy(s).0, exploration, rng);
    loop {
        match outcome(mdp, table.layout(), slot, rng) {
            Err(reward) => return table.update(slot, alpha, reward),
            Ok(next) => {
                let (greedy, _) = table.greedy(next);
                let next_slot = table.choose(next, greedy, exploration, rng);
                table.update(slot, alpha, gamma * table.value(next_slot));
                slot = next_slot;
            }
        }
    }
}

/// One self-play game from the empty board (position 0).
fn self_play_episode(
    table: &mut QTable,
    successors: &Successors,
    rng: &mut impl RngCore,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut slot = table.choose(0, table.greedy(0).0, exploration, rng);
    loop {
        let next = successors.child[slot];
        if next == END {
            return table.update(slot, alpha, successors.reward[slot]);
        }
        let next = next as usize;
        let next_slot = table.choose(next, table.greedy(next).0, exploration, rng);
        table.update(slot, alpha, -gamma * table.value(next_slot));
        slot = next_slot;
    }
}
