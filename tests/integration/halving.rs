//! Command-line tests of `[search]`: a search killed (SIGKILL) in the middle of a rung
//! resumes with the same command to the files of an uninterrupted search (ranked by
//! `regret` or by `regret_auc`); `plan` shows the rungs and the work against the full grid,
//! and says that its per-solver lines are the full grid; nonsense is refused with clear
//! messages.

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// 8 configurations x 10 replicates; rungs of 40, 20 and 10 jobs at 50k, 100k, 200k
/// episodes: long enough to be killed in the middle of the second rung.
const LONG: &str = r#"
name = "long"
seed = 3
replicates = 10
[evaluation]
checkpoints = 2
[search]
method = "halving"
eta = 2
min_budget = 50000
max_budget = 200000
[[solver]]
kind = "q-learning"
alpha = [0.05, 0.1, 0.3, 0.6]
epsilon = [0.1, 0.3]
"#;

fn data_rows(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("results.csv")).map_or(0, |t| t.lines().count().saturating_sub(1))
}

#[test]
fn a_search_killed_mid_rung_resumes_to_the_same_files() {
    killed_mid_rung_resumes_to_the_same_files(LONG);
}

#[test]
fn a_regret_auc_search_killed_mid_rung_resumes_to_the_same_files() {
    killed_mid_rung_resumes_to_the_same_files(&LONG.replace("[search]\n", "[search]\nmetric = \"regret_auc\"\n"));
}

/// Kills the search `text` (rungs of 80, 40 and 20 jobs) in its second rung, cuts its last
/// line, resumes it and compares the files with an uninterrupted run.
fn killed_mid_rung_resumes_to_the_same_files(text: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "long.toml", text);
    let spec = spec.to_str().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_sweep"))
        .current_dir(root())
        .args(["run", spec, "--quiet", "--threads", "2", "--out", a.to_str().unwrap()])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_ARRAY_TASK_COUNT")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    // Rung 0 has 80 jobs (one row each): wait until rung 1 has begun.
    let start = Instant::now();
    while data_rows(&a) < 82 {
        assert!(start.elapsed() < Duration::from_secs(120), "the search did not reach rung 1 in time");
        std::thread::sleep(Duration::from_millis(10));
    }
    StdCommand::new("kill").args(["-s", "KILL", &child.id().to_string()]).status().unwrap();
    child.wait().unwrap();
    let mut text = std::fs::read_to_string(a.join("results.csv")).unwrap();
    let done = text.lines().count() - 1;
    assert!((82..140).contains(&done), "killed in the middle of the search ({done} of 140 rows)");
    text.push_str("deadbeef0000,q-lear");
    std::fs::write(a.join("results.csv"), text).unwrap();
    let o = run(&["run", spec, "--threads", "2", "--out", a.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming") && stderr(&o).contains("halving rung 2 of 3"), "{}", stderr(&o));
    let o = run(&["run", spec, "--quiet", "--threads", "1", "--out", b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(data_rows(&b), 140);
    assert_eq!(without_timings(&a.join("results.csv")), without_timings(&b.join("results.csv")));
    assert_eq!(std::fs::read(a.join("curves.csv")).unwrap(), std::fs::read(b.join("curves.csv")).unwrap());
    let manifest = std::fs::read_to_string(a.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"complete\": true"), "{manifest}");
}

#[test]
fn plan_shows_the_rungs_and_the_work_against_the_full_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "long.toml", LONG);
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("search: halving, eta 2, 3 rungs"), "{out}");
    let solver_line = out.lines().find(|l| l.starts_with("q-learning")).unwrap();
    assert!(
        solver_line.contains("8         80")
            && solver_line.ends_with("(full grid at episodes = 200000; the search runs a share, see below)"),
        "{out}"
    );
    for line in ["0               8        50000         80", "1               4       100000         40"] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    assert!(
        out.contains("search total: 140 jobs, 12000000 episodes (75.0% of the full grid's 80 jobs, 16000000 episodes)"),
        "{out}"
    );
}

#[test]
fn nonsense_searches_are_refused_with_clear_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            LONG.replace("kind = \"q-learning\"", "kind = \"q-learning\"\nepisodes = 100"),
            "solver[1].episodes = 100 is set by [search]",
        ),
        (
            LONG.replace(
                "kind = \"q-learning\"\nalpha = [0.05, 0.1, 0.3, 0.6]\nepsilon = [0.1, 0.3]",
                "kind = \"policy-iteration\"",
            ),
            "has no budget parameter",
        ),
        (LONG.replace("min_budget = 50000", "min_budget = 500000"), "min_budget = 500000 above max_budget = 200000"),
        (LONG.replace("eta = 2", "eta = 1"), "eta must be a whole number from 2"),
        (LONG.replace("method = \"halving\"", "method = \"asha\""), "method takes one of \"halving\", \"hyperband\""),
        (LONG.replace("eta = 2", "eta = 2\nopponent = \"minimax\""), "opponent takes one of \"random\""),
        (LONG.replace("eta = 2", "eta = 2\npatience = 3"), "is not a known key of [search]"),
        (LONG.replace("checkpoints = 2", "checkpoints = 60000"), "fewer than evaluation.checkpoints"),
        (
            LONG.replace("eta = 2", "eta = 2\nmetric = \"regret_auc\"")
                .replace(
                    "kind = \"q-learning\"\nalpha = [0.05, 0.1, 0.3, 0.6]\nepsilon = [0.1, 0.3]",
                    "kind = \"mcts\"",
                )
                .replace("min_budget = 50000", "min_budget = 500")
                .replace("max_budget = 200000", "max_budget = 2000"),
            "metric = \"regret_auc\" over iterations: only learners",
        ),
    ];
    for (text, expected) in cases {
        let spec = write_spec(tmp.path(), "bad.toml", &text);
        let o = run(&["run", spec.to_str().unwrap(), "--out", tmp.path().join("out").to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{expected:?} in {}", stderr(&o));
    }
}
