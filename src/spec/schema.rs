//! The parameters a spec may set: their types, ranges, meanings, defaults and the kinds
//! that take them, in the fixed column order of
//! [`PARAM_COLUMNS`](crate::solvers::params::PARAM_COLUMNS); and how one grid
//! point's values become a [`Params`].
//!
//! Defaults come from [`QParams::default`] and [`MctsParams::default`]; policy and value
//! iteration default to seat `x` against `random`.

use super::value::Val;
use crate::mdp::{Opponent, Seat};
use crate::solvers::params::{ExactParams, MctsParams, QParams, fmt_f64};
use crate::solvers::{FinalMove, Kind, OpponentModel, Params, TrainOpponent};

/// What values a parameter takes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ty {
    /// A finite number within the bounds.
    Real(Bounds),
    /// A whole number from 1 to `max`.
    Count { max: u64 },
    /// `true` or `false`.
    Flag,
    /// One of a set of names.
    Choice(Choice),
}

/// An interval of the reals; an infinite end means unbounded on that side.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub lo: f64,
    pub lo_open: bool,
    pub hi: f64,
    pub hi_open: bool,
}

/// The named parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Choice {
    Seat,
    Opponent,
    OpponentModel,
    FinalMove,
}

/// One parameter.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Param {
    /// The TOML key and CSV column.
    pub name: &'static str,
    /// Its values.
    pub ty: Ty,
    /// The kinds that take it.
    pub kinds: &'static [Kind],
    /// What it means, for messages.
    pub meaning: &'static str,
}

const UNIT_OPEN: Bounds = Bounds { lo: 0.0, lo_open: true, hi: 1.0, hi_open: false };
const UNIT: Bounds = Bounds { lo: 0.0, lo_open: false, hi: 1.0, hi_open: false };
const ALL_KINDS: &[Kind] = &Kind::ALL;
const EXACT_AND_Q: &[Kind] = &[Kind::PolicyIteration, Kind::ValueIteration, Kind::QLearning];
const Q: &[Kind] = &[Kind::QLearning];
const MCTS: &[Kind] = &[Kind::Mcts];

const fn real(name: &'static str, bounds: Bounds, kinds: &'static [Kind], meaning: &'static str) -> Param {
    Param { name, ty: Ty::Real(bounds), kinds, meaning }
}

/// Every parameter, in the order of `PARAM_COLUMNS`.
pub(crate) const PARAMS: [Param; 16] = [
    Param { name: "seat", ty: Ty::Choice(Choice::Seat), kinds: ALL_KINDS, meaning: "the agent's seat" },
    Param {
        name: "opponent",
        ty: Ty::Choice(Choice::Opponent),
        kinds: EXACT_AND_Q,
        meaning: "the opponent trained or solved against",
    },
    Param { name: "episodes", ty: Ty::Count { max: i64::MAX as u64 }, kinds: Q, meaning: "training games per job" },
    real("alpha", UNIT_OPEN, Q, "the initial step size"),
    real("alpha_decay", UNIT_OPEN, Q, "multiplied into alpha after every episode; 1 keeps it constant"),
    real("alpha_min", UNIT, Q, "the floor of alpha"),
    real("gamma", UNIT, Q, "the discount"),
    real("epsilon", UNIT, Q, "the initial exploration rate"),
    real("epsilon_decay", UNIT_OPEN, Q, "multiplied into epsilon after every episode"),
    real("epsilon_min", UNIT, Q, "the floor of epsilon"),
    real(
        "q_init",
        Bounds { lo: f64::NEG_INFINITY, lo_open: true, hi: f64::INFINITY, hi_open: true },
        Q,
        "the initial value of every table entry",
    ),
    Param { name: "symmetry", ty: Ty::Flag, kinds: Q, meaning: "store states once per symmetry class" },
    Param {
        name: "iterations",
        ty: Ty::Count { max: u32::MAX as u64 },
        kinds: MCTS,
        meaning: "search iterations per move",
    },
    real(
        "uct_c",
        Bounds { lo: 0.0, lo_open: false, hi: f64::INFINITY, hi_open: true },
        MCTS,
        "the UCT exploration constant",
    ),
    Param {
        name: "opponent_model",
        ty: Ty::Choice(Choice::OpponentModel),
        kinds: MCTS,
        meaning: "how the search models the opponent",
    },
    Param { name: "final_move", ty: Ty::Choice(Choice::FinalMove), kinds: MCTS, meaning: "which root move is played" },
];

