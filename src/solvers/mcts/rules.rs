//! The rules the search runs on: cell-mask helpers over compiled-in 9-bit tables, the
//! mask width a node stores, and the three instances of the game's rules (tic-tac-toe,
//! any game of up to 16 cells, larger boards).

use crate::game::Game;
use crate::game::board::{FULL, is_win};
use crate::game::mnk;

/// `KTH[mask << 4 | k]`: the cell of the `k`-th set bit (from 0) of the 9-bit `mask`.
static KTH: [u8; 512 * 16] = {
    let mut t = [0u8; 512 * 16];
    let mut m = 0;
    while m < 512 {
        let (mut k, mut cell) = (0, 0);
        while cell < 9 {
            if m & (1 << cell) != 0 {
                t[(m << 4) | k] = cell as u8;
                k += 1;
            }
            cell += 1;
        }
        m += 1;
    }
    t
};

/// `ONES[mask]`: the number of set bits of a 9-bit mask (the baseline x86-64 target has
/// no population-count instruction, and the bit-twiddling fallback is a dozen steps).
static ONES: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut m = 0;
    while m < 512 {
        t[m] = (m as u16).count_ones() as u8;
        m += 1;
    }
    t
};

/// The number of set bits of a 9-bit mask.
#[inline(always)]
pub(super) fn ones(mask: u32) -> u32 {
    u32::from(ONES[(mask & u32::from(FULL)) as usize])
}

/// The cell of the `k`-th set bit of the 9-bit `mask` (`k` below the number of set bits).
#[inline(always)]
pub(super) fn kth_cell(mask: u32, k: u32) -> u8 {
    // Both parts are masked into range, so the index is provably below the table's
    // length and the lookup compiles without a bounds check.
    KTH[(((mask & u32::from(FULL)) as usize) << 4) | (k as usize & 15)]
}

/// The number of set bits of a 16-bit mask: one lookup per byte.
#[inline(always)]
pub(super) fn ones16(mask: u32) -> u32 {
    ones(mask & 0xFF) + ones(mask >> 8 & 0xFF)
}

/// The cell of the `k`-th set bit of a 16-bit `mask` (`k` below the number of set bits):
/// in the low byte if it has more than `k` set bits, else in the high byte.
#[inline(always)]
pub(super) fn kth_cell16(mask: u32, k: u32) -> u8 {
    let in_low = ones(mask & 0xFF);
    let high = k >= in_low;
    let (byte, k) = if high { (mask >> 8 & 0xFF, k - in_low) } else { (mask & 0xFF, k) };
    kth_cell(byte, k) + 8 * u8::from(high)
}

/// The number of set bits of a 24-bit mask: one lookup per byte.
#[inline(always)]
pub(super) fn ones24(mask: u32) -> u32 {
    ones(mask & 0xFF) + ones(mask >> 8 & 0xFF) + ones(mask >> 16 & 0xFF)
}

/// The cell of the `k`-th set bit of a 24-bit `mask` (`k` below the number of set bits):
/// in the first byte that has more than what is left of `k` set bits.
#[inline(always)]
pub(super) fn kth_cell24(mask: u32, k: u32) -> u8 {
    let (mut byte, mut k) = (0, k);
    loop {
        let part = mask >> (8 * byte) & 0xFF;
        let here = ones(part);
        if k < here {
            return kth_cell(part, k) + 8 * byte as u8;
        }
        k -= here;
        byte += 1;
    }
}

/// A cell mask as the nodes store it: `u16` for games of up to 16 cells (every
/// m,n,k-game and the small gravity boards), so that a node is 32 bytes, two to a cache
/// line; `u32` for larger boards (40-byte nodes). The search computes in `u32` (the
/// game's rules and tables take it, and a `u16` widens to it for free) and narrows a mask
/// only when it writes a node; the width is chosen by [`Rules::Mask`].
pub(super) trait Mask:
    Copy
    + Default
    + Eq
    + std::fmt::Debug
    + std::ops::BitAnd<Output = Self>
    + std::ops::Not<Output = Self>
    + std::ops::BitAndAssign
{
    /// No cell.
    const EMPTY: Self;
    /// The mask of one cell (below the width).
    fn bit(cell: u8) -> Self;
    /// The mask of a board's cells, given as a `u32` (the board fits the width).
    fn of(cells: u32) -> Self;
    /// The same cells as a `u32`.
    fn wide(self) -> u32;
}

impl Mask for u16 {
    const EMPTY: u16 = 0;

    #[inline(always)]
    fn bit(cell: u8) -> u16 {
        1 << cell
    }

    #[inline(always)]
    fn of(cells: u32) -> u16 {
        debug_assert!(cells <= u32::from(u16::MAX), "a board of more than 16 cells in 16-bit masks");
        cells as u16
    }

