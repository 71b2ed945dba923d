//! Agent MDPs: the decision problem of one seat against one fixed opponent in one game.
//!
//! States are the non-terminal positions where the agent is to move that are reachable
//! from the start under some agent play and the opponent's support. The opponent's replies
//! are marginalised into the transitions, so an action leads to equally likely
//! [`Outcome`]s (one per opponent reply, or one when the agent's move ends the game), each
//! with the reward earned on the way (agent's view: win +1, loss -1, draw 0) and the next
//! agent state (or none when the game ended). Undiscounted.
//!
//! Storage is flat (compressed rows): states → action slots → outcomes, in one compact
//! form that serves both the exact solvers ([`AgentMdp::q`]) and the simulators
//! ([`AgentMdp::sampled`]). Per action slot: an 8-byte row (where its outcomes start, how
//! many there are and how many continue, the cell, and the expected immediate reward
//! `Σ p·r` of its ending outcomes as a one-byte code: an MDP has few distinct rewards,
//! kept in a small table).
//! Per outcome: one `u32` code, 4 bytes, in the opponent's reply order: the next state of
//! an outcome that continues, or the reward of one that ends the game. A slot's codes
//! depend only on the position its move leads to, so the slots that lead to one position
//! share one run of codes (transpositions: 135.6 M outcomes but 25 M codes for 4x4k4, x
//! against random), and the slots whose move ends the game share three ending codes.
//! The probability of an outcome is one over the slot's count. The simulators read one row and one code per
//! step; `q` adds the continuing values to the expected reward, in reply order.
//! States are kept in increasing position id, which is a topological order: every
//! transition goes to a larger state id, so one backward pass evaluates any policy exactly.

pub mod best_response;
pub mod evaluate;
mod opponent;
mod outcome;
pub mod saved_policy;
mod seat;

pub use best_response::{EvalOpponent, best_response, best_response_within, game_value};
pub use evaluate::{Evaluation, Evaluator, GameTally, Moves, Policy, sample_games};
pub use opponent::{FIXED, Opponent, ParseNameError, with_last};
pub use outcome::{Outcome, Outcomes};
pub use saved_policy::{PolicyRef, SavedPolicy};
pub use seat::Seat;

use crate::game::rules::MAX_CELLS;
use crate::game::{Board, Game, Positions, Status};

/// "No next state": the game ended.
pub const TERMINAL: u32 = u32::MAX;

/// Codes from here on mean "the game ended with reward `code - END - 1`" (loss, draw, win).
pub(crate) const END: u32 = u32::MAX - 2;

/// The MDP that one (game, seat, opponent) triple induces.
#[derive(Debug, Clone)]
pub struct AgentMdp {
    seat: Seat,
    opponent: Opponent,
    positions: &'static Positions,
    /// Position id of each state, increasing.
    states: Vec<u32>,
    /// Position id → state id, or [`TERMINAL`].
    state_of: Vec<u32>,
    action_start: Vec<u32>,
    /// Per action slot: what `q` and the simulators read first.
    rows: Vec<SlotHead>,
    /// The distinct expected immediate rewards of the slots: see [`Rewards`].
    rewards: Rewards,
    /// Per action slot, in reply order: the next state of each continuing outcome, or the
    /// code of an ending one (see [`END`]).
    codes: Vec<u32>,
    /// `probability[n]` = `1 / n`: the probability of each of `n` outcomes.
    probability: [f64; MAX_CELLS + 1],
    start: Vec<Outcome>,
}

