//! Every position of a game reachable from the empty board, with dense ids, the move table
//! and minimax values, computed once per game ([`Positions::of`], a cache keyed by the game).
//!
//! Ids are `u32` (4x4k4 has 9,722,011 positions), given in order of the number of marks
//! (then base-3 index), so every move goes from a smaller id to a larger one: iterating ids
//! backwards is a reverse topological order of the game graph, which is what the exact
//! dynamic programs need.

use std::sync::OnceLock;

use super::board::{Board, Player, Status};
use super::rules::{Game, SLOTS};
use super::symmetry;

/// No position (an illegal move, or an index that no game reaches).
pub const NONE: u32 = u32::MAX;

/// The `result` of a game that goes on.
const ONGOING: i8 = i8::MIN;

/// The reachable positions and everything derived from them.
#[derive(Debug)]
pub struct Positions {
    game: Game,
    /// The game's cell count: the stride of `next`.
    cells: usize,
    boards: Vec<Board>,
    by_index: Vec<u32>,
    /// `next[id * cells + cell]`: the position after playing `cell`, or [`NONE`].
    next: Vec<u32>,
    status: Vec<Status>,
    /// X's reward in a finished game (+1, 0, -1), or [`ONGOING`].
    result: Vec<i8>,
    minimax: Vec<i8>,
    class: Vec<u32>,
    classes: usize,
}

impl Game {
    /// The positions of this game: [`Positions::of`].
    pub fn positions(self) -> &'static Positions {
        Positions::of(self)
    }
}

impl Positions {
    /// The table of `game`, built on first use (about a millisecond for tic-tac-toe) and
    /// shared afterwards; one per game.
    pub fn of(game: Game) -> &'static Positions {
        static CACHE: [OnceLock<Positions>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        CACHE[game.slot()].get_or_init(|| Positions::build(game))
    }

    fn build(game: Game) -> Positions {
        let empty = Board::empty(game);
        let mut seen = vec![false; game.index_space()];
        let mut boards = Vec::new();
        let mut stack = vec![empty];
        seen[empty.index()] = true;
        while let Some(b) = stack.pop() {
            boards.push(b);
            for c in b.legal_cells() {
                let n = b.play(c);
                if !seen[n.index()] {
                    seen[n.index()] = true;
                    stack.push(n);
                }
            }
        }
        boards.sort_by_key(|b| (b.pieces(), b.index()));
        let mut by_index = vec![NONE; game.index_space()];
        for (id, b) in boards.iter().enumerate() {
            by_index[b.index()] = id as u32;
        }
        let (n, cells) = (boards.len(), game.cells());
        let mut next = vec![NONE; n * cells];
        let status: Vec<Status> = boards.iter().map(|b| b.status()).collect();
        for (id, b) in boards.iter().enumerate() {
            for c in b.legal_cells() {
                next[id * cells + c as usize] = by_index[b.play(c).index()];
            }
        }
        let mut minimax = vec![0i8; n];
        for id in (0..n).rev() {
            minimax[id] = match status[id] {
                Status::Won(Player::X) => 1,
                Status::Won(Player::O) => -1,
                Status::Draw => 0,
                Status::Ongoing => {
                    let children = next[id * cells..(id + 1) * cells].iter().filter(|&&c| c != NONE);
                    let values = children.map(|&c| minimax[c as usize]);
                    match boards[id].to_move() {
                        Player::X => values.max().expect("an ongoing game has a move"),
                        Player::O => values.min().expect("an ongoing game has a move"),
                    }
                }
            };
        }
        let mut class_of_canonical = vec![NONE; game.index_space()];
        let mut classes = 0usize;
        let mut class = vec![0u32; n];
        for (id, b) in boards.iter().enumerate() {
            let ci = symmetry::canonical(*b).0.index();
            if class_of_canonical[ci] == NONE {
                class_of_canonical[ci] = classes as u32;
                classes += 1;
            }
            class[id] = class_of_canonical[ci];
        }
        let result = status
            .iter()
            .map(|s| match s {
                Status::Ongoing => ONGOING,
                Status::Draw => 0,
                Status::Won(Player::X) => 1,
                Status::Won(Player::O) => -1,
            })
            .collect();
        Positions { game, cells, boards, by_index, next, status, result, minimax, class, classes }
    }

