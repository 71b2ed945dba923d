//! `sarsa`: SARSA against a fixed opponent or in self-play (`solvers/sarsa.rs`),
//! with the tabular learners' parameters (`kinds/learner.rs`) and cost. Its learning curve
//! has `checkpoints` points; its `q_error` target is Q^π of its final behaviour policy (Q* when that is greedy).

use super::learner::one_table_learner;

one_table_learner!(
    /// A grid point of `sarsa`.
    Sarsa, "sarsa", crate::solvers::sarsa::train
);
