//! Monte Carlo tree search with UCT: one fresh search per move, for the side to move.
//!
//! # Algorithm
//!
//! UCT (Kocsis & Szepesvári 2006), in the form surveyed by Browne et al. (2012). Each of
//! the `iterations` iterations of a search does four steps from the root (the position
//! to move in):
//!
//! 1. **Selection.** While the node is not terminal and every legal move already has a
//!    child, descend to the child with the largest UCB1 score
//!    `mean + uct_c * sqrt(ln N) / sqrt(n)`, where `n` is the child's visits, `N` the
//!    node's visits and `mean` the child's mean reward. Ties go to the child expanded
//!    first.
//! 2. **Expansion.** At the first node with untried moves, create exactly one child: the
//!    untried move is drawn uniformly from the search's generator, so the children of a
//!    node are expanded in a seeded random order.
//! 3. **Simulation.** From the new child, play uniformly random moves until the game ends
//!    (nothing to play when the child is already terminal).
//! 4. **Backpropagation.** Every node on the path gains one visit and the result.
//!
//! Rewards lie in `[0, 1]`: win 1, draw 0.5, loss 0, so `uct_c = 1.414` (about
//! `sqrt(2)`) is the textbook constant. Each node keeps its statistics from the view of
//! the player who moved into it, so every node picks the child that is best for the side
//! to move there (negamax-style UCT). The move played (`final_move`) is the root child
//! with the most visits (`visits`) or the best mean (`value`), ties to the lowest cell.
//!
//! # Opponent model
//!
//! - `adversarial`: the rule above at every node; the search approximates minimax play.
//! - `random`: at nodes where the opponent is to move, selection ignores UCB and draws a
//!   legal move uniformly. If that move has no child yet, the child is created (this
//!   iteration's expansion) and simulated from; otherwise the search descends into it.
//!   Every visit to an opponent node thus continues through a uniformly random reply, so
//!   the mean of the agent's child estimates the expected reward against a uniformly
//!   random opponent (expectimax rather than minimax). The agent's own nodes still use
//!   UCB and the one-child-per-iteration rule.
//!
//! The model ([`OpponentModel`](super::OpponentModel)) is matched in one place, the step choice of an iteration.
//!
//! # Assumptions and stopping rule
//!
//! Two players alternate, the game is deterministic, fully observed and ends when the
//! board is full: any game of [`Game`] (moves from its family), at most 24 cells, so a game lasts at most
//! 24 moves and a path holds at most 25 nodes. The game is read off the
//! board searched. The root must not be terminal. A search stops after exactly
//! `iterations` iterations; nothing is kept between moves.
//!
//! # Hyperparameters
//!
//! `iterations` (per move, >= 1), `uct_c` (>= 0), `opponent_model`, `final_move` (see
//! [`MctsParams`]). The seat is not used here: the side to move is read off the board.
//!
//! # Determinism and randomness
//!
//! A search is a pure function of (params, seed, board): its generator is
//! `keyed_rng(seed, Stream::Search, board.index())`, and each iteration takes exactly
//! one 64-bit word from it. All the iteration's draws (the expansion, the random
//! opponent's replies, every simulated move) are taken from that word by repeated
//! multiply-shift: drawing `k < n` is `(hi, lo) = w * n` in 128 bits, `k = hi`, `w = lo`
//! (Lemire's multiply-shift, batched). After draws of ranges `n1..nj` the digits are
//! exactly the mixed-radix digits of `floor(w0 * n1 * .. * nj / 2^64)`, and at most one
//! draw happens per ply with a range no larger than the number of legal moves, so the
//! product is at most `cells!` on m,n,k-games (`9! < 2^19` in tic-tac-toe, `16! < 2^45`
//! on 16 cells) and below `2^45` on every allowed gravity board too (a ply has at most
//! `cols` moves: 6x4 is at most `4^20 * 4! < 2^45`, 4x5 `5^15 * 5! < 2^42`). Each sequence
//! of draws therefore has probability within `2^-64` of its exact value
//! `1 / (n1 * .. * nj)`: a relative bias below `9! / 2^64 < 2^-45` in tic-tac-toe and
//! `2^-19` (about one in a million) on the largest boards, far below any Monte Carlo
//! error.
//!
//! Statistics are kept as integers (visits and half-points), so root statistics and the
//! final move are exact. The UCB score is computed in `f32` from tables of `1 / n`,
//! `1 / sqrt(n)` and `sqrt(ln n)` built with basic IEEE operations only (`ln` by a fixed
//! series, not the platform's math library), so every machine computes the same bits.
//!
//! # Performance
//!
//! Nodes live in one arena reused across searches: a search resets a watermark instead
//! of freeing or clearing it, and a slot is written when its child is created, before
//! anything reads it, so after the first search nothing is allocated or re-initialised.
//! The children of a node form one contiguous block, reserved (one slot per legal move)
//! when its first child is created: packed in expansion order at UCB nodes, at the rank
//! of their move among the legal ones at random-opponent nodes. Boards are two cell masks,
//! computed in `u32` and stored in the nodes as wide as the board needs: `u16` on boards
//! of up to 16 cells (every m,n,k-game and the gravity boards of up to 16 cells), where a
//! node is 32 bytes and two share a cache line, and `u32` on larger boards (gravity
//! boards of 17 to 24 cells), where it is 40 bytes; a [`Searcher`] keeps one arena per
//! width. (With 40-byte nodes on every board, tic-tac-toe's mid-game searches ran about
//! 7% slower; computing in `u16` as well cost the playouts 3-7%.) The search is generic
//! over the game's rules (a private trait: the mask width, the move generator, the win
//! test, the number of set bits and the `k`-th set bit of a mask), so there is one
//! algorithm with three instances: tic-tac-toe runs on compiled-in 9-bit tables (wins from
//! [`crate::game::board::is_win`], set bits and the `k`-th set bit from tables of 512
//! masks), every other game of up to 16 cells on its own win table over cell masks
//! (`2^cells` entries, built once per game) and the same 9-bit tables applied to each
//! byte of the mask, and larger boards on their win lines and the byte tables over three
//! bytes. All give the same moves on the same board (tests check tic-tac-toe under the
//! any-game instance, and boards of up to 16 cells in both widths). Backpropagation
//! refreshes each node's `mean`, `1 / sqrt(n)` and `uct_c * sqrt(ln n)` from the
//! per-visit-count tables, so the selection scan reads only the node and its children
//! (one bounds check per node, none per child) and does one multiply-add and one compare
//! per child, with no `ln`, `sqrt` or division.

