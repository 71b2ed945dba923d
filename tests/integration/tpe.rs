//! A model-based search (`[search] method = "tpe"`) end to end: the same files on 1 and 2
//! threads, in 3 shards merged once per round, after 20 SIGKILLs at random moments with
//! resume, and after `--extend` with more trials; `plan` shows the rounds and warns of a
//! search too small; `run` says each round's best; nonsense is refused.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::*;
use sweep::report::manifest::{Manifest, Shard};

/// Q-learning as O against random, three sampled axes and one listed (a categorical):
/// round 0 of 8 Sobol points, then rounds of 4 up to `trials`; a `[test]` of the best.
fn spec(trials: u64, episodes: u64) -> String {
    format!(
        "name = \"tpe\"\nseed = 11\nreplicates = 2\n[evaluation]\ncheckpoints = 2\n\
         [search]\nmethod = \"tpe\"\ntrials = {trials}\nbatch = 4\nstartup = 8\n\
         [test]\nreplicates = 2\n\
         [[solver]]\nkind = \"q-learning\"\nseat = \"o\"\nepisodes = {episodes}\n\
         alpha = {{ loguniform = [0.02, 1.0] }}\ngamma = {{ uniform = [0.5, 1.0] }}\n\
         epsilon_min_at = {{ uniform = [0.05, 1.0] }}\nepsilon_min = [0.01, 0.1]\n"
    )
}

fn files(dir: &Path) -> (Vec<Vec<String>>, Vec<u8>) {
    (without_timings(&dir.join("results.csv")), std::fs::read(dir.join("curves.csv")).unwrap())
}

/// Runs `spec` as a cluster would: every shard, then a merge, until the merged results
/// are complete (one round per pass, then the test).
fn run_sharded(spec: &Path, out: &Path, shards: u32) -> usize {
    for pass in 1..=20 {
        for index in 0..shards {
            run_in(spec, out, 1, Some(Shard { index, count: shards }));
        }
        sweep::run::merge::merge(out).unwrap();
        if Manifest::read(out).unwrap().complete {
            return pass;
        }
    }
    panic!("the sharded search did not complete in 20 passes");
}

#[test]
fn the_same_files_on_any_thread_count_and_in_shards_merged_per_round() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "tpe.toml", &spec(20, 400));
    let (one, two, split) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("split"));
    run_in(&spec, &one, 1, None);
    run_in(&spec, &two, 2, None);
    let passes = run_sharded(&spec, &split, 3);
    // Rounds of 8, 4, 4, 4, then the test.
    assert_eq!(passes, 5);
    let a = files(&one);
    assert_eq!(a, files(&two));
    assert_eq!(a, files(&split));
    let (header, rows) = read_csv(&one.join("results.csv"));
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let tune: Vec<&Vec<String>> = rows.iter().filter(|r| r[at("split")] == "tune").collect();
    assert_eq!(tune.len(), 20 * 2);
    let trials: std::collections::BTreeSet<u32> = tune.iter().map(|r| r[at("trial")].parse().unwrap()).collect();
    assert_eq!(trials, (0..20).collect());
    let rounds: Vec<u32> = tune.iter().map(|r| r[at("round")].parse().unwrap()).collect();
    assert_eq!(rounds.iter().filter(|&&r| r == 0).count(), 16);
    assert_eq!(rounds.iter().max(), Some(&3));
    // Rows come trial by trial; a trial's round never decreases with its number.
    assert!(rounds.is_sorted());
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
    assert!(test.iter().all(|r| &r[at("alpha")] == best_alpha));
}

