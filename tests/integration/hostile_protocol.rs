//! Policy programs that break the line protocol, through `sweep score` and spec runs:
//! each is an error in the user's words (never a signal, never a shifted answer), `sweep`
//! stays small, and no program is left behind. The programs are `tests/programs/`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::*;

/// Sixteen moves into Connect Four, X to move and winning at once: every search is cheap.
const FROM: &str = "4,6,4,0,3,1,1,3,1,4,0,6,2,3,3,2";

/// The most `sweep` may take in memory (MiB), whatever a program writes.
const PEAK_MIB: f64 = 300.0;

/// A program of `tests/programs/`.
fn program(name: &str) -> String {
    root().join("tests/programs").join(name).display().to_string()
}

/// `sweep score` of `command` from [`FROM`] with `flags` first (by default against
/// minimax and random), ended after a minute.
fn score(flags: &[&str], command: &[&str]) -> Measured {
    let mut args = vec!["score", "--from", FROM, "--threads", "1"];
    if !flags.contains(&"--against") {
        args.extend(["--against", "minimax,random"]);
    }
    args.extend(flags);
    args.push("--");
    args.extend(command);
    run_measured(&args, b"", Duration::from_secs(60))
}

/// Asserts that the program whose process id is in `folder/pid` has ended.
fn ended(folder: &Path) {
    let text = std::fs::read_to_string(folder.join("pid")).expect("the program wrote its pid");
    let pid: i32 = text.trim().parse().unwrap();
    assert!(!alive(pid), "the program {pid} is still running");
}

/// A spec in `dir` with one command solver on Connect Four from [`FROM`] running
/// `command`, against minimax, one replicate; `extra` lines go in its solver table.
fn spec(dir: &Path, command: &[&str], extra: &str) -> PathBuf {
    let words: Vec<String> = command.iter().map(|w| format!("{w:?}")).collect();
    let text = format!(
        "name = \"hostile\"\nseed = 1\nreplicates = 1\n[evaluation]\nopponents = [\"minimax\"]\nfrom = \"{FROM}\"\n\
         [[solver]]\nkind = \"command\"\nlabel = \"hostile\"\ncommand = [{}]\ngame = \"6x7g4\"\nseat = \"x\"\n\
         episodes = 10\ntimeout = \"30s\"\n{extra}",
        words.join(", ")
    );
    write_spec(dir, "hostile.toml", &text)
}

/// Runs `spec` into `dir/out`; its measure and its one results row (as header, row).
fn run_spec(spec: &Path, dir: &Path) -> (Measured, Vec<String>, Vec<String>) {
    let out = dir.join("out");
    let measured =
        run_measured(&[spec.to_str().unwrap(), "--out", out.to_str().unwrap()], b"", Duration::from_secs(60));
    assert!(out.join("results.csv").exists(), "exit {}: {}", measured.code, measured.stderr);
    let (header, mut rows) = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 1, "{}", measured.stderr);
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"sealed\": true"), "the manifest is sealed: {manifest}");
    (measured, header, rows.remove(0))
}

/// The cell of `name` in `row`.
fn cell<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    &row[header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name}"))]
}

#[test]
fn writing_to_a_program_that_has_exited_is_an_error_with_its_status_and_stderr_never_a_signal() {
    let m = score(&[], &["/bin/true"]);
    assert_eq!(m.code, 1, "{}", m.stderr);
    assert!(m.stderr.contains("batch 1") && m.stderr.contains("exited with status 0"), "{}", m.stderr);
    assert!(m.peak_mib < PEAK_MIB, "{} MiB", m.peak_mib);
    let dir = tempfile::tempdir().unwrap();
    let script = "echo $$ > \"$1/pid\"; echo 'no model file' >&2; exit 3";
    let m = score(&[], &["sh", "-c", script, "sh", dir.path().to_str().unwrap()]);
    assert_eq!(m.code, 1, "{}", m.stderr);
    assert!(
        m.stderr.contains("exited with status 3") && m.stderr.contains("its stderr ends: no model file"),
        "{}",
        m.stderr
    );
    ended(dir.path());
}

#[test]
fn a_program_that_announces_final_and_exits_is_a_failed_row_in_a_sealed_run_every_time() {
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().to_str().unwrap();
        let spec = spec(dir.path(), &["sh", &program("final_then_exit.sh"), folder], "serve_checkpoints = true\n");
        let (m, header, row) = run_spec(&spec, dir.path());
        assert_eq!(m.code, 1, "one job failed: {}", m.stderr);
        assert_eq!(cell(&header, &row, "status"), "failed");
        let error = cell(&header, &row, "error");
        assert!(error.contains("batch 1") && error.contains("exited with status 0"), "{error}");
        ended(dir.path());
    }
}

