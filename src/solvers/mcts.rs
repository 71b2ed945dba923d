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
//! The model ([`OpponentModel`]) is matched in one place, the step choice of an iteration.
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

use rand::RngCore;

use super::params::{FinalMove, MctsParams, OpponentModel};
use crate::game::board::{FULL, is_win};
use crate::game::mnk;
use crate::game::{Board, Game};
use crate::seed::{self, Stream};

/// `outcome` of a node whose game goes on.
const ONGOING: u8 = u8::MAX;

/// Root plus at most 24 moves (a board has at most 24 cells).
const MAX_PATH: usize = crate::game::rules::MAX_CELLS + 1;

/// `KTH[mask << 4 | k]`: the cell of the `k`-th set bit (from 0) of the 9-bit `mask`.
static KTH: [u8; 512 * 16] = {
    let mut t = [0u8; 512 * 16];
    let mut m = 0;
    while m < 512 {
        let (mut k, mut cell) = (0, 0);
        while cell < 9 {
            if m & (1 << cell) != 0 {
                t[(m << 4) | k] = cell as u8;
                k += 1;
            }
            cell += 1;
        }
        m += 1;
    }
    t
};

/// `ONES[mask]`: the number of set bits of a 9-bit mask (the baseline x86-64 target has
/// no population-count instruction, and the bit-twiddling fallback is a dozen steps).
static ONES: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut m = 0;
    while m < 512 {
        t[m] = (m as u16).count_ones() as u8;
        m += 1;
    }
    t
};

/// The number of set bits of a 9-bit mask.
#[inline(always)]
fn ones(mask: u32) -> u32 {
    u32::from(ONES[(mask & u32::from(FULL)) as usize])
}

/// The cell of the `k`-th set bit of the 9-bit `mask` (`k` below the number of set bits).
#[inline(always)]
fn kth_cell(mask: u32, k: u32) -> u8 {
    // Both parts are masked into range, so the index is provably below the table's
    // length and the lookup compiles without a bounds check.
    KTH[(((mask & u32::from(FULL)) as usize) << 4) | (k as usize & 15)]
}

/// The number of set bits of a 16-bit mask: one lookup per byte.
#[inline(always)]
fn ones16(mask: u32) -> u32 {
    ones(mask & 0xFF) + ones(mask >> 8 & 0xFF)
}

/// The cell of the `k`-th set bit of a 16-bit `mask` (`k` below the number of set bits):
/// in the low byte if it has more than `k` set bits, else in the high byte.
#[inline(always)]
fn kth_cell16(mask: u32, k: u32) -> u8 {
    let in_low = ones(mask & 0xFF);
    let high = k >= in_low;
    let (byte, k) = if high { (mask >> 8 & 0xFF, k - in_low) } else { (mask & 0xFF, k) };
    kth_cell(byte, k) + 8 * u8::from(high)
}

/// The number of set bits of a 24-bit mask: one lookup per byte.
#[inline(always)]
fn ones24(mask: u32) -> u32 {
    ones(mask & 0xFF) + ones(mask >> 8 & 0xFF) + ones(mask >> 16 & 0xFF)
}

/// The cell of the `k`-th set bit of a 24-bit `mask` (`k` below the number of set bits):
/// in the first byte that has more than what is left of `k` set bits.
#[inline(always)]
fn kth_cell24(mask: u32, k: u32) -> u8 {
    let (mut byte, mut k) = (0, k);
    loop {
        let part = mask >> (8 * byte) & 0xFF;
        let here = ones(part);
        if k < here {
            return kth_cell(part, k) + 8 * byte as u8;
        }
        k -= here;
        byte += 1;
    }
}

/// A cell mask as the nodes store it: `u16` for games of up to 16 cells (every
/// m,n,k-game and the small gravity boards), so that a node is 32 bytes, two to a cache
/// line; `u32` for larger boards (40-byte nodes). The search computes in `u32` (the
/// game's rules and tables take it, and a `u16` widens to it for free) and narrows a mask
/// only when it writes a node; the width is chosen by [`Rules::Mask`].
trait Mask:
    Copy
    + Default
    + Eq
    + std::fmt::Debug
    + std::ops::BitAnd<Output = Self>
    + std::ops::Not<Output = Self>
    + std::ops::BitAndAssign
{
    /// No cell.
    const EMPTY: Self;
    /// The mask of one cell (below the width).
    fn bit(cell: u8) -> Self;
    /// The mask of a board's cells, given as a `u32` (the board fits the width).
    fn of(cells: u32) -> Self;
    /// The same cells as a `u32`.
    fn wide(self) -> u32;
}

impl Mask for u16 {
    const EMPTY: u16 = 0;

    #[inline(always)]
    fn bit(cell: u8) -> u16 {
        1 << cell
    }

    #[inline(always)]
    fn of(cells: u32) -> u16 {
        debug_assert!(cells <= u32::from(u16::MAX), "a board of more than 16 cells in 16-bit masks");
        cells as u16
    }

