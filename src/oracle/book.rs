//! Outcomes this search has established for positions whose search takes minutes, so
//! that a score from them does not search them again: the empty Connect Four board, where
//! scoring an agent from the start most often begins.
//!
//! Each entry was found by [`Solver::outcome_parallel`](super::Solver::outcome_parallel)
//! (the empty `6x7g4` board: a first-player win, in 123 s on two threads sharing a 4 GiB
//! table, docs/performance-history.md §24), agrees with the published solution of the
//! game (Allen and Allis, 1988: the first player wins by opening in the centre column),
//! and is searched again by the ignored release test `the_book_agrees_with_the_search`.
//! Only the outcome is kept (win, draw or loss), not the plies: what a game value needs.

use super::search::CONNECT_FOUR;
use super::{Outcome, Position, Shape};

/// The book: a board, the moves from its empty position (0-based columns or cells), and
/// the outcome for the player to move there.
pub const BOOK: &[(Shape, &[u8], Outcome)] = &[(CONNECT_FOUR, &[], Outcome::Win)];

/// The outcome of `p` for the player to move, if the book holds it.
pub fn known(p: Position) -> Option<Outcome> {
    BOOK.iter().find(|(shape, moves, _)| Position::after(*shape, moves).is_ok_and(|q| q == p)).map(|e| e.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_book_holds_the_empty_connect_four_board_and_nothing_near_it() {
        assert_eq!(known(Position::empty(CONNECT_FOUR)), Some(Outcome::Win));
        // Not a position one move in, nor another board's empty position.
        for m in 0..7 {
            assert_eq!(known(Position::after(CONNECT_FOUR, &[m]).unwrap()), None, "after {m}");
        }
        for other in [Shape::gravity(7, 6, 4), Shape::gravity(6, 5, 4), Shape::gravity(5, 5, 4)] {
            assert_eq!(known(Position::empty(other)), None, "{other}");
        }
    }
}
