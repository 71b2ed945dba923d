//! What the tabular learner kinds share (`q-learning`, `sarsa`, `expected-sarsa`,
//! `double-q-learning`, `monte-carlo`, and with traces `q-lambda` and `sarsa-lambda`):
//! their common parameters, read and written in one place, their cost, and the exact
//! target of their `q_error`.
//!
//! Each kind declares [`PARAMS`] (or [`MONTE_CARLO_PARAMS`]) (the version-2 parameters at the end,
//! so the grid points of older specs keep their order), builds its [`QParams`] with
//! [`build`], gives its values with [`values`], and turns its training into an [`Agent`]
//! with [`agent`].

use super::param::{
    ALPHA, ALPHA_DECAY, ALPHA_MIN, ALPHA_MIN_AT, EPISODES, EPSILON, EPSILON_DECAY, EPSILON_MIN, EPSILON_MIN_AT,
    EXPLORATION, GAME, GAMMA, LAMBDA, Q_INIT, SEAT, STEP, SYMMETRY, TEMPERATURE, TEMPERATURE_DECAY, TEMPERATURE_MIN,
    TEMPERATURE_MIN_AT, TRAIN_OPPONENT,
};
use super::{Agent, Param, Val, Values};
use crate::cost::memory::Need;
use crate::cost::{Load, Training};
use crate::evaluation::EvaluationSpec;
use crate::mdp::{Opponent, Seat};
use crate::solvers::action_values::{behaviour_action_values, optimal, q_error, q_error_optimal};
use crate::solvers::layout::LayoutKey;
use crate::solvers::learners::{self, Learner, Target};
use crate::solvers::params::ExplorationRule;
use crate::solvers::params::decay_to_floor;
use crate::solvers::tabular::Trained;
use crate::solvers::{QParams, TrainOpponent, ground_truth};

/// Every tabular learner's parameters, in column order, then `$extra` (a kind's own).
macro_rules! learner_params {
    ($($extra:expr),* $(,)?) => {
        &[
            &SEAT,
            &TRAIN_OPPONENT,
            &EPISODES,
            &ALPHA,
            &ALPHA_DECAY,
            &ALPHA_MIN,
            &GAMMA,
            &EPSILON,
            &EPSILON_DECAY,
            &EPSILON_MIN,
            &Q_INIT,
            &SYMMETRY,
            &EXPLORATION,
            &TEMPERATURE,
            &TEMPERATURE_DECAY,
            &TEMPERATURE_MIN,
            $($extra,)*
            &GAME,
            &EPSILON_MIN_AT,
            &ALPHA_MIN_AT,
            &TEMPERATURE_MIN_AT,
        ]
    };
}

/// Every tabular learner's parameters, in column order.
pub const PARAMS: &[&Param] = learner_params!();

/// Monte Carlo control's: [`PARAMS`], then `step`.
pub const MONTE_CARLO_PARAMS: &[&Param] = learner_params!(&STEP);

/// A learner's with eligibility traces (Q(lambda), SARSA(lambda)): [`PARAMS`], then `lambda`.
pub const TRACED_PARAMS: &[&Param] = learner_params!(&LAMBDA);

/// The learner's parameters from a grid point's values. A rate whose `_min_at` is set gets
/// the decay that brings it to its floor at that fraction of this point's episodes (see
/// [`decay_to_floor`]).
pub fn build(v: &Values<'_>) -> QParams {
    let episodes = v.count(&EPISODES);
    let min_at = |p: &Param| Some(v.real(p)).filter(|_| p.in_key(v.get(p)));
    let (epsilon_min_at, alpha_min_at, temperature_min_at) =
        (min_at(&EPSILON_MIN_AT), min_at(&ALPHA_MIN_AT), min_at(&TEMPERATURE_MIN_AT));
    let decay = |decay: &Param, start: &Param, floor: &Param, at: Option<f64>| match at {
        Some(f) => decay_to_floor(v.real(start), v.real(floor), f, episodes),
        None => v.real(decay),
    };
    QParams {
        seat: v.choice(&SEAT),
        opponent: v.choice(&TRAIN_OPPONENT),
        episodes,
        alpha: v.real(&ALPHA),
        alpha_decay: decay(&ALPHA_DECAY, &ALPHA, &ALPHA_MIN, alpha_min_at),
        alpha_min: v.real(&ALPHA_MIN),
        gamma: v.real(&GAMMA),
        epsilon: v.real(&EPSILON),
        epsilon_decay: decay(&EPSILON_DECAY, &EPSILON, &EPSILON_MIN, epsilon_min_at),
        epsilon_min: v.real(&EPSILON_MIN),
        q_init: v.real(&Q_INIT),
        symmetry: v.flag(&SYMMETRY),
        exploration: v.choice(&EXPLORATION),
        temperature: v.real(&TEMPERATURE),
        temperature_decay: decay(&TEMPERATURE_DECAY, &TEMPERATURE, &TEMPERATURE_MIN, temperature_min_at),
        temperature_min: v.real(&TEMPERATURE_MIN),
        game: v.game(&GAME),
        epsilon_min_at,
        alpha_min_at,
        temperature_min_at,
    }
}

