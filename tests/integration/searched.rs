//! Specs on a board too big to enumerate (Connect Four, `6x7g4`): MCTS and a program that
//! answers positions, scored by search through the whole run path (spec, executor, rows,
//! summary), and checked against `sweep score` and against perfect play.

use std::path::Path;

use crate::common::*;

/// Sixteen moves into Connect Four, X to move and winning at once (column 5), which MCTS
/// with 50 iterations may miss; every row is exact in well under a second.
const FROM: &str = "4,6,4,0,3,1,1,3,1,4,0,6,2,3,3,2";

/// A policy server that plays a move of the best outcome, asking `sweep solve --serve`.
const PERFECT: &str = r#"
import os, sys
sys.path.insert(0, os.environ["SWEEP_TEST_PYTHON"])
from sweep_agents import Game, serve_policy
from sweep_agents.oracle import SearchOracle
game = Game.search_board(os.environ["SWEEP_GAME"])
oracle = SearchOracle(game)
def answer(texts):
    boards = [game.parse_board(t, validate=False) for t in texts]
    oracle.values(boards)
    return [oracle.optimal_moves(b)[0] for b in boards]
serve_policy(answer, batch=True, game=game)
"#;

/// A positions/2 program: the lowest legal column at checkpoints 0 and 1, perfect play
/// at checkpoints 2 and 3 and for the final policy, which is also its last checkpoint's
/// (it does not announce that one).
const LEARNING: &str = r#"
import os, sys
sys.path.insert(0, os.environ["SWEEP_TEST_PYTHON"])
from sweep_agents import Game, serve_checkpoint, serve_policy
from sweep_agents.oracle import SearchOracle
game = Game.search_board(os.environ["SWEEP_GAME"])
oracle = SearchOracle(game)
def lowest(texts):
    return [game.legal_moves(game.parse_board(t, validate=False))[0] for t in texts]
def perfect(texts):
    boards = [game.parse_board(t, validate=False) for t in texts]
    oracle.values(boards)
    return [oracle.optimal_moves(b)[0] for b in boards]
episodes = int(os.environ["SWEEP_EPISODES"])
for episode in range(episodes):
    serve_checkpoint(episode, lowest if episode <= 1 else perfect)
serve_policy(perfect)
"#;

/// A program that trains "forever" and never answers.
const SILENT: &str = "import time\ntime.sleep(600)\n";

fn spec(dir: &Path, solvers: &str) -> std::path::PathBuf {
    let text = format!(
        "name = \"c4\"\nseed = 5\nreplicates = 2\n[evaluation]\nopponents = [\"random\", \"minimax\", \
         \"minimax-uniform\", \"best-response\"]\nfrom = \"{FROM}\"\n{solvers}"
    );
    write_spec(dir, "c4.toml", &text)
}

fn sweep_with_python() -> assert_cmd::Command {
    let mut c = sweep();
    c.env("SWEEP", env!("CARGO_BIN_EXE_sweep")).env("SWEEP_TEST_PYTHON", root().join("python"));
    c
}

fn cell<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    &row[header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))]
}

fn num(header: &[String], row: &[String], name: &str) -> f64 {
    cell(header, row, name).parse().unwrap_or_else(|_| panic!("{name}: {:?}", cell(header, row, name)))
}

