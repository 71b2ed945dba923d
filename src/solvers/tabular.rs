//! The tabular-learner core: what the table-based learners share, so that each of them is
//! only an update rule and an episode loop (the [`driver`](super::driver) runs the loop
//! around them, in either mode: against a fixed opponent or in self-play).
//!
//! - [`QTable`]: one action-value entry per (state, legal move), flat, every entry starting
//!   at `q_init`. A learner numbers its states and gives each state's legal cells; the
//!   table numbers the (state, move) pairs as *slots*, contiguous per state in the order
//!   given, so a learner's own per-slot data (successors, rewards) lines up with them.
//!   What does not depend on the job (states, slots, the symmetry index) is a shared
//!   [`Layout`] (see [`super::layout`]); the table owns only its values.
//! - The symmetry index: with `symmetry = true` a slot maps to the entry (the state's
//!   class under the 8 board symmetries, the move's cell mapped through the transform
//!   that [`crate::game::symmetry::canonical`] returns for the state), so a state and its 7 images
//!   share one row. A position that is its own image under some transform (the empty
//!   board, for one) still keeps one entry per legal move. Without `symmetry` every slot
//!   has its own entry, numbered as the slot, and there is no index to read.
//! - The greedy scan: the slot with the largest value in a state, the lowest cell among
//!   ties (the first slot, as slots follow increasing cells).
//! - The schedules ([`run_schedule`]): `episodes` episodes; epsilon starts at `epsilon`
//!   and alpha at `alpha`, and after every episode each is multiplied by its decay
//!   (`epsilon_decay`, `alpha_decay`) and held at its floor (`epsilon_min`, `alpha_min`).
//!   A checkpoint falls after each listed episode, before the decay. Stopping rule: the
//!   fixed number of episodes.
//!   With `exploration = "softmax"` the temperature follows the same rule
//!   (`temperature`, `temperature_decay`, `temperature_min`) and a checkpoint's `epsilon`
//!   is the temperature in use.
//! - The exploration step ([`Exploration`]): ε-greedy takes one 64-bit draw per decision;
//!   its high half, compared with `epsilon · 2^32`, decides whether to explore, and its
//!   low half picks the legal move when exploring ([`choose_among`] takes the state's slots
//!   from a learner that has them at hand). Indices use the multiply-shift map
//!   `(u32 · n) >> 32` ([`below`]), whose bias is below `n / 2^32` (2e-9). Softmax also
//!   takes one 64-bit draw per decision: its top 53 bits, as a uniform number in [0, 1),
//!   pick the move whose cumulative weight `exp((Q - max Q) / temperature)` first exceeds
//!   it (slots in cell order); temperature 0 plays greedily.
//! - The behaviour policy's probabilities ([`QTable::expectation`]): what Expected SARSA's
//!   target and the exact Q^π of the behaviour policy use. ε-greedy explores with
//!   probability `threshold / 2^32` exactly and then counts every legal move as equally
//!   likely (the multiply-shift bias, below 2e-9, is neglected).
//!
//! Nothing is allocated after a table is built, so an episode allocates nothing.
//! References: Sutton & Barto 2018, §2.7 (ε-greedy), §2.8 and §13.1 (softmax over action
//! preferences), §6.5 (Q-learning).

use rand::RngCore;

use super::params::{ExplorationRule, QParams};
use std::sync::Arc;

pub use super::layout::Layout;
use crate::game::{Board, Game};
use crate::mdp::Policy;

/// A learner's progress at a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Checkpoint {
    /// Episodes done.
    pub episode: u64,
    /// Epsilon used in the last episode (the temperature under softmax).
    pub epsilon: f64,
    /// Alpha used in the last episode.
    pub alpha: f64,
}

/// The episodes after which checkpoints fall: `round(k · episodes / checkpoints)`,
/// k = 1..=checkpoints, duplicates removed (the last one is always `episodes`).
pub fn checkpoint_episodes(episodes: u64, checkpoints: u32) -> Vec<u64> {
    let mut v: Vec<u64> = (1..=u64::from(checkpoints))
        .map(|k| ((k as u128 * episodes as u128 + u128::from(checkpoints) / 2) / u128::from(checkpoints)) as u64)
        .filter(|&e| e > 0)
        .collect();
    v.dedup();
    v
}

/// A multiply-shift map of 32 random bits onto `0..n`.
#[inline(always)]
pub fn below(bits: u32, n: usize) -> usize {
    ((u64::from(bits) * n as u64) >> 32) as usize
}

