//! The tables of `summary`, `compare` and `importance` in their three printed forms
//! (`--format text|csv|json`, `--csv`) on a real run: the JSON holds the CSV's numbers to
//! the bit; and the executor hands its end-of-run summary back to its caller.

use std::path::Path;

use crate::common::*;
use serde_json::Value;

/// Runs `sweep` with `args`, asserting success; its standard output.
fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "sweep {}: {}", args.join(" "), stderr(&o));
    stdout(&o)
}

/// Checks that `json` (a `--format json` table) and `csv` (the same table as `--csv`)
/// hold the same columns and cells: text equal, numbers equal to the bit, null where the
/// CSV cell is empty.
fn same_table(json: &str, csv: &str) {
    let table: Value = serde_json::from_str(json).expect("JSON");
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let names: Vec<&str> = table["columns"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, header);
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), records.len());
    assert!(!rows.is_empty());
    let mut numbers = 0;
    for (row, record) in rows.iter().zip(&records) {
        let row = row.as_array().unwrap();
        assert_eq!(row.len(), record.len());
        for (k, (cell, text)) in row.iter().zip(record.iter()).enumerate() {
            match cell {
                Value::Null => assert_eq!(text, "", "column {}", header[k]),
                Value::String(s) => assert_eq!(s, text, "column {}", header[k]),
                Value::Number(n) => {
                    let csv_value: f64 = text.parse().unwrap_or_else(|_| panic!("{}: {text:?}", header[k]));
                    assert_eq!(
                        n.as_f64().unwrap().to_bits(),
                        csv_value.to_bits(),
                        "column {}: {n} vs {text}",
                        header[k]
                    );
                    numbers += 1;
                }
                other => panic!("column {}: unexpected {other}", header[k]),
            }
        }
    }
    assert!(numbers > 0, "no numbers compared");
    let types: Vec<&str> = table["columns"].as_array().unwrap().iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert!(types.iter().all(|t| ["text", "integer", "number"].contains(t)), "{types:?}");
}

/// The three forms of one command: `--csv` is `--format csv`, the JSON holds the CSV's
/// cells, and the text ends with the notes that the JSON lists (the CSV has none).
fn check_forms(args: &[&str]) {
    let with = |extra: &[&str]| ok(&[args, extra].concat());
    let csv = with(&["--csv"]);
    assert_eq!(csv, with(&["--format", "csv"]), "{args:?}");
    let json = with(&["--format", "json"]);
    same_table(&json, &csv);
    let text = with(&[]);
    assert_eq!(text, with(&["--format", "text"]));
    let table: Value = serde_json::from_str(&json).unwrap();
    let notes: Vec<&str> = table["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(!notes.is_empty(), "{args:?}: no notes");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[lines.len() - notes.len()..], notes.as_slice(), "{args:?}");
    for note in notes {
        assert!(!csv.contains(note), "{args:?}: a note in the CSV");
    }
}

#[test]
fn summary_compare_and_importance_print_the_same_numbers_in_every_form() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    let dir = out.to_str().unwrap();
    check_forms(&["summary", dir]);
    check_forms(&["summary", dir, "--by", "solver", "--stat", "iqm"]);
    check_forms(&["compare", dir]);
    check_forms(&["compare", dir, "--by", "solver"]);
    check_forms(&["importance", dir, "--by", "iterations"]);
}

#[test]
fn summary_json_numbers_are_those_of_summary_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    let dir = out.to_str().unwrap();
    let json: Value = serde_json::from_str(&ok(&["summary", dir, "--format", "json"])).unwrap();
    let csv = ok(&["summary", dir, "--csv"]);
    same_table(&json.to_string(), &csv);
    // Parameters are numbers where they are declared numbers, as results.csv writes them.
    let columns = json["columns"].as_array().unwrap();
    let at = |name: &str| columns.iter().position(|c| c["name"] == name).unwrap();
    assert_eq!(columns[at("alpha")]["type"], "number");
    assert_eq!(columns[at("solver")]["type"], "text");
    assert_eq!(columns[at("n")]["type"], "integer");
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r[at("alpha")].is_f64()));
    assert!(rows.iter().all(|r| r[at("mean_regret")].as_f64().is_some_and(|x| x >= 0.0)));
}

#[test]
fn csv_and_another_format_together_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    for command in ["summary", "compare", "importance"] {
        let o = run(&[command, out.to_str().unwrap(), "--csv", "--format", "json"]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        let o = run(&[command, out.to_str().unwrap(), "--format", "html"]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
    }
}

/// Runs the smoke spec through the library, not quiet, keeping the notices.
fn run_kept(out: &Path, quiet: bool) -> (sweep::run::RunReport, Vec<String>) {
    use sweep::run::{Notices, RunOptions, StopToken};
    let (notices, kept) = Notices::kept();
    let opts = RunOptions {
        spec: experiment("smoke.toml"),
        threads: Some(1),
        out: Some(out.to_path_buf()),
        quiet,
        notices,
        ..RunOptions::default()
    };
    until_unlocked(out);
    let report = sweep::run::run(&opts, &StopToken::new()).unwrap();
    let kept = kept.lock().unwrap().clone();
    (report, kept)
}

#[test]
fn the_executor_returns_its_summary_and_the_command_line_prints_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("lib");
    let (report, notices) = run_kept(&out, false);
    // A first run says only what it built before the jobs (timed apart from them).
    assert!(
        notices.iter().all(|n| n.starts_with("shared tables: ")),
        "a first run says nothing else while it runs: {notices:?}"
    );
    let first = &report.summary[0];
    assert!(first.starts_with("smoke: 14 jobs run, 0 failed"), "{first}");
    // One best line per solver, seat and evaluation opponent that the results hold.
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut blocks: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| (r[col("solver")].clone(), r[col("seat")].clone(), r[col("eval_opponent")].clone()))
        .collect();
    blocks.sort();
    blocks.dedup();
    let best: Vec<&String> = report.summary.iter().filter(|l| l.trim_start().starts_with("best ")).collect();
    assert_eq!(best.len(), blocks.len(), "{:?}", report.summary);
    for (solver, seat, eval) in &blocks {
        let named = format!("best {solver} ({seat} vs {eval})");
        assert!(best.iter().any(|l| l.contains(&named)), "{named} missing from {best:?}");
    }
    // Again: everything is kept, and the resume line is a notice, not part of the summary.
    let (again, notices) = run_kept(&out, false);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].starts_with("resuming in "), "{notices:?}");
    assert!(again.summary[0].contains("0 jobs run (14 kept from before)"), "{}", again.summary[0]);
    assert_eq!(again.summary[1..], report.summary[1..]);
    // Quiet: no summary, no notices.
    let (quiet, notices) = run_kept(&out, true);
    assert!(quiet.summary.is_empty() && notices.is_empty());
    // The command line prints the same lines (but the wall time) on stderr.
    let o = run(&["run", "experiments/smoke.toml", "--out", out.to_str().unwrap()]);
    assert!(o.status.success());
    let err = stderr(&o);
    for line in &again.summary[1..] {
        assert!(err.lines().any(|l| l == line), "{line} not printed: {err}");
    }
}
