//! Properties of successive halving and Hyperband, through the library's executor: the
//! files do not depend on the thread count or on sharding (shards merged once per rung
//! equal a local search); every row of a search is the row of the same job in a plain
//! grid over the rung budgets (the `rung` column aside); and with `eta` so large that
//! there is one rung (nothing is cut), the files equal the plain grid at `max_budget`;
//! each rung keeps the best share by the mean over replicates of the search's metric
//! (`regret` or `regret_auc`).

use std::path::{Path, PathBuf};

use crate::common::*;
use proptest::prelude::*;
use sweep::report::manifest::Shard;
use sweep::run;

/// A small searched spec: `alphas` x 2 epsilons, `replicates`, budgets `min..=max`.
fn searched(method: &str, eta: u64, min: u64, max: u64, alphas: &[f64], replicates: u32, seed: u64) -> String {
    let alphas: Vec<String> = alphas.iter().map(|a| a.to_string()).collect();
    format!(
        "name = \"hv\"\nseed = {seed}\nreplicates = {replicates}\n[evaluation]\ncheckpoints = 2\n\
         [search]\nmethod = \"{method}\"\neta = {eta}\nmin_budget = {min}\nmax_budget = {max}\n\
         [[solver]]\nkind = \"q-learning\"\nalpha = [{}]\nepsilon = [0.1, 0.3]\n",
        alphas.join(", ")
    )
}

/// The same grid without `[search]`, at the budgets `episodes`.
fn grid(episodes: &[u64], alphas: &[f64], replicates: u32, seed: u64) -> String {
    let alphas: Vec<String> = alphas.iter().map(|a| a.to_string()).collect();
    let episodes: Vec<String> = episodes.iter().map(|e| e.to_string()).collect();
    format!(
        "name = \"hv\"\nseed = {seed}\nreplicates = {replicates}\n[evaluation]\ncheckpoints = 2\n\
         [[solver]]\nkind = \"q-learning\"\nepisodes = [{}]\nalpha = [{}]\nepsilon = [0.1, 0.3]\n",
        episodes.join(", "),
        alphas.join(", ")
    )
}

/// Runs a search as a cluster would: every shard, then a merge, once per rung.
fn run_sharded(spec: &Path, out: &Path, shards: u32, rungs: usize) {
    for _ in 0..rungs {
        for index in 0..shards {
            run_in(spec, out, 1, Some(Shard { index, count: shards }));
        }
        run::merge::merge(out).unwrap();
    }
}

fn column(path: &Path, name: &str) -> Vec<String> {
    let (header, rows) = read_csv(path);
    let i = header.iter().position(|c| c == name).unwrap();
    rows.into_iter().map(|r| r[i].clone()).collect()
}

/// Rows without timings and without a search's position: the `rung`, `trial` and `round`
/// columns (a grid leaves them empty).
fn without_rung(path: &Path) -> Vec<Vec<String>> {
    let (header, _) = read_csv(path);
    let kept: Vec<&String> = header.iter().filter(|c| *c != "train_ms" && *c != "eval_ms").collect();
    let search = ["rung", "trial", "round"];
    without_timings(path)
        .into_iter()
        .map(|r| r.into_iter().zip(&kept).filter(|(_, c)| !search.contains(&c.as_str())).map(|(v, _)| v).collect())
        .collect()
}

fn files(dir: &Path) -> (Vec<Vec<String>>, Vec<u8>) {
    (without_timings(&dir.join("results.csv")), std::fs::read(dir.join("curves.csv")).unwrap())
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    write_spec(dir, name, text)
}

/// A searched spec ranked by `metric` (`regret` is the default).
fn with_metric(text: &str, metric: &str) -> String {
    text.replace("[search]\n", &format!("[search]\nmetric = \"{metric}\"\n"))
}

/// The files of the search `spec` on 1 thread, on 2 threads and in `shards` shards merged
/// once per rung.
fn files_everywhere(spec: &Path, shards: u32) -> [(Vec<Vec<String>>, Vec<u8>); 3] {
    let dir = spec.parent().unwrap();
    let rungs = sweep::spec::load(spec).unwrap().search.unwrap().budgets().len();
    let (one, two, split) = (dir.join("one"), dir.join("two"), dir.join("split"));
    run_in(spec, &one, 1, None);
    run_in(spec, &two, 2, None);
    run_sharded(spec, &split, shards, rungs);
    assert!(sweep::report::manifest::Manifest::read(&split).unwrap().complete);
    [files(&one), files(&two), files(&split)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]

    #[test]
    fn the_same_files_on_any_thread_count_and_any_sharding(
        hyperband in any::<bool>(),
        eta in 2u64..4,
        alphas in proptest::sample::subsequence(vec![0.05, 0.1, 0.2, 0.4, 0.8], 2..=5),
        replicates in 1u32..3,
        shards in 2u32..4,
        seed in 0u64..1000,
    ) {
        let method = if hyperband { "hyperband" } else { "halving" };
        let tmp = tempfile::tempdir().unwrap();
        let spec = write(tmp.path(), "hv.toml", &searched(method, eta, 40, 400, &alphas, replicates, seed));
        let [one_thread, two_threads, sharded] = files_everywhere(&spec, shards);
        prop_assert_eq!(&one_thread, &two_threads);
        prop_assert_eq!(&one_thread, &sharded);
        let one = tmp.path().join("one");
        // Every row is the plain grid's row of the same job, the rung aside.
        let budgets = sweep::spec::load(&spec).unwrap().search.unwrap().budgets();
        let plain = write(tmp.path(), "grid.toml", &grid(&budgets, &alphas, replicates, seed));
        let full = tmp.path().join("grid");
        run_in(&plain, &full, 2, None);
        let grid_rows = without_rung(&full.join("results.csv"));
        for row in without_rung(&one.join("results.csv")) {
            prop_assert!(grid_rows.contains(&row), "a search row is not the grid's: {:?}", row);
        }
    }
}

