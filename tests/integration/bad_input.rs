//! Every bad input gets a clear error, exit code 2, and nothing is written.
//!
//! Data-driven: each case is a spec (or flags) and the fragments its message must contain
//! (file and line, key, value, what is allowed).

use std::path::Path;

use crate::common::*;

const HEAD: &str = "name = \"bad\"\nseed = 1\n";

/// Runs `args` with a spec file holding `spec`; asserts exit 2, every fragment in the
/// message, and that the results directory was neither created nor changed.
fn check(spec: &str, extra: &[&str], fragments: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_spec(tmp.path(), "bad.toml", spec);
    let out = tmp.path().join("out");
    let mut args = vec!["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    check_args(&args, &out, fragments);
}

fn check_args(args: &[&str], out: &Path, fragments: &[&str]) {
    let before = snapshot(out);
    let existed = out.exists();
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for f in fragments {
        assert!(err.contains(f), "{args:?}: message lacks {f:?}:\n{err}");
    }
    assert_eq!(out.exists(), existed, "{args:?} created {}", out.display());
    assert_eq!(snapshot(out), before, "{args:?} changed {}", out.display());
}

fn q(params: &str) -> String {
    format!("{HEAD}[[solver]]\nkind = \"q-learning\"\n{params}\n")
}

fn mcts(params: &str) -> String {
    format!("{HEAD}[[solver]]\nkind = \"mcts\"\n{params}\n")
}

#[test]
fn malformed_toml() {
    check(&format!("{HEAD}[[solver]\nkind = 1\n"), &[], &["bad.toml:3", "malformed TOML"]);
}

#[test]
fn unknown_key_suggests_the_closest() {
    check(&q("alpah = 0.1"), &[], &["bad.toml:5", "alpah", "did you mean alpha?"]);
    check(
        &format!("{HEAD}replicate = 3\n[[solver]]\nkind = \"mcts\"\n"),
        &[],
        &["bad.toml:3", "replicate", "replicates"],
    );
}

#[test]
fn wrong_types_and_empty_lists() {
    check(&q("gamma = \"high\""), &[], &["bad.toml:5", "gamma", "\"high\"", "wrong type", "[0, 1]"]);
    check(&q("alpha = []"), &[], &["bad.toml:5", "alpha", "empty list"]);
    check(&q("symmetry = 1"), &[], &["bad.toml:5", "symmetry", "wrong type"]);
}

#[test]
fn every_out_of_range_parameter() {
    let cases: [(String, &str, &str, &str); 11] = [
        (q("alpha = 0"), "alpha", "0", "(0, 1]"),
        (q("alpha = 1.5"), "alpha", "1.5", "(0, 1]"),
        (q("gamma = -0.1"), "gamma", "-0.1", "[0, 1]"),
        (q("epsilon_decay = 0"), "epsilon_decay", "0", "(0, 1]"),
        (q("epsilon = 0.1\nepsilon_min = 0.5"), "epsilon_min", "0.5", "at most epsilon"),
        (q("alpha = 0.1\nalpha_min = 0.5"), "alpha_min", "0.5", "at most alpha"),
        (q("episodes = 0"), "episodes", "0", ">= 1"),
        (mcts("iterations = 0"), "iterations", "0", "from 1"),
        (mcts("uct_c = -1"), "uct_c", "-1", ">= 0"),
        (format!("{HEAD}replicates = 0\n[[solver]]\nkind = \"mcts\"\n"), "replicates", "0", "from 1"),
        (
            format!("{HEAD}[evaluation]\ncheckpoints = 20\n[[solver]]\nkind = \"q-learning\"\nepisodes = 10\n"),
            "checkpoints",
            "20",
            "episodes",
        ),
    ];
    for (spec, key, value, allowed) in &cases {
        check(spec, &[], &["bad.toml:", key, &format!("= {value}"), allowed]);
    }
}

#[test]
fn parameters_kinds_seats_opponents_labels() {
    check(&mcts("episodes = 5"), &[], &["bad.toml:5", "episodes", "not a parameter of mcts", "q-learning"]);
    check(
        &format!("{HEAD}[[solver]]\nkind = \"td-lambda\"\n"),
        &[],
        &["bad.toml:4", "td-lambda", "policy-iteration", "mcts"],
    );
    check(&q("seat = \"z\""), &[], &["bad.toml:5", "seat", "\"z\"", "\"x\", \"o\""]);
    check(&q("opponent = \"smart\""), &[], &["bad.toml:5", "smart", "random", "minimax-uniform", "self"]);
    check(
        &format!("{HEAD}[evaluation]\nopponents = [\"rand\"]\n[[solver]]\nkind = \"mcts\"\n"),
        &[],
        &["rand", "random"],
    );
    check(
        &format!(
            "{HEAD}[[solver]]\nkind = \"mcts\"\nlabel = \"a\"\n[[solver]]\nkind = \"q-learning\"\nlabel = \"a\"\n"
        ),
        &[],
        &["bad.toml:8", "label", "\"a\""],
    );
}

#[test]
fn linspace_and_logspace_shapes() {
    check(&q("alpha = { linspace = [0.1, 0.5, 0] }"), &[], &["bad.toml:5", "alpha", "linspace"]);
    check(&q("alpha = { linspace = [0.1, 0.5] }"), &[], &["bad.toml:5", "alpha", "linspace", "[from, to, n]"]);
    check(&q("alpha = { logspace = [-2, 0, \"x\"] }"), &[], &["bad.toml:5", "alpha", "logspace"]);
}

#[test]
fn several_errors_are_reported_at_once() {
    check(&q("alpha = 2\ngamma = 7\nseat = \"q\""), &[], &["bad.toml:5", "bad.toml:6", "bad.toml:7"]);
}

#[test]
fn spec_paths_that_are_missing_or_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let missing = tmp.path().join("nope.toml");
    check_args(&["run", missing.to_str().unwrap(), "--out", out.to_str().unwrap()], &out, &["nope.toml"]);
    check_args(&["run", tmp.path().to_str().unwrap(), "--out", out.to_str().unwrap()], &out, &["directory"]);
}

