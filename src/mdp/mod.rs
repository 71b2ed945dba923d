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
//! ([`AgentMdp::sampled`]). Per action slot: a 16-byte row (the expected immediate reward
//! `Σ p·r`, where its outcomes start, how many there are and how many continue, the cell)
//! and where each reply's outcome sits (8 bytes, a nibble per reply): 24 bytes. Per
//! outcome: one `u32` code, 4 bytes: the continuing outcomes' next states first, in reply
//! order (all that `q` reads), then the ending outcomes' rewards. The probability of an
//! outcome is one over the slot's count.
//! States are kept in increasing position id, which is a topological order: every
//! transition goes to a larger state id, so one backward pass evaluates any policy exactly.

pub mod evaluate;
mod opponent;
mod outcome;

pub use evaluate::{Evaluation, Evaluator, GameTally, Policy, sample_games};
pub use opponent::{Opponent, ParseNameError, Seat};
pub use outcome::{Outcome, Outcomes};

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
    rows: Vec<Row>,
    /// Per action slot, nibble `k` (bits `4k..4k+4`): where outcome `k` (reply order) sits
    /// among the slot's codes.
    order: Vec<u64>,
    /// Per action slot: next states of the continuing outcomes, then ending codes.
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
            order: Vec::with_capacity(slots_guess),
            codes: Vec::with_capacity(slots_guess * 5),
            probability: std::array::from_fn(|n| 1.0 / n as f64),
            start: Vec::new(),
            states,
            state_of,
        };
        m.action_start.push(0);
        for s in 0..m.states.len() {
            let p = m.states[s] as usize;
            for cell in crate::game::cells(pos.board(p).empty_cells()) {
                m.push_slot(p, cell);
            }
            m.action_start.push(m.rows.len() as u32);
        }
        m.start =
            start.into_iter().map(|(prob, reward, p)| Outcome { prob, reward, next: m.state_of[p as usize] }).collect();
        m
    }

    /// Appends the action slot of playing `cell` in position `p`.
    fn push_slot(&mut self, p: usize, cell: u8) {
        let (pos, me) = (self.positions, self.seat.player());
        let first = self.codes.len();
        let after = pos.child(p, cell) as usize;
        let (mut reward, mut ending) = (0.0, 0u16);
        let (mut ends, mut ended) = ([0u32; MAX_CELLS], 0);
        let mut count = 0;
        match pos.reward(after, me) {
            Some(r) => {
                (reward, ending, count) = (r, 1, 1);
                (ends[0], ended) = (end_code(r), 1);
            }
            None => {
                let moves = match self.opponent {
                    Opponent::Random => pos.board(after).empty_cells(),
                    opponent => opponent_moves(pos, opponent, after),
                };
                let prob = 1.0 / f64::from(moves.count_ones());
                for (k, reply) in crate::game::cells(moves).enumerate() {
                    let n = pos.child(after, reply) as usize;
                    match pos.reward(n, me) {
                        Some(r) => {
                            reward += prob * r;
                            ending |= 1 << k;
                            ends[ended] = end_code(r);
                            ended += 1;
                        }
                        None => self.codes.push(self.state_of[n]),
                    }
                    count += 1;
                }
            }
        }
        let continuing = self.codes.len() - first;
        self.codes.extend_from_slice(&ends[..ended]);
        debug_assert_eq!(self.codes.len() - first, count);
        self.order.push(reply_order(ending, count, continuing));
        let (start, count, continuing) = (first as u32, count as u8, continuing as u8);
        self.rows.push(Row { reward, start, count, continuing, cell });
    }

    /// Outcome `k` (in the opponent's reply order) of action `slot`, for simulators:
    /// `Ok(next state)` or `Err(reward)` when the game ended. The outcomes of a slot are
    /// equally likely, so drawing `k` uniformly below [`AgentMdp::outcome_count`] samples
    /// the transition.
    #[inline(always)]
    pub fn sampled(&self, slot: usize, k: usize) -> Result<usize, f64> {
        let at = (self.order[slot] >> (4 * k)) as usize & 15;
        match self.codes[self.rows[slot].start as usize + at] {
            code if code >= END => Err(f64::from(code - END) - 1.0),
            next => Ok(next as usize),
        }
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
        let row = &self.rows[slot];
        let codes = &self.codes[row.start as usize..row.start as usize + usize::from(row.count)];
        Outcomes::new(self.probability[codes.len()], self.order[slot], codes)
    }

    /// The continuing outcomes of a slot, in reply order, and their common probability.
    #[inline(always)]
    fn continuing(&self, slot: usize) -> (f64, &[u32]) {
        self.continuing_of(&self.rows[slot])
    }

    /// [`AgentMdp::continuing`] of a slot's row.
    #[inline(always)]
    fn continuing_of(&self, row: &Row) -> (f64, &[u32]) {
        let start = row.start as usize;
        let end = start + usize::from(row.continuing);
        debug_assert!(end <= self.codes.len() && usize::from(row.count) <= MAX_CELLS);
        // SAFETY: `build` pushes every row's codes before the row, so a row's codes lie
        // within `codes`; a slot has at most one outcome per cell, so `count <= MAX_CELLS`.
        unsafe { (*self.probability.get_unchecked(usize::from(row.count)), self.codes.get_unchecked(start..end)) }
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
        let row = &self.rows[slot];
        let (p, next) = self.continuing_of(row);
        let mut q = row.reward;
        for &n in next {
            debug_assert!((n as usize) < self.len());
            // SAFETY: `build` only stores ids of this MDP's states (< len) among the
            // continuing codes, and `values` holds at least `len` values (asserted above).
            q += p * unsafe { *values.get_unchecked(n as usize) };
        }
        q
    }

    /// Calls `f(slot, q)` for every action slot of state `s`, in cell order, with the same
    /// `q` as [`AgentMdp::q`]; one sequential walk over the state's rows.
    #[inline(always)]
    pub fn each_q(&self, s: usize, values: &[f64], mut f: impl FnMut(usize, f64)) {
        assert!(values.len() >= self.len(), "one value per state");
        let slots = self.actions(s);
        for (k, row) in self.rows[slots.clone()].iter().enumerate() {
            let (p, next) = self.continuing_of(row);
            let mut q = row.reward;
            for &n in next {
                debug_assert!((n as usize) < self.len());
                // SAFETY: as in `q`: continuing codes are states of this MDP, and `values`
                // is at least that long (asserted above).
                q += p * unsafe { *values.get_unchecked(n as usize) };
            }
            f(slots.start + k, q);
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
                let (_, next) = self.continuing(slot);
                stack.extend(next);
            }
            stack[first..].reverse();
        }
        order
    }
}

