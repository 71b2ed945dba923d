//! The `[test]` table: tuning seeds and test seeds.
//!
//! Test seeds never equal a tuning seed (a property over master seeds and replicate
//! counts); the test rows of a grid are exactly the top `k` configurations by the tuning
//! metric (per solver entry, or over the sweep), re-run on the test seeds, checked from the
//! CSV by an independent computation; a search tests among its last rung; a run stopped
//! between tuning and test (or in the middle of the test) resumes to the files of an
//! uninterrupted run, and so do shards merged once per pass; a spec without `[test]` keeps
//! its job ids; `reproduce` re-runs a test row; `summary` and `compare` show the test rows
//! with each tested configuration's gap; nonsense is refused.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use crate::common::*;
use proptest::prelude::*;
use sweep::job::Split;
use sweep::report::manifest::Shard;
use sweep::run;
use sweep::seed::{job_seed, test_seed};

/// Two learners as O against random: q-learning over 3 x 2 points, sarsa over 2 x 2;
/// 3 tuning replicates; a `[test]` of 3 replicates whose other keys are `test`.
fn spec(seed: u64, test: &str) -> String {
    format!(
        "name = \"ts\"\nseed = {seed}\nreplicates = 3\n[evaluation]\ncheckpoints = 2\n\
         [test]\nreplicates = 3\n{test}\n\
         [[solver]]\nkind = \"q-learning\"\nseat = \"o\"\nepisodes = 400\nalpha = [0.1, 0.3, 0.9]\nepsilon = [0.05, 0.3]\n\
         [[solver]]\nkind = \"sarsa\"\nseat = \"o\"\nepisodes = 400\nalpha = [0.2, 0.6]\nepsilon = [0.1, 0.4]\n"
    )
}

/// The same spec without `[test]`.
fn without_test(text: &str) -> String {
    let start = text.find("[test]").unwrap();
    let end = text.find("[[solver]]").unwrap();
    format!("{}{}", &text[..start], &text[end..])
}

/// A results file as maps from column name to value.
fn rows(dir: &Path) -> Vec<HashMap<String, String>> {
    let (header, rows) = read_csv(&dir.join("results.csv"));
    rows.into_iter().map(|r| header.iter().cloned().zip(r).collect()).collect()
}

/// The configuration of a row: its label and every parameter column but the seat's (the
/// spec varies alpha and epsilon; the others are the same everywhere).
fn configuration(row: &HashMap<String, String>) -> (String, String, String, String) {
    (row["label"].clone(), row["alpha"].clone(), row["epsilon"].clone(), row["episodes"].clone())
}

type Config = (String, String, String, String);

/// The best `top` configurations by mean regret over the tuning rows, per label (or over
/// all, `per_label = false`), ties by file order: computed from the CSV alone.
fn expected_top(rows: &[HashMap<String, String>], top: usize, per_label: bool) -> HashSet<Config> {
    let mut order: Vec<Config> = Vec::new();
    let mut sums: HashMap<Config, (f64, u32)> = HashMap::new();
    for r in rows.iter().filter(|r| r["split"] == "tune") {
        let c = configuration(r);
        if !order.contains(&c) {
            order.push(c.clone());
        }
        let s = sums.entry(c).or_default();
        *s = (s.0 + r["regret"].parse::<f64>().unwrap(), s.1 + 1);
    }
    let mut ranked: Vec<(f64, usize, Config)> =
        order.iter().enumerate().map(|(i, c)| (sums[c].0 / f64::from(sums[c].1), i, c.clone())).collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    for (_, _, c) in ranked {
        let owner = if per_label { c.0.clone() } else { String::new() };
        let n = taken.entry(owner).or_default();
        if *n < top {
            *n += 1;
            out.insert(c);
        }
    }
    out
}