    #[inline(always)]
    fn wide(self) -> u32 {
        u32::from(self)
    }
}

impl Mask for u32 {
    const EMPTY: u32 = 0;

    #[inline(always)]
    fn bit(cell: u8) -> u32 {
        1 << cell
    }

    #[inline(always)]
    fn of(cells: u32) -> u32 {
        cells
    }

    #[inline(always)]
    fn wide(self) -> u32 {
        self
    }
}

/// What the search needs of a game: its mask width, its move generator (the game
/// family's rule, through [`Game::moves`]), its win test and the two mask helpers of the
/// draws. The search is generic over it, so that tic-tac-toe runs on compiled-in 9-bit
/// tables ([`TicTacToe`]), every other game of up to 16 cells on its own win table
/// ([`AnyGame`]) and larger boards on their win lines ([`WideGame`]), with one algorithm.
pub(super) trait Rules: Copy {
    /// The cell masks of the boards stored in the tree's nodes (the search computes in
    /// `u32`, whatever the width stored).
    type Mask: Mask;
    /// The legal moves of an unfinished position whose cells `occupied` are taken.
    fn moves(self, occupied: u32) -> u32;
    /// The legal moves and their number after `cell`, one of `legal` (`left` of them), is
    /// marked, which leaves the cells `occupied` taken (if the game goes on).
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32);
    /// True when the cell mask holds a whole line.
    fn is_win(self, mask: u32) -> bool;
    /// The number of set bits of a cell mask.
    fn ones(self, mask: u32) -> u32;
    /// The cell of the `k`-th set bit (from 0, in cell order) of a cell mask.
    fn kth_cell(self, mask: u32, k: u32) -> u8;
}

/// Tic-tac-toe, from the compiled-in tables: no cache, no bounds checks.
#[derive(Clone, Copy, Debug)]
pub(super) struct TicTacToe;

impl Rules for TicTacToe {
    type Mask = u16;

    #[inline(always)]
    fn moves(self, occupied: u32) -> u32 {
        // The m,n,k rules of a constant game: folded to `!occupied & FULL`.
        mnk::moves(Game::TIC_TAC_TOE, occupied)
    }

    #[inline(always)]
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        mnk::after(Game::TIC_TAC_TOE, legal, left, occupied, cell)
    }

    #[inline(always)]
    fn is_win(self, mask: u32) -> bool {
        is_win(mask as u16)
    }

    #[inline(always)]
    fn ones(self, mask: u32) -> u32 {
        ones(mask)
    }

    #[inline(always)]
    fn kth_cell(self, mask: u32, k: u32) -> u8 {
        kth_cell(mask, k)
    }
}

/// Any game of up to 16 cells: moves from the game's family, wins from the game's table
/// over cell masks (`2^cells` entries), set bits byte by byte.
#[derive(Clone, Copy, Debug)]
pub(super) struct AnyGame {
    game: Game,
    wins: &'static [bool],
}

impl AnyGame {
    pub(super) fn new(game: Game) -> AnyGame {
        assert!(game.dense(), "{game} has more cells than its win table and a 16-bit mask hold");
        AnyGame { game, wins: &game.tables().wins }
    }
}

impl Rules for AnyGame {
    type Mask = u16;

    #[inline(always)]
    fn moves(self, occupied: u32) -> u32 {
        self.game.moves(occupied)
    }

    #[inline(always)]
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        self.game.after(legal, left, occupied, cell)
    }

    #[inline(always)]
    fn is_win(self, mask: u32) -> bool {
        self.wins[mask as usize]
    }

    #[inline(always)]
    fn ones(self, mask: u32) -> u32 {
        ones16(mask)
    }

    #[inline(always)]
    fn kth_cell(self, mask: u32, k: u32) -> u8 {
        kth_cell16(mask, k)
    }
}

/// A game of 17 to 24 cells (a large gravity board): moves from the game's family, wins
/// from its lines, set bits byte by byte.
#[derive(Clone, Copy, Debug)]
pub(super) struct WideGame {
    pub(super) game: Game,
}

impl Rules for WideGame {
    type Mask = u32;

    #[inline(always)]
    fn moves(self, occupied: u32) -> u32 {
        self.game.moves(occupied)
    }

    #[inline(always)]
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        self.game.after(legal, left, occupied, cell)
    }

    #[inline(always)]
    fn is_win(self, mask: u32) -> bool {
        self.game.tables().win(mask)
    }

    #[inline(always)]
    fn ones(self, mask: u32) -> u32 {
        ones24(mask)
    }

    #[inline(always)]
    fn kth_cell(self, mask: u32, k: u32) -> u8 {
        kth_cell24(mask, k)
    }
}
