//! The game as a value ([`Game`]: a family, rows, columns, marks in a row to win), its
//! win lines, its symmetries and the lookup tables derived from them.
//!
//! A family's rules live in one file each (see [`super::family`]): which moves are legal,
//! how a move is written and read, which symmetries the board keeps and how cells and
//! moves are numbered; every other module reaches them through [`Game`] and
//! [`super::Board`] only. What the families share is said here: a move puts the mover's
//! mark on one empty cell, `k` marks in a row (horizontally, vertically or diagonally)
//! win, a full board is a draw, and play stops at a win.
//!
//! A game is `Copy` and 4 bytes; everything derived from it (win table, base-3 weights,
//! symmetry permutations and mask tables, the positions, the solved MDPs) lives in caches
//! keyed by the game, built on first use and immutable afterwards, so several games can
//! be used in one process. Tic-tac-toe (`3x3k3`) is the default.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::Family;

/// The most cells a board of any family may have (a cell set is a `u32`; each family has
/// its own limit, [`Family::max_cells`]).
pub const MAX_CELLS: usize = 24;

/// The most cells for which the per-game tables are indexed by a whole cell mask
/// (`2^cells` entries) and positions by a dense base-3 table (`3^cells` entries); larger
/// boards use tables over half masks and a sorted list of positions.
pub const DENSE_CELLS: usize = 16;

/// The smallest number of rows, columns and marks in a row.
const MIN_SIDE: u8 = 3;

/// A game of a family: `rows` × `cols` cells (row-major, cell `i` at row `i / cols`,
/// column `i % cols`, row 0 at the top), won by `k` marks in a row horizontally, vertically
/// or diagonally. Written `"<rows>x<cols><letter><k>"` with the family's letter: `k` for
/// m,n,k-games (`"3x3k3"` is tic-tac-toe), `g` for gravity boards (`"4x4g4"`).
///
/// ```
/// use sweep::game::Game;
/// let g: Game = "3x4k3".parse().unwrap();
/// assert_eq!((g.rows(), g.cols(), g.k(), g.cells()), (3, 4, 3, 12));
/// assert_eq!(g.to_string(), "3x4k3");
/// assert_eq!(Game::default(), Game::TIC_TAC_TOE);
/// let c: Game = "4x4g4".parse().unwrap();
/// assert_eq!((c.family(), c.to_string()), (sweep::game::Family::Gravity, "4x4g4".to_string()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Game {
    rows: u8,
    cols: u8,
    k: u8,
    family: Family,
}

impl Default for Game {
    fn default() -> Game {
        Game::TIC_TAC_TOE
    }
}

/// What a game may be, for messages: "a game is" followed by this. Every family's form
/// (e.g. `"<rows>x<cols>k<k>"`) with its sizes, then the ranges.
/// (`_max_cells` is a kind's own limit, checked after the game is read; every kind plays
/// every family's sizes today.)
pub fn allowed(_max_cells: usize) -> String {
    let forms: Vec<String> = Family::ALL
        .iter()
        .map(|f| format!("\"<rows>x<cols>{}<k>\" ({}; {})", f.letter(), f.form(), f.sizes()))
        .collect();
    format!(
        "{} with rows and columns at least 3 and 3 <= k <= max(rows, columns), e.g. \"3x3k3\" (tic-tac-toe); \
         \"connect4\" or \"connect-four\" name \"6x7g4\"",
        forms.join(" or ")
    )
}

/// A game text that is not a family's `<rows>x<cols><letter><k>` within the allowed ranges.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("game {0:?} is not allowed; a game is {rule}", rule = allowed(MAX_CELLS))]
pub struct ParseGameError(pub String);

impl Game {
    /// Tic-tac-toe: 3 × 3, three in a row.
    pub const TIC_TAC_TOE: Game = Game { rows: 3, cols: 3, k: 3, family: Family::Mnk };

    /// The m,n,k-game with these dimensions, if allowed (see [`ParseGameError`]).
    pub fn new(rows: u8, cols: u8, k: u8) -> Option<Game> {
        Game::of(Family::Mnk, rows, cols, k)
    }

