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
    let o = run(&["solve", "--game", "6x7g4", "--positions", file.to_str().unwrap(), "--table-mib", "64", "--json"]);
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
