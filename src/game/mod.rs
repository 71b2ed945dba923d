//! The game of tic-tac-toe: rules, symmetries and the table of every reachable position.
//!
//! Nothing here reads files, prints, looks at the clock or draws random numbers.

pub mod board;
pub mod positions;
pub mod symmetry;

pub use board::{Board, ParseBoardError, Player, Status, cells};
pub use positions::{GameCounts, Positions, count_games};