#[test]
fn bad_flags() {
    let spec = mcts("iterations = 10");
    check(&spec, &["--threads", "0"], &["--threads", "'0'", "from 1 to 1024"]);
    check(&spec, &["--shard", "4/4"], &["--shard", "K/N"]);
    check(&spec, &["--shard", "two"], &["--shard", "K/N"]);
    check(&spec, &["--only", "ffffffffffff"], &["--only ffffffffffff", "no job"]);
    check(&spec, &["--fresh", "--extend"], &["--fresh", "--extend"]);
}

#[test]
fn slurm_variables_out_of_range() {
    let tmp = tempfile::tempdir().unwrap();
    let path = write_spec(tmp.path(), "s.toml", &mcts("iterations = 10"));
    let out = tmp.path().join("out");
    let o = sweep()
        .args(["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .env("SLURM_ARRAY_TASK_ID", "7")
        .env("SLURM_ARRAY_TASK_COUNT", "4")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("SLURM_ARRAY_TASK_ID=7"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn out_not_writable() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let path = write_spec(tmp.path(), "s.toml", &mcts("iterations = 10"));
    let out = file.join("sub");
    check_args(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()], &out, &["not a directory"]);
    // /proc refuses new files even to root.
    let out = Path::new("/proc/sweep-results");
    check_args(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap()], out, &["not writable"]);
}

#[test]
fn unreadable_or_malformed_results_for_reproduce_and_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for cmd in [&["summary"][..], &["reproduce", "--job", "abc"][..]] {
        let mut args = vec![cmd[0], empty.to_str().unwrap()];
        args.extend_from_slice(&cmd[1..]);
        check_args(&args, &empty, &["empty"]);
        let bad = tmp.path().join("bad");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(bad.join("results.csv"), "a,b\n1,2\n").unwrap();
        std::fs::write(bad.join("manifest.json"), "{}").unwrap();
        let mut args = vec![cmd[0], bad.to_str().unwrap()];
        args.extend_from_slice(&cmd[1..]);
        check_args(&args, &bad, &["bad"]);
        let missing = tmp.path().join("missing/results.csv");
        let mut args = vec![cmd[0], missing.to_str().unwrap()];
        args.extend_from_slice(&cmd[1..]);
        check_args(&args, &missing, &["missing"]);
    }
}

/// One rule for a damaged results file: every command that reads it says which row is
/// wrong and exits 2 (bad input), writing nothing.
#[test]
fn a_malformed_results_row_is_bad_input_for_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    let path = out.join("results.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    lines[3] = lines[3].replacen(',', ";", 5);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let dir = out.to_str().unwrap();
    let runs = ["run", "experiments/smoke.toml", "--quiet", "--out", dir];
    let commands = [&runs[..], &["summary", dir], &["compare", dir], &["reproduce", dir, "--job", &lines[1][..12]]];
    // The manifest's hash of what sweep wrote finds the change first; without it (a
    // manifest of an older version), the row that does not parse is named.
    for args in commands {
        check_args(args, &out, &["results.csv has changed since sweep wrote it"]);
    }
    let manifest = out.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m.as_object_mut().unwrap().remove("written");
    std::fs::write(&manifest, m.to_string()).unwrap();
    for args in commands {
        check_args(args, &out, &["results.csv: malformed row 4", "damaged"]);
    }
}

#[test]
fn plan_refuses_what_run_refuses_for_memory() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("never");
    let plan = run(&["plan", "experiments/smoke.toml", "--max-memory", "1M"]);
    let err = stderr(&plan);
    assert_eq!(plan.status.code(), Some(2), "{err}");
    let run_o = run(&["run", "experiments/smoke.toml", "--max-memory", "1M", "--out", out.to_str().unwrap()]);
    assert_eq!(run_o.status.code(), Some(2));
    assert!(err.contains("more than the memory budget of 1.0 MiB (--max-memory)"), "{err}");
    assert_eq!(err.lines().last(), stderr(&run_o).lines().last(), "the same message");
    assert!(!out.exists());
    let fits = run(&["plan", "experiments/smoke.toml", "--max-memory", "4G"]);
    assert_eq!(fits.status.code(), Some(0), "{}", stderr(&fits));
}

#[test]
fn an_unknown_search_method_names_the_methods_once() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "[search]\nmethod = \"bayes\"\nmin_budget = 100\nmax_budget = 900\n[[solver]]\nkind = \"q-learning\"\n";
    let spec = write_spec(tmp.path(), "bayes.toml", text);
    let o = run(&["plan", spec.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("bayes.toml:2: search.method = \"bayes\""), "{err}");
    assert!(err.contains("\"halving\", \"hyperband\""), "{err}");
    assert!(!err.contains("has no method"), "a given method is not missing: {err}");
}