    #[inline(always)]
    fn wide(self) -> u32 {
        u32::from(self)
    }
}

impl Mask for u32 {
    const EMPTY: u32 = 0;

    #[inline(always)]
    fn bit(cell: u8) -> u32 {
        1 << cell
    }

    #[inline(always)]
    fn of(cells: u32) -> u32 {
        cells
    }

    #[inline(always)]
    fn wide(self) -> u32 {
        self
    }
}

/// What the search needs of a game: its mask width, its move generator (the game
/// family's rule, through [`Game::moves`]), its win test and the two mask helpers of the
/// draws. The search is generic over it, so that tic-tac-toe runs on compiled-in 9-bit
/// tables ([`TicTacToe`]), every other game of up to 16 cells on its own win table
/// ([`AnyGame`]) and larger boards on their win lines ([`WideGame`]), with one algorithm.
trait Rules: Copy {
    /// The cell masks of the boards stored in the tree's nodes (the search computes in
    /// `u32`, whatever the width stored).
    type Mask: Mask;
    /// The legal moves of an unfinished position whose cells `occupied` are taken.
    fn moves(self, occupied: u32) -> u32;
    /// The legal moves and their number after `cell`, one of `legal` (`left` of them), is
    /// marked, which leaves the cells `occupied` taken (if the game goes on).
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32);
    /// True when the cell mask holds a whole line.
    fn is_win(self, mask: u32) -> bool;
    /// The number of set bits of a cell mask.
    fn ones(self, mask: u32) -> u32;
    /// The cell of the `k`-th set bit (from 0, in cell order) of a cell mask.
    fn kth_cell(self, mask: u32, k: u32) -> u8;
}

/// Tic-tac-toe, from the compiled-in tables: no cache, no bounds checks.
#[derive(Clone, Copy, Debug)]
struct TicTacToe;

impl Rules for TicTacToe {
    type Mask = u16;

    #[inline(always)]
    fn moves(self, occupied: u32) -> u32 {
        // The m,n,k rules of a constant game: folded to `!occupied & FULL`.
        mnk::moves(Game::TIC_TAC_TOE, occupied)
    }

    #[inline(always)]
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        mnk::after(Game::TIC_TAC_TOE, legal, left, occupied, cell)
    }

    #[inline(always)]
    fn is_win(self, mask: u32) -> bool {
        is_win(mask as u16)
    }

    #[inline(always)]
    fn ones(self, mask: u32) -> u32 {
        ones(mask)
    }

    #[inline(always)]
    fn kth_cell(self, mask: u32, k: u32) -> u8 {
        kth_cell(mask, k)
    }
}

/// Any game of up to 16 cells: moves from the game's family, wins from the game's table
/// over cell masks (`2^cells` entries), set bits byte by byte.
#[derive(Clone, Copy, Debug)]
struct AnyGame {
    game: Game,
    wins: &'static [bool],
}

impl AnyGame {
    fn new(game: Game) -> AnyGame {
        assert!(game.dense(), "{game} has more cells than its win table and a 16-bit mask hold");
        AnyGame { game, wins: &game.tables().wins }
    }
}

impl Rules for AnyGame {
    type Mask = u16;

    #[inline(always)]
    fn moves(self, occupied: u32) -> u32 {
        self.game.moves(occupied)
    }

    #[inline(always)]
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        self.game.after(legal, left, occupied, cell)
    }

    #[inline(always)]
    fn is_win(self, mask: u32) -> bool {
        self.wins[mask as usize]
    }

    #[inline(always)]
    fn ones(self, mask: u32) -> u32 {
        ones16(mask)
    }

    #[inline(always)]
    fn kth_cell(self, mask: u32, k: u32) -> u8 {
        kth_cell16(mask, k)
    }
}

/// A game of 17 to 24 cells (a large gravity board): moves from the game's family, wins
/// from its lines, set bits byte by byte.
#[derive(Clone, Copy, Debug)]
struct WideGame {
    game: Game,
}

impl Rules for WideGame {
    type Mask = u32;

    #[inline(always)]
    fn moves(self, occupied: u32) -> u32 {
        self.game.moves(occupied)
    }

    #[inline(always)]
    fn after(self, legal: u32, left: u32, occupied: u32, cell: u8) -> (u32, u32) {
        self.game.after(legal, left, occupied, cell)
    }

    #[inline(always)]
    fn is_win(self, mask: u32) -> bool {
        self.game.tables().win(mask)
    }

    #[inline(always)]
    fn ones(self, mask: u32) -> u32 {
        ones24(mask)
    }

    #[inline(always)]
    fn kth_cell(self, mask: u32, k: u32) -> u8 {
        kth_cell24(mask, k)
    }
}

