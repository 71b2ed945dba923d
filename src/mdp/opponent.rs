//! Opponents (the fixed ones, and saved policies: see [`super::saved_policy`]), with the
//! names that specs, flags and CSV files use.

use super::saved_policy::{self, PolicyRef};
use super::seat::Seat;
use crate::game::{Game, Positions, Status};
use crate::stats::special::gcd;

pub use crate::names::ParseNameError;

/// Declares the fixed opponents once: [`Opponent`]'s variants (and its saved policy),
/// [`Opponent::ALL`], [`Opponent::NAMES`] and [`FIXED`], from which the training and
/// evaluation lists are derived ([`with_last`]). A new fixed opponent is one line here and
/// the arms the compiler then asks for: its moves ([`Opponent::replies`]) and its exact
/// fractions' denominator ([`Opponent::denominator`]).
macro_rules! fixed_opponents {
    ($($(#[$doc:meta])* $variant:ident = $text:literal),+ $(,)?) => {
        /// An opponent policy: one of the fixed ones, or a saved policy (see [`PolicyRef`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opponent {
            $($(#[$doc])* $variant,)+
            /// The move a saved policy file gives (deterministic).
            Policy(PolicyRef),
        }

        /// How many fixed opponents there are.
        pub const FIXED: usize = [$($text),+].len();

        impl Opponent {
            /// Every fixed opponent, in a fixed order.
            pub const ALL: &'static [Opponent; FIXED] = &[$(Opponent::$variant),+];

            /// Every fixed opponent's spelling, in the order of [`Self::ALL`].
            pub const NAMES: &'static [&'static str; FIXED] = &[$($text),+];

            /// The spelling used in specs, flags and CSV files: a saved policy's readable
            /// `policy:<file name>@<8 hex digits of its hash>`.
            pub fn name(self) -> &'static str {
                match self {
                    $(Opponent::$variant => $text,)+
                    Opponent::Policy(p) => &p.policy().name,
                }
            }
        }
    };
}

fixed_opponents! {
    /// Uniform over the legal moves.
    Random = "random",
    /// A minimax-optimal move, the lowest cell among ties (deterministic).
    Minimax = "minimax",
    /// Uniform over all minimax-optimal moves.
    MinimaxUniform = "minimax-uniform",
}

/// `list` and then `last`: a list of the fixed opponents' values and one more (self-play,
/// the best response), built when the crate is compiled. `M` must be `N + 1`.
pub const fn with_last<T: Copy, const N: usize, const M: usize>(list: [T; N], last: T) -> [T; M] {
    assert!(M == N + 1, "one more than the list");
    let mut out = [last; M];
    let mut i = 0;
    while i < N {
        out[i] = list[i];
        i += 1;
    }
    out
}

impl Opponent {
    /// The spelling in job keys and the resolved spec: the name, or a saved policy's
    /// `policy:<16 hex digits of its hash>`.
    pub fn key(self) -> &'static str {
        match self {
            Opponent::Policy(p) => &p.policy().key,
            fixed => fixed.name(),
        }
    }

    /// The value with this spelling (a saved policy's key or name, once registered).
    pub fn from_name(s: &str) -> Option<Opponent> {
        Opponent::ALL.iter().copied().find(|v| v.name() == s).or_else(|| saved_policy::find(s).map(Opponent::Policy))
    }

    /// The fixed opponents' spellings, comma separated.
    pub fn allowed() -> String {
        Opponent::NAMES.join(", ")
    }

    /// Whether it can play against an agent in `seat` (a saved policy plays the seats
    /// its file holds).
    pub fn faces(self, seat: Seat) -> bool {
        match self {
            Opponent::Policy(p) => p.seats.contains(&seat.other()),
            _ => true,
        }
    }

    /// Its move distribution in position `p` of `pos` (its turn): the cells it may play,
    /// each equally likely; none when the game is over.
    pub fn replies(self, pos: &Positions, p: usize) -> u32 {
        match self {
            // The status table, not the board's rules: it is one load.
            Opponent::Random if pos.status(p) == Status::Ongoing => pos.board(p).moves(),
            Opponent::Random => 0,
            Opponent::Minimax => {
                let m = pos.optimal_moves(p);
                m & m.wrapping_neg()
            }
            Opponent::MinimaxUniform => pos.optimal_moves(p),
            // Validation checked that the file covers every position the agent can reach.
            Opponent::Policy(policy) if pos.status(p) == Status::Ongoing => {
                1 << policy.get(p).unwrap_or_else(|| panic!("{} has no move in {}", policy.name, pos.board(p)))
            }
            Opponent::Policy(_) => 0,
        }
    }

    /// A common denominator of every outcome probability and value against it in `seat` of
    /// `game`: every path to the end of a game has a probability whose denominator divides
    /// the product, over its turns, of its choices' counts. `random` with `e` empty cells
    /// divides by `e` where any empty cell is a move, else (gravity boards) by the number of
    /// legal moves, a divisor of lcm(1..=min(e, m)) with `m` the moves of the empty board;
    /// `minimax-uniform` by the number of optimal moves, a divisor of that lcm; `minimax`
    /// and a saved policy (both deterministic) never divide. None when the product
    /// overflows.
    pub fn denominator(self, game: Game, seat: Seat) -> Option<u128> {
        let cells = game.cells() as u128;
        let widest = u128::from(game.moves(0).count_ones());
        // It moves with `cells` empty cells when it is X, else with `cells - 1`, and then
        // every second move.
        let first = if seat == Seat::X { cells - 1 } else { cells };
        let turns = (1..=first).rev().step_by(2);
        let lcm_to = |e: u128| (1..=e.min(widest)).fold(1u128, |l, k| l / gcd(l, k) * k);
        match self {
            Opponent::Minimax | Opponent::Policy(_) => Some(1),
            Opponent::Random if widest == cells => turns.into_iter().try_fold(1u128, |d, e| d.checked_mul(e)),
            Opponent::Random | Opponent::MinimaxUniform => {
                turns.into_iter().try_fold(1u128, |d, e| d.checked_mul(lcm_to(e)))
            }
        }
    }
}

impl std::fmt::Display for Opponent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Opponent {
    type Err = ParseNameError;

    fn from_str(s: &str) -> Result<Opponent, ParseNameError> {
        Opponent::from_name(s).ok_or_else(|| ParseNameError {
            what: "opponent",
            value: s.to_string(),
            allowed: Opponent::allowed(),
        })
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
