//! The tables of every command that prints one in each printed form (`--format
//! text|csv|json|markdown|latex|html`, `--csv`) on a real run: the JSON holds the CSV's
//! numbers to the bit, each form has every row; and the executor hands its end-of-run
//! summary back to its caller.

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
/// CSV cell is empty (but in the columns whose name has `wall`: plan's wall time reads the
/// host's load at the time, each run its own).
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
            if header[k].contains("wall") {
                continue;
            }
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
        let o = run(&[command, out.to_str().unwrap(), "--format", "yaml"]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
    }
}

/// The tables of one JSON form: the object itself, or a doc's table blocks.
fn tables(json: &Value) -> Vec<&Value> {
    match json.get("blocks") {
        Some(blocks) => blocks.as_array().unwrap().iter().filter_map(|b| b.get("table")).collect(),
        None => vec![json],
    }
}

/// One command's every form: `--format text` is the default output; the JSON's tables
/// are the CSV's, in order, cell for cell; Markdown, LaTeX and HTML have each table with
/// every row (Markdown: as many cells in each row as columns).
fn check_every_form(args: &[&str], calibration: &Path) {
    let with = |extra: &[&str]| {
        let args = [args, extra].concat();
        let o = sweep().env("SWEEP_CALIBRATION", calibration).args(&args).output().expect("sweep runs");
        assert!(o.status.success(), "sweep {}: {}", args.join(" "), stderr(&o));
        stdout(&o)
    };
    // The lines with a measured time (plan's calibration, solve's run time) or the host's
    // free memory (plan's memory budget, a share of what is available at that moment) aside.
    let timeless = |text: String| {
        text.lines()
            .filter(|l| !l.contains("calibration") && !l.starts_with("time: ") && !l.starts_with("memory budget: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(timeless(with(&[])), timeless(with(&["--format", "text"])), "{args:?}");
    let json: Value = serde_json::from_str(&with(&["--format", "json"])).expect("JSON");
    let tables = tables(&json);
    assert!(!tables.is_empty(), "{args:?}: no table");
    let csv = with(&["--format", "csv"]);
    let parts: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(parts.len(), tables.len(), "{args:?}: one CSV table per table");
    for (table, part) in tables.iter().zip(&parts) {
        same_table(&table.to_string(), part);
    }
    let rows: usize = tables.iter().map(|t| t["rows"].as_array().unwrap().len()).sum();
    let markdown = with(&["--format", "markdown"]);
    let table_lines: Vec<&str> = markdown.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(table_lines.len(), rows + 2 * tables.len(), "{args:?}: header, rule and rows of each table");
    for line in &table_lines {
        let cells = line.replace("\\|", "").matches(" | ").count() + 1;
        assert!(tables.iter().any(|t| t["columns"].as_array().unwrap().len() == cells), "{args:?}: {line}");
    }
    let latex = with(&["--format", "latex"]);
    assert_eq!(latex.matches("\\begin{tabular}").count(), tables.len(), "{args:?}");
    assert_eq!(latex.matches("\\midrule").count(), tables.len(), "{args:?}");
    let html = with(&["--format", "html"]);
    assert_eq!(html.matches("<table").count(), tables.len(), "{args:?}");
    assert_eq!(html.matches("<tr").count(), rows + tables.len(), "{args:?}");
}

#[test]
fn every_command_that_prints_a_table_prints_it_in_every_form() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    let dir = out.to_str().unwrap();
    // A fixed calibration: plan's estimates are then the same in every run.
    let calibration = tmp.path().join("calibration.json");
    let fixed = r#"{"q_per_s": 2e7, "shares": {"q-learning": 1.0}, "big_table": 60.0, "mcts_per_s": 1.2e7,
        "eval_s": 3.4e-6, "solve_s": 3.8e-4, "per_job_s": 5e-5, "shared_s_per_byte": 7e-9, "page_s": 2e-6,
        "free": 1.0, "others": 0.0, "source": "fixed"}"#;
    std::fs::write(&calibration, fixed).unwrap();
    for args in [
        vec!["summary", dir],
        vec!["compare", dir, "--by", "solver"],
        vec!["importance", dir, "--by", "iterations"],
        vec!["plan", "experiments/smoke.toml"],
        vec!["plan", "experiments/halving.toml"],
        vec!["solve", "--trace"],
        vec!["solve", "--game", "3x4g3", "--seat", "o"],
        vec!["columns"],
    ] {
        check_every_form(&args, &calibration);
    }
    // A fidelity table (a grid of learners with curves) and a game of two policies.
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let learner = |seat: &str| {
        rows.iter()
            .find(|r| r[col("seat")] == seat && r[col("solver")] == "q-learning")
            .map(|r| r[col("job_id")].clone())
    };
    let (x, o) = (learner("x").expect("an x job"), learner("o").expect("an o job"));
    let (px, po) = (tmp.path().join("x.csv"), tmp.path().join("o.csv"));
    for (job, file) in [(&x, &px), (&o, &po)] {
        ok(&["reproduce", dir, "--job", job, "--policy-out", file.to_str().unwrap()]);
    }
    check_every_form(&["evaluate", px.to_str().unwrap(), po.to_str().unwrap()], &calibration);
    if run(&["fidelity", dir]).status.success() {
        check_every_form(&["fidelity", dir], &calibration);
        assert_eq!(ok(&["fidelity", dir, "--csv"]), ok(&["fidelity", dir, "--format", "csv"]));
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
    // A block where every configuration ties says so instead of naming a "best".
    let best: Vec<&String> = report
        .summary
        .iter()
        .filter(|l| l.trim_start().starts_with("best ") || l.trim_start().starts_with("every "))
        .collect();
    assert_eq!(best.len(), blocks.len(), "{:?}", report.summary);
    for (solver, seat, eval) in &blocks {
        let named = format!("best {solver} ({seat} vs {eval})");
        let tied = format!("every {solver} ({seat} vs {eval}) ties");
        assert!(best.iter().any(|l| l.contains(&named) || l.contains(&tied)), "{named} missing from {best:?}");
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
