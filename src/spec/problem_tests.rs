//! Tests of the spec module's problems through its public API: every class of bad input,
//! each asserting the line, key, value and what is allowed, with the labels, names and
//! limits that go with them.

use super::*;
use crate::seed::job_id;
use crate::solvers::TrainOpponent;

fn ok(text: &str) -> Sweep {
    parse(text, "t.toml").unwrap_or_else(|e| panic!("expected a valid spec, got:\n{e}"))
}

fn problems(text: &str) -> Vec<Problem> {
    match parse(text, "t.toml") {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e.problems,
    }
}

/// Asserts that `text` has exactly one problem, at `line`, naming `key` and `value`, whose
/// printed form contains every one of `needles`.
fn check(text: &str, line: Option<usize>, key: Option<&str>, value: Option<&str>, needles: &[&str]) {
    let found = problems(text);
    assert_eq!(found.len(), 1, "expected one problem for:\n{text}\ngot: {found:#?}");
    let p = &found[0];
    let shown = p.to_string();
    assert_eq!(p.file, "t.toml", "{shown}");
    assert_eq!(p.line, line, "{shown}");
    assert_eq!(p.key.as_deref(), key, "{shown}");
    assert_eq!(p.value.as_deref(), value, "{shown}");
    for needle in needles {
        assert!(shown.contains(needle), "{shown:?} does not contain {needle:?}");
    }
}

/// A q-learning solver whose third line is `body`.
fn q(body: &str) -> String {
    format!("[[solver]]\nkind = \"q-learning\"\n{body}\n")
}

/// An mcts solver whose third line is `body`.
fn mcts(body: &str) -> String {
    format!("[[solver]]\nkind = \"mcts\"\n{body}\n")
}

/// `top` (one line) then a default q-learning solver.
fn top(line: &str) -> String {
    format!("{line}\n[[solver]]\nkind = \"q-learning\"\n")
}

/// A q-learning solver's parameter `body` (line 3): one problem naming its key and value.
fn check_q(body: &str, needles: &[&str]) {
    let (key, value) = body.split_once(" = ").expect("body is `key = value`");
    check(&q(body), Some(3), Some(&format!("solver[1].{key}")), Some(value), needles);
}

#[test]
fn display_matches_the_documented_form() {
    let e = parse(&q("alpha = 1.5"), "experiments/x.toml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "experiments/x.toml:3: solver[1].alpha = 1.5 is out of range: alpha must be in (0, 1] (the initial step size)."
    );
}

#[test]
fn malformed_toml() {
    check("name = \"x\"\nseed = 1\nreplicates = \n", Some(3), None, None, &["t.toml:3: malformed TOML at column 14"]);
    check("[[solver]\nkind = 1\n", Some(1), None, None, &["malformed TOML at column 9", "invalid table header"]);
    check("a = 1\na = 2\n", Some(2), None, None, &["malformed TOML", "duplicate key `a`"]);
    check("seed =", Some(1), None, None, &["unexpected end of the file"]);
}

#[test]
fn unknown_keys_suggest_the_closest() {
    check(
        &top("seeed = 3"),
        Some(1),
        Some("seeed"),
        Some("3"),
        &["not a known key (did you mean seed?)", "name, seed"],
    );
    check_q("alpah = 0.1", &["did you mean alpha?", "q-learning takes kind, label, seat"]);
    check_q("epsilon_dcay = 0.9", &["did you mean epsilon_decay?"]);
    check(&top("[evaluation]\ngame = 5"), Some(2), Some("evaluation.game"), Some("5"), &["did you mean games?"]);
    let far = problems(&q("zzzzzzzzz = 1"));
    assert!(!far[0].message.contains("did you mean"), "{}", far[0]);
    let axis = problems(&q("alpha = { lnspace = [0.1, 0.5, 3] }"));
    assert!(
        axis[0]
            .to_string()
            .contains("solver[1].alpha.lnspace = [0.1, 0.5, 3] is not an axis form (did you mean linspace?)")
    );
}

