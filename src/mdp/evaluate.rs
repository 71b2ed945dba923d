//! Exact evaluation of a deterministic policy, and sampled games to check it against.
//!
//! [`Evaluator::evaluate`] runs two passes over an [`AgentMdp`]: forward, in state order
//! (topological), to find the states the policy reaches, asking the policy once for each;
//! backward, to compute the expected return and the exact probabilities of winning,
//! drawing and losing from the start. Only reached states are touched, so a policy that
//! is expensive to query (an MCTS search per position) is queried as little as possible.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::Rng;

use super::{AgentMdp, Opponent, Outcome, Seat, TERMINAL};
use crate::game::{Board, Game, Status};

/// "No move": the policy has nothing for this position.
pub const NO_MOVE: u8 = u8::MAX;

/// The exact result of a policy against an opponent, from the start of the game.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Evaluation {
    /// Expected return (win +1, draw 0, loss -1).
    pub value: f64,
    /// Probability of winning.
    pub p_win: f64,
    /// Probability of a draw.
    pub p_draw: f64,
    /// Probability of losing.
    pub p_loss: f64,
    /// How many agent states the policy reaches.
    pub states: usize,
}

/// A deterministic policy of one game as a table: the cell to play in each position (by
/// position id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    game: Game,
    moves: Vec<u8>,
}

impl Policy {
    /// A policy for `game` with no moves yet.
    pub fn new(game: Game) -> Policy {
        Policy { game, moves: vec![NO_MOVE; game.positions().len()] }
    }

    /// The game the policy plays.
    pub fn game(&self) -> Game {
        self.game
    }

    /// Sets the move in a position (by position id).
    pub fn set(&mut self, position: usize, cell: u8) {
        self.moves[position] = cell;
    }

    /// The move in a board, if the policy has one. Panics if the board belongs to another
    /// game.
    pub fn get(&self, b: Board) -> Option<u8> {
        let id = self.game.positions().id(b)?;
        match self.moves[id] {
            NO_MOVE => None,
            c => Some(c),
        }
    }

    /// The move in a board, or the lowest legal cell when the policy has none.
    pub fn get_or_first(&self, b: Board) -> u8 {
        self.get(b).unwrap_or_else(|| b.legal_moves().trailing_zeros() as u8)
    }
}

/// A deterministic policy asked position by position: a [`Policy`] written out over every
/// position, or a learner's table, which finds its greedy move only where it is asked (an
/// evaluation asks only at the positions the policy reaches).
pub trait Moves {
    /// The game it plays.
    fn game(&self) -> Game;

    /// The move in a board, if it has one.
    fn get(&self, b: Board) -> Option<u8>;

    /// The move in a board, or the lowest legal cell when it has none.
    fn get_or_first(&self, b: Board) -> u8 {
        self.get(b).unwrap_or_else(|| b.legal_moves().trailing_zeros() as u8)
    }
}

impl Moves for Policy {
    fn game(&self) -> Game {
        Policy::game(self)
    }

    fn get(&self, b: Board) -> Option<u8> {
        Policy::get(self, b)
    }
}

/// Reusable buffers for exact evaluation, so that repeated evaluations do not allocate.
///
/// Per state they hold the slot the policy plays, a mark of the evaluation that reached
/// it, its value and its three probabilities, in memory that starts zeroed (mark 0: never
/// reached) and is never reset: an evaluation touches only the states it reaches, found
/// in increasing order (a min-heap) rather than by a scan over every state, so that on a
/// big board its cost is that of the states the policy reaches.
#[derive(Debug, Default, Clone)]
pub struct Evaluator {
    /// Per state: the evaluation that last reached it, and the slot played there.
    mark: Vec<[u32; 2]>,
    value: Vec<f64>,
    /// Per state: P(win), P(draw), P(loss).
    probabilities: Vec<[f64; 3]>,
    /// This evaluation's mark.
    round: u32,
    /// The reached states, in increasing order.
    order: Vec<u32>,
    todo: BinaryHeap<Reverse<u32>>,
}

impl Evaluator {
    /// Empty buffers; they grow to the largest MDP evaluated.
    pub fn new() -> Evaluator {
        Evaluator::default()
    }

    /// The bytes its buffers hold (see [`crate::cost::memory::evaluator`]).
    pub fn heap_bytes(&self) -> usize {
        self.mark.capacity() * 8
            + self.value.capacity() * 8
            + self.probabilities.capacity() * 24
            + (self.order.capacity() + self.todo.capacity()) * 4
    }

    /// Evaluates the policy `choose(state, board) -> cell` exactly on `mdp`.
    ///
    /// Panics if the policy returns an illegal cell: that is a bug in the policy.
    pub fn evaluate(&mut self, mdp: &AgentMdp, choose: impl FnMut(usize, Board) -> u8) -> Evaluation {
        self.evaluate_within(mdp, usize::MAX, choose).expect("no limit on the states")
    }

    /// Buffers over `n` states, and a mark no state has.
    fn start_round(&mut self, n: usize) {
        if self.mark.len() < n || self.round == u32::MAX {
            // Fresh zeroed memory (mark 0: never reached), touched only where reached.
            self.mark = vec![[0; 2]; n];
            self.value = vec![0.0; n];
            self.probabilities = vec![[0.0; 3]; n];
            self.round = 0;
        }
        self.round += 1;
        self.order.clear();
        self.todo.clear();
    }

