//! The algorithms' parameter types: plain values that cannot be out of range (the spec
//! checks ranges, by the declarations in `kinds::param`, before building them), with
//! their defaults as constants that those declarations refer to.
//!
//! Field names are the TOML keys and the CSV columns.

use crate::game::Game;
use crate::mdp::{FIXED, Opponent, Seat, with_last};
use crate::names::named_enum;

/// Who a Q-learner trains against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrainOpponent {
    /// A fixed opponent policy.
    Fixed(Opponent),
    /// Self-play: one table plays both seats.
    SelfPlay,
}

impl TrainOpponent {
    /// The spelling in specs and CSV files (`self` for self-play).
    pub fn name(self) -> &'static str {
        match self {
            TrainOpponent::Fixed(o) => o.name(),
            TrainOpponent::SelfPlay => "self",
        }
    }

    /// The spelling in job keys and the resolved spec (a saved policy's hash key, see
    /// [`Opponent::key`]).
    pub fn key(self) -> &'static str {
        match self {
            TrainOpponent::Fixed(o) => o.key(),
            TrainOpponent::SelfPlay => "self",
        }
    }

    /// Every training opponent: the fixed ones ([`Opponent::ALL`]), then self-play.
    pub const ALL: [TrainOpponent; FIXED + 1] = with_last(TrainOpponent::fixed(), TrainOpponent::SelfPlay);

    /// Every spelling, in the order of [`TrainOpponent::ALL`].
    pub const NAMES: &'static [&'static str] = &with_last::<_, FIXED, { FIXED + 1 }>(*Opponent::NAMES, "self");

    /// The fixed opponents, as training opponents.
    const fn fixed() -> [TrainOpponent; FIXED] {
        let mut out = [TrainOpponent::SelfPlay; FIXED];
        let mut i = 0;
        while i < FIXED {
            out[i] = TrainOpponent::Fixed(Opponent::ALL[i]);
            i += 1;
        }
        out
    }

    /// The training opponent with this name (or a registered saved policy's key or name).
    pub fn from_name(s: &str) -> Option<TrainOpponent> {
        TrainOpponent::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .or_else(|| Opponent::from_name(s).map(TrainOpponent::Fixed))
    }
}

impl std::str::FromStr for TrainOpponent {
    type Err = crate::names::ParseNameError;

    fn from_str(s: &str) -> Result<TrainOpponent, Self::Err> {
        TrainOpponent::from_name(s).ok_or_else(|| crate::names::ParseNameError {
            what: "opponent",
            value: s.to_string(),
            allowed: TrainOpponent::NAMES.join(", "),
        })
    }
}

/// Policy iteration and value iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactParams {
    /// The agent's seat.
    pub seat: Seat,
    /// The opponent whose MDP is solved.
    pub opponent: Opponent,
    /// The board.
    pub game: Game,
}

/// Q-learning (see `q_learning.rs` and `self_play.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QParams {
    /// The agent's seat (ignored in self-play, which plays and is evaluated in both).
    pub seat: Seat,
    /// The training opponent.
    pub opponent: TrainOpponent,
    /// Training episodes (games), >= 1.
    pub episodes: u64,
    /// Initial step size, in (0, 1].
    pub alpha: f64,
    /// Multiplied into alpha after every episode, in (0, 1].
    pub alpha_decay: f64,
    /// Floor of alpha, in [0, alpha].
    pub alpha_min: f64,
    /// Discount, in [0, 1].
    pub gamma: f64,
    /// Initial exploration rate, in [0, 1].
    pub epsilon: f64,
    /// Multiplied into epsilon after every episode, in (0, 1].
    pub epsilon_decay: f64,
    /// Floor of epsilon, in [0, epsilon].
    pub epsilon_min: f64,
    /// Initial value of every table entry.
    pub q_init: f64,
    /// Store states once per symmetry class.
    pub symmetry: bool,
    /// How the behaviour policy explores (version 2).
    pub exploration: ExplorationRule,
    /// Softmax's initial temperature, >= 0 (0 plays greedily).
    pub temperature: f64,
    /// Multiplied into the temperature after every episode, in (0, 1].
    pub temperature_decay: f64,
    /// Floor of the temperature, in [0, temperature].
    pub temperature_min: f64,
    /// The board (version 3).
    pub game: Game,
    /// The fraction of the episodes at which epsilon reaches its floor, when the spec
    /// gives it (version 4); `epsilon_decay` is then derived from it (see [`decay_to_floor`]).
    pub epsilon_min_at: Option<f64>,
    /// Likewise for alpha (version 4).
    pub alpha_min_at: Option<f64>,
    /// Likewise for the temperature (version 4).
    pub temperature_min_at: Option<f64>,
}

impl QParams {
    /// The defaults of a spec that sets nothing.
    pub const DEFAULT: QParams = QParams {
        seat: Seat::X,
        opponent: TrainOpponent::Fixed(Opponent::Random),
        episodes: 50_000,
        alpha: 0.5,
        alpha_decay: 1.0,
        alpha_min: 0.0,
        gamma: 0.99,
        epsilon: 1.0,
        epsilon_decay: 0.9995,
        epsilon_min: 0.05,
        q_init: 0.0,
        symmetry: false,
        exploration: ExplorationRule::EpsilonGreedy,
        temperature: 1.0,
        temperature_decay: 0.9995,
        temperature_min: 0.01,
        game: Game::TIC_TAC_TOE,
        epsilon_min_at: None,
        alpha_min_at: None,
        temperature_min_at: None,
    };
}