#[test]
fn mcts_rows_on_connect_four_are_what_sweep_score_gives_and_keep_the_properties() {
    let dir = tempfile::tempdir().unwrap();
    let spec =
        spec(dir.path(), "[[solver]]\nkind = \"mcts\"\ngame = \"6x7g4\"\nseat = [\"x\", \"o\"]\niterations = 50\n");
    let out = dir.path().join("out");
    let o = sweep().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2 * 2 * 4, "2 seats x 2 replicates x 4 opponents");
    for row in &rows {
        assert_eq!(cell(&header, row, "status"), "ok", "{row:?}");
        assert_eq!(cell(&header, row, "game"), "6x7g4");
        assert_eq!(cell(&header, row, "evaluation"), "exact");
        let p = num(&header, row, "p_win") + num(&header, row, "p_draw") + num(&header, row, "p_loss");
        assert!((p - 1.0).abs() < 1e-9, "probabilities sum to {p}");
        let value = num(&header, row, "value");
        assert!((value - (num(&header, row, "p_win") - num(&header, row, "p_loss"))).abs() < 1e-12);
        if !cell(&header, row, "regret").is_empty() {
            assert!(num(&header, row, "regret") >= 0.0, "regret >= 0: {row:?}");
        }
    }
    // X wins by force from FROM: its optimum is 1 against every opponent, random included;
    // O loses by force: against random no exact optimum is known, and the cell says so.
    for row in &rows {
        let (seat, opp) = (cell(&header, row, "seat"), cell(&header, row, "eval_opponent"));
        match (seat, opp) {
            ("x", _) => assert_eq!(num(&header, row, "optimal_value"), 1.0),
            ("o", "random") => assert_eq!(cell(&header, row, "optimal_value"), ""),
            ("o", _) => assert_eq!(num(&header, row, "optimal_value"), -1.0),
            other => panic!("{other:?}"),
        }
    }
    // Each job's worst case is its best-response row.
    for seat in ["x", "o"] {
        for replicate in ["0", "1"] {
            let mine: Vec<&Vec<String>> = rows
                .iter()
                .filter(|r| cell(&header, r, "seat") == seat && cell(&header, r, "replicate") == replicate)
                .collect();
            let worst = mine.iter().find(|r| cell(&header, r, "eval_opponent") == "best-response").unwrap();
            for r in &mine {
                assert!(num(&header, worst, "value") <= num(&header, r, "value") + 1e-12);
            }
        }
    }
    // The X rows of each job are the figures `sweep score` gives the same MCTS agent (its
    // seed is the job's).
    for replicate in ["0", "1"] {
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| cell(&header, r, "seat") == "x" && cell(&header, r, "replicate") == replicate)
            .collect();
        let seed = cell(&header, mine[0], "seed");
        let o = run(&["score", "--from", FROM, "--agent", "mcts", "--iterations", "50", "--seed", seed, "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        for f in json["figures"].as_array().unwrap() {
            let opp = f["eval_opponent"].as_str().unwrap();
            let row = mine.iter().find(|r| cell(&header, r, "eval_opponent") == opp).unwrap();
            assert!((f["value"].as_f64().unwrap() - num(&header, row, "value")).abs() < 1e-12, "{opp}");
            assert_eq!(f["positions"].as_u64().unwrap() as f64, num(&header, row, "states"), "{opp}");
            match f["accuracy"].as_f64() {
                Some(a) => assert!((a - num(&header, row, "accuracy")).abs() < 1e-12, "{opp}"),
                None => assert_eq!(cell(&header, row, "accuracy"), "", "{opp}"),
            }
        }
        // Against minimax one deterministic game is played: a whole result.
        let minimax = mine.iter().find(|r| cell(&header, r, "eval_opponent") == "minimax").unwrap();
        assert!([0.0, 1.0, 2.0].contains(&num(&header, minimax, "regret")));
    }
    // The readers take these rows like any others: the summary (O against random has no
    // regret, so no line), compare and the page.
    let o = run(&["summary", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("6x7g4"), "{}", stdout(&o));
    let o = run(&["compare", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = out.join("page.html");
    let o = run(&["report", out.to_str().unwrap(), "--out", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("rows without an exact optimum"), "the page counts the rows that have no regret");
}

#[test]
fn a_program_playing_perfectly_on_connect_four_has_no_regret_and_full_accuracy() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("perfect.py"), PERFECT).unwrap();
    let spec = spec(
        dir.path(),
        "[[solver]]\nkind = \"command\"\nlabel = \"perfect\"\ncommand = [\"python3\", \"perfect.py\"]\n\
         game = \"6x7g4\"\nopponent = \"self\"\nepisodes = 1\ntimeout = \"2m\"\n",
    );
    let out = dir.path().join("out");
    let o = sweep_with_python().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2 * 2 * 4, "self-play: both seats, 2 replicates, 4 opponents");
    for row in &rows {
        assert_eq!(cell(&header, row, "status"), "ok", "{row:?}");
        let opp = cell(&header, row, "eval_opponent");
        if !cell(&header, row, "regret").is_empty() {
            assert_eq!(num(&header, row, "regret"), 0.0, "{opp}: {row:?}");
        }
        if opp != "best-response" {
            assert_eq!(num(&header, row, "accuracy"), 1.0, "{opp}");
        }
        let asked: serde_json::Value = serde_json::from_str(cell(&header, row, "metrics")).unwrap();
        assert!(asked["asked"].as_u64().unwrap() > 0);
    }
    // Every configuration ties in a block of one: the summary still names it; with both
    // replicates identical the block's line is a "best" line of one configuration.
    let summary = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
    assert!(summary.contains("command:perfect on 6x7g4 (x vs best-response)"), "{summary}");
}

