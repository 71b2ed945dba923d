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
//! (the updated table's greedy entry, whose value in the other table is the target, read
//! once after the scan, and the mean's greedy slot for the next decision), plus the coin.
//! The tables are kept entry beside entry, so both values of a slot come from one cache
//! line. The loops are compiled once for each layout of the table (every slot its own
//! entry, or entries through the symmetry index) and the layout is chosen once per run, so
//! that without symmetry a state's scan runs over one slice, with no test of the layout
//! and no bounds check per slot (`docs/performance-history.md` §11). Both layouts, and both
//! opponents (fixed, or the table itself in self-play), play one game loop. No allocation
//! inside an episode.
//! References: van Hasselt 2010; Sutton & Barto 2018, §6.7.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use rand::RngCore;

use super::driver::{self, Episodes, outcome};
use super::layout::Layout;
use super::params::QParams;
use super::self_play::{END, Successors};
use super::tabular::{Checkpoint, Exploration, QTable, Trained, choose_among};
use crate::mdp::AgentMdp;
use crate::seed;

/// The two tables, `A` and `B`, entry beside entry: one scan reads both with one index.
struct Pair {
    /// The states, slots and symmetry index (its values taken out into `q`).
    table: QTable,
    /// `[A, B]` per table entry.
    q: Vec<[f64; 2]>,
}

/// The greedy slot of the mean (`A + B`, lowest cell among ties) among a state's entries
/// `[A, B]` in slot order (at least one), whose first slot is `start`. The loop keeps the
/// greedy slot itself, as Q-learning's scan does, so that the next move is known as soon
/// as the last comparison is.
#[inline(always)]
fn greedy_of<'a>(mut entries: impl Iterator<Item = &'a [f64; 2]>, start: usize) -> usize {
    let first = entries.next().expect("a state has a legal move");
    let (mut best, mut best_at) = (first[0] + first[1], start);
    for (slot, entry) in (start + 1..).zip(entries) {
        let w = entry[0] + entry[1];
        if w > best {
            best_at = slot;
        }
        best = if best > w { best } else { w };
    }
    best_at
}

/// In one pass over a state's entries, as in [`greedy_of`]: the value in the other table
/// at the greedy entry of table `own` (0 for `A`, 1 for `B`; lowest cell among ties), and
/// the greedy slot of the mean. The own table's maximum is followed by its entry, whose
/// other value is read once after the pass (for the update, off the path to the next
/// move).
#[inline(always)]
fn target_and_greedy_of<'a>(mut entries: impl Iterator<Item = &'a [f64; 2]>, start: usize, own: usize) -> (f64, usize) {
    let other = own ^ 1;
    let first = entries.next().expect("a state has a legal move");
    let (mut mine, mut mine_entry) = (first[own], first);
    let (mut best, mut best_at) = (first[own] + first[other], start);
    for (slot, entry) in (start + 1..).zip(entries) {
        let (v, o) = (entry[own], entry[other]);
        let w = v + o;
        if v > mine {
            mine_entry = entry;
        }
        if w > best {
            best_at = slot;
        }
        // The maxima, kept in place. On a tie they may take the other sign of zero, which
        // no comparison tells apart; the entry and the slot, not these values, are the
        // results.
        mine = if mine > v { mine } else { v };
        best = if best > w { best } else { w };
    }
    (mine_entry[other], best_at)
}

/// The scans and the update of a [`Pair`] for one layout of its table, fixed for a whole
/// training run so that the loops test it once: `DIRECT` when every slot has its own entry
/// (no symmetry), so that a state's entries are one run of `q`; else through the index.
impl Pair {
    fn new(mut table: QTable) -> Pair {
        let q = table.take_entries().into_iter().map(|v| [v, v]).collect();
        Pair { table, q }
    }

    /// The entry of `slot`.
    #[inline(always)]
    fn entry<const DIRECT: bool>(&self, slot: usize) -> usize {
        if DIRECT { slot } else { self.table.indexed_entry(slot) }
    }

    /// The sum of the tables at `slot`, `A + B`.
    #[inline(always)]
    fn sum<const DIRECT: bool>(&self, slot: usize) -> f64 {
        let [a, b] = self.q[self.entry::<DIRECT>(slot)];
        a + b
    }

    /// The greedy slot of state `s` by the mean of the tables (lowest cell among ties).
    #[inline(always)]
    fn greedy<const DIRECT: bool>(&self, s: usize) -> usize {
        let slots = self.table.slots(s);
        if DIRECT {
            greedy_of(self.q[slots.clone()].iter(), slots.start)
        } else {
            greedy_of(slots.clone().map(|slot| &self.q[self.table.indexed_entry(slot)]), slots.start)
        }
    }

    /// The behaviour's move in a state whose slots are `slots`, given the greedy slot of
    /// the mean table.
    #[inline(always)]
    fn choose<const DIRECT: bool>(
        &self,
        slots: Range<usize>,
        greedy: usize,
        exploration: Exploration,
        rng: &mut impl RngCore,
    ) -> usize {
        choose_among(slots, || greedy, exploration, rng, |slot| self.sum::<DIRECT>(slot) * 0.5)
    }