/// The same with `method = "bohb"`: rungs of 100, 300 and 900 episodes (eta 3), brackets
/// of 9, 5 and 3 configurations proposed by TPE once a rung has enough scores.
#[test]
fn bohb_gives_the_same_files_on_any_thread_count_and_in_shards_merged_per_rung() {
    let tmp = tempfile::tempdir().unwrap();
    let text = spec(20, 400)
        .replace(
            "method = \"tpe\"\ntrials = 20\nbatch = 4\nstartup = 8\n",
            "method = \"bohb\"\neta = 3\nmin_budget = 100\nmax_budget = 900\n",
        )
        .replace("episodes = 400\n", "");
    let spec = write_spec(tmp.path(), "bohb.toml", &text);
    let (one, two, split) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("split"));
    run_in(&spec, &one, 1, None);
    run_in(&spec, &two, 2, None);
    // Three rungs, then the test.
    assert_eq!(run_sharded(&spec, &split, 3), 4);
    let a = files(&one);
    assert_eq!(a, files(&two));
    assert_eq!(a, files(&split));
    let (header, rows) = read_csv(&one.join("results.csv"));
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let per_rung = |r: &str| rows.iter().filter(|row| row[at("rung")] == r).count();
    // 9 configurations at rung 0; 3 + 5 at rung 1; 1 + 1 + 3 at rung 2; 2 replicates each.
    assert_eq!([per_rung("0"), per_rung("1"), per_rung("2")], [18, 16, 10]);
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(stdout(&o).contains("bracket from rung 1: 5 at 300 -> 1 at 900"), "{}", stdout(&o));
}

/// One search over two solvers (`per = "sweep"`): the same files on 1 and 2 threads and in
/// 3 shards; 20 trials in all, shared by the solvers.
#[test]
fn one_search_over_the_sweep_gives_the_same_files_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let sarsa = "[[solver]]\nkind = \"sarsa\"\nseat = \"o\"\nepisodes = 400\nalpha = { loguniform = [0.02, 1.0] }\n";
    let text = format!("{}{sarsa}", spec(20, 400).replace("startup = 8\n", "startup = 8\nper = \"sweep\"\n"));
    let spec = write_spec(tmp.path(), "sweep.toml", &text);
    let (one, two, split) = (tmp.path().join("one"), tmp.path().join("two"), tmp.path().join("split"));
    run_in(&spec, &one, 1, None);
    run_in(&spec, &two, 2, None);
    assert_eq!(run_sharded(&spec, &split, 3), 5);
    let a = files(&one);
    assert_eq!(a, files(&two));
    assert_eq!(a, files(&split));
    let (header, rows) = read_csv(&one.join("results.csv"));
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let tune = rows.iter().filter(|r| r[at("split")] == "tune");
    let trials: std::collections::BTreeSet<(String, String)> =
        tune.map(|r| (r[at("label")].clone(), r[at("trial")].clone())).collect();
    assert_eq!(trials.len(), 20);
    assert!(trials.iter().any(|t| t.0 == "sarsa") && trials.iter().any(|t| t.0 == "q-learning"));
}

#[test]
fn twenty_kills_at_random_moments_resume_to_the_same_files() {
    killed_twenty_times(&spec(24, 20000));
}

#[test]
fn a_bohb_search_killed_twenty_times_resumes_to_the_same_files() {
    let text = spec(24, 20000)
        .replace(
            "method = \"tpe\"\ntrials = 24\nbatch = 4\nstartup = 8\n",
            "method = \"bohb\"\neta = 3\nmin_budget = 2000\nmax_budget = 20000\n",
        )
        .replace("episodes = 20000\n", "");
    killed_twenty_times(&text);
}

