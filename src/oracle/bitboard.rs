//! A position as two bitboards (see [`super::shape`]): the stones of the player to move
//! and every stone, with the number of stones played.
//!
//! Moves are numbered as everywhere in `sweep`: a gravity move is its column (from 0), an
//! m,n,k move its cell (row by row from the top left).

use std::fmt;

use super::shape::Shape;
use crate::game::{Board, Family};

/// A position of a [`Shape`]: `Copy`, 24 bytes, every rule a few bit operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    shape: Shape,
    /// The stones of the player to move.
    mine: u64,
    /// Every stone.
    mask: u64,
    /// The stones played.
    plies: u32,
}

/// A move list that is not a game in progress: the move that is not legal, or the game
/// already over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadMoves(pub String);

impl Position {
    /// The empty board.
    pub fn empty(shape: Shape) -> Position {
        Position { shape, mine: 0, mask: 0, plies: 0 }
    }

    /// The position after `moves` from the empty board; an error names the first move
    /// that is not legal (out of range, a full column or a taken cell, or after a win).
    /// A list that ends the game is an error too: a finished game has no value to search.
    pub fn after(shape: Shape, moves: &[u8]) -> Result<Position, BadMoves> {
        let mut p = Position::empty(shape);
        for (i, &m) in moves.iter().enumerate() {
            if p.is_over() {
                return Err(BadMoves(format!("move {} ({m}) comes after the game is over", i + 1)));
            }
            if !p.is_legal(m) {
                let what = match shape.family() {
                    Family::Gravity if usize::from(m) < shape.cols() => format!("column {m} is full"),
                    Family::Gravity => format!("there is no column {m} (columns 0 to {})", shape.cols() - 1),
                    Family::Mnk if usize::from(m) < shape.cells() => format!("cell {m} is taken"),
                    Family::Mnk => format!("there is no cell {m} (cells 0 to {})", shape.cells() - 1),
                };
                return Err(BadMoves(format!("move {} ({m}) is not legal: {what}", i + 1)));
            }
            p = p.play(m);
        }
        if p.is_over() {
            let how = if p.last_won() { "won" } else { "drawn (the board is full)" };
            return Err(BadMoves(format!("the game is over after these moves: {how}")));
        }
        Ok(p)
    }

    /// The position a board text writes (`X`, `O` or `.` per cell, row by row from the
    /// top left, as [`Position::board_text`]), if play can reach it and it is in play: X
    /// has as many stones as O or one more, no stone floats on a gravity board, nobody
    /// has won. An error says what is wrong.
    pub fn of_board_text(shape: Shape, text: &str) -> Result<Position, BadMoves> {
        let bytes = text.as_bytes();
        if bytes.len() != shape.cells() {
            return Err(BadMoves(format!(
                "board {text:?}: {} characters, {shape} has {} cells",
                bytes.len(),
                shape.cells()
            )));
        }
        let (mut x, mut o) = (0u64, 0u64);
        for (cell, &b) in bytes.iter().enumerate() {
            match b {
                b'X' => x |= shape.bit_of_cell(cell),
                b'O' => o |= shape.bit_of_cell(cell),
                b'.' => {}
                _ => return Err(BadMoves(format!("board {text:?}: {:?} is not X, O or .", char::from(b)))),
            }
        }
        let (nx, no) = (x.count_ones(), o.count_ones());
        let mask = x | o;
        let problem = if nx != no && nx != no + 1 {
            Some("X must have as many stones as O or one more")
        } else if shape.family() == Family::Gravity && ((mask & !shape.bottom()) >> 1) & !mask != 0 {
            Some("a stone floats above an empty cell")
        } else if shape.won(x) || shape.won(o) {
            Some("the game is over: a side has won")
        } else if mask == shape.full() {
            Some("the game is over: the board is full")
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(BadMoves(format!("board {text:?}: {p}")));
        }
        let plies = nx + no;
        let mine = if plies % 2 == 0 { x } else { o };
        Ok(Position { shape, mine, mask, plies })
    }

