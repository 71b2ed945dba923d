//! Shards and merge: a split sweep merges into the files one machine writes; broken
//! splits are refused with what is wrong.

use crate::common::*;

/// Runs shard `k` of `n` of the smoke spec into `out`, with `extra` flags; asserts success.
fn shard_with(out: &std::path::Path, k: u32, n: u32, extra: &[&str]) {
    let spec = format!("{k}/{n}");
    let mut args = vec!["run", "experiments/smoke.toml", "--quiet", "--out", out.to_str().unwrap(), "--shard", &spec];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

fn shard(out: &std::path::Path, k: u32, n: u32) {
    shard_with(out, k, n, &[]);
}

#[test]
fn three_shards_merge_into_the_one_machine_files() {
    let tmp = tempfile::tempdir().unwrap();
    let (split, local) = (tmp.path().join("split"), tmp.path().join("local"));
    run_smoke(&local, &[]);
    for k in 0..3 {
        shard(&split, k, 3);
        assert!(split.join(format!("shards/{k}-of-3/manifest.json")).exists());
    }
    let o = run(&["merge", split.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("merged 3 shards: 14 jobs"), "{}", stdout(&o));
    assert_eq!(without_timings(&split.join("results.csv")), without_timings(&local.join("results.csv")));
    assert_eq!(std::fs::read(split.join("curves.csv")).unwrap(), std::fs::read(local.join("curves.csv")).unwrap());
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(split.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["complete"], true);
    assert_eq!(m["jobs_done"], 14);
    assert!(m["shard"].is_null());
}

#[test]
fn broken_splits_are_refused_with_what_is_wrong() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    shard(&out, 0, 3);
    shard(&out, 2, 3);
    let o = run(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing shards") && stderr(&o).contains("1-of-3"), "{}", stderr(&o));
    assert!(!out.join("results.csv").exists());
    // An incomplete shard (only one of its jobs ran).
    let ids: Vec<String> =
        read_csv(&out.join("shards/0-of-3/results.csv")).1.into_iter().map(|r| r[0].clone()).collect();
    let mut ids1 = Vec::new();
    let probe = tmp.path().join("probe");
    run_smoke(&probe, &[]);
    for r in read_csv(&probe.join("results.csv")).1 {
        if !ids.contains(&r[0]) && !ids1.contains(&r[0]) {
            ids1.push(r[0].clone());
        }
    }
    shard_with(&out, 1, 3, &["--only", &ids1[0]]);
    let o = run(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("incomplete shards: 1-of-3"), "{}", stderr(&o));
    // Finish it: the same command without --only resumes the shard.
    shard(&out, 1, 3);
    // Mixed N.
    shard(&out, 0, 2);
    let o = run(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("mixes splits"), "{}", stderr(&o));
    std::fs::remove_dir_all(out.join("shards/0-of-2")).unwrap();
    let o = run(&["merge", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A shard of another spec.
    let other = write_spec(
        tmp.path(),
        "smoke.toml",
        &std::fs::read_to_string(experiment("smoke.toml")).unwrap().replace("seed = 7", "seed = 8"),
    );
    std::fs::remove_dir_all(out.join("shards/2-of-3")).unwrap();
    let o = run(&["run", other.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap(), "--shard", "2/3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("shards disagree") && stderr(&o).contains("2-of-3"), "{}", stderr(&o));
}

#[test]
fn tampered_shards_name_missing_duplicated_and_unknown_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("t");
    shard(&out, 0, 2);
    shard(&out, 1, 2);
    let (r0, r1) = (out.join("shards/0-of-2/results.csv"), out.join("shards/1-of-2/results.csv"));
    let lines = |p: &std::path::Path| -> Vec<String> {
        std::fs::read_to_string(p).unwrap().lines().map(|l| format!("{l}\n")).collect()
    };
    let (l0, l1) = (lines(&r0), lines(&r1));
    let id = |l: &str| l.split(',').next().unwrap().to_string();
    // Shard 1 loses its first job, gains a copy of shard 0's first job, and a row of a
    // job that is not in the spec.
    let (gone, copied) = (id(&l1[1]), id(&l0[1]));
    let mut tampered: Vec<String> = l1.iter().filter(|l| id(l) != gone).cloned().collect();
    tampered.extend(l0.iter().filter(|l| id(l) == copied).cloned());
    tampered.push(l0[1].replacen(&copied, "000000000000", 1));
    std::fs::write(&r1, tampered.concat()).unwrap();
    let o = run(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let changed = format!("{} has changed since sweep wrote it", r1.display());
    assert!(stderr(&o).contains(&changed), "the shard's hashes find it first: {}", stderr(&o));
    // Without them (a shard of an older version), the jobs say what is wrong.
    let manifest = out.join("shards/1-of-2/manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m.as_object_mut().unwrap().remove("written");
    std::fs::write(&manifest, m.to_string()).unwrap();
    let o = run(&["merge", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("1 job missing") && e.contains(&gone), "{e}");
    assert!(e.contains("1 job in two shards") && e.contains(&format!("{copied} (shards 0 and 1)")), "{e}");
    assert!(e.contains("1 row of jobs not in the spec"), "{e}");
    assert!(!out.join("results.csv").exists() && !out.join("curves.csv").exists());
    // Restored, the merge goes through.
    std::fs::write(&r1, l1.concat()).unwrap();
    let o = run(&["merge", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read_csv(&out.join("results.csv")).1.len(), l0.len() + l1.len() - 2);
}

#[test]
fn slurm_array_variables_choose_the_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("s");
    let o = sweep()
        .args(["run", "experiments/smoke.toml", "--out", out.to_str().unwrap()])
        .env("SLURM_ARRAY_TASK_ID", "5")
        .env("SLURM_ARRAY_TASK_MIN", "4")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("shard 1 of 2") && stderr(&o).contains("Slurm"), "{}", stderr(&o));
    let (_, rows) = read_csv(&out.join("shards/1-of-2/results.csv"));
    assert!(!rows.is_empty());
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("shards/1-of-2/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["shard"]["index"], 1);
    assert_eq!(m["shard"]["count"], 2);
}

#[test]
fn summary_ranks_configurations_with_intervals() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sum");
    run_smoke(&out, &[]);
    let o = run(&["summary", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for col in ["solver", "alpha", "eval_opponent", "n", "mean_regret", "ci95_low", "ci95_high", "p_win", "train_ms"] {
        assert!(text.lines().next().unwrap().contains(col), "{col}: {text}");
    }
    let o = run(&["summary", out.join("results.csv").to_str().unwrap(), "--csv"]);
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let h = r.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    // Configurations: 2 + 1 + 2 + 1 + 1 grid points, self-play in two seats, 2 opponents.
    assert_eq!(rows.len(), (2 + 2 + 2 + 1 + 1) * 2);
    for row in &rows {
        assert_eq!(&row[col("n")], "2");
        let (lo, mean, hi): (f64, f64, f64) = (
            row[col("ci95_low")].parse().unwrap(),
            row[col("mean_regret")].parse().unwrap(),
            row[col("ci95_high")].parse().unwrap(),
        );
        assert!(lo <= mean && mean <= hi);
    }
    // Best first within each (solver, seat, evaluation opponent).
    let block = |r: &csv::StringRecord| {
        (r[col("solver")].to_string(), r[col("seat")].to_string(), r[col("eval_opponent")].to_string())
    };
    for w in rows.windows(2) {
        if block(&w[0]) == block(&w[1]) {
            assert!(
                w[0][col("mean_regret")].parse::<f64>().unwrap() <= w[1][col("mean_regret")].parse::<f64>().unwrap()
            );
        }
    }
    // Four solvers, the footer, and the line that says groups pool configurations.
    let o = run(&["summary", out.to_str().unwrap(), "--by", "solver"]);
    assert_eq!(stdout(&o).lines().count(), 1 + 4 + 2, "{}", stdout(&o));
    assert!(stdout(&o).contains("several configurations' runs on each replicate"), "{}", stdout(&o));
    let o = run(&["summary", out.to_str().unwrap(), "--by", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn summary_counts_failed_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("f");
    let o = sweep()
        .args(["run", "experiments/smoke.toml", "--quiet", "--out", out.to_str().unwrap()])
        .env("SWEEP_FAULT", "error:")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["summary", out.to_str().unwrap(), "--csv"]);
    let text = stdout(&o);
    assert!(text.lines().skip(1).all(|l| l.contains(",0,2,") || l.contains(",0,4,")), "n=0, failed counted: {text}");
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for cmd in ["run", "plan", "solve", "reproduce", "merge", "summary", "play", "bench", "completions"] {
        let o = run(&[cmd, "--help"]);
        assert!(o.status.success(), "{cmd}");
        assert!(stdout(&o).contains("Example"), "{cmd} --help has no example");
    }
}
