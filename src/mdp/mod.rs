//! Agent MDPs: the decision problem of one seat against one fixed opponent.
//!
//! States are the non-terminal positions where the agent is to move that are reachable
//! from the start under some agent play and the opponent's support. The opponent's replies
//! are marginalised into the transitions, so an action leads to a list of [`Outcome`]s, each
//! with its probability, the reward earned on the way (agent's view: win +1, loss -1,
//! draw 0) and the next agent state (or none when the game ended). Undiscounted.
//!
//! Storage is flat (compressed rows): states → action slots → outcomes. States are kept in
//! increasing position id, which is a topological order: every transition goes to a larger
//! state id, so one backward pass evaluates any policy exactly.

pub mod evaluate;
mod opponent;

pub use evaluate::{Evaluation, Evaluator, GameTally, Policy, sample_games};
pub use opponent::{Opponent, ParseNameError, Seat};

use crate::game::{Board, Positions, Status};

/// "No next state": the game ended.
pub const TERMINAL: u32 = u32::MAX;

/// In the simulators' form, codes from here on mean "the game ended with reward
/// `code - SIM_END - 1`" (loss, draw, win).
const SIM_END: u32 = u32::MAX - 2;

/// One result of an agent's action: probability, reward on the way, next agent state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Probability of this outcome given the state and action.
    pub prob: f64,
    /// Reward collected (non-zero only when the game ended).
    pub reward: f64,
    /// The next agent state, or [`TERMINAL`].
    pub next: u32,
}

/// The MDP that one (seat, opponent) pair induces.
#[derive(Debug, Clone)]
pub struct AgentMdp {
    seat: Seat,
    opponent: Opponent,
    /// Position id of each state, increasing.
    states: Vec<u16>,
    /// Position id → state id, or [`TERMINAL`].
    state_of: Vec<u32>,
    action_start: Vec<u32>,
    action_cell: Vec<u8>,
    outcome_start: Vec<u32>,
    outcomes: Vec<Outcome>,
    /// The outcomes again, 4 bytes each, for simulators: see [`AgentMdp::sampled`].
    sim: Vec<u32>,
    /// Per action slot: the expected immediate reward `Σ p·r`.
    reward: Vec<f64>,
    /// Per action slot: the outcomes that continue, as (probability, next state).
    next_start: Vec<u32>,
    next: Vec<(f64, u32)>,
    start: Vec<Outcome>,
}