impl AgentMdp {
    /// Builds the MDP of `seat` against `opponent` in `game` (about a tenth of a
    /// millisecond for tic-tac-toe).
    pub fn build(game: Game, seat: Seat, opponent: Opponent) -> AgentMdp {
        let pos = game.positions();
        let start = start_positions(pos, seat, opponent);
        let reached = reachable(pos, seat, opponent, &start);
        let states: Vec<u32> = (0..pos.len()).filter(|&p| reached[p]).map(|p| p as u32).collect();
        let mut state_of = vec![TERMINAL; pos.len()];
        for (s, &p) in states.iter().enumerate() {
            state_of[p as usize] = s as u32;
        }
        let slots_guess = states.len() * 6;
        let mut m = AgentMdp {
            seat,
            opponent,
            positions: pos,
            action_start: Vec::with_capacity(states.len() + 1),
            rows: Vec::with_capacity(slots_guess),
            rewards: Rewards::new(),
            codes: Vec::with_capacity(slots_guess),
            probability: std::array::from_fn(|n| 1.0 / n as f64),
            start: Vec::new(),
            states,
            state_of,
        };
        // A learner's steps read these at random: huge pages on a big board (advised
        // before they are written).
        crate::hints::huge_pages(&m.rows);
        crate::hints::huge_pages(&m.codes);
        crate::hints::huge_pages(&m.action_start);
        // The shared ending codes: `codes[k]` is the code of reward `k - 1`.
        m.codes.extend([end_code(-1.0), end_code(0.0), end_code(1.0)]);
        m.action_start.push(0);
        let mut first_slot = vec![TERMINAL; pos.len()];
        let mut after = [0u32; MAX_CELLS];
        // Where the index table outgrows the caches, the index-table entries of a later
        // state's moves are asked for now, so that they are in cache when its turn comes;
        // on a small board the table is in cache and asking would only cost instructions.
        let prefetch = pos.game().index_space() * std::mem::size_of::<u32>() > PREFETCH_OVER_BYTES;
        for s in 0..m.states.len() {
            if prefetch && let Some(&ahead) = m.states.get(s + PREFETCH_AHEAD) {
                pos.prefetch_children(ahead as usize, pos.board(ahead as usize).moves());
            }
            let p = m.states[s] as usize;
            let moves = pos.board(p).moves();
            let n = gather(pos.children(p, moves), &mut after);
            for (cell, &a) in crate::game::cells(moves).zip(&after[..n]) {
                m.push_slot(a as usize, cell, &mut first_slot);
            }
            m.action_start.push(m.rows.len() as u32);
        }
        m.start =
            start.into_iter().map(|(prob, reward, p)| Outcome { prob, reward, next: m.state_of[p as usize] }).collect();
        m
    }

