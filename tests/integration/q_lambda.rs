//! Watkins's Q(lambda) from the command line: `experiments/q-lambda.toml`, where lambda = 0
//! is Q-learning replicate for replicate and traces help on a short budget.

use crate::common::{read_csv, run, stderr};

#[test]
fn lambda_zero_is_q_learning_on_every_replicate_and_traces_learn_faster() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("q-lambda");
    let o = run(&["run", "experiments/q-lambda.toml", "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    let (solver, lambda, replicate, regret, status) =
        (col("solver"), col("lambda"), col("replicate"), col("regret"), col("status"));
    assert!(rows.iter().all(|r| r[status] == "ok"));
    let regrets = |kind: &str, l: &str| -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = rows
            .iter()
            .filter(|r| r[solver] == kind && r[lambda] == l)
            .map(|r| (r[replicate].clone(), r[regret].parse().unwrap()))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    let q = regrets("q-learning", "");
    assert_eq!(q.len(), 10);
    // The same seed per replicate: the same games, the same table, the same regret.
    assert_eq!(regrets("q-lambda", "0.0"), q);
    assert!(q.iter().all(|(_, r)| *r >= 0.0), "regret is never below 0");
    let mean = |v: &[(String, f64)]| v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64;
    // Measured: Q-learning 0.1435, lambda 0.5 0.1049, lambda 0.8 0.1055 (mean exact
    // regret over the 10 replicates).
    for l in ["0.5", "0.8"] {
        let traced = mean(&regrets("q-lambda", l));
        assert!(traced < mean(&q) - 0.02, "lambda {l}: {traced} against Q-learning's {}", mean(&q));
    }
}
