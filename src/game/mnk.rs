//! The m,n,k family (`"<rows>x<cols>k<k>"`, tic-tac-toe is `"3x3k3"`): a move marks any
//! empty cell. Cells are numbered row by row from the top left, and a move is written as
//! the cell it marks. The board keeps all 8 symmetries of the square when it is square,
//! else the 4 that keep its shape (identity, half turn, the two reflections).

use super::{Board, Game};

/// The letter in the game's name.
pub const LETTER: char = 'k';

/// The family's name for people.
pub const NAME: &str = "m,n,k-game";

/// The most cells of a board: positions are found through a dense base-3 table.
pub const MAX_CELLS: usize = 16;

/// The board sizes, in a clause.
pub const SIZES: &str = "rows times columns at most 16";

/// At most [`MAX_CELLS`] cells.
pub fn fits(rows: usize, cols: usize) -> bool {
    rows * cols <= MAX_CELLS
}

/// What its games are, in a clause.
pub const FORM: &str = "an m,n,k-game: a move marks any empty cell";

/// Any empty cell.
#[inline(always)]
pub fn moves(game: Game, occupied: u32) -> u32 {
    !occupied & game.full()
}

/// The marked cell is no longer a move; nothing else changes.
#[inline(always)]
pub fn after(_game: Game, legal: u32, left: u32, _occupied: u32, cell: u8) -> (u32, u32) {
    (legal & !(1 << cell), left - 1)
}

/// All 8 transforms on a square board, else identity, half turn and the two reflections.
pub fn transforms(game: Game) -> &'static [usize] {
    if game.rows() == game.cols() { &[0, 1, 2, 3, 4, 5, 6, 7] } else { &[0, 2, 4, 6] }
}

/// The cell number.
pub fn move_text(_game: Game, cell: u8) -> String {
    cell.to_string()
}

/// A cell number whose cell is free.
pub fn parse_move(board: Board, text: &str) -> Result<u8, String> {
    let last = board.game().cells() - 1;
    match text.trim().parse::<u8>() {
        Ok(c) if usize::from(c) <= last && board.legal_moves() & (1 << c) != 0 => Ok(c),
        Ok(c) if usize::from(c) <= last => Err(format!("cell {c} is taken; choose a free cell")),
        _ => Err(format!("{:?} is not a cell; type a number from 0 to {last}", text.trim())),
    }
}

/// Cells, row by row.
pub fn numbering(game: Game) -> String {
    format!("a cell number 0-{} (row by row from the top left)", game.cells() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_empty_cell_is_a_move_and_moves_read_back() {
        let g: Game = "3x4k3".parse().unwrap();
        let b = Board::parse_in(g, "X...O.......").unwrap();
        assert_eq!(b.moves(), g.full() & !0b1_0001);
        for c in b.legal_cells() {
            assert_eq!(b.parse_move(&g.move_text(c)), Ok(c));
        }
        assert!(b.parse_move("0").unwrap_err().contains("is taken"));
        let (legal, left) = g.after(b.moves(), b.moves().count_ones(), 0b1_0011, 1);
        assert_eq!((legal, left), (g.moves(0b1_0011), g.moves(0b1_0011).count_ones()));
        assert!(b.parse_move("12").unwrap_err().contains("0 to 11"));
    }
}