#[test]
fn with_one_rung_nothing_is_cut_and_the_files_equal_the_grid_at_max_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let alphas = [0.1, 0.3, 0.5];
    let spec = write(tmp.path(), "hv.toml", &searched("halving", 1000, 50, 300, &alphas, 2, 5));
    let plain = write(tmp.path(), "grid.toml", &grid(&[300], &alphas, 2, 5));
    let (search, full) = (tmp.path().join("search"), tmp.path().join("grid"));
    run_in(&spec, &search, 2, None);
    run_in(&plain, &full, 2, None);
    assert!(column(&search.join("results.csv"), "rung").iter().all(|r| r == "0"));
    assert!(column(&full.join("results.csv"), "rung").iter().all(|r| r.is_empty()));
    assert_eq!(without_rung(&search.join("results.csv")), without_rung(&full.join("results.csv")));
    assert_eq!(std::fs::read(search.join("curves.csv")).unwrap(), std::fs::read(full.join("curves.csv")).unwrap());
}

#[test]
fn each_rung_keeps_the_best_share_by_the_mean_regret_over_replicates() {
    keeps_the_best_share_by_the_mean_over_replicates("regret", 8);
}

#[test]
fn each_rung_keeps_the_best_share_by_the_mean_regret_auc_over_replicates() {
    // With this seed the two metrics keep different configurations after rung 0, so the
    // search reads the metric it is given.
    let by_auc = keeps_the_best_share_by_the_mean_over_replicates("regret_auc", 11);
    let by_regret = keeps_the_best_share_by_the_mean_over_replicates("regret", 11);
    assert_eq!(by_auc[0], by_regret[0]);
    assert_ne!(by_auc[1], by_regret[1]);
}

#[test]
fn a_regret_auc_search_gives_the_same_files_on_any_thread_count_and_sharding() {
    let tmp = tempfile::tempdir().unwrap();
    let text = with_metric(&searched("halving", 2, 40, 320, &[0.05, 0.1, 0.2, 0.4], 2, 11), "regret_auc");
    let spec = write(tmp.path(), "hv.toml", &text);
    let [one_thread, two_threads, sharded] = files_everywhere(&spec, 3);
    assert_eq!(one_thread, two_threads);
    assert_eq!(one_thread, sharded);
    // 8 configurations, halved at budgets 40, 80, 160 and 320: one goes the whole way.
    let rungs: Vec<String> = column(&tmp.path().join("one").join("results.csv"), "rung");
    assert_eq!(rungs.iter().filter(|r| *r == "3").count(), 2, "one configuration x 2 replicates at the last rung");
}

/// Runs a halving search ranked by `metric` and checks, from `results.csv` alone, that
/// each rung's configurations are the best share of the previous rung's by the mean of
/// the metric over replicates (ties by spec order). Returns each rung's configurations
/// (`alpha`, `epsilon`) in spec order.
fn keeps_the_best_share_by_the_mean_over_replicates(metric: &str, seed: u64) -> Vec<Vec<(String, String)>> {
    let tmp = tempfile::tempdir().unwrap();
    let alphas = [0.05, 0.1, 0.2, 0.4];
    let spec = write(tmp.path(), "hv.toml", &with_metric(&searched("halving", 2, 50, 400, &alphas, 3, seed), metric));
    let out = tmp.path().join("out");
    run_in(&spec, &out, 2, None);
    let (header, rows) = read_csv(&out.join("results.csv"));
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let (rung, alpha, epsilon, value) = (at("rung"), at("alpha"), at("epsilon"), at(metric));
    // Mean of the metric per (rung, configuration), in spec order.
    let mut means: Vec<(String, (String, String), f64, u32)> = Vec::new();
    for r in &rows {
        let config = (r[alpha].clone(), r[epsilon].clone());
        let value: f64 = r[value].parse().unwrap();
        match means.iter_mut().find(|m| m.0 == r[rung] && m.1 == config) {
            Some(m) => (m.2, m.3) = (m.2 + value, m.3 + 1),
            None => means.push((r[rung].clone(), config, value, 1)),
        }
    }
    let counts: Vec<usize> = ["0", "1", "2", "3"].iter().map(|k| means.iter().filter(|m| m.0 == *k).count()).collect();
    assert_eq!(counts, [8, 4, 2, 1]);
    for k in 0..3 {
        let here: Vec<_> = means.iter().filter(|m| m.0 == k.to_string()).collect();
        let next: Vec<_> = means.iter().filter(|m| m.0 == (k + 1).to_string()).map(|m| &m.1).collect();
        let mut ranked: Vec<(f64, usize)> = here.iter().enumerate().map(|(i, m)| (m.2 / f64::from(m.3), i)).collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut best: Vec<&(String, String)> = ranked[..next.len()].iter().map(|&(_, i)| &here[i].1).collect();
        best.sort_by_key(|c| here.iter().position(|m| &m.1 == *c));
        assert_eq!(best, next, "rung {k}");
    }
    (0..4).map(|k| means.iter().filter(|m| m.0 == k.to_string()).map(|m| m.1.clone()).collect()).collect()
}