/// Checks the test rows of `dir` (master seed `seed`, 3 tuning and 3 test replicates):
/// exactly the configurations `expected`, each on every test seed, which no tuning row
/// has; every parameter as in its tuning rows; ids distinct from every tuning id.
fn check_test_rows(dir: &Path, seed: u64, expected: &HashSet<Config>) {
    let rows = rows(dir);
    let (tune, test): (Vec<_>, Vec<_>) = rows.iter().partition(|r| r["split"] == "tune");
    assert!(!test.is_empty());
    let tested: HashSet<Config> = test.iter().map(|r| configuration(r)).collect();
    assert_eq!(&tested, expected);
    let test_seeds: HashSet<String> = (0..3).map(|r| test_seed(seed, r).to_string()).collect();
    let tune_seeds: HashSet<String> = tune.iter().map(|r| r["seed"].clone()).collect();
    assert_eq!(tune_seeds, (0..3).map(|r| job_seed(seed, r).to_string()).collect());
    assert!(test_seeds.is_disjoint(&tune_seeds));
    for c in expected {
        let mine: Vec<&&HashMap<String, String>> = test.iter().filter(|r| configuration(r) == *c).collect();
        let seeds: HashSet<String> = mine.iter().map(|r| r["seed"].clone()).collect();
        assert_eq!(seeds, test_seeds, "{c:?} runs on every test seed");
        assert_eq!(mine.len(), 3);
        // Every parameter column as in its tuning rows (the full budget, not a rung's).
        let tuned = tune.iter().find(|r| configuration(r) == *c).unwrap();
        for column in ["solver", "seat", "opponent", "gamma", "alpha_decay", "epsilon_decay", "game"] {
            assert!(mine.iter().all(|r| r[column] == tuned[column]), "{column} of {c:?}");
        }
        assert!(mine.iter().all(|r| r["rung"].is_empty()));
    }
    let tune_ids: HashSet<&String> = tune.iter().map(|r| &r["job_id"]).collect();
    assert!(test.iter().all(|r| !tune_ids.contains(&r["job_id"])));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn test_seeds_never_equal_tuning_seeds(master in any::<u64>(), tuning in 1u32..300, testing in 1u32..300) {
        let tune: HashSet<u64> = (0..tuning).map(|r| job_seed(master, r)).collect();
        prop_assert_eq!(tune.len(), tuning as usize);
        let test: HashSet<u64> = (0..testing).map(|r| test_seed(master, r)).collect();
        prop_assert_eq!(test.len(), testing as usize);
        prop_assert!(tune.is_disjoint(&test));
    }

    #[test]
    fn test_jobs_have_fresh_seeds_and_ids_and_tuning_jobs_keep_theirs(
        master in 0u64..(i64::MAX as u64),
        replicates in 1u32..6,
        testing in 1u32..6,
    ) {
        let text = spec(master, "top = 2").replace("replicates = 3\n[evaluation]", &format!("replicates = {replicates}\n[evaluation]"))
            .replace("[test]\nreplicates = 3", &format!("[test]\nreplicates = {testing}"));
        let with = sweep::spec::parse(&text, "ts.toml").unwrap().jobs();
        let without = sweep::spec::parse(&without_test(&text), "ts.toml").unwrap().jobs();
        let (tune, test): (Vec<_>, Vec<_>) = with.iter().partition(|j| j.split == Split::Tune);
        // The tuning jobs are the spec's jobs without [test], id for id.
        prop_assert_eq!(tune.len(), without.len());
        for (a, b) in tune.iter().zip(&without) {
            prop_assert_eq!(&a.id, &b.id);
            prop_assert_eq!(a.seed, b.seed);
            prop_assert_eq!(a.params, b.params);
        }
        // Every configuration has its test jobs, on test seeds, under ids of their own.
        prop_assert_eq!(test.len(), 10 * testing as usize);
        let tune_seeds: HashSet<u64> = tune.iter().map(|j| j.seed).collect();
        let ids: HashSet<&String> = with.iter().map(|j| &j.id).collect();
        prop_assert_eq!(ids.len(), with.len());
        for j in &test {
            prop_assert!(!tune_seeds.contains(&j.seed));
            prop_assert_eq!(j.seed, test_seed(master, j.replicate));
        }
    }
}

