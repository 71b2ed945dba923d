//! The `[search]` table: successive halving or Hyperband over a budget parameter
//! (`episodes` for learners, `iterations` for MCTS), a model-based search (TPE) over the
//! solvers' sampled and listed axes, or both (BOHB); read and checked against the solvers.
//!
//! Keys: `method` (`"halving"`, `"hyperband"`, `"tpe"` or `"bohb"`, required), `eta` (the cut factor, a whole
//! number >= 2, default 3), `min_budget` and `max_budget` (whole numbers, required,
//! `1 <= min_budget <= max_budget`), `metric` (`"regret"`, default, or `"regret_auc"`, which
//! only learners write, so it needs the `episodes` budget),
//! `opponent` (the evaluation opponent the configurations are judged on; one of
//! `[evaluation] opponents`, default the first) and `seat` (`"x"` or `"o"`; default the
//! mean over the seats a job is evaluated in).
//!
//! With `method = "tpe"` the keys are `trials` (the configurations tried per solver,
//! required), `batch` (proposed per round, default 8), `startup` (Sobol points of round 0,
//! default `min(trials, 10)`), `per` (`"solver"`, default: one search per solver, or
//! `"sweep"`: one over all, `trials` and `startup` in all), `metric`, `opponent` and
//! `seat`; no budget keys (every trial runs at the solver's own budget), and solvers give
//! no `samples` (see [`crate::search::rounds`]). `method = "bohb"` takes Hyperband's keys;
//! its solvers' axes are searched as TPE's and give no `samples` either.
//!
//! The rung budgets are `max_budget / eta^k` (rounded to whole numbers) for every `k` that
//! keeps them at or above `min_budget`, in increasing order, so the last rung always has
//! `max_budget`. Every solver must take the same budget parameter and must not set it: the
//! search sets it, rung by rung (a solver's grid is its other axes).

use super::error::Report;
use super::error::{one_of, whole};
use super::solver::Draft;
use super::tree::{Entry, Leaf};
use crate::kinds::{Kind, Ty};
use crate::mdp::{EvalOpponent, Seat};

/// How a search cuts configurations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// One bracket: every configuration starts at the lowest rung.
    Halving,
    /// Several brackets, each starting at a higher rung with fewer configurations.
    Hyperband,
    /// Tree-structured Parzen estimator: rounds of configurations proposed from the
    /// scores of the earlier rounds, every one at the full budget.
    Tpe,
    /// Hyperband whose brackets' configurations TPE proposes from the scores so far
    /// (Falkner, Klein and Hutter, 2018).
    Bohb,
}

/// What a search ranks configurations by (lower is better), mean over replicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// The final regret (`regret` column).
    Regret,
    /// The area under the regret curve (`regret_auc` column).
    RegretAuc,
}

impl Method {
    /// The spelling in specs.
    pub fn name(self) -> &'static str {
        match self {
            Method::Halving => "halving",
            Method::Hyperband => "hyperband",
            Method::Tpe => "tpe",
            Method::Bohb => "bohb",
        }
    }

    /// Whether a model proposes the configurations (TPE, BOHB): the solvers' searched
    /// axes are a space, not a grid, and take no `samples`.
    pub fn models(self) -> bool {
        matches!(self, Method::Tpe | Method::Bohb)
    }

    /// Whether the method proposes configurations in rounds at the full budget (TPE; then
    /// there are no rungs).
    pub fn proposes(self) -> bool {
        self == Method::Tpe
    }
}

/// Whether the spec's `[search]` asks for a method that proposes the solvers' points
/// (read before the solvers, which then take no `samples`).
pub(crate) fn proposes(root: &[Entry]) -> bool {
    let Some(Leaf::Table(entries)) = root.iter().find(|e| e.key == "search").map(|e| &e.node.value) else {
        return false;
    };
    entries.iter().any(|e| e.key == "method" && matches!(&e.node.value, Leaf::Str(m) if m == "tpe" || m == "bohb"))
}