    /// The bytes its tables hold (see [`crate::cost::memory::mdp`]).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of_val;
        [
            size_of_val(&self.states[..]),
            size_of_val(&self.state_of[..]),
            size_of_val(&self.action_start[..]),
            size_of_val(&self.rows[..]),
            size_of_val(&self.codes[..]),
            size_of_val(&self.start[..]),
        ]
        .iter()
        .sum()
    }

    /// Appends the action slot of playing `cell`, which leads to position `after`.
    /// `first_slot[after]` is the first slot whose move led to `after` (or [`TERMINAL`]):
    /// a slot's outcomes, codes and reward depend only on that position, so later slots
    /// share them.
    fn push_slot(&mut self, after: usize, cell: u8, first_slot: &mut [u32]) {
        let (pos, me) = (self.positions, self.seat.player());
        if let Some(r) = pos.reward(after, me) {
            // One outcome, which ends the game: its code is one of the shared ending codes.
            let reward = self.rewards.code(r);
            self.rows.push(SlotHead { start: (r + 1.0) as u32, count: 1, continuing: 0, cell, reward });
            return;
        }
        match first_slot[after] {
            TERMINAL => first_slot[after] = self.rows.len() as u32,
            first => {
                let row = self.rows[first as usize];
                self.rows.push(SlotHead { cell, ..row });
                return;
            }
        }
        let first = self.codes.len();
        let (mut continuing, mut reward) = (0u8, 0.0);
        let moves = match self.opponent {
            Opponent::Random => pos.board(after).moves(),
            opponent => opponent.replies(pos, after),
        };
        let prob = 1.0 / f64::from(moves.count_ones());
        // The replies' positions, then their states, each looked up in a loop of its own
        // that does not branch on what it loads, so that the cache misses overlap.
        let mut next = [0u32; MAX_CELLS];
        let replies = gather(pos.children(after, moves), &mut next);
        let mut state = [TERMINAL; MAX_CELLS];
        for (s, &n) in state.iter_mut().zip(&next[..replies]) {
            *s = self.state_of[n as usize];
        }
        for (&n, &s) in next[..replies].iter().zip(&state) {
            match pos.reward(n as usize, me) {
                Some(r) => {
                    self.codes.push(end_code(r));
                    reward += prob * r;
                }
                None => {
                    self.codes.push(s);
                    continuing += 1;
                }
            }
        }
        let count = (self.codes.len() - first) as u8;
        let reward = self.rewards.code(reward);
        self.rows.push(SlotHead { start: first as u32, count, continuing, cell, reward });
    }

    /// Outcome `k` (in the opponent's reply order) of action `slot`, for simulators:
    /// `Ok(next state)` or `Err(reward)` when the game ended. The outcomes of a slot are
    /// equally likely, so drawing `k` uniformly below [`AgentMdp::outcome_count`] samples
    /// the transition.
    #[inline(always)]
    pub fn sampled(&self, slot: usize, k: usize) -> Result<usize, f64> {
        match self.codes[self.rows[slot].start as usize + k] {
            code if code >= END => Err(end_reward(code)),
            next => Ok(next as usize),
        }
    }

    /// Asks for the rows of `slots` (a state's actions) to be fetched ahead of the
    /// simulator's [`AgentMdp::sampled`] (see [`crate::hints::prefetch`]): a learner
    /// issues it when it learns its next state, so that the rows arrive with the state's
    /// values rather than after them.
    #[inline(always)]
    pub fn prefetch_rows(&self, slots: std::ops::Range<usize>) {
        // At most 16 rows of 8 bytes: their first, middle and last rows lie on every
        // cache line they span.
        let (first, last) = (slots.start, slots.end.wrapping_sub(1));
        crate::hints::prefetch(&self.rows, first);
        crate::hints::prefetch(&self.rows, first.wrapping_add(last) / 2);
        crate::hints::prefetch(&self.rows, last);
    }

    /// The number of outcomes of action `slot`.
    #[inline(always)]
    pub fn outcome_count(&self, slot: usize) -> usize {
        usize::from(self.rows[slot].count)
    }

    /// The game.
    pub fn game(&self) -> Game {
        self.positions.game()
    }

    /// The positions of the game.
    pub fn positions(&self) -> &'static Positions {
        self.positions
    }

    /// The agent's seat.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The fixed opponent.
    pub fn opponent(&self) -> Opponent {
        self.opponent
    }

    /// Number of agent states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Never true: every MDP has a first decision.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The board of state `s`.
    #[inline(always)]
    pub fn board(&self, s: usize) -> Board {
        self.positions.board(self.states[s] as usize)
    }

    /// The position id of state `s`.
    #[inline(always)]
    pub fn position(&self, s: usize) -> usize {
        self.states[s] as usize
    }

    /// The state of a board, if it is one of this MDP's.
    pub fn state(&self, b: Board) -> Option<usize> {
        let p = self.positions.id(b)?;
        match self.state_of[p] {
            TERMINAL => None,
            s => Some(s as usize),
        }
    }

    /// The action slots of state `s` (one per legal cell, in cell order).
    #[inline(always)]
    pub fn actions(&self, s: usize) -> std::ops::Range<usize> {
        self.action_start[s] as usize..self.action_start[s + 1] as usize
    }

    /// The cell an action slot plays.
    #[inline(always)]
    pub fn cell(&self, slot: usize) -> u8 {
        self.rows[slot].cell
    }

    /// The outcomes of an action slot, in the opponent's reply order (derived from the
    /// compact form; the probability of each is one over their count).
    #[inline(always)]
    pub fn outcomes(&self, slot: usize) -> Outcomes<'_> {
        let (p, codes) = self.codes_of(&self.rows[slot]);
        Outcomes::new(p, codes)
    }

    /// The next states of a slot's continuing outcomes, in reply order.
    #[inline(always)]
    pub(crate) fn continuing(&self, slot: usize) -> impl Iterator<Item = usize> + '_ {
        let (_, codes) = self.codes_of(&self.rows[slot]);
        codes.iter().filter(|&&code| code < END).map(|&code| code as usize)
    }

    /// A slot's codes, in reply order, and the probability of each outcome.
    #[inline(always)]
    fn codes_of(&self, row: &SlotHead) -> (f64, &[u32]) {
        let start = row.start as usize;
        let end = start + usize::from(row.count);
        debug_assert!(end <= self.codes.len() && usize::from(row.count) <= MAX_CELLS);
        // SAFETY: `build` pushes every row's codes before the row (or the row shares codes
        // pushed for an earlier row, or the three ending codes), so a row's codes lie
        // within `codes`; a slot has at most one outcome per cell, so `count <= MAX_CELLS`.
        unsafe { (*self.probability.get_unchecked(usize::from(row.count)), self.codes.get_unchecked(start..end)) }
    }

    /// The value of a slot whose row is `row` under `values`: the expected reward of
    /// its ending outcomes, then `+ p·V(s')` for each continuing one, in reply order.
    #[inline(always)]
    fn row_q(&self, row: &SlotHead, values: &[f64]) -> f64 {
        let mut q = self.rewards.value(row.reward);
        if row.continuing > 0 {
            let (p, codes) = self.codes_of(row);
            for &code in codes {
                if code < END {
                    debug_assert!((code as usize) < self.len());
                    // SAFETY: `build` only stores ids of this MDP's states (< len) as the
                    // codes below `END`, and the callers assert `values.len() >= len`.
                    q += p * unsafe { *values.get_unchecked(code as usize) };
                }
            }
        }
        q
    }

    /// Total number of action slots (the size of a Q table over this MDP).
    pub fn slots(&self) -> usize {
        self.rows.len()
    }

    /// Where the agent's first decision happens: for `x` the empty board with probability
    /// 1, for `o` each of the opponent's opening moves.
    pub fn start(&self) -> &[Outcome] {
        &self.start
    }

    /// The value of action `slot` under state values `values`:
    /// `Σ p·r` over the outcomes that end the game plus `Σ p·V(s')` over the others.
    /// Every exact computation (policy and value iteration, evaluation) uses this one
    /// expression, so equal policies get bit-identical values.
    #[inline(always)]
    pub fn q(&self, slot: usize, values: &[f64]) -> f64 {
        assert!(values.len() >= self.len(), "one value per state");
        self.row_q(&self.rows[slot], values)
    }

    /// Calls `f(slot, q)` for every action slot of state `s`, in cell order, with the same
    /// `q` as [`AgentMdp::q`]; one sequential walk over the state's rows.
    #[inline(always)]
    pub fn each_q(&self, s: usize, values: &[f64], mut f: impl FnMut(usize, f64)) {
        assert!(values.len() >= self.len(), "one value per state");
        let slots = self.actions(s);
        for (k, row) in self.rows[slots.clone()].iter().enumerate() {
            f(slots.start + k, self.row_q(row, values));
        }
    }

    /// The value of the start distribution under state values `values`.
    pub fn start_value(&self, values: &[f64]) -> f64 {
        self.start.iter().map(|o| o.prob * values[o.next as usize]).sum()
    }

    /// States in the seed article's order: depth first from the start, actions and
    /// opponent replies in cell order, a state entering when first reached.
    pub fn dfs_order(&self) -> Vec<u32> {
        let mut order = Vec::with_capacity(self.len());
        let mut entered = vec![false; self.len()];
        let mut stack: Vec<u32> = self.start.iter().rev().map(|o| o.next).collect();
        while let Some(s) = stack.pop() {
            if std::mem::replace(&mut entered[s as usize], true) {
                continue;
            }
            order.push(s);
            let first = stack.len();
            for slot in self.actions(s as usize) {
                let (_, codes) = self.codes_of(&self.rows[slot]);
                stack.extend(codes.iter().filter(|&&code| code < END));
            }
            stack[first..].reverse();
        }
        order
    }
}

