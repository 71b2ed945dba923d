//! A board's geometry as the search sees it: a family, rows, columns and `k`, laid out on
//! one `u64` column by column with a sentinel bit above each column, so that `k` in a row
//! in any direction is a few shifts and ANDs and no run wraps from one column to the next.
//!
//! Bit `col * (rows + 1) + r` is the cell in column `col`, `r` rows up from the bottom;
//! in `sweep`'s numbering that cell is `(rows - 1 - r) * cols + col` (row 0 at the top).

use std::fmt;
use std::str::FromStr;

use crate::game::rules::parse_name;
use crate::game::{Family, Game};

/// Connect Four, the board the search's fast path is compiled for and the book holds.
pub(super) const CONNECT_FOUR: Shape = Shape::gravity(6, 7, 4);

/// The most bits a board may take, sentinel row included (one bit stays free for the
/// table's tag).
pub const MAX_BITS: usize = 63;

/// The geometry of a board the search can value: `Copy`, with its masks precomputed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    family: Family,
    rows: u8,
    cols: u8,
    k: u8,
    /// Bits per column: `rows + 1`.
    height: u8,
    /// Every cell of the board.
    full: u64,
    /// The lowest cell of every column.
    bottom: u64,
}

/// A game name the search cannot take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "game {0:?} cannot be valued by search; a game is \"<rows>x<cols>g<k>\" (gravity) or \"<rows>x<cols>k<k>\" (m,n,k) with rows and columns at least 3, 3 <= k <= max(rows, columns), columns x (rows + 1) at most 63 (6x7g4, 7x7g4, 5x5k4), and at most 31 cells on an m,n,k board"
)]
pub struct ParseShapeError(pub String);

impl Shape {
    /// The board of `family` with these dimensions, if the search can take it.
    pub fn of(family: Family, rows: usize, cols: usize, k: usize) -> Option<Shape> {
        let ok = rows >= 3
            && cols >= 3
            && k >= 3
            && k <= rows.max(cols)
            && cols * (rows + 1) <= MAX_BITS
            && (family == Family::Gravity || rows * cols <= 31);
        if !ok {
            return None;
        }
        let height = rows + 1;
        let column = (1u64 << rows) - 1;
        let (mut full, mut bottom) = (0, 0);
        for c in 0..cols {
            full |= column << (c * height);
            bottom |= 1 << (c * height);
        }
        Some(Shape { family, rows: rows as u8, cols: cols as u8, k: k as u8, height: height as u8, full, bottom })
    }

    /// A gravity board as a constant, for the search's Connect Four fast path (the
    /// caller keeps to the limits [`Shape::of`] checks).
    pub(crate) const fn gravity(rows: usize, cols: usize, k: usize) -> Shape {
        let height = rows + 1;
        let column = (1u64 << rows) - 1;
        let (mut full, mut bottom, mut c) = (0, 0, 0);
        while c < cols {
            full |= column << (c * height);
            bottom |= 1 << (c * height);
            c += 1;
        }
        Shape {
            family: Family::Gravity,
            rows: rows as u8,
            cols: cols as u8,
            k: k as u8,
            height: height as u8,
            full,
            bottom,
        }
    }

    /// The search's view of an enumerable game.
    pub fn of_game(game: Game) -> Shape {
        Shape::of(game.family(), game.rows(), game.cols(), game.k()).expect("every enumerable game fits the search")
    }

    /// The enumerable game with this geometry, if there is one.
    pub fn game(self) -> Option<Game> {
        Game::of(self.family, self.rows, self.cols, self.k)
    }

    pub fn family(self) -> Family {
        self.family
    }

    pub fn rows(self) -> usize {
        usize::from(self.rows)
    }

    pub fn cols(self) -> usize {
        usize::from(self.cols)
    }

    pub fn k(self) -> usize {
        usize::from(self.k)
    }

    /// The number of cells.
    pub fn cells(self) -> usize {
        self.rows() * self.cols()
    }

    /// Bits per column (`rows + 1`).
    #[inline(always)]
    pub(crate) fn height(self) -> u32 {
        u32::from(self.height)
    }

    #[inline(always)]
    pub(crate) fn full(self) -> u64 {
        self.full
    }

    #[inline(always)]
    pub(crate) fn bottom(self) -> u64 {
        self.bottom
    }

    /// The bits of column `c`.
    #[inline(always)]
    pub(crate) fn column(self, c: usize) -> u64 {
        ((1u64 << self.rows) - 1) << (c as u32 * self.height())
    }

    /// The bit of `sweep`'s cell number `cell`.
    #[inline(always)]
    pub(crate) fn bit_of_cell(self, cell: usize) -> u64 {
        let (row, col) = (cell / self.cols(), cell % self.cols());
        1 << (col as u32 * self.height() + (self.rows() - 1 - row) as u32)
    }