/// Kills a run of `text` 20 times at moments from 5 to 120 ms after its start (a fixed
/// sequence), resumes it, and compares with an uninterrupted run on one thread.
fn killed_twenty_times(text: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "searched.toml", text);
    let spec = spec.to_str().unwrap();
    let (killed, whole) = (tmp.path().join("killed"), tmp.path().join("whole"));
    let out = killed.to_str().unwrap();
    // A fixed sequence of moments (a small LCG), from 5 to 120 ms after the start.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let (mut kills, mut midway) = (0, 0);
    while kills < 20 {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let wait = Duration::from_millis(5 + (state >> 33) % 115);
        let mut child = spawn(&["run", spec, "--quiet", "--threads", "2", "--out", out], &[]);
        let start = Instant::now();
        while start.elapsed() < wait && child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
        if child.try_wait().unwrap().is_some() {
            // It finished before its moment: start again from nothing.
            std::fs::remove_dir_all(&killed).unwrap();
            continue;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        let rows = std::fs::read_to_string(killed.join("results.csv")).map_or(0, |t| t.lines().count());
        midway += usize::from(rows > 1);
    }
    // Most kills land after some jobs finished and before the search did.
    assert!(midway >= 10, "only {midway} of 20 kills came after the first rows");
    until_unlocked(&killed);
    let o = run(&["run", spec, "--threads", "2", "--out", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    run_in(Path::new(spec), &whole, 1, None);
    assert_eq!(files(&killed), files(&whole));
    assert!(Manifest::read(&killed).unwrap().complete);
}

#[test]
fn extend_with_more_trials_keeps_every_trial_and_goes_on_as_if_never_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let small = write_spec(tmp.path(), "small.toml", &spec(12, 400));
    let large = write_spec(tmp.path(), "large.toml", &spec(22, 400));
    let (grown, fresh) = (tmp.path().join("grown"), tmp.path().join("fresh"));
    run_in(&small, &grown, 2, None);
    let before = without_timings(&grown.join("results.csv"));
    let o = run(&["run", large.to_str().unwrap(), "--quiet", "--extend", "--out", grown.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    run_in(&large, &fresh, 2, None);
    assert_eq!(files(&grown), files(&fresh));
    // Every tuning row of the smaller search is still there.
    let after = without_timings(&grown.join("results.csv"));
    let (header, _) = read_csv(&grown.join("results.csv"));
    let split = header.iter().filter(|c| *c != "train_ms" && *c != "eval_ms").position(|c| c == "split").unwrap();
    assert!(before.iter().filter(|r| r[split] == "tune").all(|r| after.contains(r)));
}

#[test]
fn run_says_each_round_s_best_and_plan_shows_the_rounds() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "tpe.toml", &spec(16, 300));
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for line in ["tpe round 0 of 3: 8 configurations, 16 jobs", "tpe round 2 of 3: 4 configurations, 8 jobs"] {
        assert!(err.contains(line), "{line} in {err}");
    }
    assert!(err.contains("after round 0: q-learning best so far trial"), "{err}");
    assert!(err.contains("test: the best 1 per solver"), "{err}");
    let o = run(&["plan", spec.to_str().unwrap(), "--threads", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("search: tpe, 16 trials per solver in 3 rounds"), "{text}");
    // 4 axes and 16 trials: fewer than 10 per axis.
    let err = stderr(&o);
    assert!(err.contains("warning: q-learning searches 4 axes with 16 trials: fewer than 10 per axis"), "{err}");
}

#[test]
fn nonsense_tpe_searches_are_refused_with_clear_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let base = spec(20, 400);
    let cases = [
        (base.replace("trials = 20\n", ""), "no trials: add trials = N"),
        (base.replace("batch = 4\n", "batch = 4\neta = 3\n"), "is a key of the rung methods"),
        (base.replace("episodes = 400\n", "episodes = 400\nsamples = 10\n"), "remove samples"),
        (
            base.replace("alpha = { loguniform = [0.02, 1.0] }\ngamma = { uniform = [0.5, 1.0] }\n", "")
                .replace("epsilon_min_at = { uniform = [0.05, 1.0] }\nepsilon_min = [0.01, 0.1]\n", ""),
            "has nothing for [search] to search",
        ),
    ];
    for (text, message) in cases {
        let spec = write_spec(tmp.path(), "bad.toml", &text);
        let o = run(&["plan", spec.to_str().unwrap()]);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(message), "{message} in {}", stderr(&o));
    }
    let halving = "[search]\nmethod = \"halving\"\nmin_budget = 10\nmax_budget = 90\ntrials = 5\n";
    let text = format!("[[solver]]\nkind = \"q-learning\"\nalpha = [0.1, 0.2]\n{halving}");
    let spec = write_spec(tmp.path(), "bad.toml", &text);
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(stderr(&o).contains("is a key of method = \"tpe\""), "{}", stderr(&o));
}
