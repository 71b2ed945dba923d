//! The board: one cell mask per player and the [`Game`] it is played in; the rules the
//! families share (a move marks a cell, `k` in a row wins; which cells may be marked is the
//! family's, see [`Board::moves`]), the text form (one character per cell, row-major) and
//! a dense base-3 index.
//!
//! Cells are numbered row-major from 0; X moves first. A [`Board`] is plain data (`Copy`,
//! 12 bytes: a `u32` cell mask per player) and every rule is a few bit operations or a table lookup (the game's tables,
//! see [`super::rules`]), so the learners can play millions of games per second with it.
//! Tic-tac-toe's tables are also compiled in as constants ([`FULL`], [`LINES`],
//! [`is_win`]): its boards never touch a cache.

use std::fmt;

use super::rules::Game;

/// All nine cells of tic-tac-toe set.
pub const FULL: u16 = 0x1FF;

/// Tic-tac-toe's eight winning lines as cell masks.
pub const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// `WINS[m]` is true when the cell mask `m` contains a whole line.
static WINS: [bool; 512] = {
    let mut t = [false; 512];
    let mut m = 0;
    while m < 512 {
        let mut l = 0;
        while l < 8 {
            if m as u16 & LINES[l] == LINES[l] {
                t[m] = true;
            }
            l += 1;
        }
        m += 1;
    }
    t
};

/// `BASE3[m]` is the sum of `3^i` over the cells `i` in the mask `m`.
static BASE3: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut m = 0;
    while m < 512 {
        let mut i = 0;
        let mut p = 1u16;
        let mut s = 0u16;
        while i < 9 {
            if m & (1 << i) != 0 {
                s += p;
            }
            p *= 3;
            i += 1;
        }
        t[m] = s;
        m += 1;
    }
    t
};

/// True when the tic-tac-toe cell mask holds three in a row.
#[inline(always)]
pub fn is_win(mask: u16) -> bool {
    WINS[(mask & FULL) as usize]
}

/// A player, and the mark it puts on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    /// The first player.
    X,
    /// The second player.
    O,
}

impl Player {
    /// The other player.
    pub fn other(self) -> Player {
        match self {
            Player::X => Player::O,
            Player::O => Player::X,
        }
    }

    /// `"x"` or `"o"`, the spelling used in specs and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Player::X => "x",
            Player::O => "o",
        }
    }
}

/// How a position stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The given player has a whole line (k in a row).
    Won(Player),
    /// The board is full and nobody has won.
    Draw,
}

impl Status {
    /// The reward of a finished game from `seat`'s view: win +1, loss -1, draw 0.
    /// `None` while the game goes on.
    pub fn reward(self, seat: Player) -> Option<f64> {
        match self {
            Status::Ongoing => None,
            Status::Draw => Some(0.0),
            Status::Won(p) if p == seat => Some(1.0),
            Status::Won(_) => Some(-1.0),
        }
    }
}

/// A position of a game: one bit mask per player (bit `i` = cell `i`) and the game.
///
/// ```
/// use sweep::game::{Board, Game};
/// let b: Board = "X.O......".parse().unwrap();
/// assert_eq!(b.to_string(), "X.O......");
/// assert_eq!(b.moves(), 0b111_111_010);
/// assert_eq!(b.game(), Game::TIC_TAC_TOE);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    x: u32,
    o: u32,
    game: Game,
}

impl Board {
    /// The empty tic-tac-toe board.
    pub const EMPTY: Board = Board::empty(Game::TIC_TAC_TOE);

    /// The empty board of `game`.
    pub const fn empty(game: Game) -> Board {
        Board { x: 0, o: 0, game }
    }

    /// A board of `game` from its two masks. Panics if they overlap or use bits beyond
    /// the game's cells.
    pub fn from_masks(game: Game, x: u32, o: u32) -> Board {
        assert!(x & o == 0 && (x | o) & !game.full() == 0, "bad masks {x:#b} {o:#b}");
        Board { x, o, game }
    }

    /// A board from masks known to be valid (read back from a table of positions): only
    /// checked in debug builds.
    #[inline(always)]
    pub(super) fn from_table(game: Game, x: u32, o: u32) -> Board {
        debug_assert!(x & o == 0 && (x | o) & !game.full() == 0, "bad masks {x:#b} {o:#b}");
        Board { x, o, game }
    }

    /// The game this board belongs to.
    #[inline(always)]
    pub fn game(self) -> Game {
        self.game
    }

    /// True when the cell mask holds a whole line of this board's game.
    #[inline(always)]
    fn wins(self, mask: u32) -> bool {
        if self.game == Game::TIC_TAC_TOE { is_win(mask as u16) } else { self.game.tables().win(mask) }
    }

