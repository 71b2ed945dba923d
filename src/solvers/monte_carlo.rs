//! Monte Carlo control: first-visit, on-policy, against a fixed opponent or in self-play.
//!
//! Algorithm (Sutton & Barto 2018, §5.4, on-policy first-visit MC control for ε-soft
//! policies): play a whole game by the behaviour policy (ε-greedy or softmax), then for
//! every move `(s,a)` of the game, last first, with `G` its return,
//!
//! `Q(s,a) += step * (G - Q(s,a))`, `G = gamma^k * r`,
//!
//! where `r` is the final reward and `k` the number of the agent's moves after this one;
//! `step` is `alpha` with its schedule (`step = "alpha"`) or `1/N(s,a)`, the number of
//! returns the entry has received (`step = "average"`: the entry is their mean). Every
//! visit is a first visit here: a position never repeats within a game (each move adds a
//! mark), and with `symmetry` two positions of one game never share a class (they have
//! different numbers of marks). The self-play form keeps one table seen from the side to
//! move: the last mover's return is `r`, and each earlier move's is `-gamma` times the
//! next move's.
//!
//! - Assumptions: episodic tasks (every game ends within 9 moves); those of
//!   [`q_learning`](super::q_learning) or [`self_play`](super::self_play).
//! - Hyperparameters: those of Q-learning, with `exploration` (and its temperature) and
//!   `step`. With `step = "average"` alpha and its schedule are unused (the curves'
//!   `alpha` column still shows the schedule). Draws: Q-learning's, in the same order.
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: returns of the behaviour policy, so Q^π of it under its own
//!   `gamma` while the policy holds still (it drifts as the table changes, which the
//!   sample average remembers longest). `q_error` compares with Q^π of the final
//!   behaviour policy, or with Q* when that policy is greedy.
//!
//! The game's moves are kept as table entries in a buffer reused by every episode, so an
//! episode allocates nothing once the first game has been played. A move's return is the
//! final reward times a power of the factor from a table made once (exact, as the reward is
//! -1, 0 or 1), and the updates run first move first: the next game's first decision reads
//! the entry of this game's first move, and waits for one product and one update rather
//! than for a chain of them. During play the greedy scan runs only for moves that are not
//! exploring ones (the scan's result is not needed otherwise). When every game starts in
//! the same state (X against a fixed opponent, and self-play), the next game's first
//! greedy move is found without a scan of that state after the update: the best of the
//! state's other moves is found while the game is played, as only the first move's entry
//! changes there, and one comparison with the updated entry finishes it. References:
//! Sutton & Barto 2018, §5.3–5.4.

use std::borrow::Cow;

use rand::RngCore;

use super::driver::{self, Episodes, Mode, outcome};
use super::params::{MonteCarloParams, StepRule};
use super::self_play::{END, Successors};
use super::tabular::{Checkpoint, Exploration, QTable, Trained};
use crate::mdp::AgentMdp;
use crate::seed;

/// The update of a finished game.
struct Returns {
    /// The slots played, in order.
    moves: Vec<u32>,
    /// `powers[k]` is `factor^k`, the return `k` moves before the last one's per unit of
    /// final reward, for every `k` a game allows.
    powers: Vec<f64>,
    /// Returns received per table entry (`step = "average"` only).
    counts: Vec<u32>,
    /// Whether the step is the sample average.
    average: bool,
}

impl Returns {
    /// Returns whose each earlier move's return is `factor` times the next one's.
    fn new(table: &QTable, step: StepRule, factor: f64) -> Returns {
        let average = step == StepRule::Average;
        let counts = if average { vec![0; table.entries().len()] } else { Vec::new() };
        let mut powers = vec![1.0];
        for k in 1..table.game().cells() {
            powers.push(powers[k - 1] * factor);
        }
        Returns { moves: Vec::with_capacity(powers.len()), powers, counts, average }
    }