    /// Updates `slot` in table `own` (0 for `A`, 1 for `B`, the coin): toward
    /// `discount * other(s', argmax own(s',·))` when `next` is a state `s'`, toward
    /// `reward` when the game ended. Returns the greedy slot of the mean table in `s'`
    /// (found in the same scan; the update, in an earlier state, does not change it) and
    /// the slots of `s'` (none when the game ended).
    #[inline(always)]
    fn update<const DIRECT: bool>(
        &mut self,
        own: usize,
        slot: usize,
        alpha: f64,
        next: Result<usize, f64>,
        discount: f64,
    ) -> (usize, Range<usize>) {
        let (target, greedy, slots) = match next {
            Err(reward) => (reward, 0, 0..0),
            Ok(s) => {
                let slots = self.table.slots(s);
                let (other, greedy) = if DIRECT {
                    target_and_greedy_of(self.q[slots.clone()].iter(), slots.start, own)
                } else {
                    let entries = slots.clone().map(|slot| &self.q[self.table.indexed_entry(slot)]);
                    target_and_greedy_of(entries, slots.start, own)
                };
                (discount * other, greedy, slots)
            }
        };
        let e = self.entry::<DIRECT>(slot);
        let entry = &mut self.q[e][own];
        *entry += alpha * (target - *entry);
        (greedy, slots)
    }

    /// The table of the means `(A + B) / 2`.
    fn mean(&self) -> QTable {
        let mut mean = self.table.clone();
        mean.set_entries(self.q.iter().map(|[a, b]| (a + b) * 0.5).collect());
        mean
    }
}

/// Trains Double Q-learning against `params.opponent` (a fixed one or itself); calls
/// `checkpoint` with the mean table after each listed episode.
pub fn train(params: &QParams, seed: u64, checkpoints: &[u64], checkpoint: impl FnMut(Checkpoint, &QTable)) -> Trained {
    let gamma = params.gamma;
    // Without symmetry every slot has its own entry (checked when the pair is made).
    if params.symmetry {
        driver::train(params, seed, checkpoints, checkpoint, |table, _| DoubleQ::<false>::new(table, gamma))
    } else {
        driver::train(params, seed, checkpoints, checkpoint, |table, _| DoubleQ::<true>::new(table, gamma))
    }
}

/// Double Q-learning's state for one layout of its table (`DIRECT`, see [`Pair`]): the
/// pair of tables, their layout (read while the pair is being updated) and the discount.
struct DoubleQ<const DIRECT: bool> {
    pair: Pair,
    layout: Arc<Layout>,
    gamma: f64,
}

impl<const DIRECT: bool> DoubleQ<DIRECT> {
    fn new(table: QTable, gamma: f64) -> DoubleQ<DIRECT> {
        assert_eq!(table.slots_are_entries(), DIRECT, "the layout the loops are compiled for");
        let layout = table.shared_layout();
        DoubleQ { pair: Pair::new(table), layout, gamma }
    }
}

impl<const DIRECT: bool> Episodes for DoubleQ<DIRECT> {
    /// A game against the fixed opponent: the next state is the agent's, so the discount
    /// is `gamma`.
    #[inline(always)]
    fn fixed(&mut self, mdp: &AgentMdp, rng: &mut seed::Rng, first: usize, exploration: Exploration, alpha: f64) {
        let layout = &*self.layout;
        let next = |slot: usize, rng: &mut seed::Rng| outcome(mdp, layout, slot, rng);
        game::<DIRECT>(&mut self.pair, rng, first, exploration, alpha, self.gamma, next);
    }

    /// A self-play game: the opponent is the pair itself, seen from the side to move, so
    /// the discount is `-gamma`.
    #[inline(always)]
    fn self_play(&mut self, successors: &Successors, rng: &mut seed::Rng, exploration: Exploration, alpha: f64) {
        let next = |slot: usize, _: &mut seed::Rng| match successors.child[slot] {
            END => Err(successors.reward[slot]),
            child => Ok(child as usize),
        };
        game::<DIRECT>(&mut self.pair, rng, 0, exploration, alpha, -self.gamma, next);
    }

    fn table(&self) -> Cow<'_, QTable> {
        Cow::Owned(self.pair.mean())
    }

    fn into_table(self) -> QTable {
        self.pair.mean()
    }
}

/// One game from state `s`, for one layout of the table (see [`Pair`]): `next` gives the
/// outcome of a move, `Ok(the next state)` or `Err(the reward)`, and `discount` is `gamma`
/// against a fixed opponent, `-gamma` in self-play (the next state is the other side's).
#[inline(always)]
fn game<const DIRECT: bool>(
    pair: &mut Pair,
    rng: &mut seed::Rng,
    s: usize,
    exploration: Exploration,
    alpha: f64,
    discount: f64,
    next: impl Fn(usize, &mut seed::Rng) -> Result<usize, f64>,
) {
    let mut coins = rng.next_u64();
    let (mut greedy, mut slots) = (pair.greedy::<DIRECT>(s), pair.table.slots(s));
    loop {
        let slot = pair.choose::<DIRECT>(slots, greedy, exploration, rng);
        let next = next(slot, rng);
        (greedy, slots) = pair.update::<DIRECT>((coins & 1) as usize, slot, alpha, next, discount);
        coins >>= 1;
        if next.is_err() {
            return;
        }
    }
}