    /// Adds state `s` to the states to visit, unless it is reached already.
    #[inline(always)]
    fn reach(&mut self, s: usize) {
        if self.mark[s][0] != self.round {
            self.mark[s][0] = self.round;
            self.todo.push(Reverse(s as u32));
        }
    }

    /// As [`Evaluator::evaluate`], but gives up (`None`) as soon as the policy reaches
    /// more than `max_states` agent states: `choose` is then called at most `max_states`
    /// times and once more.
    pub fn evaluate_within(
        &mut self,
        mdp: &AgentMdp,
        max_states: usize,
        mut choose: impl FnMut(usize, Board) -> u8,
    ) -> Option<Evaluation> {
        self.start_round(mdp.len());
        for o in mdp.start() {
            if o.next != TERMINAL {
                self.reach(o.next as usize);
            }
        }
        let mut states = 0;
        // Every transition goes to a larger state: popping the smallest first asks the
        // policy in state order, each state once, after every state that leads to it.
        while let Some(Reverse(s)) = self.todo.pop() {
            let s = s as usize;
            states += 1;
            let b = mdp.board(s);
            let cell = choose(s, b);
            if states > max_states {
                return None;
            }
            let moves = b.moves();
            let legal = usize::from(cell) < b.game().cells() && moves & (1 << cell) != 0;
            assert!(legal, "policy plays illegal cell {cell} in {b}");
            let rank = (moves & ((1u32 << cell) - 1)).count_ones() as usize;
            let slot = mdp.actions(s).start + rank;
            self.mark[s][1] = slot as u32;
            self.order.push(s as u32);
            for next in mdp.continuing(slot) {
                self.reach(next);
            }
        }
        for k in (0..self.order.len()).rev() {
            let s = self.order[k] as usize;
            let slot = self.mark[s][1] as usize;
            self.value[s] = mdp.q(slot, &self.value);
            self.probabilities[s] = self.probabilities(mdp.outcomes(slot));
        }
        let [p_win, p_draw, p_loss] = self.probabilities(mdp.start().iter().copied());
        let value = mdp.start_value(&self.value);
        Some(Evaluation { value, p_win, p_draw, p_loss, states })
    }

    /// P(win), P(draw), P(loss) over a list of outcomes.
    fn probabilities(&self, outcomes: impl Iterator<Item = Outcome>) -> [f64; 3] {
        let mut p = [0.0; 3];
        for o in outcomes {
            if o.next == TERMINAL {
                let k = if o.reward > 0.0 {
                    0
                } else if o.reward == 0.0 {
                    1
                } else {
                    2
                };
                p[k] += o.prob;
            } else {
                let [win, draw, loss] = self.probabilities[o.next as usize];
                p[0] += o.prob * win;
                p[1] += o.prob * draw;
                p[2] += o.prob * loss;
            }
        }
        p
    }
}

/// Counts of sampled games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameTally {
    /// Games the agent won.
    pub wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games the agent lost.
    pub losses: u64,
}

impl GameTally {
    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Mean return per game.
    pub fn mean(&self) -> f64 {
        (self.wins as f64 - self.losses as f64) / self.games() as f64
    }

    /// The standard error of [`GameTally::mean`] (returns +1, 0, -1; sample variance
    /// with `n - 1`); 0 for fewer than two games.
    pub fn standard_error(&self) -> f64 {
        let n = self.games() as f64;
        if n < 2.0 {
            return 0.0;
        }
        let mean = self.mean();
        let variance = ((self.wins + self.losses) as f64 - n * mean * mean) / (n - 1.0);
        (variance.max(0.0) / n).sqrt()
    }

    /// The outcome frequencies as an [`Evaluation`] (value the mean, `states` given).
    pub fn as_evaluation(&self, states: usize) -> Evaluation {
        let n = self.games() as f64;
        Evaluation {
            value: self.mean(),
            p_win: self.wins as f64 / n,
            p_draw: self.draws as f64 / n,
            p_loss: self.losses as f64 / n,
            states,
        }
    }
}

/// Plays `games` games of `game` by its rules (not through the MDP), the agent in `seat`
/// playing `choose(board)`, the opponent drawing from its support with `rng`.
pub fn sample_games(
    game: Game,
    seat: Seat,
    opponent: Opponent,
    games: u64,
    rng: &mut impl Rng,
    mut choose: impl FnMut(Board) -> u8,
) -> GameTally {
    let pos = game.positions();
    let mut tally = GameTally::default();
    for _ in 0..games {
        let mut b = Board::empty(game);
        loop {
            match b.status() {
                Status::Ongoing => {}
                s => {
                    match s.reward(seat.player()) {
                        Some(r) if r > 0.0 => tally.wins += 1,
                        Some(r) if r < 0.0 => tally.losses += 1,
                        _ => tally.draws += 1,
                    }
                    break;
                }
            }
            let cell = if b.to_move() == seat.player() {
                choose(b)
            } else {
                let id = pos.id(b).expect("reachable");
                let moves = opponent.replies(pos, id);
                let k = rng.random_range(0..moves.count_ones());
                crate::game::cells(moves).nth(k as usize).expect("k < count")
            };
            b = b.play(cell);
        }
    }
    tally
}