    /// `sweep`'s cell number of a single bit.
    #[inline(always)]
    pub(crate) fn cell_of_bit(self, bit: u64) -> usize {
        let i = bit.trailing_zeros();
        let (col, r) = ((i / self.height()) as usize, (i % self.height()) as usize);
        (self.rows() - 1 - r) * self.cols() + col
    }

    /// The board reflected left to right (columns reversed): a symmetry of both families.
    #[inline(always)]
    pub(crate) fn mirror(self, b: u64) -> u64 {
        let h = self.height();
        let column = (1u64 << h) - 1;
        let last = self.cols() as u32 - 1;
        let mut out = 0;
        for c in 0..=last {
            out |= ((b >> (c * h)) & column) << ((last - c) * h);
        }
        out
    }

    /// The cells `t` (of the board, set or not) such that `stones | t` has `k` in a row
    /// through `t`: where a player holding `stones` would win by playing.
    #[inline(always)]
    pub(crate) fn wins(self, stones: u64) -> u64 {
        match self.k {
            3 => wins::<3>(stones, self.height(), self.full),
            4 => wins::<4>(stones, self.height(), self.full),
            5 => wins::<5>(stones, self.height(), self.full),
            _ => self.wins_any(stones),
        }
    }

    /// [`Shape::wins`] for any `k`.
    #[inline(never)]
    fn wins_any(self, stones: u64) -> u64 {
        let k = usize::from(self.k);
        let mut out = 0;
        for s in directions(self.height()) {
            // `up[i]`: cells t with stones at t + s, ..., t + i·s; `down[i]` the same below.
            let mut up = [u64::MAX; 32];
            let mut down = [u64::MAX; 32];
            for i in 1..k {
                let d = i as u32 * s;
                let (u, w) = if d < 64 { (stones >> d, stones << d) } else { (0, 0) };
                up[i] = up[i - 1] & u;
                down[i] = down[i - 1] & w;
            }
            for j in 0..k {
                out |= down[j] & up[k - 1 - j];
            }
        }
        out & self.full
    }

    /// Whether `stones` hold `k` in a row.
    #[inline(always)]
    pub(crate) fn won(self, stones: u64) -> bool {
        let h = self.height();
        directions(h).into_iter().any(|s| {
            let mut run = stones;
            for i in 1..u32::from(self.k) {
                let d = i * s;
                run &= if d < 64 { stones >> d } else { 0 };
            }
            run != 0
        })
    }

    /// The playable cells of a position whose stones are `mask`: the lowest empty cell of
    /// each column not full (gravity), or every empty cell (m,n,k).
    #[inline(always)]
    pub(crate) fn playable(self, mask: u64) -> u64 {
        match self.family {
            Family::Gravity => mask.wrapping_add(self.bottom) & self.full,
            Family::Mnk => !mask & self.full,
        }
    }

    /// The order in which moves are tried before threats are counted: centre columns
    /// first (gravity), cells nearest the centre first (m,n,k).
    pub(crate) fn static_order(self) -> Vec<u64> {
        let (rows, cols) = (self.rows() as i32, self.cols() as i32);
        let mut cells: Vec<(i32, usize)> = (0..self.cells())
            .map(|cell| {
                let (r, c) = (cell as i32 / cols, cell as i32 % cols);
                let dc = (2 * c - (cols - 1)).abs();
                let dr = (2 * r - (rows - 1)).abs();
                let rank = match self.family {
                    Family::Gravity => dc,
                    Family::Mnk => dc.max(dr) * 64 + dc + dr,
                };
                (rank, cell)
            })
            .collect();
        cells.sort();
        cells.into_iter().map(|(_, cell)| self.bit_of_cell(cell)).collect()
    }
}

/// The four directions of a line as bit steps: up a column, along a row, and the two
/// diagonals.
#[inline(always)]
fn directions(h: u32) -> [u32; 4] {
    [1, h, h - 1, h + 1]
}

/// [`Shape::wins`] for `K` in a row, unrolled.
#[inline(always)]
fn wins<const K: usize>(stones: u64, h: u32, full: u64) -> u64 {
    let mut out = 0;
    for s in directions(h) {
        let mut up = [u64::MAX; K];
        let mut down = [u64::MAX; K];
        for i in 1..K {
            let d = i as u32 * s;
            let (u, w) = if d < 64 { (stones >> d, stones << d) } else { (0, 0) };
            up[i] = up[i - 1] & u;
            down[i] = down[i - 1] & w;
        }
        for j in 0..K {
            out |= down[j] & up[K - 1 - j];
        }
    }
    out & full
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}{}{}", self.rows, self.cols, self.family.letter(), self.k)
    }
}

impl FromStr for Shape {
    type Err = ParseShapeError;

    fn from_str(s: &str) -> Result<Shape, ParseShapeError> {
        let (family, rows, cols, k) = parse_name(s).ok_or_else(|| ParseShapeError(s.to_string()))?;
        Shape::of(family, rows, cols, k).ok_or_else(|| ParseShapeError(s.to_string()))
    }
}
