//! The sweeper end to end: the smoke spec's files, thread-count independence,
//! reproduction, plan, and every experiment parsing.

use crate::common;
use std::collections::HashSet;

use crate::common::*;

const COLUMNS: &str = "job_id,solver,replicate,seed,seat,opponent,episodes,alpha,alpha_decay,alpha_min,gamma,epsilon,epsilon_decay,epsilon_min,q_init,symmetry,iterations,uct_c,opponent_model,final_move,eval_opponent,\
                       value,optimal_value,regret,p_win,p_draw,p_loss,games,wins,draws,losses,states,status,error,train_ms,eval_ms,exploration,temperature,temperature_decay,temperature_min,step,label,regret_auc,solved_at,q_error,rung,game,evaluation,value_se,\
                       epsilon_min_at,alpha_min_at,temperature_min_at,split,params,metrics,policy_hash,lambda,trial,round,accuracy";

#[test]
fn smoke_sweep_writes_tidy_reproducible_files() {
    let tmp = tempfile::tempdir().unwrap();
    let one = tmp.path().join("one");
    let two = tmp.path().join("two");
    run_smoke(&one, &["--threads", "1"]);
    run_smoke(&two, &["--threads", "2"]);

    let (header, rows) = read_csv(&one.join("results.csv"));
    assert_eq!(header.join(","), COLUMNS);
    // smoke.toml: q-learning 2 points, self-play 1 point (both seats), mcts 2 points,
    // policy iteration 1, value iteration 1; 2 replicates; 2 evaluation opponents.
    let jobs = (2 + 1 + 2 + 1 + 1) * 2;
    let seat_evals = (2 + 2 + 2 + 1 + 1) * 2;
    assert_eq!(rows.len(), seat_evals * 2, "rows = jobs × seats × evaluation opponents");
    let ids: HashSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(ids.len(), jobs, "one id per job");
    let keys: HashSet<(&str, &str, &str)> =
        rows.iter().map(|r| (r[0].as_str(), r[4].as_str(), r[20].as_str())).collect();
    assert_eq!(keys.len(), rows.len(), "one row per (job, seat, evaluation opponent)");
    for r in &rows {
        assert_eq!(r[32], "ok", "{r:?}");
        let regret: f64 = r[23].parse().unwrap();
        assert!(regret >= 0.0, "negative regret in {r:?}");
        let (v, opt): (f64, f64) = (r[21].parse().unwrap(), r[22].parse().unwrap());
        assert!((opt - v - regret).abs() < 1e-12);
        let p: f64 = (24..27).map(|i| r[i].parse::<f64>().unwrap()).sum();
        assert!((p - 1.0).abs() < 1e-9);
        let games: u64 = r[27].parse().unwrap();
        let wdl: u64 = (28..31).map(|i| r[i].parse::<u64>().unwrap()).sum();
        assert_eq!(games, 200);
        assert_eq!(wdl, games);
        // The sampled games agree with the exact value within their confidence interval
        // (z = 4: about 60 rows are checked at once).
        let (w, l): (f64, f64) = (r[28].parse().unwrap(), r[30].parse().unwrap());
        let mean = (w - l) / games as f64;
        let var = r[24].parse::<f64>().unwrap() + r[26].parse::<f64>().unwrap() - v * v;
        assert!((mean - v).abs() <= 4.0 * (var.max(0.0) / games as f64).sqrt() + 1e-12, "{r:?}");
    }
    // Thread count changes nothing but timings.
    assert_eq!(without_timings(&one.join("results.csv")), without_timings(&two.join("results.csv")));
    assert_eq!(std::fs::read(one.join("curves.csv")).unwrap(), std::fs::read(two.join("curves.csv")).unwrap());
    let (ch, curves) = read_csv(&one.join("curves.csv"));
    assert_eq!(ch.join(","), "job_id,episode,seat,eval_opponent,value,regret,p_win,p_draw,p_loss,epsilon,alpha");
    // q-learning: 4 jobs × 4 checkpoints × 2 opponents; self-play: 2 jobs × 4 × 2 seats × 2.
    assert_eq!(curves.len(), 4 * 4 * 2 + 2 * 4 * 2 * 2);

    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(one.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["complete"], true);
    assert_eq!(manifest["jobs_done"], jobs);
    assert_eq!(manifest["generator"], "rand_pcg::Pcg64Mcg");
    assert_eq!(manifest["master_seed"], 7);

    // Reproduce three jobs, by unique prefixes.
    let mut some: Vec<&str> = ids.iter().copied().collect();
    some.sort();
    for id in some.iter().step_by(5) {
        let o = run(&["reproduce", one.to_str().unwrap(), "--job", &id[..8]]);
        assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("reproduced: every column but the timings is identical"));
    }
    // An empty prefix matches every job; a prefix of no job is refused.
    let o = run(&["reproduce", one.to_str().unwrap(), "--job", ""]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(&format!("{} jobs have ids starting with", ids.len())), "{}", stderr(&o));
    assert!(stderr(&o).contains(some[0]) && stderr(&o).contains("give more digits"), "{}", stderr(&o));
    let o = run(&["reproduce", one.to_str().unwrap(), "--job", "zz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no job in") && stderr(&o).contains("\"zz\""), "{}", stderr(&o));
    // Alter one value: reproduce must notice.
    let text = std::fs::read_to_string(one.join("results.csv")).unwrap();
    let first_row = text.lines().nth(1).unwrap().to_string();
    let mut cells: Vec<String> = first_row.split(',').map(String::from).collect();
    cells[21] = "0.123".into();
    std::fs::write(one.join("results.csv"), text.replacen(&first_row, &cells.join(","), 1)).unwrap();
    let o = run(&["reproduce", one.join("results.csv").to_str().unwrap(), "--job", &cells[0]]);
    assert_eq!(o.status.code(), Some(2), "the file is not what sweep wrote: {}", stderr(&o));
    assert!(stderr(&o).contains("results.csv has changed since sweep wrote it"), "{}", stderr(&o));
    // Without the hashes (as an older version wrote the manifest), the value is compared.
    let manifest = std::fs::read_to_string(one.join("manifest.json")).unwrap();
    let mut manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    manifest.as_object_mut().unwrap().remove("written");
    std::fs::write(one.join("manifest.json"), manifest.to_string()).unwrap();
    let o = run(&["reproduce", one.join("results.csv").to_str().unwrap(), "--job", &cells[0]]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("DIFFERENT"));
}

