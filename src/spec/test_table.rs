//! The `[test]` table: the best configurations of a grid or search re-run at the full
//! budget on fresh seeds that tuning never uses (tune on some seeds, report on others).
//!
//! Keys: `replicates` (the test replicates, a whole number >= 1, required), `top` (how
//! many configurations are re-run, default 1), `per` (`"solver"`, default: the best `top`
//! of each `[[solver]]` entry on each board it lists, so that every learner is reported on
//! fresh seeds on every board; `"game"`: the best `top` of each board, whichever entry
//! they come from; or `"sweep"`: the best `top` of the whole sweep), and `metric`, `opponent` and `seat`, which
//! rank the configurations as in `[search]` (and default to the `[search]` table's when
//! there is one; else `"regret"`, the first evaluation opponent and the mean over seats).
//!
//! Test replicate `r` has the seed [`crate::seed::test_seed`] (never a tuning seed) and its
//! job key ends in `;split=test`, so no test job shares an id with a tuning job, and a
//! spec without `[test]` keeps every id it had.

use super::error::Report;
use super::error::{one_of, whole};
use super::search::{Metric, SearchSpec, budget_parameter};
use super::solver::Draft;
use super::tree::{Entry, Leaf};
use crate::mdp::{EvalOpponent, Seat};

/// Whose best configurations a `[test]` re-runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Per {
    /// The best `top` of each solver entry on each board.
    Solver,
    /// The best `top` of each board, over every solver entry.
    Game,
    /// The best `top` of the whole sweep.
    Sweep,
}

impl Per {
    /// The spelling in specs.
    pub fn name(self) -> &'static str {
        match self {
            Per::Solver => "solver",
            Per::Game => "game",
            Per::Sweep => "sweep",
        }
    }
}

/// A validated `[test]` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestSpec {
    /// Test replicates per configuration re-run.
    pub replicates: u32,
    /// How many configurations are re-run (per solver entry or in all, see `per`).
    pub top: u32,
    /// Per solver entry or over the sweep.
    pub per: Per,
    /// The ranking metric (mean over tuning replicates at the full budget, lower first).
    pub metric: Metric,
    /// The evaluation opponent the ranking reads.
    pub opponent: EvalOpponent,
    /// The evaluated seat the ranking reads (`None`: the mean over the job's seats).
    pub seat: Option<Seat>,
}

const KEYS: [&str; 6] = ["replicates", "top", "per", "metric", "opponent", "seat"];

impl TestSpec {
    /// The resolved form (part of the spec hash).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "replicates": self.replicates,
            "top": self.top,
            "per": self.per.name(),
            "metric": self.metric.name(),
            "opponent": self.opponent.name(),
            "seat": self.seat.map(|s| s.name()),
        })
    }
}

/// Reads `[test]`; `search` is the spec's `[search]`, whose ranking is the default.
pub(crate) fn read(
    report: &mut Report,
    entry: &Entry,
    opponents: &[EvalOpponent],
    search: Option<&SearchSpec>,
    drafts: &[Draft],
) -> Option<TestSpec> {
    let Leaf::Table(entries) = &entry.node.value else {
        let message = format!(
            "has the wrong type ({}): test is a table; write [test] and its keys {}",
            entry.node.value.type_name(),
            KEYS.join(", ")
        );
        report.entry("test", entry, message);
        return None;
    };
    let clean = report.is_clean();
    let mut test = TestSpec {
        replicates: 0,
        top: 1,
        per: Per::Solver,
        metric: search.map_or(Metric::Regret, |s| s.metric),
        opponent: search.map_or(opponents[0], |s| s.opponent),
        seat: search.and_then(|s| s.seat),
    };
    let mut replicates = None;
    for e in entries {
        read_key(report, e, opponents, &mut test, &mut replicates);
    }
    let Some(replicates) = replicates else {
        let message = "has no replicates: add replicates = N (the fresh seeds each chosen configuration runs)";
        report.entry("test", entry, message.into());
        return None;
    };
    test.replicates = replicates;
    if test.metric == Metric::RegretAuc {
        let curveless = drafts.iter().filter_map(|d| d.kind).find(|&k| budget_parameter(k) != Some("episodes"));
        if let Some(kind) = curveless {
            let message = format!(
                "has metric = \"regret_auc\", which a {} solver does not write (only learners have a regret \
                 curve): use metric = \"regret\"",
                kind.name()
            );
            report.entry("test", entry, message);
            return None;
        }
    }
    (clean && report.is_clean()).then_some(test)
}

/// Reads one key `e` of `[test]` into `test` (its replicates into `replicates`).
fn read_key(
    report: &mut Report,
    e: &Entry,
    opponents: &[EvalOpponent],
    test: &mut TestSpec,
    replicates: &mut Option<u32>,
) {
    let key = format!("test.{}", e.key);
    let text = |report: &mut Report, allowed: &[&str]| one_of(report, &key, e, allowed);
    match e.key.as_str() {
        "replicates" => {
            let rule = "replicates must be a whole number from 1 to 4294967295 (test runs per configuration)";
            *replicates = whole(report, &key, e, 1, u64::from(u32::MAX), rule).map(|r| r as u32);
        }
        "top" => {
            let rule = "top must be a whole number from 1 to 1000000 (the best configurations re-run)";
            test.top = whole(report, &key, e, 1, 1_000_000, rule).map_or(1, |t| t as u32);
        }
        "per" => {
            if let Some(per) = text(report, &["solver", "game", "sweep"]) {
                test.per = match per.as_str() {
                    "sweep" => Per::Sweep,
                    "game" => Per::Game,
                    _ => Per::Solver,
                };
            }
        }
        "metric" => {
            if let Some(metric) = text(report, &["regret", "regret_auc"]) {
                test.metric = if metric == "regret_auc" { Metric::RegretAuc } else { Metric::Regret };
            }
        }
        "opponent" => {
            let names: Vec<&str> = opponents.iter().map(|o| o.name()).collect();
            if let Some(o) = text(report, &names).and_then(|n| n.parse().ok()) {
                test.opponent = o;
            }
        }
        "seat" => test.seat = text(report, Seat::NAMES).and_then(|n| n.parse().ok()),
        other => {
            let message = format!("is not a known key of [test] ({other}): allowed are {}", KEYS.join(", "));
            report.entry(&key, e, message);
        }
    }
}
