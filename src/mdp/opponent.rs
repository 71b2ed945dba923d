//! Seats and fixed opponents, with the names that specs, flags and CSV files use.

use std::fmt;
use std::str::FromStr;

use crate::game::Player;

/// A name that is not one of the allowed ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value:?} is not known; allowed: {allowed}")]
pub struct ParseNameError {
    /// What was being named ("seat", "opponent", ...).
    pub what: &'static str,
    /// The value given.
    pub value: String,
    /// The allowed values, comma separated.
    pub allowed: String,
}

macro_rules! named_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal, { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in a fixed order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The spelling used in specs, flags and CSV files.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The allowed spellings, comma separated.
            pub fn allowed() -> String {
                [$($text),+].join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = ParseNameError;

            fn from_str(s: &str) -> Result<Self, ParseNameError> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(ParseNameError { what: $what, value: s.to_string(), allowed: $name::allowed() }),
                }
            }
        }
    };
}

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
