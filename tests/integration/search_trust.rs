//! Searches that can be trusted, end to end: with budget-relative schedules successive
//! halving keeps a configuration the full grid cannot tell from its best (a paired t-test
//! over the same seeds, computed here); `plan` warns about per-episode schedules that the
//! first rung cuts short, one-rung searches and searches dearer than the grid, and shows
//! Hyperband's brackets; a search's run prints one line per rung and counts every rung.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::*;

/// Mean regret against random per configuration (`alpha`, `gamma`, `epsilon_min_at`) and
/// replicate, at `rung` (`None`: every row).
fn regrets(path: &Path, rung: Option<&str>) -> BTreeMap<(String, String, String), BTreeMap<u32, f64>> {
    let (header, rows) = read_csv(path);
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    let mut out: BTreeMap<_, BTreeMap<u32, f64>> = BTreeMap::new();
    for r in rows.iter().filter(|r| rung.is_none_or(|g| r[col("rung")] == g)) {
        let key = (r[col("alpha")].clone(), r[col("gamma")].clone(), r[col("epsilon_min_at")].clone());
        out.entry(key).or_default().insert(r[col("replicate")].parse().unwrap(), r[col("regret")].parse().unwrap());
    }
    out
}

fn mean(xs: &BTreeMap<u32, f64>) -> f64 {
    xs.values().sum::<f64>() / xs.len() as f64
}