    /// The game of `family` with these dimensions, if allowed (see [`ParseGameError`]).
    pub fn of(family: Family, rows: u8, cols: u8, k: u8) -> Option<Game> {
        let ok = rows >= MIN_SIDE
            && cols >= MIN_SIDE
            && family.fits(usize::from(rows), usize::from(cols))
            && k >= MIN_SIDE
            && k <= rows.max(cols);
        ok.then_some(Game { rows, cols, k, family })
    }

    /// A board of `family` too big to enumerate that the search still values (see
    /// `oracle::Shape`): Connect Four (`6x7g4`), `7x7g4`, `5x5k4`. Sides stay within
    /// the enumerable boards' range (3 to 8), so a game keeps one cache slot; its tables
    /// and positions are never built ([`Game::enumerable`] is false).
    pub fn searched(family: Family, rows: u8, cols: u8, k: u8) -> Option<Game> {
        let side = |n: u8| (MIN_SIDE..MIN_SIDE + SIDES as u8).contains(&n);
        let (r, c) = (usize::from(rows), usize::from(cols));
        let fits_search = c * (r + 1) <= 63 && (family == Family::Gravity || r * c <= 31);
        let ok = side(rows) && side(cols) && k >= MIN_SIDE && k <= rows.max(cols) && !family.fits(r, c) && fits_search;
        ok.then_some(Game { rows, cols, k, family })
    }

    /// A game by name: an enumerable one, or else one the search values
    /// ([`Game::searched`]).
    pub fn parse_any(s: &str) -> Option<Game> {
        s.parse().ok().or_else(|| {
            let (family, rows, cols, k) = parse_name(s)?;
            let small = |n: usize| u8::try_from(n).ok();
            Game::searched(family, small(rows)?, small(cols)?, small(k)?)
        })
    }

    /// Whether every position of the game can be enumerated (its tables, positions and
    /// MDPs built): false for a [`Game::searched`] board, which only the search values.
    pub fn enumerable(self) -> bool {
        self.family.fits(usize::from(self.rows), usize::from(self.cols))
    }

    /// Every allowed game, family by family.
    pub fn all() -> impl Iterator<Item = Game> {
        let sides = MIN_SIDE..MIN_SIDE + SIDES as u8;
        Family::ALL.iter().flat_map(move |&f| {
            let sides = sides.clone();
            sides.clone().flat_map(move |r| {
                let sides = sides.clone();
                sides.clone().flat_map(move |c| sides.clone().filter_map(move |k| Game::of(f, r, c, k)))
            })
        })
    }

    /// The family whose rules this game follows.
    #[inline(always)]
    pub fn family(self) -> Family {
        self.family
    }

    /// The legal moves of an unfinished position whose cells `occupied` are taken, as a
    /// cell mask: the family's rule ([`super::Board::moves`] is the usual way to ask).
    #[inline(always)]
    pub fn moves(self, occupied: u32) -> u32 {
        self.family.moves(self, occupied)
    }

