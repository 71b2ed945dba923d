//! Outcomes this search has established for positions whose search takes minutes, so
//! that a score from them does not search them again: the empty Connect Four board, where
//! scoring an agent from the start most often begins, and the seven positions after its
//! first stone (which the optimal moves of the empty board, and of the second player's
//! first move, are found from).
//!
//! Each entry was found by [`Solver::outcome_parallel`](super::Solver::outcome_parallel)
//! (the empty `6x7g4` board: a first-player win, in 123 s on two threads sharing a 4 GiB
//! table, docs/performance-history.md §24), agrees with the published solution of the
//! game (Allen and Allis, 1988: the first player wins by opening in the centre column;
//! the columns beside it draw, the four outer ones lose), and is searched again by the
//! ignored release test `the_book_agrees_with_the_search`. The independent solver's
//! positions (tests/data/solved_positions.txt) settle the empty board and the first stone
//! in the centre and the edge columns. Only the outcome is kept (win, draw or loss), not
//! the plies: what a game value and a set of optimal moves need.

use super::shape::CONNECT_FOUR;
use super::{Outcome, Position, Score, Shape};

/// The book: a board, the moves from its empty position (0-based columns or cells), and
/// the outcome for the player to move there.
pub const BOOK: &[(Shape, &[u8], Outcome)] = &[
    (CONNECT_FOUR, &[], Outcome::Win),
    // After the first stone, for the second player: the centre loses, the columns beside
    // it draw, the four outer ones win.
    (CONNECT_FOUR, &[0], Outcome::Win),
    (CONNECT_FOUR, &[1], Outcome::Win),
    (CONNECT_FOUR, &[2], Outcome::Draw),
    (CONNECT_FOUR, &[3], Outcome::Loss),
    (CONNECT_FOUR, &[4], Outcome::Draw),
    (CONNECT_FOUR, &[5], Outcome::Win),
    (CONNECT_FOUR, &[6], Outcome::Win),
];

/// Exact scores (see [`Score`]) the book holds: those the outcomes above and the
/// independent solver's plies (tests/data/solved_positions.txt) settle. The first stone
/// in the centre loses at the game's 41st stone (score -2), in an edge column wins at the
/// 40th (3), beside the centre draws (0); the empty board is then won at the 41st (2): its
/// other moves draw or lose (`the_book_s_scores_follow_from_its_outcomes_and_the_reference`).
/// The first stone in columns 1 and 5 (from 0) wins for the second player by a score no
/// search here has settled: not held.
pub const SCORES: &[(Shape, &[u8], Score)] = &[
    (CONNECT_FOUR, &[], 2),
    (CONNECT_FOUR, &[0], 3),
    (CONNECT_FOUR, &[2], 0),
    (CONNECT_FOUR, &[3], -2),
    (CONNECT_FOUR, &[4], 0),
    (CONNECT_FOUR, &[6], 3),
];

/// The exact score of `p` for the player to move, if the book holds it.
pub fn score(p: Position) -> Option<Score> {
    SCORES.iter().find(|(shape, moves, _)| Position::after(*shape, moves).is_ok_and(|q| q == p)).map(|e| e.2)
}

/// The outcome of `p` for the player to move, if the book holds it.
pub fn known(p: Position) -> Option<Outcome> {
    BOOK.iter().find(|(shape, moves, _)| Position::after(*shape, moves).is_ok_and(|q| q == p)).map(|e| e.2)
}

/// Outcomes (for the player to move) that searches settled, kept up to a number of
/// positions (past it, what is new is not kept: a cache, never needed for a right answer),
/// and the book's.
#[derive(Debug, Default)]
pub struct Known {
    map: std::collections::HashMap<Position, Outcome>,
    most: usize,
}

impl Known {
    /// At most `most` positions (about 40 bytes each).
    pub fn new(most: usize) -> Known {
        Known { map: std::collections::HashMap::new(), most }
    }

    /// The outcome of `p`, if settled or in the book.
    pub fn get(&self, p: Position) -> Option<Outcome> {
        self.map.get(&p).copied().or_else(|| known(p))
    }

    /// Keeps `settled`, as far as there is room.
    pub fn extend(&mut self, settled: impl IntoIterator<Item = (Position, Outcome)>) {
        for (p, o) in settled {
            if self.map.len() >= self.most {
                return;
            }
            self.map.insert(p, o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_holds_connect_four_s_first_two_plies_and_nothing_deeper_or_elsewhere() {
        assert_eq!(known(Position::empty(CONNECT_FOUR)), Some(Outcome::Win));
        let after: Vec<Option<Outcome>> = (0..7).map(|m| known(Position::after(CONNECT_FOUR, &[m]).unwrap())).collect();
        // For the second player: X's first stone in the centre loses for X, beside it
        // draws, in the four outer columns wins for O.
        use Outcome::{Draw, Loss, Win};
        assert_eq!(after, [Win, Win, Draw, Loss, Draw, Win, Win].map(Some));
        assert_eq!(known(Position::after(CONNECT_FOUR, &[3, 3]).unwrap()), None);
        for other in [Shape::gravity(7, 6, 4), Shape::gravity(6, 5, 4), Shape::gravity(5, 5, 4)] {
            assert_eq!(known(Position::empty(other)), None, "{other}");
        }
    }
}