/// The per-episode decay that takes a rate from `start` to `floor` (both > 0, `floor <=
/// start`) in `fraction · episodes` episodes: `(floor / start)^(1 / (fraction · episodes))`.
/// Multiplied in after every episode (as every decay is), it brings the rate to its floor
/// after episode `ceil(fraction · episodes)` (up to rounding in the last bits), whatever
/// the episode count: a run of any length is a scaled copy of any other.
pub fn decay_to_floor(start: f64, floor: f64, fraction: f64, episodes: u64) -> f64 {
    assert!(floor > 0.0 && floor <= start, "a validated floor in (0, start]: {floor} of {start}");
    assert!(fraction > 0.0 && fraction <= 1.0 && episodes > 0, "a validated fraction and episode count");
    if floor == start {
        return 1.0;
    }
    (floor / start).powf(1.0 / (fraction * episodes as f64))
}

impl Default for QParams {
    fn default() -> QParams {
        QParams::DEFAULT
    }
}

named_enum!(
    /// How a tabular learner's behaviour policy explores.
    ExplorationRule, "exploration", {
        /// With probability epsilon a uniformly drawn legal move, else the greedy one.
        EpsilonGreedy = "epsilon-greedy",
        /// Each legal move with probability proportional to `exp(Q / temperature)`.
        Softmax = "softmax",
    }
);

named_enum!(
    /// Monte Carlo control's step size.
    StepRule, "step", {
        /// `alpha` with its schedule (a constant step when `alpha_decay` is 1).
        Alpha = "alpha",
        /// `1/N(s,a)`: each entry is the mean of the returns it has seen.
        Average = "average",
    }
);

/// Monte Carlo control (see `monte_carlo.rs`): the tabular learners' parameters and its
/// step rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MonteCarloParams {
    /// The parameters every tabular learner takes.
    pub learner: QParams,
    /// Whether the step is `alpha` or the sample average.
    pub step: StepRule,
}

/// Watkins's Q(lambda) (see `q_lambda.rs`): the tabular learners' parameters and the
/// trace decay `lambda`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QLambdaParams {
    /// The parameters every tabular learner takes.
    pub learner: QParams,
    /// How fast a move's eligibility fades, per move after it: 0 is Q-learning, 1 the
    /// whole return (as long as the moves are greedy).
    pub lambda: f64,
}

named_enum!(
    /// How MCTS models the opponent's nodes.
    OpponentModel, "opponent model", {
        /// The opponent also picks by UCB, from its own view (a minimax-like search).
        Adversarial = "adversarial",
        /// The opponent's nodes pick uniformly at random (expectation under a random opponent).
        Random = "random",
    }
);

named_enum!(
    /// Which root move MCTS plays.
    FinalMove, "final move", {
        /// The most visited child (ties: lowest cell).
        Visits = "visits",
        /// The child with the best mean reward (ties: lowest cell).
        Value = "value",
    }
);

/// MCTS/UCT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsParams {
    /// The agent's seat.
    pub seat: Seat,
    /// Iterations per search (per move), >= 1.
    pub iterations: u32,
    /// UCT exploration constant, >= 0.
    pub uct_c: f64,
    /// How the opponent's nodes are searched.
    pub opponent_model: OpponentModel,
    /// Which root child is played.
    pub final_move: FinalMove,
    /// The board. The search reads the game off the board it is given; this names the
    /// game the agent is evaluated in.
    pub game: Game,
}

impl MctsParams {
    /// The defaults of a spec that sets nothing.
    pub const DEFAULT: MctsParams = MctsParams {
        seat: Seat::X,
        iterations: 1000,
        uct_c: 1.414,
        opponent_model: OpponentModel::Adversarial,
        final_move: FinalMove::Visits,
        game: Game::TIC_TAC_TOE,
    };
}

impl Default for MctsParams {
    fn default() -> MctsParams {
        MctsParams::DEFAULT
    }
}

/// Formats a float so that it parses back to the same bits (shortest round-trip form).
pub fn fmt_f64(v: f64) -> String {
    format!("{v:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_training_and_evaluation_lists_are_the_fixed_opponents_and_one_more() {
        use crate::mdp::EvalOpponent;
        let fixed: Vec<&str> = Opponent::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(fixed, Opponent::NAMES.to_vec());
        let train: Vec<&str> = TrainOpponent::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(train, [&fixed[..], &["self"]].concat());
        assert_eq!(TrainOpponent::NAMES, &train[..]);
        let eval: Vec<&str> = EvalOpponent::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(eval, [&fixed[..], &["best-response"]].concat());
        for name in &train {
            assert_eq!(name.parse::<TrainOpponent>().map(|o| o.name()), Ok(*name));
        }
    }
}