#[test]
fn reproduce_writes_the_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run_smoke(&out, &[]);
    let (_, rows) = read_csv(&out.join("results.csv"));
    let pi = rows.iter().find(|r| r[1] == "value-iteration").unwrap();
    let policy = tmp.path().join("policy.csv");
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", &pi[0], "--policy-out", policy.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (h, moves) = read_csv(&policy);
    assert_eq!(h, ["board", "action", "seat", "game"], "a policy file records its seat and game");
    // One line per state the policy reaches against random: the job's `states` column.
    let vs_random = rows.iter().find(|r| r[0] == pi[0] && r[20] == "random").unwrap();
    assert_eq!(moves.len().to_string(), vs_random[31]);
    for m in &moves {
        let cell: usize = m[1].parse().unwrap();
        assert_eq!(m[0].as_bytes()[cell], b'.');
        assert_eq!(m[2], "x", "the smoke spec's value iteration plays x");
    }
}

#[test]
fn plan_counts_jobs_and_writes_nothing() {
    let before = snapshot(&common::root().join("results"));
    let o = run(&["plan", "experiments/qlearning.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("270"), "27 points × 10 replicates of q-learning: {text}");
    assert!(text.contains("total: 280 jobs"), "{text}");
    assert!(text.contains("estimated wall time"), "{text}");
    assert_eq!(snapshot(&common::root().join("results")), before, "plan writes nothing");
}

#[test]
fn plan_counts_what_a_directory_already_holds() {
    // A finished run of one grid, then the plan of the same grid with one more alpha: the
    // estimate of what a run there would still do covers the new points only.
    let tmp = tempfile::tempdir().unwrap();
    let small = "name = \"p\"\nseed = 1\nreplicates = 2\n[[solver]]\nkind = \"q-learning\"\nepisodes = 500\nalpha = [0.1, 0.2]\n";
    let spec = common::write_spec(tmp.path(), "small.toml", small);
    let out = tmp.path().join("p");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let large = common::write_spec(tmp.path(), "large.toml", &small.replace("[0.1, 0.2]", "[0.1, 0.2, 0.3]"));
    let before = std::fs::read(out.join("results.csv")).unwrap();
    let o = run(&["plan", large.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(&format!("{} already holds 4 of these 6 jobs; a run there runs the other 2", out.display())),
        "{text}"
    );
    assert_eq!(std::fs::read(out.join("results.csv")).unwrap(), before, "plan writes nothing");
    // Elsewhere, nothing is held: no such line.
    let o = run(&["plan", large.to_str().unwrap(), "--out", tmp.path().join("none").to_str().unwrap()]);
    assert!(!stdout(&o).contains("already holds"), "{}", stdout(&o));
}

#[test]
fn every_experiment_parses() {
    for entry in std::fs::read_dir(common::root().join("experiments")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "toml") {
            let o = run(&["plan", p.to_str().unwrap()]);
            assert!(o.status.success(), "{}: {}", p.display(), stderr(&o));
        }
    }
}
