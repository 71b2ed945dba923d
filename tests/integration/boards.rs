//! Bigger boards: the m,n,k-games' public figures (legal positions, value under optimal
//! play), transposed boards, exact values against games sampled by the rules, and every
//! learner's policy on a bigger board scored at or below the optimum through the command
//! line. The 4×4 figures need a release build and about 2 GB: they are `#[ignore]`d here
//! and run by `.ci/run` with `cargo test --release -- --ignored`.

use crate::common::*;
use sweep::game::Game;
use sweep::mdp::{Opponent, Seat};
use sweep::solvers::ground_truth;

fn game(s: &str) -> Game {
    s.parse().unwrap()
}

/// Legal positions and X's minimax value of the empty board.
fn figures(g: &str) -> (usize, i8) {
    let p = game(g).positions();
    (p.len(), p.minimax(0))
}

#[test]
fn small_boards_have_their_public_figures() {
    assert_eq!(figures("3x3k3"), (5_478, 0), "tic-tac-toe: a draw");
    assert_eq!(figures("3x4k3"), (111_973, 1), "3x4k3: the first player wins");
    assert_eq!(figures("4x3k3"), (111_973, 1), "4x3k3: the first player wins");
}

#[test]
#[ignore = "release build: 4x4 boards take seconds and about a GB each"]
fn four_by_four_boards_have_their_public_figures() {
    assert_eq!(figures("4x4k3"), (6_036_001, 1), "4x4k3: the first player wins");
    assert_eq!(figures("4x4k4"), (9_722_011, 0), "4x4k4: a draw");
}

#[test]
fn transposed_boards_have_the_same_optimal_values() {
    for &seat in Seat::ALL {
        for &opp in Opponent::ALL {
            let wide = ground_truth(game("3x4k3"), seat, opp);
            let tall = ground_truth(game("4x3k3"), seat, opp);
            if opp != Opponent::Minimax {
                // `minimax` breaks ties by the lowest cell, which transposing renumbers.
                assert_eq!(wide.mdp.len(), tall.mdp.len(), "{seat} vs {opp}: agent states");
            }
            let (a, b) = (wide.solution.value, tall.solution.value);
            assert!((a - b).abs() < 1e-12, "{seat} vs {opp}: 3x4k3 {a} but 4x3k3 {b}");
        }
    }
}

#[test]
fn exact_values_match_sampled_games_on_3x4_and_4x3() {
    let every: Vec<(Seat, Opponent)> =
        Seat::ALL.iter().flat_map(|&s| Opponent::ALL.iter().map(move |&o| (s, o))).collect();
    exact_matches_sampled(game("3x4k3"), 20_000, &every);
    exact_matches_sampled(game("4x3k3"), 20_000, &every);
}

#[test]
#[ignore = "release build: the 4x4k4 MDPs take seconds and hundreds of MB each"]
fn exact_values_match_sampled_games_on_4x4k4() {
    let pairs = [(Seat::X, Opponent::Random), (Seat::O, Opponent::MinimaxUniform)];
    exact_matches_sampled(game("4x4k4"), 20_000, &pairs);
}

