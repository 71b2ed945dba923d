//! Results never read as verified when they cannot be, and the messages of runs that meet
//! a folder in a bad state: a removed manifest, a line cut by a kill, a disk full at the
//! start, two runs started at once, a resume with nothing to run. One test per case, each
//! asserting the exit code and the message.

use std::path::Path;
use std::time::Duration;

use crate::common::*;

/// A sweep of a few seconds: two configurations, three replicates, curves.
const SMALL: &str = r#"
name = "small"
seed = 5
replicates = 3
[evaluation]
opponents = ["random"]
checkpoints = 2
[[solver]]
kind = "q-learning"
episodes = 400
alpha = [0.25, 0.5]
"#;

/// A sweep long enough to be killed in the middle: sixteen jobs, one at a time.
const LONGER: &str = r#"
name = "longer"
seed = 6
replicates = 8
[evaluation]
opponents = ["random"]
checkpoints = 2
[[solver]]
kind = "q-learning"
episodes = 20000
alpha = [0.25, 0.5]
"#;

const LIMIT: Duration = Duration::from_secs(120);

/// Runs `spec` into `out` and checks that it completed.
fn run_into(spec: &Path, out: &Path) {
    let m = run_measured(&["run", path(spec), "--quiet", "--threads", "1", "--out", path(out)], b"", LIMIT);
    assert_eq!(m.code, 0, "{}", m.stderr);
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every command that prints figures from a results folder, with the flags it needs.
fn readers(dir: &str) -> Vec<Vec<&str>> {
    vec![
        vec!["summary", dir],
        vec!["compare", dir],
        vec!["importance", dir],
        vec!["fidelity", dir],
        vec!["report", dir],
        vec!["reproduce", dir, "--job", "0"],
    ]
}

#[test]
fn without_its_manifest_a_folder_is_refused_by_every_reader_unless_unverified() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "small.toml", SMALL);
    let out = tmp.path().join("out");
    run_into(&spec, &out);
    let before = run_measured(&["summary", path(&out), "--csv"], b"", LIMIT);
    assert_eq!(before.code, 0, "{}", before.stderr);
    // The manifest removed and a figure edited: nothing shows that the file is sweep's.
    std::fs::remove_file(out.join("manifest.json")).unwrap();
    let results = out.join("results.csv");
    let text = std::fs::read_to_string(&results).unwrap();
    let (header, rows) = read_csv(&results);
    let regret = header.iter().position(|c| c == "regret").unwrap();
    let edited = text.replacen(&rows[0][regret], "0.0001", 1);
    assert_ne!(edited, text);
    std::fs::write(&results, edited).unwrap();
    for args in readers(path(&out)) {
        let m = run_measured(&args, b"", LIMIT);
        assert_eq!(m.code, 2, "{args:?}: {}", m.stderr);
        assert!(
            m.stderr.contains("has no manifest.json") && m.stderr.contains("--unverified"),
            "{args:?}: {}",
            m.stderr
        );
        assert!(m.stdout.is_empty(), "{args:?} printed figures: {}", m.stdout);
    }
    assert!(!out.join("report.html").exists(), "the refused report wrote nothing");
    // Read anyway: the figures, under a warning that they are unverified.
    for reader in ["summary", "compare"] {
        let m = run_measured(&[reader, path(&out), "--unverified"], b"", LIMIT);
        assert_eq!(m.code, 0, "{reader}: {}", m.stderr);
        assert!(m.stderr.contains("warning: the figures below are unverified"), "{reader}: {}", m.stderr);
        assert!(!m.stdout.is_empty(), "{reader}");
    }
}

#[test]
fn an_edited_file_is_refused_with_the_flag_that_reads_it_anyway() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "small.toml", SMALL);
    let out = tmp.path().join("out");
    run_into(&spec, &out);
    let results = out.join("results.csv");
    let text = std::fs::read_to_string(&results).unwrap();
    std::fs::write(&results, text.replacen(",ok,", ",failed,", 1)).unwrap();
    let m = run_measured(&["summary", path(&out)], b"", LIMIT);
    assert_eq!(m.code, 2, "{}", m.stderr);
    assert!(m.stderr.contains("results.csv has changed since sweep wrote it"), "{}", m.stderr);
    assert!(m.stderr.contains("--unverified"), "{}", m.stderr);
    let m = run_measured(&["summary", path(&out), "--unverified"], b"", LIMIT);
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert!(m.stderr.contains("unverified") && m.stderr.contains("has changed"), "{}", m.stderr);
    assert!(!m.stderr.contains("will not read it"), "{}", m.stderr);
}