/// The epsilon threshold for the high 32 bits of a draw.
#[inline(always)]
pub fn threshold(epsilon: f64) -> u64 {
    (epsilon * 4_294_967_296.0) as u64
}

/// How the learner picks its move in a state during one episode (the behaviour policy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Exploration {
    /// A uniformly drawn legal move when the high 32 bits of the decision's draw are below
    /// `threshold` (see [`threshold`]), the greedy move otherwise.
    EpsilonGreedy {
        /// `epsilon · 2^32`.
        threshold: u64,
    },
    /// A legal move drawn with probability proportional to `exp(Q / temperature)`; the
    /// greedy move when the temperature is 0.
    Softmax {
        /// The temperature, >= 0.
        temperature: f64,
    },
}

impl Exploration {
    /// Whether the behaviour policy is the greedy policy.
    pub fn is_greedy(self) -> bool {
        match self {
            Exploration::EpsilonGreedy { threshold } => threshold == 0,
            Exploration::Softmax { temperature } => temperature == 0.0,
        }
    }
}

/// 2^-53: a 53-bit draw times this is uniform in [0, 1).
const UNIT_53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// An action-value table: a shared [`Layout`] (states, slots, symmetry index) and the
/// job's own values (see the module doc).
#[derive(Clone, Debug)]
pub struct QTable {
    layout: Arc<Layout>,
    q: Vec<f64>,
    /// The blocks of `q` written since every entry was `q_init`.
    dirty: Dirty,
}

impl QTable {
    /// A table over `states` of `game`, numbered in iteration order: each is (position id,
    /// its legal cells in increasing order). Every entry is `q_init`; keyed by symmetry
    /// class when `symmetry`. (Learners take their layout from the run's shared ones,
    /// [`QTable::with_layout`].)
    pub fn new<C>(game: Game, states: impl IntoIterator<Item = (usize, C)>, q_init: f64, symmetry: bool) -> QTable
    where
        C: IntoIterator<Item = u8>,
    {
        QTable::with_layout(Arc::new(Layout::new(game, states, symmetry)), q_init)
    }

    /// A table over a (shared) layout, every entry `q_init`. Small values reuse the
    /// buffer of the thread's previous table, where only the blocks its job wrote are
    /// reset (cheaper than fresh pages, see `Dirty`); big
    /// ones with `q_init = 0` come from lazily zeroed memory: a job pays for the pages its
    /// episodes touch, not for the table's size.
    pub fn with_layout(layout: Arc<Layout>, q_init: f64) -> QTable {
        let n = layout.entries();
        let (q, dirty) = match reused(n) {
            Some((mut q, mut dirty)) => {
                dirty.reset(&mut q, q_init);
                (q, dirty)
            }
            None if q_init.to_bits() == 0 => (vec![0.0; n], Dirty::clean(n, q_init)),
            None => (vec![q_init; n], Dirty::clean(n, q_init)),
        };
        QTable { layout, q, dirty }
    }

    /// Advises huge pages for the values when `episodes` games will touch most of their
    /// pages anyway (a few states per cell of a game): a long job then misses the TLB far
    /// less, while a short one does not zero 2 MiB for each page it reaches (see
    /// [`crate::hints::huge_pages`]).
    pub fn expect_episodes(&self, episodes: u64) {
        let pages = (self.q.len() * 8 / 4096) as u64;
        if pages > 0 && episodes.saturating_mul(self.game().cells() as u64) >= 4 * pages {
            crate::hints::huge_pages(&self.q);
        }
    }

    /// The layout the table is over.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The shared layout the table is over, for a learner that reads it while the table
    /// is borrowed elsewhere.
    pub fn shared_layout(&self) -> Arc<Layout> {
        Arc::clone(&self.layout)
    }