impl Metric {
    /// The spelling in specs, which is also the column it reads.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Regret => "regret",
            Metric::RegretAuc => "regret_auc",
        }
    }
}

/// A validated `[search]` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSpec {
    /// Halving or Hyperband.
    pub method: Method,
    /// The cut factor: the best `1/eta` of a rung go on.
    pub eta: u64,
    /// The lowest budget a rung may have.
    pub min_budget: u64,
    /// The budget of the last rung.
    pub max_budget: u64,
    /// The ranking metric.
    pub metric: Metric,
    /// The evaluation opponent it is judged on.
    pub opponent: EvalOpponent,
    /// The evaluated seat it is judged on (`None`: the mean over the job's seats).
    pub seat: Option<Seat>,
    /// The budget parameter (`episodes` or `iterations`; empty for TPE, which has none).
    pub parameter: &'static str,
    /// TPE: configurations tried per solver (0 for the rung methods).
    pub trials: u64,
    /// TPE: configurations proposed per round after the first.
    pub batch: u64,
    /// TPE: the Sobol points of round 0.
    pub startup: u64,
    /// TPE: one search over the union of the solvers (`per = "sweep"`: `trials` and
    /// `startup` in all, the solver a categorical) instead of one per solver.
    pub per_sweep: bool,
}

/// The parameters a search can use as its budget, in order of preference.
pub const BUDGET_PARAMETERS: [&str; 2] = ["episodes", "iterations"];

const KEYS: [&str; 11] =
    ["method", "eta", "min_budget", "max_budget", "metric", "opponent", "seat", "trials", "batch", "startup", "per"];

/// The keys only the rung methods take, and those only TPE takes.
const RUNG_KEYS: [&str; 3] = ["eta", "min_budget", "max_budget"];
const TPE_KEYS: [&str; 4] = ["trials", "batch", "startup", "per"];

/// The most trials one search may have.
pub const MAX_TRIALS: u64 = 100_000;

impl SearchSpec {
    /// The rung budgets, increasing; the last is `max_budget` (TPE: no rungs, an empty list).
    pub fn budgets(&self) -> Vec<u64> {
        if self.method.proposes() {
            return Vec::new();
        }
        let (eta, min, max) = (u128::from(self.eta), u128::from(self.min_budget), u128::from(self.max_budget));
        let mut divisors = vec![1u128];
        while min * divisors.last().expect("one") * eta <= max {
            divisors.push(divisors.last().expect("one") * eta);
        }
        divisors.iter().rev().map(|d| ((max + d / 2) / d) as u64).collect()
    }

    /// TPE's rounds when no proposal repeats: round 0 (the startup), then one per `batch`
    /// of the trials left (0 for the other methods).
    pub fn rounds(&self) -> u64 {
        match self.method.proposes() {
            true => 1 + (self.trials - self.startup.min(self.trials)).div_ceil(self.batch),
            false => 0,
        }
    }

    /// Hyperband's nominal bracket sizes, by first rung: the bracket of `s` cuts (`s =
    /// last rung - first rung`) starts with `ceil((last + 1) * eta^s / (s + 1))`
    /// configurations.
    pub fn nominal_brackets(&self) -> Vec<u64> {
        let last = self.budgets().len().saturating_sub(1);
        let eta = self.eta as f64;
        (0..=last).rev().map(|s| ((last + 1) as f64 * eta.powi(s as i32) / (s + 1) as f64).ceil() as u64).collect()
    }

    /// The resolved form (part of the spec hash).
    pub fn to_json(&self) -> serde_json::Value {
        if self.method.proposes() {
            return serde_json::json!({
                "method": self.method.name(),
                "trials": self.trials,
                "batch": self.batch,
                "startup": self.startup,
                "per": if self.per_sweep { "sweep" } else { "solver" },
                "metric": self.metric.name(),
                "opponent": self.opponent.name(),
                "seat": self.seat.map(|s| s.name()),
            });
        }
        serde_json::json!({
            "method": self.method.name(),
            "eta": self.eta,
            "min_budget": self.min_budget,
            "max_budget": self.max_budget,
            "metric": self.metric.name(),
            "opponent": self.opponent.name(),
            "seat": self.seat.map(|s| s.name()),
            "parameter": self.parameter,
            "budgets": self.budgets(),
        })
    }
}