    /// The same position as an enumerable board.
    pub fn of_board(board: Board) -> Position {
        let shape = Shape::of_game(board.game());
        let bits = |cells: u32| crate::game::cells(cells).fold(0u64, |acc, c| acc | shape.bit_of_cell(usize::from(c)));
        let (x, o) = (bits(board.x()), bits(board.o()));
        let plies = (board.x() | board.o()).count_ones();
        let mine = if plies % 2 == 0 { x } else { o };
        Position { shape, mine, mask: x | o, plies }
    }

    pub fn shape(self) -> Shape {
        self.shape
    }

    /// Stones played so far.
    pub fn plies(self) -> u32 {
        self.plies
    }

    /// Whether the player who moved last has won.
    #[inline(always)]
    pub fn last_won(self) -> bool {
        self.shape.won(self.mine ^ self.mask)
    }

    /// Won or full.
    pub fn is_over(self) -> bool {
        self.last_won() || self.mask == self.shape.full()
    }

    /// The bit a move would set, or 0 if it is not legal (the game going on).
    #[inline(always)]
    pub(crate) fn bit(self, m: u8) -> u64 {
        let s = self.shape;
        match s.family() {
            Family::Gravity if usize::from(m) < s.cols() => s.playable(self.mask) & s.column(usize::from(m)),
            Family::Mnk if usize::from(m) < s.cells() => s.bit_of_cell(usize::from(m)) & !self.mask,
            _ => 0,
        }
    }

    /// The move that sets a single bit.
    #[inline(always)]
    pub(crate) fn move_of(self, bit: u64) -> u8 {
        let s = self.shape;
        match s.family() {
            Family::Gravity => (bit.trailing_zeros() / s.height()) as u8,
            Family::Mnk => s.cell_of_bit(bit) as u8,
        }
    }

    /// `sweep`'s cell number of a legal move: the cell itself (m,n,k), or where the stone
    /// lands (gravity, row 0 at the top).
    pub fn cell_of_move(self, m: u8) -> usize {
        self.shape.cell_of_bit(self.bit(m))
    }

    /// Whether `m` is a legal move (the game going on).
    pub fn is_legal(self, m: u8) -> bool {
        self.bit(m) != 0
    }

    /// The legal moves, in increasing order (the game going on).
    pub fn moves(self) -> Vec<u8> {
        let mut out: Vec<u8> = bits(self.shape.playable(self.mask)).map(|b| self.move_of(b)).collect();
        out.sort_unstable();
        out
    }

    /// The position after a legal move.
    pub fn play(self, m: u8) -> Position {
        let bit = self.bit(m);
        assert!(bit != 0, "move {m} is not legal in {self}");
        self.play_bit(bit)
    }

    /// The same position, its shape given again (equal to its own): the search's fast
    /// path passes a constant, so that every rule compiles to fixed shifts.
    #[inline(always)]
    pub(crate) fn with_shape(self, shape: Shape) -> Position {
        debug_assert_eq!(shape, self.shape);
        Position { shape, ..self }
    }

    #[inline(always)]
    pub(crate) fn play_bit(self, bit: u64) -> Position {
        Position { shape: self.shape, mine: self.mine ^ self.mask, mask: self.mask | bit, plies: self.plies + 1 }
    }

    /// Whether the move wins at once.
    pub fn wins_now(self, m: u8) -> bool {
        self.bit(m) & self.shape.wins(self.mine) != 0
    }

    #[inline(always)]
    pub(crate) fn mine(self) -> u64 {
        self.mine
    }

    #[inline(always)]
    pub(crate) fn mask(self) -> u64 {
        self.mask
    }

