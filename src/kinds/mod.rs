//! Solver kinds: each kind owns itself. A kind's file (`kinds/<kind>.rs`) declares its
//! name and parameters, builds its typed grid point from validated values, gives back its
//! values in column order, estimates its cost, and trains (or solves) into an [`Agent`].
//! The spec reader, the CSV header, the job key, the executor, `plan` and `reproduce` all
//! go through the registry below and never match on a kind themselves.
//!
//! Adding a kind is one new file implementing [`Solver`] and [`Declared`] (and [`Train`]
//! for a kind that runs in this process), plus one line in `registry!`'s invocation;
//! leaving out a method is a compile error (the traits have no default methods). How a
//! kind's jobs run is part of its declaration ([`Declared::RUNS_A_PROGRAM`],
//! [`Solver::execution`]): no caller matches on a kind to learn it.
//!
//! The algorithms live in `solvers/`; this layer is the glue between them and the spec
//! (it reads no files and prints nothing either).

pub mod command;
mod double_q_learning;
mod exact;
mod expected_sarsa;
mod learner;
mod mcts;
mod monte_carlo;
pub mod param;
mod q_lambda;
mod q_learning;
mod sarsa;
mod sarsa_lambda;

use std::fmt;

pub use command::{CommandPoint, Program};
pub use double_q_learning::DoubleQLearning;
pub use exact::{PolicyIteration, ValueIteration};
pub use expected_sarsa::ExpectedSarsa;
pub use mcts::{SearchAgent, search_policy};
pub use param::{Param, Ty, Val, Values};
pub use sarsa::Sarsa;

use crate::cost::memory::Need;
use crate::cost::{Calibration, Load};
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Moves, Policy, Seat};
use crate::solvers::q_learning::Checkpoint;
use crate::solvers::tabular::QTable;
use crate::solvers::{MctsParams, MonteCarloParams, QLambdaParams, QParams, TrainOpponent};

/// What a trained (or solved) job plays with.
#[derive(Clone, Debug)]
pub enum Agent {
    /// A move per position.
    Policy(Policy),
    /// A learned table (its greedy policy plays, asked only where an evaluation reaches),
    /// and how far the table is from the exact values it estimates (the `q_error` column).
    Learned {
        /// The table.
        table: QTable,
        /// The root-mean-square error of the table (see `solvers/action_values.rs`).
        q_error: f64,
    },
    /// A search per position, run when the evaluation reaches it (see [`search_policy`]).
    Search(MctsParams),
}

/// The work of one job, as `sweep plan` counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Work {
    /// Training episodes.
    pub episodes: u64,
    /// Search iterations per move.
    pub iterations: u64,
}

/// What every kind does with one grid point. Object-safe: the registry hands out
/// `&dyn Solver`.
pub trait Solver: fmt::Debug + Send + Sync {
    /// The values of the kind's parameters, in the order of [`Declared::PARAMS`].
    fn values(&self) -> Vec<Val>;

    /// The work `sweep plan` counts.
    fn work(&self) -> Work;

    /// Whom a job plays as: one seat, or both (self-play).
    fn seats(&self) -> Seats;

    /// What training, solving or searching does, for an evaluation of `seats` by
    /// `evaluation`, as the cost model counts it ([`crate::cost`]; the sampled games are
    /// added by [`Params::load`]).
    fn load(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Load;

    /// The memory a job needs for evaluating `seats` by `evaluation`: its own, and the
    /// shared tables it uses (see [`crate::cost::memory`]).
    fn memory(&self, seats: &[Seat], evaluation: &EvaluationSpec) -> Need;

    /// How a job of this point runs: in this process ([`Train`]) or by a program.
    fn execution(&self) -> Execution<'_>;
}

/// How a job of a grid point runs.
#[derive(Clone, Copy)]
pub enum Execution<'a> {
    /// In this process: the kind trains, solves or searches.
    InProcess(&'a dyn Train),
    /// By the program of a command solver, which the executor starts and fences in
    /// (`run/program.rs`).
    Program(&'a CommandPoint),
}

/// A kind whose jobs run in this process.
pub trait Train {
    /// Trains (or solves) from `seed`; a learner calls `record` with its greedy policy
    /// after each episode listed in `marks` (increasing; a leading 0 asks for the
    /// untrained policy, before the first episode). Others ignore `marks`.
    fn train(&self, seed: u64, marks: &[u64], record: &mut dyn FnMut(Checkpoint, &dyn Moves)) -> Agent;
}

/// Whom a job plays as, and so the seats it is evaluated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seats {
    /// One seat, against its opponent.
    One(Seat),
    /// Both, by self-play.
    Both,
}

impl Seats {
    /// A learner's: both in self-play, else its seat.
    pub fn of(seat: Seat, opponent: TrainOpponent) -> Seats {
        match opponent {
            TrainOpponent::SelfPlay => Seats::Both,
            TrainOpponent::Fixed(_) => Seats::One(seat),
        }
    }

