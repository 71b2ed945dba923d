//! The validated parameters of each solver kind: plain values that cannot be out of range
//! (the spec module checks ranges before building them).
//!
//! Field names are the TOML keys and the CSV columns. [`Params::columns`] lists every
//! parameter as `(column, value)` in the fixed CSV order; it is also the canonical key
//! that job ids hash.

use crate::mdp::{Opponent, Seat};

/// The solver kinds, as spelled in specs and in the `solver` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Exact policy iteration.
    PolicyIteration,
    /// Exact value iteration.
    ValueIteration,
    /// Tabular Q-learning, against a fixed opponent or in self-play.
    QLearning,
    /// Monte Carlo tree search with UCT.
    Mcts,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 4] = [Kind::PolicyIteration, Kind::ValueIteration, Kind::QLearning, Kind::Mcts];

    /// The spelling in specs and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Kind::PolicyIteration => "policy-iteration",
            Kind::ValueIteration => "value-iteration",
            Kind::QLearning => "q-learning",
            Kind::Mcts => "mcts",
        }
    }

    /// The kind with this name.
    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

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

    /// Every training opponent: the fixed ones, then self-play.
    pub const ALL: [TrainOpponent; 4] = [
        TrainOpponent::Fixed(Opponent::Random),
        TrainOpponent::Fixed(Opponent::Minimax),
        TrainOpponent::Fixed(Opponent::MinimaxUniform),
        TrainOpponent::SelfPlay,
    ];

    /// The training opponent with this name.
    pub fn from_name(s: &str) -> Option<TrainOpponent> {
        TrainOpponent::ALL.into_iter().find(|o| o.name() == s)
    }
}

/// Policy iteration and value iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactParams {
    /// The agent's seat.
    pub seat: Seat,
    /// The opponent whose MDP is solved.
    pub opponent: Opponent,
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
}

impl Default for QParams {
    fn default() -> QParams {
        QParams {
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
        }
    }
}

/// How MCTS models the opponent's nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpponentModel {
    /// The opponent also picks by UCB, from its own view (a minimax-like search).
    Adversarial,
    /// The opponent's nodes pick uniformly at random (expectation under a random opponent).
    Random,
}

impl OpponentModel {
    /// The spelling in specs and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            OpponentModel::Adversarial => "adversarial",
            OpponentModel::Random => "random",
        }
    }

    /// Every model.
    pub const ALL: [OpponentModel; 2] = [OpponentModel::Adversarial, OpponentModel::Random];

    /// The model with this name.
    pub fn from_name(s: &str) -> Option<OpponentModel> {
        OpponentModel::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// Which root move MCTS plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FinalMove {
    /// The most visited child (ties: lowest cell).
    Visits,
    /// The child with the best mean reward (ties: lowest cell).
    Value,
}

impl FinalMove {
    /// The spelling in specs and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            FinalMove::Visits => "visits",
            FinalMove::Value => "value",
        }
    }

    /// Every rule.
    pub const ALL: [FinalMove; 2] = [FinalMove::Visits, FinalMove::Value];

    /// The rule with this name.
    pub fn from_name(s: &str) -> Option<FinalMove> {
        FinalMove::ALL.into_iter().find(|m| m.name() == s)
    }
}

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
}

impl Default for MctsParams {
    fn default() -> MctsParams {
        MctsParams {
            seat: Seat::X,
            iterations: 1000,
            uct_c: 1.414,
            opponent_model: OpponentModel::Adversarial,
            final_move: FinalMove::Visits,
        }
    }
}

/// One grid point of one solver: everything a job needs besides its seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Params {
    /// `policy-iteration`.
    PolicyIteration(ExactParams),
    /// `value-iteration`.
    ValueIteration(ExactParams),
    /// `q-learning`.
    QLearning(QParams),
    /// `mcts`.
    Mcts(MctsParams),
}

/// The parameter columns of `results.csv`, in order.
pub const PARAM_COLUMNS: [&str; 16] = [
    "seat",
    "opponent",
    "episodes",
    "alpha",
    "alpha_decay",
    "alpha_min",
    "gamma",
    "epsilon",
    "epsilon_decay",
    "epsilon_min",
    "q_init",
    "symmetry",
    "iterations",
    "uct_c",
    "opponent_model",
    "final_move",
];

/// Formats a float so that it parses back to the same bits (shortest round-trip form).
pub fn fmt_f64(v: f64) -> String {
    format!("{v:?}")
}

impl Params {
    /// The solver kind.
    pub fn kind(&self) -> Kind {
        match self {
            Params::PolicyIteration(_) => Kind::PolicyIteration,
            Params::ValueIteration(_) => Kind::ValueIteration,
            Params::QLearning(_) => Kind::QLearning,
            Params::Mcts(_) => Kind::Mcts,
        }
    }

    /// The seats a job of these parameters is evaluated in.
    pub fn eval_seats(&self) -> Vec<Seat> {
        match self {
            Params::PolicyIteration(p) | Params::ValueIteration(p) => vec![p.seat],
            Params::QLearning(q) if q.opponent == TrainOpponent::SelfPlay => vec![Seat::X, Seat::O],
            Params::QLearning(q) => vec![q.seat],
            Params::Mcts(m) => vec![m.seat],
        }
    }

    /// Every parameter this kind takes, as `(column, value)` in CSV column order. The seat
    /// of a self-play job is left out (it plays both).
    pub fn columns(&self) -> Vec<(&'static str, String)> {
        match self {
            Params::PolicyIteration(p) | Params::ValueIteration(p) => {
                vec![("seat", p.seat.name().into()), ("opponent", p.opponent.name().into())]
            }
            Params::QLearning(q) => {
                let mut v = Vec::with_capacity(12);
                if q.opponent != TrainOpponent::SelfPlay {
                    v.push(("seat", q.seat.name().to_string()));
                }
                v.extend([
                    ("opponent", q.opponent.name().to_string()),
                    ("episodes", q.episodes.to_string()),
                    ("alpha", fmt_f64(q.alpha)),
                    ("alpha_decay", fmt_f64(q.alpha_decay)),
                    ("alpha_min", fmt_f64(q.alpha_min)),
                    ("gamma", fmt_f64(q.gamma)),
                    ("epsilon", fmt_f64(q.epsilon)),
                    ("epsilon_decay", fmt_f64(q.epsilon_decay)),
                    ("epsilon_min", fmt_f64(q.epsilon_min)),
                    ("q_init", fmt_f64(q.q_init)),
                    ("symmetry", q.symmetry.to_string()),
                ]);
                v
            }
            Params::Mcts(m) => vec![
                ("seat", m.seat.name().to_string()),
                ("iterations", m.iterations.to_string()),
                ("uct_c", fmt_f64(m.uct_c)),
                ("opponent_model", m.opponent_model.name().to_string()),
                ("final_move", m.final_move.name().to_string()),
            ],
        }
    }

    /// The canonical key that the job id hashes: master seed, kind, every parameter as
    /// `name=value` in column order, replicate; `;`-separated.
    pub fn canonical_key(&self, master_seed: u64, replicate: u32) -> String {
        let mut key = format!("seed={master_seed};solver={}", self.kind().name());
        for (name, value) in self.columns() {
            key.push(';');
            key.push_str(name);
            key.push('=');
            key.push_str(&value);
        }
        key.push_str(&format!(";replicate={replicate}"));
        key
    }
}
