//! SARSA(lambda): SARSA whose update also reaches back to the earlier moves of the game, by
//! their eligibility, against a fixed opponent or in self-play.
//!
//! Algorithm (Rummery & Niranjan 1994; Sutton & Barto 2018, §12.7, tabular): SARSA's move
//! choice and target, `delta = target - Q(s,a)` with `target = r` if the game ended, else
//! `gamma * Q(s',a')` for the move `a'` the behaviour policy then picks; then every earlier
//! move `(s_i, a_i)` of the game takes `Q(s_i,a_i) += alpha * delta * e_i`, where its
//! eligibility `e_i = (gamma * lambda)^k` fades by `gamma * lambda` with each of the agent's
//! moves `k` after it. Unlike Watkins's Q(lambda) (see [`q_lambda`](super::q_lambda)), an
//! exploratory move does not cut the traces: the learner is on-policy, and the return after
//! an exploratory move is its behaviour's return. A position never repeats within a game, so
//! accumulating and replacing traces are the same here.
//!
//! In self-play the table is seen from the side to move (as in
//! [`sarsa`](super::sarsa)'s self-play form): `target = -gamma * Q(s',a')`, and the trace of a
//! move fades by `-gamma * lambda` per move after it, the sign flipping with the side.
//!
//! - Assumptions: those of [`sarsa`](super::sarsa).
//! - Hyperparameters: SARSA's, and `lambda` in [0, 1]. The draws are SARSA's (one per
//!   decision, one per opponent reply), in the same order; with `lambda = 0` the traces are
//!   empty at every step and the learner is SARSA, value for value (a test checks the tables
//!   bit for bit).
//! - Stopping rule: a fixed number of `episodes` (games).
//! - What the table means: Q^π of its behaviour policy, as for SARSA; only as exploration
//!   fades (GLIE) does it reach Q*.
//!
//! The traces and the step that reaches back are those of `solvers/traces.rs`: no
//! allocation inside an episode. References: Rummery & Niranjan 1994; Singh & Sutton 1996;
//! Sutton & Barto 2018, §12.7.

use super::driver::outcome;
use super::params::QParams;
use super::self_play::{END, Successors};
use super::tabular::{Checkpoint, Exploration, QTable, Trained};
use super::traces::{self, Games, Traces, learn};
use crate::mdp::AgentMdp;
use crate::seed;

/// One grid point of SARSA(lambda): the tabular learners' parameters and `lambda`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SarsaLambdaParams {
    /// The learner's parameters.
    pub learner: QParams,
    /// The traces' decay per move, in [0, 1]; 0 is SARSA.
    pub lambda: f64,
}

/// Trains SARSA(lambda) against `params.learner.opponent` (a fixed one or itself); calls
/// `checkpoint` after each listed episode.
pub fn train(
    params: &SarsaLambdaParams,
    seed: u64,
    checkpoints: &[u64],
    checkpoint: impl FnMut(Checkpoint, &QTable),
) -> Trained {
    traces::train::<SarsaLambda>(&params.learner, params.lambda, seed, checkpoints, checkpoint)
}

/// SARSA(lambda)'s games.
struct SarsaLambda;

/// After the move in `slot` has learned: it joins the traces, and every trace fades by
/// `fade` before the next move's step (none are kept when `fade` is 0).
#[inline(always)]
fn after_move(slot: usize, fade: f64, traces: &mut Traces) {
    if fade == 0.0 {
        traces.clear();
    } else {
        traces.push((slot, 1.0));
        traces.iter_mut().for_each(|t| t.1 *= fade);
    }
}