#[test]
fn a_line_cut_by_a_kill_is_mended_by_resuming_and_summary_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "longer.toml", LONGER);
    let out = tmp.path().join("out");
    let args = ["run", path(&spec), "--quiet", "--threads", "1", "--out", path(&out)];
    let mut child = spawn(&args, &[]);
    let start = std::time::Instant::now();
    while std::fs::read_to_string(out.join("results.csv")).map_or(0, |t| t.lines().count()) < 2 {
        assert!(start.elapsed() < LIMIT, "no row in time");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: signalling the child this test started, by its pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap();
    let results = out.join("results.csv");
    let rows = read_csv(&results).1.len();
    assert!(rows < 16, "killed before the end ({rows} rows)");
    // What a kill in the middle of a write leaves: a last line without its end.
    let mut text = std::fs::read_to_string(&results).unwrap();
    text.push_str("deadbeef0000,q-lear");
    std::fs::write(&results, text).unwrap();
    let m = run_measured(&["summary", path(&out)], b"", LIMIT);
    assert_eq!(m.code, 2, "{}", m.stderr);
    assert!(m.stderr.contains("is cut short, as a run killed while writing it leaves it"), "{}", m.stderr);
    assert!(m.stderr.contains("resuming the run mends it") && m.stderr.contains("the same `sweep run` command"));
    assert!(!m.stderr.contains("restore"), "{}", m.stderr);
    let m = run_measured(&args, b"", LIMIT);
    assert_eq!(m.code, 0, "{}", m.stderr);
    let m = run_measured(&["summary", path(&out)], b"", LIMIT);
    assert_eq!(m.code, 0, "mended: {}", m.stderr);
    assert_eq!(read_csv(&results).1.len(), 16);
}

#[test]
fn a_disk_full_at_the_start_leaves_nothing_that_blocks_the_same_command() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "small.toml", SMALL);
    // A file system of one page when this test may mount one (the lock takes it, and the
    // first header finds the disk full), else the writer's fault hook, which leaves what
    // a full disk leaves: an empty results.csv and no manifest.
    let mnt = tmp.path().join("tiny");
    std::fs::create_dir(&mnt).unwrap();
    let mount = |size: &str, more: &[&str]| {
        std::process::Command::new("mount")
            .args(more)
            .args(["-t", "tmpfs", "-o", size, "tmpfs", path(&mnt)])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let mounted = mount("size=4k", &[]);
    let out = mnt.join("out");
    let mut first = sweep();
    first.args(["run", path(&spec), "--quiet", "--threads", "1", "--out", path(&out)]);
    if !mounted {
        first.env("SWEEP_FAULT", "write:start");
    }
    let o = first.output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("No space left on device"), "{}", stderr(&o));
    assert!(stderr(&o).contains("no job ran: run the same command again"), "{}", stderr(&o));
    assert!(out.join("results.csv").exists() && !out.join("manifest.json").exists(), "what a full disk leaves");
    // Space is back: the same command runs, with no --fresh.
    if mounted {
        assert!(mount("remount,size=1m", &[]) || mount("size=1m", &["-o", "remount"]), "remount");
    }
    let m = run_measured(&["run", path(&spec), "--threads", "1", "--out", path(&out)], b"", LIMIT);
    let rows = read_csv(&out.join("results.csv")).1.len();
    if mounted {
        let _ = std::process::Command::new("umount").arg(&mnt).status();
    }
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert!(!m.stderr.contains("--fresh"), "{}", m.stderr);
    assert_eq!(rows, 6);
}

#[test]
fn of_two_runs_started_at_once_the_loser_names_the_run_that_holds_the_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "small.toml", SMALL);
    let mut losers = 0;
    for pair in 0..5 {
        let out = tmp.path().join(format!("out{pair}"));
        let args = ["run", path(&spec), "--quiet", "--threads", "1", "--out", path(&out)];
        let children = [spawn(&args, &[]), spawn(&args, &[])];
        let pids: Vec<u32> = children.iter().map(|c| c.id()).collect();
        let ended: Vec<(i32, String)> = children
            .into_iter()
            .map(|c| {
                let o = c.wait_with_output().unwrap();
                (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
            })
            .collect();
        assert!(ended.iter().any(|(code, _)| *code == 0), "pair {pair}: neither ran: {ended:?}");
        for (k, (code, err)) in ended.iter().enumerate() {
            assert!(!err.contains("--fresh"), "pair {pair}: advises --fresh: {err}");
            if *code == 0 {
                continue;
            }
            losers += 1;
            assert_eq!(*code, 2, "pair {pair}: {err}");
            let winner = pids[1 - k];
            assert!(err.contains("another sweep is already writing to"), "pair {pair}: {err}");
            assert!(err.contains(&format!("(pid {winner} ")) && err.contains(" since "), "pair {pair}: {err}");
        }
        assert_eq!(read_csv(&out.join("results.csv")).1.len(), 6);
    }
    // The second starts while the first runs (a run lasts far longer than a start).
    assert!(losers >= 2, "only {losers} of 5 pairs overlapped");
}

#[test]
fn a_resume_with_nothing_to_run_keeps_the_runs_times_and_prints_no_rate() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "small.toml", SMALL);
    let out = tmp.path().join("out");
    run_into(&spec, &out);
    let manifest = |dir: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
    };
    let before = manifest(&out);
    // The times have one-second steps: the resume starts in a later second.
    std::thread::sleep(Duration::from_millis(1100));
    let m = run_measured(&["run", path(&spec), "--threads", "1", "--out", path(&out)], b"", LIMIT);
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert!(m.stderr.contains("6 jobs already done, 0 to run"), "{}", m.stderr);
    let said = format!("{}{}", m.stdout, m.stderr);
    let rate = said.match_indices("/s").any(|(i, _)| i > 0 && said.as_bytes()[i - 1].is_ascii_digit());
    assert!(!rate, "a rate: {said}");
    let after = manifest(&out);
    for key in ["started", "ended", "complete", "jobs_done"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    let m = run_measured(&["summary", path(&out)], b"", LIMIT);
    assert_eq!(m.code, 0, "the resume sealed what it found: {}", m.stderr);
}
