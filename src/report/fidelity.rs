//! Whether a short budget ranks configurations as the full one does: for a full grid whose
//! learners wrote curves, the Spearman correlation between the ranking of configurations
//! at each checkpoint episode and their final ranking, the input of `sweep fidelity`.
//!
//! A block is one (solver, seat, evaluation opponent, game, episodes): configurations are
//! ranked against the others of the same budget. A configuration is the values of every
//! other parameter; its score at a checkpoint is the mean regret over its replicates
//! there (`curves.csv`), and its final score the mean of its final regret
//! (`results.csv`). Failed jobs and a `[test]`'s rows are left out. A search's results are refused: its
//! configurations stop at different budgets, so they have no common final ranking.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Result;

use super::paired_runs::{block_columns, default_config_columns};
use super::result_row::{each_curve, each_result};
use super::{CurveField, Field, ParamColumn, column};
use crate::error::bad_input;
use crate::stats::paired::mean_ranks;
use crate::stats::rank::spearman;

/// How far one block's ranking of configurations at one checkpoint agrees with its final
/// ranking: a row of `sweep fidelity`.
#[derive(Clone, Debug, PartialEq)]
pub struct RankAgreement {
    /// The values of [`block_columns`] and `episodes`.
    pub block: Vec<String>,
    /// The checkpoint's episode.
    pub episode: u64,
    /// Configurations ranked (those with a score at this checkpoint).
    pub configurations: usize,
    /// Spearman's rho between the checkpoint's ranking and the final one (`None`: one
    /// side has no ranking, every score equal).
    pub spearman: Option<f64>,
    /// The rank (1 = best, ties at their mean rank) at this checkpoint of the
    /// configuration that ranks best at the end (the first in file order among ties).
    pub final_best_rank: f64,
}

/// A block's key and its configurations (key and scores), in file order.
type Configs = (Vec<String>, Vec<(Vec<String>, Scores)>);
/// Where each block and, within it, each configuration is in the list.
type Index = HashMap<Vec<String>, (usize, HashMap<Vec<String>, usize>)>;

/// Scores of one configuration: (sum, count) of the final regret and, per checkpoint
/// episode, of the regret there.
#[derive(Default)]
struct Scores {
    last: (f64, u32),
    at: BTreeMap<u64, (f64, u32)>,
}

fn mean((sum, n): (f64, u32)) -> f64 {
    sum / f64::from(n)
}

/// The agreement at every checkpoint of every block of the results in `dir` with at least
/// three configurations, in file order then by episode.
pub fn fidelity(dir: &Path) -> Result<Vec<RankAgreement>> {
    let results = dir.join("results.csv");
    let episodes = ParamColumn::Episodes;
    let block_at: Vec<usize> = block_columns().iter().map(|c| column(c)).chain([episodes.column()]).collect();
    let config_at: Vec<usize> =
        default_config_columns().into_iter().filter(|&c| c != episodes.name()).map(column).collect();
    // Block key -> configuration key -> scores; and each evaluation's place.
    let mut blocks: Vec<Configs> = Vec::new();
    let mut place: HashMap<(String, String, String), (usize, usize)> = HashMap::new();
    let mut index = Index::new();
    let mut searched = false;
    let needed = [Field::JobId.name(), Field::Status.name(), Field::Regret.name(), episodes.name()];
    each_result(&results, &needed, |row| {
        searched |= row.rung().is_some();
        let Some(x) = row.regret() else { return };
        // A [test]'s rows re-run chosen configurations on other seeds: the ranking is the tuning's.
        let tested = row.split() == crate::job::Split::Test;
        if !row.ok() || row.episodes().is_empty() || tested {
            return;
        }
        let block_key: Vec<String> = block_at.iter().map(|&i| row.cell(i).to_string()).collect();
        let config_key: Vec<String> = config_at.iter().map(|&i| row.cell(i).to_string()).collect();
        let (b, configs) = index.entry(block_key.clone()).or_insert_with(|| {
            blocks.push((block_key, Vec::new()));
            (blocks.len() - 1, HashMap::new())
        });
        let list = &mut blocks[*b].1;
        let c = *configs.entry(config_key.clone()).or_insert_with(|| {
            list.push((config_key, Scores::default()));
            list.len() - 1
        });
        let scores = &mut list[c].1;
        scores.last = (scores.last.0 + x, scores.last.1 + 1);
        place.insert((row.job_id().to_string(), row.seat().to_string(), row.eval_opponent().to_string()), (*b, c));
    })?;
    if searched {
        return Err(bad_input(format!(
            "{}: the results of a [search] (its rows have a rung): its configurations stop at different budgets, \
             so there is no final ranking of them all to compare with; run the full grid (the spec without \
             [search], episodes = max_budget) and ask again",
            dir.display()
        )));
    }
    let curves = dir.join("curves.csv");
    let no_curves = || {
        bad_input(format!(
            "{}: no learning curves of these results (curves.csv is missing or has none of their learners' \
             rows): fidelity compares the ranking at each checkpoint of the learners' curves with the final \
             ranking; run a grid of learners ([evaluation] checkpoints sets how many points each curve has)",
            dir.display()
        ))
    };
    if !curves.exists() {
        return Err(no_curves());
    }
    let mut found = false;
    let needed =
        [CurveField::JobId, CurveField::Episode, CurveField::Seat, CurveField::EvalOpponent, CurveField::Regret];
    each_curve(&curves, &needed.map(CurveField::name), |row| {
        let key = (row.job_id().to_string(), row.seat().to_string(), row.eval_opponent().to_string());
        let (Some(&(b, c)), Some(episode), Some(x)) = (place.get(&key), row.episode(), row.regret()) else {
            return;
        };
        found = true;
        let slot = blocks[b].1[c].1.at.entry(episode).or_insert((0.0, 0));
        *slot = (slot.0 + x, slot.1 + 1);
    })?;
    if !found {
        return Err(no_curves());
    }
    Ok(blocks
        .iter()
        .filter(|(_, configs)| configs.len() >= 3)
        .flat_map(|(key, configs)| checkpoints(key, configs))
        .collect())
}

/// The agreement at each checkpoint of one block.
fn checkpoints(key: &[String], configs: &[(Vec<String>, Scores)]) -> Vec<RankAgreement> {
    let episodes: std::collections::BTreeSet<u64> = configs.iter().flat_map(|(_, s)| s.at.keys().copied()).collect();
    let mut out = Vec::new();
    for episode in episodes {
        // The configurations scored at this checkpoint, with their final scores.
        let scored: Vec<(f64, f64)> =
            configs.iter().filter_map(|(_, s)| s.at.get(&episode).map(|&a| (mean(a), mean(s.last)))).collect();
        if scored.len() < 3 {
            continue;
        }
        let (early, last): (Vec<f64>, Vec<f64>) = scored.iter().copied().unzip();
        let best = (0..last.len()).min_by(|&a, &b| last[a].total_cmp(&last[b]).then(a.cmp(&b))).expect("scored");
        out.push(RankAgreement {
            block: key.to_vec(),
            episode,
            configurations: scored.len(),
            spearman: spearman(&early, &last),
            final_best_rank: mean_ranks(&early)[best],
        });
    }
    out
}