/// The experiment's search against its full grid at 81,000 episodes (27 configurations, 6
/// replicates, O against random, epsilon_min_at as an axis).
#[test]
fn halving_with_budget_relative_schedules_keeps_a_configuration_as_good_as_the_grids_best() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(experiment("halving.toml")).unwrap();
    assert!(text.contains("epsilon_min_at = [0.1, 0.3, 0.6]") && text.contains("max_budget = 81000"));
    let search_out = tmp.path().join("search");
    let o = run(&["run", "experiments/halving.toml", "--quiet", "--out", search_out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The full grid: no [search], every job at max_budget.
    let start = text.find("\n[search]").unwrap() + 1;
    let end = start + text[start..].find("\n[[solver]]").unwrap() + 1;
    let grid_text = format!("{}{}episodes = 81000\n", &text[..start], &text[end..]);
    let grid_spec = write_spec(tmp.path(), "grid.toml", &grid_text);
    let grid_out = tmp.path().join("grid");
    let o = run(&["run", grid_spec.to_str().unwrap(), "--quiet", "--out", grid_out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));

    let grid = regrets(&grid_out.join("results.csv"), None);
    assert_eq!(grid.len(), 27);
    let best = grid.iter().min_by(|a, b| mean(a.1).total_cmp(&mean(b.1))).unwrap().0.clone();
    let last = regrets(&search_out.join("results.csv"), Some("3"));
    assert_eq!(last.len(), 1, "one configuration reaches the last rung");
    let (chosen, at_last) = last.into_iter().next().unwrap();
    // The last rung's jobs are the grid's jobs at 81,000 episodes (same ids, same seeds).
    assert_eq!(at_last, grid[&chosen]);
    // Paired t over the 6 replicates, chosen minus best: not significant at 5% (two-sided,
    // 5 degrees of freedom: 2.571).
    let d: Vec<f64> = grid[&chosen].iter().map(|(r, x)| x - grid[&best][r]).collect();
    let n = d.len() as f64;
    let m = d.iter().sum::<f64>() / n;
    let sd = (d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let t = if sd == 0.0 { 0.0 } else { m / (sd / n.sqrt()) };
    assert!(
        m == 0.0 || t.abs() < 2.571,
        "halving chose {chosen:?} (mean {}), the grid's best is {best:?} ({}): t = {t}",
        mean(&grid[&chosen]),
        mean(&grid[&best])
    );
    // At 15% of the grid's training episodes: 27·6·3000 + 9·6·9000 + 3·6·27000 + 6·81000.
    let (header, rows) = read_csv(&search_out.join("results.csv"));
    let episodes = header.iter().position(|c| c == "episodes").unwrap();
    let spent: u64 = rows.iter().map(|r| r[episodes].parse::<u64>().unwrap()).sum();
    assert_eq!(spent, 27 * 6 * 3000 + 9 * 6 * 9000 + 3 * 6 * 27_000 + 6 * 81_000);
    assert!(spent * 6 < 27 * 6 * 81_000, "less than a sixth of the grid's episodes");
}

const SEARCH: &str = "name = \"w\"\nreplicates = 2\n[evaluation]\ncheckpoints = 2\n[search]\nmethod = \"METHOD\"\n\
                      eta = 3\nmin_budget = MIN\nmax_budget = 2700\n[[solver]]\nkind = \"q-learning\"\n\
                      alpha = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]\nSCHEDULE\n";

fn plan(dir: &Path, method: &str, min: &str, schedule: &str) -> (i32, String, String) {
    let text = SEARCH.replace("METHOD", method).replace("MIN", min).replace("SCHEDULE", schedule);
    let spec = write_spec(dir, "w.toml", &text);
    let o = run(&["plan", spec.to_str().unwrap()]);
    (o.status.code().unwrap(), stdout(&o), stderr(&o))
}

#[test]
fn plan_warns_before_a_search_misleads() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // (a) 0.9995 per episode keeps epsilon at 0.9995^100 = 0.95 of its start after 100.
    let (code, _, err) = plan(dir, "halving", "100", "epsilon_decay = 0.9995");
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("epsilon decays per episode and is still above half its start after the first rung's 100"),
        "{err}"
    );
    assert!(err.contains("epsilon_decay = 0.9995 keeps epsilon at 0.95 of its start"), "{err}");
    assert!(err.contains("give epsilon_min_at"), "{err}");
    let (code, _, err) = plan(dir, "halving", "100", "epsilon_min_at = 0.5");
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("first rung"), "a budget-relative schedule is a miniature: {err}");
    // A fast decay is not cut short: 0.9^100 is far below half.
    let (_, _, err) = plan(dir, "halving", "100", "epsilon_decay = 0.9");
    assert!(!err.contains("first rung"), "{err}");
    // (b) One rung, and a Hyperband dearer than the grid: warnings, exit 0.
    let (code, _, err) = plan(dir, "halving", "2700", "epsilon_min_at = 0.5");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: the search has one rung (episodes = 2700 with eta = 3)"), "{err}");
    // `run` says so too, and runs.
    let out = dir.join("one-rung");
    let o = run(&["run", dir.join("w.toml").to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: the search has one rung"), "{}", stderr(&o));
    let (code, out, err) = plan(dir, "hyperband", "100", "epsilon_min_at = 0.5");
    assert_eq!(code, 0, "{err}");
    // (c) Hyperband's brackets: 9 configurations shared out over 4 brackets, each cut by
    // 3 per rung down to 1.
    let brackets: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("bracket from rung")).collect();
    assert_eq!(brackets.len(), 4, "{out}");
    assert!(brackets[3].ends_with(" at 2700"), "the last bracket runs only the last rung: {out}");
    let work: Vec<u64> = brackets
        .iter()
        .flat_map(|b| b.split(": ").nth(1).unwrap().split(" -> "))
        .map(|step| {
            let (n, budget) = step.split_once(" at ").unwrap();
            n.parse::<u64>().unwrap() * budget.parse::<u64>().unwrap()
        })
        .collect();
    let total: u64 = work.iter().sum::<u64>() * 2;
    let dearer = total > 9 * 2 * 2700;
    assert_eq!(err.contains("warning: the search costs"), dearer, "{total} vs {}: {err}", 9 * 2 * 2700);
    assert!(out.contains(&format!("search total: {} jobs, {total} episodes", total_jobs(&brackets) * 2)), "{out}");
    let (_, _, err) = plan(dir, "halving", "100", "epsilon_min_at = 0.5");
    assert!(!err.contains("the search costs") && !err.contains("one rung"), "{err}");
}

/// The configurations of every rung of every bracket line.
fn total_jobs(brackets: &[&str]) -> u64 {
    brackets
        .iter()
        .flat_map(|b| b.split(": ").nth(1).unwrap().split(" -> "))
        .map(|step| step.split_once(" at ").unwrap().0.parse::<u64>().unwrap())
        .sum()
}

#[test]
fn a_search_says_what_each_rung_cost_and_counts_every_rung() {
    let tmp = tempfile::tempdir().unwrap();
    let text = SEARCH.replace("METHOD", "halving").replace("MIN", "100").replace("SCHEDULE", "epsilon_min_at = 0.5");
    let spec = write_spec(tmp.path(), "w.toml", &text);
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    // Rungs of 9, 3, 1, 1 configurations at 100, 300, 900, 2700 episodes, 2 replicates.
    for line in [
        "rung 0: 9 configurations at episodes = 100, 18 jobs, 1800 episodes; 3 went on",
        "rung 1: 3 configurations at episodes = 300, 6 jobs, 1800 episodes; 1 went on",
        "rung 2: 1 configuration at episodes = 900, 2 jobs, 1800 episodes; 1 went on",
        "rung 3: 1 configuration at episodes = 2700, 2 jobs, 5400 episodes; the last",
        "search: 28 jobs in all, 10800 episodes",
        "w: 28 jobs run, 0 failed",
    ] {
        assert!(err.contains(line), "{line:?} missing:\n{err}");
    }
    let (_, rows) = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 28);
}

