//! The gravity family (`"<rows>x<cols>g<k>"`, Connect-Four-style; `"6x7g4"` would be
//! Connect Four): a move is a column, and the stone drops to the lowest empty cell of that
//! column. Cells are numbered row by row from the top left as in every game (row 0 is the
//! top, so a column's lowest empty cell is its empty cell of the largest row); columns are
//! numbered 0 to `cols - 1` from the left, and a move is written as its column. Only the
//! left-right mirror keeps these rules (turning the board would turn gravity): 2 transforms.
//!
//! The legal cells come from the occupied mask by one shift: stones fill a column from the
//! bottom without gaps, so the cell above an occupied cell (`occupied >> cols`) is either
//! occupied or the column's lowest empty cell, and an empty column's lowest cell is in the
//! bottom row.

use super::{Board, Game};

/// The letter in the game's name.
pub const LETTER: char = 'g';

/// The family's name for people.
pub const NAME: &str = "gravity board";

/// The most cells of a board (6 rows by 4 columns); boards beyond 16 cells keep their
/// positions in a sorted list (see [`super::positions`]).
pub const MAX_CELLS: usize = 24;

/// The board sizes, in a clause.
pub const SIZES: &str = "rows times columns at most 20, or at most 24 on at most 4 columns";

/// Every board of at most 20 cells, and up to 24 on at most 4 columns: what the
/// positions' tables hold in under a GB (6x4g4: 15,835,683 positions, 0.8 GB to solve), and what
/// keeps MCTS's draws from one 64-bit word exact to `2^-19` (at most `cols` moves a ply).
pub fn fits(rows: usize, cols: usize) -> bool {
    rows * cols <= 20 || (rows * cols <= MAX_CELLS && cols <= 4)
}

/// What its games are, in a clause.
pub const FORM: &str = "a gravity board: a move is a column, the stone drops to its lowest empty cell";

/// The lowest empty cell of every column that is not full.
#[inline(always)]
pub fn moves(game: Game, occupied: u32) -> u32 {
    let (full, cols) = (game.full(), game.cols());
    let bottom = full ^ (full >> cols);
    ((occupied >> cols) | bottom) & !occupied & full
}

/// The marked cell is no longer a move; the cell above it (if any: `bit >> cols` is 0 in
/// the top row) is.
#[inline(always)]
pub fn after(game: Game, legal: u32, left: u32, _occupied: u32, cell: u8) -> (u32, u32) {
    let bit = 1u32 << cell;
    let above = bit >> game.cols();
    ((legal & !bit) | above, left - u32::from(above == 0))
}

/// Identity and the left-right mirror.
pub fn transforms(_game: Game) -> &'static [usize] {
    &[0, 4]
}

/// The column of the cell.
pub fn move_text(game: Game, cell: u8) -> String {
    (usize::from(cell) % game.cols()).to_string()
}

/// The cells of column `c`.
fn column(game: Game, c: usize) -> u32 {
    (0..game.rows()).fold(0, |m, r| m | 1 << (r * game.cols() + c))
}

/// A column number whose column is not full: the cell the stone drops to.
pub fn parse_move(board: Board, text: &str) -> Result<u8, String> {
    let game = board.game();
    let last = game.cols() - 1;
    match text.trim().parse::<usize>() {
        Ok(c) if c <= last => match board.moves() & column(game, c) {
            0 => Err(format!("column {c} is full; choose another column")),
            cell => Ok(cell.trailing_zeros() as u8),
        },
        _ => Err(format!("{:?} is not a column; type a number from 0 to {last}", text.trim())),
    }
}

/// Columns, from the left.
pub fn numbering(game: Game) -> String {
    format!("a column number 0-{} (from the left; the stone drops to the lowest empty cell)", game.cols() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::symmetry;

    fn game(s: &str) -> Game {
        s.parse().unwrap()
    }

    #[test]
    fn stones_drop_to_the_lowest_empty_cell() {
        let g = game("4x3g3");
        let empty = Board::empty(g);
        assert_eq!(empty.moves(), 0b111 << 9, "the bottom row");
        assert_eq!(empty.parse_move("1"), Ok(10));
        let b = empty.play(10).play(7).play(4).play(1);
        assert_eq!(b.to_string(), ".O..X..O..X.");
        assert_eq!(b.moves(), 1 << 9 | 1 << 11, "column 1 is full");
        assert!(b.parse_move("1").unwrap_err().contains("column 1 is full"));
        assert!(b.parse_move("3").unwrap_err().contains("0 to 2"));
        assert_eq!((g.move_text(9), g.move_text(1)), ("0".to_string(), "1".to_string()));
        assert_eq!(g.to_string(), "4x3g3");
        assert_eq!(g.transforms(), &[0, 4]);
        // Step by step, the moves after each move are the moves of the new board.
        let mut b = empty;
        let (mut legal, mut left) = (b.moves(), b.moves().count_ones());
        for column in ["1", "1", "0", "1", "2", "1", "2"] {
            let cell = b.parse_move(column).unwrap();
            b = b.play(cell);
            (legal, left) = g.after(legal, left, b.x() | b.o(), cell);
            assert_eq!((legal, left), (b.moves(), b.moves().count_ones()), "{b}");
        }
    }

    #[test]
    fn a_column_of_k_wins_and_play_stops() {
        let g = game("4x4g4");
        let mut b = Board::empty(g);
        for text in ["0", "1", "0", "1", "0", "1", "0"] {
            b = b.play(b.parse_move(text).unwrap());
        }
        assert_eq!(b.status(), crate::game::Status::Won(crate::game::Player::X));
        assert_eq!(b.legal_moves(), 0);
    }

    #[test]
    fn the_mirror_keeps_the_moves_and_the_positions() {
        for g in [game("3x3g3"), game("4x4g4"), game("3x5g3")] {
            let pos = g.positions();
            for id in (0..pos.len()).step_by(7) {
                let b = pos.board(id);
                let m = symmetry::apply(4, b);
                assert_eq!(g.tables().moved(4, b.moves()), m.moves(), "{b}");
                assert_eq!(pos.minimax(pos.id(m).expect("mirror images are reachable")), pos.minimax(id));
            }
        }
    }
}
