//! MCTS/UCT as an [`Agent`] on any board the search takes, so that `sweep score` can say
//! exactly how far a tree search of a given budget is from perfect play on Connect Four.
//!
//! Per position asked: `iterations` rounds of selection by UCB1 (`Q + c·sqrt(ln N / n)`,
//! each node's `Q` from the view of the player who moved into it), expansion of one
//! untried move, a uniformly random playout to the end, and backup of the result (win
//! 1, draw 0.5, loss 0). The move played is the root's most visited child (the lowest
//! move among ties). The generator of each position is seeded by the agent's seed and
//! the position's key, so the agent is a deterministic policy: the same position always
//! gets the same move, whatever order it is asked in. The same algorithm as
//! `solvers::mcts` (adversarial opponent model, final move by visits), over bitboards.
//!
//! Reference: Kocsis & Szepesvári, "Bandit based Monte-Carlo planning" (ECML 2006).

use rand::Rng as _;

use super::agent::Agent;
use super::bitboard::Position;
use crate::seed::{Rng, Stream, keyed_rng};

/// A UCT agent: its budget, exploration constant and seed.
#[derive(Clone, Debug)]
pub struct Uct {
    pub iterations: u32,
    pub uct_c: f64,
    pub seed: u64,
    nodes: Vec<Node>,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    position: Position,
    /// Index of the first child; children are contiguous, created together.
    first: u32,
    children: u8,
    /// Moves not yet expanded, as a count of `position.moves()` from the end.
    untried: u8,
    visits: u32,
    /// Sum of results from the view of the player who moved into this node.
    wins: f64,
    mv: u8,
}

impl Uct {
    pub fn new(iterations: u32, uct_c: f64, seed: u64) -> Uct {
        Uct { iterations: iterations.max(1), uct_c, seed, nodes: Vec::new() }
    }

    fn node(position: Position, mv: u8) -> Node {
        let untried = if position.is_over() { 0 } else { position.moves().len() as u8 };
        Node { position, first: 0, children: 0, untried, visits: 0, wins: 0.0, mv }
    }

    /// The move of one search from `root`.
    fn search(&mut self, root: Position) -> u8 {
        let mut rng: Rng = keyed_rng(self.seed, Stream::Search, root.key_exact());
        self.nodes.clear();
        self.nodes.push(Self::node(root, 0));
        let mut path = Vec::with_capacity(64);
        for _ in 0..self.iterations {
            path.clear();
            let mut i = 0usize;
            path.push(i);
            // Selection: down while every child is expanded.
            while self.nodes[i].untried == 0 && self.nodes[i].children > 0 {
                i = self.select(i);
                path.push(i);
            }
            // Expansion: one untried move.
            if self.nodes[i].untried > 0 {
                i = self.expand(i, &mut rng);
                path.push(i);
            }
            // Playout, scored for the player who moved into the last node.
            let result = Self::playout(self.nodes[i].position, &mut rng);
            let mut r = result;
            for &n in path.iter().rev() {
                self.nodes[n].visits += 1;
                self.nodes[n].wins += r;
                r = 1.0 - r;
            }
        }
        let root = self.nodes[0];
        let children = &self.nodes[root.first as usize..(root.first + u32::from(root.children)) as usize];
        children.iter().max_by(|a, b| a.visits.cmp(&b.visits).then(b.mv.cmp(&a.mv))).map(|c| c.mv).expect("a move")
    }

    fn select(&self, i: usize) -> usize {
        let n = self.nodes[i];
        let ln = f64::from(n.visits).ln();
        let mut best = (f64::NEG_INFINITY, 0usize);
        for c in n.first as usize..(n.first + u32::from(n.children)) as usize {
            let child = self.nodes[c];
            let v = f64::from(child.visits);
            let ucb = child.wins / v + self.uct_c * (ln / v).sqrt();
            if ucb > best.0 {
                best = (ucb, c);
            }
        }
        best.1
    }

    /// Creates the children of `i` when first expanded, and returns one untried child
    /// chosen at random.
    fn expand(&mut self, i: usize, rng: &mut Rng) -> usize {
        let moves = self.nodes[i].position.moves();
        if self.nodes[i].children == 0 {
            let first = self.nodes.len() as u32;
            let p = self.nodes[i].position;
            for &m in &moves {
                self.nodes.push(Self::node(p.play(m), m));
            }
            self.nodes[i].first = first;
            self.nodes[i].children = moves.len() as u8;
        }
        // The untried children are those with no visits; pick one of them.
        let n = self.nodes[i];
        let untried: Vec<usize> = (n.first as usize..(n.first + u32::from(n.children)) as usize)
            .filter(|&c| self.nodes[c].visits == 0)
            .collect();
        self.nodes[i].untried -= 1;
        untried[rng.random_range(0..untried.len())]
    }

    /// A random game from `p` to its end: 1 if the player who moved into `p` wins, 0.5
    /// for a draw, 0 if it loses.
    fn playout(mut p: Position, rng: &mut Rng) -> f64 {
        let mut mover_is_last = true;
        loop {
            if p.last_won() {
                return if mover_is_last { 1.0 } else { 0.0 };
            }
            if p.is_over() {
                return 0.5;
            }
            let moves = p.moves();
            p = p.play(moves[rng.random_range(0..moves.len())]);
            mover_is_last = !mover_is_last;
        }
    }
}

impl Agent for Uct {
    fn moves(&mut self, positions: &[Position]) -> Result<Vec<u8>, String> {
        Ok(positions.iter().map(|&p| self.search(p)).collect())
    }
}
