//! Tests of sampled axes, rounded whole-number axes, `one_minus_logspace` and per-solver
//! `replicates`, through the public API: the values each form gives, the draws' contract
//! (prefix stability, independence from other solvers) and every new error.

use super::*;
use crate::job::Job;

fn ok(text: &str) -> Sweep {
    parse(text, "t.toml").unwrap_or_else(|e| panic!("expected a valid spec, got:\n{e}"))
}

/// The one problem of `text`, printed, with its line.
fn problem(text: &str) -> (Option<usize>, String) {
    match parse(text, "t.toml") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => {
            assert_eq!(e.problems.len(), 1, "expected one problem, got:\n{e}");
            (e.problems[0].line, e.problems[0].to_string())
        }
    }
}

fn assert_problem(text: &str, line: usize, needles: &[&str]) {
    let (at, shown) = problem(text);
    assert_eq!(at, Some(line), "{shown}");
    for needle in needles {
        assert!(shown.contains(needle), "{shown:?} does not contain {needle:?}");
    }
}

/// The values of parameter `name` over a solver's points, as written in CSV.
fn column(sweep: &Sweep, solver: usize, name: &str) -> Vec<String> {
    let value = |p: &Params| p.columns().into_iter().find(|(n, _)| *n == name).map(|(_, v)| v).unwrap();
    sweep.solvers[solver].points.iter().map(value).collect()
}

const MCTS: &str = "[[solver]]\nkind = \"mcts\"\n";
const Q: &str = "[[solver]]\nkind = \"q-learning\"\nepisodes = 1000\n";

#[test]
fn whole_number_axes_round_and_say_so() {
    let sweep = ok(&format!("{MCTS}iterations = {{ logspace = [2, 3, 3] }}\n"));
    assert_eq!(column(&sweep, 0, "iterations"), ["100", "316", "1000"]);
    assert_eq!(sweep.notes.len(), 1);
    assert!(sweep.notes[0].contains("rounded to whole numbers: 100, 316, 1000"), "{}", sweep.notes[0]);
    let sweep = ok(&format!("{MCTS}iterations = {{ linspace = [1, 2, 3] }}\n"));
    assert_eq!(column(&sweep, 0, "iterations"), ["1", "2"]);
    assert!(sweep.notes[0].contains("1, 2 (1 repeats dropped)"), "{}", sweep.notes[0]);
    // Whole values need no rounding and no note.
    assert!(ok(&format!("{MCTS}iterations = {{ linspace = [100, 300, 3] }}\n")).notes.is_empty());
}

#[test]
fn one_minus_logspace_gives_decays_in_order() {
    let sweep = ok(&format!("{Q}epsilon_decay = {{ one_minus_logspace = [-5, -3, 3] }}\n"));
    assert_eq!(column(&sweep, 0, "epsilon_decay"), ["0.99999", "0.9999", "0.999"]);
    assert_problem(
        &format!("{MCTS}iterations = {{ one_minus_logspace = [-5, -3, 3] }}\n"),
        3,
        &["solver[1].iterations.one_minus_logspace", "is not allowed: iterations takes whole numbers"],
    );
    assert_problem(
        &format!("{Q}epsilon_decay = {{ one_minus_logspace = [-1, 1, 3] }}\n"),
        4,
        &["gives epsilon_decay = 0, which is out of range"],
    );
}

