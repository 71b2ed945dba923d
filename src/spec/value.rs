//! One value of one parameter, as validated: what grid axes hold and grid points are
//! built from.

use crate::mdp::{Opponent, Seat};
use crate::solvers::params::fmt_f64;
use crate::solvers::{FinalMove, OpponentModel, TrainOpponent};

/// One value of one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Val {
    Real(f64),
    Count(u64),
    Flag(bool),
    Seat(Seat),
    Opponent(TrainOpponent),
    OpponentModel(OpponentModel),
    FinalMove(FinalMove),
}

impl Val {
    /// The value as written in CSV files.
    pub fn show(self) -> String {
        match self {
            Val::Real(x) => fmt_f64(x),
            Val::Count(n) => n.to_string(),
            Val::Flag(b) => b.to_string(),
            Val::Seat(s) => s.name().to_string(),
            Val::Opponent(o) => o.name().to_string(),
            Val::OpponentModel(m) => m.name().to_string(),
            Val::FinalMove(m) => m.name().to_string(),
        }
    }

    /// The value in the resolved spec.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Val::Real(x) => serde_json::Value::from(x),
            Val::Count(n) => serde_json::Value::from(n),
            Val::Flag(b) => serde_json::Value::from(b),
            other => serde_json::Value::from(other.show()),
        }
    }

    /// The value as a whole number, if it is one.
    pub fn as_count(self) -> Option<u64> {
        match self {
            Val::Count(n) => Some(n),
            _ => None,
        }
    }

    /// The number (a bug if the value is not one).
    pub fn real(self) -> f64 {
        match self {
            Val::Real(x) => x,
            other => unreachable!("expected a number, got {other:?}"),
        }
    }

    /// The whole number (a bug if the value is not one).
    pub fn count(self) -> u64 {
        match self {
            Val::Count(n) => n,
            other => unreachable!("expected a count, got {other:?}"),
        }
    }

    /// The seat (a bug if the value is not one).
    pub fn seat(self) -> Seat {
        match self {
            Val::Seat(s) => s,
            other => unreachable!("expected a seat, got {other:?}"),
        }
    }

    /// The training opponent (a bug if the value is not one).
    pub fn opponent(self) -> TrainOpponent {
        match self {
            Val::Opponent(o) => o,
            other => unreachable!("expected an opponent, got {other:?}"),
        }
    }

    /// The fixed opponent (a bug if the value is not one, or is self-play).
    pub fn fixed_opponent(self) -> Opponent {
        match self.opponent() {
            TrainOpponent::Fixed(o) => o,
            TrainOpponent::SelfPlay => unreachable!("self-play is only valid for q-learning"),
        }
    }

    /// A number that is equal for equal values of one parameter (`0.0` and `-0.0` are equal).
    pub fn identity(self) -> u64 {
        match self {
            Val::Real(x) => (x + 0.0).to_bits(),
            Val::Count(n) => n,
            Val::Flag(b) => u64::from(b),
            Val::Seat(s) => s as u64,
            Val::Opponent(o) => TrainOpponent::ALL.iter().position(|&x| x == o).unwrap_or(0) as u64,
            Val::OpponentModel(m) => m as u64,
            Val::FinalMove(m) => m as u64,
        }
    }
}
