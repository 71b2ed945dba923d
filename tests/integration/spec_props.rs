//! Properties of the spec parser on random specs: it never panics; valid specs give
//! `product of axis lengths x replicates` jobs with unique ids that match their canonical
//! keys; invalid specs give problems that name the file.

use std::collections::HashSet;

use proptest::prelude::*;
use sweep::seed::{job_id, job_seed};
use sweep::spec::{Sweep, parse};

/// One parameter's TOML value and the number of values it gives.
type Axis = (String, u64);

fn fmt(x: f64) -> String {
    format!("{x:?}")
}

/// A real-valued axis drawn from `pool` (all valid values, distinct): a scalar, a list, a
/// linspace between two of them, or (when `log` holds exponents) a logspace.
fn real_axis(pool: &'static [f64], log: Option<(i32, i32)>) -> BoxedStrategy<Axis> {
    let scalar = prop::sample::select(pool).prop_map(|x| (fmt(x), 1));
    let list = prop::sample::subsequence(pool, 1..=pool.len())
        .prop_map(|xs| (format!("[{}]", xs.iter().map(|&x| fmt(x)).collect::<Vec<_>>().join(", ")), xs.len() as u64));
    let linspace = (prop::sample::subsequence(pool, 2), 2u64..6)
        .prop_map(|(ends, n)| (format!("{{ linspace = [{}, {}, {n}] }}", fmt(ends[0]), fmt(ends[1])), n));
    let single = prop::sample::select(pool).prop_map(|x| (format!("{{ linspace = [{}, 7, 1] }}", fmt(x)), 1));
    match log {
        Some((lo, hi)) => {
            let logspace = (lo..hi, 1..=(hi - lo), 2u64..5).prop_map(move |(from, span, n)| {
                (format!("{{ logspace = [{from}, {}, {n}] }}", (from + span).min(hi)), n)
            });
            prop_oneof![scalar, list, linspace, single, logspace].boxed()
        }
        None => prop_oneof![scalar, list, linspace, single].boxed(),
    }
}

/// A whole-number axis with values from `lo` up: a scalar, a list, or an exact linspace.
fn count_axis(lo: u64) -> BoxedStrategy<Axis> {
    let scalar = (lo..lo + 500).prop_map(|n| (n.to_string(), 1));
    let list = prop::collection::btree_set(lo..lo + 500, 1..5).prop_map(|set| {
        let items: Vec<String> = set.iter().map(u64::to_string).collect();
        (format!("[{}]", items.join(", ")), set.len() as u64)
    });
    let linspace = (lo..lo + 100, 1u64..50, 1u64..6)
        .prop_map(|(from, step, n)| (format!("{{ linspace = [{from}, {}, {n}] }}", from + step * (n - 1)), n));
    prop_oneof![scalar, list, linspace].boxed()
}

/// A name axis: a non-empty subset of `names`, as a scalar or a list.
fn names_axis(names: &'static [&'static str]) -> BoxedStrategy<Axis> {
    let scalar = prop::sample::select(names).prop_map(|n| (format!("\"{n}\""), 1));
    let list = prop::sample::subsequence(names, 1..=names.len()).prop_map(|ns| {
        let items: Vec<String> = ns.iter().map(|n| format!("\"{n}\"")).collect();
        (format!("[{}]", items.join(", ")), ns.len() as u64)
    });
    prop_oneof![scalar, list].boxed()
}

/// The parameters a kind may be given, with valid axes; `None` leaves one out.
fn params(kind: &str) -> BoxedStrategy<Vec<Option<(&'static str, Axis)>>> {
    let opt = |name: &'static str, s: BoxedStrategy<Axis>| {
        prop::option::weighted(0.7, s.prop_map(move |a| (name, a))).boxed()
    };
    let seat = || opt("seat", names_axis(&["x", "o"]));
    match kind {
        "q-learning" => vec![
            seat(),
            opt("opponent", names_axis(&["random", "minimax", "minimax-uniform", "self"])),
            opt("episodes", count_axis(10)),
            opt("alpha", real_axis(&[0.05, 0.1, 0.25, 0.5, 1.0], Some((-1, 0)))),
            opt("alpha_decay", real_axis(&[0.9, 0.99, 0.999, 1.0], None)),
            opt("alpha_min", real_axis(&[0.0, 0.01, 0.05], None)),
            opt("gamma", real_axis(&[0.0, 0.5, 0.9, 0.99, 1.0], Some((-2, 0)))),
            opt("epsilon", real_axis(&[0.5, 0.8, 1.0], None)),
            opt("epsilon_decay", real_axis(&[0.9, 0.999, 0.9995, 1.0], None)),
            opt("epsilon_min", real_axis(&[0.0, 0.01, 0.05, 0.1], Some((-3, -1)))),
            opt("symmetry", prop_oneof![Just(("true".to_string(), 1)), Just(("[false, true]".to_string(), 2))].boxed()),
        ]
        .boxed(),
        "mcts" => vec![
            seat(),
            opt("iterations", count_axis(1)),
            opt("opponent_model", names_axis(&["adversarial", "random"])),
            opt("final_move", names_axis(&["visits", "value"])),
        ]
        .boxed(),
        _ => vec![seat()].boxed(),
    }
}