#[test]
fn wrong_types() {
    check_q("alpha = \"0.5\"", &["wrong type (a string)", "alpha takes a number in (0, 1], a non-empty list"]);
    check_q("episodes = 1.5", &["not a whole number", "episodes must be a whole number >= 1"]);
    check_q("symmetry = 1", &["wrong type (an integer)", "symmetry takes true, false"]);
    check_q("seat = 1", &["wrong type (an integer)", "one of \"x\", \"o\""]);
    check_q("gamma = 1979-05-27", &["wrong type (a date-time)", "in [0, 1]"]);
    check(&q("alpha = [0.1, \"x\"]"), Some(3), Some("solver[1].alpha"), Some("\"x\""), &["wrong type (a string)"]);
    check(&q("alpha = [[0.1]]"), Some(3), Some("solver[1].alpha"), Some("[0.1]"), &["wrong type (a list)"]);
    check(&q("label = 3"), Some(3), Some("solver[1].label"), Some("3"), &["label takes a string"]);
    check(
        &top("replicates = \"5\""),
        Some(1),
        Some("replicates"),
        Some("\"5\""),
        &["wrong type (a string)", "from 1 to"],
    );
    check(&top("seed = 1.5"), Some(1), Some("seed"), Some("1.5"), &["wrong type (a float)", "from 0 to"]);
    check(&top("seed = [1, 2]"), Some(1), Some("seed"), Some("[1, 2]"), &["only solver parameters can be grid axes"]);
    check(&top("name = 3"), Some(1), Some("name"), Some("3"), &["name takes a string"]);
    check(&top("evaluation = 3"), Some(1), Some("evaluation"), Some("3"), &["evaluation is a table"]);
    check(&top("[evaluation]\ngames = [1, 2]"), Some(2), Some("evaluation.games"), Some("[1, 2]"), &["games must be"]);
    check(
        &top("[evaluation]\nopponents = [1]"),
        Some(2),
        Some("evaluation.opponents"),
        Some("1"),
        &["\"random\", \"minimax\""],
    );
    check("solver = 3\n", Some(1), Some("solver"), Some("3"), &["write a [[solver]] table"]);
    check("solver = [3]\n", Some(1), Some("solver[1]"), Some("3"), &["each solver is a table"]);
    check(
        "[solver]\nkind = \"mcts\"\n",
        Some(1),
        Some("solver"),
        Some("a table"),
        &["write [[solver]] (double brackets)"],
    );
}

#[test]
fn empty_lists() {
    check_q("alpha = []", &["is an empty list: give at least one value"]);
    check(&top("[evaluation]\nopponents = []"), Some(2), Some("evaluation.opponents"), Some("[]"), &["empty list"]);
    check("solver = []\n", Some(1), Some("solver"), Some("[]"), &["empty list", "add at least one [[solver]]"]);
}

#[test]
fn out_of_range_values() {
    let unit_open = "must be in (0, 1]";
    check_q("alpha = 0", &["is out of range: alpha must be in (0, 1] (the initial step size)"]);
    check_q("alpha = 1.5", &["alpha", unit_open]);
    check_q("alpha_decay = 1.01", &["alpha_decay", unit_open]);
    check_q("alpha_decay = 0", &["alpha_decay", unit_open]);
    check_q("epsilon_decay = 0", &["epsilon_decay", unit_open, "multiplied into epsilon"]);
    check_q("gamma = -0.1", &["gamma must be in [0, 1] (the discount)"]);
    check_q("epsilon = 1.2", &["epsilon must be in [0, 1]"]);
    check_q("epsilon_min = -0.1", &["epsilon_min must be in [0, 1]"]);
    check_q("alpha_min = -0.1", &["alpha_min must be in [0, 1]"]);
    check_q("q_init = nan", &["q_init must be any finite number"]);
    check_q("episodes = 0", &["is out of range: episodes must be a whole number >= 1 (training games per job)"]);
    let check_m = |body: &str, needles: &[&str]| {
        let (key, value) = body.split_once(" = ").unwrap();
        check(&mcts(body), Some(3), Some(&format!("solver[1].{key}")), Some(value), needles);
    };
    check_m("iterations = 0", &["iterations must be a whole number from 1 to 4294967295"]);
    check_m("iterations = 5_000_000_000", &["iterations must be a whole number from 1 to 4294967295"]);
    check_m("uct_c = -1", &["uct_c must be a finite number >= 0 (the UCT exploration constant)"]);
    check_m("uct_c = inf", &["uct_c must be a finite number >= 0"]);
    check(
        &top("replicates = 0"),
        Some(1),
        Some("replicates"),
        Some("0"),
        &["replicates must be a whole number from 1"],
    );
    check(&top("seed = -1"), Some(1), Some("seed"), Some("-1"), &["seed must be a whole number from 0"]);
    check(
        &top("[evaluation]\ngames = -1"),
        Some(2),
        Some("evaluation.games"),
        Some("-1"),
        &["games must be a whole number >= 0"],
    );
    check(&top("[evaluation]\ncheckpoints = 0"), Some(2), Some("evaluation.checkpoints"), Some("0"), &["from 1 to"]);
}