/// One search node (32 bytes with 16-bit masks, 40 with 32-bit ones). `mover` is the mask
/// of the player who moved into it, `other` the mask of the player to move; `visits` and
/// `score` (half-points: win 2, draw 1, loss 0) are from the mover's view. Refreshed on
/// every backpropagation, so that selection reads everything from the nodes:
/// `mean = score / 2n` and `explore = 1 / sqrt(n)` (used by the parent's scan), and
/// `k = uct_c * sqrt(ln n)` (used by the node's own scan).
#[derive(Clone, Copy, Debug, Default)]
struct Node<M> {
    mean: f32,
    explore: f32,
    k: f32,
    visits: u32,
    score: u32,
    /// First slot of the children block; 0 until the block exists (slot 0 is the root).
    first: u32,
    mover: M,
    other: M,
    /// Legal moves that have no child yet.
    untried: M,
    /// Children created so far (UCB nodes keep them packed at the front of the block).
    count: u8,
    /// [`ONGOING`], or the mover's half-points when the game is over (2 win, 1 draw).
    outcome: u8,
}

const _: () = assert!(std::mem::size_of::<Node<u16>>() == 32, "two nodes per cache line");
const _: () = assert!(std::mem::size_of::<Node<u32>>() == 40, "masks of 24 cells, 4-byte aligned");
const _: () = assert!(crate::game::rules::DENSE_CELLS <= 16, "the boards searched with 16-bit masks");

impl<M: Mask> Node<M> {
    #[inline(always)]
    fn new<R: Rules<Mask = M>>(rules: R, mover: u32, other: u32) -> Node<M> {
        // With no win on the board, no legal move means a full board.
        let legal = rules.moves(mover | other);
        let outcome = if rules.is_win(mover) {
            2
        } else if legal == 0 {
            1
        } else {
            ONGOING
        };
        let untried = if outcome == ONGOING { legal } else { 0 };
        Node { mover: M::of(mover), other: M::of(other), untried: M::of(untried), outcome, ..Node::default() }
    }

    /// The legal moves (of an unfinished node).
    #[inline(always)]
    fn legal<R: Rules<Mask = M>>(&self, rules: R) -> u32 {
        rules.moves(self.mover.wide() | self.other.wide())
    }
}

/// Where selection goes next: into an existing child, or to a child created in this
/// iteration (the leaf to simulate from). Both hold a slot.
enum Step {
    Descend(usize),
    Leaf(usize),
}

/// Per visit count `n`: `0.5 / n`, `1 / sqrt(n)` and `sqrt(ln n)`.
#[derive(Clone, Copy, Debug, Default)]
struct Row {
    half_inv: f32,
    inv_sqrt: f32,
    sqrt_ln: f32,
}

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

/// The arena of one mask width, its watermark and the per-visit-count tables.
#[derive(Clone, Debug, Default)]
struct Tree<M> {
    /// The arena. Only `nodes[..used]` belongs to the current search; slots are written
    /// when their child is created, before anything reads them, so the arena is never
    /// cleared or re-initialised between searches.
    nodes: Vec<Node<M>>,
    used: usize,
    rows: Vec<Row>,
}

impl<M: Mask> Tree<M> {
    /// One whole search of `board` under `rules`: the move to play.
    fn run<R: Rules<Mask = M>>(&mut self, rules: R, params: &MctsParams, seed: u64, board: Board) -> u8 {
        self.extend_rows(params.iterations);
        self.search(rules, params, seed, board);
        self.final_move(params.final_move)
    }

    /// Runs the iterations of one search of `board` under `rules` (its game's).
    fn search<R: Rules<Mask = M>>(&mut self, rules: R, params: &MctsParams, seed: u64, board: Board) {
        let (to_move, waiting) = match board.to_move() {
            crate::game::Player::X => (board.x(), board.o()),
            crate::game::Player::O => (board.o(), board.x()),
        };
        let root = Node::new(rules, waiting, to_move);
        match self.nodes.first_mut() {
            Some(slot) => *slot = root,
            None => self.nodes.push(root),
        }
        self.used = 1;
        let mut rng = seed::keyed_rng(seed, Stream::Search, board.index() as u64);
        let c = params.uct_c as f32;
        for _ in 0..params.iterations {
            self.iterate(rules, c, params.opponent_model, Draws(rng.next_u64()));
        }
    }

    /// See [`Searcher::root_stats`].
    fn root_stats(&self) -> Vec<(u8, u32, f64)> {
        let mut stats: Vec<(u8, u32, f64)> = self
            .root_children()
            .iter()
            .map(|n| (self.root_cell(n), n.visits, f64::from(n.score) / (2.0 * f64::from(n.visits))))
            .collect();
        stats.sort_by_key(|s| s.0);
        stats
    }

    fn root_children(&self) -> &[Node<M>] {
        match self.nodes.first() {
            Some(root) if root.first != 0 => {
                let first = root.first as usize;
                &self.nodes[first..first + usize::from(root.count)]
            }
            _ => &[],
        }
    }

