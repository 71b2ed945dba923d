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
//! Costs beyond Q-learning: its one scan per step reads both tables and follows two maxima
//! (the updated table's greedy move, whose value in the other table is the target, and the
//! mean's greedy move for the next decision), plus the coin. The tables are kept entry
//! beside entry, so both values of a slot come from one cache line, and the coin picks
//! which of the two interleaved views is "own" once per step rather than per value. No
//! allocation inside an episode.
//! References: van Hasselt 2010; Sutton & Barto 2018, §6.7.

use rand::RngCore;

use super::params::{QParams, TrainOpponent};
use super::q_learning::{first_state, outcome, table, training_mdp};
use super::self_play::{END, Successors, build};
use super::tabular::{Checkpoint, Exploration, Step, Table, Trained, run_schedule};
use crate::mdp::AgentMdp;
use crate::seed::{self, Stream};

/// The two tables, `A` and `B`, entry beside entry: one scan reads both with one index.
struct Pair {
    /// The states, slots and symmetry index (its values taken out into `q`).
    table: Table,
    /// `[A, B]` per table entry.
    q: Vec<[f64; 2]>,
}

impl Pair {
    fn new(mut table: Table) -> Pair {
        let q = table.take_entries().into_iter().map(|v| [v, v]).collect();
        Pair { table, q }
    }

    /// The sum of the tables at `slot`, `A + B`.
    #[inline(always)]
    fn sum(&self, slot: usize) -> f64 {
        let [a, b] = self.q[self.table.entry(slot)];
        a + b
    }

    /// The greedy slot of state `s` by the mean of the tables (lowest cell among ties).
    #[inline(always)]
    fn greedy(&self, s: usize) -> usize {
        let slots = self.table.slots(s);
        let mut best = (slots.start, self.sum(slots.start));
        for slot in slots.start + 1..slots.end {
            let v = self.sum(slot);
            if v > best.1 {
                best = (slot, v);
            }
        }
        best.0
    }

    /// In one scan of state `s`: the value in the other table of the greedy slot of table
    /// `own` (0 for `A`, 1 for `B`), and the greedy slot of the mean of the tables. Both
    /// tables' values of a slot sit side by side, so the other table's value comes with
    /// the load that finds the greedy slot.
    #[inline(always)]
    fn target_and_greedy(&self, own: usize, s: usize) -> (f64, usize) {
        // The own table's values start at `own`, the other's at `1 - own`: two views of
        // the interleaved values, so that no value is picked per slot.
        let flat = self.q.as_flattened();
        let (mine_q, other_q) = (&flat[own..], &flat[1 - own..]);
        let slots = self.table.slots(s);
        let e = 2 * self.table.entry(slots.start);
        let (v, o) = (mine_q[e], other_q[e]);
        let (mut mine, mut pair) = ((v, o), (slots.start, v + o));
        for slot in slots.start + 1..slots.end {
            let e = 2 * self.table.entry(slot);
            let (v, o) = (mine_q[e], other_q[e]);
            let w = v + o;
            if v > mine.0 {
                mine = (v, o);
            }
            if w > pair.1 {
                pair = (slot, w);
            }
        }
        (mine.1, pair.0)
    }

    /// The behaviour's move in state `s`, given the greedy slot of the mean table.
    #[inline(always)]
    fn choose(&self, s: usize, greedy: usize, exploration: Exploration, rng: &mut impl RngCore) -> usize {
        self.table.choose_by(s, || greedy, exploration, rng, |slot| self.sum(slot) * 0.5)
    }

    /// Updates `slot` by the coin: toward `discount * other(s', argmax own(s',·))` when
    /// `next` is a state `s'`, toward `reward` when the game ended. Returns the greedy slot
    /// of the mean table in `s'` (found in the same scan; the update, in an earlier state,
    /// does not change it).
    #[inline(always)]
    fn update(&mut self, coin: bool, slot: usize, alpha: f64, next: Result<usize, f64>, discount: f64) -> usize {
        let own = usize::from(coin);
        let (target, greedy) = match next {
            Err(reward) => (reward, 0),
            Ok(s) => {
                let (other, pair_greedy) = self.target_and_greedy(own, s);
                (discount * other, pair_greedy)
            }
        };
        let entry = &mut self.q[self.table.entry(slot)][own];
        *entry += alpha * (target - *entry);
        greedy
    }

    /// The table of the means `(A + B) / 2`.
    fn mean(&self) -> Table {
        let mut mean = self.table.clone();
        mean.set_entries(self.q.iter().map(|[a, b]| (a + b) * 0.5).collect());
        mean
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
    let mut greedy = pair.greedy(s);
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
    let mut greedy = pair.greedy(id);
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