#[test]
fn floors_stay_below_their_values() {
    check(
        &q("epsilon = [0.3, 1]\nepsilon_min = [0.1, 0.5]"),
        Some(4),
        Some("solver[1].epsilon_min"),
        Some("[0.1, 0.5]"),
        &["is above epsilon at some grid points (epsilon_min = 0.5 with epsilon = 0.3)", "at most epsilon"],
    );
    check(
        &q("epsilon = 0.01"),
        Some(3),
        Some("solver[1].epsilon"),
        Some("0.01"),
        &["below the default epsilon_min = 0.05"],
    );
    check(&q("alpha = 0.1\nalpha_min = 0.2"), Some(4), Some("solver[1].alpha_min"), Some("0.2"), &["at most alpha"]);
    ok(&q("alpha = 0.1\nalpha_min = 0.1\nepsilon = 0.05"));
}

#[test]
fn min_at_excludes_its_decay_and_needs_a_positive_floor() {
    check(
        &q("epsilon_min_at = 0.5\nepsilon_decay = 0.999"),
        Some(3),
        Some("solver[1].epsilon_min_at"),
        Some("0.5"),
        &["t.toml", "cannot be given with epsilon_decay", "keep one of them"],
    );
    check(
        "[[solver]]\nkind = \"sarsa\"\nalpha_decay = 0.9\nalpha_min_at = [0.2, 1]\n",
        Some(4),
        Some("solver[1].alpha_min_at"),
        Some("[0.2, 1]"),
        &["cannot be given with alpha_decay"],
    );
    // alpha_min is 0 by default: an exponential never gets there.
    check(
        &q("alpha_min_at = 0.5"),
        Some(3),
        Some("solver[1].alpha_min_at"),
        Some("0.5"),
        &["needs alpha_min above 0", "an exponential decay never reaches 0", "alpha_min = 0.001"],
    );
    check(
        &q("temperature_min = [0, 0.1]\ntemperature_min_at = 0.3"),
        Some(4),
        Some("solver[1].temperature_min_at"),
        Some("0.3"),
        &["needs temperature_min above 0"],
    );
    for bad in ["0", "1.5", "-0.2"] {
        check_q(&format!("epsilon_min_at = {bad}"), &["epsilon_min_at", "in (0, 1]"]);
    }
    ok(&q("alpha_min = 0.01\nalpha_min_at = 0.5\nepsilon_min_at = [0.1, 1]\ntemperature_min_at = 0.5"));
    check(
        &mcts("epsilon_min_at = 0.5"),
        Some(3),
        Some("solver[1].epsilon_min_at"),
        Some("0.5"),
        &["is not a parameter of mcts"],
    );
}

#[test]
fn checkpoints_at_most_episodes() {
    check(
        &format!("[evaluation]\ncheckpoints = 100\n{}", q("episodes = [50, 1000]")),
        Some(5),
        Some("solver[1].episodes"),
        Some("[50, 1000]"),
        &["fewer than evaluation.checkpoints = 100 at some grid points (episodes = 50)", "episodes >= checkpoints"],
    );
    check(
        &format!("[evaluation]\ncheckpoints = 60000\n{}", q("")),
        Some(2),
        Some("evaluation.checkpoints"),
        Some("60000"),
        &["more than the default episodes = 50000 of solver[1]"],
    );
    // Checkpoints do not concern solvers without episodes.
    ok(&format!("[evaluation]\ncheckpoints = 60000\n{}", mcts("")));
    ok(&format!("[evaluation]\ncheckpoints = 5\n{}", q("episodes = 5")));
}