    /// The legal moves and their number after `cell`, one of `legal` (`left` of them), is
    /// marked, leaving the cells `occupied` taken (if the game goes on): [`Game::moves`]
    /// of `occupied`, found from the moves before (MCTS's playouts, step by step).
    #[inline(always)]
    pub fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        self.family.after(self, legal, left, occupied, cell)
    }

    /// How a move (given as the cell it marks) is written: the cell on m,n,k-games, the
    /// column on gravity boards.
    pub fn move_text(self, cell: u8) -> String {
        self.family.move_text(self, cell)
    }

    /// How cells and moves are numbered, in a sentence for people.
    pub fn numbering(self) -> String {
        self.family.numbering(self)
    }

    /// Rows.
    pub fn rows(self) -> usize {
        usize::from(self.rows)
    }

    /// Columns.
    pub fn cols(self) -> usize {
        usize::from(self.cols)
    }

    /// Marks in a row that win.
    pub fn k(self) -> usize {
        usize::from(self.k)
    }

    /// Number of cells.
    #[inline(always)]
    pub fn cells(self) -> usize {
        usize::from(self.rows) * usize::from(self.cols)
    }

    /// The mask of all cells.
    #[inline(always)]
    pub fn full(self) -> u32 {
        ((1u64 << self.cells()) - 1) as u32
    }

    /// Number of base-3 board indices: `3^cells`.
    pub fn index_space(self) -> usize {
        3usize.pow(self.cells() as u32)
    }

    /// Whether the game's tables are indexed by whole cell masks and its positions by a
    /// dense base-3 table (at most [`DENSE_CELLS`] cells), rather than by half masks and a
    /// sorted list.
    #[inline(always)]
    pub fn dense(self) -> bool {
        self.cells() <= DENSE_CELLS
    }

    /// The winning lines as cell masks: every run of `k` cells in a row, a column or a
    /// diagonal.
    pub fn lines(self) -> Vec<u32> {
        let (rows, cols, k) = (self.rows as i32, self.cols as i32, self.k as i32);
        let mut lines = Vec::new();
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
            for r in 0..rows {
                for c in 0..cols {
                    let (er, ec) = (r + dr * (k - 1), c + dc * (k - 1));
                    if er < 0 || er >= rows || ec < 0 || ec >= cols {
                        continue;
                    }
                    let line = (0..k).fold(0u32, |m, i| m | 1 << ((r + dr * i) * cols + c + dc * i));
                    lines.push(line);
                }
            }
        }
        lines
    }

    /// The symmetry transforms of the board (see [`super::symmetry`]) that the family's
    /// rules keep, the identity first.
    pub fn transforms(self) -> &'static [usize] {
        self.family.transforms(self)
    }

    /// Where transform `t` sends `cell`: reflect left-right when `t >= 4`, then turn a
    /// quarter clockwise `t % 4` times.
    pub fn transform_cell(self, t: usize, cell: usize) -> usize {
        let (mut rows, mut cols) = (self.rows(), self.cols());
        let (mut r, mut c) = (cell / cols, cell % cols);
        if t >= 4 {
            c = cols - 1 - c;
        }
        for _ in 0..t % 4 {
            (r, c) = (c, rows - 1 - r);
            (rows, cols) = (cols, rows);
        }
        r * cols + c
    }

    /// A dense number for each allowed game, below [`SLOTS`]: the key of the caches.
    pub(crate) fn slot(self) -> usize {
        let side = |v: u8| usize::from(v - MIN_SIDE);
        ((self.family as usize * SIDES + side(self.rows)) * SIDES + side(self.cols)) * SIDES + side(self.k)
    }

    /// The lookup tables of this game, built on first use.
    #[inline(always)]
    pub(crate) fn tables(self) -> &'static Tables {
        static CACHE: [OnceLock<Tables>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        CACHE[self.slot()].get_or_init(|| Tables::build(self))
    }
}

/// How many values a side length or `k` can take (3 to 8: rows · cols ≤ 24).
const SIDES: usize = 6;

/// How many cache slots there are: one per (family, rows, cols, k) in range.
pub(crate) const SLOTS: usize = Family::ALL.len() * SIDES * SIDES * SIDES;

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}{}{}", self.rows, self.cols, self.family.letter(), self.k)
    }
}

impl FromStr for Game {
    type Err = ParseGameError;

    fn from_str(s: &str) -> Result<Game, ParseGameError> {
        let bad = || ParseGameError(s.to_string());
        let (family, rows, cols, k) = parse_name(s).ok_or_else(bad)?;
        let small = |n: usize| u8::try_from(n).map_err(|_| bad());
        Game::of(family, small(rows)?, small(cols)?, small(k)?).ok_or_else(bad)
    }
}

/// The names that stand for Connect Four, `6x7g4`, wherever a game is named (any case).
pub const CONNECT_FOUR_NAMES: [&str; 2] = ["connect4", "connect-four"];

/// The parts of a name `"<rows>x<cols><letter><k>"`, whatever their sizes; or of
/// Connect Four by one of [`CONNECT_FOUR_NAMES`].
pub fn parse_name(s: &str) -> Option<(Family, usize, usize, usize)> {
    if CONNECT_FOUR_NAMES.iter().any(|n| n.eq_ignore_ascii_case(s)) {
        return Some((Family::Gravity, 6, 7, 4));
    }
    let (rows, rest) = s.split_once('x')?;
    let at = rest.find(|c: char| !c.is_ascii_digit())?;
    let (cols, rest) = rest.split_at(at);
    let mut chars = rest.chars();
    let letter = chars.next()?;
    let family = Family::ALL.iter().copied().find(|f| f.letter() == letter)?;
    let number = |t: &str| t.parse::<usize>().ok();
    Some((family, number(rows)?, number(cols)?, number(chars.as_str())?))
}