/// An action slot's fixed-size part (8 bytes).
#[derive(Clone, Copy, Debug)]
struct SlotHead {
    /// Where the slot's codes start.
    start: u32,
    /// How many outcomes there are.
    count: u8,
    /// How many of them continue.
    continuing: u8,
    /// The cell the action plays.
    cell: u8,
    /// The expected immediate reward `Σ p·r` over the ending outcomes, as a [`Rewards`] code.
    reward: u8,
}

/// The distinct expected immediate rewards of an MDP's slots, each stored once, so that a
/// slot's row names its reward in one byte.
///
/// There are few: a slot whose move ends the game has reward +1, 0 (either sign) or -1;
/// any other slot's reward is `Σ p·r` over the opponent's replies that end the game, which
/// are losses or draws for the agent, so it is the sum, in reply order, of `k` terms `-1/n`
/// and zeros (`n ≤ 16` replies, `k ≤ n` losses), and adding a zero changes no sum. At most
/// 4 + (1 + 2 + … + 16) = 140 values in all, well within a byte.
#[derive(Debug, Clone)]
struct Rewards {
    /// The values, by code: the first `len` are in use.
    values: [f64; 256],
    /// How many codes are in use.
    len: usize,
    /// Open addressing by the value's bits: the code plus one, or 0 for an empty place.
    places: [u8; Rewards::PLACES],
}

