//! Helpers shared by the command-line tests: one way to run the binary (or the executor,
//! through the library) and read its files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use rand::SeedableRng;
use sweep::game::{Board, Game};
use sweep::mdp::{Evaluator, Opponent, Seat, sample_games};
use sweep::solvers::ground_truth;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A path under `experiments/`.
pub fn experiment(name: &str) -> PathBuf {
    root().join("experiments").join(name)
}

/// The `sweep` binary, run from the repository root.
pub fn sweep() -> Command {
    let mut c = Command::cargo_bin("sweep").expect("the binary is built");
    c.current_dir(root());
    c.env_remove("SLURM_ARRAY_TASK_ID").env_remove("SLURM_ARRAY_TASK_COUNT").env_remove("SWEEP_FAULT");
    c
}

/// Runs `sweep` with `args` and returns its output.
pub fn run(args: &[&str]) -> Output {
    sweep().args(args).output().expect("sweep runs")
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Reads a CSV file: header and records.
pub fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r.records().map(|x| x.unwrap().iter().map(String::from).collect()).collect();
    (header, rows)
}

/// The rows of a results file without the two timing columns (`train_ms`, `eval_ms`).
pub fn without_timings(path: &Path) -> Vec<Vec<String>> {
    let (h, rows) = read_csv(path);
    let timings: Vec<usize> =
        h.iter().enumerate().filter(|(_, c)| *c == "train_ms" || *c == "eval_ms").map(|(i, _)| i).collect();
    assert_eq!(timings.len(), 2, "{}: no timing columns", path.display());
    rows.into_iter()
        .map(|r| r.into_iter().enumerate().filter(|(i, _)| !timings.contains(i)).map(|(_, c)| c).collect())
        .collect()
}

/// Runs the smoke spec into `out` with `extra` flags; asserts success.
pub fn run_smoke(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "experiments/smoke.toml", "--quiet", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "smoke run failed: {}", stderr(&o));
    o
}

/// Writes a spec file into `dir` and returns its path.
pub fn write_spec(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A snapshot of every file under `dir` (path and bytes), to show nothing changed.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if dir.exists() {
        for e in walk(dir) {
            out.push((e.clone(), std::fs::read(&e).unwrap_or_default()));
        }
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() { v.extend(walk(&p)) } else { v.push(p) }
    }
    v
}

/// Runs `spec` through the library's executor into `out`, quietly, on `threads` threads
/// (`shard`: only that share), and checks that it completed.
pub fn run_in(spec: &Path, out: &Path, threads: usize, shard: Option<sweep::report::manifest::Shard>) {
    use sweep::run::{self, RunOptions, RunOutcome, StopToken};
    let opts = RunOptions {
        spec: spec.to_path_buf(),
        threads: Some(threads),
        out: Some(out.to_path_buf()),
        shard,
        quiet: true,
        ..RunOptions::default()
    };
    let report = run::run(&opts, &StopToken::new()).unwrap();
    assert!(matches!(report.outcome, RunOutcome::Completed), "{:?}", report.outcome);
}

/// z for a two-sided 99.9% interval.
pub const Z999: f64 = 3.2905;

/// The first legal move (lowest cell).
pub fn first_legal(b: Board) -> u8 {
    b.legal_moves().trailing_zeros() as u8
}

/// The last legal move (highest cell).
pub fn last_legal(b: Board) -> u8 {
    31 - b.legal_moves().leading_zeros() as u8
}

/// Exact values of three policies (first legal cell, last legal cell, optimal) agree with
/// games played by the rules, within a 99.9% interval, in both seats against every
/// opponent; and none beats the optimum.
pub fn exact_matches_sampled(g: Game, games: u64, pairs: &[(Seat, Opponent)]) {
    for &(seat, opp) in pairs {
        let truth = ground_truth(g, seat, opp);
        let optimal = truth.solution.policy(&truth.mdp);
        let policies: [(&str, &dyn Fn(Board) -> u8); 3] =
            [("first legal", &first_legal), ("last legal", &last_legal), ("optimal", &|b| optimal.get_or_first(b))];
        for (name, policy) in policies {
            let exact = Evaluator::new().evaluate(&truth.mdp, |_, b| policy(b));
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2026);
            let t = sample_games(g, seat, opp, games, &mut rng, policy);
            let var = exact.p_win + exact.p_loss - exact.value * exact.value;
            let half = Z999 * (var / games as f64).sqrt();
            assert!(
                (t.mean() - exact.value).abs() <= half.max(1e-12),
                "{g}, {name} as {seat} vs {opp}: exact {} sampled {} ± {half}",
                exact.value,
                t.mean()
            );
            assert!(exact.value <= truth.solution.value + 1e-12, "{g}, {name} beats the optimum");
        }
    }
}

