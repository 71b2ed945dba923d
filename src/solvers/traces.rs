//! What the learners with eligibility traces share (Watkins's Q(lambda),
//! [`q_lambda`](super::q_lambda); SARSA(lambda), [`sarsa_lambda`](super::sarsa_lambda)):
//! their state over the driver's table (the discount, the traces' fade per move and the
//! traces of the game being played, kept across episodes so that no episode allocates),
//! the step that reaches back to the earlier moves ([`learn`]), and the glue to
//! [`driver::train`]. A learner gives only its two kinds of game ([`Games`]); the games are
//! monomorphised into the driver's loop, as every learner's are.

use std::borrow::Cow;
use std::marker::PhantomData;

use super::driver::{self, Episodes};
use super::params::QParams;
use super::self_play::Successors;
use super::tabular::{Checkpoint, Exploration, QTable, Trained};
use crate::mdp::AgentMdp;
use crate::seed;

/// The traces of the game being played: each earlier move's slot and eligibility.
pub(super) type Traces = Vec<(usize, f64)>;

/// A traced learner's games: against a fixed opponent (its traces fading by `fade`,
/// `gamma * lambda`) and in self-play (by `fade`, there `-gamma * lambda`).
pub(super) trait Games {
    /// One game against the fixed opponent of `mdp` from agent state `first`.
    #[allow(clippy::too_many_arguments)]
    fn fixed(
        table: &mut QTable,
        mdp: &AgentMdp,
        rng: &mut seed::Rng,
        first: usize,
        exploration: Exploration,
        alpha: f64,
        gamma: f64,
        fade: f64,
        traces: &mut Traces,
    );

    /// One self-play game from the empty board (position 0).
    #[allow(clippy::too_many_arguments)]
    fn self_play(
        table: &mut QTable,
        successors: &Successors,
        rng: &mut seed::Rng,
        exploration: Exploration,
        alpha: f64,
        gamma: f64,
        fade: f64,
        traces: &mut Traces,
    );
}

/// Trains the traced learner `G` with `learner`'s parameters and trace decay `lambda`
/// against `learner.opponent` (a fixed one or itself); calls `checkpoint` after each
/// listed episode.
pub(super) fn train<G: Games>(
    learner: &QParams,
    lambda: f64,
    seed: u64,
    checkpoints: &[u64],
    checkpoint: impl FnMut(Checkpoint, &QTable),
) -> Trained {
    let (gamma, fade) = (learner.gamma, learner.gamma * lambda);
    let traces = Vec::with_capacity(32);
    driver::train(learner, seed, checkpoints, checkpoint, |table, _| Traced::<G> {
        table,
        gamma,
        fade,
        traces,
        games: PhantomData,
    })
}

/// A traced learner's state: its table, its discount, the traces' fade per move (`gamma *
/// lambda`) and the traces of the game being played.
struct Traced<G> {
    table: QTable,
    gamma: f64,
    fade: f64,
    traces: Traces,
    games: PhantomData<G>,
}

impl<G: Games> Episodes for Traced<G> {
    #[inline]
    fn fixed(&mut self, mdp: &AgentMdp, rng: &mut seed::Rng, first: usize, exploration: Exploration, alpha: f64) {
        G::fixed(&mut self.table, mdp, rng, first, exploration, alpha, self.gamma, self.fade, &mut self.traces);
    }

    #[inline]
    fn self_play(&mut self, successors: &Successors, rng: &mut seed::Rng, exploration: Exploration, alpha: f64) {
        G::self_play(&mut self.table, successors, rng, exploration, alpha, self.gamma, -self.fade, &mut self.traces);
    }

    fn table(&self) -> Cow<'_, QTable> {
        Cow::Borrowed(&self.table)
    }

    fn into_table(self) -> QTable {
        self.table
    }
}

/// The step of the move in `slot` towards `target`, and its share for each earlier move
/// by its eligibility.
#[inline(always)]
pub(super) fn learn(table: &mut QTable, slot: usize, alpha: f64, target: f64, traces: &Traces) {
    let delta = target - table.value(slot);
    for &(earlier, eligibility) in traces {
        table.add(earlier, alpha * delta * eligibility);
    }
    table.update(slot, alpha, target);
}
