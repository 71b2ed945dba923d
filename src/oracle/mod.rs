//! The search-based ground truth: exact values of single positions on boards too big to
//! enumerate (Connect Four is `6x7g4`, 4.5 × 10¹² positions), by negamax with alpha-beta
//! over bitboards, a transposition table of bounded size, move ordering by threats and
//! the mirror symmetry.
//!
//! [`game::Positions`](crate::game::Positions) values every position of a board at once;
//! this values one position at a time and touches only what the search needs, so it
//! reaches boards of up to 63 bit cells (a sentinel row above each column: `6x7g4`,
//! `7x6g4`, `7x7g4`, m,n,k boards such as `5x5k4` and `5x6k4`). On every board both
//! handle they agree on every position: value, plies to the end and optimal moves
//! (`tests` here on the small boards, the ignored release tests on every board up to 24
//! cells).
//!
//! A value is a [`Score`]: for the player to move, `cells + 1 - p` for a win that ends
//! with the `p`-th stone of the game, its negation for a loss, 0 for a draw (which always
//! fills the board). The winner wins as fast as it can and the loser loses as slowly as
//! it can, so the score orders outcomes and, within one, the length of the game.
//!
//! [`book`] keeps the outcomes of positions whose search takes minutes (the empty
//! Connect Four board and the seven after its first stone), which a score's game value
//! and every search for optimal moves read before they search.
//!
//! Like `game`, this reads no files, prints nothing and draws no random numbers.

mod agent;
mod bitboard;
pub mod book;
mod score;
mod search;
mod shape;
mod table;
mod uct;

pub use agent::{Agent, Asked, Lowest, Perfect};
pub use bitboard::{BadMoves, Position, parse_moves};
pub use score::{Against, Figure, Limits, Method, Scorer};
pub use search::{Outcome, Score, Settled, Solver, field_score, plies_left, shared_table};
pub use shape::{ParseShapeError, Shape};
pub use table::Transpositions;
pub use uct::Uct;

#[cfg(test)]
mod tests;
