//! `sweep report`: the page's structure, its numbers against `summary --csv` on the same
//! directory, the embedded results file, two directories side by side, and the size of a
//! large sweep's page.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{read_csv, run, run_smoke, stderr, stdout, write_spec};

/// The rows of every table in `html` that stand for a configuration: `data-config` →
/// (column name → the cell's full number, or its text).
fn table_rows(html: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for table in html.split("<table").skip(1) {
        let table = &table[..table.find("</table>").expect("a closed table")];
        let header: Vec<String> =
            table.split("<th data-col=\"").skip(1).map(|h| h[..h.find('"').unwrap()].replace("&amp;", "&")).collect();
        for row in table.split("<tr data-config=\"").skip(1) {
            let row = &row[..row.find("</tr>").expect("a closed row")];
            let key = row[..row.find('"').unwrap()].to_string();
            let cells: Vec<String> = row
                .split("<td")
                .skip(1)
                .map(|c| match c.strip_prefix(" class=\"n\" data-v=\"") {
                    Some(v) => v[..v.find('"').unwrap()].to_string(),
                    None => c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()].to_string(),
                })
                .collect();
            assert_eq!(cells.len(), header.len(), "a cell per column in row {key}");
            let prior = out.insert(key.clone(), header.iter().cloned().zip(cells).collect());
            assert!(prior.is_none(), "configuration {key} appears once");
        }
    }
    out
}

/// The text of the section with this id.
fn section<'h>(html: &'h str, id: &str) -> &'h str {
    let start = html.find(&format!("<section id=\"{id}\"")).unwrap_or_else(|| panic!("no section {id}"));
    let len = html[start..].find("</section>").unwrap();
    &html[start..start + len]
}

