//! Quasi-random search (`[search] method = "random"`) end to end: the same files on 1 and 2
//! threads and in 3 shards merged once per pass, and from run to run; its rows are TPE's
//! round 0 where the two draw the same points; `--extend` with more trials keeps every
//! trial; `plan` estimates its one round; `run` says it; its keys are checked.

use std::path::Path;

use crate::common::*;
use sweep::report::manifest::{Manifest, Shard};

/// Q-learning as O against random, three sampled axes and one listed (a categorical):
/// `method` and its keys as given, then a `[test]` of the best.
fn spec(search: &str) -> String {
    format!(
        "name = \"random\"\nseed = 11\nreplicates = 2\n[evaluation]\ncheckpoints = 2\n\
         [search]\n{search}\n[test]\nreplicates = 2\n\
         [[solver]]\nkind = \"q-learning\"\nseat = \"o\"\nepisodes = 400\n\
         alpha = {{ loguniform = [0.02, 1.0] }}\ngamma = {{ uniform = [0.5, 1.0] }}\n\
         epsilon_min_at = {{ uniform = [0.05, 1.0] }}\nepsilon_min = [0.01, 0.1]\n"
    )
}

fn random(trials: u64) -> String {
    spec(&format!("method = \"random\"\ntrials = {trials}\n"))
}

fn files(dir: &Path) -> (Vec<Vec<String>>, Vec<u8>) {
    (without_timings(&dir.join("results.csv")), std::fs::read(dir.join("curves.csv")).unwrap())
}

/// Every shard, then a merge, until the merged results are complete; the passes it took.
fn run_sharded(spec: &Path, out: &Path, shards: u32) -> usize {
    for pass in 1..=10 {
        for index in 0..shards {
            run_in(spec, out, 1, Some(Shard { index, count: shards }));
        }
        sweep::run::merge::merge(out).unwrap();
        if Manifest::read(out).unwrap().complete {
            return pass;
        }
    }
    panic!("the sharded search did not complete in 10 passes");
}

#[test]
fn the_same_files_on_any_thread_count_in_shards_and_from_run_to_run() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "random.toml", &random(12));
    let dirs = ["one", "two", "again", "split"].map(|d| tmp.path().join(d));
    run_in(&spec, &dirs[0], 1, None);
    run_in(&spec, &dirs[1], 2, None);
    run_in(&spec, &dirs[2], 2, None);
    // One round, then the test.
    assert_eq!(run_sharded(&spec, &dirs[3], 3), 2);
    let a = files(&dirs[0]);
    for dir in &dirs[1..] {
        assert_eq!(a, files(dir), "{}", dir.display());
    }
    let (header, rows) = read_csv(&dirs[0].join("results.csv"));
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let tune: Vec<&Vec<String>> = rows.iter().filter(|r| r[at("split")] == "tune").collect();
    assert_eq!(tune.len(), 12 * 2);
    let trials: std::collections::BTreeSet<u32> = tune.iter().map(|r| r[at("trial")].parse().unwrap()).collect();
    assert_eq!(trials, (0..12).collect());
    // Every trial in round 0, at the solver's own budget, and no rung.
    assert!(tune.iter().all(|r| r[at("round")] == "0" && r[at("episodes")] == "400" && r[at("rung")].is_empty()));
    // Replicates are paired: each trial's two rows have the two tuning seeds.
    let seeds: std::collections::BTreeSet<&str> = tune.iter().map(|r| r[at("seed")].as_str()).collect();
    assert_eq!(seeds.len(), 2);
    // The test re-runs the best trial (by mean tuning regret) on fresh seeds.
    let test: Vec<&Vec<String>> = rows.iter().filter(|r| r[at("split")] == "test").collect();
    assert_eq!(test.len(), 2);
    let mut means: std::collections::BTreeMap<u32, (f64, u32)> = Default::default();
    for r in &tune {
        let e = means.entry(r[at("trial")].parse().unwrap()).or_default();
        *e = (e.0 + r[at("regret")].parse::<f64>().unwrap(), e.1 + 1);
    }
    let best = means.iter().min_by(|a, b| (a.1.0 / a.1.1 as f64).total_cmp(&(b.1.0 / b.1.1 as f64))).unwrap().0;
    let best_alpha = &tune.iter().find(|r| r[at("trial")] == best.to_string()).unwrap()[at("alpha")];
    assert!(test.iter().all(|r| &r[at("alpha")] == best_alpha && r[at("seed")] != tune[0][at("seed")]));
}

