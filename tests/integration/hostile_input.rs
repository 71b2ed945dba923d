//! Hostile input to the commands that read lines or numbers from the user: `solve --serve`
//! fed huge, binary or impossible lines, `solve --positions` with a million lines or bad
//! ones, numeric flags out of range, and sampled scores from too few games. Each is
//! refused (exit 2) or answered in bounded memory, its message naming the line (or the
//! flag, the value and the range), as measured on the `sweep` process alone
//! ([`run_measured`]).

use std::io::{BufRead, Write};
use std::time::Duration;

use crate::common::*;

/// The most memory any of these runs may take, in MiB.
const PEAK_MIB: f64 = 300.0;

/// An empty Connect Four board as `--serve` reads it.
fn empty_board() -> String {
    ".".repeat(42)
}

/// Runs `args` with `stdin`, asserting exit code `code`, bounded memory and every fragment
/// in standard error; returns what it saw.
fn expect(args: &[&str], stdin: &[u8], code: i32, fragments: &[&str]) -> Measured {
    let m = run_measured(args, stdin, Duration::from_secs(60));
    assert_eq!(m.code, code, "{args:?}: exit {}; stderr: {}", m.code, &m.stderr[..m.stderr.len().min(2000)]);
    for f in fragments {
        assert!(m.stderr.contains(f), "{args:?}: message lacks {f:?}:\n{}", &m.stderr[..m.stderr.len().min(2000)]);
    }
    assert!(m.peak_mib < PEAK_MIB, "{args:?}: peak {:.0} MiB", m.peak_mib);
    eprintln!("{:?}: exit {}, peak {:.1} MiB", &args[..args.len().min(8)], m.code, m.peak_mib);
    m
}

const SERVE: [&str; 6] = ["solve", "--game", "6x7g4", "--serve", "--table-mib", "64"];

#[test]
fn serve_refuses_a_line_far_past_its_cap_without_keeping_or_echoing_it() {
    // 64 MiB on one line, 16,384 times the cap of 4096 bytes.
    let mut input = b"positions 1\n".to_vec();
    input.resize(input.len() + (64 << 20), b'X');
    input.push(b'\n');
    let m = expect(&SERVE, &input, 2, &["standard input:2", "a line longer than the 4096 bytes a line may hold"]);
    assert!(m.stderr.len() < 400, "the message echoes the line: {} bytes", m.stderr.len());
    assert!(m.stdout.starts_with("error: standard input:2"), "{}", m.stdout);
}

#[test]
fn serve_names_the_line_and_reason_of_binary_or_impossible_input() {
    let board = empty_board();
    let mut short_row = board.clone();
    short_row.truncate(41);
    let two_x = format!("XX{}", &board[2..]);
    let cases: [(String, &[&str]); 5] = [
        (format!("positions 2\n{board}\n\u{0}\u{1}\n"), &["standard input:3", "not UTF-8 text"]),
        (format!("positions 1\n{short_row}\n"), &["standard input:2", "a board of 41 characters, 6x7g4 has 42 cells"]),
        (format!("positions 1\n{}\n", board.replace('.', "-")), &["standard input:2", "'-' is not X, O or ."]),
        (format!("positions 1\n{two_x}\n"), &["standard input:2", "X must have as many stones as O or one more"]),
        ("\nhello\n".to_string(), &["standard input:2", "expected a header `positions N`"]),
    ];
    for (input, fragments) in cases {
        let mut bytes = input.into_bytes();
        if let Some(at) = bytes.windows(2).position(|w| w == [0, 1]) {
            bytes[at..at + 2].copy_from_slice(&[0xff, 0xfe]);
        }
        let m = expect(&SERVE, &bytes, 2, fragments);
        assert!(m.stdout.lines().last().is_some_and(|l| l.starts_with("error: standard input:")), "{}", m.stdout);
    }
}

#[test]
fn serve_answers_the_empty_connect_four_board_from_the_book_at_once() {
    let input = format!("positions 2\n{}\n{}\n", empty_board(), empty_board());
    let started = std::time::Instant::now();
    let m = expect(&SERVE, input.as_bytes(), 0, &[]);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    // The centre wins, the columns beside it draw, the four outer ones lose.
    assert_eq!(m.stdout, "1 0:-1 1:-1 2:0 3:1 4:0 5:-1 6:-1\n".repeat(2));
}

