//! Seats and fixed opponents, with the names that specs, flags and CSV files use.

use crate::game::Player;

pub use crate::names::ParseNameError;
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

named_enum!(
    /// A fixed opponent policy.
    Opponent, "opponent", {
        /// Uniform over the legal moves.
        Random = "random",
        /// A minimax-optimal move, the lowest cell among ties (deterministic).
        Minimax = "minimax",
        /// Uniform over all minimax-optimal moves.
        MinimaxUniform = "minimax-uniform",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &o in Opponent::ALL {
            assert_eq!(o.name().parse::<Opponent>(), Ok(o));
        }
        let e = "rando".parse::<Opponent>().unwrap_err();
        assert!(e.to_string().contains("random, minimax, minimax-uniform"));
        assert_eq!("o".parse::<Seat>(), Ok(Seat::O));
    }
}