    /// The bytes its values hold (see [`crate::cost::memory::values`]; the layout's are
    /// [`Layout::heap_bytes`]).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&self.q[..])
    }

    /// The game whose positions the states are.
    pub fn game(&self) -> Game {
        self.layout.game()
    }

    /// The number of states.
    pub fn states(&self) -> usize {
        self.layout.states()
    }

    /// The slots of state `s`.
    #[inline(always)]
    pub fn slots(&self, s: usize) -> std::ops::Range<usize> {
        self.layout.slots(s)
    }

    /// The cell a slot plays.
    pub fn cell(&self, slot: usize) -> u8 {
        self.layout.cell[slot]
    }

    /// The greedy slot of state `s` (lowest cell among ties) and its value.
    #[inline(always)]
    pub fn greedy(&self, s: usize) -> (usize, f64) {
        let (first, end) = (self.layout.start[s] as usize, self.layout.start[s + 1] as usize);
        let mut best = (first, self.q[self.entry(first)]);
        for slot in first + 1..end {
            let v = self.q[self.entry(slot)];
            if v > best.1 {
                best = (slot, v);
            }
        }
        best
    }

    /// The slot to play in state `s` under `exploration`, given its greedy slot.
    #[inline(always)]
    pub fn choose(&self, s: usize, greedy: usize, exploration: Exploration, rng: &mut impl RngCore) -> usize {
        self.choose_by(s, || greedy, exploration, rng, |slot| self.value(slot))
    }

    /// [`QTable::choose`] for a learner that needs the greedy slot only to play it: the
    /// greedy scan runs only when the move is not an exploring one.
    #[inline(always)]
    pub fn choose_lazily(&self, s: usize, exploration: Exploration, rng: &mut impl RngCore) -> usize {
        self.choose_by(s, || self.greedy(s).0, exploration, rng, |slot| self.value(slot))
    }

    /// [`QTable::choose`] with the values that softmax weighs given by `value` (a slot's
    /// value), for learners that act on something other than this table's entries.
    #[inline(always)]
    pub fn choose_by(
        &self,
        s: usize,
        greedy: impl FnOnce() -> usize,
        exploration: Exploration,
        rng: &mut impl RngCore,
        value: impl Fn(usize) -> f64,
    ) -> usize {
        choose_among(self.slots(s), greedy, exploration, rng, value)
    }

    /// Takes the entries out, leaving the table without values until
    /// [`QTable::set_entries`] (for a learner that keeps its values its own way).
    pub fn take_entries(&mut self) -> Vec<f64> {
        self.dirty.all = true;
        std::mem::take(&mut self.q)
    }

    /// Gives the table its entries, one per entry (see [`QTable::entry`]).
    pub fn set_entries(&mut self, q: Vec<f64>) {
        assert_eq!(q.len(), self.layout.entries(), "one value per entry");
        self.dirty.all = true;
        self.q = q;
    }

    /// The greedy slot of state `s` and the expectation of this table's values under the
    /// behaviour policy `exploration` in `s` (Expected SARSA's target, undiscounted).
    #[inline(always)]
    pub fn greedy_and_expected(&self, s: usize, exploration: Exploration) -> (usize, f64) {
        let (first, end) = (self.layout.start[s] as usize, self.layout.start[s + 1] as usize);
        match exploration {
            Exploration::EpsilonGreedy { threshold } => {
                let mut best = (first, self.q[self.entry(first)]);
                let mut sum = best.1;
                for slot in first + 1..end {
                    let v = self.q[self.entry(slot)];
                    sum += v;
                    if v > best.1 {
                        best = (slot, v);
                    }
                }
                let explore = threshold as f64 / 4_294_967_296.0;
                (best.0, (1.0 - explore) * best.1 + explore * (sum / (end - first) as f64))
            }
            Exploration::Softmax { .. } => {
                let greedy = self.greedy(s).0;
                let values = |slot: usize| self.value(slot);
                (greedy, self.expectation(s, exploration, values))
            }
        }
    }

    /// `Σ π(a|s) · values(a)` over the slots of state `s`, where π is the behaviour policy
    /// `exploration` acting on this table's values.
    pub fn expectation(&self, s: usize, exploration: Exploration, values: impl Fn(usize) -> f64) -> f64 {
        let (first, end) = (self.layout.start[s] as usize, self.layout.start[s + 1] as usize);
        let greedy = self.greedy(s).0;
        match exploration {
            Exploration::EpsilonGreedy { threshold } => {
                let explore = threshold as f64 / 4_294_967_296.0;
                let mean = (first..end).map(&values).sum::<f64>() / (end - first) as f64;
                (1.0 - explore) * values(greedy) + explore * mean
            }
            Exploration::Softmax { temperature } if temperature > 0.0 => {
                let best = self.value(greedy);
                let weight = |slot| ((self.value(slot) - best) / temperature).exp();
                let total: f64 = (first..end).map(weight).sum();
                (first..end).map(|slot| weight(slot) * values(slot)).sum::<f64>() / total
            }
            Exploration::Softmax { .. } => values(greedy),
        }
    }

    /// The table entry a slot reads and updates (entries are numbered `0..entries().len()`).
    #[inline(always)]
    pub fn entry(&self, slot: usize) -> usize {
        if self.layout.identity { slot } else { self.layout.index[slot] as usize }
    }

    /// Whether every slot has its own entry, numbered as the slot (a table without
    /// `symmetry`): a learner can then read a state's entries as one run of slots.
    pub fn slots_are_entries(&self) -> bool {
        self.layout.identity
    }

    /// The entry of `slot` through the symmetry index, for a table that has one (see
    /// [`QTable::slots_are_entries`]); [`QTable::entry`] without the test of the layout.
    #[inline(always)]
    pub fn indexed_entry(&self, slot: usize) -> usize {
        self.layout.index[slot] as usize
    }

    /// `Q(slot) += alpha * (target - Q(slot))`.
    #[inline(always)]
    pub fn update(&mut self, slot: usize, alpha: f64, target: f64) {
        let e = self.entry(slot);
        self.update_entry(e, alpha, target);
    }

    /// Whether the table's layout is not deep (nothing to prefetch) and its writes are
    /// not marked: [`QTable::update_plain`] may stand for [`QTable::update`].
    pub fn is_plain(&self) -> bool {
        !self.layout.deep() && !self.dirty.tracked
    }

    /// [`QTable::update`] on a plain table ([`QTable::is_plain`]), without the test of
    /// whether its writes are marked.
    #[inline(always)]
    pub fn update_plain(&mut self, slot: usize, alpha: f64, target: f64) {
        debug_assert!(!self.dirty.tracked, "a plain table's writes are not marked");
        let e = self.entry(slot);
        let entry = &mut self.q[e];
        *entry += alpha * (target - *entry);
    }

    /// `Q(entry) += alpha * (target - Q(entry))`.
    #[inline(always)]
    pub fn update_entry(&mut self, entry: usize, alpha: f64, target: f64) {
        let old = self.q[entry];
        let new = old + alpha * (target - old);
        self.q[entry] = new;
        if self.dirty.tracked {
            self.dirty.mark_if(entry, new.to_bits() != old.to_bits());
        }
    }

    /// `Q(slot) += amount` (a move's share of a later TD error, by its eligibility).
    #[inline(always)]
    pub fn add(&mut self, slot: usize, amount: f64) {
        let e = self.entry(slot);
        let old = self.q[e];
        let new = old + amount;
        self.q[e] = new;
        if self.dirty.tracked {
            self.dirty.mark_if(e, new.to_bits() != old.to_bits());
        }
    }

    /// The value of a slot.
    pub fn value(&self, slot: usize) -> f64 {
        self.q[self.entry(slot)]
    }

    /// Every table entry, in table order.
    pub fn entries(&self) -> &[f64] {
        &self.q
    }

    /// The greedy move in every state that has a legal move.
    pub fn policy(&self) -> Policy {
        let mut policy = Policy::new(self.game());
        for s in 0..self.states() {
            if !self.slots(s).is_empty() {
                policy.set(self.layout.position(s), self.cell(self.greedy(s).0));
            }
        }
        policy
    }

    /// The greedy move in `b` (lowest cell among ties), or `None` when `b` is not one of
    /// the table's states or has no legal move: [`QTable::policy`]'s move in `b`, found
    /// without writing out a policy over every position.
    pub fn greedy_move(&self, b: Board) -> Option<u8> {
        let s = self.layout.state(b)?;
        (!self.slots(s).is_empty()).then(|| self.cell(self.greedy(s).0))
    }
}

