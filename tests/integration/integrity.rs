//! Nothing a program does touches the results, and a results folder from elsewhere runs
//! nothing unasked.
//!
//! - A row that a command solver's program appends to `results.csv` during the run ends
//!   the run with an error naming the file; a row appended after the run is named by
//!   `summary`, `report`, a resume and `merge` (of a shard), which refuse the file.
//! - `reproduce` of a command job runs nothing without `--trust` (the program would leave
//!   a marker file) and names the command; with `--trust`, a program file edited since the
//!   run is refused by its hash, and so is a resume.
//! - Resuming a folder that another spec file wrote needs `--trust`; the spec file that
//!   wrote it does not.
//! - A relative program path is the spec folder's, also when `reproduce` runs elsewhere.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::common::*;

/// Writes an executable `agent.sh` into `dir`: it leaves `ran-<job id>` in the spec's
/// folder, runs `extra` (shell), and writes the first legal move of every position.
fn agent(dir: &Path, extra: &str) {
    let script = format!(
        "#!/bin/sh\ntouch \"$SWEEP_SPEC_DIR/ran-$SWEEP_JOB_ID\"\n{extra}\n{{ echo board,action,seat,game\n  \
         tail -n +2 \"$SWEEP_STATES\" | while IFS=, read -r board moves; do\n    \
         echo \"$board,${{moves%%|*}},$SWEEP_SEAT,$SWEEP_GAME\"\n  done; }} > \"$SWEEP_POLICY\"\n"
    );
    let path = dir.join("agent.sh");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A spec of one command solver running `./agent.sh` (two replicates), in `dir`; `files`
/// names a file of its own, so the program is hashed only as the program it runs.
fn spec(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("notes.txt"), "data\n").unwrap();
    let text = "name = \"i\"\nseed = 3\nreplicates = 2\n[evaluation]\nopponents = [\"random\"]\ncheckpoints = 1\n\
                [[solver]]\nkind = \"command\"\nlabel = \"prog\"\ncommand = [\"./agent.sh\"]\nfiles = [\"notes.txt\"]\n\
                episodes = 10\n";
    write_spec(dir, "c.toml", text)
}

/// The `ran-*` markers in `dir`.
fn markers(dir: &Path) -> Vec<String> {
    let names = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    names.filter(|n| n.starts_with("ran-")).collect()
}

fn clear_markers(dir: &Path) {
    for m in markers(dir) {
        std::fs::remove_file(dir.join(m)).unwrap();
    }
}

fn run_ok(args: &[&str]) {
    let o = run(args);
    assert!(o.status.success(), "sweep {args:?}: {}", stderr(&o));
}

fn first_job(out: &Path) -> String {
    read_csv(&out.join("results.csv")).1[0][0].clone()
}

/// Appends a line to `path`, as a program or a person might.
fn append_line(path: &Path) {
    let mut text = std::fs::read_to_string(path).unwrap();
    text.push_str("0123456789ab,command:prog\n");
    std::fs::write(path, text).unwrap();
}

/// Asserts that `args` exit 2 naming `file` as changed since sweep wrote it.
fn refused_as_changed(args: &[&str], file: &Path) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "sweep {args:?}: {err}");
    let named = format!("{} has changed since sweep wrote it", file.display());
    assert!(err.contains(&named), "sweep {args:?}: {err}");
}

#[test]
fn a_row_a_program_appends_during_the_run_is_named_and_refused_by_every_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(&tmp.path().join("s"));
    let out = tmp.path().join("out");
    // The program appends a row to the results folder (it is never told where that is:
    // this one knows).
    agent(&tmp.path().join("s"), &format!("echo 0123456789ab,forged >> \"{}/results.csv\"", out.display()));
    let (spec, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let o = run(&["run", spec, "--quiet", "--threads", "1", "--out", out_s]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let results = out.join("results.csv");
    assert!(err.contains(&format!("{} was changed during the run by another process", results.display())), "{err}");
    refused_as_changed(&["summary", out_s], &results);
    refused_as_changed(&["report", out_s, "--out", tmp.path().join("r.html").to_str().unwrap()], &results);
    refused_as_changed(&["run", spec, "--quiet", "--out", out_s], &results);
    assert!(!tmp.path().join("r.html").exists(), "no page of a changed file");
}

#[test]
fn a_row_appended_after_the_run_is_named_by_summary_report_resume_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = spec(&tmp.path().join("s"));
    agent(&tmp.path().join("s"), "");
    let (spec, out, split) = (spec.to_str().unwrap(), tmp.path().join("out"), tmp.path().join("split"));
    let out_s = out.to_str().unwrap();
    run_ok(&["run", spec, "--quiet", "--out", out_s]);
    run_ok(&["summary", out_s]);
    for file in ["results.csv", "curves.csv"] {
        let path = out.join(file);
        let before = std::fs::read(&path).unwrap();
        append_line(&path);
        refused_as_changed(&["summary", out_s], &path);
        refused_as_changed(&["report", out_s], &path);
        refused_as_changed(&["run", spec, "--quiet", "--out", out_s], &path);
        std::fs::write(&path, before).unwrap();
    }
    run_ok(&["summary", out_s]);
    run_ok(&["run", spec, "--quiet", "--out", out_s]);
    for k in ["0/2", "1/2"] {
        run_ok(&["run", spec, "--quiet", "--out", split.to_str().unwrap(), "--shard", k]);
    }
    let shard = split.join("shards/1-of-2/results.csv");
    append_line(&shard);
    refused_as_changed(&["merge", split.to_str().unwrap()], &shard);
    assert!(!split.join("results.csv").exists(), "nothing merged");
    // The merged folder records its own files: a change to them is named too.
    let before = std::fs::read_to_string(&shard).unwrap();
    std::fs::write(&shard, before.trim_end_matches("0123456789ab,command:prog\n")).unwrap();
    run_ok(&["merge", split.to_str().unwrap()]);
    run_ok(&["summary", split.to_str().unwrap()]);
    append_line(&split.join("results.csv"));
    refused_as_changed(&["summary", split.to_str().unwrap()], &split.join("results.csv"));
}

