//! One iteration of the search: selection (UCB1, or the random opponent's uniform reply),
//! expansion of one child and a uniformly random simulation, whose result the arena
//! carries back up the path ([`Tree::backpropagate`]).

use super::rules::{Mask, Rules};
use super::tree::{Node, Tree};
use super::{Draws, MAX_PATH, ONGOING};
use crate::solvers::params::OpponentModel;

/// Where selection goes next: into an existing child, or to a child created in this
/// iteration (the leaf to simulate from). Both hold a slot.
enum Step {
    Descend(usize),
    Leaf(usize),
}

impl<M: Mask> Tree<M> {
    /// One iteration: selection, expansion, simulation, backpropagation.
    pub(super) fn iterate<R: Rules<Mask = M>>(&mut self, rules: R, c: f32, model: OpponentModel, mut draws: Draws) {
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
}