impl AgentMdp {
    /// Builds the MDP of `seat` against `opponent` (about a tenth of a millisecond).
    pub fn build(seat: Seat, opponent: Opponent) -> AgentMdp {
        let pos = Positions::get();
        let me = seat.player();
        // Pass 1, forward in topological order: which positions are agent states. Against
        // `random` every ongoing position with the agent to move is reachable.
        let mut reached = vec![false; pos.len()];
        let start = start_positions(seat, opponent);
        if opponent == Opponent::Random {
            for (p, r) in reached.iter_mut().enumerate() {
                *r = pos.status(p) == Status::Ongoing && pos.board(p).to_move() == me;
            }
        } else {
            for &(_, _, p) in &start {
                reached[p.expect("the start is not terminal") as usize] = true;
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
                    for reply in crate::game::cells(opponent_moves(opponent, after)) {
                        let n = pos.child(after, reply) as usize;
                        if pos.status(n) == Status::Ongoing {
                            reached[n] = true;
                        }
                    }
                }
            }
        }
        let states: Vec<u16> = (0..pos.len()).filter(|&p| reached[p]).map(|p| p as u16).collect();
        let mut state_of = vec![TERMINAL; pos.len()];
        for (s, &p) in states.iter().enumerate() {
            state_of[p as usize] = s as u32;
        }
        // Pass 2: the flat transition table, and its compact form for the exact solvers.
        let slots_guess = states.len() * 6;
        let mut m = AgentMdp {
            seat,
            opponent,
            action_start: Vec::with_capacity(states.len() + 1),
            action_cell: Vec::with_capacity(slots_guess),
            outcome_start: Vec::with_capacity(slots_guess + 1),
            outcomes: Vec::with_capacity(slots_guess * 5),
            sim: Vec::new(),
            reward: Vec::with_capacity(slots_guess),
            next_start: Vec::with_capacity(slots_guess + 1),
            next: Vec::with_capacity(slots_guess * 5),
            start: Vec::new(),
            states,
            state_of,
        };
        m.action_start.push(0);
        m.outcome_start.push(0);
        m.next_start.push(0);
        for s in 0..m.states.len() {
            let p = m.states[s] as usize;
            for cell in crate::game::cells(pos.board(p).empty_cells()) {
                m.action_cell.push(cell);
                let after = pos.child(p, cell) as usize;
                let mut reward = 0.0;
                match pos.reward(after, me) {
                    Some(r) => {
                        m.outcomes.push(Outcome { prob: 1.0, reward: r, next: TERMINAL });
                        reward = r;
                    }
                    None => {
                        let moves = match opponent {
                            Opponent::Random => pos.board(after).empty_cells(),
                            _ => opponent_moves(opponent, after),
                        };
                        let prob = 1.0 / f64::from(moves.count_ones());
                        for reply in crate::game::cells(moves) {
                            let n = pos.child(after, reply) as usize;
                            match pos.reward(n, me) {
                                Some(r) => {
                                    m.outcomes.push(Outcome { prob, reward: r, next: TERMINAL });
                                    reward += prob * r;
                                }
                                None => {
                                    let next = m.state_of[n];
                                    m.outcomes.push(Outcome { prob, reward: 0.0, next });
                                    m.next.push((prob, next));
                                }
                            }
                        }
                    }
                }
                m.reward.push(reward);
                m.outcome_start.push(m.outcomes.len() as u32);
                m.next_start.push(m.next.len() as u32);
            }
            m.action_start.push(m.action_cell.len() as u32);
        }
        m.start = start
            .into_iter()
            .map(|(prob, reward, p)| Outcome { prob, reward, next: m.state_of[p.expect("ongoing") as usize] })
            .collect();
        m.sim = m
            .outcomes
            .iter()
            .map(|o| if o.next == TERMINAL { SIM_END + (o.reward + 1.0) as u32 } else { o.next })
            .collect();
        m
    }

    /// Outcome `k` of action `slot` in the simulators' 4-byte form: `Ok(next state)` or
    /// `Err(reward)` when the game ended. The same data as [`AgentMdp::outcomes`], a sixth
    /// of the size, so that training loops stay in cache.
    #[inline(always)]
    pub fn sampled(&self, slot: usize, k: usize) -> Result<usize, f64> {
        match self.sim[self.outcome_start[slot] as usize + k] {
            code if code >= SIM_END => Err(f64::from(code - SIM_END) - 1.0),
            next => Ok(next as usize),
        }
    }

    /// The number of outcomes of action `slot`.
    #[inline(always)]
    pub fn outcome_count(&self, slot: usize) -> usize {
        (self.outcome_start[slot + 1] - self.outcome_start[slot]) as usize
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
        Positions::get().board(self.states[s] as usize)
    }

    /// The position id of state `s`.
    #[inline(always)]
    pub fn position(&self, s: usize) -> usize {
        self.states[s] as usize
    }

    /// The state of a board, if it is one of this MDP's.
    pub fn state(&self, b: Board) -> Option<usize> {
        let p = Positions::get().id(b)?;
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
        self.action_cell[slot]
    }

    /// The outcomes of an action slot, in the opponent's reply order.
    #[inline(always)]
    pub fn outcomes(&self, slot: usize) -> &[Outcome] {
        &self.outcomes[self.outcome_start[slot] as usize..self.outcome_start[slot + 1] as usize]
    }

    /// Total number of action slots (the size of a Q table over this MDP).
    pub fn slots(&self) -> usize {
        self.action_cell.len()
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
        let next = &self.next[self.next_start[slot] as usize..self.next_start[slot + 1] as usize];
        let mut q = self.reward[slot];
        for &(p, n) in next {
            debug_assert!((n as usize) < self.len());
            // SAFETY: `build` only stores ids of this MDP's states (< len) in `next`, and
            // `values` holds at least `len` values (asserted above).
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
        let ends = &self.next_start[slots.start + 1..slots.end + 1];
        let rewards = &self.reward[slots.clone()];
        let mut i = self.next_start[slots.start] as usize;
        for (k, (&end, &reward)) in ends.iter().zip(rewards).enumerate() {
            let end = end as usize;
            let mut q = reward;
            for &(p, n) in &self.next[i..end] {
                debug_assert!((n as usize) < self.len());
                // SAFETY: as in `q`: stored ids are states of this MDP, and `values` is
                // at least that long (asserted above).
                q += p * unsafe { *values.get_unchecked(n as usize) };
            }
            i = end;
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
                stack.extend(self.outcomes(slot).iter().filter(|o| o.next != TERMINAL).map(|o| o.next));
            }
            stack[first..].reverse();
        }
        order
    }
}

/// The opponent's move distribution in position `p` (opponent to move): the cells it may
/// play, each equally likely.
pub fn opponent_moves(opponent: Opponent, p: usize) -> u16 {
    let pos = Positions::get();
    match opponent {
        Opponent::Random => pos.board(p).legal_moves(),
        Opponent::Minimax => {
            let m = pos.optimal_moves(p);
            m & m.wrapping_neg()
        }
        Opponent::MinimaxUniform => pos.optimal_moves(p),
    }
}

/// The agent's first decisions: (probability, reward, position) before any agent move.
fn start_positions(seat: Seat, opponent: Opponent) -> Vec<(f64, f64, Option<u16>)> {
    match seat {
        Seat::X => vec![(1.0, 0.0, Some(0))],
        Seat::O => {
            let pos = Positions::get();
            let moves = opponent_moves(opponent, 0);
            let prob = 1.0 / f64::from(moves.count_ones());
            crate::game::cells(moves).map(|c| (prob, 0.0, Some(pos.child(0, c)))).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_against_random_has_2423_states() {
        let m = AgentMdp::build(Seat::X, Opponent::Random);
        assert_eq!(m.len(), 2423);
        assert_eq!(m.dfs_order().len(), 2423);
        assert_eq!(m.board(0), Board::EMPTY);
    }

    #[test]
    fn transitions_are_distributions_and_go_forward() {
        for &seat in Seat::ALL {
            for &opp in Opponent::ALL {
                let m = AgentMdp::build(seat, opp);
                assert_eq!(m.dfs_order().len(), m.len(), "the DFS order lists every state once");
                let total: f64 = m.start().iter().map(|o| o.prob).sum();
                assert!((total - 1.0).abs() < 1e-12);
                for s in 0..m.len() {
                    assert_eq!(m.board(s).to_move(), seat.player());
                    for slot in m.actions(s) {
                        let total: f64 = m.outcomes(slot).iter().map(|o| o.prob).sum();
                        assert!((total - 1.0).abs() < 1e-12, "{seat:?} {opp:?} {s}");
                        for o in m.outcomes(slot) {
                            assert!(o.next == TERMINAL || o.next as usize > s);
                            assert!(o.next != TERMINAL || o.reward != 0.0 || o.prob > 0.0);
                        }
                    }
                }
            }
        }
    }
}