    /// The moves after which the opponent cannot win at once, as bits (0 when every move
    /// loses at once). The caller has checked that no move wins at once.
    #[inline(always)]
    pub(crate) fn safe_moves(self) -> u64 {
        let s = self.shape;
        let possible = s.playable(self.mask);
        let theirs = s.wins(self.mine ^ self.mask) & !self.mask;
        let forced = possible & theirs;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            return match s.family() {
                // The block must not open a winning cell above it.
                Family::Gravity => forced & !(theirs >> 1),
                Family::Mnk => forced,
            };
        }
        match s.family() {
            Family::Gravity => possible & !(theirs >> 1),
            Family::Mnk => possible,
        }
    }

    /// The key of the position up to mirror symmetry: unique per position (the player to
    /// move follows from the stone count), below `2^63`.
    #[inline(always)]
    pub(crate) fn key(self) -> u64 {
        let s = self.shape;
        match s.family() {
            // Column by column, so the mirror of the key is the key of the mirror.
            Family::Gravity => {
                let key = self.key_of(self.mine, self.mask);
                key.min(s.mirror(key))
            }
            Family::Mnk => {
                let (m, k) = (s.mirror(self.mine), s.mirror(self.mask));
                self.key_of(self.mine, self.mask).min(self.key_of(m, k))
            }
        }
    }

    /// A key unique to the position itself (not shared with its mirror image).
    pub(crate) fn key_exact(self) -> u64 {
        self.key_of(self.mine, self.mask)
    }

    #[inline(always)]
    fn key_of(self, mine: u64, mask: u64) -> u64 {
        let s = self.shape;
        match s.family() {
            // Each column's stones and a bit above them: no carry between columns.
            Family::Gravity => mine + mask + s.bottom(),
            // The cells of each side, packed: at most 31 cells each.
            Family::Mnk => {
                let pack = |b: u64| {
                    let mut out = 0u64;
                    for c in 0..s.cols() {
                        out |= ((b >> (c as u32 * s.height())) & ((1 << s.rows()) - 1)) << (c * s.rows());
                    }
                    out
                };
                pack(mine) | pack(mask ^ mine) << s.cells()
            }
        }
    }
}

/// The single bits of a mask, lowest first.
pub(crate) fn bits(mut m: u64) -> impl Iterator<Item = u64> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m & m.wrapping_neg();
            m ^= b;
            b
        })
    })
}

impl Position {
    /// The board as `sweep` writes boards: `X`, `O` or `.` per cell, row by row from the
    /// top left, no separators.
    pub fn board_text(&self) -> String {
        self.to_string().replace('/', "")
    }
}

impl fmt::Display for Position {
    /// The board row by row from the top, `X`, `O` and `.`, rows separated by `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.shape;
        let x = if self.plies % 2 == 0 { self.mine } else { self.mine ^ self.mask };
        for cell in 0..s.cells() {
            if cell > 0 && cell % s.cols() == 0 {
                f.write_str("/")?;
            }
            let b = s.bit_of_cell(cell);
            f.write_str(if x & b != 0 {
                "X"
            } else if self.mask & b != 0 {
                "O"
            } else {
                "."
            })?;
        }
        Ok(())
    }
}

/// Reads a move list: 0-based moves separated by commas (`3,3,4`), `-` or nothing for the
/// empty board, or on gravity boards of at most 9 columns the field's notation, a digit
/// string of 1-based columns (`4453`).
pub fn parse_moves(shape: Shape, text: &str) -> Result<Vec<u8>, String> {
    let t = text.trim();
    if t.is_empty() || t == "-" {
        return Ok(Vec::new());
    }
    let digits = t.len() > 1 && !t.contains(',') && t.bytes().all(|b| b.is_ascii_digit());
    if digits && shape.family() == Family::Gravity && shape.cols() <= 9 {
        return t
            .bytes()
            .map(|b| match b - b'0' {
                0 => Err(format!("{t:?}: a digit string names columns from 1, and 0 is not one")),
                d => Ok(d - 1),
            })
            .collect();
    }
    t.split(',')
        .map(|m| {
            m.trim()
                .parse::<u8>()
                .map_err(|_| format!("{t:?}: {m:?} is not a move (moves from 0, separated by commas)"))
        })
        .collect()
}