#[test]
fn unknown_names_list_the_allowed_ones() {
    check_q("seat = \"z\"", &["is not a known seat: allowed are \"x\", \"o\"."]);
    check_q(
        "opponent = \"minmax\"",
        &[
            "not a known opponent: allowed are \"random\", \"minimax\", \"minimax-uniform\", \"self\" (did you mean \"minimax\"?)",
        ],
    );
    check(
        "[[solver]]\nkind = \"value-iteration\"\nopponent = \"self\"\n",
        Some(3),
        Some("solver[1].opponent"),
        Some("\"self\""),
        &["only for q-learning", "value-iteration takes an opponent from \"random\", \"minimax\", \"minimax-uniform\""],
    );
    // Every kind of the registry, in its order.
    let allowed = crate::kinds::Kind::ALL.iter().map(|k| format!("\"{}\"", k.name())).collect::<Vec<_>>().join(", ");
    check(
        "[[solver]]\nkind = \"q-learnin\"\n",
        Some(2),
        Some("solver[1].kind"),
        Some("\"q-learnin\""),
        &[&format!("not a known kind: allowed are {allowed} (did you mean \"q-learning\"?)")],
    );
    check(
        &mcts("final_move = \"vists\""),
        Some(3),
        Some("solver[1].final_move"),
        Some("\"vists\""),
        &["\"visits\", \"value\""],
    );
    check(
        &mcts("opponent_model = \"x\""),
        Some(3),
        Some("solver[1].opponent_model"),
        Some("\"x\""),
        &["\"adversarial\", \"random\""],
    );
    check(
        &top("[evaluation]\nopponents = [\"random\", \"self\"]"),
        Some(2),
        Some("evaluation.opponents"),
        Some("\"self\""),
        &["not a known evaluation opponent: allowed are \"random\", \"minimax\", \"minimax-uniform\""],
    );
}

#[test]
fn parameters_of_other_kinds() {
    check_q("iterations = 100", &["is not a parameter of q-learning: iterations is taken by mcts"]);
    check(
        &mcts("opponent = \"random\""),
        Some(3),
        Some("solver[1].opponent"),
        Some("\"random\""),
        &["not a parameter of mcts: opponent is taken by policy-iteration, value-iteration, q-learning"],
    );
    check(
        "[[solver]]\nkind = \"policy-iteration\"\nalpha = 0.5\n",
        Some(3),
        Some("solver[1].alpha"),
        Some("0.5"),
        &["not a parameter of policy-iteration: alpha is taken by q-learning"],
    );
}

#[test]
fn self_play_takes_no_seat() {
    check(
        &q("opponent = [\"random\", \"self\"]\nseat = \"o\""),
        Some(4),
        Some("solver[1].seat"),
        Some("\"o\""),
        &["cannot be given when opponent includes \"self\": self-play plays both seats"],
    );
    let sweep = ok(&q("opponent = \"self\""));
    let Params::QLearning(p) = sweep.solvers[0].points[0] else { panic!() };
    assert_eq!(p.opponent, TrainOpponent::SelfPlay);
    // Self-play keys leave the seat out; mixed with fixed opponents, the others keep it.
    let mixed =
        ok(&format!("replicates = 2\n{}", q("opponent = [\"self\", \"random\", \"minimax\"]\nalpha = [0.1, 0.2]")));
    let jobs = mixed.jobs();
    assert_eq!(jobs.len(), 12);
    for job in &jobs {
        let key = job.params.canonical_key(0, job.replicate);
        assert_eq!(job.id, job_id(&key));
        let Params::QLearning(p) = job.params else { panic!() };
        assert_eq!(key.contains("seat="), p.opponent != TrainOpponent::SelfPlay, "{key}");
    }
}

#[test]
fn labels_are_distinct() {
    let two = "[[solver]]\nkind = \"mcts\"\nlabel = \"a\"\n[[solver]]\nkind = \"q-learning\"\nlabel = \"a\"\n";
    check(
        two,
        Some(6),
        Some("solver[2].label"),
        Some("\"a\""),
        &["is also the label of solver[1]: labels must be distinct"],
    );
    let clash = "[[solver]]\nkind = \"q-learning\"\nlabel = \"mcts\"\n[[solver]]\nkind = \"mcts\"\n";
    check(clash, Some(4), Some("solver[2].label"), Some("\"mcts\""), &["(the default) is also the label of solver[1]"]);
    check(&q("label = \"\""), Some(3), Some("solver[1].label"), Some("\"\""), &["not a usable label"]);
}