impl Games for SarsaLambda {
    /// One game against the fixed opponent from agent state `s`.
    #[inline]
    fn fixed(
        table: &mut QTable,
        mdp: &AgentMdp,
        rng: &mut seed::Rng,
        s: usize,
        exploration: Exploration,
        alpha: f64,
        gamma: f64,
        fade: f64,
        traces: &mut Traces,
    ) {
        traces.clear();
        let mut slot = table.choose(s, table.greedy(s).0, exploration, rng);
        loop {
            match outcome(mdp, table.layout(), slot, rng) {
                Err(reward) => return learn(table, slot, alpha, reward, traces),
                Ok(next) => {
                    let (greedy, _) = table.greedy(next);
                    let next_slot = table.choose(next, greedy, exploration, rng);
                    let target = gamma * table.value(next_slot);
                    learn(table, slot, alpha, target, traces);
                    after_move(slot, fade, traces);
                    slot = next_slot;
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
        let mut slot = table.choose(0, table.greedy(0).0, exploration, rng);
        loop {
            let next = successors.child[slot];
            if next == END {
                return learn(table, slot, alpha, successors.reward[slot], traces);
            }
            let next = next as usize;
            let next_slot = table.choose(next, table.greedy(next).0, exploration, rng);
            learn(table, slot, alpha, -gamma * table.value(next_slot), traces);
            after_move(slot, fade, traces);
            slot = next_slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mdp::{Opponent, Seat};
    use crate::solvers::params::{ExplorationRule, TrainOpponent};
    use crate::solvers::sarsa;

    fn entries(table: &QTable) -> Vec<u64> {
        table.entries().iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn with_lambda_zero_it_is_sarsa_bit_for_bit() {
        let mut plays: Vec<(TrainOpponent, Seat)> =
            Opponent::ALL.iter().flat_map(|&o| Seat::ALL.iter().map(move |&s| (TrainOpponent::Fixed(o), s))).collect();
        plays.push((TrainOpponent::SelfPlay, Seat::X));
        for (opponent, seat) in plays {
            for (exploration, symmetry) in [(ExplorationRule::EpsilonGreedy, false), (ExplorationRule::Softmax, true)] {
                let q = QParams { seat, opponent, episodes: 3000, exploration, symmetry, ..QParams::default() };
                let marks = [1000, 3000];
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let ours = train(&SarsaLambdaParams { learner: q, lambda: 0.0 }, 7, &marks, |_, t| a.push(entries(t)));
                let theirs = sarsa::train(&q, 7, &marks, |_, t| b.push(entries(t)));
                assert_eq!(a, b, "{seat} against {opponent:?}, {exploration:?}");
                assert_eq!(entries(&ours.table), entries(&theirs.table));
            }
        }
    }

    #[test]
    fn a_positive_lambda_changes_the_earlier_moves_values() {
        for opponent in [TrainOpponent::Fixed(Opponent::Random), TrainOpponent::SelfPlay] {
            let q = QParams { episodes: 2000, opponent, ..QParams::default() };
            let zero = train(&SarsaLambdaParams { learner: q, lambda: 0.0 }, 1, &[], |_, _| {});
            let some = train(&SarsaLambdaParams { learner: q, lambda: 0.9 }, 1, &[], |_, _| {});
            assert_ne!(entries(&zero.table), entries(&some.table), "{opponent:?}");
        }
    }

    #[test]
    fn with_lambda_one_and_a_single_game_each_move_takes_the_whole_return() {
        // Against a fixed opponent with gamma 1 and lambda 1, alpha 1 and a table at 0, one
        // game moves every visited value to the game's reward: each step's error reaches
        // every earlier move in full, and their sum telescopes to the final reward.
        // A drawn game (reward 0) moves nothing, so the seeds run until one is decided.
        let q = QParams { episodes: 1, alpha: 1.0, alpha_decay: 1.0, gamma: 1.0, ..QParams::default() };
        let decided = (0..50).find_map(|seed| {
            let trained = train(&SarsaLambdaParams { learner: q, lambda: 1.0 }, seed, &[], |_, _| {});
            let moved: Vec<f64> = trained.table.entries().iter().copied().filter(|&v| v != 0.0).collect();
            (!moved.is_empty()).then_some(moved)
        });
        let moved = decided.expect("a decided game in 50 seeds against random");
        let reward = moved[0];
        assert!(reward == 1.0 || reward == -1.0, "{moved:?}");
        // X makes at least 3 moves in a decided game of tic-tac-toe, all of them moved.
        assert!(moved.len() >= 3 && moved.iter().all(|&v| v == reward), "{moved:?}");
    }
}
