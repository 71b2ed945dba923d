//! Exact evaluation of a deterministic policy, and sampled games to check it against.
//!
//! [`Evaluator::evaluate`] runs two passes over an [`AgentMdp`]: forward, in state order
//! (topological), to find the states the policy reaches, asking the policy once for each;
//! backward, to compute the expected return and the exact probabilities of winning,
//! drawing and losing from the start. Only reached states are touched, so a policy that
//! is expensive to query (an MCTS search per position) is queried as little as possible.

use rand::Rng;

use super::{AgentMdp, Opponent, Outcome, Seat, TERMINAL, opponent_moves};
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

/// Reusable buffers for exact evaluation, so that repeated evaluations do not allocate.
#[derive(Debug, Default, Clone)]
pub struct Evaluator {
    slot: Vec<u32>,
    value: Vec<f64>,
    win: Vec<f64>,
    draw: Vec<f64>,
    loss: Vec<f64>,
}

const UNREACHED: u32 = u32::MAX;

impl Evaluator {
    /// Empty buffers; they grow to the largest MDP evaluated.
    pub fn new() -> Evaluator {
        Evaluator::default()
    }

    /// The bytes its buffers hold (see [`crate::memory::evaluator`]).
    pub fn heap_bytes(&self) -> usize {
        self.slot.capacity() * 4
            + (self.value.capacity() + self.win.capacity() + self.draw.capacity()) * 8
            + self.loss.capacity() * 8
    }

    /// Evaluates the policy `choose(state, board) -> cell` exactly on `mdp`.
    ///
    /// Panics if the policy returns an illegal cell: that is a bug in the policy.
    pub fn evaluate(&mut self, mdp: &AgentMdp, choose: impl FnMut(usize, Board) -> u8) -> Evaluation {
        self.evaluate_within(mdp, usize::MAX, choose).expect("no limit on the states")
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
        let n = mdp.len();
        self.slot.clear();
        self.slot.resize(n, UNREACHED);
        self.value.resize(n, 0.0);
        self.win.resize(n, 0.0);
        self.draw.resize(n, 0.0);
        self.loss.resize(n, 0.0);
        const REACHED: u32 = UNREACHED - 1;
        for o in mdp.start() {
            if o.next != TERMINAL {
                self.slot[o.next as usize] = REACHED;
            }
        }
        let mut states = 0;
        for s in 0..n {
            if self.slot[s] == UNREACHED {
                continue;
            }
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
            self.slot[s] = slot as u32;
            for next in mdp.continuing(slot) {
                self.slot[next] = REACHED;
            }
        }
        for s in (0..n).rev() {
            let slot = self.slot[s];
            if slot == UNREACHED {
                continue;
            }
            self.value[s] = mdp.q(slot as usize, &self.value);
            let [w, d, l] = self.probabilities(mdp.outcomes(slot as usize));
            self.win[s] = w;
            self.draw[s] = d;
            self.loss[s] = l;
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
                let n = o.next as usize;
                p[0] += o.prob * self.win[n];
                p[1] += o.prob * self.draw[n];
                p[2] += o.prob * self.loss[n];
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
                let moves = opponent_moves(pos, opponent, id);
                let k = rng.random_range(0..moves.count_ones());
                crate::game::cells(moves).nth(k as usize).expect("k < count")
            };
            b = b.play(cell);
        }
    }
    tally
}
