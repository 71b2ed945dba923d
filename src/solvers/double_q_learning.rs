//! Double Q-learning: two tables, each updated toward the other's value of its own greedy
//! move, against a fixed opponent or in self-play.
//!
//! Algorithm (van Hasselt 2010; Sutton & Barto 2018, §6.7): the agent acts by the
//! behaviour policy on the mean of the tables `A` and `B`; after its move and the
//! opponent's reply a fair coin picks the table to update, say `A`:
//!
//! `A(s,a) += alpha * (target - A(s,a))`, `target = r` if the game ended, else
//! `gamma * B(s', argmax_a' A(s',a'))` (greedy ties: lowest cell); the same with `A` and
//! `B` swapped on the other side of the coin.
//!
//! Using one table to pick the move and the other to value it removes the upward bias of
//! `max` over noisy estimates (maximisation bias) that Q-learning's target has. The
//! self-play form keeps both tables seen from the side to move:
//! `target = -gamma * B(s', argmax A(s',·))`.
//!
//! - Assumptions: those of [`q_learning`](super::q_learning) or
//!   [`self_play`](super::self_play).
//! - Hyperparameters: those of Q-learning, with `exploration` (and its temperature);
//!   softmax weighs the mean of the tables. Draws: Q-learning's (one per decision, one
//!   per opponent reply), plus one 64-bit draw per episode whose bits, lowest first, are
//!   the coins of its updates (a game has at most 9 moves).
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: both tables estimate Q* (off-policy) under the learner's own
//!   `gamma`; the learned table reported (curves, policy, `q_error`) is their mean.
//!
//! Costs beyond Q-learning: its one scan per step reads both tables (the updated table's
//! greedy move for the target and the mean's for the next decision), plus the coin. No allocation inside an episode.
//! References: van Hasselt 2010; Sutton & Barto 2018, §6.7.

use rand::RngCore;

use super::params::{QParams, TrainOpponent};
use super::q_learning::{first_state, outcome, table, training_mdp};
use super::self_play::{END, Successors, build};
use super::tabular::{Checkpoint, Exploration, Step, Table, Trained, run_schedule};
use crate::mdp::AgentMdp;
use crate::seed::{self, Stream};

/// The two tables.
struct Pair {
    a: Table,
    b: Table,
}

impl Pair {
    fn new(table: Table) -> Pair {
        Pair { a: table.clone(), b: table }
    }

    /// The behaviour's move in state `s`, given the greedy slot of the mean table.
    #[inline(always)]
    fn choose(&self, s: usize, greedy: usize, exploration: Exploration, rng: &mut impl RngCore) -> usize {
        self.a.choose_by(s, greedy, exploration, rng, |slot| (self.a.value(slot) + self.b.value(slot)) * 0.5)
    }

    /// Updates `slot` by the coin: toward `discount * other(s', argmax own(s',·))` when
    /// `next` is a state `s'`, toward `reward` when the game ended. Returns the greedy slot
    /// of the mean table in `s'` (found in the same scan; the update, in an earlier state,
    /// does not change it).
    #[inline(always)]
    fn update(&mut self, coin: bool, slot: usize, alpha: f64, next: Result<usize, f64>, discount: f64) -> usize {
        let (own, other) = if coin { (&mut self.b, &self.a) } else { (&mut self.a, &self.b) };
        let (target, greedy) = match next {
            Err(reward) => (reward, 0),
            Ok(s) => {
                let (own_greedy, pair_greedy) = own.greedy_and_pair(other, s);
                (discount * other.value(own_greedy), pair_greedy)
            }
        };
        own.update(slot, alpha, target);
        greedy
    }

    fn mean(&self) -> Table {
        self.a.mean_with(&self.b)
    }
}

/// Trains Double Q-learning against `params.opponent` (a fixed one or itself); calls
/// `checkpoint` with the mean table after each listed episode.
pub fn train(
    params: &QParams,
    seed: u64,
    checkpoints: &[u64],
    mut checkpoint: impl FnMut(Checkpoint, &Table),
) -> Trained {
    let mut rng = seed::rng(seed, Stream::Train);
    let gamma = params.gamma;
    if params.opponent == TrainOpponent::SelfPlay {
        let (table, successors) = build(params.game, params.q_init, params.symmetry);
        let mut pair = Pair::new(table);
        let exploration = run_schedule(params, checkpoints, |step| match step {
            Step::Play { exploration, alpha } => {
                self_play_episode(&mut pair, &successors, &mut rng, exploration, alpha, gamma)
            }
            Step::Checkpoint(c) => checkpoint(c, &pair.mean()),
        });
        return Trained { table: pair.mean(), exploration };
    }
    let mdp = training_mdp(params, "double q-learning");
    let mut pair = Pair::new(table(mdp, params.q_init, params.symmetry));
    let exploration = run_schedule(params, checkpoints, |step| match step {
        Step::Play { exploration, alpha } => {
            let s = first_state(mdp, &mut rng);
            episode(&mut pair, mdp, &mut rng, s, exploration, alpha, gamma)
        }
        Step::Checkpoint(c) => checkpoint(c, &pair.mean()),
    });
    Trained { table: pair.mean(), exploration }
}

/// One game against the fixed opponent from agent state `s`.
#[inline]
fn episode(
    pair: &mut Pair,
    mdp: &AgentMdp,
    rng: &mut impl RngCore,
    mut s: usize,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut coins = rng.next_u64();
    let mut greedy = pair.a.greedy_of_pair(&pair.b, s);
    loop {
        let slot = pair.choose(s, greedy, exploration, rng);
        let next = outcome(mdp, slot, rng);
        greedy = pair.update(coins & 1 == 1, slot, alpha, next, gamma);
        coins >>= 1;
        match next {
            Err(_) => return,
            Ok(n) => s = n,
        }
    }
}

/// One self-play game from the empty board (position 0).
fn self_play_episode(
    pair: &mut Pair,
    successors: &Successors,
    rng: &mut impl RngCore,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut coins = rng.next_u64();
    let mut id = 0usize;
    let mut greedy = pair.a.greedy_of_pair(&pair.b, id);
    loop {
        let slot = pair.choose(id, greedy, exploration, rng);
        let next = successors.child[slot];
        let next = if next == END { Err(successors.reward[slot]) } else { Ok(next as usize) };
        greedy = pair.update(coins & 1 == 1, slot, alpha, next, -gamma);
        coins >>= 1;
        match next {
            Err(_) => return,
            Ok(n) => id = n,
        }
    }
}