/// The parameter with this name.
pub(crate) fn param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

/// The parameters a kind takes, in column order.
pub(crate) fn kind_params(kind: Kind) -> impl Iterator<Item = &'static Param> {
    PARAMS.iter().filter(move |p| p.kinds.contains(&kind))
}

impl Choice {
    /// The names this choice accepts for `kind`.
    pub fn names(self, kind: Option<Kind>) -> Vec<&'static str> {
        match self {
            Choice::Seat => Seat::ALL.iter().map(|s| s.name()).collect(),
            Choice::Opponent if kind == Some(Kind::QLearning) => TrainOpponent::ALL.iter().map(|o| o.name()).collect(),
            Choice::Opponent => Opponent::ALL.iter().map(|o| o.name()).collect(),
            Choice::OpponentModel => OpponentModel::ALL.iter().map(|m| m.name()).collect(),
            Choice::FinalMove => FinalMove::ALL.iter().map(|m| m.name()).collect(),
        }
    }

    /// The value named `name`, if `kind` accepts it.
    pub fn parse(self, name: &str, kind: Option<Kind>) -> Option<Val> {
        if !self.names(kind).contains(&name) {
            return None;
        }
        Some(match self {
            Choice::Seat => Val::Seat(name.parse().ok()?),
            Choice::Opponent => Val::Opponent(TrainOpponent::from_name(name)?),
            Choice::OpponentModel => Val::OpponentModel(OpponentModel::from_name(name)?),
            Choice::FinalMove => Val::FinalMove(FinalMove::from_name(name)?),
        })
    }
}

impl Bounds {
    /// Whether `x` lies in the bounds (and is finite).
    pub fn contains(&self, x: f64) -> bool {
        let above = if self.lo_open { x > self.lo } else { x >= self.lo };
        let below = if self.hi_open { x < self.hi } else { x <= self.hi };
        x.is_finite() && above && below
    }

    /// The bounds in words: `in (0, 1]`, `a finite number >= 0`, `any finite number`.
    pub fn describe(&self) -> String {
        let lo = if self.lo.is_finite() { Some(fmt_short(self.lo)) } else { None };
        let hi = if self.hi.is_finite() { Some(fmt_short(self.hi)) } else { None };
        match (lo, hi) {
            (Some(lo), Some(hi)) => {
                let open = if self.lo_open { '(' } else { '[' };
                let close = if self.hi_open { ')' } else { ']' };
                format!("in {open}{lo}, {hi}{close}")
            }
            (Some(lo), None) => format!("a finite number {} {lo}", if self.lo_open { ">" } else { ">=" }),
            (None, Some(hi)) => format!("a finite number {} {hi}", if self.hi_open { "<" } else { "<=" }),
            (None, None) => "any finite number".to_string(),
        }
    }
}

/// A number in its shortest form (`1` rather than `1.0`), for messages.
pub(crate) fn fmt_short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { fmt_f64(x) }
}

/// The default value of `param` for `kind`.
pub(crate) fn default_val(kind: Kind, param: &Param) -> Val {
    let q = QParams::default();
    let m = MctsParams::default();
    match param.name {
        "seat" => Val::Seat(Seat::X),
        "opponent" => Val::Opponent(TrainOpponent::Fixed(Opponent::Random)),
        "episodes" => Val::Count(q.episodes),
        "alpha" => Val::Real(q.alpha),
        "alpha_decay" => Val::Real(q.alpha_decay),
        "alpha_min" => Val::Real(q.alpha_min),
        "gamma" => Val::Real(q.gamma),
        "epsilon" => Val::Real(q.epsilon),
        "epsilon_decay" => Val::Real(q.epsilon_decay),
        "epsilon_min" => Val::Real(q.epsilon_min),
        "q_init" => Val::Real(q.q_init),
        "symmetry" => Val::Flag(q.symmetry),
        "iterations" => Val::Count(u64::from(m.iterations)),
        "uct_c" => Val::Real(m.uct_c),
        "opponent_model" => Val::OpponentModel(m.opponent_model),
        "final_move" => Val::FinalMove(m.final_move),
        other => unreachable!("{other} is not a parameter of {}", kind.name()),
    }
}

