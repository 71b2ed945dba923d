//! The solvers: exact dynamic programming and the learners, one file per algorithm, and
//! their validated parameters.

pub mod params;
pub mod policy_iteration;
pub mod value_iteration;

pub use params::{ExactParams, FinalMove, Kind, MctsParams, OpponentModel, Params, QParams, TrainOpponent};
