//! Result files evolve: a results directory written by the first version of the files
//! (`tests/data/results-v1/`, from `tests/data/results-v1.toml`) stays readable by
//! `summary` and `reproduce`, and `run` resumes and extends it; a directory of an older
//! version (today's header with its last columns cut, made here from the same files) is
//! read with the missing columns empty and upgraded, saying so and keeping the old files,
//! by resume, `--extend` and `merge`. A header that is not a prefix of today's is refused.

use crate::common;
use std::path::{Path, PathBuf};

use crate::common::{read_csv, run, stderr, stdout};
use sweep::report::{CURVE_COLUMNS, RESULT_COLUMNS};

const SPEC: &str = "tests/data/results-v1.toml";

/// Today's header of a file.
fn today(name: &str) -> Vec<String> {
    let columns: &[&str] = if name == "results.csv" { &RESULT_COLUMNS } else { &CURVE_COLUMNS };
    columns.iter().map(|c| c.to_string()).collect()
}

/// How many columns the fixture's file has, less `cut`.
fn fixture_width(name: &str, cut: usize) -> usize {
    read_csv(&fixture().join(name)).0.len() - cut
}

fn fixture() -> PathBuf {
    common::root().join("tests/data/results-v1")
}

/// A copy of the fixture directory in a new temporary directory.
fn copy_fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("results-v1");
    std::fs::create_dir(&dir).unwrap();
    for name in ["results.csv", "curves.csv", "manifest.json"] {
        std::fs::copy(fixture().join(name), dir.join(name)).unwrap();
    }
    (tmp, dir)
}

/// Cuts the last `cut` columns of a CSV file (header and rows): a file of an older version.
fn cut_columns(path: &Path, cut: usize) {
    let (header, rows) = read_csv(path);
    let keep = header.len() - cut;
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_path(path).unwrap();
    w.write_record(&header[..keep]).unwrap();
    for r in rows {
        w.write_record(&r[..keep]).unwrap();
    }
    w.flush().unwrap();
}

/// A copy of the fixture as an older version would have written it: results.csv without
/// `train_ms` and `eval_ms`, curves.csv without `alpha`.
fn older_fixture() -> (tempfile::TempDir, PathBuf) {
    let (tmp, dir) = copy_fixture();
    cut_columns(&dir.join("results.csv"), 2);
    cut_columns(&dir.join("curves.csv"), 1);
    (tmp, dir)
}

/// The rows of a file, each cut to its first `width` cells.
fn first_cells(path: &Path, width: usize) -> Vec<Vec<String>> {
    read_csv(path).1.into_iter().map(|r| r[..width].to_vec()).collect()
}

fn sweep_ok(args: &[&str]) -> std::process::Output {
    let o = run(args);
    assert!(o.status.success(), "sweep {args:?} failed: {}{}", stdout(&o), stderr(&o));
    o
}

fn summary_csv(dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let o = sweep_ok(&["summary", dir.to_str().unwrap(), "--csv"]);
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    (header, r.records().map(|x| x.unwrap().iter().map(String::from).collect()).collect())
}

fn first_job(dir: &Path) -> String {
    read_csv(&dir.join("results.csv")).1[0][0].clone()
}

#[test]
fn summary_and_reproduce_read_the_first_versions_directory() {
    let dir = fixture();
    let o = sweep_ok(&["summary", dir.to_str().unwrap()]);
    assert!(stdout(&o).contains("configurations from 12 rows"), "{}", stdout(&o));
    let o = sweep_ok(&["reproduce", dir.to_str().unwrap(), "--job", &first_job(&dir)]);
    assert!(stdout(&o).contains("reproduced: every"), "{}", stdout(&o));
}