    /// Updates every move of the game, first first, whose last return is `reward` (the
    /// final reward, -1, 0 or 1): the return of the move `k` moves before the last is
    /// `reward * factor^k`, equal bit for bit to multiplying `reward` by `factor` `k`
    /// times, as multiplying by -1, 0 or 1 is exact. No return waits for another, so the
    /// next game's first decision, which reads the entry updated first, waits for one
    /// product only.
    #[inline(always)]
    fn update(&mut self, table: &mut QTable, alpha: f64, reward: f64) {
        debug_assert!(reward == -1.0 || reward == 0.0 || reward == 1.0);
        let last = self.moves.len() - 1;
        for (k, &entry) in self.moves.iter().enumerate() {
            let entry = entry as usize;
            let g = reward * self.powers[last - k];
            let step = if self.average {
                let n = &mut self.counts[entry];
                *n += 1;
                1.0 / f64::from(*n)
            } else {
                alpha
            };
            table.update_entry(entry, step, g);
        }
        self.moves.clear();
    }
}

/// The greedy move of the state that starts every game, known when the game before ends.
///
/// During a game only the first move's entry changes at that state (each later move is
/// made in a position with more marks, and a state's moves have distinct entries, with
/// symmetry too), so the best of its other moves can be found while the game is played.
/// Once the game's update is done, the greedy move is one comparison of two values: the
/// next game's first decision waits for that, not for a scan of the updated state.
struct FirstGreedy {
    /// The state every game starts in.
    state: usize,
    /// Its greedy slot (lowest cell among ties).
    greedy: usize,
    /// The slot of this game's first move.
    played: usize,
    /// The first slot with the largest value among the state's other slots, and that value
    /// (`usize::MAX` and minus infinity when there is none).
    other: (usize, f64),
}

impl FirstGreedy {
    fn new(table: &QTable, state: usize) -> FirstGreedy {
        let greedy = table.greedy(state).0;
        FirstGreedy { state, greedy, played: greedy, other: (usize::MAX, f64::NEG_INFINITY) }
    }

    /// The game's first move, by the behaviour policy `exploration` (one draw, as
    /// [`QTable::choose_lazily`] takes), after which the best of the state's other slots is
    /// found.
    #[inline(always)]
    fn choose(&mut self, table: &QTable, exploration: Exploration, rng: &mut impl RngCore) -> usize {
        let greedy = self.greedy;
        let slot = table.choose_by(self.state, || greedy, exploration, rng, |slot| table.value(slot));
        self.played(table, slot);
        slot
    }

    /// The game's first move is `slot`: finds the best of the state's other slots.
    #[inline(always)]
    fn played(&mut self, table: &QTable, slot: usize) {
        // The slots below the played one, then those above it: two plain scans, with no
        // test of the played slot per value; without symmetry, over runs of the entries.
        let slots = table.slots(self.state);
        let none = (usize::MAX, f64::NEG_INFINITY);
        let other = if table.slots_are_entries() {
            let q = table.entries();
            let below = best_in(q[slots.start..slot].iter().copied(), slots.start, none);
            best_in(q[slot + 1..slots.end].iter().copied(), slot + 1, below)
        } else {
            let values = |run: std::ops::Range<usize>| run.map(|s| table.value(s));
            best_in(values(slot + 1..slots.end), slot + 1, best_in(values(slots.start..slot), slots.start, none))
        };
        (self.played, self.other) = (slot, other);
    }

    /// The game's updates are done: the greedy slot for the next game, the first slot with
    /// the largest value as [`QTable::greedy`] gives it.
    #[inline(always)]
    fn updated(&mut self, table: &QTable) {
        let v = table.value(self.played);
        let (slot, best) = self.other;
        // A branch, on purpose: the greedy move seldom changes, so the processor predicts it
        // and starts the next game before the update is done. A select in its place
        // (`std::hint::select_unpredictable`) made the learner 12% slower
        // (docs/performance-history.md §10).
        self.greedy = if v > best || (v == best && self.played < slot) { self.played } else { slot };
    }
}

/// The first slot with the largest value among `values`, the values of the slots from
/// `first` on, or `best` when none is larger than its value.
#[inline(always)]
fn best_in(values: impl Iterator<Item = f64>, first: usize, mut best: (usize, f64)) -> (usize, f64) {
    for (k, v) in values.enumerate() {
        if v > best.1 {
            best = (first + k, v);
        }
    }
    best
}

