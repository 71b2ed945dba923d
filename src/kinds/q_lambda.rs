//! `q-lambda`: Watkins's Q(lambda) against a fixed opponent or in self-play
//! (`solvers/q_lambda.rs`), with the tabular learners' parameters (`kinds/learner.rs`), its
//! `lambda` and its cost (its row in `solvers/learners.rs`). Its learning curve has
//! `checkpoints` points; its `q_error` target is Q*.

use super::learner::traced_learner;
use crate::mdp::Opponent;
use crate::solvers::{QLambdaParams, TrainOpponent};

traced_learner!(QLambdaParams, "q-lambda", crate::solvers::q_lambda::train, reach);

/// Its policies reach more states than Q-learning's in an evaluation: 1.5 times as many
/// trained against random, four times after self-play (measured on 3x4k4 and 4x4g4: 1.2
/// to 1.8 times against random as a seat, 1.7 to 2.6 in self-play, 5 to 8 against
/// minimax-uniform after self-play); trained against minimax, as many (3x4k3 as O: a
/// tenth of a millisecond an evaluation).
fn reach(opponent: TrainOpponent) -> f64 {
    match opponent {
        TrainOpponent::SelfPlay => 4.0,
        TrainOpponent::Fixed(Opponent::Random) => 1.5,
        TrainOpponent::Fixed(_) => 1.0,
    }
}