impl crate::mdp::Moves for QTable {
    fn game(&self) -> Game {
        QTable::game(self)
    }

    fn get(&self, b: Board) -> Option<u8> {
        self.greedy_move(b)
    }
}

/// Values up to this many entries (8 MiB) are reused by the thread's next table of the
/// same size rather than taken from fresh, lazily zeroed pages: resetting what a job
/// wrote costs less than the first touch of the pages an episode reaches.
const REUSED_ENTRIES: usize = 1 << 20;

/// Reused values up to this many entries (512 KiB) are refilled whole: their refill costs
/// less than marking every write of a job.
const TRACKED_ENTRIES: usize = 1 << 16;

/// Which blocks of a table's entries were written since all of them were `q_init`, so
/// that the thread's next table over the same buffer resets only those: a short job on
/// a table of a million entries writes a few thousand (a 3,000-episode 3x4k4 job), and
/// refilling the whole buffer (up to 8 MiB) cost more than its episodes.
///
/// One bit per block of 8 entries (a 64-byte cache line), at most 16 KiB of bits, for a
/// table that can be reused and is worth it (`tracked`: more than [`TRACKED_ENTRIES`]);
/// a smaller one (tic-tac-toe's) is refilled whole, cheaper than marking its writes, and
/// a bigger one is never reused. Every write to the values goes through
/// [`Dirty::mark_if`] when tracked, or sets `all` (values taken out or replaced).
#[derive(Clone, Debug)]
struct Dirty {
    bits: Vec<u64>,
    shift: u32,
    /// Whether writes are marked; when not, `all` stays set.
    tracked: bool,
    /// Whether to refill everything.
    all: bool,
    /// The bits of the `q_init` the clean entries hold.
    q_init: u64,
}