/// The budget parameter of a kind, if it has one.
pub fn budget_parameter(kind: Kind) -> Option<&'static str> {
    BUDGET_PARAMETERS.iter().copied().find(|name| kind.param(name).is_some())
}

/// What `[search]` holds, as read so far.
struct Fields {
    method: Option<Method>,
    eta: u64,
    min_budget: Option<u64>,
    max_budget: Option<u64>,
    metric: Metric,
    opponent: Option<EvalOpponent>,
    seat: Option<Seat>,
    trials: Option<u64>,
    batch: u64,
    startup: Option<u64>,
    per_sweep: bool,
}

/// Reads `[search]` and checks it against the solvers (`tables` are the `[[solver]]`
/// tables as written, to see which keys each sets).
pub(crate) fn read(
    report: &mut Report,
    entry: &Entry,
    opponents: &[EvalOpponent],
    checkpoints: u32,
    drafts: &[Draft],
    tables: &[&[Entry]],
) -> Option<SearchSpec> {
    let Leaf::Table(entries) = &entry.node.value else {
        let message = format!(
            "has the wrong type ({}): search is a table; write [search] and its keys {}",
            entry.node.value.type_name(),
            KEYS.join(", ")
        );
        report.entry("search", entry, message);
        return None;
    };
    let mut fields = Fields {
        method: None,
        eta: 3,
        min_budget: None,
        max_budget: None,
        metric: Metric::Regret,
        opponent: None,
        seat: None,
        trials: None,
        batch: 8,
        startup: None,
        per_sweep: false,
    };
    let clean = report.is_clean();
    for e in entries {
        read_key(report, &mut fields, e, opponents);
    }
    let problem = |report: &mut Report, message: String| report.entry("search", entry, message);
    // A key given with a bad value has its own problem already.
    let given = |key: &str| entries.iter().any(|e| e.key == key);
    let Some(method) = fields.method else {
        if !given("method") {
            problem(report, "has no method: add method = \"halving\", \"hyperband\", \"tpe\" or \"bohb\"".into());
        }
        return None;
    };
    if method.proposes() {
        return read_tpe(report, entry, entries, &fields, opponents, drafts).filter(|_| clean && report.is_clean());
    }
    if let Some(e) = entries.iter().find(|e| TPE_KEYS.contains(&e.key.as_str())) {
        let message = format!("is a key of method = \"tpe\", not of {}: remove it", method.name());
        report.entry(&format!("search.{}", e.key), e, message);
        return None;
    }
    let (Some(min_budget), Some(max_budget)) = (fields.min_budget, fields.max_budget) else {
        if !given("min_budget") || !given("max_budget") {
            problem(report, "needs min_budget and max_budget (the budgets of the first and last rungs)".into());
        }
        return None;
    };
    if min_budget > max_budget {
        problem(report, format!("has min_budget = {min_budget} above max_budget = {max_budget}: swap them"));
        return None;
    }
    let opponent = fields.opponent.unwrap_or(opponents[0]);
    let parameter = check_solvers(report, drafts, tables, max_budget)?;
    let search = SearchSpec {
        method,
        eta: fields.eta,
        min_budget,
        max_budget,
        metric: fields.metric,
        opponent,
        seat: fields.seat,
        parameter,
        trials: 0,
        batch: 0,
        startup: 0,
        per_sweep: false,
    };
    if !first_rung_fits(report, entry, &search, checkpoints) || !metric_is_written(report, entry, &search) {
        return None;
    }
    if method == Method::Bohb {
        // Its brackets' nominal configurations in all; the Sobol points drawn when the
        // spec is read are that many (a bracket takes them while no model can propose).
        check_searched(report, drafts);
        let configurations = search.nominal_brackets().iter().sum::<u64>();
        return Some(SearchSpec { trials: configurations, startup: configurations, ..search })
            .filter(|_| clean && report.is_clean());
    }
    (clean && report.is_clean()).then_some(search)
}