#[test]
fn every_sampled_form_draws_in_its_range() {
    let text = format!(
        "{Q}samples = 64\nalpha = {{ uniform = [0.1, 0.9] }}\ngamma = {{ loguniform = [0.5, 1] }}\n\
         epsilon_decay = {{ one_minus_loguniform = [-5, -3] }}\nsymmetry = {{ choice = [false, true] }}\n\
         [[solver]]\nkind = \"mcts\"\nsamples = 64\nsampler = \"sobol\"\niterations = {{ int_loguniform = [100, 20000] }}\n\
         uct_c = {{ uniform = [0.5, 3] }}\nopponent_model = {{ choice = [\"random\"] }}\n\
         [[solver]]\nkind = \"mcts\"\nlabel = \"small\"\nsamples = 10\niterations = {{ int_uniform = [1, 3] }}\n"
    );
    let sweep = ok(&text);
    let numbers = |s, name| column(&sweep, s, name).iter().map(|v| v.parse::<f64>().unwrap()).collect::<Vec<_>>();
    assert_eq!(sweep.solvers[0].points.len(), 64);
    assert!(numbers(0, "alpha").iter().all(|&a| (0.1..=0.9).contains(&a)));
    assert!(numbers(0, "gamma").iter().all(|&g| (0.5..=1.0).contains(&g)));
    assert!(numbers(0, "epsilon_decay").iter().all(|&d| (0.999..=0.99999).contains(&d)));
    assert!(column(&sweep, 0, "symmetry").contains(&"true".to_string()));
    assert!(numbers(1, "iterations").iter().all(|&i| (100.0..=20000.0).contains(&i) && i.fract() == 0.0));
    assert!(column(&sweep, 1, "opponent_model").iter().all(|m| m == "random"));
    // Sobol spreads the 64 iterations over every eighth of the log range.
    let mut eighths: Vec<u32> = numbers(1, "iterations")
        .iter()
        .map(|i| ((i.ln() - 100f64.ln()) / (20001f64.ln() - 100f64.ln()) * 8.0) as u32)
        .collect();
    eighths.sort_unstable();
    eighths.dedup();
    assert_eq!(eighths.len(), 8);
    // Ten draws from three values: the repeats are dropped, and plan is told.
    assert_eq!(column(&sweep, 2, "iterations").len(), 3);
    assert!(
        sweep.notes.iter().any(|n| n.contains("solver[3] (small): 10 samples by random over iterations: 3 distinct"))
    );
}

#[test]
fn samples_combine_with_list_axes_by_product() {
    let text = format!("{MCTS}samples = 5\nuct_c = {{ uniform = [0.5, 3] }}\nfinal_move = [\"visits\", \"value\"]\n");
    let sweep = ok(&text);
    assert_eq!(sweep.solvers[0].points.len(), 10);
    let moves = column(&sweep, 0, "final_move");
    assert_eq!(&moves[..4], ["visits", "value", "visits", "value"]);
    let c = column(&sweep, 0, "uct_c");
    assert_eq!(c[0], c[1]);
    assert_ne!(c[1], c[2]);
    assert_eq!(sweep.jobs().len(), 10);
}

#[test]
fn draws_keep_their_prefix_and_ignore_other_solvers() {
    let solver = |n: u32| format!("{MCTS}label = \"s\"\nsamples = {n}\nuct_c = {{ loguniform = [0.1, 5] }}\n");
    for sampler in ["random", "sobol"] {
        let with = |n| ok(&format!("seed = 3\n{}sampler = \"{sampler}\"\n", solver(n)));
        let few = with(5).jobs();
        let many = with(9).jobs();
        let ids = |jobs: &[Job]| jobs.iter().map(|j| j.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&few), ids(&many[..5]), "{sampler}");
        // Another solver before it, edited: the same draws.
        let other =
            format!("seed = 3\n[[solver]]\nkind = \"q-learning\"\nalpha = 0.2\n{}sampler = \"{sampler}\"\n", solver(5));
        let shifted = ok(&other).jobs();
        assert_eq!(ids(&few), ids(&shifted[1..]), "{sampler}");
        // Another master seed: other draws.
        let reseeded = ok(&format!("seed = 4\n{}sampler = \"{sampler}\"\n", solver(5))).jobs();
        assert_ne!(ids(&few), ids(&reseeded));
    }
}