    /// The cell a root child played.
    fn root_cell(&self, child: &Node<M>) -> u8 {
        (child.mover & !self.nodes[0].other).wide().trailing_zeros() as u8
    }

    /// The root child to play: most visits or best mean (compared exactly), lowest cell
    /// among ties.
    fn final_move(&self, rule: FinalMove) -> u8 {
        let mut by_cell: [Option<&Node<M>>; crate::game::rules::MAX_CELLS] = [None; crate::game::rules::MAX_CELLS];
        for child in self.root_children() {
            by_cell[usize::from(self.root_cell(child))] = Some(child);
        }
        let better = |a: &Node<M>, b: &Node<M>| match rule {
            FinalMove::Visits => a.visits > b.visits,
            FinalMove::Value => u64::from(a.score) * u64::from(b.visits) > u64::from(b.score) * u64::from(a.visits),
        };
        let mut best: Option<(u8, &Node<M>)> = None;
        // Cells in increasing order and a strict comparison: ties keep the lowest cell.
        for (cell, child) in (0u8..).zip(by_cell).filter_map(|(c, n)| Some((c, n?))) {
            if best.is_none_or(|(_, b)| better(child, b)) {
                best = Some((cell, child));
            }
        }
        let (cell, _) = best.expect("every search expands at least one root child");
        cell
    }

    /// Grows the tables to cover visit counts up to `iterations` (never shrinks them).
    fn extend_rows(&mut self, iterations: u32) {
        let wanted = iterations as usize + 1;
        if self.rows.len() < wanted {
            self.rows.reserve_exact(wanted - self.rows.len());
        }
        while self.rows.len() < wanted {
            let n = self.rows.len() as f64;
            let row = if n == 0.0 {
                Row::default()
            } else {
                Row { half_inv: (0.5 / n) as f32, inv_sqrt: (1.0 / n.sqrt()) as f32, sqrt_ln: ln(n).sqrt() as f32 }
            };
            self.rows.push(row);
        }
    }

    /// One iteration: selection, expansion, simulation, backpropagation.
    fn iterate<R: Rules<Mask = M>>(&mut self, rules: R, c: f32, model: OpponentModel, mut draws: Draws) {
        let mut path = [0u32; MAX_PATH];
        let mut depth = 0;
        let mut at = 0usize;
        let points = loop {
            path[depth] = at as u32;
            let node = self.nodes[at];
            if node.outcome != ONGOING {
                break node.outcome;
            }
            // The searching side moves at even depths, its opponent at odd ones. The one
            // place where the opponent model acts.
            let step = match model {
                OpponentModel::Random if depth % 2 == 1 => self.random_child(rules, at, &mut draws),
                OpponentModel::Random | OpponentModel::Adversarial if node.untried != M::EMPTY => {
                    Step::Leaf(self.expand(rules, at, &mut draws))
                }
                OpponentModel::Random | OpponentModel::Adversarial => Step::Descend(self.select(&node)),
            };
            depth += 1;
            match step {
                Step::Descend(child) => at = child,
                Step::Leaf(leaf) => {
                    path[depth] = leaf as u32;
                    break self.simulate(rules, leaf, &mut draws);
                }
            }
        };
        self.backpropagate(&path[..=depth], points, c);
    }

    /// The UCB1 choice among the children of a fully expanded node.
    #[inline(always)]
    fn select(&self, node: &Node<M>) -> usize {
        let k = node.k;
        let first = node.first as usize;
        let children = &self.nodes[first..first + usize::from(node.count)];
        let (mut best, mut best_score) = (0, f32::NEG_INFINITY);
        for (i, child) in children.iter().enumerate() {
            let score = child.mean + k * child.explore;
            if score > best_score {
                best = i;
                best_score = score;
            }
        }
        first + best
    }

    /// Creates one child of `at` for a uniformly drawn untried move; returns its slot.
    #[inline(always)]
    fn expand<R: Rules<Mask = M>>(&mut self, rules: R, at: usize, draws: &mut Draws) -> usize {
        let node = self.nodes[at];
        let untried = node.untried.wide();
        let cell = rules.kth_cell(untried, draws.below(rules.ones(untried)));
        let first = self.block(rules, at);
        let slot = first + usize::from(node.count);
        self.create(rules, at, slot, cell);
        self.nodes[at].count += 1;
        slot
    }

    /// The random opponent's move at `at`: into an existing child, or a leaf when the
    /// drawn move's child is created now.
    #[inline(always)]
    fn random_child<R: Rules<Mask = M>>(&mut self, rules: R, at: usize, draws: &mut Draws) -> Step {
        let node = self.nodes[at];
        let legal = node.legal(rules);
        let k = draws.below(rules.ones(legal));
        let cell = rules.kth_cell(legal, k);
        // Children of an opponent node sit at the rank of their move among the legal ones.
        let slot = self.block(rules, at) + k as usize;
        if node.untried.wide() & 1 << cell == 0 {
            return Step::Descend(slot);
        }
        self.create(rules, at, slot, cell);
        self.nodes[at].count += 1;
        Step::Leaf(slot)
    }