/// A tic-tac-toe position with one empty cell, cheap to value (X 0 2 5 7, O 1 3 4 6; X
/// to move wins at 8).
const CHEAP: &str = "0,1,2,3,5,4,7,6";

#[test]
fn positions_answer_a_million_lines_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("million.txt");
    let lines = 1_000_000;
    std::fs::write(&file, format!("{CHEAP}\n").repeat(lines)).unwrap();
    let args = ["solve", "--game", "3x3k3", "--positions", file.to_str().unwrap(), "--table-mib", "16"];
    let m = expect(&args, b"", 0, &[]);
    let answers: Vec<&str> = m.stdout.lines().filter(|l| !l.starts_with('#') && !l.starts_with("line\t")).collect();
    assert_eq!(answers.len(), lines);
    assert!(answers[lines - 1].starts_with(&format!("{lines}\t{CHEAP}\t8\t")), "{}", answers[lines - 1]);
}

#[test]
fn positions_answer_each_line_before_the_input_ends() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_sweep"))
        .args(["solve", "--game", "3x3k3", "--positions", "-", "--json", "--table-mib", "16"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    writeln!(input, "{CHEAP}").unwrap();
    input.flush().unwrap();
    // The input is still open: the answer comes before it ends.
    let first = rx.recv_timeout(Duration::from_secs(30)).expect("an answer before the input ends");
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!((v["line"].as_u64(), v["moves"].as_str()), (Some(1), Some(CHEAP)));
    writeln!(input, "-").unwrap();
    drop(input);
    let second = rx.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(second.contains("\"line\":2"), "{second}");
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

#[test]
fn positions_name_the_file_and_line_of_every_bad_line_and_answer_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mixed.txt");
    let mut text = format!("# a comment\n{CHEAP}\n0,0\nx\n").into_bytes();
    text.extend(b"\xff\xfe\n");
    text.extend(vec![b'1'; 1 << 20]);
    text.extend(format!("\n\n{CHEAP} 0\n").as_bytes());
    std::fs::write(&file, text).unwrap();
    let path = file.to_str().unwrap();
    let args = ["solve", "--game", "3x3k3", "--positions", path, "--json", "--table-mib", "16"];
    let m = expect(
        &args,
        b"",
        2,
        &[
            &format!("{path}:3: 3x3k3 \"0,0\""),
            &format!("{path}:4: \"x\": \"x\" is not a move"),
            &format!("{path}:5: not UTF-8 text"),
            &format!("{path}:6: a line of 1048576 bytes, longer than the 4096"),
            &format!("--positions {path}: 4 of its 8 lines are not positions"),
        ],
    );
    assert!(m.stderr.len() < 2000, "the messages echo the lines: {} bytes", m.stderr.len());
    let lines: Vec<u64> = m
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 8]);
}

