//! The size of every allowed game: legal positions, and for each side to move its
//! unfinished positions, their moves and the outcomes of those moves (one when the move
//! ends the game, else one per reply). Memory estimates (`sweep plan`, the executor's
//! memory budget, the Slurm scripts) are computed from these.
//!
//! They are counted by enumerating the game's positions ([`count`]) and cached, one per
//! game. The m,n,k-games' figures are also kept in a table, counted the same way, so that
//! planning a 4×4 sweep costs nothing (enumerating 4x4k4 takes seconds and 200 MB); a test
//! recounts the small games of the table, and an ignored test (run in release by
//! `.ci/run`) every game.

use std::sync::OnceLock;

use super::Family;
use super::rules::{Game, SLOTS};

/// The positions where one side is to move and the game goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// Unfinished positions with this side to move.
    pub states: u64,
    /// Legal moves over those positions.
    pub moves: u64,
    /// Outcomes of those moves: 1 for a move that ends the game, else the number of
    /// replies (the agent MDP against `random` has exactly these).
    pub outcomes: u64,
}

/// The size of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figures {
    /// Legal positions, the empty board and finished games included.
    pub positions: u64,
    /// X to move, O to move.
    pub to_move: [Side; 2],
}

impl Figures {
    /// The figures of one side (0: X, 1: O).
    pub fn side(&self, o: bool) -> Side {
        self.to_move[usize::from(o)]
    }

    /// Unfinished positions and their moves, both sides together (the self-play table).
    pub fn all(&self) -> Side {
        let [x, o] = self.to_move;
        Side { states: x.states + o.states, moves: x.moves + o.moves, outcomes: x.outcomes + o.outcomes }
    }
}

const fn side(states: u64, moves: u64, outcomes: u64) -> Side {
    Side { states, moves, outcomes }
}

/// `(rows, cols, k, positions, X side, O side)` of the m,n,k-games, counted by
/// enumeration. A game and its transpose have the same figures.
const TABLE: [(u8, u8, u8, u64, Side, Side); 13] = [
    (3, 3, 3, 5_478, side(2_423, 8_631, 24_258), side(2_097, 7_536, 22_248)),
    (3, 4, 3, 111_973, side(42_141, 206_920, 757_256), side(37_422, 184_142, 720_432)),
    (4, 3, 3, 111_973, side(42_141, 206_920, 757_256), side(37_422, 184_142, 720_432)),
    (3, 4, 4, 142_231, side(71_515, 304_308, 1_165_740), side(67_824, 284_424, 1_093_704)),
    (4, 3, 4, 142_231, side(71_515, 304_308, 1_165_740), side(67_824, 284_424, 1_093_704)),
    (3, 5, 3, 2_286_668, side(738_765, 4_624_299, 20_835_796), side(668_305, 4_189_374, 20_145_310)),
    (5, 3, 3, 2_286_668, side(738_765, 4_624_299, 20_835_796), side(668_305, 4_189_374, 20_145_310)),
    (3, 5, 4, 3_414_564, side(1_694_529, 8_909_823, 42_910_038), side(1_600_899, 8_423_634, 40_711_050)),
    (5, 3, 4, 3_414_564, side(1_694_529, 8_909_823, 42_910_038), side(1_600_899, 8_423_634, 40_711_050)),
    (3, 5, 5, 3_485_916, side(1_779_201, 9_219_135, 44_617_470), side(1_688_385, 8_754_690, 42_225_210)),
    (5, 3, 5, 3_485_916, side(1_779_201, 9_219_135, 44_617_470), side(1_688_385, 8_754_690, 42_225_210)),
    (4, 4, 3, 6_036_001, side(1_815_621, 12_287_032, 58_557_872), side(1_647_920, 11_166_312, 56_857_708)),
    (4, 4, 4, 9_722_011, side(4_656_643, 26_517_984, 135_649_056), side(4_405_976, 25_044_440, 129_644_976)),
];

/// The figures of `game` in [`TABLE`], if it is there.
fn tabled(game: Game) -> Option<Figures> {
    let (rows, cols, k) = (game.rows() as u8, game.cols() as u8, game.k() as u8);
    TABLE
        .iter()
        .find(|t| game.family() == Family::Mnk && (t.0, t.1, t.2) == (rows, cols, k))
        .map(|&(.., positions, x, o)| Figures { positions, to_move: [x, o] })
}

impl Game {
    /// This game's figures: from the table of m,n,k-games, else counted on first use
    /// (which builds the game's positions) and cached.
    pub fn figures(self) -> Figures {
        static CACHE: [OnceLock<Figures>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        tabled(self).unwrap_or_else(|| *CACHE[self.slot()].get_or_init(|| count(self)))
    }
}

/// Counts the figures of `game` by enumerating its positions.
pub fn count(game: Game) -> Figures {
    use super::board::{Player, Status};
    let p = game.positions();
    let mut to_move = [side(0, 0, 0); 2];
    for id in 0..p.len() {
        if p.status(id) != Status::Ongoing {
            continue;
        }
        let b = p.board(id);
        let s = &mut to_move[usize::from(b.to_move() == Player::O)];
        s.states += 1;
        for c in b.legal_cells() {
            let after = b.play(c);
            s.moves += 1;
            s.outcomes += if after.is_terminal() { 1 } else { u64::from(after.moves().count_ones()) };
        }
    }
    Figures { positions: p.len() as u64, to_move }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_allowed_mnk_game_is_in_the_table_once() {
        let mut n = 0;
        for rows in 3..=16u8 {
            for cols in 3..=16u8 {
                for k in 3..=16u8 {
                    if let Some(g) = Game::new(rows, cols, k) {
                        assert_eq!(TABLE.iter().filter(|t| (t.0, t.1, t.2) == (rows, cols, k)).count(), 1, "{g}");
                        assert!(tabled(g).is_some());
                        n += 1;
                    }
                }
            }
        }
        assert_eq!(n, TABLE.len());
        assert_eq!(Game::all().filter(|g| g.family() == Family::Mnk).count(), TABLE.len());
    }

    #[test]
    fn the_small_games_are_counted_as_the_table_says() {
        for g in Game::all().filter(|g| g.cells() <= 12 && tabled(*g).is_some()) {
            assert_eq!(count(g), g.figures(), "{g}");
        }
    }

    #[test]
    #[ignore = "release build: enumerates every game, 15-cell and 16-cell ones included"]
    fn every_game_is_counted_as_the_table_says() {
        for g in Game::all().filter(|g| tabled(*g).is_some()) {
            assert_eq!(count(g), g.figures(), "{g}");
        }
    }
}