    /// The seats evaluated, X first.
    pub fn list(self) -> Vec<Seat> {
        match self {
            Seats::One(seat) => vec![seat],
            Seats::Both => vec![Seat::X, Seat::O],
        }
    }
}

/// What a kind declares about itself.
pub trait Declared: Solver + Sized {
    /// Its name in specs and in the `solver` column.
    const NAME: &'static str;
    /// Its parameters, in column order.
    const PARAMS: &'static [&'static Param];
    /// Whether its jobs run a program (see [`Execution`]): its points then need the
    /// program besides their values, and its cost leaves the program's own time out.
    const RUNS_A_PROGRAM: bool;
    /// The grid point with these validated values; `None` for a kind whose values alone
    /// do not make a point (a program's: [`Params::of_program`]).
    fn build(values: &Values<'_>) -> Option<Self>;
}

/// Generates [`Kind`] (the names) and [`Params`] (the grid points) from one list of
/// `Variant(Type)`, and the one `match` that dispatches to each kind.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident($ty:ty)),+ $(,)?) => {
        /// The solver kinds, as spelled in specs and in the `solver` column.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Kind {
            $($(#[$doc])* $variant),+
        }

        /// One grid point of one solver: everything a job needs besides its seed.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum Params {
            $($(#[$doc])* $variant($ty)),+
        }

        impl Kind {
            /// Every kind, in registry order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant),+];

            /// The spelling in specs and CSV files.
            pub fn name(self) -> &'static str {
                match self {
                    $(Kind::$variant => <$ty as Declared>::NAME),+
                }
            }

            /// The kind's parameters, in column order.
            pub fn params(self) -> &'static [&'static Param] {
                match self {
                    $(Kind::$variant => <$ty as Declared>::PARAMS),+
                }
            }

            /// Whether the kind's jobs run a program ([`Declared::RUNS_A_PROGRAM`]).
            pub fn runs_a_program(self) -> bool {
                match self {
                    $(Kind::$variant => <$ty as Declared>::RUNS_A_PROGRAM),+
                }
            }

            /// The grid point with `values`, one per parameter of [`Kind::params`]; `None`
            /// for a kind that runs a program (see [`Params::of_program`]).
            pub fn build(self, values: &[Val]) -> Option<Params> {
                match self {
                    $(Kind::$variant => <$ty>::build(&Values::new(self.params(), values)).map(Params::$variant)),+
                }
            }
        }

        impl Params {
            /// The solver kind.
            pub fn kind(&self) -> Kind {
                match self {
                    $(Params::$variant(_) => Kind::$variant),+
                }
            }

            /// The kind's behaviour for this grid point.
            pub fn solver(&self) -> &dyn Solver {
                match self {
                    $(Params::$variant(p) => p),+
                }
            }
        }
    };
}

registry! {
    /// Exact policy iteration.
    PolicyIteration(PolicyIteration),
    /// Exact value iteration.
    ValueIteration(ValueIteration),
    /// Tabular Q-learning, against a fixed opponent or in self-play.
    QLearning(QParams),
    /// Monte Carlo tree search with UCT.
    Mcts(MctsParams),
    /// SARSA, against a fixed opponent or in self-play.
    Sarsa(Sarsa),
    /// Expected SARSA, against a fixed opponent or in self-play.
    ExpectedSarsa(ExpectedSarsa),
    /// Double Q-learning, against a fixed opponent or in self-play.
    DoubleQLearning(DoubleQLearning),
    /// First-visit Monte Carlo control, against a fixed opponent or in self-play.
    MonteCarlo(MonteCarloParams),
    /// Watkins's Q(lambda), against a fixed opponent or in self-play.
    QLambda(QLambdaParams),
    /// SARSA(lambda), against a fixed opponent or in self-play.
    SarsaLambda(crate::solvers::sarsa_lambda::SarsaLambdaParams),
    /// A researcher's own program, run once per job; its policies are scored exactly.
    Command(CommandPoint),
}

impl Kind {
    /// The kind with this name.
    pub fn from_name(s: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == s)
    }

    /// This kind's declaration of the parameter `name`, if it takes one.
    pub fn param(self, name: &str) -> Option<&'static Param> {
        self.params().iter().copied().find(|p| p.name == name)
    }
}

/// Every parameter name any kind takes, once each, in registry order (each kind's own
/// order, new names as they first appear): the order of the parameter columns.
pub fn parameter_names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for kind in Kind::ALL {
        for p in kind.params() {
            if !names.contains(&p.name) {
                names.push(p.name);
            }
        }
    }
    names
}

/// Any kind's declaration of the parameter `name` (the first in registry order).
pub fn any_param(name: &str) -> Option<&'static Param> {
    Kind::ALL.iter().find_map(|k| k.param(name))
}

/// The kinds that take a parameter called `name`.
pub fn takers(name: &str) -> Vec<Kind> {
    Kind::ALL.iter().copied().filter(|k| k.param(name).is_some()).collect()
}

/// The value that makes a learner play itself.
pub const SELF_PLAY: Val = Val::Name("self");

impl Params {
    /// The point of a command solver's `program` with `values` (one per
    /// [`Program::axes`]).
    pub fn of_program(program: &'static Program, values: &[Val]) -> Params {
        Params::Command(CommandPoint::new(program, values))
    }

