//! The training driver of the tabular learners: one loop for all of them, in two modes,
//! against a fixed opponent or in self-play. A learner is only its episodes
//! (`Episodes`); everything around them is here.
//!
//! - The generator: every draw of a training run comes from the seed's training stream
//!   (`seed::rng(seed, Stream::Train)`): per episode, the first state's (against a fixed
//!   opponent), then the episode's own, in the order it takes them.
//! - Against a fixed opponent (`opponent` is one of the fixed opponents): the agent MDP of
//!   (game, seat, opponent), one of the ground truth's, is the simulator, and the table is
//!   over its agent states (`table`). Before each episode the driver draws the agent's
//!   first state (`first_state`: one uniform draw among the opponent's openings when the
//!   agent plays O, none when it plays X); during it, the opponent's reply to a move is
//!   one uniform draw among the move's outcomes (`outcome`). An action's outcomes are
//!   equally likely, as every fixed opponent is uniform over its support.
//! - Self-play (`opponent = "self"`): the table over every position and its successors
//!   (`self_play::build`); every game starts from the empty board, position 0.
//! - The schedule ([`tabular::run_schedule`]): the episodes with their exploration and
//!   step size, and after each listed episode a checkpoint, which sees the learner's
//!   current table (Double Q-learning's: the mean of its two).
//!
//! The driver is generic over the learner: each mode's loop calls the learner's episode
//! directly (no trait object, nothing dispatched at run time), and each episode is
//! compiled for its learner alone. No allocation inside an episode.

use std::borrow::Cow;

use rand::RngCore;

use super::ground_truth::ground_truth;
use super::layout::{Layout, LayoutKey, layout};
use super::params::{QParams, TrainOpponent};
use super::self_play::{self, Successors};
use super::tabular::{self, Checkpoint, Exploration, QTable, Step, Trained};
use crate::mdp::AgentMdp;
use crate::seed::{self, Stream};

/// How the games of a training run begin, for a learner building its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Against a fixed opponent; `start` is the agent state every game starts in when
    /// there is only one (the agent plays X), `None` when the opponent opens.
    Fixed {
        /// The one first state, if there is one.
        start: Option<usize>,
    },
    /// Self-play: every game starts from the empty board, position 0, and the table is
    /// seen from the side to move.
    SelfPlay,
}

impl Mode {
    /// The state every game starts in, when there is only one.
    pub(super) fn start(self) -> Option<usize> {
        match self {
            Mode::Fixed { start } => start,
            Mode::SelfPlay => Some(0),
        }
    }
}

/// A tabular learner as the driver runs it: its episodes in each mode and its table.
///
/// An implementation marks its episodes `#[inline(always)]` to have them compiled into
/// each caller's loop, or `#[inline]` to keep one copy that the loops call; which is
/// faster depends on the learner, and is measured (its benchmark run, `Learner::bench`).
pub(super) trait Episodes {
    /// One game against the fixed opponent of `mdp` from agent state `first`, with the
    /// episode's exploration and step size.
    fn fixed(&mut self, mdp: &AgentMdp, rng: &mut seed::Rng, first: usize, exploration: Exploration, alpha: f64);

    /// One self-play game from the empty board (position 0), over the table of
    /// [`self_play::build`] whose slots lead where `successors` says.
    fn self_play(&mut self, successors: &Successors, rng: &mut seed::Rng, exploration: Exploration, alpha: f64);

    /// The table a checkpoint sees.
    fn table(&self) -> Cow<'_, QTable>;

    /// The final table.
    fn into_table(self) -> QTable;
}

