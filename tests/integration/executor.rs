//! The executor as a library: several runs in one process, each ending in an outcome that
//! it returns instead of ending the process.

use std::path::Path;

use sweep::report::manifest::Manifest;
use sweep::run::{Fault, RunOptions, RunOutcome, RunReport, StopToken, run};

/// Four short jobs.
const FOUR: &str = r#"
name = "four"
seed = 7
replicates = 2
[evaluation]
opponents = ["random"]
checkpoints = 1
[[solver]]
kind = "q-learning"
episodes = 2000
alpha = [0.1, 0.2]
"#;

/// Options for a quiet run of FOUR into `out` on one thread.
fn options(dir: &Path, out: &str) -> RunOptions {
    let spec = dir.join("four.toml");
    std::fs::write(&spec, FOUR).unwrap();
    RunOptions { spec, threads: Some(1), out: Some(dir.join(out)), quiet: true, ..RunOptions::default() }
}

/// The `status` column of every row of `out/results.csv`.
fn statuses(out: &Path) -> Vec<String> {
    let mut reader = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let status = reader.headers().unwrap().iter().position(|h| h == "status").unwrap();
    reader.records().map(|r| r.unwrap()[status].to_string()).collect()
}

fn run_ok(opts: &RunOptions, stop: &StopToken) -> RunReport {
    if let Some(out) = &opts.out {
        crate::common::until_unlocked(out);
    }
    run(opts, stop).expect("the run returns a report")
}

#[test]
fn a_run_after_a_fail_fast_stop_runs_every_job() {
    let tmp = tempfile::tempdir().unwrap();
    let failing =
        RunOptions { fail_fast: true, fault: Some(Fault::Error(String::new())), ..options(tmp.path(), "out") };
    let first = run_ok(&failing, &StopToken::new());
    assert!(matches!(first.outcome, RunOutcome::StoppedByFailFast), "{:?}", first.outcome);
    assert_eq!((first.ran, first.failed), (1, 1), "no job started after the failed one");
    assert_eq!(statuses(&first.dir), ["failed"]);
    assert!(!Manifest::read(&first.dir).unwrap().complete);

    // The same directory again, without the fault: the failed job and all the others run.
    let second = run_ok(&options(tmp.path(), "out"), &StopToken::new());
    assert!(matches!(second.outcome, RunOutcome::Completed), "{:?}", second.outcome);
    assert_eq!((second.ran, second.kept, second.failed), (4, 0, 0));
    assert_eq!(statuses(&second.dir), ["ok"; 4]);
    assert!(Manifest::read(&second.dir).unwrap().complete);
}

#[test]
fn a_stopped_token_interrupts_the_run_and_a_new_token_resumes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = options(tmp.path(), "out");
    let stop = StopToken::new();
    stop.stop();
    let first = run_ok(&opts, &stop);
    assert!(matches!(first.outcome, RunOutcome::Interrupted), "{:?}", first.outcome);
    assert_eq!(first.ran, 0, "no job starts once a stop is asked");
    assert!(!Manifest::read(&first.dir).unwrap().complete);
    let second = run_ok(&opts, &StopToken::new());
    assert!(matches!(second.outcome, RunOutcome::Completed), "{:?}", second.outcome);
    assert_eq!(second.ran, 4);
}

#[test]
fn a_failed_write_is_an_outcome_and_keeps_what_was_written() {
    let tmp = tempfile::tempdir().unwrap();
    let full_disk = RunOptions { fault: Some(Fault::Write(2)), ..options(tmp.path(), "out") };
    let first = run_ok(&full_disk, &StopToken::new());
    let RunOutcome::WriteFailed(error) = &first.outcome else { panic!("{:?}", first.outcome) };
    assert!(format!("{error:#}").contains("No space left on device"), "{error:#}");
    assert_eq!(first.ran, 2);
    assert_eq!(statuses(&first.dir), ["ok"; 2]);
    let second = run_ok(&options(tmp.path(), "out"), &StopToken::new());
    assert!(matches!(second.outcome, RunOutcome::Completed), "{:?}", second.outcome);
    assert_eq!((second.ran, second.kept), (2, 2));
}