/// A valid spec and its expected number of grid points per solver.
fn valid_spec() -> impl Strategy<Value = (String, Vec<u64>, u32, u64)> {
    let kinds = prop::collection::vec(
        prop::sample::select(&["policy-iteration", "value-iteration", "q-learning", "mcts"][..]),
        1..6,
    );
    (kinds, 1u32..4, 0u64..1 << 62)
        .prop_flat_map(|(kinds, replicates, seed)| {
            let solvers: Vec<_> = kinds.iter().map(|&k| params(k).prop_map(move |p| (k, p))).collect();
            (solvers, Just(replicates), Just(seed))
        })
        .prop_map(|(solvers, replicates, seed)| {
            let mut text = format!("seed = {seed}\nreplicates = {replicates}\n");
            let mut points = Vec::new();
            let mut seen: Vec<&str> = Vec::new();
            for (kind, params) in solvers {
                // The n-th solver of a kind gets a value of its own on one axis, so that no two
                // solvers share a grid point; exact solvers beyond the third are skipped.
                let nth = seen.iter().filter(|&&k| k == kind).count();
                let tag = match kind {
                    "q-learning" => format!("q_init = {nth}.5"),
                    "mcts" => format!("uct_c = {}", 10 + nth),
                    _ if nth < 3 => format!("opponent = \"{}\"", ["random", "minimax", "minimax-uniform"][nth]),
                    _ => continue,
                };
                seen.push(kind);
                text.push_str(&format!("\n[[solver]]\nkind = \"{kind}\"\n{tag}\n"));
                let self_play = params.iter().flatten().any(|(n, (v, _))| *n == "opponent" && v.contains("self"));
                let mut product = 1;
                for (name, (value, len)) in params.into_iter().flatten() {
                    if name == "seat" && self_play {
                        continue;
                    }
                    text.push_str(&format!("{name} = {value}\n"));
                    product *= len;
                }
                points.push(product);
            }
            (text, points, replicates, seed)
        })
}

fn assert_jobs_consistent(sweep: &Sweep) {
    let jobs = sweep.jobs();
    assert_eq!(jobs.len() as u64, sweep.job_count());
    let ids: HashSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids.len(), jobs.len(), "job ids are unique");
    for job in jobs.iter().step_by(7) {
        assert_eq!(job.id, job_id(&job.params.canonical_key(sweep.seed, job.replicate)));
        assert_eq!(job.seed, job_seed(sweep.seed, job.replicate));
    }
}

/// Lines that are wrong in any `[[solver]]` table.
const BAD_SOLVER_LINES: &[&str] = &[
    "alpha = 0",
    "gamma = -1",
    "bogus = 1",
    "episodes = 0",
    "uct_c = -1",
    "iterations = []",
    "seat = \"z\"",
    "epsilon = { linspace = [0, 1, 0] }",
    "kind = 5",
    "label = 7",
    "final_move = { logspace = [1, 2] }",
];

/// Lines that are wrong at the top of any spec.
const BAD_TOP_LINES: &[&str] =
    &["replicates = 0", "seed = -1", "name = \"a/b\"", "nmae = \"x\"", "[evaluation]\ngames = -5"];

/// TOML-ish fragments for random text.
const TOKENS: &[&str] = &[
    "[[solver]]\n",
    "[evaluation]\n",
    "kind = ",
    "\"q-learning\"",
    "\"mcts\"",
    "\"policy-iteration\"",
    "alpha = ",
    "gamma = ",
    "episodes = ",
    "iterations = ",
    "seat = ",
    "opponent = ",
    "\"self\"",
    "\"x\"",
    "replicates = ",
    "seed = ",
    "checkpoints = ",
    "{ linspace = [",
    "{ logspace = [",
    "]",
    "}",
    "[",
    ", ",
    "0",
    "1",
    "0.5",
    "-1",
    "3",
    "1e400",
    "nan",
    "inf",
    "true",
    "\n",
    "=",
    "\"",
    "#",
    ".",
    "label = ",
    "\"a\"",
    "name = ",
    "2026-01-01",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn valid_specs_give_the_expected_jobs((text, points, replicates, _seed) in valid_spec()) {
        let sweep = parse(&text, "prop.toml").unwrap_or_else(|e| panic!("{e}\nin:\n{text}"));
        let counts: Vec<u64> = sweep.job_counts().into_iter().map(|(_, n)| n).collect();
        let expected: Vec<u64> = points.iter().map(|p| p * u64::from(replicates)).collect();
        prop_assert_eq!(counts, expected);
        prop_assert_eq!(sweep.job_count(), points.iter().sum::<u64>() * u64::from(replicates));
        assert_jobs_consistent(&sweep);
    }

    #[test]
    fn invalid_specs_are_refused(
        (text, _, _, _) in valid_spec(),
        bad in prop::sample::select(BAD_SOLVER_LINES),
        top in prop::option::of(prop::sample::select(BAD_TOP_LINES)),
    ) {
        let broken = text.replacen("[[solver]]\n", &format!("[[solver]]\n{bad}\n"), 1);
        let broken = match top { Some(line) => format!("{line}\n{broken}"), None => broken };
        let err = parse(&broken, "prop.toml").expect_err(&broken);
        prop_assert!(!err.problems.is_empty());
        for line in err.to_string().lines() {
            prop_assert!(line.starts_with("prop.toml"), "{}", line);
        }
        for p in &err.problems {
            prop_assert!(!p.message.is_empty());
        }
    }

    #[test]
    fn random_tomlish_text_never_panics(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..60)) {
        let text = tokens.concat();
        if let Ok(sweep) = parse(&text, "prop.toml") {
            if sweep.job_count() <= 100_000 {
                assert_jobs_consistent(&sweep);
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(chars in proptest::collection::vec(any::<char>(), 0..200)) {
        let text: String = chars.into_iter().filter(|c| !c.is_control()).collect();
        let _ = parse(&text, "prop.toml");
    }
}
