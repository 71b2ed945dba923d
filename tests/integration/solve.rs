//! `sweep solve`: the ground truth from the command line.

use crate::common::*;

#[test]
fn json_has_the_contract_fields_and_the_known_figures() {
    let o = run(&["solve", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["seat"], "x");
    assert_eq!(v["opponent"], "random");
    assert_eq!(v["agent_states"], 2423);
    assert!((v["value"].as_f64().unwrap() - 191.0 / 192.0).abs() < 1e-12);
    assert_eq!(v["value_fraction"], "191/192");
    assert!((v["p_win"].as_f64().unwrap() - 191.0 / 192.0).abs() < 1e-12);
    assert!((v["p_draw"].as_f64().unwrap() - 1.0 / 192.0).abs() < 1e-12);
    assert_eq!(v["p_loss"].as_f64().unwrap(), 0.0);
    assert_eq!(v["policy_iteration"]["rounds"].as_array().unwrap().len(), 4);
    assert!((v["value_iteration"]["value"].as_f64().unwrap() - 191.0 / 192.0).abs() < 1e-12);
    assert!(v["value_iteration"]["sweeps"].as_u64().unwrap() >= 2);
}

#[test]
fn trace_reproduces_the_seed_article() {
    let o = run(&["solve", "--trace", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rounds: Vec<(String, u64, u64)> = v["policy_iteration"]["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                format!("{:.6}", r["value"].as_f64().unwrap()),
                r["changed"].as_u64().unwrap(),
                r["sweeps"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [("0.604167", 1241, 6), ("0.945312", 345, 4), ("0.994792", 7, 2), ("0.994792", 0, 1)];
    assert_eq!(rounds, expected.map(|(a, b, c)| (a.to_string(), b, c)));
    let table = stdout(&run(&["solve", "--trace"]));
    assert!(table.contains("0.994792 (191/192)"), "{table}");
    assert!(table.contains("1241"), "{table}");
}

#[test]
fn optimal_play_against_minimax_is_worth_zero_in_both_seats() {
    for seat in ["x", "o"] {
        for opp in ["minimax", "minimax-uniform"] {
            let o = run(&["solve", "--seat", seat, "--opponent", opp, "--json"]);
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert_eq!(v["value"].as_f64().unwrap(), 0.0, "{seat} vs {opp}");
            assert_eq!(v["p_loss"].as_f64().unwrap(), 0.0);
        }
    }
}

#[test]
fn values_file_has_one_row_per_state() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("v.csv");
    let o = run(&["solve", "--values", path.to_str().unwrap()]);
    assert!(o.status.success());
    let (h, rows) = read_csv(&path);
    assert_eq!(h, ["board", "value", "optimal_actions"]);
    assert_eq!(rows.len(), 2423);
    assert_eq!(rows[0][0], ".........");
    assert!((rows[0][1].parse::<f64>().unwrap() - 191.0 / 192.0).abs() < 1e-12);
    for r in &rows {
        for a in r[2].split('|') {
            let cell: usize = a.parse().unwrap();
            assert_eq!(r[0].as_bytes()[cell], b'.');
        }
    }
}

#[test]
fn bad_flags_are_exit_2_with_the_allowed_values() {
    let o = run(&["solve", "--seat", "z"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("x, o"), "{}", stderr(&o));
    let o = run(&["solve", "--opponent", "smart"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("random, minimax, minimax-uniform"));
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("no/such/dir/v.csv");
    let o = run(&["solve", "--values", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(bad.to_str().unwrap()), "{}", stderr(&o));
    assert!(!bad.exists());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "no partial file left");
}

/// The fractions a table prints, as (numerator, denominator, the decimal before them).
fn printed_fractions(text: &str) -> Vec<(i64, u64, f64)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter_map(|w| {
            let inner = w[1].strip_prefix('(')?.strip_suffix(')')?;
            let (p, q) = inner.split_once('/')?;
            Some((p.parse().ok()?, q.parse().ok()?, w[0].parse().ok()?))
        })
        .collect()
}

#[test]
fn a_fraction_is_printed_only_when_it_is_exact() {
    let o = run(&["solve"]);
    assert!(stdout(&o).contains("V* = 0.994792 (191/192)"), "{}", stdout(&o));
    assert!(stdout(&o).contains("P(draw) = 0.005208 (1/192)"), "{}", stdout(&o));
    // O against random on 5x3k4: X picks among 15, 13, ..., 1 cells, so every probability
    // is a multiple of 1/(15·13·11·9·7·5·3). The simplest fraction near P(loss) with a
    // denominator up to 10^6 is 3051/769402, whose even denominator cannot be right.
    let o = run(&["solve", "--game", "5x3k4", "--seat", "o"]);
    let text = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!text.contains("3051/769402"), "{text}");
    let fractions = printed_fractions(&text);
    assert_eq!(fractions.len(), 4, "{text}");
    for (p, q, shown) in fractions {
        assert_eq!(2_027_025 % q, 0, "{p}/{q} is not a multiple of 1/2027025");
        assert!((p as f64 / q as f64 - shown).abs() <= 5e-7, "{p}/{q} vs {shown}");
    }
}

/// `sweep solve`'s lines as the memoising C reference (`scripts/bench/solve_ref.c`) prints
/// them: the positions and game value, the agent states, V* without its fraction, and each
/// first decision without its board.
fn as_the_reference_prints(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("optimal value V* = ") {
            lines.push(line.split(" (").next().unwrap().to_string());
        } else if line.contains("legal positions;")
            || line.starts_with("seat x against random:")
            || line.starts_with("first decisions")
        {
            lines.push(line.to_string());
        } else if let Some(at) = line.find("  cell ") {
            lines.push(line[at..].to_string());
        }
    }
    lines
}

/// An independent program, sharing no code with `sweep`, computes the same figures: the
/// positions, the game's value, the agent states, V* and every first move's value against
/// `random`, to the printed digits. Needs a C compiler (`$CC`, else `cc`); says so and
/// checks nothing without one.
#[test]
fn the_memoising_c_reference_prints_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("solve_ref");
    let source = root().join("scripts/bench/solve_ref.c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = std::process::Command::new(&cc).args(["-O2", "-std=c99", "-o"]).arg(&program).arg(&source).output();
    match built {
        Err(e) => {
            eprintln!("skipped: no C compiler ({cc}: {e})");
            return;
        }
        Ok(o) => assert!(o.status.success(), "{cc} failed on {}: {}", source.display(), stderr(&o)),
    }
    for (rows, cols, k) in [(3, 3, 3), (3, 4, 4), (3, 4, 3)] {
        let reference = std::process::Command::new(&program)
            .args([rows, cols, k].map(|n: u32| n.to_string()))
            .output()
            .expect("the reference runs");
        assert!(reference.status.success(), "{}", stderr(&reference));
        let game = format!("{rows}x{cols}k{k}");
        let ours = run(&["solve", "--game", &game]);
        assert!(ours.status.success(), "{}", stderr(&ours));
        let expected: Vec<String> = stdout(&reference).lines().map(String::from).collect();
        assert_eq!(expected.len(), 4 + rows as usize * cols as usize, "{game}: {expected:?}");
        assert_eq!(as_the_reference_prints(&stdout(&ours)), expected, "{game}");
    }
}

/// Connect Four positions from the independent reference solver's set (`tests/data`),
/// valued by `sweep solve --positions`, in both notations, against the set's values.
#[test]
fn connect_four_positions_are_valued_by_search_as_the_reference_says() {
    let data =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/solved_positions.txt")).unwrap();
    let wanted: Vec<(String, i64, u64)> = data
        .lines()
        .filter(|l| l.starts_with("6x7g4 "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f[1].split(',').count() >= 20)
        .take(12)
        .map(|f| (f[1].to_string(), f[2].parse().unwrap(), f[3].parse().unwrap()))
        .collect();
    assert_eq!(wanted.len(), 12);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("positions.txt");
    // Half as comma lists, half in the field's notation (columns from 1, one digit string).
    let lines: Vec<String> = wanted
        .iter()
        .enumerate()
        .map(|(i, (m, ..))| {
            if i % 2 == 0 {
                format!("{m} # a comment")
            } else {
                m.split(',').map(|c| (c.parse::<u8>().unwrap() + 1).to_string()).collect()
            }
        })
        .collect();
    std::fs::write(&file, format!("# positions\n\n{}\n", lines.join("\n"))).unwrap();
    let path = file.to_str().unwrap();
    let o = run(&["solve", "--game", "6x7g4", "--positions", path, "--table-mib", "64", "--json", "--every-move"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // One JSON object per line, as each line is answered, numbered by its line in the file.
    let got: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(got.len(), wanted.len());
    assert_eq!(got.iter().map(|g| g["line"].as_u64().unwrap()).collect::<Vec<_>>(), (3..15).collect::<Vec<_>>());
    for (g, (moves, value, plies)) in got.iter().zip(&wanted) {
        assert_eq!((g["value"].as_i64().unwrap(), g["plies"].as_u64().unwrap()), (*value, *plies), "{moves}");
        // The best moves are those whose value and plies are the position's.
        for m in g["move_values"].as_array().unwrap() {
            let best = g["best_moves"].as_array().unwrap().contains(&m["move"]);
            let same = m["value"] == g["value"] && m["plies"] == g["plies"];
            assert_eq!(best, same, "{moves}: {m}");
        }
    }
}

#[test]
fn a_board_too_big_to_enumerate_asks_for_positions_and_bad_moves_are_named() {
    let o = run(&["solve", "--game", "6x7g4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("too big to enumerate: value its positions by search with --moves"), "{}", stderr(&o));
    let o = run(&["solve", "--game", "6x7g4", "--moves", "0,0,0,0,0,0,0", "--table-mib", "64"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("move 7 (0) is not legal: column 0 is full"), "{}", stderr(&o));
    let o = run(&["solve", "--game", "9x7g4", "--moves", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be valued by search"), "{}", stderr(&o));
    // A small board by search: tic-tac-toe's empty board draws in nine plies.
    let o = run(&["solve", "--game", "3x3k3", "--moves", "-", "--table-mib", "64"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("0 draw  9"), "{text}");
}

/// The independent solver's Connect Four positions of at least `stones` stones (0-based
/// moves, value, plies to the end), the first `n`.
fn reference_connect_four(stones: usize, n: usize) -> Vec<(Vec<u8>, i64, u64)> {
    let data =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/solved_positions.txt")).unwrap();
    data.lines()
        .filter(|l| l.starts_with("6x7g4 "))
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f[1] != "-" && f[1].split(',').count() >= stones)
        .take(n)
        .map(|f| (f[1].split(',').map(|c| c.parse().unwrap()).collect(), f[2].parse().unwrap(), f[3].parse().unwrap()))
        .collect()
}

/// The field's score from a value and the plies to the end: `22 - w` on 7x6 for a win
/// with the winner's `w`-th stone, its negation for a loss, 0 for a draw.
fn field_score(stones: usize, value: i64, plies: u64) -> i64 {
    let end = stones as i64 + plies as i64;
    value * (22 - (end + 1) / 2)
}

fn field_moves(moves: &[u8]) -> String {
    moves.iter().map(|m| char::from(b'1' + m)).collect()
}

#[test]
fn the_reference_s_first_stones_are_the_field_s_published_scores() {
    // After X's first stone, for O: the centre (column 4 from 1) scores -1, the edges 2,
    // as the field's solvers publish (2, 1, 0, -1, 0, 1, 2 by column); the independent
    // solver settled these three, with their plies.
    let first = reference_connect_four(1, 3);
    let scores: Vec<(String, i64)> =
        first.iter().map(|(m, v, p)| (field_moves(m), field_score(m.len(), *v, *p))).collect();
    assert_eq!(scores, [("4".to_string(), -1), ("1".to_string(), 2), ("7".to_string(), 2)]);
}

#[test]
fn a_position_is_valued_by_one_search_its_moves_on_request_and_its_outcome_alone() {
    let wanted = reference_connect_four(12, 10);
    assert_eq!(wanted.len(), 10);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("set.txt");
    // The field's test-set lines, the last with a wrong score.
    let mut lines: Vec<String> =
        wanted.iter().map(|(m, v, p)| format!("{} {}", field_moves(m), field_score(m.len(), *v, *p))).collect();
    let (m, v, p) = &wanted[9];
    lines[9] = format!("{} {}", field_moves(m), field_score(m.len(), *v, *p) + 1);
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let path = file.to_str().unwrap();
    let answers = |extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec!["solve", "--game", "6x7g4", "--positions", path, "--table-mib", "64", "--json"];
        args.extend(extra);
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    };
    // By default: value, plies and the field's score, no move's value.
    let plain = answers(&[]);
    for (i, (g, (moves, value, plies))) in plain.iter().zip(&wanted).enumerate() {
        let score = field_score(moves.len(), *value, *plies);
        assert_eq!(g["value"].as_i64(), Some(*value), "{moves:?}");
        assert_eq!(g["plies"].as_u64(), Some(*plies), "{moves:?}");
        assert_eq!(g["score"].as_i64(), Some(score), "{moves:?}");
        assert!(g.get("move_values").is_none() && g.get("best_moves").is_none(), "{g}");
        let given = if i == 9 { score + 1 } else { score };
        assert_eq!((g["given_score"].as_i64(), g["agrees"].as_bool()), (Some(given), Some(i != 9)), "{g}");
    }
    // --every-move: each move's value, and the position's the same as alone.
    for (e, g) in answers(&["--every-move"]).iter().zip(&plain) {
        for key in ["value", "plies", "score"] {
            assert_eq!(e[key], g[key], "{e}");
        }
        let best: Vec<_> = e["move_values"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["value"] == e["value"] && m["plies"] == e["plies"])
            .map(|m| m["move"].clone())
            .collect();
        assert_eq!(&best, e["best_moves"].as_array().unwrap(), "{e}");
    }
    // --outcome: the sign of the score, no plies, no score; with --every-move, outcomes.
    for (o, g) in answers(&["--outcome"]).iter().zip(&plain) {
        assert_eq!(o["value"].as_i64(), g["score"].as_i64().map(i64::signum), "{o}");
        assert!(o.get("plies").is_none() && o.get("score").is_none(), "{o}");
    }
    for (o, e) in answers(&["--outcome", "--every-move"]).iter().zip(answers(&["--every-move"])) {
        let values = |x: &serde_json::Value| -> Vec<_> {
            x["move_values"].as_array().unwrap().iter().map(|m| (m["move"].clone(), m["value"].clone())).collect()
        };
        assert_eq!((o["value"].clone(), values(o)), (e["value"].clone(), values(&e)), "{o}");
    }
    // The mismatch is noted on standard error; the exit code stays 0.
    let o = run(&["solve", "--game", "6x7g4", "--positions", path, "--table-mib", "64"]);
    assert!(o.status.success() && stderr(&o).contains(":10: given score"), "{}", stderr(&o));
    assert!(stdout(&o).contains("(1 differ from their given score)"), "{}", stdout(&o));
    // --format field labels the set; read back, every score agrees.
    let o = run(&["solve", "--game", "6x7g4", "--positions", path, "--table-mib", "64", "--format", "field"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let labelled = stdout(&o);
    let expected: Vec<String> =
        wanted.iter().map(|(m, v, p)| format!("{} {}", field_moves(m), field_score(m.len(), *v, *p))).collect();
    assert_eq!(labelled.lines().collect::<Vec<_>>(), expected);
    std::fs::write(&file, labelled.as_bytes()).unwrap();
    assert!(answers(&[]).iter().all(|g| g["agrees"] == true));
}

#[test]
fn the_field_s_form_is_refused_where_it_cannot_be_written() {
    let o = run(&["solve", "--game", "5x5k4", "--moves", "12", "--format", "field"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("a gravity board of at most 9 columns"), "{}", stderr(&o));
    let o = run(&["solve", "--game", "6x7g4", "--moves", "4453", "--format", "field", "--outcome"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["solve", "--every-move"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("with --moves or --positions"), "{}", stderr(&o));
    let o = run(&["solve", "--game", "6x7g4", "--moves", "4453", "--format", "field", "--table-mib", "16"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "4453 -2\n");
}

#[test]
fn the_empty_connect_four_board_is_a_first_player_win_at_the_41st_stone_from_the_book() {
    let o = run(&["solve", "--game", "6x7g4", "--moves", "-", "--table-mib", "16", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let p = &v["positions"][0];
    assert_eq!((p["value"].as_i64(), p["plies"].as_u64(), p["score"].as_i64()), (Some(1), Some(41), Some(1)), "{v}");
    assert_eq!(v["nodes"].as_u64(), Some(0), "answered from the book: {v}");
    // The first stone in columns 1, 3, 4, 5 and 7 (from 1), for the second player, in
    // the field's form; columns 2 and 6 the book holds as outcomes only (wins).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("first.txt");
    std::fs::write(&file, "1 2\n3 0\n4 -1\n5 0\n7 2\n").unwrap();
    let o = run(&[
        "solve",
        "--game",
        "6x7g4",
        "--positions",
        file.to_str().unwrap(),
        "--format",
        "field",
        "--table-mib",
        "16",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1 2\n3 0\n4 -1\n5 0\n7 2\n");
}
