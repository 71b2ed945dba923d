//! `expected-sarsa`: Expected SARSA against a fixed opponent or in self-play (`solvers/expected_sarsa.rs`),
//! with the tabular learners' parameters (`kinds/learner.rs`) and cost. Its learning curve
//! has `checkpoints` points; its `q_error` target is Q^π of its final behaviour policy (Q* when that is greedy).

use super::learner::one_table_learner;

one_table_learner!(
    /// A grid point of `expected-sarsa`.
    ExpectedSarsa, "expected-sarsa", crate::solvers::expected_sarsa::train
);
