//! The solvers: exact dynamic programming and the learners, one file per algorithm, and
//! their validated parameters.

pub mod ground_truth;
pub mod mcts;
pub mod params;
pub mod policy_iteration;
pub mod q_learning;
pub mod self_play;
pub mod spacing;
pub mod tabular;
pub mod value_iteration;

pub use ground_truth::{GroundTruth, ground_truth};
pub use params::{ExactParams, FinalMove, MctsParams, OpponentModel, QParams, TrainOpponent};