#[test]
fn reproduce_of_a_copied_folder_runs_nothing_without_trust_and_names_the_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let spec = spec(&dir);
    agent(&dir, "");
    let out = tmp.path().join("out");
    run_ok(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    let copied = tmp.path().join("copied");
    std::fs::create_dir(&copied).unwrap();
    for f in ["results.csv", "curves.csv", "manifest.json"] {
        std::fs::copy(out.join(f), copied.join(f)).unwrap();
    }
    clear_markers(&dir);
    let job = first_job(&copied);
    let o = run(&["reproduce", copied.to_str().unwrap(), "--job", &job]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    let program = dir.join("agent.sh").canonicalize().unwrap();
    assert!(err.contains(&program.display().to_string()) && err.contains("--trust"), "{err}");
    assert!(markers(&dir).is_empty(), "the program ran: {:?}", markers(&dir));
    let o = run(&["reproduce", copied.to_str().unwrap(), "--job", &job, "--trust"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("reproduced"), "{}", stdout(&o));
    assert_eq!(markers(&dir), [format!("ran-{job}")]);
}

#[test]
fn an_edited_program_is_refused_by_its_hash_even_with_trust() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let spec = spec(&dir);
    agent(&dir, "");
    let out = tmp.path().join("out");
    let (spec, out_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    run_ok(&["run", spec, "--quiet", "--out", out_s]);
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"programs\"") && manifest.contains("agent.sh"), "{manifest}");
    agent(&dir, "# edited after the run");
    clear_markers(&dir);
    let o = run(&["reproduce", out_s, "--job", &first_job(&out), "--trust"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let program = dir.join("agent.sh").canonicalize().unwrap();
    let named = format!("{}, the program of the command solver prog, has changed since the run", program.display());
    assert!(stderr(&o).contains(&named), "{}", stderr(&o));
    // A resume would run the edited program beside the rows of the old one.
    let o = run(&["run", spec, "--quiet", "--out", out_s, "--trust"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&named), "{}", stderr(&o));
    assert!(markers(&dir).is_empty(), "the program ran: {:?}", markers(&dir));
}

#[test]
fn resuming_a_folder_another_spec_file_wrote_needs_trust_and_the_same_spec_file_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let spec_a = spec(&a);
    agent(&a, "");
    let spec_b = spec(&b);
    agent(&b, "");
    // One job of two, as an interrupted run leaves it.
    let probe = tmp.path().join("probe");
    run_ok(&["run", spec_a.to_str().unwrap(), "--quiet", "--out", probe.to_str().unwrap()]);
    let one = first_job(&probe);
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    run_ok(&["run", spec_a.to_str().unwrap(), "--quiet", "--out", out_s, "--only", &one]);
    clear_markers(&a);
    let o = run(&["run", spec_b.to_str().unwrap(), "--quiet", "--out", out_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("were written by another spec file")
            && err.contains(&spec_a.canonicalize().unwrap().display().to_string()),
        "{err}"
    );
    assert!(err.contains("command:prog: ./agent.sh") && err.contains("--trust"), "{err}");
    assert!(markers(&b).is_empty(), "nothing ran");
    run_ok(&["run", spec_b.to_str().unwrap(), "--quiet", "--out", out_s, "--trust"]);
    assert_eq!(markers(&b).len(), 1, "the job left to run ran");
    // The spec file that wrote a folder resumes it without a word.
    let other = tmp.path().join("other");
    run_ok(&["run", spec_a.to_str().unwrap(), "--quiet", "--out", other.to_str().unwrap(), "--only", &one]);
    run_ok(&["run", spec_a.to_str().unwrap(), "--quiet", "--out", other.to_str().unwrap()]);
    assert_eq!(read_csv(&other.join("results.csv")).1.len(), 2);
}

#[test]
fn a_relative_program_path_is_the_spec_folders_also_for_reproduce_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("specs");
    spec(&dir);
    agent(&dir, "");
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let o = sweep().current_dir(tmp.path()).args(["run", "specs/c.toml", "--quiet", "--out", "out"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp.path().join("out");
    let job = first_job(&out);
    let args = ["reproduce", out.to_str().unwrap(), "--job", &job, "--trust"];
    let o = sweep().current_dir(&elsewhere).args(args).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("reproduced"), "{}", stdout(&o));
    assert!(!elsewhere.join(format!("ran-{job}")).exists() && dir.join(format!("ran-{job}")).exists());
}