/// A learner's first rung has at least `checkpoints` episodes.
fn first_rung_fits(report: &mut Report, entry: &Entry, search: &SearchSpec, checkpoints: u32) -> bool {
    let lowest = search.budgets()[0];
    if search.parameter == "episodes" && lowest < u64::from(checkpoints) {
        let message = format!(
            "has a first rung of {lowest} episodes, fewer than evaluation.checkpoints = {checkpoints}: \
             raise min_budget or lower checkpoints"
        );
        report.entry("search", entry, message);
        return false;
    }
    true
}

/// The metric's column is filled for the search's solvers: `regret_auc` is the mean regret
/// over a learner's run, which MCTS (budgeted by `iterations`) does not have.
fn metric_is_written(report: &mut Report, entry: &Entry, search: &SearchSpec) -> bool {
    if search.metric == Metric::RegretAuc && search.parameter != "episodes" {
        let message = format!(
            "has metric = \"regret_auc\" over {}: only learners (budget episodes) have a regret curve; \
             use metric = \"regret\"",
            search.parameter
        );
        report.entry("search", entry, message);
        return false;
    }
    true
}

fn read_key(report: &mut Report, fields: &mut Fields, e: &Entry, opponents: &[EvalOpponent]) {
    let key = format!("search.{}", e.key);
    let text = |report: &mut Report, allowed: &[&str]| one_of(report, &key, e, allowed);
    match e.key.as_str() {
        "method" => {
            fields.method = text(report, &["halving", "hyperband", "tpe", "bohb"]).map(|m| match m.as_str() {
                "halving" => Method::Halving,
                "tpe" => Method::Tpe,
                "bohb" => Method::Bohb,
                _ => Method::Hyperband,
            });
        }
        "metric" => {
            let metric = text(report, &["regret", "regret_auc"]);
            fields.metric = if metric.as_deref() == Some("regret_auc") { Metric::RegretAuc } else { Metric::Regret };
        }
        "eta" => {
            let rule = "eta must be a whole number from 2 to 1000000 (the best 1/eta of a rung go on)";
            fields.eta = whole(report, &key, e, 2, 1_000_000, rule).unwrap_or(3);
        }
        "min_budget" | "max_budget" => {
            let rule = format!("{} must be a whole number >= 1 (episodes or iterations of a rung)", e.key);
            let value = whole(report, &key, e, 1, i64::MAX as u64, &rule);
            if e.key == "min_budget" { fields.min_budget = value } else { fields.max_budget = value }
        }
        "trials" => {
            let rule =
                format!("trials must be a whole number from 1 to {MAX_TRIALS} (configurations tried per solver)");
            fields.trials = whole(report, &key, e, 1, MAX_TRIALS, &rule);
        }
        "batch" => {
            let rule = "batch must be a whole number from 1 to 1000 (configurations proposed per round)";
            fields.batch = whole(report, &key, e, 1, 1000, rule).unwrap_or(8);
        }
        "per" => fields.per_sweep = text(report, &["solver", "sweep"]).is_some_and(|p| p == "sweep"),
        "startup" => {
            let rule = format!("startup must be a whole number from 1 to {MAX_TRIALS} (Sobol points of round 0)");
            fields.startup = whole(report, &key, e, 1, MAX_TRIALS, &rule);
        }
        "opponent" => {
            let names: Vec<&str> = opponents.iter().map(|o| o.name()).collect();
            fields.opponent = text(report, &names).and_then(|n| n.parse().ok());
        }
        "seat" => fields.seat = text(report, Seat::NAMES).and_then(|n| n.parse().ok()),
        other => {
            let message = format!("is not a known key of [search] ({other}): allowed are {}", KEYS.join(", "));
            report.entry(&key, e, message);
        }
    }
}