    /// The first slot of the children block of `at`, reserving the block (one slot per
    /// legal move) if it does not exist yet.
    #[inline(always)]
    fn block<R: Rules<Mask = M>>(&mut self, rules: R, at: usize) -> usize {
        let first = self.nodes[at].first;
        if first != 0 {
            return first as usize;
        }
        let first = self.used;
        self.used += rules.ones(self.nodes[at].legal(rules)) as usize;
        if self.used > self.nodes.len() {
            self.nodes.resize(self.used, Node::default());
        }
        self.nodes[at].first = first as u32;
        first
    }

    /// Writes the child of `at` that plays `cell` into `slot`.
    #[inline(always)]
    fn create<R: Rules<Mask = M>>(&mut self, rules: R, at: usize, slot: usize, cell: u8) {
        let parent = &mut self.nodes[at];
        parent.untried &= !M::bit(cell);
        let (mover, other) = (parent.other.wide() | 1 << cell, parent.mover.wide());
        self.nodes[slot] = Node::new(rules, mover, other);
    }

    /// The result of a uniformly random game from `leaf`, as half-points for the player
    /// who moved into it.
    #[inline(always)]
    fn simulate<R: Rules<Mask = M>>(&self, rules: R, leaf: usize, draws: &mut Draws) -> u8 {
        let node = &self.nodes[leaf];
        if node.outcome != ONGOING {
            return node.outcome;
        }
        // `a` moves next; `a_is_mover` says whether `a` is the player who moved into leaf.
        let (mut a, mut b) = (node.other.wide(), node.mover.wide());
        let mut a_is_mover = false;
        let mut legal = node.legal(rules);
        let mut left = rules.ones(legal);
        loop {
            let cell = rules.kth_cell(legal, draws.below(left));
            a |= 1 << cell;
            (legal, left) = rules.after(legal, left, a | b, cell);
            if rules.is_win(a) {
                return if a_is_mover { 2 } else { 0 };
            }
            if left == 0 {
                return 1;
            }
            std::mem::swap(&mut a, &mut b);
            a_is_mover = !a_is_mover;
        }
    }

    /// Adds one visit and the result to every node on `path`, flipping the view per ply.
    #[inline(always)]
    fn backpropagate(&mut self, path: &[u32], mut points: u8, c: f32) {
        for &at in path.iter().rev() {
            let node = &mut self.nodes[at as usize];
            node.visits += 1;
            node.score += u32::from(points);
            let row = self.rows[node.visits as usize];
            node.mean = node.score as f32 * row.half_inv;
            node.explore = row.inv_sqrt;
            node.k = c * row.sqrt_ln;
            points = 2 - points;
        }
    }
}