fn report(dir: &Path) -> String {
    let o = run(&["report", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(dir.join("report.html")).unwrap()
}

fn assert_offline(html: &str) {
    for bad in ["http://", "https://", "src=\"//", "href=\"//", "<link", "@import", "url("] {
        assert!(!html.contains(bad), "the page refers to something outside it: {bad}");
    }
}

#[test]
fn smoke_page_has_its_sections_and_summarys_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("smoke");
    run_smoke(&dir, &[]);
    let html = report(&dir);
    assert_offline(&html);
    for id in ["leaderboard", "curves", "profiles", "paired", "data"] {
        section(&html, id);
    }
    assert!(html.contains("smoke") && html.contains("master seed 7"), "the spec's name and seed open the page");
    // summary --stat iqm --csv: the same configurations, the same numbers in full.
    let o = run(&["summary", dir.to_str().unwrap(), "--csv", "--stat", "iqm"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = tmp.path().join("summary.csv");
    std::fs::write(&csv, stdout(&o)).unwrap();
    let (header, rows) = read_csv(&csv);
    let page = table_rows(section(&html, "leaderboard"));
    assert_eq!(page.len(), rows.len(), "a row per configuration");
    let keys = header.iter().position(|h| h == "n").unwrap();
    for r in &rows {
        let key = r[..keys].join("|");
        let cells = page.get(&key).unwrap_or_else(|| panic!("no row for {key}"));
        for col in ["n", "failed", "mean_regret", "sd_regret", "ci95_low", "ci95_high", "iqm_regret", "boot_low"] {
            let at = header.iter().position(|h| h == col).unwrap();
            assert_eq!(cells[col], r[at], "{key}: {col}");
        }
        for col in ["boot_high", "p_win", "p_draw", "p_loss", "vs_best", "sampled"] {
            let at = header.iter().position(|h| h == col).unwrap();
            assert_eq!(cells[col], r[at], "{key}: {col}");
        }
    }
}

/// Decodes standard base64.
fn unbase64(s: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for chunk in s.as_bytes().chunks(4) {
        let digits: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').map(value).collect();
        let n = digits.iter().enumerate().fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend((0..digits.len() - 1).map(|i| (n >> (16 - 8 * i)) as u8));
    }
    out
}

#[test]
fn page_embeds_the_results_file_and_writes_where_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("smoke");
    run_smoke(&dir, &[]);
    let out = tmp.path().join("page.html");
    let o = run(&["report", dir.join("results.csv").to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dir.join("report.html").exists(), "--out is where the page goes");
    let html = std::fs::read_to_string(&out).unwrap();
    let start = html.find("id=\"csv\"").unwrap();
    let body = &html[start + html[start..].find('>').unwrap() + 1..];
    let base64 = &body[..body.find("</script>").unwrap()];
    let inflated = miniz_oxide::inflate::decompress_to_vec_zlib(&unbase64(base64.trim())).unwrap();
    // Column by column: cells joined by byte 0, columns by byte 1; rows are rebuilt by
    // joining each row's cells with commas.
    assert!(html[start..].starts_with("id=\"csv\" data-name=\"results.csv\" data-layout=\"columns\" data-end=\"1\""));
    let columns: Vec<Vec<&[u8]>> = inflated.split(|&b| b == 1).map(|c| c.split(|&b| b == 0).collect()).collect();
    let mut rebuilt = Vec::new();
    for row in 0..columns[0].len() {
        let cells: Vec<&[u8]> = columns.iter().map(|c| c[row]).collect();
        rebuilt.extend(cells.join(&b","[..]));
        rebuilt.push(b'\n');
    }
    assert_eq!(rebuilt, std::fs::read(dir.join("results.csv")).unwrap());
}

#[test]
fn two_directories_side_by_side() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("smoke");
    run_smoke(&a, &[]);
    // The smoke spec's first Q-learning entry with one step size in common: its jobs
    // have the same keys, so the same numbers.
    let spec = write_spec(
        tmp.path(),
        "other.toml",
        "name = \"other\"\nseed = 7\nreplicates = 2\n[evaluation]\nopponents = [\"random\", \"minimax\"]\ngames = \
         200\ncheckpoints = 4\n[[solver]]\nkind = \"q-learning\"\nepisodes = 2000\nalpha = [0.5, 0.75]\ngamma = \
         0.99\nepsilon_decay = 0.999\n",
    );
    let b = tmp.path().join("other");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["report", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(a.join("report-vs-other.html")).unwrap();
    assert_offline(&html);
    let shared = table_rows(section(&html, "shared"));
    assert_eq!(shared.len(), 2, "alpha = 0.5 against two opponents");
    for cells in shared.values() {
        assert_eq!(cells["mean_regret_a"], cells["mean_regret_b"], "the same jobs");
        assert_eq!(cells["difference"], "0");
    }
    assert_eq!(table_rows(section(&html, "only-b")).len(), 2, "alpha = 0.75 against two opponents");
    // The smoke spec has 16 configurations: 2 shared.
    assert_eq!(table_rows(section(&html, "only-a")).len(), 14);
}

#[test]
fn a_missing_directory_is_bad_input() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&["report", tmp.path().join("nothing").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_large_sweep_page_stays_small() {
    // 100,000 rows: 20,000 configurations (a 100 x 200 grid) of 5 replicates, written
    // directly as a results file of today's columns.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("big");
    std::fs::create_dir(&dir).unwrap();
    let o = run(&["columns", "--json"]);
    let columns: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let header: Vec<String> =
        columns["results"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect();
    let mut text = header.join(",") + "\n";
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut state = 1u64;
    for a in 0..100 {
        for g in 0..200 {
            for r in 0..5u64 {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let regret = (state >> 11) as f64 / (1u64 << 53) as f64 * 0.1;
                let mut row = vec![String::new(); header.len()];
                for (name, value) in [
                    ("job_id", format!("{:012x}", (a * 1000 + g) * 10 + r)),
                    ("solver", "q-learning".into()),
                    ("replicate", r.to_string()),
                    ("seed", r.to_string()),
                    ("seat", "x".into()),
                    ("opponent", "random".into()),
                    ("episodes", "1000".into()),
                    ("alpha", format!("{}", 0.01 * (a + 1) as f64)),
                    ("gamma", format!("{}", 0.9 + 0.0005 * g as f64)),
                    ("eval_opponent", "random".into()),
                    ("value", format!("{}", 0.99 - regret)),
                    ("optimal_value", "0.99".into()),
                    ("regret", format!("{regret}")),
                    ("p_win", "0.9".into()),
                    ("p_draw", "0.05".into()),
                    ("p_loss", "0.05".into()),
                    ("status", "ok".into()),
                    ("train_ms", "1.5".into()),
                    ("eval_ms", "0.5".into()),
                    ("label", "q-learning".into()),
                    ("game", "3x3k3".into()),
                    ("evaluation", "exact".into()),
                    ("split", "tune".into()),
                ] {
                    row[at(name)] = value;
                }
                text.push_str(&(row.join(",") + "\n"));
            }
        }
    }
    std::fs::write(dir.join("results.csv"), text).unwrap();
    // Written here, with no manifest: read unverified, as the flag says.
    let o = run(&["report", dir.to_str().unwrap(), "--unverified"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("unverified"), "{}", stderr(&o));
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("no manifest.json: the results file alone, unverified"), "the page says so too");
    assert!(html.len() < 5_000_000, "{} bytes", html.len());
    let rows = table_rows(section(&html, "leaderboard"));
    assert!(rows.len() < 100, "the leaderboard shows the best, then one line for the others");
    assert!(section(&html, "leaderboard").contains("others: "));
}

/// A five-learner study written with `kind` as a list, tuned with `epsilon_min_at` and
/// tested on fresh seeds: the page answers "which learner?" with the verdicts of `compare
/// --by solver`, every drawn interval agrees with its verdict, and labels show what the spec
/// set (epsilon_min_at), never the derived decay.
#[test]
fn a_test_page_answers_which_learner_as_compare_by_solver_does() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        "five.toml",
        r#"
name = "five"
seed = 11
replicates = 3

[test]
replicates = 8

[[solver]]
kind = ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"]
seat = "o"
opponent = "random"
episodes = 3000
alpha = [0.1, 0.5]
epsilon = 1.0
epsilon_min = 0.02
epsilon_min_at = 0.5
"#,
    );
    let out = tmp.path().join("five");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["compare", out.to_str().unwrap(), "--by", "solver", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let mut verdicts: BTreeMap<String, (String, f64, f64)> = BTreeMap::new();
    for l in lines.filter(|l| l.starts_with(|c: char| c.is_ascii_lowercase()) && l.contains(",o,random,")) {
        let r: Vec<&str> = l.split(',').collect();
        let num = |name: &str| r[col(name)].parse::<f64>().unwrap_or(f64::NAN);
        let verdict = if r[col("verdict")] == "baseline" { "best" } else { r[col("verdict")] };
        verdicts.insert(r[col("solver")].to_string(), (verdict.to_string(), num("ci_low"), num("ci_high")));
    }
    assert_eq!(verdicts.len(), 5, "{text}");
    for (solver, (verdict, low, high)) in &verdicts {
        // An interval clear of zero always carries better or worse.
        let clear = *low > 0.0 || *high < 0.0;
        assert_eq!(clear, verdict == "worse" || verdict == "better", "{solver}: {verdict} [{low}, {high}]");
    }
    // The page: its answer and its leaderboard say what compare says.
    let html = report(&out);
    let answer = section(&html, "answer");
    let best = verdicts.iter().find(|(_, v)| v.0 == "best").unwrap().0;
    assert!(answer.contains(&format!("On 3x3k3, o vs random: {best} is best")), "{answer}");
    let rows = table_rows(section(&html, "leaderboard"));
    assert_eq!(rows.len(), 5, "one chosen configuration per learner");
    for row in rows.values() {
        let (verdict, low, high) = &verdicts[&row["solver"]];
        assert_eq!(&row["vs_best"], verdict, "{row:?}");
        for (cell, want) in [("diff_low", low), ("diff_high", high)] {
            match row[cell].parse::<f64>() {
                Ok(x) => assert!((x - want).abs() <= 1e-12, "{row:?}"),
                Err(_) => assert!(want.is_nan(), "{row:?}"),
            }
        }
    }
    // Labels speak the spec: epsilon_min_at, never the decay derived from it.
    assert!(!html.contains("epsilon_decay="), "a derived decay in a label");
    let o = run(&["summary", out.to_str().unwrap()]);
    let summary = stdout(&o);
    assert!(!summary.lines().next().unwrap().contains("epsilon_decay"), "{summary}");
    assert!(summary.contains(&format!("On 3x3k3, o vs random: {best} is best")), "{summary}");
}

#[test]
fn every_panel_with_curves_is_drawn() {
    // Two seats against four opponents: eight panels of learning curves, more than the six
    // charts a section draws of other kinds; "x against random" comes last in name order.
    let tmp = tempfile::tempdir().unwrap();
    let text = "name = \"panels\"\nseed = 3\nreplicates = 1\n[evaluation]\nopponents = [\"random\", \"minimax\", \
                \"minimax-uniform\", \"best-response\"]\ncheckpoints = 2\n[[solver]]\nkind = \"q-learning\"\n\
                seat = [\"x\", \"o\"]\nepisodes = 200\n";
    let spec = write_spec(tmp.path(), "panels.toml", text);
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = report(&out);
    let curves = section(&html, "curves");
    for seat in ["x", "o"] {
        for opponent in ["random", "minimax", "minimax-uniform", "best-response"] {
            let title = format!("Regret while learning: {seat} against {opponent} on 3x3k3");
            assert!(curves.contains(&title), "{title}");
        }
    }
}
