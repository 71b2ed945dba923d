//! The root's statistics and the final-move rule: the root child played is the one with
//! the most visits or the best mean, the lowest cell among ties.

use super::rules::Mask;
use super::tree::{Node, Tree};
use crate::solvers::params::FinalMove;

impl<M: Mask> Tree<M> {
    /// See [`Searcher::root_stats`](super::Searcher::root_stats).
    pub(super) fn root_stats(&self) -> Vec<(u8, u32, f64)> {
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
    pub(super) fn final_move(&self, rule: FinalMove) -> u8 {
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
}