/// Trains a learner against `params.opponent` (a fixed one or itself): `learner` builds
/// its state over the run's fresh table (every entry `q_init`) for the run's [`Mode`];
/// `checkpoint` is called with its table after each episode listed in `checkpoints`
/// (increasing). Returns the final table and behaviour policy.
pub(super) fn train<L: Episodes>(
    params: &QParams,
    seed: u64,
    checkpoints: &[u64],
    mut checkpoint: impl FnMut(Checkpoint, &QTable),
    learner: impl FnOnce(QTable, Mode) -> L,
) -> Trained {
    let mut rng = seed::rng(seed, Stream::Train);
    match params.opponent {
        TrainOpponent::SelfPlay => {
            let (table, successors) = self_play::build(params.game, params.q_init, params.symmetry);
            let mut learner = learner(table, Mode::SelfPlay);
            let exploration = tabular::run_schedule(params, checkpoints, |step| match step {
                Step::Play { exploration, alpha } => learner.self_play(&successors, &mut rng, exploration, alpha),
                Step::Checkpoint(c) => checkpoint(c, &learner.table()),
            });
            Trained { table: learner.into_table(), exploration }
        }
        TrainOpponent::Fixed(opponent) => {
            let mdp = &ground_truth(params.game, params.seat, opponent).mdp;
            let table = table(mdp, params.q_init, params.symmetry);
            table.expect_episodes(params.episodes);
            let start = match mdp.start() {
                [only] => Some(only.next as usize),
                _ => None,
            };
            let mut learner = learner(table, Mode::Fixed { start });
            let exploration = tabular::run_schedule(params, checkpoints, |step| match step {
                Step::Play { exploration, alpha } => {
                    let first = first_state(mdp, &mut rng);
                    learner.fixed(mdp, &mut rng, first, exploration, alpha);
                }
                Step::Checkpoint(c) => checkpoint(c, &learner.table()),
            });
            Trained { table: learner.into_table(), exploration }
        }
    }
}

/// A table over the agent states of `mdp` (one of the ground truth's), whose slots are
/// the MDP's action slots: the run's shared layout and values of its own.
pub(super) fn table(mdp: &AgentMdp, q_init: f64, symmetry: bool) -> QTable {
    let key = LayoutKey { game: mdp.game(), agent: Some((mdp.seat(), mdp.opponent())), symmetry };
    let table = QTable::with_layout(layout(key), q_init);
    assert_eq!(table.states(), mdp.len(), "the table's states are the MDP's");
    table
}

/// The agent's first state of an episode: one uniform draw among the opponent's openings
/// when the agent plays O, no draw when it plays X.
#[inline(always)]
fn first_state(mdp: &AgentMdp, rng: &mut impl RngCore) -> usize {
    let start = mdp.start();
    let first = if start.len() == 1 { start[0] } else { start[tabular::below(rng.next_u64() as u32, start.len())] };
    first.next as usize
}

/// The outcome of playing `slot`: the opponent's reply is one uniform draw among the
/// action's outcomes (no draw when there is one). `Ok(next state)` or `Err(reward)`.
///
/// On a big board each step of an episode waits on memory: the next state's slot range
/// (`layout`), then its values and its rows, then the chosen move's outcome codes. The
/// rows are asked for here, as soon as the next state is known, so that they arrive with
/// its values instead of after them: one wait fewer per step (see
/// `docs/performance-history.md` §16). The table's own layout gives the slot range, the one
/// the values' read needs too; on a board whose tables stay in the caches (tic-tac-toe,
/// 3x4k4) nothing is asked.
#[inline(always)]
pub(super) fn outcome(mdp: &AgentMdp, layout: &Layout, slot: usize, rng: &mut impl RngCore) -> Result<usize, f64> {
    let next = plain_outcome(mdp, slot, rng);
    if let (Ok(next), true) = (next, layout.deep()) {
        mdp.prefetch_rows(layout.slots(next));
    }
    next
}

/// [`outcome`] without asking for anything: for a loop that knows its tables stay in the
/// caches.
#[inline(always)]
pub(super) fn plain_outcome(mdp: &AgentMdp, slot: usize, rng: &mut impl RngCore) -> Result<usize, f64> {
    let n = mdp.outcome_count(slot);
    mdp.sampled(slot, if n == 1 { 0 } else { tabular::below(rng.next_u64() as u32, n) })
}
