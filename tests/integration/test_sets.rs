//! `sweep score --test-set`: the field's metric on the shipped set
//! (tests/data/test-sets/reference-late.txt), its figures checked against the independent
//! reference solver's labels, its errors, and a policy program asked in batches.

use std::path::{Path, PathBuf};

use crate::common::*;

/// The shipped set.
fn shipped() -> String {
    root().join("tests/data/test-sets/reference-late.txt").display().to_string()
}

/// `sweep score --json` on the shipped set with `extra` flags, and its one set's object.
fn scored(extra: &[&str]) -> serde_json::Value {
    let set = shipped();
    let mut args = vec!["score", "--test-set", &set, "--json", "--threads", "2", "--table-mib", "64"];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    v[0].clone()
}

/// A labelled position of tests/data/solved_positions.txt: 0-based moves, value and
/// plies to the end for the player to move.
struct Reference {
    moves: Vec<u8>,
    value: i32,
    plies: i32,
}

/// The reference solver's score (`cells + 1 - plies at the end` for the winner).
fn reference_score(value: i32, stones: i32, plies: i32) -> i32 {
    value * if value == 0 { 0 } else { 42 + 1 - (stones + plies) }
}

/// The shipped set's positions as tests/data/solved_positions.txt labels them (those of
/// Connect Four with 20 stones or more, in its order).
fn references() -> Vec<Reference> {
    let data = std::fs::read_to_string(root().join("tests/data/solved_positions.txt")).unwrap();
    data.lines()
        .filter(|l| l.starts_with("6x7g4 "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f[1].split(',').count() >= 20)
        .map(|f| Reference {
            moves: f[1].split(',').map(|m| m.parse().unwrap()).collect(),
            value: f[2].parse().unwrap(),
            plies: f[3].parse().unwrap(),
        })
        .collect()
}

/// The reference solver, built from scripts/reference_solver.c (`$CC`, else `cc`), or
/// `None` where there is no C compiler.
fn reference_solver(dir: &Path) -> Option<PathBuf> {
    let program = dir.join("reference_solver");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let source = root().join("scripts/reference_solver.c");
    match std::process::Command::new(&cc).args(["-O2", "-std=c99", "-o"]).arg(&program).arg(&source).output() {
        Err(e) => {
            eprintln!("skipped: no C compiler ({cc}: {e})");
            None
        }
        Ok(o) => {
            assert!(o.status.success(), "{cc} failed: {}", stderr(&o));
            Some(program)
        }
    }
}

#[test]
fn the_perfect_agent_keeps_every_value_of_the_shipped_set() {
    let v = scored(&["--agent", "perfect"]);
    assert_eq!(v["set"], "reference-late.txt");
    assert_eq!(v["positions"], 114);
    assert_eq!(v["wdl_accuracy"], 1.0);
    // `perfect` plays a move of the best outcome, not always of the best score.
    let score = v["score_accuracy"].as_f64().unwrap();
    assert!(score > 0.5 && score <= 1.0, "{v}");
}

/// The lowest-column agent's figures are those the reference solver's labels give: the
/// position's own from solved_positions.txt, the position after the lowest column's move
/// from the reference solver run here (a move that ends the game wins it: the best score).
#[test]
fn the_lowest_agents_figures_are_the_reference_solvers_counts() {
    let dir = tempfile::tempdir().unwrap();
    let Some(solver) = reference_solver(dir.path()) else { return };
    let (mut wdl, mut score) = (0, 0);
    let positions = references();
    for r in &positions {
        let n = r.moves.len() as i32;
        let lowest = (0..7u8).find(|&c| r.moves.iter().filter(|&&m| m == c).count() < 6).unwrap();
        let child: Vec<String> = r.moves.iter().chain([&lowest]).map(|m| m.to_string()).collect();
        let o = std::process::Command::new(&solver)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                writeln!(c.stdin.take().unwrap(), "6x7g4 {}", child.join(","))?;
                c.wait_with_output()
            })
            .unwrap();
        let (value, child_score) = if stderr(&o).contains("already over") {
            (1, reference_score(1, n, 1))
        } else {
            assert!(o.status.success(), "{}", stderr(&o));
            let out = stdout(&o);
            let f: Vec<&str> = out.split_whitespace().collect();
            let (v, p): (i32, i32) = (f[2].parse().unwrap(), f[3].parse().unwrap());
            (-v, -reference_score(v, n + 1, p))
        };
        wdl += usize::from(value == r.value);
        score += usize::from(child_score == reference_score(r.value, n, r.plies));
    }
    let v = scored(&["--agent", "lowest"]);
    assert_eq!(v["positions"], positions.len());
    assert_eq!(v["wdl_accuracy"].as_f64().unwrap(), wdl as f64 / positions.len() as f64, "{v}");
    assert_eq!(v["score_accuracy"].as_f64().unwrap(), score as f64 / positions.len() as f64, "{v}");
    assert!(wdl < positions.len() && score < wdl, "the set tells the lowest column from perfect play");
}