    /// The game these are the positions of.
    pub fn game(&self) -> Game {
        self.game
    }

    /// How many positions there are (5478 in tic-tac-toe).
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    /// Never true: the empty board is always there.
    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    /// The board with this id.
    #[inline(always)]
    pub fn board(&self, id: usize) -> Board {
        self.boards[id]
    }

    /// All boards, by id.
    pub fn boards(&self) -> &[Board] {
        &self.boards
    }

    /// The id of a board, or `None` if no game reaches it. Panics if the board belongs
    /// to another game.
    #[inline(always)]
    pub fn id(&self, b: Board) -> Option<usize> {
        assert!(b.game() == self.game, "a {} board among the positions of {}", b.game(), self.game);
        match self.by_index[b.index()] {
            NONE => None,
            id => Some(id as usize),
        }
    }

    /// The id after playing `cell` in position `id`, or [`NONE`] if the move is illegal.
    #[inline(always)]
    pub fn child(&self, id: usize, cell: u8) -> u32 {
        self.next[id * self.cells + cell as usize]
    }

    /// Win, draw or still going, by id.
    #[inline(always)]
    pub fn status(&self, id: usize) -> Status {
        self.status[id]
    }

    /// The reward of `player` if the game in position `id` is over (+1, 0, -1), else `None`:
    /// [`Status::reward`] by table lookup.
    #[inline(always)]
    pub fn reward(&self, id: usize, player: Player) -> Option<f64> {
        match self.result[id] {
            ONGOING => None,
            r if player == Player::X => Some(f64::from(r)),
            r => Some(-f64::from(r)),
        }
    }

    /// The game value for X under optimal play by both sides: +1, 0 or -1.
    #[inline(always)]
    pub fn minimax(&self, id: usize) -> i8 {
        self.minimax[id]
    }

    /// The minimax-optimal moves of the side to move, as a cell mask.
    pub fn optimal_moves(&self, id: usize) -> u16 {
        let b = self.boards[id];
        let sign = if b.to_move() == Player::X { 1 } else { -1 };
        let best = self.minimax[id] * sign;
        let mut mask = 0;
        for c in b.legal_cells() {
            if self.minimax[self.child(id, c) as usize] * sign == best {
                mask |= 1 << c;
            }
        }
        mask
    }

    /// The symmetry class of a position, in `0..classes()`.
    #[inline(always)]
    pub fn class(&self, id: usize) -> usize {
        self.class[id] as usize
    }

    /// How many positions there are up to the game's symmetries (765 in tic-tac-toe).
    pub fn classes(&self) -> usize {
        self.classes
    }
}

/// How many complete games there are, split by result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GameCounts {
    /// Games X wins.
    pub x_wins: u64,
    /// Games O wins.
    pub o_wins: u64,
    /// Drawn games.
    pub draws: u64,
}

impl GameCounts {
    /// All games.
    pub fn total(&self) -> u64 {
        self.x_wins + self.o_wins + self.draws
    }
}

