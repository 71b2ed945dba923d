//! Watkins's Q(lambda): Q-learning whose update also reaches back to the earlier moves of
//! the game, by their eligibility, against a fixed opponent or in self-play.
//!
//! Algorithm (Watkins 1989, ch. 7; Sutton & Barto 1998, §7.6): Q-learning's move choice,
//! target and step, `delta = target - Q(s,a)` with `target = r` if the game ended, else
//! `gamma * max_a' Q(s',a')`; then every earlier move `(s_i, a_i)` of the game since the
//! last exploratory move also takes `Q(s_i,a_i) += alpha * delta * e_i`, where its
//! eligibility `e_i = (gamma * lambda)^k` fades by `gamma * lambda` with each of the agent's
//! moves `k` after it. An exploratory move (one whose value is below the position's
//! greedy value) cuts the traces: the return after it is not the greedy policy's, which
//! Q(lambda) estimates. A position never repeats within a game, so accumulating and
//! replacing traces are the same here.
//!
//! In self-play the table is seen from the side to move (as in
//! [`self_play`](super::self_play)): `target = -gamma * max_a' Q(s',a')`, and the trace of a
//! move fades by `-gamma * lambda` per move after it, the sign flipping with the side, since
//! each move's return is the negation of the reply's.
//!
//! - Assumptions: those of [`q_learning`](super::q_learning) or of
//!   [`self_play`](super::self_play).
//! - Hyperparameters: Q-learning's, and `lambda` in [0, 1]. The draws are Q-learning's (one
//!   per decision, one per opponent reply), in the same order; with `lambda = 0` every
//!   trace is cut after its own update, and the learner is Q-learning, value for value (a
//!   test checks the tables bit for bit).
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: Q* of the agent MDP under the learner's own `gamma`, as for
//!   Q-learning (the traces are cut where the behaviour leaves the greedy policy).
//!
//! The traces and the step that reaches back are those of `solvers/traces.rs`: no
//! allocation inside an episode. References: Watkins 1989; Sutton & Barto 1998, §7.6;
//! Sutton & Barto 2018, §12.10.

use super::driver::outcome;
use super::params::QLambdaParams;
use super::self_play::{END, Successors};
use super::tabular::{Checkpoint, Exploration, QTable, Trained};
use super::traces::{self, Games, Traces, learn};
use crate::mdp::AgentMdp;
use crate::seed;

/// Trains Q(lambda) against `params.learner.opponent` (a fixed one or itself); calls
/// `checkpoint` after each listed episode.
pub fn train(
    params: &QLambdaParams,
    seed: u64,
    checkpoints: &[u64],
    checkpoint: impl FnMut(Checkpoint, &QTable),
) -> Trained {
    traces::train::<QLambda>(&params.learner, params.lambda, seed, checkpoints, checkpoint)
}

/// Q(lambda)'s games.
struct QLambda;

/// Before a move is played: the earlier moves' traces fade by `fade`, or end when the move
/// is exploratory (its value below the position's greedy value `best`) or `fade` is 0.
#[inline(always)]
fn before_move(table: &QTable, slot: usize, best: f64, fade: f64, traces: &mut Traces) {
    if fade == 0.0 || table.value(slot) < best {
        traces.clear();
    } else {
        traces.iter_mut().for_each(|t| t.1 *= fade);
    }
}

impl Games for QLambda {
    /// One game against the fixed opponent from agent state `s`.
    #[inline]
    fn fixed(
        table: &mut QTable,
        mdp: &AgentMdp,
        rng: &mut seed::Rng,
        mut s: usize,
        exploration: Exploration,
        alpha: f64,
        gamma: f64,
        fade: f64,
        traces: &mut Traces,
    ) {
        traces.clear();
        let (mut greedy, mut best) = table.greedy(s);
        loop {
            let slot = table.choose(s, greedy, exploration, rng);
            before_move(table, slot, best, fade, traces);
            let outcome = outcome(mdp, table.layout(), slot, rng);
            let target = match outcome {
                Err(reward) => reward,
                Ok(next) => {
                    (greedy, best) = table.greedy(next);
                    gamma * best
                }
            };
            learn(table, slot, alpha, target, traces);
            match outcome {
                Err(_) => return,
                Ok(next) => {
                    traces.push((slot, 1.0));
                    s = next;
                }
            }
        }
    }

    /// One self-play game from the empty board (position 0); `fade` is `-gamma * lambda`.
    fn self_play(
        table: &mut QTable,
        successors: &Successors,
        rng: &mut seed::Rng,
        exploration: Exploration,
        alpha: f64,
        gamma: f64,
        fade: f64,
        traces: &mut Traces,
    ) {
        traces.clear();
        let mut id = 0usize;
        let (mut greedy, mut best) = table.greedy(id);
        loop {
            let slot = table.choose(id, greedy, exploration, rng);
            before_move(table, slot, best, fade, traces);
            let next = successors.child[slot];
            let target = if next == END {
                successors.reward[slot]
            } else {
                (greedy, best) = table.greedy(next as usize);
                -gamma * best
            };
            learn(table, slot, alpha, target, traces);
            if next == END {
                return;
            }
            traces.push((slot, 1.0));
            id = next as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{Opponent, Seat};
    use crate::solvers::params::{ExplorationRule, QParams, TrainOpponent};
    use crate::solvers::q_learning;

    fn entries(table: &QTable) -> Vec<u64> {
        table.entries().iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn with_lambda_zero_it_is_q_learning_bit_for_bit() {
        for &seat in Seat::ALL {
            for &opponent in Opponent::ALL {
                for (exploration, symmetry) in
                    [(ExplorationRule::EpsilonGreedy, false), (ExplorationRule::Softmax, true)]
                {
                    let q = QParams {
                        seat,
                        opponent: TrainOpponent::Fixed(opponent),
                        episodes: 3000,
                        exploration,
                        symmetry,
                        ..QParams::default()
                    };
                    let marks = [1000, 3000];
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let lambda = QLambdaParams { learner: q, lambda: 0.0 };
                    let ours = train(&lambda, 7, &marks, |_, t| a.push(entries(t)));
                    let theirs = q_learning::train_table(&q, 7, &marks, |_, t| b.push(entries(t)));
                    assert_eq!(a, b, "{seat} against {opponent:?}, {exploration:?}");
                    assert_eq!(entries(&ours.table), entries(&theirs.table));
                }
            }
        }
    }

    #[test]
    fn in_self_play_with_lambda_zero_it_is_self_play_q_learning_bit_for_bit() {
        let q = QParams { opponent: TrainOpponent::SelfPlay, episodes: 3000, ..QParams::default() };
        let mut a = Vec::new();
        let ours = train(&QLambdaParams { learner: q, lambda: 0.0 }, 3, &[3000], |_, t| a.push(entries(t)));
        let mut b = Vec::new();
        let theirs = q_learning::train(&q, 3, &[3000], |_, t| b.push(entries(t)));
        assert_eq!(a, b);
        assert_eq!(ours.table.policy(), theirs);
    }

    #[test]
    fn a_positive_lambda_changes_the_earlier_moves_values() {
        let q = QParams { episodes: 2000, ..QParams::default() };
        let zero = train(&QLambdaParams { learner: q, lambda: 0.0 }, 1, &[], |_, _| {});
        let some = train(&QLambdaParams { learner: q, lambda: 0.9 }, 1, &[], |_, _| {});
        assert_ne!(entries(&zero.table), entries(&some.table));
    }
}
