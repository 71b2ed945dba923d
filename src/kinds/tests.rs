//! Every kind's declaration, builder and values agree, parameter by parameter.

use super::param::Ty;
use super::*;
use crate::mdp::Opponent;
use crate::solvers::learners::LEARNERS;
use crate::solvers::params::ExactParams;

/// A valid value of `param` other than its default, if it takes one.
fn other_value(param: &Param) -> Option<Val> {
    Some(match (param.ty, param.default) {
        (Ty::Game { .. }, Val::Game(g)) => {
            let other =
                ["3x4k3", "4x4k4"].iter().map(|s| param.game(s)).find_map(|v| v.ok().filter(|v| *v != Val::Game(g)));
            assert!(other.is_some(), "{}: a second game", param.name);
            return other;
        }
        (Ty::Real(b), Val::Real(x)) => {
            let candidates = [x * 0.5, x + 0.25, x - 0.25, 0.3, 2.5, -1.5];
            let y = candidates.into_iter().find(|&y| y != x && b.contains(y)).expect("a second value in range");
            Val::Real(y)
        }
        (Ty::Count { .. }, Val::Count(n)) => Val::Count(n + 7),
        (Ty::Flag, Val::Flag(b)) => Val::Flag(!b),
        (Ty::Choice(names), Val::Name(n)) => Val::Name(names.iter().copied().find(|&m| m != n).expect("two names")),
        other => panic!("{}: default of the wrong type: {other:?}", param.name),
    })
}

/// The kinds whose points are built from their columns alone: every kind but `command`,
/// whose points are built from their program (`spec/command_solver.rs`).
fn built_in() -> &'static [Kind] {
    &Kind::ALL[..Kind::ALL.len() - 1]
}

#[test]
fn the_command_kind_is_last_and_built_from_its_program() {
    assert_eq!(Kind::ALL.last(), Some(&Kind::Command));
    // Its values alone make no point, and it is the only kind whose jobs run a program.
    let defaults: Vec<Val> = Kind::Command.params().iter().map(|p| p.default).collect();
    assert!(Kind::Command.build(&defaults).is_none());
    assert_eq!(Kind::ALL.iter().filter(|k| k.runs_a_program()).collect::<Vec<_>>(), [&Kind::Command]);
    for &kind in built_in() {
        let params = kind.build(&kind.params().iter().map(|p| p.default).collect::<Vec<_>>()).unwrap();
        assert!(matches!(params.execution(), super::Execution::InProcess(_)), "{kind:?}");
        assert!(params.program().is_none());
    }
}

#[test]
fn every_parameter_round_trips_through_its_kind() {
    // Setting each parameter alone to a non-default value and building must give back
    // exactly that value in that position: a builder or a values list that mixes up two
    // positions fails here, whatever their defaults.
    for &kind in built_in() {
        let defaults: Vec<Val> = kind.params().iter().map(|p| p.default).collect();
        assert_eq!(kind.build(&defaults).unwrap().values(), defaults, "{kind:?} defaults");
        for (i, param) in kind.params().iter().enumerate() {
            let mut values = defaults.clone();
            let Some(other) = other_value(param) else { continue };
            values[i] = other;
            // A `_min_at` needs a floor above 0.
            if let Some(rate) = param.name.strip_suffix("_min_at") {
                let floor = kind.params().iter().position(|p| p.name == format!("{rate}_min")).unwrap();
                values[floor] = Val::Real(0.01);
            }
            assert_eq!(kind.build(&values).unwrap().values(), values, "{kind:?}.{}", param.name);
        }
    }
}

#[test]
fn declared_defaults_are_the_algorithms_defaults() {
    let defaults = |k: Kind| k.build(&k.params().iter().map(|p| p.default).collect::<Vec<_>>()).unwrap();
    assert_eq!(defaults(Kind::QLearning), Params::QLearning(QParams::DEFAULT));
    assert_eq!(defaults(Kind::Mcts), Params::Mcts(MctsParams::DEFAULT));
    let exact = ExactParams { seat: Seat::X, opponent: Opponent::Random, game: crate::game::Game::TIC_TAC_TOE };
    assert_eq!(defaults(Kind::PolicyIteration), Params::PolicyIteration(PolicyIteration(exact)));
}