    /// X's cells.
    #[inline(always)]
    pub fn x(self) -> u32 {
        self.x
    }

    /// O's cells.
    #[inline(always)]
    pub fn o(self) -> u32 {
        self.o
    }

    /// The cells of `p`.
    #[inline(always)]
    pub fn mask(self, p: Player) -> u32 {
        match p {
            Player::X => self.x,
            Player::O => self.o,
        }
    }

    /// Number of marks on the board.
    #[inline(always)]
    pub fn pieces(self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// Whose turn it is: X when both have as many marks.
    #[inline(always)]
    pub fn to_move(self) -> Player {
        // X moves first, so X is to move exactly when the number of marks is even.
        if (self.x | self.o).count_ones() % 2 == 0 { Player::X } else { Player::O }
    }

    /// Win, draw or still going.
    #[inline]
    pub fn status(self) -> Status {
        if self.wins(self.x) {
            Status::Won(Player::X)
        } else if self.wins(self.o) {
            Status::Won(Player::O)
        } else if self.x | self.o == self.game.full() {
            Status::Draw
        } else {
            Status::Ongoing
        }
    }

    /// True when the game is over.
    #[inline(always)]
    pub fn is_terminal(self) -> bool {
        self.wins(self.x) || self.wins(self.o) || self.x | self.o == self.game.full()
    }

    /// The legal moves of a position whose game goes on, as a cell mask: the family's
    /// rule (any empty cell on m,n,k-games), without the test that the game goes on. The
    /// one way to ask which moves are legal; [`Board::legal_moves`] adds the test.
    #[inline(always)]
    pub fn moves(self) -> u32 {
        self.game.moves(self.x | self.o)
    }

    /// The cell that the move written `text` marks on this board, or why it is not a legal
    /// move here (a clause for people): a cell on m,n,k-games, a column on gravity boards.
    pub fn parse_move(self, text: &str) -> Result<u8, String> {
        self.game.family().parse_move(self, text)
    }

    /// The legal moves as a mask (none when the game is over).
    #[inline]
    pub fn legal_moves(self) -> u32 {
        if self.is_terminal() { 0 } else { self.moves() }
    }

    /// The legal moves in cell order.
    pub fn legal_cells(self) -> impl Iterator<Item = u8> {
        cells(self.legal_moves())
    }

    /// The position after the side to move marks `cell` (a cell of [`Board::moves`]).
    /// Panics if the cell is taken; the family's rule is checked in debug builds only.
    #[inline(always)]
    pub fn play(self, cell: u8) -> Board {
        let bit = 1u32 << cell;
        assert!(bit & (self.x | self.o) == 0 && usize::from(cell) < self.game.cells(), "cell {cell} is not free");
        debug_assert!(bit & self.moves() != 0, "cell {cell} is not a move of {}", self.game);
        match self.to_move() {
            Player::X => Board { x: self.x | bit, ..self },
            Player::O => Board { o: self.o | bit, ..self },
        }
    }

    /// The base-3 index in `0..game.index_space()`: cell `i` adds `3^i` for X, `2*3^i`
    /// for O. Dense on games of at most 16 cells (it indexes their table of positions);
    /// on larger boards it is the key their sorted positions are searched by.
    #[inline(always)]
    pub fn index(self) -> usize {
        if self.game == Game::TIC_TAC_TOE {
            BASE3[self.x as usize] as usize + 2 * BASE3[self.o as usize] as usize
        } else {
            let tables = self.game.tables();
            (tables.base3(self.x) + 2 * tables.base3(self.o)) as usize
        }
    }

    /// Parses a board of `game`: one character per cell (`X`, `O` or `.`), row-major.
    pub fn parse_in(game: Game, s: &str) -> Result<Board, ParseBoardError> {
        // The usual text is ASCII, read a byte at a time (policy files hold every position
        // of a seat: 68,000 boards on 4x4g4); anything else goes the long way, for its
        // messages.
        if s.len() == game.cells() && s.is_ascii() {
            let (mut x, mut o) = (0u32, 0u32);
            let mut plain = true;
            for (i, &c) in s.as_bytes().iter().enumerate() {
                match c {
                    b'X' | b'x' => x |= 1 << i,
                    b'O' | b'o' => o |= 1 << i,
                    b'.' | b'-' | b' ' => {}
                    _ => plain = false,
                }
            }
            let (xc, oc) = (x.count_ones(), o.count_ones());
            if plain && (xc == oc || xc == oc + 1) {
                return Ok(Board { x, o, game });
            }
        }
        let found = s.chars().count();
        if found != game.cells() {
            return Err(ParseBoardError::Length { cells: game.cells(), found });
        }
        let (mut x, mut o) = (0u32, 0u32);
        for (i, ch) in s.chars().enumerate() {
            match ch {
                'X' | 'x' => x |= 1 << i,
                'O' | 'o' => o |= 1 << i,
                '.' | '-' | ' ' => {}
                found => return Err(ParseBoardError::Char { cell: i, found }),
            }
        }
        let (xc, oc) = (x.count_ones(), o.count_ones());
        if xc != oc && xc != oc + 1 {
            return Err(ParseBoardError::Counts { x: xc, o: oc });
        }
        Ok(Board { x, o, game })
    }
}

/// The cells of a mask in increasing order.
pub fn cells(mask: u32) -> impl Iterator<Item = u8> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let c = m.trailing_zeros() as u8;
            m &= m - 1;
            Some(c)
        }
    })
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in 0..self.game.cells() {
            let bit = 1u32 << i;
            let c = if self.x & bit != 0 {
                'X'
            } else if self.o & bit != 0 {
                'O'
            } else {
                '.'
            };
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Why a board text did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseBoardError {
    /// Not one character per cell (nine in tic-tac-toe).
    #[error("a board is {cells} characters of X, O and '.', got {found} characters")]
    Length {
        /// The game's cells.
        cells: usize,
        /// The characters given.
        found: usize,
    },
    /// A character other than `X`, `O`, `.`.
    #[error("cell {cell} is {found:?}; a cell is X, O or '.'")]
    Char {
        /// The cell.
        cell: usize,
        /// What stood there.
        found: char,
    },
    /// The mark counts cannot arise in a game (X moves first).
    #[error("X has {x} marks and O has {o}; X moves first, so X has as many as O or one more")]
    Counts {
        /// X's marks.
        x: u32,
        /// O's marks.
        o: u32,
    },
}

impl std::str::FromStr for Board {
    type Err = ParseBoardError;

    /// A tic-tac-toe board: nine characters ([`Board::parse_in`] for other games).
    fn from_str(s: &str) -> Result<Board, ParseBoardError> {
        Board::parse_in(Game::TIC_TAC_TOE, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_on_small_cases() {
        let b: Board = "XXXOO....".parse().unwrap();
        assert_eq!(b.status(), Status::Won(Player::X));
        assert_eq!(b.legal_moves(), 0);
        let d: Board = "XOXXOOOXX".parse().unwrap();
        assert_eq!(d.status(), Status::Draw);
        let e = Board::EMPTY;
        assert_eq!(e.to_move(), Player::X);
        assert_eq!(e.play(4).to_move(), Player::O);
        assert_eq!(e.play(4).play(0).to_string(), "O...X....");
        assert_eq!(e.legal_cells().count(), 9);
    }

    #[test]
    fn index_is_base3() {
        let b: Board = "X.O......".parse().unwrap();
        assert_eq!(b.index(), 1 + 2 * 9);
        assert!("OOOOOOOOO".parse::<Board>().is_err());
    }

    #[test]
    fn the_compiled_tables_agree_with_the_game() {
        let t = Game::TIC_TAC_TOE.tables();
        for m in 0..512 {
            assert_eq!(t.win(m as u32), WINS[m]);
            assert_eq!(t.base3[m], u32::from(BASE3[m]));
        }
        let mut lines = Game::TIC_TAC_TOE.lines();
        lines.sort_unstable();
        let mut known: Vec<u32> = LINES.iter().map(|&l| u32::from(l)).collect();
        known.sort_unstable();
        assert_eq!(lines, known);
    }

    #[test]
    fn other_games_follow_their_own_lines() {
        let wide: Game = "3x4k3".parse().unwrap();
        let b = Board::parse_in(wide, ".XXXOO......").unwrap();
        assert_eq!(b.status(), Status::Won(Player::X));
        assert_eq!(b.to_string(), ".XXXOO......");
        let long: Game = "3x4k4".parse().unwrap();
        let b = Board::parse_in(long, ".XXXOO......").unwrap();
        assert_eq!(b.status(), Status::Ongoing);
        assert_eq!(b.legal_cells().count(), 7);
        assert_eq!(Board::empty(wide).play(11).index(), 3usize.pow(11));
        assert_eq!(Board::parse_in(wide, "X"), Err(ParseBoardError::Length { cells: 12, found: 1 }));
    }

    #[test]
    fn parse_errors() {
        assert_eq!("X.".parse::<Board>(), Err(ParseBoardError::Length { cells: 9, found: 2 }));
        assert!(matches!("X.Q......".parse::<Board>(), Err(ParseBoardError::Char { cell: 2, .. })));
        assert!(matches!("XX.......".parse::<Board>(), Err(ParseBoardError::Counts { .. })));
    }
}