impl Dirty {
    /// No block written, over `n` entries that are all `q_init`.
    fn clean(n: usize, q_init: f64) -> Dirty {
        let tracked = (TRACKED_ENTRIES + 1..=REUSED_ENTRIES).contains(&n);
        let shift = if tracked { 3 } else { usize::BITS - 1 };
        Dirty { bits: vec![0; (n >> shift) / 64 + 1], shift, tracked, all: !tracked, q_init: q_init.to_bits() }
    }

    /// Marks the block of entry `e` as written when `changed` (without a branch: most
    /// of a short job's writes leave an entry as it was, at `q_init`).
    #[inline(always)]
    fn mark_if(&mut self, e: usize, changed: bool) {
        let block = e >> self.shift;
        self.bits[block / 64] |= u64::from(changed) << (block % 64);
    }

    /// Sets every entry of `q` to `q_init`, writing only the blocks marked (everything
    /// when `all`, or when the clean entries hold another `q_init`); then none is marked.
    fn reset(&mut self, q: &mut [f64], q_init: f64) {
        if self.all || self.q_init != q_init.to_bits() {
            q.fill(q_init);
            self.bits.fill(0);
        } else {
            for (w, word) in self.bits.iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    let block = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let start = (block << self.shift).min(q.len());
                    let end = ((block + 1) << self.shift).min(q.len());
                    match <&mut [f64; 8]>::try_from(&mut q[start..end]) {
                        // A whole line: a few wide stores rather than a call.
                        Ok(line) => *line = [q_init; 8],
                        Err(_) => q[start..end].fill(q_init),
                    }
                }
            }
        }
        self.all = !self.tracked;
        self.q_init = q_init.to_bits();
    }
}

thread_local! {
    /// The values of the thread's last small table and what its job wrote, for the next
    /// table of the same size.
    static SPARE: std::cell::RefCell<Option<(Vec<f64>, Dirty)>> = const { std::cell::RefCell::new(None) };
}

/// The thread's spare buffer of `n` entries and what was written in it, if it has one.
fn reused(n: usize) -> Option<(Vec<f64>, Dirty)> {
    if n > REUSED_ENTRIES || n == 0 {
        return None;
    }
    SPARE.with(|spare| {
        let mut spare = spare.borrow_mut();
        match &*spare {
            Some((q, _)) if q.len() == n => spare.take(),
            _ => None,
        }
    })
}

impl Drop for QTable {
    fn drop(&mut self) {
        if (1..=REUSED_ENTRIES).contains(&self.q.len()) {
            let written = Dirty { bits: Vec::new(), shift: 0, tracked: false, all: true, q_init: 0 };
            let kept = (std::mem::take(&mut self.q), std::mem::replace(&mut self.dirty, written));
            // A thread being torn down has no spare to keep.
            let _ = SPARE.try_with(|spare| *spare.borrow_mut() = Some(kept));
        }
    }
}

/// [`QTable::choose_by`] among a state's `slots`, for a learner that has them at hand.
#[inline(always)]
pub fn choose_among(
    slots: std::ops::Range<usize>,
    greedy: impl FnOnce() -> usize,
    exploration: Exploration,
    rng: &mut impl RngCore,
    value: impl Fn(usize) -> f64,
) -> usize {
    let (first, end) = (slots.start, slots.end);
    let draw = rng.next_u64();
    match exploration {
        Exploration::EpsilonGreedy { threshold } => {
            if draw >> 32 < threshold {
                first + below(draw as u32, end - first)
            } else {
                greedy()
            }
        }
        Exploration::Softmax { temperature } if temperature > 0.0 => {
            let best = value(greedy());
            let weight = |slot| ((value(slot) - best) / temperature).exp();
            let total: f64 = (first..end).map(weight).sum();
            let mut left = (draw >> 11) as f64 * UNIT_53 * total;
            for slot in first..end - 1 {
                left -= weight(slot);
                if left < 0.0 {
                    return slot;
                }
            }
            end - 1
        }
        Exploration::Softmax { .. } => greedy(),
    }
}

/// What a tabular learner ends with.
#[derive(Clone, Debug)]
pub struct Trained {
    /// The final table (for Double Q-learning, the mean of its two tables).
    pub table: QTable,
    /// The behaviour policy of the last episode.
    pub exploration: Exploration,
}