/// TPE with the same seed and a startup of 8 runs the first 8 trials of the random search
/// in its round 0: the same jobs, the same rows.
#[test]
fn its_first_trials_are_tpe_s_round_0_row_for_row() {
    let tmp = tempfile::tempdir().unwrap();
    let random_spec = write_spec(tmp.path(), "random.toml", &random(12));
    let tpe = spec("method = \"tpe\"\ntrials = 12\nbatch = 4\nstartup = 8\n");
    let tpe_spec = write_spec(tmp.path(), "tpe.toml", &tpe);
    let (r, t) = (tmp.path().join("random"), tmp.path().join("tpe"));
    run_in(&random_spec, &r, 2, None);
    run_in(&tpe_spec, &t, 2, None);
    let (header, _) = read_csv(&r.join("results.csv"));
    let columns: Vec<&String> = header.iter().filter(|c| *c != "train_ms" && *c != "eval_ms").collect();
    let [trial, split] = ["trial", "split"].map(|n| columns.iter().position(|c| *c == n).unwrap());
    let first_eight = |dir: &Path| -> Vec<Vec<String>> {
        let rows = without_timings(&dir.join("results.csv"));
        rows.into_iter().filter(|row| row[split] == "tune" && row[trial].parse::<u32>().unwrap() < 8).collect()
    };
    let from_random = first_eight(&r);
    assert_eq!(from_random.len(), 8 * 2);
    assert_eq!(from_random, first_eight(&t));
}

#[test]
fn extend_with_more_trials_keeps_every_trial() {
    let tmp = tempfile::tempdir().unwrap();
    let small = write_spec(tmp.path(), "small.toml", &random(8));
    let large = write_spec(tmp.path(), "large.toml", &random(12));
    let (grown, fresh) = (tmp.path().join("grown"), tmp.path().join("fresh"));
    run_in(&small, &grown, 2, None);
    let before = without_timings(&grown.join("results.csv"));
    let o = run(&["run", large.to_str().unwrap(), "--quiet", "--extend", "--out", grown.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    run_in(&large, &fresh, 2, None);
    assert_eq!(files(&grown), files(&fresh));
    let after = without_timings(&grown.join("results.csv"));
    let (header, _) = read_csv(&grown.join("results.csv"));
    let split = header.iter().filter(|c| *c != "train_ms" && *c != "eval_ms").position(|c| c == "split").unwrap();
    assert!(before.iter().filter(|r| r[split] == "tune").all(|r| after.contains(r)));
}

/// `plan` shows one round of every trial and estimates it as the run goes: its solver
/// line counts the trials, and the jobs it plans are the jobs the run runs.
#[test]
fn plan_estimates_its_one_round_and_run_says_it() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "random.toml", &random(12));
    let o = run(&["plan", spec.to_str().unwrap(), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for line in [
        "search: random, 12 trials per solver in 1 round (the first points of each solver's scrambled Sobol sequence",
        "test: the best 1 per solver by regret against random",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let solver = text.lines().find(|l| l.starts_with("q-learning")).unwrap();
    let figures: Vec<&str> = solver.split_whitespace().collect();
    // Points, jobs and episodes: 12 trials, 2 replicates each, 400 episodes a job.
    assert_eq!(figures[2..5], ["12", "24", "9600"], "{solver}");
    let rounds = text.lines().skip_while(|l| !l.contains("round  configurations")).nth(1).unwrap();
    assert_eq!(rounds.split_whitespace().collect::<Vec<_>>(), ["0", "12", "24"]);
    let csv = run(&["plan", spec.to_str().unwrap(), "--threads", "2", "--format", "csv"]);
    let data = stdout(&csv);
    let estimate = data.lines().skip_while(|l| !l.starts_with("jobs,threads,cpu_s")).nth(1).unwrap();
    assert!(estimate.starts_with("24,2,"), "{estimate}");
    assert!(stderr(&o).lines().all(|l| !l.contains("per axis")), "{}", stderr(&o));
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for line in [
        "random round 0 of 1: 12 configurations, 24 jobs",
        "after round 0: q-learning best so far trial",
        "search: random, 12 trials in 1 round, 24 jobs; ranked by regret against random",
        "q-learning (o vs random): best trial",
    ] {
        assert!(err.contains(line), "{line} in {err}");
    }
    assert!(Manifest::read(&out).unwrap().complete);
}

#[test]
fn nonsense_random_searches_are_refused_with_clear_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (spec("method = \"random\"\n"), "has method = \"random\" but no trials: add trials = N"),
        (spec("method = \"random\"\ntrials = 8\nbatch = 4\n"), "is a key of method = \"tpe\", not of random"),
        (spec("method = \"random\"\ntrials = 8\nstartup = 4\n"), "random draws every trial in round 0"),
        (spec("method = \"random\"\ntrials = 8\nmax_budget = 400\n"), "is a key of the rung methods"),
        (random(8).replace("episodes = 400\n", "episodes = 400\nsamples = 10\n"), "remove samples"),
    ];
    for (text, message) in cases {
        let spec = write_spec(tmp.path(), "bad.toml", &text);
        let o = run(&["plan", spec.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(message), "{message} in {}", stderr(&o));
    }
}