#[test]
fn numeric_flags_out_of_range_are_refused_with_the_flag_the_value_and_the_range() {
    let search = ["solve", "--game", "6x7g4", "--moves", "-"];
    let score = ["score", "--game", "4x4g4", "--against", "random"];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        ([&search[..], &["--table-mib", "99999999"]].concat(), vec!["--table-mib", "99999999", "from 1 to"]),
        ([&search[..], &["--table-mib", "2^44"]].concat(), vec!["--table-mib", "2^44", "not a whole number"]),
        (
            [&search[..], &["--table-mib", "18446744073709551615"]].concat(),
            vec!["--table-mib", "18446744073709551615", "out of range"],
        ),
        ([&search[..], &["--table-mib", "0"]].concat(), vec!["'0'", "MiB from 1 to"]),
        ([&score[..], &["--timeout", "inf", "--", "true"]].concat(), vec!["--timeout", "inf", "or none for no limit"]),
        ([&score[..], &["--timeout", "0"]].concat(), vec!["--timeout", "above 0"]),
        ([&score[..], &["--agent", "mcts", "--uct-c", "nan"]].concat(), vec!["--uct-c", "nan", "finite number >= 0"]),
        ([&score[..], &["--games", "0"]].concat(), vec!["--games", "'0'", "from 1 to 1000000"]),
        ([&score[..], &["--games", "4294967296"]].concat(), vec!["--games", "out of range"]),
        (
            [&score[..], &["--max-positions", "18446744073709551615"]].concat(),
            vec!["--max-positions", "this machine's memory"],
        ),
        ([&score[..], &["--batch", "0"]].concat(), vec!["--batch", "from 1 to 1048576"]),
        ([&score[..], &["--node-budget", "0"]].concat(), vec!["--node-budget", "whole number >= 1"]),
        ([&score[..], &["--iterations", "0"]].concat(), vec!["--iterations", "from 1 to 4294967295"]),
        ([&score[..], &["--threads", "0"]].concat(), vec!["--threads", "from 1 to 1024"]),
        ([&score[..], &["--table-mib", "99999999"]].concat(), vec!["--table-mib", "from 1 to"]),
        (vec!["play", "--iterations", "0"], vec!["--iterations", "from 1 to 4294967295"]),
        (vec!["bench", "--seconds", "nan"], vec!["--seconds", "nan", "above 0"]),
        (vec!["run", "experiments/smoke.toml", "--threads", "0"], vec!["--threads", "from 1 to 1024"]),
        (vec!["plan", "experiments/smoke.toml", "--threads", "99999"], vec!["--threads", "99999"]),
    ];
    for (args, fragments) in cases {
        let started = std::time::Instant::now();
        expect(&args, b"", 2, &fragments);
        assert!(started.elapsed() < Duration::from_secs(10), "{args:?} worked before refusing");
    }
}

#[test]
fn a_sampled_score_from_few_or_alike_games_says_so_and_never_shows_plus_minus_zero() {
    let base = ["score", "--game", "4x4g4", "--agent", "lowest", "--max-positions", "0", "--against"];
    for (against, games, note) in
        [("minimax-uniform", "5", "5 games"), ("random", "1", "1 game: too few for an interval")]
    {
        let args = [&base[..], &[against, "--games", games, "--table-mib", "16"]].concat();
        let m = expect(&args, b"", 0, &[]);
        assert!(m.stdout.contains("sampled"), "{}", m.stdout);
        assert!(m.stdout.contains(note), "{args:?}:\n{}", m.stdout);
        assert!(!m.stdout.contains("± 0.000000"), "{args:?}:\n{}", m.stdout);
    }
    // Against minimax (deterministic, as the agent) every sampled game is the one exact game.
    let value = |positions: &str| {
        let args = ["score", "--game", "4x4g4", "--against", "minimax", "--max-positions", positions, "--json"];
        let m = expect(&[&args[..], &["--games", "5", "--table-mib", "16"]].concat(), b"", 0, &[]);
        let v: serde_json::Value = serde_json::from_str(&m.stdout).unwrap();
        let f = v["figures"][0].clone();
        (f["method"].as_str().unwrap().to_string(), f["value"].as_f64().unwrap(), f["interval"].clone())
    };
    let (exact, sampled) = (value("1000"), value("0"));
    assert_eq!((exact.0.as_str(), sampled.0.as_str()), ("exact", "sampled"));
    assert_eq!(exact.1, sampled.1);
    assert_eq!(sampled.2, "5 games, all ended alike: no interval");
}

#[test]
fn a_timeout_of_none_or_a_duration_is_read_as_a_spec_reads_one() {
    let server = "import sys\nsys.path.insert(0, \"python\")\nfrom sweep_agents import Game, serve_policy\n\
                  game = Game.search_board(\"4x4g4\")\n\
                  serve_policy(lambda boards: [game.legal_moves(game.parse_board(b))[0] for b in boards], game=game)\n";
    for timeout in ["none", "90s", "2.5"] {
        let args = ["score", "--game", "4x4g4", "--against", "minimax", "--json", "--timeout", timeout, "--"];
        let m = expect(&[&args[..], &["python3", "-c", server]].concat(), b"", 0, &[]);
        let v: serde_json::Value = serde_json::from_str(&m.stdout).unwrap();
        assert_eq!(v["figures"][0]["method"], "exact", "{timeout}: {v}");
    }
}