#[test]
fn columns_are_the_kinds_parameters_and_self_play_drops_the_seat() {
    for &kind in built_in() {
        let params = kind.build(&kind.params().iter().map(|p| p.default).collect::<Vec<_>>()).unwrap();
        let names: Vec<&str> = params.columns().into_iter().map(|(c, _)| c).collect();
        let declared: Vec<&str> = kind.params().iter().map(|p| p.name).collect();
        assert_eq!(names, declared, "{kind:?}");
        assert_eq!(params.eval_seats(), [Seat::X]);
    }
    let self_play =
        Params::QLearning(QParams { opponent: crate::solvers::TrainOpponent::SelfPlay, ..QParams::DEFAULT });
    assert!(self_play.columns().iter().all(|(c, _)| *c != "seat"));
    assert_eq!(self_play.eval_seats(), [Seat::X, Seat::O]);
    assert_eq!(
        self_play.canonical_key(7, 2),
        "seed=7;solver=q-learning;opponent=self;episodes=50000;alpha=0.5;alpha_decay=1.0;alpha_min=0.0;\
         gamma=0.99;epsilon=1.0;epsilon_decay=0.9995;epsilon_min=0.05;q_init=0.0;symmetry=false;replicate=2"
    );
}

#[test]
fn parameter_names_follow_the_registry() {
    assert_eq!(
        parameter_names(),
        [
            "seat",
            "opponent",
            "game",
            "episodes",
            "alpha",
            "alpha_decay",
            "alpha_min",
            "gamma",
            "epsilon",
            "epsilon_decay",
            "epsilon_min",
            "q_init",
            "symmetry",
            "exploration",
            "temperature",
            "temperature_decay",
            "temperature_min",
            "epsilon_min_at",
            "alpha_min_at",
            "temperature_min_at",
            "iterations",
            "uct_c",
            "opponent_model",
            "final_move",
            "step",
            "lambda",
            "params"
        ]
    );
    let learners: Vec<Kind> = LEARNERS.iter().map(|l| Kind::from_name(l.name).expect("a kind")).collect();
    let exact = [Kind::PolicyIteration, Kind::ValueIteration];
    assert_eq!(takers("opponent"), [&exact[..], &learners[..], &[Kind::Command]].concat());
    assert_eq!(takers("step"), [Kind::MonteCarlo]);
    assert_eq!(takers("game"), Kind::ALL, "every kind takes the game");
    assert_eq!(Kind::from_name("mcts"), Some(Kind::Mcts));
    assert_eq!(Kind::QLearning.param("opponent").map(|p| p.choose("self").is_some()), Some(true));
    assert_eq!(Kind::ValueIteration.param("opponent").map(|p| p.choose("self").is_some()), Some(false));
}

#[test]
fn a_later_parameter_is_in_the_key_only_away_from_its_default() {
    let later = Param { since: 2, ..clone_of(&param::GAMMA) };
    assert!(!later.in_key(later.default));
    assert!(later.in_key(Val::Real(0.5)));
    assert!(param::GAMMA.in_key(param::GAMMA.default), "first-version parameters are always in the key");
}

/// A copy of a declaration (they are statics, not `Clone`).
fn clone_of(p: &Param) -> Param {
    let Param { name, ty, default, meaning, floor_of, since, optional } = *p;
    Param { name, ty, default, meaning, floor_of, since, optional }
}

/// The rate a learner of `spec`'s single grid point plays each episode with: epsilon and
/// alpha, episode by episode.
fn schedule(q: &QParams) -> Vec<(f64, f64)> {
    let marks: Vec<u64> = (1..=q.episodes).collect();
    let mut rates = Vec::new();
    crate::solvers::tabular::run_schedule(q, &marks, |step| {
        if let crate::solvers::tabular::Step::Checkpoint(c) = step {
            rates.push((c.epsilon, c.alpha));
        }
    });
    rates
}