/// The parameters of one grid point; `v` holds one value per parameter of
/// [`kind_params`]`(kind)`, in that order.
pub(crate) fn build(kind: Kind, v: &[Val]) -> Params {
    match kind {
        Kind::PolicyIteration => {
            Params::PolicyIteration(ExactParams { seat: v[0].seat(), opponent: v[1].fixed_opponent() })
        }
        Kind::ValueIteration => {
            Params::ValueIteration(ExactParams { seat: v[0].seat(), opponent: v[1].fixed_opponent() })
        }
        Kind::QLearning => Params::QLearning(QParams {
            seat: v[0].seat(),
            opponent: v[1].opponent(),
            episodes: v[2].count(),
            alpha: v[3].real(),
            alpha_decay: v[4].real(),
            alpha_min: v[5].real(),
            gamma: v[6].real(),
            epsilon: v[7].real(),
            epsilon_decay: v[8].real(),
            epsilon_min: v[9].real(),
            q_init: v[10].real(),
            symmetry: matches!(v[11], Val::Flag(true)),
        }),
        Kind::Mcts => Params::Mcts(MctsParams {
            seat: v[0].seat(),
            iterations: u32::try_from(v[1].count()).expect("iterations were validated to fit in u32"),
            uct_c: v[2].real(),
            opponent_model: match v[3] {
                Val::OpponentModel(m) => m,
                other => unreachable!("expected an opponent model, got {other:?}"),
            },
            final_move: match v[4] {
                Val::FinalMove(m) => m,
                other => unreachable!("expected a final move, got {other:?}"),
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solvers::params::PARAM_COLUMNS;

    #[test]
    fn params_follow_the_csv_columns() {
        let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        assert_eq!(names, PARAM_COLUMNS);
    }

    #[test]
    fn build_lines_up_with_columns() {
        // Building from the defaults gives the documented defaults, and the columns of the
        // result are exactly the kind's parameters, in order.
        for kind in Kind::ALL {
            let vals: Vec<Val> = kind_params(kind).map(|p| default_val(kind, p)).collect();
            let params = build(kind, &vals);
            let columns: Vec<&str> = params.columns().into_iter().map(|(c, _)| c).collect();
            let expected: Vec<&str> = kind_params(kind).map(|p| p.name).collect();
            assert_eq!(columns, expected, "{kind:?}");
            let shown: Vec<String> = vals.iter().map(|v| v.show()).collect();
            let values: Vec<String> = params.columns().into_iter().map(|(_, v)| v).collect();
            assert_eq!(shown, values);
        }
        let q: Vec<Val> = kind_params(Kind::QLearning).map(|p| default_val(Kind::QLearning, p)).collect();
        assert_eq!(build(Kind::QLearning, &q), Params::QLearning(QParams::default()));
        let m: Vec<Val> = kind_params(Kind::Mcts).map(|p| default_val(Kind::Mcts, p)).collect();
        assert_eq!(build(Kind::Mcts, &m), Params::Mcts(MctsParams::default()));
    }

    #[test]
    fn bounds_in_words() {
        assert_eq!(UNIT_OPEN.describe(), "in (0, 1]");
        assert_eq!(UNIT.describe(), "in [0, 1]");
        assert_eq!(
            param("uct_c").map(|p| p.ty).map(|t| matches!(t, Ty::Real(b) if b.describe() == "a finite number >= 0")),
            Some(true)
        );
        assert!(!UNIT_OPEN.contains(0.0));
        assert!(UNIT_OPEN.contains(1.0));
        assert!(!UNIT.contains(f64::NAN));
    }

    #[test]
    fn choices_depend_on_kind() {
        assert!(Choice::Opponent.parse("self", Some(Kind::QLearning)).is_some());
        assert!(Choice::Opponent.parse("self", Some(Kind::PolicyIteration)).is_none());
        assert_eq!(Choice::Seat.parse("o", None), Some(Val::Seat(Seat::O)));
        assert_eq!(Choice::FinalMove.names(None), ["visits", "value"]);
    }
}