#[test]
fn sampling_errors() {
    assert_problem(
        &format!("{MCTS}uct_c = {{ uniform = [0.5, 3] }}\n"),
        1,
        &["solver[1] has sampled axes (uct_c) but no samples: add samples = N"],
    );
    assert_problem(
        &format!("{MCTS}samples = 4\nuct_c = [1, 2]\n"),
        3,
        &["solver[1].samples = 4 is given but no axis of this solver is sampled"],
    );
    assert_problem(
        &format!("{MCTS}samples = 4\nsampler = \"sobl\"\nuct_c = {{ uniform = [0.5, 3] }}\n"),
        4,
        &[
            "solver[1].sampler = \"sobl\" is not a known sampler: allowed are \"random\", \"sobol\" (did you mean \"sobol\"?)",
        ],
    );
    assert_problem(
        &format!("{MCTS}samples = 0\nuct_c = {{ uniform = [0.5, 3] }}\n"),
        3,
        &["solver[1].samples = 0 is out of range: samples must be a whole number from 1 to 2000000"],
    );
    let form = |body: &str, needles: &[&str]| assert_problem(&format!("{MCTS}samples = 4\n{body}\n"), 4, needles);
    form(
        "uct_c = { uniform = [3, 0.5] }",
        &[
            "solver[1].uct_c.uniform = [3, 0.5] must be two finite numbers, low below high: write { uniform = [low, high] }",
        ],
    );
    form("uct_c = { uniform = [1, 2, 3] }", &["must be two finite numbers"]);
    form("uct_c = { loguniform = [0, 5] }", &["must have low > 0"]);
    form(
        "uct_c = { uniform = [-1, 5] }",
        &["gives uct_c = -1, which is out of range: uct_c must be a finite number >= 0"],
    );
    form(
        "uct_c = { int_uniform = [1, 5] }",
        &["is not allowed: uct_c takes numbers, not only whole ones; use { uniform"],
    );
    form("iterations = { uniform = [1, 5] }", &["is not allowed: iterations takes whole numbers; use { int_uniform"]);
    form("iterations = { int_uniform = [0.5, 5] }", &["must be whole numbers from 1 up"]);
    form(
        "iterations = { int_loguniform = [1, 5000000000] }",
        &["gives iterations = 5000000000, which is out of range"],
    );
    form(
        "final_move = { uniform = [0, 1] }",
        &["is not allowed: final_move is not numeric; sample it with { choice = [..] }"],
    );
    form("final_move = { choice = [] }", &["must be a non-empty list of values of \"visits\", \"value\""]);
    form("final_move = { choice = [\"visits\", \"visits\"] }", &["gives visits more than once"]);
    form("final_move = { choice = [\"vists\"] }", &["is not a known final_move", "did you mean \"visits\"?"]);
    form("uct_c = { unifrm = [0, 1] }", &["is not an axis form (did you mean uniform?)", "with samples = N"]);
}

#[test]
fn sampled_checks_between_parameters_use_the_range() {
    let text = format!("{Q}samples = 4\nalpha = {{ uniform = [0.1, 0.5] }}\nalpha_min = 0.2\n");
    assert_problem(&text, 6, &["solver[1].alpha_min = 0.2 is above alpha at some grid points"]);
    let text = "[[solver]]\nkind = \"q-learning\"\nsamples = 4\nepisodes = { int_uniform = [5, 100] }\n";
    assert_problem(text, 4, &["is fewer than evaluation.checkpoints = 10 at some grid points (episodes = 5)"]);
}

#[test]
fn per_solver_replicates() {
    let text = "seed = 2\nreplicates = 3\n[[solver]]\nkind = \"mcts\"\n[[solver]]\nkind = \"q-learning\"\nepisodes = 100\nreplicates = 5\n";
    let sweep = ok(text);
    assert_eq!(sweep.job_counts(), [("mcts".to_string(), 3), ("q-learning".to_string(), 5)]);
    assert_eq!(sweep.job_count(), 8);
    let jobs = sweep.jobs();
    assert_eq!(jobs.len(), 8);
    assert_eq!(jobs.iter().map(|j| j.replicate).collect::<Vec<_>>(), [0, 1, 2, 0, 1, 2, 3, 4]);
    // The ids of a solver's first replicates are the ids it had under the top-level value.
    let plain = ok("seed = 2\nreplicates = 3\n[[solver]]\nkind = \"q-learning\"\nepisodes = 100\n").jobs();
    assert!(plain.iter().zip(&jobs[3..6]).all(|(a, b)| a.id == b.id && a.seed == b.seed));
    assert_eq!(sweep.resolved()["solvers"][1]["replicates"], 5);
    assert!(sweep.resolved()["solvers"][0].get("replicates").is_none());
    assert_problem(
        "[[solver]]\nkind = \"mcts\"\nreplicates = 0\n",
        3,
        &["solver[1].replicates = 0 is out of range: replicates must be a whole number from 1 to 4294967295"],
    );
}