/// `ln x` for `x >= 1` from basic IEEE operations only, so that every platform gets the
/// same bits: `x = m * 2^e` with `m` in `[1, 2)`, `ln m = 2 atanh((m - 1) / (m + 1))`.
fn ln(x: f64) -> f64 {
    let (mut m, mut e) = (x, 0.0);
    while m >= 2.0 {
        m /= 2.0;
        e += 1.0;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let (mut term, mut sum, mut k) = (s, 0.0, 1.0);
    // |s| <= 1/3, so 30 terms are far past double precision.
    for _ in 0..30 {
        sum += term / k;
        term *= s2;
        k += 2.0;
    }
    e * std::f64::consts::LN_2 + 2.0 * sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{AgentMdp, Evaluation, Evaluator, Opponent, Seat};
    use crate::solvers::policy_iteration;

    const SEED: u64 = 2026;

    fn params(iterations: u32, opponent_model: OpponentModel, final_move: FinalMove) -> MctsParams {
        MctsParams { iterations, opponent_model, final_move, ..MctsParams::default() }
    }

    fn every_variant(iterations: u32) -> Vec<MctsParams> {
        let mut all = Vec::new();
        for model in [OpponentModel::Adversarial, OpponentModel::Random] {
            for rule in [FinalMove::Visits, FinalMove::Value] {
                all.push(params(iterations, model, rule));
            }
        }
        all
    }

    fn board(s: &str) -> Board {
        s.parse().expect("a valid board")
    }

    /// The MCTS policy of `p`, evaluated exactly in `seat` against `opponent`, with the
    /// optimal value of that MDP.
    fn evaluate(p: &MctsParams, seat: Seat, opponent: Opponent) -> (Evaluation, f64) {
        let mdp = AgentMdp::build(crate::game::Game::TIC_TAC_TOE, seat, opponent);
        let mut searcher = Searcher::new();
        let eval = Evaluator::new().evaluate(&mdp, |_, b| searcher.choose(p, SEED, b));
        (eval, policy_iteration::solve(&mdp).value)
    }

    #[test]
    fn the_same_inputs_give_the_same_search() {
        let p = params(3000, OpponentModel::Adversarial, FinalMove::Visits);
        let b = board("O.X.X....");
        let mut first = Searcher::new();
        let mv = first.choose(&p, SEED, b);
        let stats = first.root_stats();
        // A used searcher, after another search, repeats it bit for bit.
        first.choose(&p, SEED, Board::EMPTY);
        assert_eq!(first.choose(&p, SEED, b), mv);
        assert_eq!(first.root_stats(), stats);
        let mut second = Searcher::new();
        assert_eq!(second.choose(&p, SEED, b), mv);
        assert_eq!(second.root_stats(), stats);
        assert_eq!(stats.iter().map(|s| s.1).sum::<u32>(), 3000);
        // Another seed searches differently.
        second.choose(&p, SEED + 1, b);
        assert_ne!(second.root_stats(), stats);
    }

    #[test]
    fn searches_reproduce_the_pinned_root_statistics() {
        // A change here means that a search no longer reproduces earlier results bit for
        // bit: the digest covers the move and the root statistics of every variant.
        let mut searcher = Searcher::new();
        let mut bytes = Vec::new();
        for p in every_variant(500) {
            for b in [Board::EMPTY, board("O.X.X...."), board("X...O...."), board("XO..X...O")] {
                let mv = searcher.choose(&p, SEED, b);
                bytes.extend(format!("{mv} {:?}", searcher.root_stats()).bytes());
            }
        }
        assert_eq!(seed::fnv1a(&bytes), 0xd052_d40c_a7fa_1ad1);
    }

    #[test]
    fn a_one_move_win_is_taken() {
        let mut searcher = Searcher::new();
        // X wins at 2; O wins at 5 (rather than blocking X at 2).
        for (b, win) in [("XX.OO....", 2), ("XX.OO.X..", 5), ("X.O.XO...", 8)] {
            for p in every_variant(1000) {
                assert_eq!(searcher.choose(&p, SEED, board(b)), win, "{b} {p:?}");
                // A terminal child yields its exact result at every visit.
                let stats = searcher.root_stats();
                let (_, visits, mean) = stats.into_iter().find(|s| s.0 == win).expect("the winning move was expanded");
                assert!(visits > 0 && mean == 1.0, "{b} {visits} {mean}");
            }
        }
    }

    #[test]
    fn a_must_block_is_blocked() {
        let mut searcher = Searcher::new();
        // O blocks X at 2, X blocks O at 5, O blocks X at 7.
        for (b, block) in [("XX..O....", 2), ("X..OO...X", 5), ("OX..X....", 7)] {
            for rule in [FinalMove::Visits, FinalMove::Value] {
                let p = params(2000, OpponentModel::Adversarial, rule);
                assert_eq!(searcher.choose(&p, SEED, board(b)), block, "{b} {rule:?}");
            }
        }
    }

    fn game(text: &str) -> Game {
        text.parse().expect("a valid game")
    }

    #[test]
    fn a_one_move_win_is_taken_on_larger_boards() {
        let mut searcher = Searcher::new();
        // 3x4k3: X wins at 2 (O threatens 6); O wins at 6 (rather than blocking X at 2).
        // 4x4k4: X wins at 3 (O threatens 7); O wins at 7 (rather than blocking X at 3).
        let cases = [
            ("3x4k3", "XX..OO......", 2),
            ("3x4k3", "XX..OO.X....", 6),
            ("4x4k4", "XXX.OOO.........", 3),
            ("4x4k4", "XXX.OOO.X.......", 7),
        ];
        for (g, b, win) in cases {
            let b = Board::parse_in(game(g), b).expect("a valid board");
            for p in every_variant(2000) {
                assert_eq!(searcher.choose(&p, SEED, b), win, "{g} {b} {p:?}");
                let stats = searcher.root_stats();
                let (_, visits, mean) = stats.into_iter().find(|s| s.0 == win).expect("the winning move was expanded");
                assert!(visits > 0 && mean == 1.0, "{g} {b} {visits} {mean}");
            }
        }
    }

    #[test]
    fn a_must_block_is_blocked_on_larger_boards() {
        let mut searcher = Searcher::new();
        // 3x4k3: O blocks X at 2, X blocks O at 6; 4x4k4: O blocks X at 3, X blocks O at 7.
        let cases = [
            ("3x4k3", "XX....O.....", 2),
            ("3x4k3", "X...OO....X.", 6),
            ("4x4k4", "XXX.OO..........", 3),
            ("4x4k4", "XX..OOO.X.......", 7),
        ];
        for (g, b, block) in cases {
            let b = Board::parse_in(game(g), b).expect("a valid board");
            if b.game().cells() <= 12 {
                // The block is the only minimax-optimal move (checked exactly).
                let pos = b.game().positions();
                let id = pos.id(b).expect("a reachable position");
                assert_eq!(pos.optimal_moves(id), 1 << block, "{g} {b}");
            }
            for rule in [FinalMove::Visits, FinalMove::Value] {
                let p = params(5000, OpponentModel::Adversarial, rule);
                assert_eq!(searcher.choose(&p, SEED, b), block, "{g} {b} {rule:?}");
            }
        }
    }

    #[test]
    fn modelling_a_random_opponent_wins_against_one_on_3x4k3() {
        // X wins 3x4k3 with perfect play; against a uniformly random O the search, scored
        // exactly over every game the policy reaches, wins nearly always.
        let p = params(2000, OpponentModel::Random, FinalMove::Visits);
        let truth = crate::solvers::ground_truth(game("3x4k3"), Seat::X, Opponent::Random);
        let mut searcher = Searcher::new();
        let eval = Evaluator::new().evaluate(&truth.mdp, |_, b| searcher.choose(&p, SEED, b));
        println!("3x4k3, X against random: {eval:?}, optimal {}", truth.solution.value);
        assert!(eval.value >= 0.9, "{eval:?}");
    }

    #[test]
    fn the_adversarial_search_wins_3x4k3_against_minimax() {
        // X wins 3x4k3 with perfect play, and the search finds the win in every position
        // a minimax O leads to.
        let p = params(10_000, OpponentModel::Adversarial, FinalMove::Visits);
        let truth = crate::solvers::ground_truth(game("3x4k3"), Seat::X, Opponent::Minimax);
        let mut searcher = Searcher::new();
        let eval = Evaluator::new().evaluate(&truth.mdp, |_, b| searcher.choose(&p, SEED, b));
        println!("3x4k3, X against minimax: {eval:?}, optimal {}", truth.solution.value);
        assert_eq!(truth.solution.value, 1.0);
        assert_eq!(eval.value, 1.0, "{eval:?}");
    }

    #[test]
    fn tiny_searches_and_forced_moves_work() {
        let mut searcher = Searcher::new();
        for p in every_variant(1) {
            let mv = searcher.choose(&p, SEED, Board::EMPTY);
            assert_eq!(searcher.root_stats().len(), 1);
            assert_eq!(searcher.root_stats()[0].0, mv);
        }
        // One empty cell left: the only move, whatever the budget.
        for p in every_variant(5) {
            assert_eq!(searcher.choose(&p, SEED, board("XOXXOOOX.")), 8);
            assert_eq!(searcher.root_stats(), vec![(8, 5, 0.5)]);
        }
    }

    #[test]
    fn the_adversarial_search_never_loses_to_minimax() {
        let p = params(10_000, OpponentModel::Adversarial, FinalMove::Visits);
        for seat in [Seat::X, Seat::O] {
            let (eval, optimal) = evaluate(&p, seat, Opponent::Minimax);
            assert_eq!(optimal, 0.0);
            assert_eq!(eval.value, 0.0, "{seat:?} {eval:?}");
            assert_eq!(eval.p_loss, 0.0, "{seat:?} {eval:?}");
        }
    }

    #[test]
    fn modelling_a_random_opponent_pays_against_one() {
        let adversarial = params(10_000, OpponentModel::Adversarial, FinalMove::Visits);
        let random = params(10_000, OpponentModel::Random, FinalMove::Visits);
        let (a, optimal) = evaluate(&adversarial, Seat::X, Opponent::Random);
        let (r, _) = evaluate(&random, Seat::X, Opponent::Random);
        let (regret_a, regret_r) = (optimal - a.value, optimal - r.value);
        println!("regret against random as x: adversarial {regret_a:.9}, random {regret_r:.9}");
        assert!(regret_a >= -1e-12 && regret_r >= -1e-12, "{regret_a} {regret_r}");
        assert!(regret_r <= regret_a + 1e-12, "{regret_r} > {regret_a}");
        // Both open in the centre (190/192 against a random opponent; a corner is worth
        // 191/192) and play every later reached state optimally. At 10,000 iterations the
        // UCT averages at the root favour the centre under either model.
        for regret in [regret_a, regret_r] {
            assert!((regret - 1.0 / 192.0).abs() < 1e-12, "{regret}");
        }
    }

    #[test]
    fn modelling_a_random_opponent_finds_its_best_replies_once_the_tree_is_complete() {
        // Every state of O against random with four empty cells: the search tree is
        // complete after a few hundred iterations, so the model decides. Loss = how much
        // expected return the chosen move gives up against the exact optimum.
        let mdp = AgentMdp::build(crate::game::Game::TIC_TAC_TOE, Seat::O, Opponent::Random);
        let solution = policy_iteration::solve(&mdp);
        let mut searcher = Searcher::new();
        let mut loss = |p: &MctsParams| {
            let mut total = 0.0;
            for s in (0..mdp.len()).filter(|&s| mdp.board(s).pieces() == 5) {
                let cell = searcher.choose(p, SEED, mdp.board(s));
                let q = solution.action_values(&mdp, s).find(|&(c, _)| c == cell).expect("legal").1;
                assert!(solution.values[s] - q >= -1e-12);
                total += solution.values[s] - q;
            }
            total
        };
        let adversarial = loss(&params(10_000, OpponentModel::Adversarial, FinalMove::Visits));
        let random = loss(&params(10_000, OpponentModel::Random, FinalMove::Visits));
        println!("summed loss over O's four-empty states: adversarial {adversarial:.6}, random {random:.6}");
        assert!(random < 1e-9, "{random}");
        assert!(adversarial > 1.0, "{adversarial}");
    }

    #[test]
    fn batched_draws_are_mixed_radix_digits() {
        let mut rng = seed::keyed_rng(SEED, Stream::Search, 0);
        for _ in 0..1000 {
            let word = rng.next_u64();
            let ranges = [9u32, 8, 7, 6, 5, 4, 3, 2, 1];
            let mut draws = Draws(word);
            let mut number = 0u128;
            for &n in &ranges {
                let k = draws.below(n);
                assert!(k < n);
                number = number * u128::from(n) + u128::from(k);
            }
            assert_eq!(number, (u128::from(word) * 362_880) >> 64);
        }
    }

    #[test]
    fn the_general_rules_search_tic_tac_toe_exactly_as_its_own_tables_do() {
        // The same search through the game's win table and the 16-bit helpers: the fast
        // path is only a faster form of the same rules.
        let general = AnyGame::new(Game::TIC_TAC_TOE);
        for p in every_variant(500) {
            for b in [Board::EMPTY, board("O.X.X...."), board("XO..X...O")] {
                let mut searcher = Searcher::new();
                let mv = searcher.choose(&p, SEED, b);
                let stats = searcher.root_stats();
                let mut tree = Tree::<u16>::default();
                assert_eq!((tree.run(general, &p, SEED, b), tree.root_stats()), (mv, stats), "{b} {p:?}");
            }
        }
    }

    #[test]
    fn the_mask_width_does_not_change_a_search() {
        // Boards of up to 16 cells are searched in 16-bit masks (32-byte nodes); the same
        // search in 32-bit masks, through the rules of the boards beyond 16 cells (win
        // lines, 24-bit helpers), gives the same move and root statistics.
        let boards = [
            ("3x3k3", "O.X.X...."),
            ("3x4k3", "X...OO....X."),
            ("4x4k4", "XXX.OO.........."),
            ("4x4g4", "................"),
            ("3x5g3", "..........X.O.X"),
        ];
        for (g, b) in boards {
            let game = game(g);
            let b = Board::parse_in(game, b).expect("a valid board");
            for p in every_variant(300) {
                let mut searcher = Searcher::new();
                let mv = searcher.choose(&p, SEED, b);
                let mut wide = Tree::<u32>::default();
                assert_eq!(
                    (wide.run(WideGame { game }, &p, SEED, b), wide.root_stats()),
                    (mv, searcher.root_stats()),
                    "{g} {b} {p:?}"
                );
            }
        }
    }

    #[test]
    fn sixteen_bit_helpers_are_right() {
        for mask in 0..=u32::from(u16::MAX) {
            let cells: Vec<u8> = crate::game::cells(mask).collect();
            assert_eq!(ones16(mask), mask.count_ones());
            for (k, &cell) in cells.iter().enumerate() {
                assert_eq!(kth_cell16(mask, k as u32), cell);
            }
        }
    }

    #[test]
    fn twenty_four_bit_helpers_are_right() {
        // Every 16-bit mask shifted to each byte boundary, and a spread of full-width ones.
        let spread = (0..4096u32).map(|i| i.wrapping_mul(0x9E37_79B9) >> 8);
        for mask in (0..=u32::from(u16::MAX)).flat_map(|m| [m, m << 8]).chain(spread) {
            let cells: Vec<u8> = crate::game::cells(mask).collect();
            assert_eq!(ones24(mask), mask.count_ones());
            for (k, &cell) in cells.iter().enumerate() {
                assert_eq!(kth_cell24(mask, k as u32), cell);
            }
        }
    }

    #[test]
    fn tables_are_right() {
        for x in [1.0, 2.0, 3.0, 10.0, 1234.0, 1e6, 4e9] {
            assert!((ln(x) - f64::ln(x)).abs() <= 1e-14 * f64::ln(x).max(1.0), "{x}");
        }
        for mask in 0..512u32 {
            let cells: Vec<u8> = crate::game::cells(mask).collect();
            for (k, &cell) in cells.iter().enumerate() {
                assert_eq!(kth_cell(mask, k as u32), cell);
                assert_eq!(ones(mask), mask.count_ones());
            }
        }
    }
}