#[test]
fn default_labels() {
    let text = "[[solver]]\nkind = \"mcts\"\n[[solver]]\nkind = \"q-learning\"\n[[solver]]\nkind = \"mcts\"\nuct_c = 2\n\
                [[solver]]\nkind = \"mcts\"\nlabel = \"deep\"\niterations = 5\n";
    let labels: Vec<String> = ok(text).solvers.into_iter().map(|s| s.label).collect();
    assert_eq!(labels, ["mcts-1", "q-learning", "mcts-2", "deep"]);
}

#[test]
fn axis_tables() {
    let linspace = |v: &str| format!("solver[1].alpha.linspace = {v}");
    let cases = [
        ("[0.1, 0.5, 0]", "has a bad n: n, the number of values, must be a whole number >= 1"),
        ("[0.1, 0.5]", "has 2 values, not 3: write { linspace = [from, to, n] }"),
        ("[0.1, 0.5, 3, 4]", "has 4 values, not 3"),
        ("[\"a\", 0.5, 3]", "must start with two finite numbers"),
        ("[0.1, 0.5, 2.5]", "has a bad n"),
    ];
    for (args, needle) in cases {
        let text = q(&format!("alpha = {{ linspace = {args} }}"));
        check(&text, Some(3), Some("solver[1].alpha.linspace"), Some(args), &[&linspace(args), needle]);
    }
    check_q("alpha = { linspace = [0, 1, 5] }", &["gives alpha = 0, which is out of range: alpha must be in (0, 1]"]);
    check_q("alpha = {}", &["is an empty table: an axis table is { linspace = [from, to, n] } or { logspace"]);
    check_q("alpha = { linspace = [0.1, 1, 2], logspace = [0, 1, 2] }", &["has more than one key"]);
    check_q("episodes = { logspace = [-1, 3, 3] }", &["gives episodes = 0, which is out of range"]);
    check_q("alpha = { logspace = [-1, 1, 3] }", &["gives alpha = 10, which is out of range"]);
    check_q("seat = { linspace = [0, 1, 2] }", &["is not allowed: seat is not numeric; it takes one of \"x\", \"o\""]);
    check_q(
        "alpha = { linspace = [0.5, 0.5, 2] }",
        &["gives 0.5 more than once: the values of an axis must be distinct"],
    );
    let huge = "[0.1, 1, 99999999999]";
    check(
        &q(&format!("alpha = {{ linspace = {huge} }}")),
        Some(3),
        Some("solver[1].alpha.linspace"),
        Some(huge),
        &["asks for 99999999999 values: an axis has at most 2000000"],
    );
}

#[test]
fn repeated_values() {
    check_q("alpha = [0.1, 0.2, 0.1]", &["gives 0.1 more than once"]);
    check_q("seat = [\"x\", \"x\"]", &["gives x more than once"]);
    check_q("q_init = [0.0, -0.0]", &["more than once"]);
}

#[test]
fn missing_kind_and_no_solvers() {
    check(
        "[[solver]]\nalpha = 0.5\n",
        Some(1),
        Some("solver[1].kind"),
        None,
        &["t.toml:1: solver[1].kind is missing: every [[solver]] needs kind = one of \"policy-iteration\""],
    );
    check("name = \"x\"\n", None, None, None, &["t.toml: has no solvers: add at least one [[solver]] table"]);
    check("", None, None, None, &["has no solvers"]);
}

#[test]
fn shared_grid_points() {
    let text = "[[solver]]\nkind = \"mcts\"\nuct_c = [1, 2]\n[[solver]]\nkind = \"mcts\"\nuct_c = [2, 3]\n";
    check(
        text,
        Some(4),
        Some("solver[2]"),
        None,
        &[
            "solver[2] (label \"mcts-2\") shares grid points with solver[1] (label \"mcts-1\")",
            "e.g. seat=x, iterations=1000, uct_c=2.0, opponent_model=adversarial, final_move=visits",
            "same ids",
        ],
    );
    // Different kinds never share points, and neither do disjoint grids.
    ok("[[solver]]\nkind = \"policy-iteration\"\n[[solver]]\nkind = \"value-iteration\"\n");
    ok("[[solver]]\nkind = \"mcts\"\nuct_c = [1, 2]\n[[solver]]\nkind = \"mcts\"\nuct_c = [3]\n");
}

