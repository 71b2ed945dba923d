//! How every policy of a run is scored: the `[evaluation]` section as read from a spec.
//! It sits below both [`crate::kinds`] (whose solvers estimate their evaluation's cost
//! from it) and [`crate::spec`] (which reads it), so neither imports the other for it.

use crate::mdp::EvalOpponent;
use crate::solvers::spacing::Spacing;

/// The `[evaluation]` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvaluationSpec {
    /// Exact evaluation against each of these, distinct (default `["random"]`).
    pub opponents: Vec<EvalOpponent>,
    /// Extra sampled games per opponent (default 0).
    pub games: u64,
    /// Learning-curve points of learners, >= 1 (default 10).
    pub checkpoints: u32,
    /// How the checkpoints are spaced (`checkpoint_spacing`, default `even`).
    pub spacing: Spacing,
    /// The most positions a searching agent (MCTS) may search for one exact evaluation;
    /// beyond them the row is evaluated by sampled games (`exact_searches`, default
    /// [`EXACT_SEARCHES`]).
    pub exact_searches: u64,
    /// On a board too big to enumerate, the position every evaluation starts from: the
    /// moves that lead to it, as `sweep solve --moves` takes them (`from`; default the
    /// empty board). Boards the tool enumerates are always scored from the empty board.
    pub from: Option<String>,
}

impl EvaluationSpec {
    /// The episodes at which a learner of `episodes` is evaluated: 0 (the untrained start,
    /// which gives the curve metrics their first point but no `curves.csv` row), then its
    /// checkpoints; none when it trains no episode.
    pub fn marks(&self, episodes: u64) -> Vec<u64> {
        if episodes == 0 {
            return Vec::new();
        }
        let mut marks = vec![0];
        marks.extend(self.spacing.episodes(episodes, self.checkpoints));
        marks
    }
}

/// The default of `[evaluation] exact_searches`: above every tic-tac-toe MDP's 2,423 agent
/// states, so tic-tac-toe is always evaluated exactly.
pub const EXACT_SEARCHES: u64 = 50_000;

/// The games a sampled evaluation plays when `[evaluation] games` is 0.
pub const SAMPLED_GAMES: u64 = 1_000;