/// Waits (up to ten seconds) until no one holds the lock of the results directory `dir`,
/// before a test runs a second sweep into it in this process. A run's lock is an open
/// file, and a child that another test thread forks shares it until the child starts its
/// program: for that moment a lock that the run has released is still held.
pub fn until_unlocked(dir: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while dir.exists() && sweep::run::state::lock(dir).is_err() {
        assert!(std::time::Instant::now() < deadline, "{} stays locked", dir.display());
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Starts the built `sweep` from the repository root with `args` and `env`, its output
/// piped (to signal it while it runs).
pub fn spawn(args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
    use std::process::{Command as StdCommand, Stdio};
    let mut c = StdCommand::new(env!("CARGO_BIN_EXE_sweep"));
    c.current_dir(root()).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    c.env_remove("SLURM_ARRAY_TASK_ID").env_remove("SLURM_ARRAY_TASK_COUNT").env_remove("SWEEP_FAULT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

/// The value of `me`'s policy `choose` against the reply that is worst for it, by plain
/// recursion over the game tree: the board's rules, no position table, no MDP.
pub fn brute_force_worst_case(b: Board, me: sweep::game::Player, choose: &impl Fn(Board) -> u8) -> i32 {
    if let Some(r) = b.status().reward(me) {
        return r as i32;
    }
    if b.to_move() == me {
        return brute_force_worst_case(b.play(choose(b)), me, choose);
    }
    b.legal_cells().map(|c| brute_force_worst_case(b.play(c), me, choose)).min().expect("a legal move")
}

/// Whether process `pid` runs (a zombie, ended but not yet reaped, does not).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
    }
}

/// Writes a policy file of `seat` in `game` with `choose`'s move in every position where
/// `seat` is to move.
pub fn policy_file(path: &Path, game: Game, seats: &[sweep::mdp::Seat], choose: impl Fn(usize, Board) -> u8) {
    let pos = game.positions();
    let mut text = String::from("board,action,seat,game\n");
    for p in 0..pos.len() {
        let b = pos.board(p);
        let seat = if b.to_move() == sweep::game::Player::X { sweep::mdp::Seat::X } else { sweep::mdp::Seat::O };
        if b.status() == sweep::game::Status::Ongoing && seats.contains(&seat) {
            text.push_str(&format!("{b},{},{},{game}\n", game.move_text(choose(p, b)), seat.name()));
        }
    }
    std::fs::write(path, text).unwrap();
}

/// What [`run_measured`] saw of one `sweep` process.
pub struct Measured {
    /// The exit code, or `128 + signal` when a signal ended it (141 = SIGPIPE).
    pub code: i32,
    /// Its standard output and error, as text.
    pub stdout: String,
    pub stderr: String,
    /// Its peak resident memory (the kernel's `ru_maxrss` of this one process), in MiB;
    /// NaN when it was ended at the time limit.
    pub peak_mib: f64,
}

/// Runs the built `sweep` with `args` (and `stdin` fed to it, then closed) from the
/// repository root, ends it (by its pid, with its group) if it has not finished within
/// `limit`, and returns its exit code, output and peak memory. The peak is measured on
/// that process alone: it is started by a small one (`tests/programs/measure.py`), since a
/// process the test binary starts itself inherits the binary's own peak at exec.
pub fn run_measured(args: &[&str], stdin: &[u8], limit: std::time::Duration) -> Measured {
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    let peak_file = tempfile::NamedTempFile::new().unwrap();
    let bin = assert_cmd::cargo::cargo_bin("sweep");
    let mut child = std::process::Command::new("python3")
        .arg(root().join("tests/programs/measure.py"))
        .arg(peak_file.path())
        .arg(bin)
        .args(args)
        .current_dir(root())
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("SLURM_ARRAY_TASK_COUNT")
        .env_remove("SWEEP_FAULT")
        .process_group(0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let pid = child.id() as i32;
    let mut input = child.stdin.take().unwrap();
    let fed = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&fed);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let outs = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let errs = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watch = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                if start.elapsed() > limit {
                    // SAFETY: signalling the group this test started (its own pid).
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let status = child.wait().expect("wait for sweep");
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    watch.join().unwrap();
    let _ = feeder.join();
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    // No figure when the run was ended before it could be measured.
    let peak_kib: f64 = std::fs::read_to_string(peak_file.path()).ok().and_then(|t| t.parse().ok()).unwrap_or(f64::NAN);
    Measured {
        code,
        stdout: String::from_utf8_lossy(&outs.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&errs.join().unwrap()).into_owned(),
        peak_mib: peak_kib / 1024.0,
    }
}