/// Trains Monte Carlo control against `params.learner.opponent` (a fixed one or itself);
/// calls `checkpoint` after each listed episode.
pub fn train(
    params: &MonteCarloParams,
    seed: u64,
    checkpoints: &[u64],
    checkpoint: impl FnMut(Checkpoint, &QTable),
) -> Trained {
    let (gamma, step) = (params.learner.gamma, params.step);
    driver::train(&params.learner, seed, checkpoints, checkpoint, |table, mode| {
        // In self-play each move's return is the negation of the reply's.
        let factor = if mode == Mode::SelfPlay { -gamma } else { gamma };
        let returns = Returns::new(&table, step, factor);
        // As X, and in self-play, every game starts from the empty board; as O from one of
        // the opponent's openings.
        let first = mode.start().map(|state| FirstGreedy::new(&table, state));
        MonteCarlo { table, returns, first }
    })
}

/// Monte Carlo control's state: its table, the update of the game being played, and the
/// greedy move of the state every game starts in, when there is only one.
struct MonteCarlo {
    table: QTable,
    returns: Returns,
    first: Option<FirstGreedy>,
}

impl MonteCarlo {
    /// The game's first move in state `s`, by the behaviour policy `exploration`.
    #[inline(always)]
    fn first_move(&mut self, s: usize, exploration: Exploration, rng: &mut impl RngCore) -> usize {
        match &mut self.first {
            Some(first) => first.choose(&self.table, exploration, rng),
            None => self.table.choose_lazily(s, exploration, rng),
        }
    }

    /// Updates every move of the game just played, whose final reward is `reward`.
    #[inline(always)]
    fn learn(&mut self, alpha: f64, reward: f64) {
        self.returns.update(&mut self.table, alpha, reward);
        if let Some(first) = &mut self.first {
            first.updated(&self.table);
        }
    }
}

impl Episodes for MonteCarlo {
    #[inline(always)]
    fn fixed(&mut self, mdp: &AgentMdp, rng: &mut seed::Rng, first: usize, exploration: Exploration, alpha: f64) {
        let mut slot = self.first_move(first, exploration, rng);
        let reward = loop {
            self.returns.moves.push(self.table.entry(slot) as u32);
            match outcome(mdp, self.table.layout(), slot, rng) {
                Err(reward) => break reward,
                Ok(next) => slot = self.table.choose_lazily(next, exploration, rng),
            }
        };
        self.learn(alpha, reward);
    }

    #[inline(always)]
    fn self_play(&mut self, successors: &Successors, rng: &mut seed::Rng, exploration: Exploration, alpha: f64) {
        let mut slot = self.first_move(0, exploration, rng);
        let reward = loop {
            self.returns.moves.push(self.table.entry(slot) as u32);
            match successors.child[slot] {
                END => break successors.reward[slot],
                next => slot = self.table.choose_lazily(next as usize, exploration, rng),
            }
        };
        self.learn(alpha, reward);
    }

    fn table(&self) -> Cow<'_, QTable> {
        Cow::Borrowed(&self.table)
    }

    fn into_table(self) -> QTable {
        self.table
    }
}

#[cfg(test)]
mod tests {
    use super::super::driver::table;
    use super::super::tabular::below;
    use super::*;
    use crate::mdp::{Opponent, Seat};
    use crate::solvers::ground_truth;

    #[test]
    fn the_first_states_greedy_move_is_the_scans_after_every_update() {
        // Values from a set of five, so that ties are frequent; with and without symmetry.
        for symmetry in [false, true] {
            let mdp = &ground_truth(crate::game::Game::TIC_TAC_TOE, Seat::X, Opponent::Random).mdp;
            let mut table = table(mdp, 0.0, symmetry);
            let state = mdp.start()[0].next as usize;
            let mut first = FirstGreedy::new(&table, state);
            let mut rng = seed::rng(3, seed::Stream::Train);
            let slots = table.slots(state);
            for _ in 0..2000 {
                assert_eq!(first.greedy, table.greedy(state).0);
                let slot = slots.start + below(rng.next_u32(), slots.len());
                first.played(&table, slot);
                let value = f64::from(rng.next_u32() % 5) / 4.0 - 0.5;
                table.update(slot, 1.0, value);
                first.updated(&table);
            }
            assert_eq!(first.greedy, table.greedy(state).0);
        }
    }
}
