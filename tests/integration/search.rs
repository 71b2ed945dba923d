//! Command-line tests of sampled axes and the cost guard: `--extend` after raising
//! `samples` keeps the earlier jobs (ids and rows); a run estimated at more than an hour
//! needs `--yes` when there is no terminal to ask on; `plan` shows the notes and warnings.

use std::collections::HashMap;

use crate::common::*;

fn sampled_spec(samples: u32) -> String {
    format!(
        "name = \"sampled\"\nseed = 11\nreplicates = 2\n[evaluation]\ncheckpoints = 2\n\
         [[solver]]\nkind = \"mcts\"\nlabel = \"search\"\nsamples = {samples}\nsampler = \"sobol\"\n\
         iterations = {{ int_loguniform = [5, 40] }}\nuct_c = {{ loguniform = [0.1, 5] }}\n\
         [[solver]]\nkind = \"q-learning\"\nepisodes = 200\nreplicates = 1\n\
         epsilon_decay = {{ one_minus_logspace = [-3, -2, 2] }}\n"
    )
}

/// The results rows without timings, by job id.
fn rows_by_job(dir: &std::path::Path) -> HashMap<String, Vec<Vec<String>>> {
    let mut by_job: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    for row in without_timings(&dir.join("results.csv")) {
        by_job.entry(row[0].clone()).or_default().push(row);
    }
    by_job
}

#[test]
fn extend_after_raising_samples_keeps_the_earlier_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let spec = write_spec(tmp.path(), "sampled.toml", &sampled_spec(4));
    let first = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(first.status.success(), "{}", stderr(&first));
    let before = rows_by_job(&out);
    // 4 sampled points x 2 replicates, plus 2 q-learning points x 1 replicate.
    assert_eq!(before.len(), 10);

    write_spec(tmp.path(), "sampled.toml", &sampled_spec(8));
    let same = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert_eq!(same.status.code(), Some(2), "a changed spec needs --extend");
    let second = run(&["run", spec.to_str().unwrap(), "--quiet", "--extend", "--out", out.to_str().unwrap()]);
    assert!(second.status.success(), "{}", stderr(&second));
    let after = rows_by_job(&out);
    assert!(after.len() > before.len() && after.len() <= 18, "{} jobs", after.len());
    for (id, rows) in &before {
        assert_eq!(after.get(id), Some(rows), "job {id} changed");
    }
}

#[test]
fn more_than_an_hour_needs_yes_without_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "name = \"long\"\n[[solver]]\nkind = \"q-learning\"\nepisodes = 1e12\n";
    let spec = write_spec(tmp.path(), "long.toml", text);
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("long.toml: `sweep plan` estimates"), "{err}");
    assert!(err.contains(" h of wall time on 2 threads (1 jobs), more than an hour; add --yes"), "{err}");
    assert!(!out.exists(), "nothing is written");
    let plan = run(&["plan", spec.to_str().unwrap()]);
    assert!(stdout(&plan).contains("more than an hour: `sweep run` will ask before starting"), "{}", stdout(&plan));
}

#[test]
fn plan_shows_notes_and_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "[[solver]]\nkind = \"mcts\"\niterations = { logspace = [1, 2, 3] }\n\
                [[solver]]\nkind = \"q-learning\"\nepisodes = 1000\nepsilon_decay = 0.5\n";
    let spec = write_spec(tmp.path(), "notes.toml", text);
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o)
            .contains("note: solver[1].iterations = { logspace = [1, 2, 3] }: rounded to whole numbers: 10, 32, 100")
    );
    assert!(
        stderr(&o).contains("warning: solver[2] (q-learning): epsilon reaches its floor epsilon_min"),
        "{}",
        stderr(&o)
    );
}
