//! `compare`, `importance` and `summary --stat` through the command line, on the smoke
//! results and on the first version's results directory (whose newer columns are empty).

use crate::common;
use crate::common::*;

fn fixture() -> std::path::PathBuf {
    common::root().join("tests/data/results-v1")
}

#[test]
fn compare_pairs_configurations_against_the_best() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    let o = run(&["compare", out.to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let header = text.lines().next().unwrap();
    for col in ["label", "difference", "ci_low", "p_wilcoxon", "p_holm", "p_improve", "verdict"] {
        assert!(header.contains(col), "{header}");
    }
    assert!(text.lines().any(|l| l.starts_with("mcts,x,random,3x3k3,mcts,iterations=") && l.contains(",baseline,")));
    let o = run(&["compare", out.to_str().unwrap(), "--metric", "regret_auc", "--baseline", "alpha=0.25"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("baseline"), "{}", stdout(&o));
    let o = run(&["compare", out.to_str().unwrap(), "--metric", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_first_versions_results_are_compared_with_empty_new_columns() {
    let o = run(&["compare", fixture().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["compare", fixture().to_str().unwrap(), "--metric", "regret_auc"]);
    assert_eq!(o.status.code(), Some(2), "no learning-curve metrics in version 1: {}", stdout(&o));
    let o = run(&["summary", fixture().to_str().unwrap(), "--stat", "iqm"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let header: Vec<String> = stdout(&o).lines().next().unwrap().split_whitespace().map(String::from).collect();
    let wanted = ["iqm_regret", "boot_low", "boot_high", "vs_best", "mcb_low", "mcb_high"];
    assert!(header.windows(wanted.len()).any(|w| w == wanted), "{header:?}");
}

#[test]
fn importance_refuses_a_grid_that_is_not_full() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    // Self-play sits in the q-learning block with one alpha only: opponent × alpha lacks one.
    let o = run(&["importance", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("opponent × alpha is not full (3 of 4 combinations have results)"), "{}", stderr(&o));
    let o = run(&["importance", out.to_str().unwrap(), "--by", "iterations", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("mcts,x,random,3x3k3,iterations,1\n"), "{}", stdout(&o));
    let o = run(&["importance", fixture().to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "the first version's results: {}", stderr(&o));
}

/// Five learners, two step sizes each, four replicates, against random.
const FIVE_LEARNERS: &str = r#"
name = "five"
seed = 11
replicates = 4

[evaluation]
opponents = ["random"]
checkpoints = 2

[[solver]]
kind = "q-learning"
episodes = 600
alpha = [0.2, 0.6]
epsilon_decay = 0.995

[[solver]]
kind = "sarsa"
episodes = 600
alpha = [0.2, 0.6]
epsilon_decay = 0.995

[[solver]]
kind = "expected-sarsa"
episodes = 600
alpha = [0.2, 0.6]
epsilon_decay = 0.995

[[solver]]
kind = "double-q-learning"
episodes = 600
alpha = [0.2, 0.6]
epsilon_decay = 0.995

[[solver]]
kind = "monte-carlo"
episodes = 600
alpha = [0.2, 0.6]
epsilon_decay = 0.995
"#;

/// Relative agreement to 12 significant digits.
fn same12(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn compare_by_solver_pairs_each_learner_with_the_best_learner() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "five.toml", FIVE_LEARNERS);
    let out = tmp.path().join("five");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    // The independent computation, from the rows: regret by (solver, alpha) and replicate.
    let (h, rows) = read_csv(&out.join("results.csv"));
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    let mut runs: std::collections::BTreeMap<(String, String), std::collections::BTreeMap<u32, f64>> =
        Default::default();
    for r in &rows {
        let key = (r[at("solver")].clone(), r[at("alpha")].clone());
        runs.entry(key).or_default().insert(r[at("replicate")].parse().unwrap(), r[at("regret")].parse().unwrap());
    }
    let mean = |v: &std::collections::BTreeMap<u32, f64>| v.values().sum::<f64>() / v.len() as f64;
    let mut best: std::collections::BTreeMap<String, (String, f64)> = Default::default();
    for ((solver, alpha), v) in &runs {
        let m = mean(v);
        // Ties go to the first in spec order (alpha 0.2 before 0.6).
        if best.get(solver).is_none_or(|(_, b)| m < *b) {
            best.insert(solver.clone(), (alpha.clone(), m));
        }
    }
    assert_eq!(best.len(), 5);
    let order = ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"];
    let winner = order.iter().copied().fold(None::<&str>, |w, s| match w {
        Some(w) if best[w].1 <= best[s].1 => Some(w),
        _ => Some(s),
    });
    let winner = winner.unwrap();
    let winner_runs = &runs[&(winner.to_string(), best[winner].0.clone())];

    let o = run(&["compare", out.to_str().unwrap(), "--by", "solver", "--csv", "--significance", "wilcoxon"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let table: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(table.len(), 5, "{text}");
    for r in &table {
        let solver = r[col("solver")];
        let (alpha, m) = &best[solver];
        assert_eq!(r[col("configuration")], format!("alpha={alpha}"), "{text}");
        assert_eq!(r[col("configurations")], "2");
        let mine = &runs[&(solver.to_string(), alpha.clone())];
        let d: Vec<f64> = mine.iter().map(|(k, x)| x - winner_runs[k]).collect();
        let dm = d.iter().sum::<f64>() / d.len() as f64;
        let (mean_cell, diff_cell): (f64, f64) =
            (r[col("mean")].parse().unwrap(), r[col("difference")].parse().unwrap());
        assert!(same12(mean_cell, *m), "{solver}: {mean_cell} vs {m}");
        assert!(same12(diff_cell, dm), "{solver}: {diff_cell} vs {dm}");
        if solver == winner {
            assert_eq!(r[col("verdict")], "baseline");
            continue;
        }
        // A rank test's verdict comes with no t interval.
        assert_eq!((r[col("ci_low")], r[col("ci_high")]), ("", ""), "{text}");
        // 4 pairs, Wilcoxon and Holm over 4 comparisons: 4 · 2/16 = 0.5 can never be below 0.05.
        assert_eq!(r[col("verdict")], "cannot-reject", "{text}");
        assert_eq!(r[col("p_floor")], "0.5");
    }
    let o = run(&["compare", out.to_str().unwrap(), "--by", "solver", "--significance", "wilcoxon"]);
    let text = stdout(&o);
    assert!(text.contains("each solver is represented by its best configuration"), "{text}");
    assert!(
        text.contains("x/random/3x3k3: too few replicates: n = 4 can never reject with wilcoxon + Holm over 4"),
        "{text}"
    );
    let o = run(&["compare", out.to_str().unwrap(), "--by", "solver", "--significance", "t", "--alpha", "0.1"]);
    assert!(stdout(&o).contains("verdicts by t at 0.1"), "{}", stdout(&o));
    let o = run(&["compare", out.to_str().unwrap(), "--by", "solver", "--baseline", "sarsa", "--csv"]);
    assert!(stdout(&o).lines().any(|l| l.starts_with("sarsa,") && l.contains(",baseline,")), "{}", stdout(&o));
    for bad in [["--alpha", "1.5"], ["--significance", "bayes"]] {
        let o = run(&["compare", out.to_str().unwrap(), bad[0], bad[1]]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn never_solved_runs_are_counted_apart_from_solved_at() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("smoke");
    run_smoke(&out, &[]);
    // From the rows: per (evaluation opponent, label, alpha), the solved_at of solved runs
    // and the number of runs never solved.
    let (h, rows) = read_csv(&out.join("results.csv"));
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    type Key = (String, String, String, String);
    let mut want: std::collections::BTreeMap<Key, (Vec<f64>, usize)> = Default::default();
    for r in rows.iter().filter(|r| !r[at("regret_auc")].is_empty()) {
        let key =
            (r[at("seat")].clone(), r[at("eval_opponent")].clone(), r[at("label")].clone(), r[at("alpha")].clone());
        let entry = want.entry(key).or_default();
        match r[at("solved_at")].parse::<f64>() {
            Ok(x) => entry.0.push(x),
            Err(_) => entry.1 += 1,
        }
    }
    assert!(want.values().any(|(_, unsolved)| *unsolved > 0) && want.values().any(|(s, _)| !s.is_empty()));
    let o = run(&["compare", out.to_str().unwrap(), "--metric", "solved_at", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let mut seen = 0;
    for l in lines {
        let r: Vec<&str> = l.split(',').collect();
        let alpha = r[col("configuration")].split(' ').find_map(|p| p.strip_prefix("alpha=")).unwrap_or("");
        let key = (r[col("seat")].into(), r[col("eval_opponent")].into(), r[col("label")].into(), alpha.into());
        let (solved, unsolved) = &want[&key];
        assert_eq!(r[col("unsolved")], unsolved.to_string(), "{l}");
        assert_eq!(r[col("n")], solved.len().to_string(), "{l}");
        let mean = solved.iter().sum::<f64>() / solved.len() as f64;
        assert_eq!(r[col("mean")].parse::<f64>().unwrap(), mean, "{l}");
        seen += 1;
    }
    assert!(seen > 0);
    let o = run(&["compare", out.to_str().unwrap(), "--metric", "solved_at"]);
    assert!(stdout(&o).contains("never reached regret 0: no solved_at, counted in `unsolved`"), "{}", stdout(&o));
}

#[test]
fn summary_counts_sampled_rows_and_writes_csv_in_full() {
    let tmp = tempfile::tempdir().unwrap();
    // An MCTS agent whose exact evaluation would search more than 100 positions is
    // scored on sampled games; the minimax-uniform grid point next to it is always exact.
    let spec = write_spec(
        tmp.path(),
        "mixed.toml",
        r#"
name = "mixed"
seed = 5
replicates = 3

[evaluation]
opponents = ["random"]
games = 40
exact_searches = 100

[[solver]]
kind = "mcts"
iterations = [10, 30]

[[solver]]
kind = "value-iteration"
"#,
    );
    let out = tmp.path().join("mixed");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (h, rows) = read_csv(&out.join("results.csv"));
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    type PerReplicate = std::collections::BTreeMap<u32, (f64, usize)>;
    let mut want: std::collections::BTreeMap<String, (usize, Vec<f64>, PerReplicate)> = Default::default();
    for r in &rows {
        let e = want.entry(r[at("solver")].clone()).or_default();
        e.0 += usize::from(r[at("evaluation")] == "sampled");
        let x: f64 = r[at("regret")].parse().unwrap();
        e.1.push(x);
        let per = e.2.entry(r[at("replicate")].parse().unwrap()).or_default();
        *per = (per.0 + x, per.1 + 1);
    }
    assert!(want["mcts"].0 > 0, "some MCTS rows are sampled");
    let o = run(&["summary", out.to_str().unwrap(), "--by", "solver", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    for l in lines {
        let r: Vec<&str> = l.split(',').collect();
        let (sampled, regrets, per_replicate) = &want[r[col("solver")]];
        assert_eq!(r[col("sampled")], sampled.to_string(), "{l}");
        // In full, to the last bit: the mean of the rows in row order; or, where a solver
        // pools its two MCTS configurations, the mean of the replicate means (their runs
        // share seeds), n counting replicates.
        let pooled = per_replicate.values().any(|&(_, k)| k > 1);
        assert_eq!(pooled, r[col("solver")] == "mcts", "{l}");
        let (n, mean) = if pooled {
            let means: Vec<f64> = per_replicate.values().map(|&(sum, k)| sum / k as f64).collect();
            (means.len(), means.iter().sum::<f64>() / means.len() as f64)
        } else {
            (regrets.len(), regrets.iter().sum::<f64>() / regrets.len() as f64)
        };
        assert_eq!(r[col("n")], n.to_string(), "{l}");
        assert_eq!(r[col("mean_regret")].parse::<f64>().unwrap(), mean, "{l}");
    }
    let o = run(&["summary", out.to_str().unwrap(), "--by", "solver"]);
    assert!(stdout(&o).contains("evaluated by sampled games (counted in `sampled`"), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 group pools several configurations' runs on each replicate"), "{}", stdout(&o));
    // vs_best: 3 replicates can never reject with Wilcoxon; the footer says which test judged.
    let o = run(&["summary", out.to_str().unwrap(), "--significance", "wilcoxon"]);
    let text = stdout(&o);
    assert!(text.contains("cannot-reject") && text.contains("too few replicates: n = 3"), "{text}");
    // By default, multiple comparisons with the best: no floor, and its line under the table.
    let o = run(&["summary", out.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(
        !text.contains("cannot-reject") && text.contains("could be the best (Hsu's MCB, 95% simultaneous)"),
        "{text}"
    );
    let o = run(&["summary", out.to_str().unwrap(), "--significance", "t", "--alpha", "0.01"]);
    assert!(stdout(&o).contains("the paired t test (Holm-adjusted, level 0.01)"), "{}", stdout(&o));
}

#[test]
fn compare_by_solver_can_pick_each_learners_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "five.toml", FIVE_LEARNERS);
    let out = tmp.path().join("five");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (h, rows) = read_csv(&out.join("results.csv"));
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    let regrets: Vec<f64> = rows
        .iter()
        .filter(|r| r[at("solver")] == "sarsa" && r[at("alpha")] == "0.6")
        .map(|r| r[at("regret")].parse().unwrap())
        .collect();
    let dir = out.to_str().unwrap();
    for pick in ["sarsa:alpha=0.6", "sarsa:alpha=0.6,gamma=0.99"] {
        let o = run(&["compare", dir, "--by", "solver", "--pick", pick, "--csv"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let row: Vec<String> =
            stdout(&o).lines().find(|l| l.starts_with("sarsa,")).unwrap().split(',').map(String::from).collect();
        assert_eq!(row[5], "alpha=0.6");
        let mean: f64 = row[7].parse().unwrap();
        assert!(same12(mean, regrets.iter().sum::<f64>() / regrets.len() as f64));
    }
    for bad in ["sarsa:alpha=0.9", "sarsa", "sarsa:colour=red"] {
        let o = run(&["compare", dir, "--by", "solver", "--pick", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains(&format!("--pick {bad}")), "{}", stderr(&o));
    }
    let o = run(&["compare", dir, "--pick", "sarsa:alpha=0.6"]);
    assert_eq!(o.status.code(), Some(2));
    // A group the results do not have is refused, with the nearest name; so is a block.
    let o = run(&["compare", dir, "--by", "solver", "--pick", "sarsaa:alpha=0.6"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("no group \"sarsaa\" (did you mean sarsa?)"), "{}", stderr(&o));
    let o = run(&["compare", dir, "--by", "solver", "--pick", "sarsa:game=4x4g4,alpha=0.6"]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("sarsa has no block with game=4x4g4"), "{}", stderr(&o));
    // A block column limits the pick to those blocks: here the only board, so the same row.
    let o = run(&["compare", dir, "--by", "solver", "--pick", "sarsa:game=3x3k3,alpha=0.6", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let row = stdout(&o).lines().find(|l| l.starts_with("sarsa,")).unwrap().to_string();
    assert!(row.contains(",alpha=0.6,"), "{row}");
}

#[test]
fn a_derived_decay_is_not_an_axis_of_importance() {
    // epsilon_min_at sets the schedule; the epsilon_decay that ran is derived from it and
    // the episodes, so it varies with them but is not a third axis of a 2 x 2 x 2 grid.
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        "derived.toml",
        r#"
name = "derived"
seed = 3
replicates = 2

[evaluation]
opponents = ["random"]

[[solver]]
kind = "q-learning"
episodes = [1000, 2000]
alpha = [0.1, 0.3]
epsilon_min = 0.05
epsilon_min_at = [0.5, 0.9]
"#,
    );
    let out = tmp.path().join("derived");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["importance", out.to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let terms: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').nth(4).unwrap()).collect();
    for wanted in ["episodes", "alpha", "epsilon_min_at", "episodes:alpha", "alpha:epsilon_min_at"] {
        assert!(terms.contains(&wanted), "{wanted} in {terms:?}");
    }
    assert!(!terms.iter().any(|t| t.contains("epsilon_decay")), "{terms:?}");
    // The report's importance section, which its header links to, is there.
    let o = run(&["report", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("id=\"importance\""), "no importance section");
}

#[test]
fn summary_and_report_show_an_mcts_jobs_time_per_move() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(
        tmp.path(),
        "moves.toml",
        r#"
name = "moves"
seed = 3
replicates = 2

[[solver]]
kind = "mcts"
seat = "x"
iterations = [20, 60]

[[solver]]
kind = "q-learning"
seat = "x"
opponent = "random"
episodes = 500
"#,
    );
    let out = tmp.path().join("moves");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (h, rows) = read_csv(&out.join("results.csv"));
    let at = |name: &str| h.iter().position(|c| c == name).unwrap();
    // Per MCTS configuration: its rows' evaluation time per position searched.
    let mut want: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    for r in &rows {
        if r[at("solver")] != "mcts" {
            assert_eq!(r[at("metrics")], "", "a learner's row keeps no search count");
            continue;
        }
        let searches: u64 = r[at("metrics")]
            .strip_prefix("{\"searches\":")
            .and_then(|s| s.strip_suffix('}'))
            .unwrap_or_else(|| panic!("an MCTS row's metrics hold its searches: {:?}", r[at("metrics")]))
            .parse()
            .unwrap();
        // One seat against one opponent, scored exactly: a search per position its policy
        // reaches, which the row counts as its states.
        assert_eq!(searches.to_string(), r[at("states")], "{r:?}");
        let ms: f64 = r[at("eval_ms")].parse().unwrap();
        want.entry(r[at("iterations")].clone()).or_default().push(ms / searches as f64);
    }
    assert_eq!(want.len(), 2);
    let o = run(&["summary", out.to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap_or_else(|| panic!("no {name}: {header:?}"));
    let mut seen = 0;
    for l in lines.filter(|l| !l.is_empty()) {
        let r: Vec<&str> = l.split(',').collect();
        if r[col("solver")] != "mcts" {
            assert_eq!(r[col("ms_per_move")], "", "{l}");
            continue;
        }
        let per_move = &want[r[col("iterations")]];
        let mean = per_move.iter().sum::<f64>() / per_move.len() as f64;
        let shown: f64 = r[col("ms_per_move")].parse().unwrap();
        assert!((shown - mean).abs() <= 1e-12 * mean.max(1e-9), "{l}: {shown} vs {mean}");
        assert!(shown > 0.0, "{l}");
        seen += 1;
    }
    assert_eq!(seen, 2, "{text}");
    let page = tmp.path().join("moves.html");
    let o = run(&["report", out.to_str().unwrap(), "--out", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<th") && html.contains("ms_per_move"), "the leaderboard shows the time per move");
}
