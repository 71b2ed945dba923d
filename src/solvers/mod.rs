//! The solvers: exact dynamic programming and the learners, one file per algorithm, and
//! their validated parameters.

pub mod action_values;
pub mod double_q_learning;
pub mod driver;
pub mod expected_sarsa;
pub mod ground_truth;
pub mod layout;
pub mod learners;
pub mod mcts;
pub mod monte_carlo;
pub mod params;
pub mod policy_iteration;
pub mod q_lambda;
pub mod q_learning;
pub mod sarsa;
pub mod sarsa_lambda;
pub mod self_play;
pub mod spacing;
pub mod tabular;
mod traces;
pub mod value_iteration;

#[cfg(test)]
mod learner_tests;

pub use ground_truth::{GroundTruth, ground_truth};
pub use params::{
    ExactParams, ExplorationRule, FinalMove, MctsParams, MonteCarloParams, OpponentModel, QLambdaParams, QParams,
    StepRule, TrainOpponent,
};