#[test]
fn names() {
    assert_eq!(ok(&q("")).name, "t");
    assert_eq!(parse(&q(""), "experiments/sub/grid.v2.toml").unwrap().name, "grid.v2");
    check(&top("name = \"../up\""), Some(1), Some("name"), Some("\"../up\""), &["not a usable name", "no slash"]);
    check(&top("name = \"\""), Some(1), Some("name"), Some("\"\""), &["must be non-empty"]);
    // The stem of `.hidden.toml` is `.hidden`, not a usable name: the spec must name itself.
    let e = parse(&q(""), ".hidden.toml").unwrap_err();
    assert_eq!(e.problems.len(), 1);
    assert!(
        e.to_string().starts_with(".hidden.toml: name is not given and the file name gives no usable default"),
        "{e}"
    );
}

#[test]
fn too_many_jobs() {
    let text = q(
        "alpha = { linspace = [0.01, 1, 1000] }\ngamma = { linspace = [0, 1, 1000] }\nepsilon_decay = { linspace = [0.5, 1, 1000] }",
    );
    check(&text, None, None, None, &["asks for 1000000000 jobs (q-learning: 1000000000), more than the 2000000"]);
}

#[test]
fn generated_values_are_bounded() {
    // Three axes of 1,500,000 values each: the third is refused before it is generated.
    let body = "alpha = { linspace = [0.01, 1, 1500000] }\ngamma = { linspace = [0, 1, 1500000] }\n\
                epsilon = { linspace = [0.5, 1, 1500000] }";
    let found = problems(&q(body));
    assert!(
        found[0]
            .to_string()
            .contains("solver[1].epsilon.linspace = [0.5, 1, 1500000] asks for 1500000 values, more than")
    );
}

#[test]
fn many_problems_at_once() {
    let text = "seed = -3\nreplicates = 0\n[evaluation]\ngames = \"many\"\n[[solver]]\nkind = \"q-learning\"\nalpha = 2\n\
                gamma = [0.9, 1.1]\nbogus = 1\n[[solver]]\nkind = \"mcts\"\nuct_c = -1\n";
    let found = problems(text);
    let lines: Vec<Option<usize>> = found.iter().map(|p| p.line).collect();
    assert_eq!(lines, [Some(1), Some(2), Some(4), Some(7), Some(8), Some(9), Some(12)], "{found:#?}");
    let shown = SpecError { problems: found }.to_string();
    assert_eq!(shown.lines().count(), 7, "{shown}");
}

#[test]
fn a_list_of_kinds_that_cannot_be_expanded_is_refused_naming_the_block() {
    let e = parse("[[solver]]\nkind = [\"q-learning\", \"mcts\"]\nalpha = 0.1\n", "t.toml").unwrap_err().to_string();
    assert!(e.contains("t.toml:3: solver[1].alpha = 0.1 is not a parameter of mcts"), "{e}");
    let e = parse("[[solver]]\nkind = [\"sarsa\", \"sarsa\"]\n", "t.toml").unwrap_err().to_string();
    assert!(e.contains("solver[1].kind = [\"sarsa\", \"sarsa\"] lists \"sarsa\" twice"), "{e}");
    let e = parse("[[solver]]\nkind = \"mcts\"\n[[solver]]\nkind = []\n", "t.toml").unwrap_err().to_string();
    assert!(e.contains("t.toml:4: solver[2].kind = [] is an empty list"), "{e}");
    assert_eq!(e.matches("solver[2].kind").count(), 1, "said once: {e}");
    let e =
        parse("[[solver]]\nkind = [\"sarsa\", \"q-learning\"]\nlabel = \"mine\"\n", "t.toml").unwrap_err().to_string();
    assert!(e.contains("solver[1].label = \"mine\" is not allowed with a list of kinds"), "{e}");
    assert!(!e.contains("also the label"), "{e}");
}