/// The values of the parameters every learner shares but `game`, as the spec gives them:
/// a decay derived from a `_min_at` is the spec's (the default; see
/// [`super::Params::running`] for the decay that runs).
fn values(q: &QParams) -> Vec<Val> {
    let decay =
        |param: &Param, derived: f64, at: Option<f64>| if at.is_some() { param.default } else { Val::Real(derived) };
    vec![
        Val::Name(q.seat.name()),
        Val::Name(q.opponent.key()),
        Val::Count(q.episodes),
        Val::Real(q.alpha),
        decay(&ALPHA_DECAY, q.alpha_decay, q.alpha_min_at),
        Val::Real(q.alpha_min),
        Val::Real(q.gamma),
        Val::Real(q.epsilon),
        decay(&EPSILON_DECAY, q.epsilon_decay, q.epsilon_min_at),
        Val::Real(q.epsilon_min),
        Val::Real(q.q_init),
        Val::Flag(q.symmetry),
        Val::Name(q.exploration.name()),
        Val::Real(q.temperature),
        decay(&TEMPERATURE_DECAY, q.temperature_decay, q.temperature_min_at),
        Val::Real(q.temperature_min),
    ]
}

/// The values of [`PARAMS`] after `extra` (a kind's own): every learner's, then the
/// kind's own (version 2), then `game` (version 3), then the `_min_at` fractions (version
/// 4; an unset one is its declared default).
pub fn values_with(q: &QParams, extra: &[Val]) -> Vec<Val> {
    let mut values = values(q);
    values.extend_from_slice(extra);
    values.push(Val::Game(q.game));
    let fractions = [
        (&EPSILON_MIN_AT, q.epsilon_min_at),
        (&ALPHA_MIN_AT, q.alpha_min_at),
        (&TEMPERATURE_MIN_AT, q.temperature_min_at),
    ];
    values.extend(fractions.into_iter().map(|(param, at)| at.map_or(param.default, Val::Real)));
    values
}

