//! Expected SARSA: temporal-difference control whose target is the expectation of the next
//! action's value under the behaviour policy, against a fixed opponent or in self-play.
//!
//! Algorithm (van Seijen, van Hasselt, Whiteson & Wiering 2009; Sutton & Barto 2018,
//! §6.6): the agent picks its move by the behaviour policy π (ε-greedy or softmax); after
//! its move and the opponent's reply,
//!
//! `Q(s,a) += alpha * (target - Q(s,a))`, `target = r` if the game ended, else
//! `gamma * Σ_a' π(a'|s') Q(s',a')`.
//!
//! Under ε-greedy the expectation is `(1 - e) · max Q(s',·) + e · mean Q(s',·)`, with `e`
//! the exact exploration probability of the draw (`threshold / 2^32`); under softmax it
//! weighs every move by its probability. The self-play form keeps one table seen from the
//! side to move: `target = -gamma * Σ π(a'|s') Q(s',a')`.
//!
//! - Assumptions: those of [`q_learning`](super::q_learning) or
//!   [`self_play`](super::self_play).
//! - Hyperparameters: those of Q-learning, with `exploration` (and its temperature). The
//!   draws are Q-learning's, in the same order; with epsilon 0 the target is Q-learning's
//!   and the two learners make the same updates bit for bit.
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: Q^π of its behaviour policy (the policy its target averages
//!   over), under its own `gamma`; Q* when that policy is greedy, where it is Q-learning.
//!   The `q_error` column compares with Q^π of the final behaviour policy, or with Q*
//!   when that policy is greedy.
//!
//! No allocation inside an episode. References: van Seijen et al. 2009; Sutton & Barto
//! 2018, §6.6.

use std::borrow::Cow;

use rand::RngCore;

use super::driver::{self, Episodes, outcome};
use super::params::QParams;
use super::self_play::{END, Successors};
use super::tabular::{Checkpoint, Exploration, QTable, Trained};
use crate::mdp::AgentMdp;
use crate::seed;

/// Trains Expected SARSA against `params.opponent` (a fixed one or itself); calls
/// `checkpoint` after each listed episode.
pub fn train(params: &QParams, seed: u64, checkpoints: &[u64], checkpoint: impl FnMut(Checkpoint, &QTable)) -> Trained {
    let gamma = params.gamma;
    driver::train(params, seed, checkpoints, checkpoint, |table, _| ExpectedSarsa { table, gamma })
}

/// Expected SARSA's state: its table and its discount.
struct ExpectedSarsa {
    table: QTable,
    gamma: f64,
}

impl Episodes for ExpectedSarsa {
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
    mut s: usize,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut greedy = table.greedy(s).0;
    loop {
        let slot = table.choose(s, greedy, exploration, rng);
        match outcome(mdp, table.layout(), slot, rng) {
            Err(reward) => return table.update(slot, alpha, reward),
            Ok(next) => {
                let (g, expected) = table.greedy_and_expected(next, exploration);
                greedy = g;
                table.update(slot, alpha, gamma * expected);
                s = next;
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
    let mut id = 0usize;
    let mut greedy = table.greedy(id).0;
    loop {
        let slot = table.choose(id, greedy, exploration, rng);
        let next = successors.child[slot];
        if next == END {
            return table.update(slot, alpha, successors.reward[slot]);
        }
        id = next as usize;
        let (g, expected) = table.greedy_and_expected(id, exploration);
        greedy = g;
        table.update(slot, alpha, -gamma * expected);
    }
}