/// Tables derived from a game. On dense games (at most [`DENSE_CELLS`] cells) they are
/// indexed by a whole cell mask (`2^cells` entries each); on larger ones by its low
/// [`LOW_BITS`] cells and by the rest (the `*_high` tables), and a win is found from the
/// lines. Ask through [`Tables::win`], [`Tables::base3`] and [`Tables::moved`].
#[derive(Debug)]
pub(crate) struct Tables {
    /// `wins[m]`: the mask `m` contains a whole line (dense games only).
    pub wins: Vec<bool>,
    /// The winning lines (see [`Game::lines`]).
    lines: Vec<u32>,
    /// `base3[m]`: the sum of `3^i` over the cells `i` in `m` (the low part on large games).
    pub base3: Vec<u32>,
    /// The same over the high part of the mask (large games only).
    base3_high: Vec<u64>,
    /// `masks[t][m]`: the mask `m` moved by transform `t` (all 8 indices; unused ones
    /// empty; the low part on large games).
    pub masks: Vec<Vec<u32>>,
    /// The same over the high part of the mask (large games only).
    masks_high: Vec<Vec<u32>>,
}

/// The cells of the low part of a mask on games beyond [`DENSE_CELLS`] cells.
const LOW_BITS: usize = 12;

impl Tables {
    fn build(game: Game) -> Tables {
        let lines = game.lines();
        let cells = game.cells();
        let dense = game.dense();
        let low = if dense { cells } else { LOW_BITS };
        let base3_of = |m: usize, from: usize, to: usize| -> u64 {
            (from..to).filter(|i| m >> (i - from) & 1 == 1).map(|i| 3u64.pow(i as u32)).sum()
        };
        let moved_of = |t: usize, m: usize, from: usize, to: usize| -> u32 {
            (from..to).filter(|i| m >> (i - from) & 1 == 1).fold(0, |a, i| a | 1u32 << game.transform_cell(t, i))
        };
        let wins = if dense {
            (0..1usize << cells).map(|m| lines.iter().any(|&l| l & !(m as u32) == 0)).collect()
        } else {
            Vec::new()
        };
        let base3 = (0..1usize << low).map(|m| base3_of(m, 0, low) as u32).collect();
        let base3_high =
            if dense { Vec::new() } else { (0..1usize << (cells - low)).map(|m| base3_of(m, low, cells)).collect() };
        let (mut masks, mut masks_high) = (vec![Vec::new(); 8], vec![Vec::new(); 8]);
        for &t in game.transforms() {
            masks[t] = (0..1usize << low).map(|m| moved_of(t, m, 0, low)).collect();
            if !dense {
                masks_high[t] = (0..1usize << (cells - low)).map(|m| moved_of(t, m, low, cells)).collect();
            }
        }
        Tables { wins, lines, base3, base3_high, masks, masks_high }
    }

    /// True when the cell mask contains a whole line.
    #[inline(always)]
    pub fn win(&self, mask: u32) -> bool {
        if self.base3_high.is_empty() { self.wins[mask as usize] } else { self.lines.iter().any(|&l| l & !mask == 0) }
    }

    /// The sum of `3^i` over the cells `i` in the mask.
    #[inline(always)]
    pub fn base3(&self, mask: u32) -> u64 {
        if self.base3_high.is_empty() {
            u64::from(self.base3[mask as usize])
        } else {
            let low = (1 << LOW_BITS) - 1;
            u64::from(self.base3[(mask & low) as usize]) + self.base3_high[(mask >> LOW_BITS) as usize]
        }
    }

