//! Negamax with alpha-beta over [`Position`]s, its bounds kept in a [`Table`].
//!
//! At every node: a move that wins at once ends the search; else only the moves after
//! which the opponent cannot win at once are tried (none: the position is lost in two
//! plies), so the score is known to lie between losing in four plies and winning in three,
//! and the window is narrowed to that, then to the bounds in the table. The moves are
//! tried by the threats they make (cells where one more stone would win), then centre
//! first. At the root an exact score is found by null-window searches that halve the
//! interval the score may lie in, starting near 0 (small scores are common and cheap);
//! a win, draw or loss needs at most two null windows, around 0.

use super::bitboard::{Position, bits};
use super::shape::Shape;
use super::table::Table;

/// A value for the player to move: `cells + 1 - p` for a win with the game's `p`-th
/// stone, its negation for a loss, 0 for a draw (see [`super`]).
pub type Score = i32;

/// Win, draw or loss for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Loss = -1,
    Draw = 0,
    Win = 1,
}

impl Outcome {
    /// The outcome of a score.
    pub fn of(score: Score) -> Outcome {
        match score {
            s if s > 0 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    /// 1, 0 or -1.
    pub fn value(self) -> i8 {
        self as i8
    }

    /// The opponent's outcome.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }
}

/// The plies from a position with `plies` stones on a board of `cells` to the end of the
/// game, under optimal play, from its score.
pub fn plies_left(score: Score, cells: usize, plies: u32) -> u32 {
    let end = match score {
        0 => cells as i32,
        s => cells as i32 + 1 - s.abs(),
    };
    (end - plies as i32) as u32
}

/// The search: a transposition table and a node count, reused from one position to the
/// next (the table's bounds stay true for every position of the same board).
#[derive(Debug)]
pub struct Solver {
    table: Table,
    nodes: u64,
    /// The board the table's entries belong to, and its moves in their static order.
    shape: Option<Shape>,
    order: Vec<u64>,
}

impl Solver {
    /// A solver whose table takes at most `table_bytes`.
    pub fn new(table_bytes: usize) -> Solver {
        Solver { table: Table::new(table_bytes), nodes: 0, shape: None, order: Vec::new() }
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The table's size in bytes.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Keys of two boards could collide: the table is cleared when the board changes.
    fn enter(&mut self, shape: Shape) {
        if self.shape != Some(shape) {
            if self.shape.is_some() {
                self.table.clear();
            }
            self.order = shape.static_order();
            self.shape = Some(shape);
        }
    }

    /// The exact score of a position still in play.
    pub fn score(&mut self, p: Position) -> Score {
        assert!(!p.is_over(), "a finished game has no score to search: {p}");
        self.enter(p.shape());
        let left = (p.shape().cells() - p.plies() as usize) as Score;
        let s = p.shape();
        if s.wins(p.mine()) & s.playable(p.mask()) != 0 {
            return left;
        }
        let (mut lo, mut hi) = (-(left - 1), left - 2);
        while lo < hi {
            let mut med = lo + (hi - lo) / 2;
            if med <= 0 && lo / 2 < med {
                med = lo / 2;
            } else if med >= 0 && hi / 2 > med {
                med = hi / 2;
            }
            let r = self.negamax(p, med, med + 1);
            if r <= med {
                hi = r;
            } else {
                lo = r;
            }
        }
        lo
    }

    /// Win, draw or loss of a position still in play: at most two null windows.
    pub fn outcome(&mut self, p: Position) -> Outcome {
        assert!(!p.is_over(), "a finished game has no outcome to search: {p}");
        self.enter(p.shape());
        if self.negamax(p, 0, 1) > 0 {
            Outcome::Win
        } else if self.negamax(p, -1, 0) < 0 {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }

    /// The score of every legal move for the player to move (the move that ends the game
    /// scored by its end), in increasing order of moves.
    pub fn move_scores(&mut self, p: Position) -> Vec<(u8, Score)> {
        let left = (p.shape().cells() - p.plies() as usize) as Score;
        p.moves()
            .into_iter()
            .map(|m| {
                let child = p.play(m);
                let score = if child.last_won() {
                    left
                } else if child.is_over() {
                    0
                } else {
                    -self.score(child)
                };
                (m, score)
            })
            .collect()
    }

    /// The outcome of every legal move for the player to move, in increasing order.
    pub fn move_outcomes(&mut self, p: Position) -> Vec<(u8, Outcome)> {
        p.moves()
            .into_iter()
            .map(|m| {
                let child = p.play(m);
                let o = if child.last_won() {
                    Outcome::Win
                } else if child.is_over() {
                    Outcome::Draw
                } else {
                    self.outcome(child).flip()
                };
                (m, o)
            })
            .collect()
    }

    /// The moves of the best outcome (as the enumerating engine's minimax picks among).
    pub fn optimal_moves(&mut self, p: Position) -> Vec<u8> {
        let all = self.move_outcomes(p);
        let best = all.iter().map(|&(_, o)| o).max().expect("a position in play has a move");
        all.into_iter().filter(|&(_, o)| o == best).map(|(m, _)| m).collect()
    }

    /// Negamax with alpha-beta: the score if it lies in `(alpha, beta)`, else a bound on
    /// the far side of the window (at most `alpha`, at least `beta`).
    fn negamax(&mut self, p: Position, mut alpha: Score, mut beta: Score) -> Score {
        self.nodes += 1;
        let s = p.shape();
        let left = (s.cells() - p.plies() as usize) as Score;
        let mine = p.mine();
        let mask = p.mask();
        if s.wins(mine) & s.playable(mask) != 0 {
            return left;
        }
        let safe = p.safe_moves();
        if safe == 0 {
            return -(left - 1);
        }
        if left <= 2 {
            return 0;
        }
        let floor = -(left - 3);
        if alpha < floor {
            alpha = floor;
            if alpha >= beta {
                return alpha;
            }
        }
        let mut ceiling = left - 2;
        let key = p.key();
        if let Some([lo, hi]) = self.table.get(key) {
            ceiling = ceiling.min(Score::from(hi));
            alpha = alpha.max(Score::from(lo));
        }
        if beta > ceiling {
            beta = ceiling;
        }
        if alpha >= beta {
            return alpha;
        }
        // The safe moves by threats made, then in static order (a stable sort).
        let mut moves = [(0u32, 0u64); 64];
        let mut n = 0;
        for &bit in &self.order {
            if safe & bit != 0 {
                let after = mask | bit;
                let threats = (s.wins(mine | bit) & !after).count_ones();
                let mut i = n;
                while i > 0 && moves[i - 1].0 < threats {
                    moves[i] = moves[i - 1];
                    i -= 1;
                }
                moves[i] = (threats, bit);
                n += 1;
            }
        }
        debug_assert_eq!(n, bits(safe).count());
        for &(_, bit) in &moves[..n] {
            let v = -self.negamax(p.play_bit(bit), -beta, -alpha);
            if v >= beta {
                self.table.put(key, v as i8, true);
                return v;
            }
            if v > alpha {
                alpha = v;
            }
        }
        self.table.put(key, alpha as i8, false);
        alpha
    }
}