/// Every solver takes the same budget parameter, does not set it, and accepts
/// `max_budget`; returns the parameter.
fn check_solvers(report: &mut Report, drafts: &[Draft], tables: &[&[Entry]], max: u64) -> Option<&'static str> {
    let mut found: Option<&'static str> = None;
    for (draft, table) in drafts.iter().zip(tables) {
        let Some(kind) = draft.kind else { continue };
        let key = format!("solver[{}]", draft.number);
        let Some(parameter) = budget_parameter(kind) else {
            let message = format!(
                "is a {} solver, which has no budget parameter ({}): a [search] takes learners or MCTS only",
                kind.name(),
                BUDGET_PARAMETERS.join(" or ")
            );
            report.at(draft.span.as_ref(), Some(&key), None, message);
            continue;
        };
        match found {
            Some(other) if other != parameter => {
                let message = format!(
                    "budgets {parameter} where an earlier solver budgets {other}: one [search] ranks one budget"
                );
                report.at(draft.span.as_ref(), Some(&key), None, message);
            }
            _ => found = Some(parameter),
        }
        if let Some(given) = table.iter().find(|e| e.key == parameter) {
            let message = format!(
                "is set by [search] (rungs from min_budget to max_budget): remove {parameter} from this solver"
            );
            report.entry(&format!("{key}.{parameter}"), given, message);
        }
        if let Some(Ty::Count { max: most }) = kind.param(parameter).map(|p| p.ty) {
            if max > most {
                report.file(Some("search.max_budget"), format!("is above the most {parameter} allowed, {most}"));
            }
        }
    }
    found
}

/// The rest of a TPE `[search]`: `trials` given, no rung keys, and every solver has
/// something to search (a sampled axis, or an axis that lists several values).
fn read_tpe(
    report: &mut Report,
    entry: &Entry,
    entries: &[Entry],
    fields: &Fields,
    opponents: &[EvalOpponent],
    drafts: &[Draft],
) -> Option<SearchSpec> {
    if let Some(e) = entries.iter().find(|e| RUNG_KEYS.contains(&e.key.as_str())) {
        let message = "is a key of the rung methods (halving, hyperband), not of tpe: remove it; a tpe trial runs \
                       at the solver's own budget";
        report.entry(&format!("search.{}", e.key), e, message.into());
        return None;
    }
    let Some(trials) = fields.trials else {
        if !entries.iter().any(|e| e.key == "trials") {
            let message = "has method = \"tpe\" but no trials: add trials = N, the configurations to try per solver";
            report.entry("search", entry, message.into());
        }
        return None;
    };
    check_searched(report, drafts);
    Some(SearchSpec {
        method: Method::Tpe,
        eta: 0,
        min_budget: 0,
        max_budget: 0,
        metric: fields.metric,
        opponent: fields.opponent.unwrap_or(opponents[0]),
        seat: fields.seat,
        parameter: "",
        trials,
        batch: fields.batch,
        startup: fields.startup.unwrap_or(trials.min(10)).min(trials),
        per_sweep: fields.per_sweep,
    })
}

/// Every solver of a model-based search has something to search, in at most as many axes
/// as Sobol points cover.
fn check_searched(report: &mut Report, drafts: &[Draft]) {
    for draft in drafts {
        let Some(grid) = &draft.grid else { continue };
        let dimensions = grid.searched_axes();
        if dimensions == 0 {
            let message = "has nothing for [search] to search: sample an axis ({ uniform = [low, high] }, ..) \
                           or list several values of one";
            report.at(draft.span.as_ref(), Some(&format!("solver[{}]", draft.number)), None, message.into());
        } else if dimensions > crate::stats::sobol::MAX_DIMENSIONS {
            let message = format!(
                "searches {dimensions} axes; [search] method = \"tpe\" starts from Sobol points, which cover at \
                 most {}",
                crate::stats::sobol::MAX_DIMENSIONS
            );
            report.at(draft.span.as_ref(), Some(&format!("solver[{}]", draft.number)), None, message);
        }
    }
}