/// Counts every distinct move sequence from the empty board to the end of the game.
pub fn count_games(game: Game) -> GameCounts {
    let pos = game.positions();
    let mut counts = vec![GameCounts::default(); pos.len()];
    for id in (0..pos.len()).rev() {
        counts[id] = match pos.status(id) {
            Status::Won(Player::X) => GameCounts { x_wins: 1, ..Default::default() },
            Status::Won(Player::O) => GameCounts { o_wins: 1, ..Default::default() },
            Status::Draw => GameCounts { draws: 1, ..Default::default() },
            Status::Ongoing => {
                let mut sum = GameCounts::default();
                for c in pos.board(id).legal_cells() {
                    let k = counts[pos.child(id, c) as usize];
                    sum.x_wins += k.x_wins;
                    sum.o_wins += k.o_wins;
                    sum.draws += k.draws;
                }
                sum
            }
        };
    }
    counts[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_counts_match_the_known_figures() {
        let pos = Game::TIC_TAC_TOE.positions();
        assert_eq!(pos.len(), 5478);
        let terminal = (0..pos.len()).filter(|&i| pos.status(i) != Status::Ongoing).count();
        assert_eq!(pos.len() - terminal, 4520);
        assert_eq!(terminal, 958);
        let count = |s: Status| (0..pos.len()).filter(|&i| pos.status(i) == s).count();
        assert_eq!(count(Status::Won(Player::X)), 626);
        assert_eq!(count(Status::Won(Player::O)), 316);
        assert_eq!(count(Status::Draw), 16);
        assert_eq!(pos.classes(), 765);
    }

    #[test]
    fn game_counts_match_the_known_figures() {
        let g = count_games(Game::TIC_TAC_TOE);
        assert_eq!(g.total(), 255_168);
        assert_eq!((g.x_wins, g.o_wins, g.draws), (131_184, 77_904, 46_080));
    }

    #[test]
    fn the_game_is_a_draw_and_symmetric_positions_agree() {
        let pos = Game::TIC_TAC_TOE.positions();
        assert_eq!(pos.minimax(0), 0);
        for id in 0..pos.len() {
            let b = pos.board(id);
            for t in 0..8 {
                let other = pos.id(symmetry::apply(t, b)).expect("images are reachable");
                assert_eq!(pos.minimax(other), pos.minimax(id));
                assert_eq!(pos.class(other), pos.class(id));
            }
        }
        // Every first move draws under optimal play.
        assert_eq!(pos.optimal_moves(0), 0x1FF);
    }

    #[test]
    fn two_games_coexist() {
        let wide: Game = "3x4k3".parse().unwrap();
        let (small, large) = (Game::TIC_TAC_TOE.positions(), wide.positions());
        assert_eq!((small.len(), large.len()), (5478, 111_973));
        assert_eq!((small.game(), large.game()), (Game::TIC_TAC_TOE, wide));
        // Tic-tac-toe is a draw; on 3 × 4 with three in a row the first player wins.
        assert_eq!((small.minimax(0), large.minimax(0)), (0, 1));
        assert!(std::ptr::eq(Positions::of(wide), large), "one table per game");
        // Tic-tac-toe's figures hold with the other game's table in the same process.
        let count = |s: Status| (0..small.len()).filter(|&i| small.status(i) == s).count();
        assert_eq!(count(Status::Ongoing), 4520);
        assert_eq!((count(Status::Won(Player::X)), count(Status::Won(Player::O)), count(Status::Draw)), (626, 316, 16));
        assert_eq!(small.classes(), 765);
        let g = count_games(Game::TIC_TAC_TOE);
        assert_eq!((g.total(), g.x_wins, g.o_wins, g.draws), (255_168, 131_184, 77_904, 46_080));
        for id in (0..large.len()).step_by(97) {
            let b = large.board(id);
            assert_eq!(large.id(b), Some(id));
            for &t in wide.transforms() {
                let other = large.id(symmetry::apply(t, b)).expect("images are reachable");
                assert_eq!(large.minimax(other), large.minimax(id));
                assert_eq!(large.class(other), large.class(id));
            }
        }
    }

    #[test]
    fn ids_are_topological() {
        let pos = Game::TIC_TAC_TOE.positions();
        for id in 0..pos.len() {
            for c in pos.board(id).legal_cells() {
                assert!(pos.child(id, c) as usize > id);
            }
        }
    }
}