#[test]
fn a_program_serving_its_checkpoints_has_a_learning_curve_of_exact_points() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("learning.py"), LEARNING).unwrap();
    let spec = spec(
        dir.path(),
        "checkpoints = 4\n[[solver]]\nkind = \"command\"\nlabel = \"learning\"\ncommand = [\"python3\", \
         \"learning.py\"]\ngame = \"6x7g4\"\nseat = \"x\"\nepisodes = 4\ntimeout = \"2m\"\nserve_checkpoints = true\n",
    );
    let out = dir.path().join("out");
    let o = sweep_with_python().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // What the lowest column gets from FROM, by `sweep score`: the curve's point at
    // episode 1.
    let o = run(&["score", "--from", FROM, "--agent", "lowest", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let lowest = |opp: &str| {
        let f = json["figures"].as_array().unwrap().iter().find(|f| f["eval_opponent"] == opp).unwrap();
        f["value"].as_f64().unwrap()
    };
    let (header, rows) = read_csv(&out.join("results.csv"));
    let (curve_header, curves) = read_csv(&out.join("curves.csv"));
    assert_eq!(rows.len(), 2 * 4, "2 replicates x 4 opponents");
    assert_eq!(curves.len(), 2 * 4 * 4, "2 replicates x 4 opponents x checkpoints 1..4");
    for row in &rows {
        assert_eq!(cell(&header, row, "status"), "ok", "{row:?}");
        let opp = cell(&header, row, "eval_opponent");
        let id = cell(&header, row, "job_id");
        // X wins by force from FROM: the optimum is 1 against every opponent.
        let regret_lowest = 1.0 - lowest(opp);
        assert!(regret_lowest > 0.0, "{opp}: the lowest column concedes something");
        let mine: Vec<&Vec<String>> = curves
            .iter()
            .filter(|c| cell(&curve_header, c, "job_id") == id && cell(&curve_header, c, "eval_opponent") == opp)
            .collect();
        let episodes: Vec<f64> = mine.iter().map(|c| num(&curve_header, c, "episode")).collect();
        assert_eq!(episodes, [1.0, 2.0, 3.0, 4.0]);
        for c in &mine {
            let (episode, value) = (num(&curve_header, c, "episode"), num(&curve_header, c, "value"));
            let expected = if episode <= 1.0 { lowest(opp) } else { 1.0 };
            assert!((value - expected).abs() < 1e-12, "{opp} at {episode}: {value} != {expected}");
            assert!((num(&curve_header, c, "regret") - (1.0 - expected)).abs() < 1e-12);
        }
        // The regret from 0 to 4: r over [0, 1], r to 0 over [1, 2], then 0; solved from 2.
        let auc = num(&header, row, "regret_auc");
        assert!((auc - 1.5 * regret_lowest / 4.0).abs() < 1e-12, "{opp}: auc {auc}");
        assert_eq!(cell(&header, row, "solved_at"), "2", "{opp}");
        assert_eq!(num(&header, row, "regret"), 0.0, "{opp}: the final policy plays perfectly");
        let metrics: serde_json::Value = serde_json::from_str(cell(&header, row, "metrics")).unwrap();
        assert!(metrics["asked"].as_u64().unwrap() > 0);
        assert!(metrics["asked_at_checkpoints"].as_u64().unwrap() > metrics["asked"].as_u64().unwrap());
    }
}

#[test]
fn a_checkpoint_not_asked_for_or_a_program_that_never_announces_is_a_failed_row_that_says_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("wrong.py"), "print('checkpoint 3', flush=True)\nimport sys\nsys.stdin.read()\n")
        .unwrap();
    // positions/1 by hand: waits for batches and never announces a policy.
    let by_hand = "import sys\nfor line in sys.stdin:\n    n = int(line.split()[1])\n    \
                   [sys.stdin.readline() for _ in range(n)]\n    print('\\n'.join(['3'] * n), flush=True)\n";
    std::fs::write(dir.path().join("by_hand.py"), by_hand).unwrap();
    let solvers = |label: &str, script: &str| {
        format!(
            "[[solver]]\nkind = \"command\"\nlabel = \"{label}\"\ncommand = [\"python3\", \"{script}\"]\n\
             game = \"6x7g4\"\nseat = \"x\"\nepisodes = 4\ntimeout = \"3s\"\nserve_checkpoints = true\n"
        )
    };
    let spec = spec(
        dir.path(),
        &format!("checkpoints = 2\n{}{}", solvers("wrong", "wrong.py"), solvers("by-hand", "by_hand.py")),
    );
    let out = dir.path().join("out");
    let o = sweep_with_python().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(!o.status.success());
    let (header, rows) = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2 * 2 * 4, "2 solvers x 2 replicates x 4 opponents");
    for row in &rows {
        assert_eq!(cell(&header, row, "status"), "failed");
        let error = cell(&header, row, "error");
        match cell(&header, row, "solver") {
            "command:wrong" => {
                assert!(error.contains("announced checkpoint 3, which sweep did not ask for"), "{error}")
            }
            // A positions/1 program waits for positions that never come: at its timeout
            // the row says what sweep waited for.
            _ => assert!(error.contains("timed out after 3 s") && error.contains("positions/2"), "{error}"),
        }
    }
}