/// One step of a training schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Play one episode with this exploration and step size.
    Play {
        /// How moves are picked.
        exploration: Exploration,
        /// The step size.
        alpha: f64,
    },
    /// A checkpoint falls after the episode just played.
    Checkpoint(Checkpoint),
}

/// The schedule of a tabular learner: `episodes` episodes, epsilon (or the temperature,
/// under softmax) and alpha multiplied by their decays after each (never below their
/// floors), and a checkpoint after each episode listed in `checkpoints` (increasing; a
/// leading 0 is a checkpoint before the first episode, of the untrained table).
/// Returns the exploration of the last episode (the final behaviour policy's).
pub fn run_schedule(params: &QParams, checkpoints: &[u64], mut step: impl FnMut(Step)) -> Exploration {
    let (mut epsilon, mut alpha, mut temperature) = (params.epsilon, params.alpha, params.temperature);
    let mut next_checkpoint = checkpoints.iter().copied().peekable();
    let softmax = params.exploration == ExplorationRule::Softmax;
    let mut exploration = Exploration::EpsilonGreedy { threshold: threshold(epsilon) };
    if next_checkpoint.next_if_eq(&0).is_some() {
        // A leading 0: the untrained table, before the first episode.
        let rate = if softmax { temperature } else { epsilon };
        step(Step::Checkpoint(Checkpoint { episode: 0, epsilon: rate, alpha }));
    }
    for episode in 1..=params.episodes {
        exploration = if softmax {
            Exploration::Softmax { temperature }
        } else {
            Exploration::EpsilonGreedy { threshold: threshold(epsilon) }
        };
        step(Step::Play { exploration, alpha });
        if next_checkpoint.peek() == Some(&episode) {
            next_checkpoint.next();
            let rate = if softmax { temperature } else { epsilon };
            step(Step::Checkpoint(Checkpoint { episode, epsilon: rate, alpha }));
        }
        epsilon = (epsilon * params.epsilon_decay).max(params.epsilon_min);
        alpha = (alpha * params.alpha_decay).max(params.alpha_min);
        temperature = (temperature * params.temperature_decay).max(params.temperature_min);
    }
    exploration
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::symmetry;
    use crate::mdp::{Opponent, Seat};
    use crate::seed::{self, Stream, fnv1a};
    use crate::solvers::{TrainOpponent, q_learning};

    /// A table over every position, the side to move playing each legal cell.
    fn every_position(symmetry: bool) -> QTable {
        let positions = Game::TIC_TAC_TOE.positions();
        QTable::new(
            Game::TIC_TAC_TOE,
            (0..positions.len()).map(|id| (id, positions.board(id).legal_cells())),
            0.0,
            symmetry,
        )
    }

    /// The entry that (position, cell) reads in a table over every position.
    fn entry(table: &QTable, id: usize, cell: u8) -> u32 {
        let slot = table.slots(id).find(|&slot| table.cell(slot) == cell).expect("a legal cell");
        table.entry(slot) as u32
    }

    #[test]
    fn checkpoints_are_even_and_end_at_the_last_episode() {
        assert_eq!(checkpoint_episodes(100, 4), vec![25, 50, 75, 100]);
        assert_eq!(checkpoint_episodes(10, 3), vec![3, 7, 10]);
        assert_eq!(checkpoint_episodes(3, 3), vec![1, 2, 3]);
    }

    #[test]
    fn images_of_a_move_share_an_entry() {
        let positions = Game::TIC_TAC_TOE.positions();
        let (shared, plain) = (every_position(true), every_position(false));
        for id in 0..positions.len() {
            let board = positions.board(id);
            let images: std::collections::HashSet<_> = (0..8).map(|t| symmetry::apply(t, board)).collect();
            // A board with a symmetry of its own has several canonicalising transforms;
            // its moves keep the entries of the one `canonical` picks (checked below).
            if images.len() < 8 {
                continue;
            }
            for cell in board.legal_cells() {
                for t in 0..8 {
                    let image = positions.id(symmetry::apply(t, board)).expect("a reachable image");
                    let moved = symmetry::PERM[t][usize::from(cell)];
                    assert_eq!(entry(&shared, id, cell), entry(&shared, image, moved), "{board} {cell} {t}");
                }
            }
        }
        // The entries in use: one per legal move of each canonical board; one per slot
        // without symmetry.
        let canonical_moves: usize = (0..positions.len())
            .map(|id| positions.board(id))
            .filter(|&b| symmetry::canonical(b).0 == b)
            .map(|b| b.legal_cells().count())
            .sum();
        let used: std::collections::HashSet<u32> = shared.layout.index.iter().copied().collect();
        assert_eq!(used.len(), canonical_moves);
        assert!(plain.layout.index.is_empty() && (0..plain.layout.cell.len()).all(|slot| plain.entry(slot) == slot));
        assert_eq!(plain.entries().len(), plain.layout.cell.len());
    }

    /// A trained table asked position by position plays its written-out policy, in every
    /// position of the game; two jobs' tables share one layout.
    #[test]
    fn a_table_asked_where_it_is_plays_its_policy() {
        for (symmetry, opponent) in [(false, TrainOpponent::Fixed(Opponent::Random)), (true, TrainOpponent::SelfPlay)] {
            let params = QParams { symmetry, opponent, episodes: 500, ..QParams::default() };
            let mut tables = Vec::new();
            q_learning::train(&params, 1, &[500], |_, t| tables.push(t.clone()));
            let table = &tables[0];
            let (policy, positions) = (table.policy(), Game::TIC_TAC_TOE.positions());
            for id in 0..positions.len() {
                let b = positions.board(id);
                assert_eq!(crate::mdp::Moves::get(table, b), policy.get(b), "{b}");
            }
            let again = QTable::with_layout(Arc::clone(&table.layout), 0.0);
            assert!(Arc::ptr_eq(&again.layout, &table.layout));
        }
        let params = QParams { episodes: 10, ..QParams::default() };
        let (a, b) =
            (q_learning::train_table(&params, 1, &[], |_, _| {}), q_learning::train_table(&params, 2, &[], |_, _| {}));
        assert!(Arc::ptr_eq(&a.table.layout, &b.table.layout), "the run's layout is shared");
    }

    /// A table over the thread's previous buffer starts at its own `q_init` everywhere,
    /// whatever the previous job wrote, with which `q_init`, and however.
    #[test]
    fn a_reused_buffer_is_reset_to_the_new_q_init() {
        // 3x4k4: 304,308 entries, whose writes are tracked.
        let params = QParams { game: "3x4k4".parse().unwrap(), episodes: 300, ..QParams::default() };
        let layout = Arc::clone(&q_learning::train_table(&params, 1, &[], |_, _| {}).table.layout);
        assert!(Dirty::clean(layout.entries(), 0.0).tracked);
        for (q_init, then) in [(0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (-0.2, 0.0)] {
            let mut table = QTable::with_layout(Arc::clone(&layout), q_init);
            assert!(table.entries().iter().all(|&v| v == q_init));
            for e in (0..table.entries().len()).step_by(97) {
                table.update_entry(e, 0.5, 1.0);
            }
            drop(table);
            let table = QTable::with_layout(Arc::clone(&layout), then);
            assert!(table.entries().iter().all(|&v| v == then), "{q_init} then {then}");
        }
        let mut replaced = QTable::with_layout(Arc::clone(&layout), 0.0);
        let n = replaced.entries().len();
        replaced.set_entries(vec![1.0; n]);
        drop(replaced);
        assert!(QTable::with_layout(layout, 0.0).entries().iter().all(|&v| v == 0.0));
    }

    #[test]
    fn the_greedy_move_is_the_best_and_ties_go_to_the_lowest_cell() {
        let mut table = every_position(false);
        let slots = table.slots(0);
        assert_eq!(table.greedy(0), (slots.start, 0.0));
        table.update(slots.start + 4, 0.5, 1.0);
        table.update(slots.start + 7, 0.5, 1.0);
        assert_eq!(table.greedy(0), (slots.start + 4, 0.5));
        assert_eq!(table.cell(table.greedy(0).0), 4);
        assert_eq!(table.policy().get(crate::game::Board::EMPTY), Some(4));
    }

    #[test]
    fn epsilon_greedy_explores_uniformly_or_plays_greedy() {
        let table = every_position(false);
        let mut rng = seed::rng(5, Stream::Train);
        let (never, always) = (threshold(0.0), threshold(1.0));
        let mut seen = [0u32; 9];
        for _ in 0..9000 {
            assert_eq!(table.choose(0, 3, Exploration::EpsilonGreedy { threshold: never }, &mut rng), 3);
            seen[table.choose(0, 3, Exploration::EpsilonGreedy { threshold: always }, &mut rng)] += 1;
        }
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
    }

    #[test]
    fn schedules_decay_after_each_episode_down_to_their_floors() {
        let params = QParams {
            episodes: 4,
            epsilon: 1.0,
            epsilon_decay: 0.5,
            epsilon_min: 0.2,
            alpha: 0.5,
            alpha_decay: 0.5,
            alpha_min: 0.1,
            ..QParams::default()
        };
        let mut steps = Vec::new();
        run_schedule(&params, &[1, 3, 4], |step| steps.push(step));
        let play = |epsilon: f64, alpha| Step::Play {
            exploration: Exploration::EpsilonGreedy { threshold: threshold(epsilon) },
            alpha,
        };
        let mark = |episode, epsilon, alpha| Step::Checkpoint(Checkpoint { episode, epsilon, alpha });
        let want = vec![
            play(1.0, 0.5),
            mark(1, 1.0, 0.5),
            play(0.5, 0.25),
            play(0.25, 0.125),
            mark(3, 0.25, 0.125),
            play(0.2, 0.1),
            mark(4, 0.2, 0.1),
        ];
        assert_eq!(steps, want);
    }

    /// Appends a checkpoint (episode, epsilon, alpha, every table entry, greedy policy).
    fn record(bytes: &mut Vec<u8>, c: Checkpoint, entries: &[f64], policy: &Policy) {
        bytes.extend(c.episode.to_le_bytes());
        bytes.extend(c.epsilon.to_bits().to_le_bytes());
        bytes.extend(c.alpha.to_bits().to_le_bytes());
        for v in entries {
            bytes.extend(v.to_bits().to_le_bytes());
        }
        moves(bytes, policy);
    }

    /// Appends the policy's move (255: none) in every position, in id order: the
    /// policy's content, whatever its representation.
    fn moves(bytes: &mut Vec<u8>, policy: &Policy) {
        let positions = Game::TIC_TAC_TOE.positions();
        bytes.extend((0..positions.len()).map(|id| policy.get(positions.board(id)).unwrap_or(255)));
    }

    /// FNV-1a of every checkpoint and the final policy of one training run.
    fn digest(params: &QParams, seed: u64) -> u64 {
        let marks = checkpoint_episodes(params.episodes, 4);
        let mut bytes = Vec::new();
        let policy = q_learning::train(params, seed, &marks, |c, t| record(&mut bytes, c, t.entries(), &t.policy()));
        moves(&mut bytes, &policy);
        fnv1a(&bytes)
    }

    /// Settings that exercise every branch: both seats, the three fixed opponents and
    /// self-play, symmetry on and off, decaying alpha, greedy-only and explore-only.
    fn configs() -> Vec<QParams> {
        let fixed = |seat, opponent| QParams {
            seat,
            opponent: TrainOpponent::Fixed(opponent),
            episodes: 3000,
            ..QParams::default()
        };
        let self_play = QParams { opponent: TrainOpponent::SelfPlay, episodes: 3000, ..QParams::default() };
        vec![
            fixed(Seat::X, Opponent::Random),
            QParams { symmetry: true, ..fixed(Seat::O, Opponent::Random) },
            QParams { alpha_decay: 0.999, alpha_min: 0.1, ..fixed(Seat::X, Opponent::Minimax) },
            QParams { symmetry: true, q_init: 0.5, ..fixed(Seat::O, Opponent::MinimaxUniform) },
            QParams { gamma: 1.0, epsilon_decay: 0.99, epsilon_min: 0.0, ..fixed(Seat::X, Opponent::MinimaxUniform) },
            QParams { epsilon: 0.0, epsilon_min: 0.0, ..fixed(Seat::O, Opponent::Minimax) },
            QParams { epsilon_decay: 1.0, symmetry: true, ..fixed(Seat::X, Opponent::Random) },
            self_play,
            QParams { symmetry: true, alpha_decay: 0.999, alpha_min: 0.05, q_init: -0.2, ..self_play },
            QParams { epsilon: 0.3, epsilon_decay: 1.0, gamma: 1.0, ..self_play },
        ]
    }

    /// The digests of [`configs`] with seed 7. A change here means that a learner no
    /// longer reproduces earlier results bit for bit.
    const DIGESTS: [u64; 10] = [
        0xf0b5a19a926cb552,
        0xb80a5f7e81ba71a0,
        0x88a11f8b72fa9592,
        0x50063b1f41aef4e4,
        0x09f677731e876fe8,
        0xf170efff1c57533d,
        0x96dc895cc4cb9ba3,
        0x3f9eadea9033c975,
        0x7a5e118299c9c554,
        0xd6f1a0b2f8c3e7aa,
    ];

    #[test]
    fn training_reproduces_the_pinned_tables_policies_and_schedules() {
        let got: Vec<u64> = configs().iter().map(|p| digest(p, 7)).collect();
        assert_eq!(got, DIGESTS);
    }
}
