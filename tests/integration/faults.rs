//! Never lose a result: interrupted, killed, failing and refused runs.

use std::path::Path;
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::common::*;

/// A sweep of many short jobs, so that a run can be stopped in the middle.
const MANY: &str = r#"
name = "many"
seed = 99
replicates = 30
[evaluation]
opponents = ["random"]
checkpoints = 2
[[solver]]
kind = "q-learning"
episodes = 150000
alpha = [0.25, 0.5]
"#;

/// Waits until `results.csv` under `dir` has at least `rows` data rows.
fn wait_rows(dir: &Path, rows: usize) {
    let start = Instant::now();
    loop {
        let n = std::fs::read_to_string(dir.join("results.csv")).map_or(0, |t| t.lines().count().saturating_sub(1));
        if n >= rows {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "the run did not write {rows} rows in time");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = StdCommand::new("kill").args(["-s", sig, &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

#[test]
fn a_killed_sweep_resumes_to_the_same_files() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "many.toml", MANY);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let spec = spec.to_str().unwrap();
    let mut child = spawn(&["run", spec, "--quiet", "--threads", "2", "--out", a.to_str().unwrap()], &[]);
    wait_rows(&a, 10);
    signal(&child, "KILL");
    child.wait().unwrap();
    // A crash in the middle of a write leaves a partial last line.
    let mut text = std::fs::read_to_string(a.join("results.csv")).unwrap();
    let done = text.lines().count() - 1;
    assert!(done < 60, "killed before the end ({done} rows)");
    text.push_str("deadbeef0000,q-lear");
    std::fs::write(a.join("results.csv"), text).unwrap();
    let o = run(&["run", spec, "--threads", "2", "--out", a.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming"), "{}", stderr(&o));
    assert!(stderr(&o).contains("partial last line"), "{}", stderr(&o));
    run(&["run", spec, "--quiet", "--threads", "1", "--out", b.to_str().unwrap()]);
    assert_eq!(without_timings(&a.join("results.csv")), without_timings(&b.join("results.csv")));
    assert_eq!(std::fs::read(a.join("curves.csv")).unwrap(), std::fs::read(b.join("curves.csv")).unwrap());
}

#[test]
fn sigint_and_sigterm_stop_flush_and_exit_130() {
    for sig in ["INT", "TERM"] {
        let tmp = tempfile::tempdir().unwrap();
        let spec = write_spec(tmp.path(), "many.toml", MANY);
        let out = tmp.path().join("out");
        let child = spawn(&["run", spec.to_str().unwrap(), "--threads", "1", "--out", out.to_str().unwrap()], &[]);
        wait_rows(&out, 4);
        signal(&child, sig);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "{sig}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("To resume, run the same command again"), "{err}");
        // The same command: its --threads too.
        assert!(err.contains(&format!("--out {} --threads 1", out.display())), "{err}");
        // What was written is valid CSV with whole jobs, and the same command finishes it.
        let (_, rows) = read_csv(&out.join("results.csv"));
        assert!(rows.len() < 60);
        let again = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
        assert!(again.status.success(), "{}", stderr(&again));
        assert_eq!(read_csv(&out.join("results.csv")).1.len(), 60);
    }
}

#[test]
fn a_failing_job_is_a_failed_row_and_the_others_go_on() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("f");
    // Find a job id first.
    run_smoke(&tmp.path().join("probe"), &[]);
    let (_, rows) = read_csv(&tmp.path().join("probe/results.csv"));
    let victim = rows.iter().find(|r| r[1] == "mcts").unwrap()[0].clone();
    for (mode, word) in [("panic", "panicked"), ("error", "fault injected")] {
        let o = sweep()
            .args(["run", "experiments/smoke.toml", "--quiet", "--out", out.to_str().unwrap(), "--fresh"])
            .env("SWEEP_FAULT", format!("{mode}:{victim}"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{mode}");
        assert!(stderr(&o).contains(&format!("job {victim}")), "{}", stderr(&o));
        let (_, got) = read_csv(&out.join("results.csv"));
        assert_eq!(got.len(), rows.len(), "every other job still ran");
        let failed: Vec<_> = got.iter().filter(|r| r[32] == "failed").collect();
        assert_eq!(failed.len(), 2, "one row per evaluation opponent");
        assert!(failed.iter().all(|r| r[0] == victim && r[33].contains(word)), "{failed:?}");
        assert!(failed.iter().all(|r| r[21].is_empty()), "no metrics in a failed row");
    }
    // Resume retries failed jobs: without the fault, everything is ok.
    let o = run(&["run", "experiments/smoke.toml", "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, got) = read_csv(&out.join("results.csv"));
    assert!(got.iter().all(|r| r[32] == "ok"));
    // --fail-fast stops starting jobs at the first failure.
    let ff = tmp.path().join("ff");
    let o = sweep()
        .args([
            "run",
            "experiments/smoke.toml",
            "--quiet",
            "--threads",
            "1",
            "--fail-fast",
            "--out",
            ff.to_str().unwrap(),
        ])
        .env("SWEEP_FAULT", "error:")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--fail-fast"), "{}", stderr(&o));
    let (_, got) = read_csv(&ff.join("results.csv"));
    assert!(got.len() <= 4, "stopped after the first failed job: {} rows", got.len());
}

#[test]
fn a_changed_spec_is_refused_then_fresh_or_extend() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    let small = "name = \"g\"\nseed = 1\nreplicates = 2\n[[solver]]\nkind = \"q-learning\"\nepisodes = 3000\nalpha = [0.1, 0.2]\n";
    let spec = write_spec(tmp.path(), "g.toml", small);
    let args = |extra: &[&str]| {
        let mut v = vec![
            "run".to_string(),
            spec.to_str().unwrap().into(),
            "--quiet".into(),
            "--out".into(),
            out.to_str().unwrap().into(),
        ];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let o = sweep().args(args(&[])).output().unwrap();
    assert!(o.status.success());
    let (_, before) = read_csv(&out.join("results.csv"));
    // More grid points and replicates: refused, then --extend keeps the finished jobs.
    std::fs::write(&spec, small.replace("[0.1, 0.2]", "[0.1, 0.2, 0.3]").replace("replicates = 2", "replicates = 3"))
        .unwrap();
    let snap = snapshot(&out);
    let o = sweep().args(args(&[])).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("different spec") && err.contains("--fresh") && err.contains("--out"), "{err}");
    assert!(err.contains("alpha") || err.contains("replicates"), "says what changed: {err}");
    assert_eq!(snapshot(&out), snap, "a refused run changes nothing");
    let o = sweep().args(args(&["--extend"])).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (_, after) = read_csv(&out.join("results.csv"));
    assert_eq!(after.len(), 9);
    for row in &before {
        let same = after.iter().find(|r| r[0] == row[0]).expect("finished jobs keep their ids");
        assert_eq!(same[..34], row[..34]);
        assert_eq!(same[34], row[34], "kept, not re-run: same timing");
    }
    // A spec that dropped jobs cannot extend; --fresh moves the old results aside.
    std::fs::write(&spec, small.replace("[0.1, 0.2]", "[0.4]")).unwrap();
    let o = sweep().args(args(&["--extend"])).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = sweep().args(args(&["--fresh"])).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let aside: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("o.old-"))
        .collect();
    assert_eq!(aside.len(), 1, "moved aside, not deleted");
    assert_eq!(read_csv(&aside[0].path().join("results.csv")).1.len(), 9);
    assert_eq!(read_csv(&out.join("results.csv")).1.len(), 2);
}

#[test]
fn a_second_sweep_on_the_same_directory_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "many.toml", MANY);
    let out = tmp.path().join("locked");
    let mut first =
        spawn(&["run", spec.to_str().unwrap(), "--quiet", "--threads", "1", "--out", out.to_str().unwrap()], &[]);
    wait_rows(&out, 1);
    let started = Instant::now();
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(stderr(&o).contains("another sweep") && stderr(&o).contains(out.to_str().unwrap()), "{}", stderr(&o));
    first.kill().unwrap();
    first.wait().unwrap();
}

#[test]
fn huge_grids_need_yes() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        "huge.toml",
        "name = \"huge\"\nseed = 1\nreplicates = 1000\n[[solver]]\nkind = \"q-learning\"\nepisodes = 1\nalpha = { linspace = [0.01, 1.0, 101] }\n[evaluation]\ncheckpoints = 1\n",
    );
    let out = tmp.path().join("h");
    let o = run(&["run", spec.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("101000 jobs") && stderr(&o).contains("q-learning: 101000") && stderr(&o).contains("--yes"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(stdout(&o).contains("101000"), "{}", stdout(&o));
}

#[test]
fn write_errors_name_the_file_and_keep_what_was_written() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "many.toml", MANY);
    let spec = spec.to_str().unwrap();
    // A full disk: a tiny file system when this test may mount one, else the writer's
    // fault hook, which fails exactly like ENOSPC.
    let mnt = tmp.path().join("tiny");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = StdCommand::new("mount")
        // Five pages: the lock (which names its holder), the manifest and its rewrite, and
        // the two files, whose rows fill them before the end.
        .args(["-t", "tmpfs", "-o", "size=20k", "tmpfs", mnt.to_str().unwrap()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let out = mnt.join("r");
    let o = if mounted {
        run(&["run", spec, "--quiet", "--threads", "1", "--out", out.to_str().unwrap()])
    } else {
        sweep()
            .args(["run", spec, "--quiet", "--threads", "1", "--out", out.to_str().unwrap()])
            .env("SWEEP_FAULT", "write:5")
            .output()
            .unwrap()
    };
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("No space left on device") && err.contains(".csv"), "{err}");
    assert!(err.contains("resume"), "{err}");
    // What was written is intact: copy it to a roomy place and resume there.
    let roomy = tmp.path().join("roomy");
    std::fs::create_dir(&roomy).unwrap();
    for f in ["results.csv", "curves.csv", "manifest.json"] {
        std::fs::copy(out.join(f), roomy.join(f)).unwrap();
    }
    if mounted {
        let _ = StdCommand::new("umount").arg(&mnt).status();
    }
    let (_, rows) = read_csv(&roomy.join("results.csv"));
    assert!(!rows.is_empty() && rows.len() < 60);
    let o = run(&["run", spec, "--quiet", "--out", roomy.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_csv(&roomy.join("results.csv")).1.len(), 60);
}

#[test]
fn a_removed_directory_is_an_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "many.toml", MANY);
    let out = tmp.path().join("gone");
    let child =
        spawn(&["run", spec.to_str().unwrap(), "--quiet", "--threads", "1", "--out", out.to_str().unwrap()], &[]);
    wait_rows(&out, 2);
    std::fs::remove_dir_all(&out).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("removed") && err.contains(".csv"), "{err}");
}

#[test]
fn a_second_sigint_exits_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    // Two short jobs, then one long one (tens of seconds) that the first interrupt waits for.
    let spec = write_spec(
        tmp.path(),
        "long.toml",
        "name = \"long\"\nseed = 1\n[evaluation]\ncheckpoints = 1\n[[solver]]\nkind = \"q-learning\"\nepisodes = [2000, 3000]\n[[solver]]\nkind = \"q-learning\"\nepisodes = 400000000\n",
    );
    let out = tmp.path().join("out");
    let child = spawn(&["run", spec.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()], &[]);
    wait_rows(&out, 1);
    signal(&child, "INT");
    std::thread::sleep(Duration::from_millis(300));
    let second = Instant::now();
    signal(&child, "INT");
    let o = child.wait_with_output().unwrap();
    assert!(second.elapsed() < Duration::from_secs(3), "the second interrupt did not exit at once");
    assert_eq!(o.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&o.stderr).contains("second interrupt"));
    // What was flushed stays valid: whole rows of finished jobs only.
    let (_, rows) = read_csv(&out.join("results.csv"));
    assert!(!rows.is_empty() && rows.iter().all(|r| r[32] == "ok"));
}
