//! The games: m,n,k-games (tic-tac-toe is `3x3k3`, the default) as a value ([`Game`]),
//! their rules, symmetries and the table of every reachable position, one per game.
//!
//! There is no process-wide game: whatever depends on the game takes a [`Game`] (or a
//! board or an MDP that knows its game), and the derived tables are caches keyed by it.
//! Nothing here reads files, prints, looks at the clock or draws random numbers.

pub mod board;
pub mod figures;
pub mod positions;
pub mod rules;
pub mod symmetry;

pub use board::{Board, ParseBoardError, Player, Status, cells};
pub use figures::Figures;
pub use positions::{GameCounts, Positions, count_games};
pub use rules::{Game, ParseGameError};