/// What the job of learner `name` ([`crate::solvers::learners`]) does: its training (at
/// its share of Q-learning's speed, on its board, its seat or self-play, its symmetry,
/// how widely its schedule and opponent spread the games, softmax's exponentials), an
/// exact evaluation per checkpoint (and one of the untrained table) and at the end per
/// seat and opponent, and against a fixed opponent an on-policy learner's pass over every
/// slot for `q_error`.
pub fn load(q: &QParams, name: &'static str, seats: &[Seat], evaluation: &EvaluationSpec) -> Load {
    let learner = learners::learner(name);
    let mut load = Load::new(q.game, seats);
    let (side, seat, opponent) = match q.opponent {
        TrainOpponent::SelfPlay => (q.game.figures().all(), None, None),
        TrainOpponent::Fixed(o) => (crate::cost::memory::side(q.game, q.seat), Some(q.seat), Some(o)),
    };
    let (exploring, softmax) = match q.exploration {
        ExplorationRule::EpsilonGreedy => (mean_rate(q.epsilon, q.epsilon_decay, q.epsilon_min, q.episodes), 0.0),
        ExplorationRule::Softmax => {
            // Measured (see `cost::SOFTMAX`): the exponentials cost about half as much once
            // the temperature is low; a temperature spreads the games about as widely as
            // twice that epsilon, three times in self-play, where both sides' moves are
            // drawn so (3x4k4's self-play episode took 1.5 times what twice said); against
            // minimax the games are shorter (3x4k3 as O against minimax-uniform: 0.6 of
            // the random opponent's exponentials); the learner's own factor is its row's
            // `softmax_cost` (Expected SARSA's expectation, Double Q-learning's two tables).
            let temperature = mean_rate(q.temperature, q.temperature_decay, q.temperature_min, q.episodes);
            let expectation = learner.softmax_cost;
            let shorter = match q.opponent {
                TrainOpponent::SelfPlay | TrainOpponent::Fixed(Opponent::Random) => 1.0,
                TrainOpponent::Fixed(_) => 0.6,
            };
            let widely = if q.opponent == TrainOpponent::SelfPlay { 3.0 } else { 2.0 };
            ((widely * temperature).min(1.0), (0.5 + 0.5 * (temperature / 0.21).min(1.0)) * expectation * shorter)
        }
    };
    let values = crate::cost::memory::values(side);
    // Values beyond what a thread keeps for its next job (8 MiB) are fresh pages, and so
    // is Double Q-learning's pair of tables (16 bytes a slot).
    let fresh = if values > 8 << 20 { learner.tables * values } else { 0 }
        + if learner.tables > 1 { 16 * side.moves } else { 0 };
    load.training = Some(Training {
        learner: name,
        episodes: q.episodes as f64,
        seat,
        symmetry: q.symmetry,
        spread: crate::cost::boards::spread(exploring, opponent),
        softmax,
        values: learner.tables * values,
        fresh,
        slots: side.moves,
        extra: 0.0,
        slower: if seat.is_none() { learner.self_play_slower } else { 1.0 },
    });
    let evaluations_per_mark: f64 = seats
        .iter()
        .flat_map(|&s| evaluation.opponents.iter().map(move |&o| (s, o)))
        .map(|(s, o)| crate::cost::boards::evaluation(q.game, s, o, seat.is_none(), q.symmetry))
        .sum();
    // A policy trained against a deterministic opponent (minimax, a saved policy) has
    // learned one line and reaches far fewer states in an evaluation (measured as O after
    // 50,000 episodes, against random: 0.13 of the random-trained policy's on 3x4k3, 0.05
    // on 4x4g4, 0.23 on 3x4k4; trained against minimax-uniform, 0.5 to 1.5).
    let deterministic = matches!(opponent, Some(o) if o != Opponent::Random && o != Opponent::MinimaxUniform);
    let reach = if deterministic { 0.15 } else { 1.0 };
    // The untrained table's, each checkpoint's, and the final rows'.
    load.evaluations = (f64::from(evaluation.checkpoints) + 2.0) * evaluations_per_mark * reach;
    if learner.target == Target::Behaviour && q.opponent != TrainOpponent::SelfPlay {
        load.passes = side.moves as f64;
    }
    load
}

/// The mean over `episodes` episodes of a rate that starts at `start`, is multiplied by
/// `decay` after every episode and held at `floor` (epsilon's or the temperature's
/// schedule).
fn mean_rate(start: f64, decay: f64, floor: f64, episodes: u64) -> f64 {
    let n = episodes.max(1) as f64;
    if decay >= 1.0 || start <= floor {
        return start.max(floor);
    }
    // The episodes before the rate reaches its floor, then the floor.
    let falling = if floor > 0.0 { ((floor / start).ln() / decay.ln()).min(n) } else { n };
    let sum = start * (1.0 - decay.powf(falling)) / (1.0 - decay) + floor * (n - falling);
    sum / n
}