/// An action slot's fixed-size part (16 bytes).
#[derive(Clone, Copy, Debug)]
struct Row {
    /// The expected immediate reward `Σ p·r` over the outcomes that end the game.
    reward: f64,
    /// Where the slot's codes start.
    start: u32,
    /// How many outcomes there are.
    count: u8,
    /// How many of them continue (their codes come first).
    continuing: u8,
    /// The cell the action plays.
    cell: u8,
}

/// The positions of `count` outcomes among a slot's codes, a nibble each in reply order:
/// the continuing ones (bit clear in `ending`) first, then the ending ones.
fn reply_order(ending: u16, count: usize, continuing: usize) -> u64 {
    /// Nibble `k` = `k`: the order when no continuing outcome follows an ending one.
    const IDENTITY: u64 = 0xFEDC_BA98_7654_3210;
    // Most slots need no shuffling: none of their outcomes ends the game, or every
    // ending one comes after every continuing one.
    let ending_last = ((1u32 << count) - 1) ^ ((1u32 << continuing) - 1);
    if u32::from(ending) == ending_last {
        return IDENTITY;
    }
    let (mut next, mut end, mut order) = (0u64, continuing as u64, 0u64);
    for k in 0..count {
        let at = if ending >> k & 1 == 1 { &mut end } else { &mut next };
        order |= *at << (4 * k);
        *at += 1;
    }
    order
}

/// The code of an outcome that ends the game with reward `r`.
fn end_code(r: f64) -> u32 {
    END + (r + 1.0) as u32
}

/// The opponent's move distribution in position `p` (opponent to move): the cells it may
/// play, each equally likely.
pub fn opponent_moves(pos: &Positions, opponent: Opponent, p: usize) -> u16 {
    match opponent {
        // The status table, not the board's rules: it is one load.
        Opponent::Random if pos.status(p) == Status::Ongoing => pos.board(p).empty_cells(),
        Opponent::Random => 0,
        Opponent::Minimax => {
            let m = pos.optimal_moves(p);
            m & m.wrapping_neg()
        }
        Opponent::MinimaxUniform => pos.optimal_moves(p),
    }
}

/// The agent's first decisions: (probability, reward, position) before any agent move.
fn start_positions(pos: &Positions, seat: Seat, opponent: Opponent) -> Vec<(f64, f64, u32)> {
    match seat {
        Seat::X => vec![(1.0, 0.0, 0)],
        Seat::O => {
            let moves = opponent_moves(pos, opponent, 0);
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
        for cell in crate::game::cells(pos.board(p).empty_cells()) {
            let after = pos.child(p, cell) as usize;
            if pos.status(after) != Status::Ongoing {
                continue;
            }
            for reply in crate::game::cells(opponent_moves(pos, opponent, after)) {
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
        assert_eq!(std::mem::size_of::<Row>(), 16);
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
                let reply = crate::game::cells(opponent_moves(pos, m.opponent(), after)).nth(k).expect("k < count");
                pos.child(after, reply) as usize
            }
        };
        match pos.reward(n, me) {
            Some(r) => Err(r),
            None => Ok(m.state(pos.board(n)).expect("a state")),
        }
    }
}