/// Mean ranks (1 = smallest; ties share their mean), counted pair by pair.
fn ranks(x: &[f64]) -> Vec<f64> {
    x.iter()
        .map(|a| {
            let below = x.iter().filter(|b| *b < a).count() as f64;
            let equal = x.iter().filter(|b| *b == a).count() as f64;
            below + (equal + 1.0) / 2.0
        })
        .collect()
}

/// Pearson's correlation of the ranks.
fn rho(x: &[f64], y: &[f64]) -> f64 {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

#[test]
fn fidelity_ranks_each_checkpoint_against_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "name = \"f\"\nseed = 9\nreplicates = 3\n[evaluation]\ncheckpoints = 4\n[[solver]]\n\
                kind = \"q-learning\"\nepisodes = 1200\nalpha = [0.05, 0.2, 0.5, 0.9]\nepsilon_decay = [0.99, 0.999]\n\
                [[solver]]\nkind = \"policy-iteration\"\n";
    let spec = write_spec(tmp.path(), "f.toml", text);
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["fidelity", out.to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = tmp.path().join("fidelity.csv");
    std::fs::write(&table, stdout(&o)).unwrap();
    let (header, rows) = read_csv(&table);
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    // One block of 8 configurations, 4 checkpoints (policy iteration has no curve).
    assert_eq!(rows.len(), 4, "{rows:?}");
    // Independently: mean regret per configuration (alpha, epsilon_decay) at each
    // checkpoint and at the end, from the files.
    let (rh, results) = read_csv(&out.join("results.csv"));
    let rc = |name: &str| rh.iter().position(|c| c == name).unwrap();
    let mut config_of = std::collections::HashMap::new();
    let mut last: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in results.iter().filter(|r| r[rc("solver")] == "q-learning") {
        let key = (r[rc("alpha")].clone(), r[rc("epsilon_decay")].clone());
        config_of.insert(r[0].clone(), key.clone());
        last.entry(key).or_default().push(r[rc("regret")].parse().unwrap());
    }
    let (ch, curves) = read_csv(&out.join("curves.csv"));
    let cc = |name: &str| ch.iter().position(|c| c == name).unwrap();
    let mut at: BTreeMap<u64, BTreeMap<(String, String), Vec<f64>>> = BTreeMap::new();
    for c in &curves {
        let key = config_of[&c[cc("job_id")]].clone();
        let episode: u64 = c[cc("episode")].parse().unwrap();
        at.entry(episode).or_default().entry(key).or_default().push(c[cc("regret")].parse().unwrap());
    }
    let means = |m: &BTreeMap<(String, String), Vec<f64>>| -> Vec<f64> {
        m.values().map(|v| v.iter().sum::<f64>() / v.len() as f64).collect()
    };
    let finals = means(&last);
    for (row, (episode, scores)) in rows.iter().zip(&at) {
        assert_eq!(row[col("episode")], episode.to_string());
        assert_eq!(row[col("configurations")], "8");
        let expected = rho(&means(scores), &finals);
        let got: f64 = row[col("spearman")].parse().unwrap();
        assert!((got - expected).abs() < 1e-12, "at {episode}: {got} vs {expected}");
    }
    assert_eq!(rows[3][col("spearman")], "1.0", "the last checkpoint is the end");
    // A search, and results without curves, are refused with what to do.
    let o = run(&["fidelity", search_dir(tmp.path()).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("the results of a [search]"), "{}", stderr(&o));
    std::fs::remove_file(out.join("curves.csv")).unwrap();
    let o = run(&["fidelity", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no learning curves"), "{}", stderr(&o));
    let help = stdout(&run(&["fidelity", "--help"]));
    assert!(help.contains("How to read it") && help.contains("final_best_rank"), "{help}");
}

/// A small search's results directory.
fn search_dir(dir: &Path) -> std::path::PathBuf {
    let text = SEARCH.replace("METHOD", "halving").replace("MIN", "300").replace("SCHEDULE", "");
    let spec = write_spec(dir, "s.toml", &text);
    let out = dir.join("search");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}
