//! The registration of the game families: `families!` declares each family's rules
//! module, the [`super::Family`] enum and the one `match` per rule that sends a question
//! about a game to its family's module.
//!
//! A family's module (`src/game/<module>.rs`) holds only its rules, as free functions of
//! the [`$crate::game::Game`] (whose `family()` is that family):
//!
//! - `LETTER: char`, the letter between the columns and `k` in the game's name,
//!   `NAME: &str`, its name for people, `FORM: &str`, what its games are in a clause, and
//!   `MAX_CELLS: usize`, the most cells of its boards (at most [`super::rules::MAX_CELLS`]),
//!   `fits(rows, cols)`, whether it allows a board of that size, and `SIZES: &str`, those
//!   sizes in a clause;
//! - `moves(game, occupied) -> u32`: the legal moves of an unfinished position as a cell
//!   mask (a move marks one cell; the family says which empty cells may be marked), and
//!   `after(game, legal, left, occupied, cell)`: the same and their number after a move,
//!   from the moves before it (what a random playout needs, step by step);
//! - `transforms(game) -> &'static [usize]`: the board symmetries its rules keep (see
//!   [`super::symmetry`]), the identity first;
//! - `move_text(game, cell)` and `parse_move(board, text)`: how a move is written and read
//!   (by people, in `play` and in policy files);
//! - `numbering(game)`: how cells and moves are numbered, in a sentence.
//!
//! What all families share (a move marks one empty cell, `k` in a row wins, a full board
//! draws, play stops at a win, the base-3 index) lives in [`super::rules`] and
//! [`super::board`]. A new family is its rules file, its tests and one line in the list in
//! `src/game/mod.rs`.

/// Declares the families: one line each, `Variant => module` (the module is the family's
/// rules file in `src/game/`, declared by this macro). This writes the `Family` enum and
/// its one `match` per rule.
macro_rules! families {
    ($($variant:ident => $module:ident),+ $(,)?) => {
        $(pub mod $module;)+

        /// A game family: the rules of moving, the board's symmetries and how moves are
        /// written (see each family's file).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Family {
            $(
                #[doc = concat!("The rules in [`", stringify!($module), "`].")]
                $variant,
            )+
        }

        impl Family {
            /// Every family, in order of registration.
            pub const ALL: &'static [Family] = &[$(Family::$variant),+];

            /// The letter between the columns and `k` in a game's name.
            pub fn letter(self) -> char {
                match self { $(Family::$variant => $module::LETTER),+ }
            }

            /// The family's name for people.
            pub fn name(self) -> &'static str {
                match self { $(Family::$variant => $module::NAME),+ }
            }

            /// The most cells a board of the family may have.
            pub fn max_cells(self) -> usize {
                match self { $(Family::$variant => $module::MAX_CELLS),+ }
            }

            /// Whether the family allows a board of `rows` × `cols` (both at least 3).
            pub fn fits(self, rows: usize, cols: usize) -> bool {
                match self { $(Family::$variant => $module::fits(rows, cols)),+ }
            }

            /// The family's board sizes, in a clause ("rows times columns at most 16").
            pub fn sizes(self) -> &'static str {
                match self { $(Family::$variant => $module::SIZES),+ }
            }

            /// What a game of the family is, in a clause ("an m,n,k-game: ...").
            pub fn form(self) -> &'static str {
                match self { $(Family::$variant => $module::FORM),+ }
            }

            /// The legal moves of an unfinished position of `game` whose cells `occupied`
            /// are taken, as a cell mask.
            #[inline(always)]
            pub(crate) fn moves(self, game: $crate::game::Game, occupied: u32) -> u32 {
                match self { $(Family::$variant => $module::moves(game, occupied)),+ }
            }

            /// The legal moves and their number after `cell`, one of `legal` (`left` of
            /// them), is marked, leaving `occupied` taken (if the game goes on).
            #[inline(always)]
            pub(crate) fn after(self, game: $crate::game::Game, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
                match self { $(Family::$variant => $module::after(game, legal, left, occupied, cell)),+ }
            }

            pub(crate) fn transforms(self, game: $crate::game::Game) -> &'static [usize] {
                match self { $(Family::$variant => $module::transforms(game)),+ }
            }

            pub(crate) fn move_text(self, game: $crate::game::Game, cell: u8) -> String {
                match self { $(Family::$variant => $module::move_text(game, cell)),+ }
            }

            pub(crate) fn parse_move(self, board: $crate::game::Board, text: &str) -> Result<u8, String> {
                match self { $(Family::$variant => $module::parse_move(board, text)),+ }
            }

            pub(crate) fn numbering(self, game: $crate::game::Game) -> String {
                match self { $(Family::$variant => $module::numbering(game)),+ }
            }
        }
    };
}