impl Rewards {
    /// The size of the hash table: a power of two, twice the most codes.
    const PLACES: usize = 512;

    fn new() -> Rewards {
        Rewards { values: [0.0; 256], len: 0, places: [0; Rewards::PLACES] }
    }

    /// The code of `value` (bit for bit), added if new. Panics past 256 distinct values,
    /// which no MDP reaches (see [`Rewards`]).
    fn code(&mut self, value: f64) -> u8 {
        let bits = value.to_bits();
        let mut place = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize;
        loop {
            match self.places[place] {
                0 => break,
                k if self.values[usize::from(k - 1)].to_bits() == bits => return k - 1,
                _ => place = (place + 1) % Rewards::PLACES,
            }
        }
        let code = u8::try_from(self.len).expect("at most 256 distinct slot rewards");
        self.values[self.len] = value;
        self.len += 1;
        self.places[place] = code + 1;
        code
    }

    /// The value of `code` (one load: a `u8` indexes the whole array).
    #[inline(always)]
    fn value(&self, code: u8) -> f64 {
        self.values[usize::from(code)]
    }
}

/// How many states ahead [`AgentMdp::build`] asks for the index-table entries it will
/// look up.
const PREFETCH_AHEAD: usize = 4;

/// The size of the index table above which [`AgentMdp::build`] prefetches its entries
/// (16 MiB: 4x4 boards' 172 MB do, 3x4 boards' 2 MB and tic-tac-toe's 79 KB do not).
const PREFETCH_OVER_BYTES: usize = 16 << 20;

/// Writes the ids of `ids` (at most [`MAX_CELLS`]) into `out` and returns how many there
/// are: a loop with no branch on the ids, whose lookups run side by side.
#[inline(always)]
fn gather(ids: impl Iterator<Item = u32>, out: &mut [u32; MAX_CELLS]) -> usize {
    let mut n = 0;
    for (slot, id) in out.iter_mut().zip(ids) {
        *slot = id;
        n += 1;
    }
    n
}

/// The code of an outcome that ends the game with reward `r`.
fn end_code(r: f64) -> u32 {
    END + (r + 1.0) as u32
}

/// The reward of an ending outcome's code.
#[inline(always)]
pub(crate) fn end_reward(code: u32) -> f64 {
    f64::from(code - END) - 1.0
}

/// The agent's first decisions: (probability, reward, position) before any agent move.
fn start_positions(pos: &Positions, seat: Seat, opponent: Opponent) -> Vec<(f64, f64, u32)> {
    match seat {
        Seat::X => vec![(1.0, 0.0, 0)],
        Seat::O => {
            let moves = opponent.replies(pos, 0);
            let prob = 1.0 / f64::from(moves.count_ones());
            crate::game::cells(moves).map(|c| (prob, 0.0, pos.child(0, c))).collect()
        }
    }
}