#[test]
fn a_grid_tests_exactly_its_best_configurations_per_solver_on_fresh_seeds() {
    let tmp = tempfile::tempdir().unwrap();
    for (test, top, per_label) in [("top = 2", 2, true), ("top = 3\nper = \"sweep\"", 3, false), ("", 1, true)] {
        let spec = write_spec(tmp.path(), "ts.toml", &spec(11, test));
        let out = tmp.path().join(format!("out-{top}"));
        let o = run(&["run", spec.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("test: the best"), "{}", stderr(&o));
        let expected = expected_top(&rows(&out), top, per_label);
        assert_eq!(expected.len(), if per_label { 2 * top } else { top });
        check_test_rows(&out, 11, &expected);
    }
}

#[test]
fn a_search_tests_the_best_of_its_last_rung_at_the_full_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let text = spec(5, "top = 2\nper = \"sweep\"")
        .replace("[test]", "[search]\nmethod = \"halving\"\neta = 2\nmin_budget = 100\nmax_budget = 400\n[test]")
        .replace("episodes = 400\n", "");
    let spec = write_spec(tmp.path(), "ts.toml", &text);
    let o = run(&["plan", spec.to_str().unwrap()]);
    let plan = stdout(&o);
    assert!(plan.contains("of the full grid's 30 jobs") && plan.contains("at most 2 configurations"), "{plan}");
    let out = tmp.path().join("out");
    run_in(&spec, &out, 2, None);
    let rows = rows(&out);
    // The last rung (episodes = 400) is the tuning the test ranks.
    let last: Vec<HashMap<String, String>> =
        rows.iter().filter(|r| r["split"] == "tune" && r["episodes"] == "400").cloned().collect();
    assert!(rows.iter().any(|r| r["episodes"] == "100"));
    let expected = expected_top(&last, 2, false);
    assert_eq!(expected.len(), 2);
    check_test_rows(&out, 5, &expected);
}

/// Keeps only the rows of `dir`'s files whose job id satisfies `keep`, as a run stopped
/// there would have left them, and marks the manifest incomplete.
fn cut(dir: &Path, keep: impl Fn(&str) -> bool) {
    for name in ["results.csv", "curves.csv"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut lines = text.lines();
        let mut kept = format!("{}\n", lines.next().unwrap());
        for line in lines.filter(|l| keep(l.split(',').next().unwrap())) {
            kept.push_str(line);
            kept.push('\n');
        }
        std::fs::write(dir.join(name), kept).unwrap();
    }
    // As a run killed before it ended leaves its manifest: incomplete, and its record of
    // the files open.
    let manifest = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let manifest = manifest.replace("\"complete\": true", "\"complete\": false");
    std::fs::write(dir.join("manifest.json"), manifest.replace("\"sealed\": true", "\"sealed\": false")).unwrap();
}

#[test]
fn a_run_stopped_between_tuning_and_test_resumes_to_the_same_files() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "ts.toml", &spec(3, "top = 2"));
    let whole = tmp.path().join("whole");
    run_in(&spec, &whole, 2, None);
    let tests: Vec<String> =
        rows(&whole).iter().filter(|r| r["split"] == "test").map(|r| r["job_id"].clone()).collect();
    assert_eq!(tests.len(), 12);
    for (name, kept_tests) in [("between", 0), ("midway", 5)] {
        let dir = tmp.path().join(name);
        std::fs::create_dir(&dir).unwrap();
        for f in ["results.csv", "curves.csv", "manifest.json"] {
            std::fs::copy(whole.join(f), dir.join(f)).unwrap();
        }
        let dropped: HashSet<&String> = tests[kept_tests..].iter().collect();
        cut(&dir, |id| !dropped.iter().any(|d| d.as_str() == id));
        if kept_tests > 0 {
            // And a partial last line, as a kill in the middle of a write leaves.
            let mut text = std::fs::read_to_string(dir.join("results.csv")).unwrap();
            text.push_str(&tests[kept_tests][..7]);
            std::fs::write(dir.join("results.csv"), text).unwrap();
        }
        let o = run(&["run", spec.to_str().unwrap(), "--threads", "1", "--out", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("resuming") && stderr(&o).contains("test: the best 2 per solver"),
            "{}",
            stderr(&o)
        );
        assert_eq!(without_timings(&dir.join("results.csv")), without_timings(&whole.join("results.csv")), "{name}");
        assert_eq!(std::fs::read(dir.join("curves.csv")).unwrap(), std::fs::read(whole.join("curves.csv")).unwrap());
        assert!(sweep::report::manifest::Manifest::read(&dir).unwrap().complete);
    }
}

#[test]
fn shards_merged_once_per_pass_equal_a_local_run() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "ts.toml", &spec(9, "top = 1"));
    let (local, sharded) = (tmp.path().join("local"), tmp.path().join("sharded"));
    run_in(&spec, &local, 2, None);
    for _ in 0..2 {
        for index in 0..3 {
            run_in(&spec, &sharded, 1, Some(Shard { index, count: 3 }));
        }
        run::merge::merge(&sharded).unwrap();
    }
    assert!(sweep::report::manifest::Manifest::read(&sharded).unwrap().complete);
    assert_eq!(without_timings(&local.join("results.csv")), without_timings(&sharded.join("results.csv")));
    assert_eq!(std::fs::read(local.join("curves.csv")).unwrap(), std::fs::read(sharded.join("curves.csv")).unwrap());
}