    /// The mask moved by transform `t` (one of the game's).
    #[inline(always)]
    pub fn moved(&self, t: usize, mask: u32) -> u32 {
        if self.base3_high.is_empty() {
            self.masks[t][mask as usize]
        } else {
            let low = (1 << LOW_BITS) - 1;
            self.masks[t][(mask & low) as usize] | self.masks_high[t][(mask >> LOW_BITS) as usize]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_four_by_name_is_6x7g4_in_any_case() {
        for name in ["connect4", "connect-four", "Connect4", "CONNECT-FOUR"] {
            let g = Game::parse_any(name).unwrap();
            assert_eq!(g.to_string(), "6x7g4", "{name}");
            assert!(!g.enumerable());
            assert_eq!(parse_name(name), Some((Family::Gravity, 6, 7, 4)));
        }
        // Not an enumerable game, and the refusal names the aliases.
        let e = "connect4".parse::<Game>().unwrap_err().to_string();
        assert!(e.contains("\"connect4\" or \"connect-four\" name \"6x7g4\""), "{e}");
        assert_eq!(Game::parse_any("connect5"), None);
    }

    #[test]
    fn parse_and_display_round_trip() {
        for text in ["3x3k3", "3x4k3", "4x4k4", "5x3k5", "4x3k3"] {
            let g: Game = text.parse().unwrap();
            assert_eq!(g.to_string(), text);
        }
        for bad in ["", "3x3", "3x3k", "2x3k3", "4x5k3", "3x3k4", "3x3k2", "axbkc", "3x3k3x"] {
            let e = bad.parse::<Game>().unwrap_err().to_string();
            assert!(e.contains("<rows>x<cols>k<k>") && e.contains(bad), "{e}");
        }
        // Gravity boards go to 24 cells, m,n,k-games to 16; the message says both limits.
        for good in ["4x5g4", "5x4g4", "4x5g3", "3x6g3", "6x4g4", "7x3g7", "8x3g8"] {
            assert_eq!(good.parse::<Game>().unwrap().to_string(), good);
        }
        for bad in ["5x5g4", "7x4g4", "4x6g4", "3x7g3", "3x8g3", "4x6k4", "5x4k4"] {
            let e = bad.parse::<Game>().unwrap_err().to_string();
            assert!(
                e.contains("at most 16") && e.contains("at most 24 on at most 4 columns") && e.contains(bad),
                "{e}"
            );
        }
    }

    #[test]
    fn lines_and_slots() {
        assert_eq!(Game::TIC_TAC_TOE.lines().len(), 8);
        assert_eq!("3x4k3".parse::<Game>().unwrap().lines().len(), 3 * 2 + 4 + 2 * 2);
        assert_eq!("4x4k4".parse::<Game>().unwrap().lines().len(), 10);
        let mut seen = std::collections::BTreeSet::new();
        for rows in 3..=5 {
            for cols in 3..=5 {
                for k in 3..=5 {
                    if let Some(g) = Game::new(rows, cols, k) {
                        assert!(g.slot() < SLOTS && seen.insert(g.slot()));
                    }
                }
            }
        }
        assert_eq!(seen.len(), 13);
        // Counted from the rule: sides from 3, at most the family's cells, 3 <= k <= longer side.
        let expected = |fits: fn(usize, usize) -> bool| -> usize {
            (3..=24)
                .flat_map(|r| (3..=24).map(move |c| (r, c)))
                .filter(|&(r, c)| fits(r, c))
                .map(|(r, c)| r.max(c) - 2)
                .sum()
        };
        assert_eq!(expected(|r, c| r * c <= 16), 13);
        let all = Game::all().collect::<Vec<_>>();
        let count = |f: Family| all.iter().filter(|g| g.family() == f).count();
        assert_eq!(count(Family::Mnk), 13);
        // Gravity: up to 20 cells, or 24 on at most 4 columns.
        assert_eq!(count(Family::Gravity), expected(|r, c| r * c <= 20 || (r * c <= 24 && c <= 4)));
        assert!(all.iter().all(|g| g.slot() < SLOTS));
        assert_eq!(all.iter().map(|g| g.slot()).collect::<std::collections::BTreeSet<_>>().len(), all.len());
        assert!(Game::all().all(|g| g.to_string().parse::<Game>() == Ok(g)));
    }

    #[test]
    fn transforms_are_permutations_that_keep_the_lines() {
        for g in [Game::TIC_TAC_TOE, "3x4k3".parse().unwrap(), "5x3k4".parse().unwrap()] {
            let lines: std::collections::BTreeSet<u32> = g.lines().into_iter().collect();
            for &t in g.transforms() {
                let mut image: Vec<usize> = (0..g.cells()).map(|i| g.transform_cell(t, i)).collect();
                let moved: std::collections::BTreeSet<u32> = lines.iter().map(|&l| g.tables().moved(t, l)).collect();
                assert_eq!(moved, lines, "{g} transform {t}");
                image.sort_unstable();
                assert_eq!(image, (0..g.cells()).collect::<Vec<_>>());
            }
        }
    }
}