/// The memory of the job of learner `name`, with `per_move` more bytes per table slot
/// (Monte Carlo's return counts): its tables (Double Q-learning has two), the self-play
/// successors, two policies (at most: a self-play job's final one), the evaluator, and for
/// an on-policy learner the exact action values of its behaviour that `q_error` compares
/// with (Q* is shared, [`Shared::OptimalValues`]).
pub fn memory(q: &QParams, name: &str, per_move: u64, seats: &[Seat], evaluation: &EvaluationSpec) -> Need {
    use crate::cost::memory::{self, Shared};
    let Learner { tables, target, .. } = *learners::learner(name);
    let game = q.game;
    let mut shared = Need::evaluations(game, seats, &evaluation.opponents);
    let evaluator = seats.iter().map(|&s| memory::evaluator(memory::side(game, s))).max().unwrap_or(0);
    let fixed = 2 * memory::policy(game) + evaluator;
    let agent = match q.opponent {
        TrainOpponent::SelfPlay => None,
        TrainOpponent::Fixed(opponent) => Some((q.seat, opponent)),
    };
    shared.insert(Shared::Layout(LayoutKey { game, agent, symmetry: q.symmetry }));
    let job = match q.opponent {
        TrainOpponent::SelfPlay => {
            let all = game.figures().all();
            tables * memory::values(all) + per_move * all.moves + memory::successors(all) + fixed
        }
        TrainOpponent::Fixed(opponent) => {
            shared.insert(Shared::Mdp(game, q.seat, opponent));
            shared.insert(Shared::OptimalValues(game, q.seat, opponent, q.gamma.to_bits()));
            let side = memory::side(game, q.seat);
            // Q* is shared; Q^π of an on-policy learner's behaviour is its own.
            let own = if target == Target::Behaviour { memory::action_values(side) } else { 0 };
            tables * memory::values(side) + per_move * side.moves + own + fixed
        }
    };
    Need { job, shared }
}

/// The agent of a finished training of learner `name`: its greedy policy and, against a
/// fixed opponent, the table's `q_error` against its target under the learner's own
/// `gamma`.
pub fn agent(q: &QParams, trained: Trained, name: &str) -> Agent {
    let target = learners::learner(name).target;
    let TrainOpponent::Fixed(opponent) = q.opponent else {
        return Agent::Policy(trained.table.policy());
    };
    let mdp = &ground_truth(q.game, q.seat, opponent).mdp;
    let q_error = if target == Target::Optimal || trained.exploration.is_greedy() {
        q_error_optimal(mdp, &trained.table, optimal(q.game, q.seat, opponent, q.gamma))
    } else {
        let exact = behaviour_action_values(mdp, q.gamma, &trained.table, trained.exploration);
        q_error(mdp, &trained.table, &exact)
    };
    Agent::Learned { table: trained.table, q_error }
}

/// A learner kind over [`QParams`] alone: its grid-point type `$kind`, its `$name` (its row
/// in [`crate::solvers::learners::LEARNERS`] gives its target, tables and cost) and the
/// `$train` function of its algorithm. Everything else is what every tabular learner shares.
macro_rules! one_table_learner {
    ($(#[$doc:meta])* $kind:ident, $name:literal, $train:path) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $kind(pub $crate::solvers::QParams);

        impl $crate::kinds::Declared for $kind {
            const NAME: &'static str = $name;
            const PARAMS: &'static [&'static $crate::kinds::Param] = $crate::kinds::learner::PARAMS;
            const RUNS_A_PROGRAM: bool = false;

            fn build(v: &$crate::kinds::Values<'_>) -> Option<$kind> {
                Some($kind($crate::kinds::learner::build(v)))
            }
        }

        impl $crate::kinds::Solver for $kind {
            fn values(&self) -> Vec<$crate::kinds::Val> {
                $crate::kinds::learner::values_with(&self.0, &[])
            }

            fn work(&self) -> $crate::kinds::Work {
                $crate::kinds::Work { episodes: self.0.episodes, iterations: 0 }
            }

            fn seats(&self) -> $crate::kinds::Seats {
                $crate::kinds::Seats::of(self.0.seat, self.0.opponent)
            }

            fn load(&self, seats: &[$crate::mdp::Seat], evaluation: &$crate::evaluation::EvaluationSpec) -> $crate::cost::Load {
                $crate::kinds::learner::load(&self.0, $name, seats, evaluation)
            }

            fn memory(
                &self,
                seats: &[$crate::mdp::Seat],
                evaluation: &$crate::evaluation::EvaluationSpec,
            ) -> $crate::cost::memory::Need {
                $crate::kinds::learner::memory(&self.0, $name, 0, seats, evaluation)
            }

            fn execution(&self) -> $crate::kinds::Execution<'_> {
                $crate::kinds::Execution::InProcess(self)
            }
        }

        impl $crate::kinds::Train for $kind {
            fn train(
                &self,
                seed: u64,
                marks: &[u64],
                record: &mut dyn FnMut($crate::solvers::tabular::Checkpoint, &dyn $crate::mdp::Moves),
            ) -> $crate::kinds::Agent {
                let trained = $train(&self.0, seed, marks, |c, t| record(c, t));
                $crate::kinds::learner::agent(&self.0, trained, $name)
            }
        }
    };
}
pub(crate) use one_table_learner;