#[test]
fn summary_and_reproduce_read_an_older_header_with_the_newer_columns_empty() {
    let (_tmp, older) = older_fixture();
    let (header, today) = summary_csv(&fixture());
    let (older_header, rows) = summary_csv(&older);
    assert_eq!(older_header, header);
    let train_ms = header.iter().position(|c| c == "train_ms").unwrap();
    for (old, new) in rows.iter().zip(&today) {
        assert_eq!(old[train_ms], "", "train_ms is not in the older file, so its mean is empty");
        assert_eq!(old[..train_ms], new[..train_ms], "every other figure is today's");
    }
    assert_eq!(rows.len(), today.len());
    let o = sweep_ok(&["reproduce", older.to_str().unwrap(), "--job", &first_job(&older), "--verbose"]);
    let out = stdout(&o);
    assert!(out.contains("(not recorded)"), "{out}");
    assert!(out.contains("every recorded column but the timings is identical") && out.contains("train_ms, eval_ms"));
}

#[test]
fn resume_keeps_the_first_versions_rows() {
    let (_tmp, dir) = copy_fixture();
    let o = sweep_ok(&["run", SPEC, "--out", dir.to_str().unwrap()]);
    assert!(stderr(&o).contains("6 jobs already done, 0 to run"), "{}", stderr(&o));
    for name in ["results.csv", "curves.csv"] {
        let width = fixture_width(name, 0);
        let upgraded = stderr(&o).contains(&format!("upgraded {}", dir.join(name).display()));
        assert_eq!(upgraded, width < today(name).len(), "only an older file is upgraded: {}", stderr(&o));
        assert_eq!(read_csv(&dir.join(name)).0, today(name));
        assert_eq!(first_cells(&dir.join(name), width), first_cells(&fixture().join(name), width), "{name}");
    }
}

/// A spec with a third replicate, for `--extend`.
fn three_replicates(tmp: &Path) -> PathBuf {
    let text = std::fs::read_to_string(common::root().join(SPEC)).unwrap();
    common::write_spec(tmp, "results-v1.toml", &text.replace("replicates = 2", "replicates = 3"))
}

#[test]
fn extend_adds_to_the_first_versions_directory() {
    let (tmp, dir) = copy_fixture();
    let spec = three_replicates(tmp.path());
    sweep_ok(&["run", spec.to_str().unwrap(), "--extend", "--quiet", "--out", dir.to_str().unwrap()]);
    let rows = read_csv(&dir.join("results.csv")).1;
    assert_eq!(rows.len(), 18);
    let width = fixture_width("results.csv", 0);
    let rows = first_cells(&dir.join("results.csv"), width);
    assert!(first_cells(&fixture().join("results.csv"), width).iter().all(|r| rows.contains(r)), "old rows kept");
}

