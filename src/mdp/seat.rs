//! The agent's seat, X or O, with the names that specs, flags and CSV files use: a module
//! of its own, below both the opponents and the saved policies that name it.

use crate::game::Player;
use crate::names::named_enum;

named_enum!(
    /// The agent's seat.
    Seat, "seat", {
        /// X, who moves first.
        X = "x",
        /// O, who moves second.
        O = "o",
    }
);

impl Seat {
    /// The other seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::X => Seat::O,
            Seat::O => Seat::X,
        }
    }

    /// The player in this seat.
    pub fn player(self) -> Player {
        match self {
            Seat::X => Player::X,
            Seat::O => Player::O,
        }
    }
}
