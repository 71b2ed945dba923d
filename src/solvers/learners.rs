//! The tabular learners, one row each: the one list that the solver kinds, `sweep bench`,
//! the cost model and the tests read. A new learner is its algorithm's file, its row here
//! and its kind (`kinds/`); a learner without a row has no cost or benchmark, and a test
//! (`kinds::tests`) fails when a learner kind and this table disagree.

use super::params::{MonteCarloParams, QLambdaParams, QParams, StepRule};
use super::sarsa_lambda::SarsaLambdaParams;
use super::tabular::{Checkpoint, QTable, Trained};
use super::{double_q_learning, expected_sarsa, monte_carlo, q_lambda, q_learning, sarsa, sarsa_lambda};

/// What the table of a learner estimates (the target of its `q_error`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Q* (off-policy learners).
    Optimal,
    /// Q^π of the final behaviour policy, or Q* when that policy is greedy (on-policy
    /// learners).
    Behaviour,
}

/// One training run of a learner against a fixed opponent, with a learner's parameters
/// (its own extra parameters at the values of [`Learner::train`]'s note), its seed, the
/// checkpoint episodes and what to do at each.
pub type Train = fn(&QParams, u64, &[u64], &mut dyn FnMut(Checkpoint, &QTable)) -> Trained;

/// A tabular learner.
#[derive(Clone, Copy)]
pub struct Learner {
    /// Its kind's name in specs and in the `solver` column.
    pub name: &'static str,
    /// What its table estimates.
    pub target: Target,
    /// The value tables it keeps (Double Q-learning: two).
    pub tables: u64,
    /// Its training episodes per second over Q-learning's, tic-tac-toe X against random
    /// with the seed settings, on the reference machine (`sweep bench` measures this
    /// machine's; these stand in until it has).
    pub share: f64,
    /// How many exponentials its softmax exploration costs per move over Q-learning's:
    /// Expected SARSA's target takes its expectation over the next state's moves too (1.6
    /// times as many), Double Q-learning weighs the sum of its two tables (1.3 times, in
    /// self-play on 3x4k4); the cost model's figure.
    pub softmax_cost: f64,
    /// How much slower than its share of Q-learning's its self-play episode is (the
    /// boards' self-play costs were measured with Q-learning; SARSA, Expected SARSA,
    /// Double Q-learning and Monte Carlo control took 1.2 times as long again on average,
    /// 0.9 to 1.6 over 3x3k3, 3x4k4 and 4x4g4; Q(lambda)'s own cost is counted apart,
    /// [`crate::cost::boards::traces_self_play`]); the cost model's figure.
    pub self_play_slower: f64,
    /// Whether the symmetry index's cost adds to what its share says rather than
    /// multiplying it: Q(lambda), whose work beyond Q-learning's (its traces) holds
    /// canonical slots and reads no index (measured on 4x4g4 as X against random: with
    /// symmetry its training took 1.21 times Q-learning's, without 1.27); the cost model's.
    pub symmetry_adds: bool,
    /// Its training (Monte Carlo with `step = "alpha"`, Q(lambda) and SARSA(lambda) with
    /// `lambda = 0.8`),
    /// with checkpoints: what the tests run.
    pub train: Train,
    /// The same training without checkpoints, as `sweep bench` times it (the loop a job
    /// runs, with nothing called at checkpoints).
    pub bench: fn(&QParams, u64),
}

/// Every tabular learner, Q-learning first (the others' speeds are shares of its).
pub const LEARNERS: &[Learner] = &[
    Learner {
        name: "q-learning",
        target: Target::Optimal,
        tables: 1,
        share: 1.0,
        softmax_cost: 1.0,
        self_play_slower: 1.0,
        symmetry_adds: false,
        train: |p, seed, marks, c| q_learning::train_table(p, seed, marks, c),
        bench: |p, seed| drop(q_learning::train_table(p, seed, &[], |_, _| {})),
    },
    Learner {
        name: "sarsa",
        target: Target::Behaviour,
        tables: 1,
        share: 0.93,
        softmax_cost: 1.0,
        self_play_slower: 1.2,
        symmetry_adds: false,
        train: |p, seed, marks, c| sarsa::train(p, seed, marks, c),
        bench: |p, seed| drop(sarsa::train(p, seed, &[], |_, _| {})),
    },
    Learner {
        name: "expected-sarsa",
        target: Target::Behaviour,
        tables: 1,
        share: 0.72,
        softmax_cost: 1.6,
        self_play_slower: 1.2,
        symmetry_adds: false,
        train: |p, seed, marks, c| expected_sarsa::train(p, seed, marks, c),
        bench: |p, seed| drop(expected_sarsa::train(p, seed, &[], |_, _| {})),
    },
    Learner {
        name: "double-q-learning",
        target: Target::Optimal,
        tables: 2,
        share: 0.62,
        softmax_cost: 1.3,
        self_play_slower: 1.2,
        symmetry_adds: false,
        train: |p, seed, marks, c| double_q_learning::train(p, seed, marks, c),
        bench: |p, seed| drop(double_q_learning::train(p, seed, &[], |_, _| {})),
    },
    Learner {
        name: "monte-carlo",
        target: Target::Behaviour,
        tables: 1,
        share: 0.75,
        softmax_cost: 1.0,
        self_play_slower: 1.2,
        symmetry_adds: false,
        train: |p, seed, marks, c| {
            monte_carlo::train(&MonteCarloParams { learner: *p, step: StepRule::Alpha }, seed, marks, c)
        },
        bench: |p, seed| {
            let mc = MonteCarloParams { learner: *p, step: StepRule::Alpha };
            drop(monte_carlo::train(&mc, seed, &[], |_, _| {}))
        },
    },
    Learner {
        name: "q-lambda",
        target: Target::Optimal,
        tables: 1,
        share: 0.8,
        softmax_cost: 1.0,
        self_play_slower: 1.0,
        symmetry_adds: true,
        train: |p, seed, marks, c| q_lambda::train(&QLambdaParams { learner: *p, lambda: 0.8 }, seed, marks, c),
        bench: |p, seed| drop(q_lambda::train(&QLambdaParams { learner: *p, lambda: 0.8 }, seed, &[], |_, _| {})),
    },
    Learner {
        name: "sarsa-lambda",
        target: Target::Behaviour,
        tables: 1,
        share: 0.75,
        softmax_cost: 1.0,
        self_play_slower: 1.2,
        symmetry_adds: true,
        train: |p, seed, marks, c| sarsa_lambda::train(&SarsaLambdaParams { learner: *p, lambda: 0.8 }, seed, marks, c),
        bench: |p, seed| {
            drop(sarsa_lambda::train(&SarsaLambdaParams { learner: *p, lambda: 0.8 }, seed, &[], |_, _| {}))
        },
    },
];

/// The learner called `name`, if there is one.
pub fn find(name: &str) -> Option<&'static Learner> {
    LEARNERS.iter().find(|l| l.name == name)
}

/// The learner called `name` (a bug if there is none: names come from the kinds).
pub fn learner(name: &str) -> &'static Learner {
    find(name).unwrap_or_else(|| panic!("{name} has no row in solvers::learners::LEARNERS"))
}