//! # References
//!
//! - L. Kocsis and C. Szepesvári, "Bandit based Monte-Carlo planning", ECML 2006.
//! - C. Browne et al., "A survey of Monte Carlo tree search methods", IEEE Trans.
//!   Computational Intelligence and AI in Games 4(1), 2012.
//! - D. Lemire, "Fast random integer generation in an interval", ACM TOMACS 29(1), 2019.

mod final_move;
mod iteration;
mod rules;
mod tree;

#[cfg(test)]
mod tests;

use super::params::MctsParams;
use crate::game::{Board, Game};
use rules::{AnyGame, TicTacToe, WideGame};
use tree::Tree;

/// `outcome` of a node whose game goes on.
const ONGOING: u8 = u8::MAX;

/// Root plus at most 24 moves (a board has at most 24 cells).
const MAX_PATH: usize = crate::game::rules::MAX_CELLS + 1;

/// The 64-bit word of one iteration, from which its draws are taken (see the module doc).
struct Draws(u64);

impl Draws {
    /// A number in `0..n`, `1 <= n <= 24`.
    #[inline(always)]
    fn below(&mut self, n: u32) -> u32 {
        let wide = u128::from(self.0) * u128::from(n);
        self.0 = wide as u64;
        (wide >> 64) as u32
    }
}

/// Reusable buffers for MCTS: a node arena and per-visit-count tables for each mask
/// width, used by the searches of boards of that width.
///
/// ```
/// use sweep::game::Board;
/// use sweep::solvers::MctsParams;
/// use sweep::solvers::mcts::Searcher;
///
/// let mut searcher = Searcher::new();
/// let params = MctsParams { iterations: 2000, ..MctsParams::default() };
/// // X to move can win at cell 2.
/// let board: Board = "XX.OO....".parse().unwrap();
/// assert_eq!(searcher.choose(&params, 7, board), 2);
/// let stats = searcher.root_stats();
/// assert_eq!(stats.iter().map(|s| s.1).sum::<u32>(), 2000);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Searcher {
    /// Boards of up to 16 cells.
    narrow: Tree<u16>,
    /// Boards of 17 to 24 cells.
    wide: Tree<u32>,
    /// Whether the last search was on a board of more than 16 cells.
    last_wide: bool,
}

impl Searcher {
    /// Empty buffers; they grow to the largest search run and are then reused.
    pub fn new() -> Searcher {
        Searcher::default()
    }

    /// Searches `board` (not terminal) with `params.iterations` iterations and returns the
    /// cell to play. A deterministic function of `(params, seed, board)`.
    pub fn choose(&mut self, params: &MctsParams, seed: u64, board: Board) -> u8 {
        assert!(!board.is_terminal(), "no move to search in the finished game {board}");
        assert!(params.iterations >= 1, "a search needs at least one iteration");
        let game = board.game();
        self.last_wide = !game.dense();
        match game {
            Game::TIC_TAC_TOE => self.narrow.run(TicTacToe, params, seed, board),
            game if !self.last_wide => self.narrow.run(AnyGame::new(game), params, seed, board),
            game => self.wide.run(WideGame { game }, params, seed, board),
        }
    }

    /// The root's children after the last search, in cell order: (cell, visits, mean
    /// reward in `[0, 1]` from the searching side's view). Moves never expanded are left
    /// out. Empty before the first search.
    pub fn root_stats(&self) -> Vec<(u8, u32, f64)> {
        if self.last_wide { self.wide.root_stats() } else { self.narrow.root_stats() }
    }
}