/// Every learner, in both seats and in self-play, on the wide board and its transpose:
/// every row scored, regret >= 0, the `game` column says the board, and one job
/// reproduces bit for bit.
#[test]
fn every_learner_on_a_bigger_board_scores_at_or_below_the_optimum() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("boards.toml");
    let mut text = String::from(
        "name = \"boards-test\"\nseed = 7\nreplicates = 1\n\n[evaluation]\nopponents = [\"random\", \"minimax\"]\n\
         checkpoints = 2\n",
    );
    for kind in ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"] {
        text.push_str(&format!(
            "\n[[solver]]\nkind = \"{kind}\"\ngame = [\"3x4k3\", \"4x3k3\"]\nseat = [\"x\", \"o\"]\n\
             episodes = 2000\nsymmetry = [false, true]\n\
             \n[[solver]]\nkind = \"{kind}\"\nlabel = \"{kind}-self\"\ngame = [\"3x4k3\", \"4x3k3\"]\n\
             opponent = \"self\"\nepisodes = 2000\n"
        ));
    }
    text.push_str("\n[[solver]]\nkind = \"policy-iteration\"\ngame = \"3x4k3\"\nseat = [\"x\", \"o\"]\n");
    std::fs::write(&spec, text).unwrap();
    let out = tmp.path().join("out");
    let o = sweep().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert!(header.join(",").contains(",rung,game,evaluation,value_se,"), "version 3 appends its columns: {header:?}");
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r[col("status")], "ok", "{r:?}");
        assert_eq!((r[col("evaluation")].as_str(), r[col("value_se")].as_str()), ("exact", "0.0"), "{r:?}");
        assert!(["3x4k3", "4x3k3"].contains(&r[col("game")].as_str()), "{r:?}");
        let regret: f64 = r[col("regret")].parse().unwrap();
        assert!(regret >= 0.0, "negative regret in {r:?}");
        if r[col("solver")] == "policy-iteration" {
            assert_eq!(regret, 0.0, "{r:?}");
        }
    }
    let wide_optimum = rows
        .iter()
        .find(|r| r[col("game")] == "3x4k3" && r[col("seat")] == "x" && r[col("eval_opponent")] == "random")
        .map(|r| r[col("optimal_value")].clone())
        .unwrap();
    assert_eq!(wide_optimum, "1.0", "X wins 3x4k3 against random with certainty when playing optimally");
    let job = &rows.iter().find(|r| r[col("solver")] == "monte-carlo" && r[col("game")] == "4x3k3").unwrap()[0];
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", job]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn play_and_solve_take_a_game() {
    let o = run(&["solve", "--game", "4x3k3", "--seat", "o", "--opponent", "minimax", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["game"], "4x3k3");
    assert_eq!(v["positions"], 111_973);
    assert_eq!(v["game_value"], "first player win");
    assert_eq!(v["value"], -1.0, "O loses against a perfect X on 4x3k3");
    let o = run(&["solve", "--game", "5x5k3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("rows times columns at most 16"), "{}", stderr(&o));

    let o = sweep().args(["play", "--game", "3x4k3", "--seat", "o"]).write_stdin("12\n11\n").output().unwrap();
    let text = stdout(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("3x4k3: 3 x 4, 3 in a row wins"), "{text}");
    assert!(text.contains("type a number from 0 to 11"), "12 is not a cell of a 12-cell board: {text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("8 |  9 | 10 |")), "rows of four cells: {text}");
    // MCTS plays every game: as X on 4x4k4 it opens.
    let o = sweep()
        .args(["play", "--game", "4x4k4", "--agent", "mcts", "--seat", "o", "--iterations", "2000"])
        .write_stdin("")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("4x4k4: 4 x 4, 4 in a row wins"), "{text}");
    assert!(text.contains("agent plays"), "{text}");
}

#[test]
fn a_job_that_cannot_fit_the_memory_budget_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("wide.toml");
    std::fs::write(
        &spec,
        "name = \"wide\"\nseed = 1\n[[solver]]\nkind = \"q-learning\"\ngame = \"3x4k3\"\nepisodes = 100\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = run(&[spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--max-memory", "2M"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("more than the memory budget of 2.0 MiB (--max-memory)"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing is written");
    // plan shows its table, then exits as run does, with run's message.
    let o = run(&["plan", spec.to_str().unwrap(), "--max-memory", "2M", "--threads", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stdout(&o).contains("the largest job does not fit"), "{}", stdout(&o));
    assert!(stderr(&o).contains("more than the memory budget of 2.0 MiB (--max-memory)"), "{}", stderr(&o));
    let o = run(&["plan", spec.to_str().unwrap(), "--peak-memory", "--threads", "1"]);
    let mib: u64 = stdout(&o).trim().parse().unwrap();
    assert!((2..100).contains(&mib), "3x4k3 needs a few MiB: {mib}");
    let o = run(&[spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--max-memory", "1G", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// An MCTS row whose exact evaluation would search more positions than
/// `exact_searches` is evaluated by sampled games, says so, carries its standard error,
/// and agrees with the exact evaluation of the same agent within 4 standard errors.
#[test]
fn a_search_too_dear_to_evaluate_exactly_is_sampled_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = |name: &str, extra: &str| {
        let path = tmp.path().join(format!("{name}.toml"));
        std::fs::write(
            &path,
            format!(
                "name = \"{name}\"\nseed = 3\nreplicates = 2\n[evaluation]\nopponents = [\"random\", \"minimax\"]\n\
                 {extra}\n[[solver]]\nkind = \"mcts\"\niterations = 200\n"
            ),
        )
        .unwrap();
        let out = tmp.path().join(name);
        let o = sweep().args([path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        read_csv(&out.join("results.csv"))
    };
    let (header, exact) = spec("exact", "");
    let (_, sampled) = spec("sampled", "exact_searches = 20\ngames = 4000");
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert_eq!(exact.len(), sampled.len());
    let mut seen_sampled = 0;
    for (e, s) in exact.iter().zip(&sampled) {
        assert_eq!((&e[0], &e[col("eval_opponent")]), (&s[0], &s[col("eval_opponent")]), "same jobs, same order");
        assert_eq!(e[col("evaluation")], "exact");
        let value: f64 = e[col("value")].parse().unwrap();
        let se: f64 = s[col("value_se")].parse().unwrap();
        let mean: f64 = s[col("value")].parse().unwrap();
        if s[col("evaluation")] == "sampled" {
            seen_sampled += 1;
            assert_eq!(s[col("games")], "4000", "{s:?}");
            assert!(se > 0.0 || mean.abs() == 1.0, "a sampled row carries its standard error: {s:?}");
            assert!((mean - value).abs() <= 4.0 * se + 1e-12, "sampled {mean} ± {se} but exact {value}");
        } else {
            assert_eq!(s[col("value")], e[col("value")], "a row within the limit stays exact");
        }
    }
    assert!(seen_sampled >= 2, "against random the search reaches more than 20 positions");
}

/// The positions, the exact MDPs and the table layouts a run's jobs share are built once,
/// before the first job (the executor checks it before each job in debug builds), said in one line and
/// recorded in the manifest; a run that has nothing left to build builds nothing, and a
/// search records its passes' tables once each.
#[test]
fn shared_tables_are_built_before_the_jobs_and_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    // X trains against random and is scored against random and minimax: the positions
    // of 3x4k3 and two MDPs (X against random, X against minimax).
    let spec = write_spec(
        tmp.path(),
        "shared.toml",
        "name = \"shared\"\nseed = 3\nreplicates = 4\n[evaluation]\nopponents = [\"random\", \"minimax\"]\n\
         [[solver]]\nkind = \"q-learning\"\ngame = \"3x4k3\"\nseat = \"x\"\nopponent = \"random\"\nepisodes = 3000\n",
    );
    let out = tmp.path().join("out");
    let shared_tables = |dir: &std::path::Path| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["shared_tables"].clone()
    };
    let o = run(&[spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--threads", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // And the learner's table layout (one: X against random, without symmetry).
    let line = "shared tables: positions of 3x4k3, 2 exact MDPs with their optimum, 1 table layout, built in ";
    assert_eq!(stderr(&o).matches(line).count(), 1, "{}", stderr(&o));
    let first = stderr(&o).find(line).unwrap();
    assert!(!stderr(&o)[..first].contains("job"), "the line comes before any job: {}", stderr(&o));
    let t = shared_tables(&out);
    assert_eq!((t["positions"].clone(), t["mdps"].clone()), (serde_json::json!(["3x4k3"]), serde_json::json!(2)));
    assert_eq!(t["layouts"], 1, "{t}");
    assert!(t["ms"].as_f64().unwrap() > 0.0, "{t}");
    let (header, rows) = read_csv(&out.join("results.csv"));
    let train_ms = header.iter().position(|c| c == "train_ms").unwrap();
    assert!(rows.iter().all(|r| r[train_ms].parse::<f64>().unwrap() >= 0.0));
    // Resuming a finished run: nothing to run, nothing to build.
    let o = run(&[spec.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success() && !stderr(&o).contains("shared tables"), "{}", stderr(&o));
    let t = shared_tables(&out);
    assert_eq!((t["positions"].clone(), t["mdps"].clone()), (serde_json::json!([]), serde_json::json!(0)), "{t}");
    // --quiet says nothing but records the tables.
    let o = run(&[spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--fresh", "--quiet"]);
    assert!(o.status.success() && !stderr(&o).contains("shared tables"), "{}", stderr(&o));
    assert_eq!(shared_tables(&out)["mdps"], 2);
    // A search builds in its first pass what every pass needs, once.
    let search = write_spec(
        tmp.path(),
        "search.toml",
        "name = \"search\"\nseed = 3\nreplicates = 2\n[evaluation]\nopponents = [\"random\"]\n\
         [search]\nmethod = \"halving\"\neta = 2\nmin_budget = 1000\nmax_budget = 2000\nmetric = \"regret\"\n\
         opponent = \"random\"\n[[solver]]\nkind = \"q-learning\"\ngame = \"4x3k3\"\nseat = \"o\"\n\
         opponent = \"minimax\"\nalpha = [0.1, 0.5]\n",
    );
    let searched = tmp.path().join("searched");
    let o = run(&[search.to_str().unwrap(), "--out", searched.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o).matches("shared tables: positions of 4x3k3, 2 exact MDPs").count(), 1, "{}", stderr(&o));
    let t = shared_tables(&searched);
    assert_eq!(
        (t["positions"].clone(), t["mdps"].clone()),
        (serde_json::json!(["4x3k3"]), serde_json::json!(2)),
        "{t}"
    );
}
