//! `sarsa-lambda`: SARSA(lambda) against a fixed opponent or in self-play
//! (`solvers/sarsa_lambda.rs`), with the tabular learners' parameters (`kinds/learner.rs`),
//! its `lambda` and its cost (its row in `solvers/learners.rs`). Its learning curve has
//! `checkpoints` points; its `q_error` target is Q^π of its final behaviour policy (Q* when
//! that is greedy).

use super::learner::traced_learner;
use crate::solvers::sarsa_lambda::SarsaLambdaParams;

// Its traces cost as Q(lambda)'s do; its policies reach as many states in an evaluation
// as a tabular learner's.
traced_learner!(SarsaLambdaParams, "sarsa-lambda", crate::solvers::sarsa_lambda::train, |_| 1.0);
