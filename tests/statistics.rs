//! `compare`, `importance` and `summary --stat` through the command line, on the smoke
//! results and on the first version's results directory (whose newer columns are empty).

mod common;

use common::*;

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
    for col in ["label", "difference", "ci95_low", "p_wilcoxon", "p_holm", "p_improve", "verdict"] {
        assert!(header.contains(col), "{header}");
    }
    assert!(text.lines().any(|l| l.starts_with("mcts,x,random,3x3k3,mcts,iterations=") && l.ends_with(",baseline")));
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
    assert!(stdout(&o).lines().next().unwrap().contains("iqm_regret  boot_low  boot_high  vs_best"));
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
    assert!(stdout(&o).contains("mcts,x,random,3x3k3,iterations,1.000000"), "{}", stdout(&o));
    let o = run(&["importance", fixture().to_str().unwrap(), "--csv"]);
    assert!(o.status.success(), "the first version's results: {}", stderr(&o));
}
