//! Q-learning in self-play: one table plays both seats.
//!
//! The table is seen from the side to move: `Q(s,a)` is the return that the player to move
//! in position `s` expects after playing `a` (X and O are swapped when O moves; since X and
//! O positions never coincide, keying by position is the same table). Both sides pick
//! ε-greedily (greedy ties: lowest cell). After every move, the negamax update
//!
//! `Q(s,a) += alpha * (target - Q(s,a))`, `target = r` if the move ended the game (the
//! mover's reward: +1 for a win, 0 for a draw), else `-gamma * max_a' Q(s',a')`, where
//! `s'` is the position the opponent now faces.
//!
//! The sign flip is what makes O learn to win: each side's reward is its own (an update
//! that gave O's moves X's reward would teach O to lose).
//!
//! - Assumptions: two players alternate in a deterministic, fully observed zero-sum game;
//!   the states are all positions (by position id), every game starts from the empty board.
//! - Hyperparameters: those of [`q_learning`](super::q_learning) (`seat` and the opponent
//!   aside). The table, the symmetry index, the greedy scan, the schedules, the ε-greedy
//!   step and the checkpoints are the shared core's ([`tabular`](super::tabular)), run by
//!   the [`driver`](super::driver) as its self-play mode (Q-learning's `train` with
//!   `opponent = "self"`); this file holds the negamax update rule and the episode loop.
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: no single MDP's values (the opponent is the learner itself),
//!   so self-play jobs leave `q_error` empty. The table over all positions and its
//!   successors (`build`) are every learner's in self-play.
//!
//! References: Tesauro 1995 (self-play); Littman 1994 (minimax-Q / negamax values).

use rand::RngCore;

use super::layout::{LayoutKey, layout};
use super::tabular::{Exploration, QTable};
use crate::game::{Game, Status};

/// No next position: the move ended the game.
pub(super) const END: u32 = u32::MAX;

/// What each slot of the self-play table leads to, in the table's slot order.
pub(super) struct Successors {
    /// The position after the move, or [`END`].
    pub child: Vec<u32>,
    /// The mover's reward when the move ends the game.
    pub reward: Vec<f64>,
}

/// The table over all positions (the side to move plays each legal cell) and its
/// successors (shared by every self-play learner).
pub(super) fn build(game: Game, q_init: f64, symmetry: bool) -> (QTable, Successors) {
    let positions = game.positions();
    let legal = |id: usize| positions.board(id).legal_cells();
    let table = QTable::with_layout(layout(LayoutKey { game, agent: None, symmetry }), q_init);
    let mut successors = Successors { child: Vec::new(), reward: Vec::new() };
    for id in 0..positions.len() {
        let mover = positions.board(id).to_move();
        for c in legal(id) {
            let n = positions.child(id, c) as usize;
            let (child, reward) = match positions.status(n) {
                Status::Ongoing => (n as u32, 0.0),
                s => (END, s.reward(mover).expect("finished")),
            };
            successors.child.push(child);
            successors.reward.push(reward);
        }
    }
    (table, successors)
}

/// One game from the empty board (position 0): Q-learning's self-play episode.
pub(super) fn run_episode(
    table: &mut QTable,
    successors: &Successors,
    rng: &mut impl RngCore,
    exploration: Exploration,
    alpha: f64,
    gamma: f64,
) {
    let mut id = 0usize;
    let mut greedy = table.greedy(id).0;
    loop {
        let slot = table.choose(id, greedy, exploration, rng);
        let next = successors.child[slot];
        let target = if next == END {
            successors.reward[slot]
        } else {
            let (g, v) = table.greedy(next as usize);
            greedy = g;
            -gamma * v
        };
        table.update(slot, alpha, target);
        if next == END {
            return;
        }
        id = next as usize;
    }
}

#[cfg(test)]
mod tests {
    use crate::mdp::{Evaluator, Opponent, Policy, Seat};
    use crate::solvers::{QParams, ground_truth, q_learning};

    /// A long self-play schedule: 500,000 episodes, rates decaying per episode.
    pub(crate) fn schedule() -> QParams {
        QParams {
            opponent: crate::solvers::TrainOpponent::SelfPlay,
            episodes: 500_000,
            alpha: 0.5,
            alpha_decay: 0.999_99,
            alpha_min: 0.05,
            gamma: 1.0,
            epsilon: 1.0,
            epsilon_decay: 0.999_99,
            epsilon_min: 0.1,
            ..QParams::default()
        }
    }

    fn value(policy: &Policy, seat: Seat, opp: Opponent) -> (f64, f64) {
        let truth = ground_truth(crate::game::Game::TIC_TAC_TOE, seat, opp);
        let e = Evaluator::new().evaluate(&truth.mdp, |_, b| policy.get_or_first(b));
        (e.value, truth.solution.value - e.value)
    }

    #[test]
    fn self_play_learns_not_to_lose_to_minimax_in_either_seat() {
        let policy = q_learning::train(&schedule(), 1, &[], |_, _| {});
        // Measured with this schedule (seeds 0..5): value 0 against minimax in both seats;
        // regret against random 0 as X and 0.1185 as O (self-play learns safe, not
        // exploiting, play for O).
        for &seat in Seat::ALL {
            let (v, _) = value(&policy, seat, Opponent::Minimax);
            assert_eq!(v, 0.0, "{seat} against minimax");
        }
        let (_, rx) = value(&policy, Seat::X, Opponent::Random);
        assert!((-1e-12..0.01).contains(&rx), "x against random: regret {rx}");
        let (_, ro) = value(&policy, Seat::O, Opponent::Random);
        assert!((-1e-12..0.15).contains(&ro), "o against random: regret {ro}");
    }
}