/// Which positions are agent states, found forward in topological order. Against `random`
/// every ongoing position with the agent to move is reachable.
fn reachable(pos: &Positions, seat: Seat, opponent: Opponent, start: &[(f64, f64, u32)]) -> Vec<bool> {
    let me = seat.player();
    let mut reached = vec![false; pos.len()];
    if opponent == Opponent::Random {
        for (p, r) in reached.iter_mut().enumerate() {
            *r = pos.status(p) == Status::Ongoing && pos.board(p).to_move() == me;
        }
        return reached;
    }
    for &(_, _, p) in start {
        reached[p as usize] = true;
    }
    for p in 0..pos.len() {
        if !reached[p] {
            continue;
        }
        for cell in crate::game::cells(pos.board(p).moves()) {
            let after = pos.child(p, cell) as usize;
            if pos.status(after) != Status::Ongoing {
                continue;
            }
            for reply in crate::game::cells(opponent.replies(pos, after)) {
                let n = pos.child(after, reply) as usize;
                if pos.status(n) == Status::Ongoing {
                    reached[n] = true;
                }
            }
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_against_random_has_2423_states() {
        let m = AgentMdp::build(Game::TIC_TAC_TOE, Seat::X, Opponent::Random);
        assert_eq!(m.len(), 2423);
        assert_eq!(m.dfs_order().len(), 2423);
        assert_eq!(m.board(0), Board::EMPTY);
        assert_eq!(std::mem::size_of::<SlotHead>(), 8);
    }

    #[test]
    fn transitions_are_distributions_and_go_forward() {
        for &seat in Seat::ALL {
            for &opp in Opponent::ALL {
                check_transitions(&AgentMdp::build(Game::TIC_TAC_TOE, seat, opp));
            }
        }
        let wide: Game = "3x4k3".parse().unwrap();
        for &seat in Seat::ALL {
            let m = AgentMdp::build(wide, seat, Opponent::Minimax);
            assert_eq!((m.game(), m.board(0).game()), (wide, wide));
            check_transitions(&m);
        }
    }

    fn check_transitions(m: &AgentMdp) {
        let (seat, opp) = (m.seat(), m.opponent());
        assert_eq!(m.dfs_order().len(), m.len(), "the DFS order lists every state once");
        assert!(m.rewards.len <= 140, "few distinct rewards (see `Rewards`)");
        let total: f64 = m.start().iter().map(|o| o.prob).sum();
        assert!((total - 1.0).abs() < 1e-12);
        let zeros = vec![0.0; m.len()];
        for s in 0..m.len() {
            assert_eq!(m.board(s).to_move(), seat.player());
            for slot in m.actions(s) {
                let total: f64 = m.outcomes(slot).map(|o| o.prob).sum();
                assert!((total - 1.0).abs() < 1e-12, "{seat:?} {opp:?} {s}");
                assert_eq!(m.outcomes(slot).len(), m.outcome_count(slot));
                let mut expected = 0.0;
                for (k, o) in m.outcomes(slot).enumerate() {
                    assert!(o.next == TERMINAL || o.next as usize > s);
                    expected += if o.next == TERMINAL { o.prob * o.reward } else { 0.0 };
                    let sampled = if o.next == TERMINAL { Err(o.reward) } else { Ok(o.next as usize) };
                    assert_eq!(m.sampled(slot, k), sampled);
                    assert_eq!(sampled, by_the_rules(m, s, slot, k));
                }
                assert!((m.q(slot, &zeros) - expected).abs() < 1e-12);
            }
        }
    }

    /// Outcome `k` of `slot`, found by playing the move and the `k`-th reply.
    fn by_the_rules(m: &AgentMdp, s: usize, slot: usize, k: usize) -> Result<usize, f64> {
        let pos = m.positions();
        let after = pos.child(m.position(s), m.cell(slot)) as usize;
        let me = m.seat().player();
        let n = match pos.reward(after, me) {
            Some(_) => after,
            None => {
                let reply = crate::game::cells(m.opponent().replies(pos, after)).nth(k).expect("k < count");
                pos.child(after, reply) as usize
            }
        };
        match pos.reward(n, me) {
            Some(r) => Err(r),
            None => Ok(m.state(pos.board(n)).expect("a state")),
        }
    }
}
