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
    start: Vec<Outcome>,
    dfs_order: Vec<u32>,
}

impl AgentMdp {
    /// Builds the MDP of `seat` against `opponent` (well under a millisecond).
    pub fn build(seat: Seat, opponent: Opponent) -> AgentMdp {
        let pos = Positions::get();
        // Pass 1: which positions are agent states, found in the seed article's DFS order.
        let mut state_of = vec![TERMINAL; pos.len()];
        let mut dfs_positions: Vec<u16> = Vec::new();
        let start = start_positions(seat, opponent);
        // Iterative pre-order DFS: children pushed in reverse so they pop in cell order.
        let mut stack: Vec<u16> = start.iter().rev().filter_map(|&(_, _, p)| p).collect();
        let mut entered = vec![false; pos.len()];
        while let Some(p) = stack.pop() {
            if entered[p as usize] {
                continue;
            }
            entered[p as usize] = true;
            dfs_positions.push(p);
            let mut children = Vec::new();
            for cell in pos.board(p as usize).legal_cells() {
                for (_, _, next) in successors(seat, opponent, p as usize, cell) {
                    if let Some(n) = next {
                        children.push(n);
                    }
                }
            }
            for &n in children.iter().rev() {
                if !entered[n as usize] {
                    stack.push(n);
                }
            }
        }
        let mut states = dfs_positions.clone();
        states.sort_unstable();
        for (s, &p) in states.iter().enumerate() {
            state_of[p as usize] = s as u32;
        }
        let dfs_order = dfs_positions.iter().map(|&p| state_of[p as usize]).collect();
        // Pass 2: the flat transition table.
        let to_outcome = |(prob, reward, next): (f64, f64, Option<u16>)| Outcome {
            prob,
            reward,
            next: next.map_or(TERMINAL, |n| state_of[n as usize]),
        };
        let mut action_start = vec![0u32];
        let mut action_cell = Vec::new();
        let mut outcome_start = vec![0u32];
        let mut outcomes = Vec::new();
        for &p in &states {
            for cell in pos.board(p as usize).legal_cells() {
                action_cell.push(cell);
                outcomes.extend(successors(seat, opponent, p as usize, cell).map(to_outcome));
                outcome_start.push(outcomes.len() as u32);
            }
            action_start.push(action_cell.len() as u32);
        }
        let start = start.into_iter().map(to_outcome).collect();
        AgentMdp {
            seat,
            opponent,
            states,
            state_of,
            action_start,
            action_cell,
            outcome_start,
            outcomes,
            start,
            dfs_order,
        }
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

    /// The outcomes of an action slot.
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

    /// States in the seed article's order: depth first from the start, actions and
    /// opponent replies in cell order, a state entering when first reached.
    pub fn dfs_order(&self) -> &[u32] {
        &self.dfs_order
    }

    /// Expected value of `f(outcome)` over a list of outcomes.
    #[inline(always)]
    pub fn expect(outcomes: &[Outcome], value: &[f64]) -> f64 {
        let mut q = 0.0;
        for o in outcomes {
            let v = if o.next == TERMINAL { 0.0 } else { value[o.next as usize] };
            q += o.prob * (o.reward + v);
        }
        q
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

/// What follows the agent's `cell` in position `p`: (probability, reward, next position).
fn successors(seat: Seat, opponent: Opponent, p: usize, cell: u8) -> impl Iterator<Item = (f64, f64, Option<u16>)> {
    let pos = Positions::get();
    let after = pos.child(p, cell) as usize;
    let (moves, done) = match pos.status(after).reward(seat.player()) {
        Some(r) => (0u16, Some((1.0, r, None))),
        None => (opponent_moves(opponent, after), None),
    };
    let prob = 1.0 / f64::from(moves.count_ones().max(1));
    let replies = crate::game::cells(moves).map(move |reply| {
        let n = pos.child(after, reply) as usize;
        match pos.status(n) {
            Status::Ongoing => (prob, 0.0, Some(n as u16)),
            s => (prob, s.reward(seat.player()).expect("finished"), None),
        }
    });
    done.into_iter().chain(replies)
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