#[test]
fn a_silent_program_is_a_failed_row_at_its_timeout_and_leaves_nothing_running() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("silent.py"), SILENT).unwrap();
    let spec = spec(
        dir.path(),
        "[[solver]]\nkind = \"command\"\nlabel = \"silent\"\ncommand = [\"python3\", \"silent.py\"]\n\
         game = \"6x7g4\"\nseat = \"x\"\nepisodes = 10\ntimeout = \"1s\"\n",
    );
    let out = dir.path().join("out");
    let o = sweep().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(!o.status.success());
    let (header, rows) = read_csv(&out.join("results.csv"));
    for row in &rows {
        assert_eq!(cell(&header, row, "status"), "failed");
        assert!(cell(&header, row, "error").contains("timed out after 1 s"), "{row:?}");
    }
    // No python3 of this test's folder is left.
    let mine = dir.path().join("silent.py");
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            assert!(!text.contains(mine.to_str().unwrap()), "still running: {text}");
        }
    }
}

#[test]
fn boards_beyond_enumeration_are_refused_where_they_cannot_be_played() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), "[[solver]]\nkind = \"q-learning\"\ngame = \"6x7g4\"\nepisodes = 10\n");
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("6x7g4 is too big to enumerate") && e.contains("mcts and command"), "{e}");
    // A start position that is not legal on the board is named with the board.
    let text = "name = \"c\"\n[evaluation]\nfrom = \"3,3,3,3,3,3,3\"\n[[solver]]\nkind = \"mcts\"\ngame = \"6x7g4\"\n";
    let bad = write_spec(dir.path(), "bad.toml", text);
    let o = run(&["plan", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("evaluation.from") && stderr(&o).contains("6x7g4"), "{}", stderr(&o));
    // Served checkpoints are for boards too big to enumerate: elsewhere a program writes
    // its checkpoints as files.
    std::fs::write(dir.path().join("p.py"), "").unwrap();
    let text = "name = \"c\"\n[[solver]]\nkind = \"command\"\nlabel = \"p\"\ncommand = [\"python3\", \"p.py\"]\n\
                game = \"4x4g4\"\nserve_checkpoints = true\n";
    let small = write_spec(dir.path(), "small.toml", text);
    let o = run(&["plan", small.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("solver[1].serve_checkpoints = true is only for boards too big to enumerate"), "{e}");
    assert!(e.contains("$SWEEP_CHECKPOINTS/<episode>.csv"), "{e}");
}

#[test]
fn connect_four_by_name_is_6x7g4_everywhere_a_game_is_named() {
    // A spec: the same jobs, ids and all, as with "6x7g4".
    let ids = |game: &str| {
        let text = format!("name = \"c\"\nseed = 3\n[[solver]]\nkind = \"mcts\"\ngame = \"{game}\"\niterations = 10\n");
        let jobs = sweep::spec::parse(&text, "c.toml").unwrap().jobs();
        jobs.into_iter().map(|j| j.id).collect::<Vec<_>>()
    };
    assert_eq!(ids("connect4"), ids("6x7g4"));
    assert_eq!(ids("connect-four"), ids("6x7g4"));
    // The command line: solve and score take the names, and print the board's own name.
    let by = |game: &str| {
        let mut v: serde_json::Value =
            serde_json::from_str(&stdout(&run(&["solve", "--game", game, "--moves", FROM, "--json"]))).unwrap();
        v.as_object_mut().unwrap().remove("time_ms");
        v
    };
    assert_eq!(by("connect4"), by("6x7g4"));
    for game in ["connect-four", "6x7g4"] {
        let o = run(&["score", "--game", game, "--from", FROM, "--agent", "lowest", "--against", "minimax"]);
        // The lowest column loses at once against minimax, whatever the board is called.
        let lost = stdout(&o).lines().any(|l| l.split_whitespace().take(3).eq(["minimax", "exact", "-1.000000"]));
        assert!(o.status.success() && lost, "{}{}", stdout(&o), stderr(&o));
    }
    // A command that enumerates refuses it, saying what takes such a board.
    let o = run(&["solve", "--game", "connect4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("sweep score") && stderr(&o).contains("kinds mcts and command"), "{}", stderr(&o));
}