/// A learner kind with eligibility traces over [`QParams`] and `lambda`: its grid-point
/// type `$params` (fields `learner` and `lambda`; in scope where the macro is called), its
/// `$name` (its row in [`crate::solvers::learners::LEARNERS`]), the `$train` function of its
/// algorithm and `$reach`, a `fn(TrainOpponent) -> f64`: how many times as many states its
/// policies reach in an evaluation as a tabular learner's, by what it trained against.
/// Everything else is what every traced learner shares: [`TRACED_PARAMS`], and a
/// learner's cost with the traces' own in self-play.
macro_rules! traced_learner {
    ($params:ident, $name:literal, $train:path, $reach:expr) => {
        impl $crate::kinds::Declared for $params {
            const NAME: &'static str = $name;
            const PARAMS: &'static [&'static $crate::kinds::Param] = $crate::kinds::learner::TRACED_PARAMS;
            const RUNS_A_PROGRAM: bool = false;

            fn build(v: &$crate::kinds::Values<'_>) -> Option<$params> {
                let lambda = v.real(&$crate::kinds::param::LAMBDA);
                Some($params { learner: $crate::kinds::learner::build(v), lambda })
            }
        }

        impl $crate::kinds::Solver for $params {
            fn values(&self) -> Vec<$crate::kinds::Val> {
                $crate::kinds::learner::values_with(&self.learner, &[$crate::kinds::Val::Real(self.lambda)])
            }

            fn work(&self) -> $crate::kinds::Work {
                $crate::kinds::Work { episodes: self.learner.episodes, iterations: 0 }
            }

            fn seats(&self) -> $crate::kinds::Seats {
                $crate::kinds::Seats::of(self.learner.seat, self.learner.opponent)
            }

            /// A learner's; in self-play its traces span both sides' moves, which costs
            /// more per episode on some boards ([`crate::cost::boards::traces_self_play`]);
            /// its evaluations times its reach.
            fn load(
                &self,
                seats: &[$crate::mdp::Seat],
                evaluation: &$crate::evaluation::EvaluationSpec,
            ) -> $crate::cost::Load {
                let mut load = $crate::kinds::learner::load(&self.learner, $name, seats, evaluation);
                if let Some(t) = load.training.as_mut().filter(|t| t.seat.is_none()) {
                    t.extra =
                        if self.lambda > 0.0 { $crate::cost::boards::traces_self_play(self.learner.game) } else { 0.0 };
                }
                let reach: fn($crate::solvers::TrainOpponent) -> f64 = $reach;
                load.evaluations *= reach(self.learner.opponent);
                load
            }

            fn memory(
                &self,
                seats: &[$crate::mdp::Seat],
                evaluation: &$crate::evaluation::EvaluationSpec,
            ) -> $crate::cost::memory::Need {
                $crate::kinds::learner::memory(&self.learner, $name, 0, seats, evaluation)
            }

            fn execution(&self) -> $crate::kinds::Execution<'_> {
                $crate::kinds::Execution::InProcess(self)
            }
        }

        impl $crate::kinds::Train for $params {
            fn train(
                &self,
                seed: u64,
                marks: &[u64],
                record: &mut dyn FnMut($crate::solvers::tabular::Checkpoint, &dyn $crate::mdp::Moves),
            ) -> $crate::kinds::Agent {
                let trained = $train(self, seed, marks, |c, t| record(c, t));
                $crate::kinds::learner::agent(&self.learner, trained, $name)
            }
        }
    };
}
pub(crate) use traced_learner;