#[test]
fn reproduce_summary_compare_and_plan_know_the_test_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "ts.toml", &spec(21, "top = 2"));
    let out = tmp.path().join("out");
    run_in(&spec, &out, 2, None);
    let out_s = out.to_str().unwrap();
    let rows = rows(&out);
    let test_id = &rows.iter().find(|r| r["split"] == "test").unwrap()["job_id"];
    let o = run(&["reproduce", out_s, "--job", test_id]);
    assert!(o.status.success() && stdout(&o).contains("reproduced: every column"), "{}", stdout(&o));

    // summary: the test rows by default, each with its tuning mean and the gap.
    let o = run(&["summary", out_s, "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let mut means: BTreeMap<(String, Config), (f64, u32)> = BTreeMap::new();
    for r in &rows {
        let m = means.entry((r["split"].clone(), configuration(r))).or_default();
        *m = (m.0 + r["regret"].parse::<f64>().unwrap(), m.1 + 1);
    }
    let mean = |split: &str, c: &Config| means[&(split.to_string(), c.clone())].0 / 3.0;
    // The summary's CSV may round to 6 decimals.
    let close = |cell: &str, x: f64| (cell.parse::<f64>().unwrap() - x).abs() <= 5e-7 + 1e-12;
    let shown: Vec<&str> = lines.collect();
    assert_eq!(shown.len(), 4, "{text}");
    for line in shown {
        let cells: Vec<&str> = line.split(',').collect();
        let solver = cells[at("solver")];
        let label = if solver == "q-learning" { "q-learning" } else { "sarsa" };
        let c = (label.to_string(), cells[at("alpha")].to_string(), cells[at("epsilon")].to_string(), "400".into());
        assert!(close(cells[at("mean_regret")], mean("test", &c)), "{line}");
        assert!(close(cells[at("tune_mean_regret")], mean("tune", &c)), "{line}");
        assert!(close(cells[at("gap")], mean("test", &c) - mean("tune", &c)), "{line}");
    }
    let o = run(&["summary", out_s]);
    assert!(stdout(&o).contains("split: test rows"), "{}", stdout(&o));
    let o = run(&["summary", out_s, "--split", "tune", "--csv"]);
    assert_eq!(stdout(&o).lines().count(), 1 + 10, "{}", stdout(&o));
    // Grouped by the split column: both splits, no gap (the groups are not configurations);
    // each group pools several configurations, so n counts replicates (3 of each split),
    // not rows (6 and 18).
    let o = run(&["summary", out_s, "--by", "solver,split", "--csv"]);
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1 + 4, "{text}");
    assert!(
        text.contains("q-learning,test,3,") && text.contains("q-learning,tune,3,") && !text.contains("gap"),
        "{text}"
    );

    // compare: the test rows, and one gap line per tested configuration.
    let o = run(&["compare", out_s]);
    let text = stdout(&o);
    assert!(o.status.success() && text.contains("split: test rows"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(": tune ") && l.contains(", gap ")).count(), 4, "{text}");
    let o = run(&["compare", out_s, "--split", "tune"]);
    assert!(stdout(&o).contains("split: tuning rows"), "{}", stdout(&o));

    // plan: the test jobs and their cost.
    let o = run(&["plan", spec.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(text.contains("total: 30 jobs"), "{text}");
    assert!(text.contains("re-run on 3 fresh seeds each: 4 configurations, 12 jobs"), "{text}");
}

#[test]
fn the_test_table_is_part_of_the_spec_hash() {
    let a = sweep::spec::parse(&spec(1, "top = 1"), "ts.toml").unwrap();
    let b = sweep::spec::parse(&spec(1, "top = 2"), "ts.toml").unwrap();
    let none = sweep::spec::parse(&without_test(&spec(1, "")), "ts.toml").unwrap();
    assert_ne!(a.hash(), b.hash());
    assert_ne!(a.hash(), none.hash());
    assert_eq!(a.resolved()["test"]["replicates"], 3);
    assert_eq!(a.resolved()["test"]["per"], "solver");
    assert!(none.resolved().get("test").is_none());
}

#[test]
fn nonsense_test_tables_are_refused_with_clear_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let base = spec(1, "");
    let cases = [
        (base.replace("[test]\nreplicates = 3\n", "[test]\ntop = 2\n"), "has no replicates"),
        (base.replace("[test]\nreplicates = 3", "[test]\nreplicates = 0"), "test.replicates = 0 is out of range"),
        (base.replace("[test]\nreplicates = 3", "[test]\nreplicates = 3\ntop = 0"), "top must be a whole number"),
        (base.replace("[test]\nreplicates = 3", "[test]\nreplicates = 3\nper = \"label\""), "per takes one of"),
        (base.replace("[test]\nreplicates = 3", "[test]\nreplicates = 3\nseeds = 3"), "is not a known key of [test]"),
        (
            base.replace("[test]\nreplicates = 3", "[test]\nreplicates = 3\nopponent = \"minimax\""),
            "opponent takes one of \"random\"",
        ),
        (
            base.replace("[test]\nreplicates = 3", "[test]\nreplicates = 3\nmetric = \"regret_auc\"")
                + "[[solver]]\nkind = \"policy-iteration\"\n",
            "which a policy-iteration solver does not write",
        ),
    ];
    for (text, message) in cases {
        let spec = write_spec(tmp.path(), "bad.toml", &text);
        let o = run(&["plan", spec.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{message}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{message:?} in {}", stderr(&o));
    }
    let spec = write_spec(tmp.path(), "ok.toml", &base);
    let o = run(&["run", spec.to_str().unwrap(), "--only", "abc", "--out", tmp.path().join("o").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--only cannot pick jobs of a [test]"), "{}", stderr(&o));
}

#[test]
fn a_test_table_added_to_a_finished_grid_with_extend_runs_only_the_test() {
    let tmp = tempfile::tempdir().unwrap();
    let text = spec(13, "top = 1");
    let (grid, tested) =
        (write_spec(tmp.path(), "grid.toml", &without_test(&text)), write_spec(tmp.path(), "ts.toml", &text));
    let (dir, fresh) = (tmp.path().join("dir"), tmp.path().join("fresh"));
    run_in(&grid, &dir, 2, None);
    let o = run(&["run", tested.to_str().unwrap(), "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "a different spec without --extend: {}", stderr(&o));
    let o = run(&["run", tested.to_str().unwrap(), "--extend", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("30 jobs already done, 6 to run"), "{}", stderr(&o));
    run_in(&tested, &fresh, 2, None);
    assert_eq!(without_timings(&dir.join("results.csv")), without_timings(&fresh.join("results.csv")));
}

/// `compare --by solver` on a file with test rows compares the learners on their test
/// rows: each learner by the configuration its `[test]` chose, paired by test replicate
/// with the best learner; means and differences recomputed from the CSV rows agree to 12
/// digits, and the output says the choice was made on other seeds.
#[test]
fn compare_by_solver_pairs_the_learners_on_their_test_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "ts.toml", &spec(33, "top = 1"));
    let out = tmp.path().join("out");
    run_in(&spec, &out, 2, None);
    let out_s = out.to_str().unwrap();
    // Per solver, regret by test replicate (one tested configuration each).
    let mut test: BTreeMap<String, BTreeMap<u32, f64>> = BTreeMap::new();
    for r in rows(&out).iter().filter(|r| r["split"] == "test") {
        let replicate = r["replicate"].parse().unwrap();
        let before = test.entry(r["solver"].clone()).or_default().insert(replicate, r["regret"].parse().unwrap());
        assert!(before.is_none(), "one tested configuration per solver: {r:?}");
    }
    let mean = |runs: &BTreeMap<u32, f64>| runs.values().sum::<f64>() / runs.len() as f64;
    let best = test.iter().min_by(|a, b| mean(a.1).total_cmp(&mean(b.1))).unwrap().0.clone();

    let o = run(&["compare", out_s, "--by", "solver", "--csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let agree = |cell: &str, x: f64| {
        let y: f64 = cell.parse().unwrap();
        (y - x).abs() <= 1e-12 * x.abs().max(1e-3)
    };
    let shown: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(shown.len(), test.len(), "{text}");
    for cells in &shown {
        let runs = &test[cells[at("solver")]];
        assert_eq!(cells[at("n")], "3", "{text}");
        assert!(agree(cells[at("mean")], mean(runs)), "{text}");
        let d: Vec<f64> = runs.iter().map(|(r, x)| x - test[&best][r]).collect();
        assert!(agree(cells[at("difference")], d.iter().sum::<f64>() / d.len() as f64), "{text}");
        let baseline = cells[at("solver")] == best;
        assert_eq!(cells[at("verdict")] == "baseline", baseline, "{text}");
        assert_eq!(cells[at("configurations")], "1", "{text}");
    }
    let o = run(&["compare", out_s, "--by", "solver"]);
    let text = stdout(&o);
    assert!(text.contains("chose on the tuning seeds, compared here on fresh seeds"), "{text}");
    assert!(text.contains("split: test rows"), "{text}");
    // The tuning rows: each learner by its best of several configurations, said to be optimistic.
    let o = run(&["compare", out_s, "--by", "solver", "--split", "tune"]);
    let text = stdout(&o);
    assert!(text.contains("optimistic") && text.contains("a [test] table removes the optimism"), "{text}");
}

/// `fidelity` ranks the tuning runs: a grid's `[test]` rows (its choices on other seeds)
/// leave its output as it is without them.
#[test]
fn fidelity_reads_the_tuning_rows_only() {
    let tmp = tempfile::tempdir().unwrap();
    let text = spec(5, "top = 2");
    let with = write_spec(tmp.path(), "with.toml", &text);
    let without = write_spec(tmp.path(), "without.toml", &without_test(&text));
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_in(&with, &a, 2, None);
    run_in(&without, &b, 2, None);
    assert!(rows(&a).iter().any(|r| r["split"] == "test"));
    let fidelity = |dir: &Path| {
        let o = run(&["fidelity", dir.to_str().unwrap(), "--csv"]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let (x, y) = (fidelity(&a), fidelity(&b));
    assert!(x.lines().count() > 1, "{x}");
    assert_eq!(x, y);
}

/// Extending a tested grid with better points changes the choice: the old choice's test
/// rows are set apart (in superseded-tests.csv, with their curves), the results file then
/// equals a fresh run of the extended spec, and so does `compare --by solver`.
#[test]
fn extend_sets_apart_the_test_rows_of_a_superseded_choice() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = |q_alpha: &str, q_epsilon: &str| {
        format!(
            "name = \"ts\"\nseed = 21\nreplicates = 3\n[evaluation]\ncheckpoints = 2\n\
             [test]\nreplicates = 3\n\
             [[solver]]\nkind = \"q-learning\"\nseat = \"o\"\nepisodes = 2000\nalpha = {q_alpha}\nepsilon = {q_epsilon}\n\
             [[solver]]\nkind = \"sarsa\"\nseat = \"o\"\nepisodes = 2000\nalpha = 0.3\nepsilon = 0.1\n"
        )
    };
    let small = write_spec(tmp.path(), "small.toml", &spec("0.9", "0.9"));
    let large = write_spec(tmp.path(), "large.toml", &spec("[0.9, 0.3]", "[0.9, 0.1]"));
    let (dir, fresh) = (tmp.path().join("dir"), tmp.path().join("fresh"));
    // As a program, like the run that extends it: a lock taken in this process could
    // still be held for a moment by a child another test thread is starting.
    let o = run(&["run", small.to_str().unwrap(), "--threads", "2", "--quiet", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let chosen =
        |d: &Path| -> HashSet<Config> { rows(d).iter().filter(|r| r["split"] == "test").map(configuration).collect() };
    let before = chosen(&dir);
    let o = run(&["run", large.to_str().unwrap(), "--extend", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("3 rows of a test choice that tuning no longer makes set apart"), "{}", stderr(&o));
    run_in(&large, &fresh, 2, None);
    let after = chosen(&fresh);
    assert_ne!(before, after, "the extension must change the choice for this test to mean anything");
    assert_eq!(chosen(&dir), after);
    assert_eq!(without_timings(&dir.join("results.csv")), without_timings(&fresh.join("results.csv")));
    // The old choice's rows are kept aside, not lost: q-learning's one configuration, 3 seeds.
    let (_, old) = read_csv(&dir.join("superseded-tests.csv"));
    assert_eq!(old.len(), 3);
    let (_, old_curves) = read_csv(&dir.join("superseded-tests-curves.csv"));
    assert!(!old_curves.is_empty());
    let compare = |d: &Path| stdout(&run(&["compare", d.to_str().unwrap(), "--by", "solver", "--csv"]));
    assert_eq!(compare(&dir), compare(&fresh));
}