#[test]
fn resume_upgrades_an_older_directory_saying_so_and_keeping_the_old_files() {
    let (_tmp, dir) = older_fixture();
    let old_results = std::fs::read(dir.join("results.csv")).unwrap();
    let old_curves = std::fs::read(dir.join("curves.csv")).unwrap();
    let o = sweep_ok(&["run", SPEC, "--out", dir.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(err.contains("6 jobs already done, 0 to run"), "{err}");
    let (results_width, curves_width) = (fixture_width("results.csv", 2), fixture_width("curves.csv", 1));
    let kept = dir.join(format!("results.csv.{results_width}-columns"));
    assert!(err.contains(&format!("upgraded {}", dir.join("results.csv").display())), "{err}");
    assert!(err.contains("added train_ms, eval_ms") && err.contains(&kept.display().to_string()), "{err}");
    assert!(err.contains("added alpha"), "{err}");
    assert_eq!(std::fs::read(&kept).unwrap(), old_results, "the old results.csv is kept as it was");
    assert_eq!(std::fs::read(dir.join(format!("curves.csv.{curves_width}-columns"))).unwrap(), old_curves);
    for (name, width) in [("results.csv", results_width), ("curves.csv", curves_width)] {
        let (header, rows) = read_csv(&dir.join(name));
        assert_eq!(header, today(name), "{name} has today's header");
        assert_eq!(first_cells(&dir.join(name), width), first_cells(&fixture().join(name), width), "{name}");
        assert!(rows.iter().all(|r| r[width..].iter().all(String::is_empty)), "{name}: new cells are empty");
    }
    // Upgraded once: a second resume has nothing to upgrade.
    let o = sweep_ok(&["run", SPEC, "--out", dir.to_str().unwrap()]);
    assert!(!stderr(&o).contains("upgraded"), "{}", stderr(&o));
}

#[test]
fn extend_upgrades_an_older_directory() {
    let (tmp, dir) = older_fixture();
    let spec = three_replicates(tmp.path());
    let o = sweep_ok(&["run", spec.to_str().unwrap(), "--extend", "--quiet", "--out", dir.to_str().unwrap()]);
    assert!(stderr(&o).contains("upgraded"), "{}", stderr(&o));
    let (header, rows) = read_csv(&dir.join("results.csv"));
    assert_eq!(header, today("results.csv"));
    assert_eq!(rows.len(), 18);
    let train_ms = header.iter().position(|c| c == "train_ms").unwrap();
    assert_eq!(rows.iter().filter(|r| r[train_ms].is_empty()).count(), 12, "old rows: no timing; new rows: timed");
    let (results_width, curves_width) = (fixture_width("results.csv", 2), fixture_width("curves.csv", 1));
    assert!(dir.join(format!("results.csv.{results_width}-columns")).exists());
    assert!(dir.join(format!("curves.csv.{curves_width}-columns")).exists());
}

#[test]
fn merge_pads_the_rows_of_an_older_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("split");
    for k in 0..2 {
        let shard = format!("{k}/2");
        sweep_ok(&["run", SPEC, "--quiet", "--out", out.to_str().unwrap(), "--shard", &shard]);
    }
    let older = out.join("shards/0-of-2");
    // As the first version without its timings: the columns after them go too, and its
    // manifest records no hashes of the files.
    cut_columns(&older.join("results.csv"), RESULT_COLUMNS.len() - fixture_width("results.csv", 2));
    cut_columns(&older.join("curves.csv"), CURVE_COLUMNS.len() - fixture_width("curves.csv", 1));
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(older.join("manifest.json")).unwrap()).unwrap();
    manifest.as_object_mut().unwrap().remove("written");
    std::fs::write(older.join("manifest.json"), manifest.to_string()).unwrap();
    let (results_width, curves_width) =
        (read_csv(&older.join("results.csv")).0.len(), read_csv(&older.join("curves.csv")).0.len());
    let before = common::snapshot(&out.join("shards"));
    let o = sweep_ok(&["merge", out.to_str().unwrap()]);
    let lacks =
        format!("{} (lacks {})", older.join("results.csv").display(), RESULT_COLUMNS[results_width..].join(", "));
    assert!(stderr(&o).contains(&lacks), "{}", stderr(&o));
    assert_eq!(common::snapshot(&out.join("shards")), before, "the shards are only read");
    for (name, width) in [("results.csv", results_width), ("curves.csv", curves_width)] {
        let width = width.min(fixture_width(name, 0));
        assert_eq!(read_csv(&out.join(name)).0, today(name), "{name} has today's header");
        assert_eq!(first_cells(&out.join(name), width), first_cells(&fixture().join(name), width), "{name}");
    }
}

#[test]
fn a_header_that_is_not_a_prefix_is_refused_by_readers_and_writers() {
    let (_tmp, dir) = copy_fixture();
    let path = dir.join("results.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("optimal_value", "best_value", 1)).unwrap();
    let before = common::snapshot(&dir);
    for args in [vec!["summary", dir.to_str().unwrap()], vec!["run", SPEC, "--out", dir.to_str().unwrap()]] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(&format!("{} does not have the expected columns", path.display())), "{err}");
        assert!(err.contains("column 23 is \"best_value\" where \"optimal_value\" belongs"), "{err}");
    }
    let mut after = common::snapshot(&dir);
    after.retain(|(p, _)| !p.ends_with(".lock"));
    assert_eq!(after, before, "nothing is written");
}