    /// The `solver` column: the kind's name, or `command:<label>` for a program.
    pub fn solver_name(&self) -> &'static str {
        match self.program() {
            Some(c) => c.program.solver,
            None => self.kind().name(),
        }
    }

    /// How a job of this point runs (see [`Solver::execution`]).
    pub fn execution(&self) -> Execution<'_> {
        self.solver().execution()
    }

    /// The program of a command solver's point.
    pub fn program(&self) -> Option<&CommandPoint> {
        match self.execution() {
            Execution::Program(c) => Some(c),
            Execution::InProcess(_) => None,
        }
    }

    /// The values of every parameter of the kind, in column order.
    pub fn values(&self) -> Vec<Val> {
        self.solver().values()
    }

    /// Whether this grid point trains by self-play (its `opponent` is `self`).
    pub fn self_play(&self) -> bool {
        self.solver().seats() == Seats::Both
    }

    /// The board a job of these parameters plays.
    pub fn game(&self) -> crate::game::Game {
        match self.values().iter().find_map(|v| if let Val::Game(g) = v { Some(*g) } else { None }) {
            Some(game) => game,
            None => crate::game::Game::TIC_TAC_TOE,
        }
    }

    /// The seats a job of these parameters is evaluated in: both in self-play, else its
    /// seat.
    pub fn eval_seats(&self) -> Vec<Seat> {
        self.solver().seats().list()
    }

    /// Every parameter as `(column, value)` in column order, as the job runs it (see
    /// [`Params::running`]; an unset optional parameter is empty); the seat of a self-play
    /// job is left out (it plays both).
    pub fn columns(&self) -> Vec<(&'static str, String)> {
        let self_play = self.self_play();
        let params = self.kind().params();
        params
            .iter()
            .zip(self.values())
            .filter(|(p, _)| !(self_play && p.name == "seat"))
            .map(|(p, v)| (p.name, p.cell(self.running(p.name).unwrap_or(v))))
            .collect()
    }

    /// The value of the parameter `name` as the job runs it, if the kind takes it: the
    /// spec's, but for the decay of a rate given a `_min_at`, which is derived from the
    /// fraction and the job's episodes (see [`crate::solvers::params::decay_to_floor`]).
    pub fn running(&self, name: &str) -> Option<Val> {
        let params = self.kind().params();
        let values = self.values();
        let get = |name: &str| params.iter().position(|p| p.name == name).map(|i| values[i]);
        let value = get(name)?;
        let Some(rate) = name.strip_suffix("_decay") else { return Some(value) };
        let real = |name: &str| match get(name) {
            Some(Val::Real(x)) => Some(x),
            _ => None,
        };
        // The fraction, when the kind takes it and it is set.
        let at = format!("{rate}_min_at");
        let fraction = self.kind().param(&at).filter(|p| get(&at).is_some_and(|v| p.in_key(v))).and(real(&at));
        let (Some(fraction), Some(start), Some(floor), Some(Val::Count(episodes))) =
            (fraction, real(rate), real(&format!("{rate}_min")), get("episodes"))
        else {
            return Some(value);
        };
        Some(Val::Real(crate::solvers::params::decay_to_floor(start, floor, fraction, episodes)))
    }

    /// The canonical key that the job id hashes: master seed, kind, every parameter as
    /// `name=value` in column order, replicate; `;`-separated. The seat of a self-play job
    /// is left out, and so is a parameter added after the first version while it has its
    /// default ([`Param::in_key`]), so that the jobs of older specs keep their ids.
    pub fn canonical_key(&self, master_seed: u64, replicate: u32) -> String {
        let mut key = format!("seed={master_seed};solver={}", self.solver_name());
        let self_play = self.self_play();
        let params = self.kind().params();
        let in_key = params.iter().zip(self.values()).filter(|(p, v)| !(self_play && p.name == "seat") && p.in_key(*v));
        for (name, value) in in_key.map(|(p, v)| (p.name, v.show())) {
            key.push(';');
            key.push_str(name);
            key.push('=');
            key.push_str(&value);
        }
        key.push_str(&format!(";replicate={replicate}"));
        key
    }

    /// What one job of these parameters does (see [`crate::cost`]).
    pub fn load(&self, evaluation: &EvaluationSpec) -> Load {
        let seats = self.eval_seats();
        let mut load = self.solver().load(&seats, evaluation);
        load.sampled_games += evaluation.games * (seats.len() * evaluation.opponents.len()) as u64;
        load
    }

    /// Seconds one job of these parameters takes on one core, by `cal`.
    pub fn seconds(&self, evaluation: &EvaluationSpec, cal: &Calibration) -> f64 {
        crate::cost::seconds(&self.load(evaluation), cal)
    }

    /// The memory one job needs (see [`Solver::memory`]).
    pub fn memory(&self, evaluation: &EvaluationSpec) -> Need {
        self.solver().memory(&self.eval_seats(), evaluation)
    }

    /// The work `sweep plan` counts.
    pub fn work(&self) -> Work {
        self.solver().work()
    }
}

#[cfg(test)]
mod tests;