#[test]
fn a_rate_given_min_at_reaches_its_floor_at_that_fraction_of_any_budget() {
    let text = "[[solver]]\nkind = \"q-learning\"\nepisodes = [1000, 3000, 81000]\nepsilon = 1.0\nepsilon_min = 0.05\n\
                epsilon_min_at = [0.25, 0.5, 1.0]\nalpha = 0.5\nalpha_min = 0.02\nalpha_min_at = 0.8\n";
    let sweep = crate::spec::parse(text, "min_at.toml").unwrap();
    let points = &sweep.solvers[0].points;
    assert_eq!(points.len(), 9);
    for p in points {
        let Params::QLearning(q) = *p else { panic!("a q-learning point") };
        let rates = schedule(&q);
        for (at, start, floor, which) in
            [(q.epsilon_min_at.unwrap(), 1.0, 0.05, 0), (q.alpha_min_at.unwrap(), 0.5, 0.02, 1)]
        {
            let rate = |episode: u64| {
                let (epsilon, alpha) = rates[episode as usize - 1];
                if which == 0 { epsilon } else { alpha }
            };
            // Episode 1 plays at the start; after `at * episodes` decays the rate is its
            // floor (to rounding), and it stays there.
            let reached = (at * q.episodes as f64).round() as u64;
            assert!(rate(reached) > floor * 1.000_001, "{q:?}: already {} at {reached}", rate(reached));
            if reached < q.episodes {
                let close = |x: f64| (x - floor).abs() <= 1e-9 * floor;
                let first_at_floor = (1..=q.episodes).find(|&e| close(rate(e))).unwrap();
                assert_eq!(first_at_floor, reached + 1, "{q:?}");
                assert_eq!(rate(q.episodes), floor);
            } else {
                // At 1.0 the floor comes after the last episode's decay: the last plays
                // one decay above it.
                let decay = if which == 0 { q.epsilon_decay } else { q.alpha_decay };
                assert!((rate(q.episodes) * decay - floor).abs() <= 1e-9 * floor, "{q:?}");
            }
            // Half way to the floor in time is half way in the logarithm.
            let middle = rate(reached / 2 + 1);
            let expected = start * (floor / start).powf((reached / 2) as f64 / (at * q.episodes as f64));
            assert!((middle - expected).abs() <= 1e-9 * expected, "{middle} vs {expected}");
        }
    }
}

#[test]
fn min_at_is_in_the_key_and_the_columns_only_when_set() {
    let plain = "[[solver]]\nkind = \"sarsa\"\nepisodes = 2000\n";
    let set = "[[solver]]\nkind = \"sarsa\"\nepisodes = 2000\nepsilon_min_at = 0.5\n";
    let job = |text: &str| crate::spec::parse(text, "k.toml").unwrap().jobs().remove(0);
    let (a, b) = (job(plain), job(set));
    let key = a.params.canonical_key(0, 0);
    assert!(!key.contains("min_at"), "{key}");
    let key = b.params.canonical_key(0, 0);
    assert!(key.contains(";epsilon_min_at=0.5"), "{key}");
    assert_ne!(a.id, b.id);
    let cell = |j: &crate::job::Job, name: &str| j.params.columns().into_iter().find(|c| c.0 == name).unwrap().1;
    assert_eq!(cell(&a, "epsilon_min_at"), "");
    assert_eq!(cell(&b, "epsilon_min_at"), "0.5");
    // The decay column says what ran: 0.05 after 1000 episodes.
    let decay: f64 = cell(&b, "epsilon_decay").parse().unwrap();
    assert!((decay.powi(1000) - 0.05).abs() < 1e-12, "{decay}");
}

#[test]
fn every_learner_kind_has_its_row_and_every_row_its_kind_cost_and_benchmark() {
    use crate::cost::Calibration;
    use crate::solvers::learners::find;
    // A learner kind is one that takes the learners' parameters (a learning rate).
    let kinds: Vec<&str> = takers("alpha").into_iter().map(Kind::name).collect();
    let rows: Vec<&str> = LEARNERS.iter().map(|l| l.name).collect();
    assert_eq!(kinds, rows, "the learner kinds (registry order) and solvers::learners::LEARNERS");
    let cal = Calibration::quick(1e6, 1e6, 1e-4, 1e-3);
    let evaluation = crate::spec::parse("[[solver]]\nkind = \"policy-iteration\"\n", "e.toml").unwrap().evaluation;
    for row in LEARNERS {
        let learner = find(row.name).expect("found by name");
        assert!(learner.share > 0.0 && learner.share <= 1.0 && learner.tables >= 1, "{}", row.name);
        assert_eq!(cal.share(row.name), row.share, "{}: the cost model reads its reference share", row.name);
        // Its kind's cost counts its training at its share: half the share, twice the time.
        let kind = Kind::from_name(row.name).unwrap();
        let params = kind.build(&kind.params().iter().map(|p| p.default).collect::<Vec<_>>()).unwrap();
        let load = params.load(&evaluation);
        let training = load.training.expect("a learner's job trains");
        assert_eq!(training.learner, row.name);
        // Its benchmark run trains and its table learns.
        let q = crate::solvers::QParams { episodes: 200, ..crate::solvers::QParams::default() };
        let trained = (row.train)(&q, 1, &[], &mut |_, _| {});
        assert!(trained.table.entries().iter().any(|&v| v != 0.0), "{}: its table moved", row.name);
    }
}
