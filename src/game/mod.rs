//! The games as values ([`Game`]) in families (m,n,k-games, where tic-tac-toe is `3x3k3`,
//! the default, and gravity boards such as `4x4g4`), each family's rules in its own file
//! behind one seam ([`family`]), the symmetries and the table of every reachable
//! position, one per game.
//!
//! There is no process-wide game: whatever depends on the game takes a [`Game`] (or a
//! board or an MDP that knows its game), and the derived tables are caches keyed by it.
//! Nothing here reads files, prints, looks at the clock or draws random numbers.

#[macro_use]
pub mod family;

pub mod board;
pub mod figures;
pub mod positions;
pub mod rules;
pub mod symmetry;

pub use board::{Board, ParseBoardError, Player, Status, cells};
pub use figures::Figures;
pub use positions::{GameCounts, Positions, count_games};
pub use rules::{Game, ParseGameError};

// The game families, one line each: `Variant => rules module` (see `family.rs`).
families! {
    Mnk => mnk,
    Gravity => gravity,
}