#[test]
fn a_surplus_answer_is_an_error_naming_the_batch_and_the_line_never_the_next_answer() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let m = score(&["--batch", "8"], &["python3", &program("server.py"), "surplus", folder]);
    assert_eq!(m.code, 1, "{}", m.stderr);
    assert!(m.stderr.contains("batch 1") && m.stderr.contains("protocol error"), "{}", m.stderr);
    assert!(m.peak_mib < PEAK_MIB, "{} MiB", m.peak_mib);
    ended(dir.path());
    let spec = spec(dir.path(), &["python3", &program("server.py"), "surplus", folder], "");
    let (m, header, row) = run_spec(&spec, dir.path());
    assert_eq!(m.code, 1, "{}", m.stderr);
    let error = cell(&header, &row, "error");
    assert!(error.contains("batch 1") && error.contains("protocol error"), "{error}");
    assert!(m.peak_mib < PEAK_MIB, "spec run: {} MiB", m.peak_mib);
    ended(dir.path());
    // The same program, well behaved, scores.
    let m = score(&["--batch", "8"], &["python3", &program("server.py"), "plain", folder]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    ended(dir.path());
}

#[test]
fn a_flood_before_any_batch_keeps_sweep_small_and_is_a_protocol_error() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let m = score(&[], &["sh", &program("flood.sh"), folder]);
    assert_eq!(m.code, 1, "{}", m.stderr);
    // Lines that reach sweep after a batch was sent cannot be told from its answers: the
    // flood is an error before the next batch (or an illegal "3" in a full column).
    let named = m.stderr.contains("protocol error") && m.stderr.contains("\"3\"");
    assert!(named || m.stderr.contains("move 3 is not legal"), "{}", m.stderr);
    assert!(m.peak_mib < PEAK_MIB, "score: {} MiB", m.peak_mib);
    ended(dir.path());
    let spec = spec(dir.path(), &["sh", &program("flood.sh"), folder], "");
    let (m, header, row) = run_spec(&spec, dir.path());
    assert_eq!(m.code, 1, "{}", m.stderr);
    let error = cell(&header, &row, "error");
    assert!(error.contains("protocol error") || error.contains("move 3 is not legal"), "{error}");
    assert!(m.peak_mib < PEAK_MIB, "spec run: {} MiB", m.peak_mib);
    ended(dir.path());
}

#[test]
fn the_timeout_is_per_batch_not_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let at = Instant::now();
    // O's first batch from FROM: a position after each of X's moves that does not win.
    let m = score(&["--timeout", "2", "--seat", "o", "--against", "random"], &["sh", &program("slow.sh"), folder]);
    let took = at.elapsed();
    assert_eq!(m.code, 1, "{}", m.stderr);
    assert!(m.stderr.contains("of batch 1 within 2.0 s (the timeout is per batch)"), "{}", m.stderr);
    assert!(took < Duration::from_secs(10), "{took:?}: a line each 1.5 s kept a 2 s timeout going");
    ended(dir.path());
    // A spec's job (O against random, as above): its timeout bounds the whole job, so
    // each batch too.
    let spec = spec(dir.path(), &["sh", &program("slow.sh"), folder], "");
    let spec_text = std::fs::read_to_string(&spec).unwrap();
    let slow = spec_text
        .replace("timeout = \"30s\"", "timeout = \"2s\"")
        .replace("seat = \"x\"", "seat = \"o\"")
        .replace("[\"minimax\"]", "[\"random\"]");
    std::fs::write(&spec, slow).unwrap();
    let at = Instant::now();
    let (m, header, row) = run_spec(&spec, dir.path());
    assert_eq!(m.code, 1, "{}", m.stderr);
    assert!(cell(&header, &row, "error").contains("timed out after 2 s"), "{row:?}");
    assert!(at.elapsed() < Duration::from_secs(10), "{:?}", at.elapsed());
    ended(dir.path());
}

#[test]
fn a_relative_interpreter_runs_as_written_not_through_its_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let venv = dir.path().join("venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::os::unix::fs::symlink("/usr/bin/python3", venv.join("bin/python")).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = false\n").unwrap();
    let specs = dir.path().join("specs");
    std::fs::create_dir(&specs).unwrap();
    std::fs::copy(program("server.py"), specs.join("agent.py")).unwrap();
    let folder = dir.path().to_str().unwrap();
    let spec = spec(&specs, &["../venv/bin/python", "agent.py", "venv", folder], "");
    let (m, header, row) = run_spec(&spec, &specs);
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert_eq!(cell(&header, &row, "status"), "ok", "{row:?}");
    ended(dir.path());
}

#[test]
fn at_the_end_the_program_s_input_is_closed_and_it_finishes_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().to_str().unwrap();
    let m = score(&[], &["python3", &program("server.py"), "stats", folder]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    let stats = std::fs::read_to_string(dir.path().join("stats.txt")).unwrap();
    assert!(stats.starts_with("batches ") && stats.ends_with("end\n"), "{stats:?}");
    ended(dir.path());
    std::fs::remove_file(dir.path().join("stats.txt")).unwrap();
    let spec = spec(dir.path(), &["python3", &program("server.py"), "stats", folder], "");
    let (m, header, row) = run_spec(&spec, dir.path());
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert_eq!(cell(&header, &row, "status"), "ok", "{row:?}");
    let stats = std::fs::read_to_string(dir.path().join("stats.txt")).unwrap();
    assert!(stats.ends_with("end\n"), "{stats:?}");
    ended(dir.path());
}
