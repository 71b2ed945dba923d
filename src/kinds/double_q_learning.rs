//! `double-q-learning`: Double Q-learning against a fixed opponent or in self-play (`solvers/double_q_learning.rs`),
//! with the tabular learners' parameters (`kinds/learner.rs`) and cost. Its learning curve
//! has `checkpoints` points; its `q_error` target is Q*.

use super::learner::one_table_learner;

one_table_learner!(
    /// A grid point of `double-q-learning`.
    DoubleQLearning, "double-q-learning", crate::solvers::double_q_learning::train
);