#[test]
fn the_json_object_has_both_shares_and_their_wilson_intervals() {
    let v = scored(&["--agent", "lowest"]);
    for share in ["wdl", "score"] {
        let p = v[format!("{share}_accuracy")].as_f64().unwrap();
        let half = v[format!("{share}_half_width")].as_f64().unwrap();
        let (lo, hi) =
            (v[format!("{share}_interval")][0].as_f64().unwrap(), v[format!("{share}_interval")][1].as_f64().unwrap());
        assert!(lo < p && p < hi && 0.0 < half && half < 0.1, "{v}");
        assert!(((hi - lo) / 2.0 - half).abs() < 1e-12, "{v}");
    }
}

#[test]
fn a_bad_line_or_a_wrong_score_is_named_by_file_and_line_before_the_agent_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let asked = dir.path().join("asked");
    let program = dir.path().join("agent.sh");
    std::fs::write(&program, format!("touch {}\nexec cat >/dev/null\n", asked.display())).unwrap();
    for (text, says) in [
        ("4453\n44x3\n", "bad.txt:2: \"44x3\": the moves are digits from 1"),
        ("4453\n\n4488888888 3\n", "bad.txt:3: \"4488888888\" on 6x7g4: move 3 (8) is not legal"),
        ("27535632555615237236 3\n", "bad.txt:1: the score 3 is not the position's: the search finds 2"),
    ] {
        let file = dir.path().join("bad.txt");
        std::fs::write(&file, text).unwrap();
        let o = run(&["score", "--test-set", file.to_str().unwrap(), "--", "sh", program.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{text:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{text:?}: {}", stderr(&o));
        assert!(!asked.exists(), "{text:?}: the program was started");
    }
}

/// A program answering the lowest column gives the built-in agent's figures, asked in
/// batches of at most `--batch` positions.
#[test]
fn a_policy_program_is_asked_the_set_in_batches_and_scores_as_the_builtin_agent() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("batches");
    let program = dir.path().join("lowest.py");
    std::fs::write(
        &program,
        format!(
            "import sys\nlog = open({:?}, 'w')\nfor line in sys.stdin:\n    n = int(line.split()[1])\n    \
             boards = [sys.stdin.readline().strip() for _ in range(n)]\n    log.write(f'{{len(boards)}}\\n'); \
             log.flush()\n    for b in boards:\n        print(next(c for c in range(7) if b[c] == '.'))\n    \
             sys.stdout.flush()\n",
            log.display().to_string()
        ),
    )
    .unwrap();
    let v = scored(&["--batch", "50", "--", "python3", program.to_str().unwrap()]);
    let lowest = scored(&["--agent", "lowest"]);
    assert_eq!(v, lowest);
    let batches: Vec<usize> = std::fs::read_to_string(&log).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(batches, [50, 50, 14]);
}
