//! The node arena: the nodes and their statistics, the per-visit-count tables, and the
//! whole search of one board (reset, iterations, final move), with the steps that grow
//! the tree and carry a result back up it.

use rand::RngCore;

use super::rules::{Mask, Rules};
use super::{Draws, ONGOING};
use crate::game::Board;
use crate::seed::{self, Stream};
use crate::solvers::params::MctsParams;

/// One search node (32 bytes with 16-bit masks, 40 with 32-bit ones). `mover` is the mask
/// of the player who moved into it, `other` the mask of the player to move; `visits` and
/// `score` (half-points: win 2, draw 1, loss 0) are from the mover's view. Refreshed on
/// every backpropagation, so that selection reads everything from the nodes:
/// `mean = score / 2n` and `explore = 1 / sqrt(n)` (used by the parent's scan), and
/// `k = uct_c * sqrt(ln n)` (used by the node's own scan).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Node<M> {
    pub(super) mean: f32,
    pub(super) explore: f32,
    pub(super) k: f32,
    pub(super) visits: u32,
    pub(super) score: u32,
    /// First slot of the children block; 0 until the block exists (slot 0 is the root).
    pub(super) first: u32,
    pub(super) mover: M,
    pub(super) other: M,
    /// Legal moves that have no child yet.
    pub(super) untried: M,
    /// Children created so far (UCB nodes keep them packed at the front of the block).
    pub(super) count: u8,
    /// [`ONGOING`], or the mover's half-points when the game is over (2 win, 1 draw).
    pub(super) outcome: u8,
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
    pub(super) fn legal<R: Rules<Mask = M>>(&self, rules: R) -> u32 {
        rules.moves(self.mover.wide() | self.other.wide())
    }
}

/// The selection terms of one visit count `n`: `0.5 / n`, `1 / sqrt(n)` and `sqrt(ln n)`.
#[derive(Clone, Copy, Debug, Default)]
struct VisitTerms {
    half_inv: f32,
    inv_sqrt: f32,
    sqrt_ln: f32,
}

/// The arena of one mask width, its watermark and the per-visit-count tables.
#[derive(Clone, Debug, Default)]
pub(super) struct Tree<M> {
    /// The arena. Only `nodes[..used]` belongs to the current search; slots are written
    /// when their child is created, before anything reads them, so the arena is never
    /// cleared or re-initialised between searches.
    pub(super) nodes: Vec<Node<M>>,
    used: usize,
    terms: Vec<VisitTerms>,
}

impl<M: Mask> Tree<M> {
    /// One whole search of `board` under `rules`: the move to play.
    pub(super) fn run<R: Rules<Mask = M>>(&mut self, rules: R, params: &MctsParams, seed: u64, board: Board) -> u8 {
        self.extend_terms(params.iterations);
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

    /// Grows the tables to cover visit counts up to `iterations` (never shrinks them).
    fn extend_terms(&mut self, iterations: u32) {
        let wanted = iterations as usize + 1;
        if self.terms.len() < wanted {
            self.terms.reserve_exact(wanted - self.terms.len());
        }
        while self.terms.len() < wanted {
            let n = self.terms.len() as f64;
            let terms = if n == 0.0 {
                VisitTerms::default()
            } else {
                VisitTerms {
                    half_inv: (0.5 / n) as f32,
                    inv_sqrt: (1.0 / n.sqrt()) as f32,
                    sqrt_ln: ln(n).sqrt() as f32,
                }
            };
            self.terms.push(terms);
        }
    }

    /// The first slot of the children block of `at`, reserving the block (one slot per
    /// legal move) if it does not exist yet.
    #[inline(always)]
    pub(super) fn block<R: Rules<Mask = M>>(&mut self, rules: R, at: usize) -> usize {
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
    pub(super) fn create<R: Rules<Mask = M>>(&mut self, rules: R, at: usize, slot: usize, cell: u8) {
        let parent = &mut self.nodes[at];
        parent.untried &= !M::bit(cell);
        let (mover, other) = (parent.other.wide() | 1 << cell, parent.mover.wide());
        self.nodes[slot] = Node::new(rules, mover, other);
    }

    /// Adds one visit and the result to every node on `path`, flipping the view per ply.
    #[inline(always)]
    pub(super) fn backpropagate(&mut self, path: &[u32], mut points: u8, c: f32) {
        for &at in path.iter().rev() {
            let node = &mut self.nodes[at as usize];
            node.visits += 1;
            node.score += u32::from(points);
            let terms = self.terms[node.visits as usize];
            node.mean = node.score as f32 * terms.half_inv;
            node.explore = terms.inv_sqrt;
            node.k = c * terms.sqrt_ln;
            points = 2 - points;
        }
    }
}

/// `ln x` for `x >= 1` from basic IEEE operations only, so that every platform gets the
/// same bits: `x = m * 2^e` with `m` in `[1, 2)`, `ln m = 2 atanh((m - 1) / (m + 1))`.
pub(super) fn ln(x: f64) -> f64 {
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
