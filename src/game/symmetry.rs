//! The symmetries of the board: up to the 8 of the square (4 rotations, each with and
//! without a reflection); each family says which of them its rules keep
//! ([`Game::transforms`]: on m,n,k boards all 8 when square, else the 4 that keep the
//! shape; on gravity boards the left-right mirror only).
//!
//! A transform `t` (reflect left-right when `t >= 4`, then turn a quarter clockwise `t % 4`
//! times) sends cell `i` to [`Game::transform_cell`]; [`apply`] moves every mark that way.
//! [`canonical`] picks, among the images of a board, the one with the smallest base-3
//! index, and says which transform gets there, so that actions can be mapped too.
//! Tic-tac-toe's transforms are also compiled in as constants ([`PERM`], [`INVERSE`]).

use super::board::Board;
use super::rules::Game;

/// `PERM[t][i]`: where transform `t` sends cell `i` in tic-tac-toe. `PERM[0]` is the
/// identity.
pub const PERM: [[u8; 9]; 8] = {
    // Cell (r, c) = 3r + c. Rotation by 90 degrees clockwise: (r, c) -> (c, 2 - r).
    // Reflection: (r, c) -> (r, 2 - c).
    let mut p = [[0u8; 9]; 8];
    let mut t = 0;
    while t < 8 {
        let mut i = 0;
        while i < 9 {
            let (mut r, mut c) = (i / 3, i % 3);
            if t >= 4 {
                c = 2 - c;
            }
            let mut k = 0;
            while k < t % 4 {
                let nr = c;
                let nc = 2 - r;
                r = nr;
                c = nc;
                k += 1;
            }
            p[t][i] = (3 * r + c) as u8;
            i += 1;
        }
        t += 1;
    }
    p
};

/// `MASKS[t][m]`: the cell mask `m` moved by transform `t`.
static MASKS: [[u16; 512]; 8] = {
    let mut out = [[0u16; 512]; 8];
    let mut t = 0;
    while t < 8 {
        let mut m = 0;
        while m < 512 {
            let mut r = 0u16;
            let mut i = 0;
            while i < 9 {
                if m & (1 << i) != 0 {
                    r |= 1 << PERM[t][i];
                }
                i += 1;
            }
            out[t][m] = r;
            m += 1;
        }
        t += 1;
    }
    out
};

/// The inverse of each tic-tac-toe transform: `PERM[INVERSE[t]][PERM[t][i]] == i`.
pub const INVERSE: [usize; 8] = {
    let mut inv = [0usize; 8];
    let mut t = 0;
    while t < 8 {
        let mut u = 0;
        while u < 8 {
            let mut ok = true;
            let mut i = 0;
            while i < 9 {
                if PERM[u][PERM[t][i] as usize] as usize != i {
                    ok = false;
                }
                i += 1;
            }
            if ok {
                inv[t] = u;
            }
            u += 1;
        }
        t += 1;
    }
    inv
};

/// The board moved by transform `t` (one of its game's [`Game::transforms`]).
#[inline]
pub fn apply(t: usize, b: Board) -> Board {
    let game = b.game();
    if game == Game::TIC_TAC_TOE {
        Board::from_masks(game, u32::from(MASKS[t][b.x() as usize]), u32::from(MASKS[t][b.o() as usize]))
    } else {
        let tables = game.tables();
        Board::from_masks(game, tables.moved(t, b.x()), tables.moved(t, b.o()))
    }
}

/// The image with the smallest index among the board's symmetric images, and a transform
/// that maps `b` onto it.
///
/// ```
/// use sweep::game::{symmetry, Board};
/// let corner: Board = "X........".parse().unwrap();
/// let other: Board = "........X".parse().unwrap();
/// assert_eq!(symmetry::canonical(corner).0, symmetry::canonical(other).0);
/// ```
pub fn canonical(b: Board) -> (Board, usize) {
    let mut best = (b, 0);
    let mut best_index = b.index();
    for &t in &b.game().transforms()[1..] {
        let c = apply(t, b);
        let i = c.index();
        if i < best_index {
            best = (c, t);
            best_index = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_form_the_dihedral_group() {
        let mut seen = std::collections::BTreeSet::new();
        for t in 0..8 {
            let mut sorted = PERM[t];
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4, 5, 6, 7, 8], "transform {t} is a permutation");
            assert_eq!(PERM[t][4], 4, "the centre stays");
            assert!(seen.insert(PERM[t]), "transforms are distinct");
            for i in 0..9 {
                assert_eq!(PERM[INVERSE[t]][PERM[t][i] as usize] as usize, i);
            }
        }
        assert_eq!(PERM[0], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn transforms_keep_the_status() {
        let b: Board = "XXXOO....".parse().unwrap();
        for t in 0..8 {
            assert_eq!(apply(t, b).status(), b.status());
        }
    }

    #[test]
    fn the_compiled_tables_agree_with_the_game() {
        let g = Game::TIC_TAC_TOE;
        for t in 0..8 {
            for (i, &cell) in PERM[t].iter().enumerate() {
                assert_eq!(usize::from(cell), g.transform_cell(t, i));
            }
            assert!(g.tables().masks[t].iter().zip(MASKS[t]).all(|(&a, b)| a == u32::from(b)));
        }
        let wide: Game = "3x4k3".parse().unwrap();
        let b = Board::parse_in(wide, "XX.O........").unwrap();
        let (c, _) = canonical(b);
        assert_eq!(canonical(apply(6, b)).0, c);
        assert_eq!(c.game(), wide);
    }
}
