//! Every configuration of a block against a baseline, paired by replicate: the mean
//! difference, the Wilcoxon signed-rank p-value, the chosen test's p-value Holm-adjusted
//! across the block, rliable's probability of improvement, a verdict, and the verdict's
//! own interval ([`verdict_interval`]: the paired t interval widened as Holm's adjustment
//! widened the p-value, so that it excludes 0 exactly when the verdict is better or
//! worse; none for the rank and permutation tests).
//!
//! On test rows, [`solvers_compared`] answers "which solver?": each solver's chosen
//! configuration against the best of them, per (seat, evaluation opponent, game), with one
//! sentence per block (`summary`'s and the report's `vs_best` there).
//!
//! A verdict first asks whether the runs differ at all: identical on every replicate is
//! `equal`. Then whether the design can reject: when the chosen test's smallest attainable
//! Holm-adjusted p-value for the comparison's pairs is not below the level (the rank and
//! permutation tests with few replicates), the verdict is `cannot-reject`, never
//! `indistinguishable` (which is kept for a design that could have rejected and did not).
//! The default test is the paired t with Holm's adjustment: it has no such floor, and it
//! assumes the mean paired difference is about normal (many replicates, or differences
//! without heavy tails).
//!
//! "Which configurations could be the best?" is a question of its own: `summary`'s and the
//! report's `vs_best` answer it by default with Hsu's multiple comparisons with the best
//! ([`best_set`], [`crate::stats::mcb`]), which treats the best as unknown rather than
//! testing each configuration against the best observed on the same runs. The statistics
//! themselves are in [`crate::stats::paired`], [`crate::stats::significance`] and
//! [`crate::stats::mcb`].

use anyhow::{Result, bail};

use std::collections::BTreeMap;
use std::path::Path;

use super::Field;
use super::paired_runs::{Block, Metric, block_columns, default_config_columns, read_blocks_in};
use crate::job::Split;
use crate::stats::mcb::{MOST_REPLICATES, Mcb, POWER, mcb};
use crate::stats::paired::{PairedT, Wilcoxon, holm, paired_t, probability_of_improvement, wilcoxon};
use crate::stats::significance::{DEFAULT_LEVEL, Significance, floor};

/// How verdicts are made: the test and the level below which its Holm-adjusted p-value
/// separates two configurations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdicts {
    /// The paired test.
    pub test: Significance,
    /// The level.
    pub level: f64,
}

impl Default for Verdicts {
    /// The paired t test at 0.05.
    fn default() -> Verdicts {
        Verdicts { test: Significance::T, level: DEFAULT_LEVEL }
    }
}

/// What decides `vs_best`: the set of configurations that could be the best (Hsu's MCB),
/// or a paired test of each configuration against the observed best (Holm-adjusted).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Procedure {
    /// Multiple comparisons with the best.
    Mcb,
    /// A paired test against the observed best.
    Pairwise(Significance),
}

impl Procedure {
    /// `mcb` or a paired test's name.
    pub fn parse(s: &str) -> Result<Procedure, String> {
        if s == "mcb" {
            return Ok(Procedure::Mcb);
        }
        s.parse().map(Procedure::Pairwise).map_err(|e: crate::mdp::ParseNameError| {
            format!("{e}; or mcb (multiple comparisons with the best, the default)")
        })
    }
}

impl std::fmt::Display for Procedure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Procedure::Mcb => f.write_str("mcb"),
            Procedure::Pairwise(test) => write!(f, "{test}"),
        }
    }
}

/// Which configuration the others are compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum Baseline {
    /// The configuration with the best mean metric in each block (ties: the first in spec
    /// order).
    Best,
    /// The configuration whose label is this, or whose columns have these values
    /// (`col=value,col=value`).
    Named(String),
}

impl Baseline {
    /// `best` or anything else as a name.
    pub fn parse(s: &str) -> Baseline {
        if s == "best" { Baseline::Best } else { Baseline::Named(s.to_string()) }
    }

    /// The baseline's index in `block`, none when no configuration of the block matches a
    /// named baseline; an error when several do.
    pub fn find(&self, block: &Block, columns: &[&str], metric: Metric) -> Result<Option<usize>> {
        match self {
            Baseline::Best => Ok(best(block, metric)),
            Baseline::Named(name) => {
                let wanted: Vec<(&str, &str)> = name.split(',').filter_map(|p| p.split_once('=')).collect();
                let matches: Vec<usize> = (0..block.configs.len())
                    .filter(|&i| {
                        let c = &block.configs[i];
                        if wanted.is_empty() {
                            return c.label == *name;
                        }
                        wanted.iter().all(|(col, value)| {
                            *col == Field::Label.name() && c.label == *value
                                || columns.iter().position(|x| x == col).is_some_and(|k| c.key[k] == *value)
                        })
                    })
                    .collect();
                if matches.len() > 1 {
                    bail!(
                        "--baseline {name} matches {} configurations of {}: name more columns (col=value,col=value)",
                        matches.len(),
                        block.key.join("/")
                    );
                }
                Ok(matches.first().copied())
            }
        }
    }
}

/// The configuration with the best mean (ties: the first), if any has runs. By
/// `solved_at`, the configuration with the smallest share of never-solved runs comes
/// first, then the best mean of the solved ones (a mean over fewer solved runs is no
/// better).
pub fn best(block: &Block, metric: Metric) -> Option<usize> {
    let mut best: Option<(usize, f64, f64)> = None;
    for (i, c) in block.configs.iter().enumerate() {
        let m = c.mean();
        let unsolved = c.unsolved() as f64 / (c.unsolved() + c.runs().len()) as f64;
        let better =
            |b: f64, u: f64| unsolved < u || unsolved == u && if metric.lower_is_better() { m < b } else { m > b };
        if !m.is_nan() && best.is_none_or(|(_, b, u)| better(b, u)) {
            best = Some((i, m, unsolved));
        }
    }
    best.map(|(i, _, _)| i)
}

/// One configuration against the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Its index in the block.
    pub config: usize,
    /// Its runs.
    pub runs: usize,
    /// Its mean metric.
    pub mean: f64,
    /// Paired differences (configuration minus baseline) and their t interval.
    pub difference: PairedT,
    /// The verdict's own interval of the mean difference (see [`verdict_interval`]): NaN
    /// where the test gives none (the rank and permutation tests) and for the baseline.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The signed-rank test of the differences.
    pub wilcoxon: Wilcoxon,
    /// The chosen test's p-value (NaN for the baseline).
    pub p_test: f64,
    /// The chosen test's p-value, Holm-adjusted across the block (NaN for the baseline).
    pub p_holm: f64,
    /// The smallest Holm-adjusted p-value the chosen test could reach with these pairs in
    /// this block (NaN for the baseline).
    pub p_floor: f64,
    /// P(this configuration's run is better than the baseline's).
    pub p_improve: f64,
    /// `baseline`, `better`, `worse`, `indistinguishable`, `equal` when every paired
    /// difference is exactly 0 (identical on every replicate: no number of replicates
    /// would tell them apart, and none is needed), `cannot-reject` when no data could have
    /// made the test reject, or `no-pairs` when no replicate has a run on both sides (a
    /// configuration never solved, by `solved_at`).
    pub verdict: &'static str,
    /// Every paired difference is exactly 0.
    pub identical: bool,
}

/// Every configuration of `block` against the one at `baseline`, in block order.
pub fn compare_block(block: &Block, baseline: usize, metric: Metric, verdicts: Verdicts) -> Vec<Comparison> {
    let base_runs = block.configs[baseline].runs();
    let base_values: Vec<f64> = base_runs.values().copied().collect();
    let mut out: Vec<Comparison> = block
        .configs
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let runs = c.runs();
            let d: Vec<f64> = runs.iter().filter_map(|(r, x)| base_runs.get(r).map(|y| x - y)).collect();
            let values: Vec<f64> = runs.values().copied().collect();
            Comparison {
                config: i,
                runs: values.len(),
                mean: c.mean(),
                difference: paired_t(&d),
                low: f64::NAN,
                high: f64::NAN,
                wilcoxon: wilcoxon(&d),
                p_test: if i == baseline { f64::NAN } else { verdicts.test.p_value(&d) },
                p_holm: f64::NAN,
                p_floor: f64::NAN,
                p_improve: probability_of_improvement(&values, &base_values, metric.lower_is_better()),
                verdict: "baseline",
                identical: !d.is_empty() && d.iter().all(|&x| x == 0.0),
            }
        })
        .collect();
    let others: Vec<usize> = (0..out.len()).filter(|&i| i != baseline).collect();
    let adjusted = holm(&others.iter().map(|&i| out[i].p_test).collect::<Vec<_>>());
    for (&i, p) in others.iter().zip(adjusted) {
        let c = &mut out[i];
        c.p_holm = p;
        c.p_floor = floor(verdicts.test, c.difference.n, others.len());
        (c.low, c.high) = verdict_interval(verdicts, &c.difference, c.p_test, p, others.len());
        let lower = c.difference.mean < 0.0;
        c.verdict = if c.difference.n == 0 {
            "no-pairs"
        } else if c.identical {
            "equal"
        } else if c.p_floor >= verdicts.level {
            "cannot-reject"
        } else if p.is_nan() || p >= verdicts.level || c.difference.mean == 0.0 {
            "indistinguishable"
        } else if lower == metric.lower_is_better() {
            "better"
        } else {
            "worse"
        };
    }
    out
}

/// The interval that goes with a verdict: the paired t interval at confidence
/// `1 - level * p_t / p_holm`, widened by the factor by which Holm's adjustment raised the
/// p-value (`comparisons - k` at the k-th smallest p, or more where an earlier one
/// dominates). It excludes 0 exactly when `p_holm < level`, so an interval clear of zero
/// always carries `better` or `worse`; with one comparison it is the plain `1 - level`
/// interval. The rank and permutation tests give none (NaN): their verdicts are not read
/// off a t interval, and none is drawn beside them.
pub fn verdict_interval(verdicts: Verdicts, d: &PairedT, p_t: f64, p_holm: f64, comparisons: usize) -> (f64, f64) {
    if verdicts.test != Significance::T || d.n < 2 {
        return (f64::NAN, f64::NAN);
    }
    let confidence = if p_holm > 0.0 && p_t > 0.0 {
        1.0 - verdicts.level * p_t / p_holm
    } else {
        // Every difference the same, or a p-value below the smallest float: Bonferroni's.
        1.0 - verdicts.level / comparisons.max(1) as f64
    };
    d.interval(confidence)
}

/// A group's representative: its best configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Representative {
    /// The representative's index in the block it was chosen from.
    pub config: usize,
    /// How many configurations the group has (with runs or without).
    pub configurations: usize,
    /// The configuration columns (by index) whose values differ within the group: those
    /// that say which of the group's configurations represents it.
    pub varying: Vec<usize>,
}

/// A configuration named to represent its group: the group's values of the group columns,
/// and (configuration column index, value) pairs that single out one of its
/// configurations.
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// The group's values, as `--pick` spelt them (joined by `/`).
    pub group: String,
    /// Configuration columns (by index) and the values they must have.
    pub wanted: Vec<(usize, String)>,
    /// Block columns (by index into the block key) and the values a block must have for
    /// the pick to apply there (empty: every block).
    pub blocks: Vec<(usize, String)>,
    /// The flag as given, for messages.
    pub given: String,
}

/// The groups of `block` by the configuration columns at `group` (by index), in block
/// order, each represented by its best configuration by `metric` (ties: the first in spec
/// order), or by the one a [`Pick`] names; groups without a run are left out. Choosing the
/// best on the very runs it is then compared on flatters a group with many
/// configurations. An error when a pick matches none or several of its group's
/// configurations.
pub fn represent(block: &Block, group: &[usize], metric: Metric, picks: &[Pick]) -> Result<Vec<Representative>> {
    let mut groups: Vec<(Vec<&str>, Vec<usize>)> = Vec::new();
    for (i, c) in block.configs.iter().enumerate() {
        let key: Vec<&str> = group.iter().map(|&k| c.key[k].as_str()).collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    let mut out = Vec::new();
    for (key, members) in groups {
        let sub =
            Block { key: block.key.clone(), configs: members.iter().map(|&i| block.configs[i].clone()).collect() };
        let at = match picks.iter().find(|p| p.group == key.join("/")) {
            Some(pick) => {
                let matching: Vec<usize> = (0..members.len())
                    .filter(|&m| pick.wanted.iter().all(|(k, v)| sub.configs[m].key[*k] == *v))
                    .collect();
                if matching.len() != 1 {
                    bail!(
                        "--pick {}: matches {} of the {} configurations of {} in {}; name one (GROUP:col=value,col=value)",
                        pick.given,
                        matching.len(),
                        members.len(),
                        pick.group,
                        block.key.join("/")
                    );
                }
                matching[0]
            }
            None => match best(&sub, metric) {
                Some(at) => at,
                None => continue,
            },
        };
        out.push(Representative { config: members[at], configurations: members.len(), varying: sub.varying() });
    }
    Ok(out)
}

/// A configuration's `vs_best` mark, with the interval of the procedure that made it
/// (MCB: its true gap behind the best of the others; NaN for a paired test's mark).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    /// `best`, `equal`, `could-be-best` or `not-best` (MCB); `best`, `equal`, `=`,
    /// `cannot-reject` or `` (a paired test).
    pub verdict: &'static str,
    /// The lower end of the MCB interval.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

/// The `vs_best` marks, keyed by the summary's group key, and the lines under them: per
/// block, the set that could be the best and the replicates that would shrink it (MCB), or
/// that its design cannot reject (a paired test).
pub type Marks = (BTreeMap<Vec<String>, Mark>, Vec<String>);

/// For the default grouping: each configuration's mark against the best of its (solver,
/// seat, evaluation opponent, game) block by regret, from the rows of `split`. With MCB:
/// `best` for the lowest mean, `equal` for a configuration identical to it on every
/// replicate, `could-be-best` for the others of the set that could be the best at level
/// `level`, `not-best` for those excluded. With a paired test: `best`, `equal`, `=` where
/// the test (Holm-adjusted) cannot tell the configuration from the best, `cannot-reject`
/// where it could not have whatever the runs (too few replicates for the block's
/// comparisons), empty for the others.
pub fn best_marks(path: &Path, by: &[&str], procedure: Procedure, level: f64, split: Split) -> Result<Marks> {
    let blocks = read_blocks_in(path, Metric::Regret, &block_columns(), &default_config_columns(), split)?;
    Ok(best_marks_in(&blocks, by, procedure, level))
}

/// Per block: its best configuration by regret and every configuration compared with it
/// (none for a block without runs).
pub type AgainstBest = Vec<Option<(usize, Vec<Comparison>)>>;

/// Every block's configurations against its best, by regret.
pub fn against_best(blocks: &[Block], verdicts: Verdicts) -> AgainstBest {
    blocks
        .iter()
        .map(|block| best(block, Metric::Regret).map(|b| (b, compare_block(block, b, Metric::Regret, verdicts))))
        .collect()
}

/// The set of a block's configurations that could be the best: Hsu's MCB over the
/// replicates every configuration with runs has.
#[derive(Clone, Debug, PartialEq)]
pub struct BestSet {
    /// The configurations analysed (indices into the block): those with runs.
    pub configs: Vec<usize>,
    /// The analysis, its rows in the order of `configs`.
    pub mcb: Mcb,
    /// How many replicates some configuration has that not every one has (left out).
    pub left_out: usize,
}

/// The MCB analysis of `block` by `metric` at the significance level `level`, on the
/// replicates every configuration with runs shares; `None` with fewer than two such
/// configurations or fewer than two shared replicates.
pub fn best_set(block: &Block, metric: Metric, level: f64) -> Option<BestSet> {
    let runs: Vec<(usize, BTreeMap<u32, f64>)> =
        block.configs.iter().enumerate().map(|(i, c)| (i, c.runs())).filter(|(_, r)| !r.is_empty()).collect();
    let (_, first) = runs.first()?;
    let shared: Vec<u32> = first.keys().copied().filter(|r| runs.iter().all(|(_, m)| m.contains_key(r))).collect();
    let every: std::collections::BTreeSet<u32> = runs.iter().flat_map(|(_, m)| m.keys().copied()).collect();
    let table: Vec<Vec<f64>> = runs.iter().map(|(_, m)| shared.iter().map(|r| m[r]).collect()).collect();
    let mcb = mcb(&table, metric.lower_is_better(), level)?;
    Some(BestSet { configs: runs.iter().map(|(i, _)| *i).collect(), mcb, left_out: every.len() - shared.len() })
}

/// The marks of [`best_marks`] from blocks already read (by the block columns and the
/// default configuration columns).
pub fn best_marks_in(blocks: &[Block], by: &[&str], procedure: Procedure, level: f64) -> Marks {
    let key = GroupKey::new(by, &block_columns(), &default_config_columns());
    let key = |block: &Block, config: usize| key.of(block, config);
    let mut marks = BTreeMap::new();
    let mut notes = Vec::new();
    let unmarked = |verdict| Mark { verdict, low: f64::NAN, high: f64::NAN };
    for block in blocks {
        let Some(best_at) = best(block, Metric::Regret) else { continue };
        match procedure {
            Procedure::Pairwise(test) => {
                let verdicts = Verdicts { test, level };
                let comparisons = compare_block(block, best_at, Metric::Regret, verdicts);
                notes.extend(cannot_reject_note(&block.key, &comparisons, verdicts));
                for c in &comparisons {
                    let mark = match c.verdict {
                        "baseline" => "best",
                        "indistinguishable" => "=",
                        "equal" => "equal",
                        "cannot-reject" => "cannot-reject",
                        _ => "",
                    };
                    marks.insert(key(block, c.config), unmarked(mark));
                }
            }
            Procedure::Mcb => {
                let best_runs = block.configs[best_at].runs();
                let identical = |i: usize| {
                    let runs = block.configs[i].runs();
                    runs.len() == best_runs.len() && runs.iter().all(|(r, x)| best_runs.get(r) == Some(x))
                };
                let Some(set) = best_set(block, Metric::Regret, level) else {
                    // One configuration, or fewer than two shared replicates: only the best
                    // and its equals are marked.
                    for i in 0..block.configs.len() {
                        let mark = if i == best_at {
                            "best"
                        } else if identical(i) {
                            "equal"
                        } else {
                            ""
                        };
                        marks.insert(key(block, i), unmarked(mark));
                    }
                    continue;
                };
                for (row, &i) in set.mcb.rows.iter().zip(&set.configs) {
                    let verdict = if i == best_at {
                        "best"
                    } else if identical(i) {
                        "equal"
                    } else if row.could_be_best {
                        "could-be-best"
                    } else {
                        "not-best"
                    };
                    marks.insert(key(block, i), Mark { verdict, low: row.low, high: row.high });
                }
                notes.push(best_set_note(block, &set, level));
            }
        }
    }
    (marks, notes)
}

/// Where each grouping column's value is, for a configuration of a block: in the block's
/// key or in the configuration's.
struct GroupKey(Vec<(Option<usize>, Option<usize>)>);

impl GroupKey {
    fn new(by: &[&str], block_cols: &[&str], config_cols: &[&str]) -> GroupKey {
        GroupKey(
            by.iter()
                .map(|name| match block_cols.iter().position(|b| b == name) {
                    Some(k) => (Some(k), None),
                    None => (None, config_cols.iter().position(|x| x == name)),
                })
                .collect(),
        )
    }

    /// The summary's group key of configuration `config` of `block`.
    fn of(&self, block: &Block, config: usize) -> Vec<String> {
        self.0
            .iter()
            .map(|&(in_block, in_config)| match (in_block, in_config) {
                (Some(k), _) => block.key[k].clone(),
                (None, Some(k)) => block.configs[config].key[k].clone(),
                (None, None) => String::new(),
            })
            .collect()
    }
}

/// The columns of the blocks [`solvers_compared`] reads: a block per (seat, evaluation
/// opponent, game), and its configurations keyed by the solver and then the default
/// configuration columns.
pub fn solver_block_columns() -> (Vec<&'static str>, Vec<&'static str>) {
    let outer: Vec<&str> = block_columns().into_iter().filter(|c| *c != Field::Solver.name()).collect();
    let mut config = vec![Field::Solver.name()];
    config.extend(default_config_columns());
    (outer, config)
}

/// The answer on test rows to "which solver?", as `compare --by solver` gives it: in each
/// (seat, evaluation opponent, game) block of `blocks` (read by [`solver_block_columns`]),
/// every solver represented by its best configuration, and each compared with the best of
/// them by `test`, Holm-adjusted over the block. Returns the `vs_best` marks (keyed by the
/// summary's group key for `by`; the verdict's interval of the difference with the best as
/// `low`..`high`; configurations that do not represent their solver are left unmarked) and
/// one sentence per block that has two solvers or more.
pub fn solvers_compared(blocks: &[Block], by: &[&str], test: Significance, level: f64) -> Marks {
    let (outer, config) = solver_block_columns();
    let key = GroupKey::new(by, &outer, &config);
    let verdicts = Verdicts { test, level };
    let mut marks = BTreeMap::new();
    let mut sentences = Vec::new();
    for block in blocks {
        let Ok(reps) = represent(block, &[0], Metric::Regret, &[]) else { continue };
        let sub =
            Block { key: block.key.clone(), configs: reps.iter().map(|r| block.configs[r.config].clone()).collect() };
        let Some(base) = best(&sub, Metric::Regret) else { continue };
        let cs = compare_block(&sub, base, Metric::Regret, verdicts);
        // Every solver identical on every replicate: none is best.
        let tied = cs.len() > 1 && cs.iter().all(|c| c.config == base || c.verdict == "equal");
        for c in &cs {
            let verdict = match c.verdict {
                "baseline" if tied => "equal",
                "baseline" => "best",
                other => other,
            };
            marks.insert(key.of(&sub, c.config), Mark { verdict, low: c.low, high: c.high });
        }
        if sub.configs.len() > 1 {
            sentences.push(solver_sentence(&sub, base, &cs, verdicts));
        }
    }
    (marks, sentences)
}

/// "On 3x4k4, x vs random: expected-sarsa is best; q-learning cannot be told from it
/// (p_holm 0.85); sarsa and monte-carlo are worse (p_holm 0.0048, <1e-6) (paired t, Holm
/// over 4 comparisons, 0.05)."
fn solver_sentence(block: &Block, base: usize, cs: &[Comparison], verdicts: Verdicts) -> String {
    let name = |c: &Comparison| block.configs[c.config].label.clone();
    let list = |names: &[String]| match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let (seat, opponent, game) = (&block.key[0], &block.key[1], block.key.get(2).map_or("", String::as_str));
    if cs.iter().all(|c| c.config == base || c.verdict == "equal") {
        let names: Vec<String> = block.configs.iter().map(|c| c.label.clone()).collect();
        return format!(
            "On {game}, {seat} vs {opponent}: {} are equal (identical on every replicate): none is best.",
            list(&names)
        );
    }
    let mut parts = vec![format!("{} is best", block.configs[base].label)];
    let groups: [(&str, &str, &str); 6] = [
        ("equal", "is equal to it (identical on every replicate)", "are equal to it (identical on every replicate)"),
        ("indistinguishable", "cannot be told from it", "cannot be told from it"),
        ("cannot-reject", "cannot be judged with these replicates", "cannot be judged with these replicates"),
        ("worse", "is worse", "are worse"),
        ("better", "is better", "are better"),
        ("no-pairs", "shares no replicate with it", "share no replicate with it"),
    ];
    for (verdict, one, several) in groups {
        let these: Vec<&Comparison> = cs.iter().filter(|c| c.config != base && c.verdict == verdict).collect();
        if these.is_empty() {
            continue;
        }
        let names: Vec<String> = these.iter().map(|c| name(c)).collect();
        let mut part = format!("{} {}", list(&names), if these.len() == 1 { one } else { several });
        if matches!(verdict, "indistinguishable" | "worse" | "better") {
            let ps: Vec<String> = these.iter().map(|c| short_p(c.p_holm)).collect();
            part.push_str(&format!(" (p_holm {})", ps.join(", ")));
        }
        parts.push(part);
    }
    format!(
        "On {game}, {seat} vs {opponent}: {} (paired {} test, Holm over {} comparison{}, level {}).",
        parts.join("; "),
        verdicts.test,
        cs.len() - 1,
        if cs.len() == 2 { "" } else { "s" },
        verdicts.level
    )
}

/// The line under a block's MCB marks: the set's size, its margin and where it comes from,
/// and how many replicates would likely shrink it.
pub fn best_set_note(block: &Block, set: &BestSet, level: f64) -> String {
    let m = &set.mcb;
    let inside = m.rows.iter().filter(|r| r.could_be_best).count();
    let name = |row: usize| {
        let varying = block.factors(&default_config_columns());
        let config = &block.configs[set.configs[row]];
        let words: Vec<String> =
            varying.iter().map(|&k| crate::report::setting(default_config_columns()[k], &config.key[k])).collect();
        if words.is_empty() { config.label.clone() } else { words.join(" ") }
    };
    let mut line = format!(
        "{}: could be the best (Hsu's MCB, {}% simultaneous): {} of {}; margin {} = d {:.3} x s {} x sqrt(2/{}) \
         ({} replicates, {} df{})",
        block.key.join("/"),
        confidence(level),
        inside,
        m.rows.len(),
        short(m.margin),
        m.critical,
        short(m.sd),
        m.n,
        m.n,
        m.df,
        if set.left_out > 0 {
            format!(", {} replicates not every configuration has left out", set.left_out)
        } else {
            String::new()
        }
    );
    // Members behind the best, farthest first: they are the first more replicates exclude.
    let mut behind: Vec<(f64, usize)> =
        m.rows.iter().enumerate().filter(|(_, r)| r.could_be_best && r.gap > 0.0).map(|(i, r)| (r.gap, i)).collect();
    behind.sort_by(|a, b| b.0.total_cmp(&a.0));
    let plan = |gap: f64| match m.replicates_to_exclude(gap, level) {
        Some(n) => format!("{n} replicates ({} more)", n.saturating_sub(m.n)),
        None => format!("more than {MOST_REPLICATES} replicates"),
    };
    match (behind.first(), behind.last()) {
        (Some(&(far, i)), Some(&(near, _))) => {
            line.push_str(&format!(
                "; with the spread seen ({:.0}% power): {} would likely exclude {} too",
                POWER * 100.0,
                plan(far),
                name(i)
            ));
            let count = behind.len();
            if count >= 4 {
                let half = plan(behind[count / 2 - 1].0);
                if half != plan(far) && half != plan(near) {
                    line.push_str(&format!(", {half} half of the {count} members behind the best"));
                }
            }
            if count > 1 {
                let ties = inside - count;
                line.push_str(&format!(
                    ", {} all {count}{}",
                    plan(near),
                    if ties > 1 { format!(" (the {ties} with the best mean stay)") } else { String::new() }
                ));
            }
        }
        _ if inside > 1 => line.push_str("; every other member has the best mean: more replicates would not shrink it"),
        _ => {}
    }
    line
}

/// `level` as a confidence in percent: 0.05 is 95.
fn confidence(level: f64) -> String {
    let c = (1.0 - level) * 100.0;
    if (c - c.round()).abs() < 1e-9 { format!("{}", c.round()) } else { format!("{c}") }
}

/// A statistic in a sentence: four significant digits.
fn short(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    }
}

/// The line that says a block's design cannot reject, with the paired t p-values it hides.
pub fn cannot_reject_note(block: &[String], comparisons: &[Comparison], verdicts: Verdicts) -> Option<String> {
    let cannot: Vec<&Comparison> = comparisons.iter().filter(|c| c.verdict == "cannot-reject").collect();
    let first = cannot.first()?;
    let smallest_t = cannot.iter().map(|c| c.difference.p_value).filter(|p| !p.is_nan()).fold(f64::NAN, f64::min);
    let others = comparisons.len() - 1;
    Some(format!(
        "{}: too few replicates: n = {} can never reject with {} + Holm over {others} comparison{} (smallest \
         attainable p {} >= {}){}",
        block.join("/"),
        first.difference.n,
        verdicts.test,
        if others == 1 { "" } else { "s" },
        short_p(first.p_floor),
        verdicts.level,
        if smallest_t.is_nan() {
            String::new()
        } else {
            format!("; smallest paired t p among them = {} (--significance t)", short_p(smallest_t))
        }
    ))
}

/// A p-value in a sentence: four decimals, or two significant digits below 0.001.
pub fn short_p(p: f64) -> String {
    if p >= 1e-3 { format!("{p:.4}") } else { format!("{p:.1e}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::paired_runs::Config;
    use crate::stats::significance::Significance;

    /// A 27-configuration block at 5 replicates: the best, 25 close to it, and one that is
    /// worse on every replicate by about 0.05 (paired t p < 0.001).
    fn block() -> Block {
        let best = [0.010, 0.014, 0.012, 0.011, 0.013];
        let mut configs = vec![Config::with_runs("best", &best)];
        for k in 0..25 {
            let noise = [0.004, -0.003, 0.002, -0.001, 0.003];
            let runs: Vec<f64> = best.iter().zip(noise).map(|(b, n)| b + 0.001 * k as f64 + n).collect();
            configs.push(Config::with_runs(&format!("close-{k}"), &runs));
        }
        let shift = [0.051, 0.049, 0.050, 0.052, 0.048];
        configs.push(Config::with_runs("far", &best.iter().zip(shift).map(|(b, s)| b + s).collect::<Vec<_>>()));
        Block { key: vec!["q-learning".into()], configs }
    }

    #[test]
    fn a_design_that_cannot_reject_says_so() {
        let block = block();
        let wilcoxon = Verdicts { test: Significance::Wilcoxon, level: 0.05 };
        let wilcoxon = compare_block(&block, 0, Metric::Regret, wilcoxon);
        let far = &wilcoxon[26];
        assert!(far.difference.p_value < 1e-3, "paired t p = {}", far.difference.p_value);
        // 5 pairs: no Wilcoxon p below 2/32; Holm over 26 comparisons: 26 · 0.0625 > 1.
        assert_eq!(far.p_floor, 1.0);
        for c in &wilcoxon[1..] {
            assert_eq!(c.verdict, "cannot-reject", "{}", block.configs[c.config].label);
        }
        // Neither does the exact permutation test; the t test can, and does.
        let permutation = Verdicts { test: Significance::Permutation, level: 0.05 };
        assert_eq!(compare_block(&block, 0, Metric::Regret, permutation)[26].verdict, "cannot-reject");
        let t = Verdicts { test: Significance::T, level: 0.05 };
        let by_t = compare_block(&block, 0, Metric::Regret, t);
        assert_eq!(by_t[26].verdict, "worse");
        assert_eq!(by_t[26].p_floor, 0.0);
        assert!(by_t.iter().all(|c| c.difference.p_value >= 1e-3 || c.verdict != "indistinguishable"));
    }

    proptest::proptest! {
        /// The t verdict's interval excludes 0 exactly when the verdict is better or worse,
        /// whatever the block (ties and equal runs included); with one comparison it is the
        /// plain 95% paired t interval.
        #[test]
        fn a_t_verdict_agrees_with_its_interval(
            runs in proptest::collection::vec(proptest::collection::vec(0u8..6, 6), 2..7),
            replicates in 2usize..7,
        ) {
            let configs: Vec<Config> = runs
                .iter()
                .enumerate()
                .map(|(i, r)| Config::with_runs(&i.to_string(), &r[..replicates].iter().map(|&x| f64::from(x) / 8.0).collect::<Vec<_>>()))
                .collect();
            let block = Block { key: vec![], configs };
            let base = best(&block, Metric::Regret).unwrap();
            let cs = compare_block(&block, base, Metric::Regret, Verdicts::default());
            for c in cs.iter().filter(|c| c.config != base) {
                let clear = c.low > 0.0 || c.high < 0.0;
                let decided = c.verdict == "better" || c.verdict == "worse";
                proptest::prop_assert_eq!(clear, decided, "{:?}", c);
                proptest::prop_assert!(c.low <= c.difference.mean && c.difference.mean <= c.high, "{:?}", c);
                if c.verdict == "equal" {
                    proptest::prop_assert!(c.low == 0.0 && c.high == 0.0);
                }
                if cs.len() == 2 {
                    proptest::prop_assert!((c.low - c.difference.low).abs() <= 1e-9 && (c.high - c.difference.high).abs() <= 1e-9, "{:?}", c);
                }
            }
        }
    }

    #[test]
    fn the_rank_and_permutation_verdicts_draw_no_t_interval() {
        let block = block();
        for test in [Significance::Wilcoxon, Significance::Permutation] {
            let cs = compare_block(&block, 0, Metric::Regret, Verdicts { test, level: 0.05 });
            assert!(cs.iter().all(|c| c.low.is_nan() && c.high.is_nan()), "{test:?}");
        }
        // The t verdict's interval of the far configuration, one of 26 comparisons with the
        // smallest p: Holm's factor is 26, the level 1 - 0.05/26.
        let cs = compare_block(&block, 0, Metric::Regret, Verdicts::default());
        let far = &cs[26];
        let want = far.difference.interval(1.0 - 0.05 / 26.0);
        assert!((far.low - want.0).abs() < 1e-12 && (far.high - want.1).abs() < 1e-12, "{far:?} vs {want:?}");
        assert!(far.low > 0.0 && far.verdict == "worse");
    }

    #[test]
    fn identical_runs_are_equal_whatever_the_replicates_and_the_test() {
        // Exact evaluation makes ties common: regret exactly 0 on every replicate.
        let best = Config::with_runs("best", &[0.0, 0.0, 0.0]);
        let same = Config::with_runs("same", &[0.0, 0.0, 0.0]);
        let off = Config::with_runs("off", &[0.0, 0.0, 0.5]);
        let block = Block { key: vec![], configs: vec![best, same, off] };
        for test in [Significance::Wilcoxon, Significance::T, Significance::Permutation] {
            let cs = compare_block(&block, 0, Metric::Regret, Verdicts { test, level: 0.05 });
            assert_eq!(cs[1].verdict, "equal", "{test:?}: never cannot-reject, better or worse");
            assert!(cs[1].identical && !cs[2].identical);
            assert_ne!(cs[2].verdict, "equal", "{test:?}: one replicate differs");
        }
    }

    #[test]
    fn the_set_that_could_be_the_best_marks_ties_members_and_the_excluded() {
        // The 27-configuration block at 5 replicates that no rank test can judge: MCB
        // excludes the configuration 0.05 behind and keeps the close ones; a copy of the
        // best reads equal.
        let mut block = block();
        let mut copy = block.configs[0].clone();
        copy.label = "copy".into();
        block.configs.push(copy);
        let alpha = default_config_columns().iter().position(|c| *c == "alpha").unwrap();
        for (i, c) in block.configs.iter_mut().enumerate() {
            c.key = vec![String::new(); default_config_columns().len()];
            c.key[alpha] = i.to_string();
        }
        block.key = ["q-learning", "x", "random", "3x3k3"].map(String::from).to_vec();
        let (marks, notes) = super::best_marks_in(&[block.clone()], &["alpha"], Procedure::Mcb, 0.05);
        let mark = |i: usize| marks[&vec![i.to_string()]];
        assert_eq!(mark(0).verdict, "best");
        assert_eq!(mark(27).verdict, "equal");
        assert_eq!(mark(26).verdict, "not-best");
        assert_eq!(mark(1).verdict, "could-be-best");
        // The interval of the excluded one starts at 0; the members' contain 0.
        assert!(mark(26).low == 0.0 && mark(26).high > 0.04);
        assert!((0..26).all(|i| mark(i).low <= 0.0 && mark(i).high >= 0.0));
        let set = best_set(&block, Metric::Regret, 0.05).unwrap();
        let inside = set.mcb.rows.iter().filter(|r| r.could_be_best).count();
        assert!(notes[0].contains(&format!("{inside} of 28")), "{}", notes[0]);
        assert!(notes[0].contains("would likely exclude"), "{}", notes[0]);
        // A paired rank test on the same block cannot reject at all.
        let (marks, _) = super::best_marks_in(&[block], &["alpha"], Procedure::Pairwise(Significance::Wilcoxon), 0.05);
        assert_eq!(marks[&vec!["26".to_string()]].verdict, "cannot-reject");
    }

    #[test]
    fn a_design_that_can_reject_keeps_indistinguishable() {
        // 8 pairs, one comparison: the floor is 2/256, so "indistinguishable" means something.
        let a = Config::with_runs("a", &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]);
        let b = Config::with_runs("b", &[0.11, 0.19, 0.31, 0.39, 0.51, 0.59, 0.71, 0.79]);
        let block = Block { key: vec![], configs: vec![a, b] };
        let wilcoxon = Verdicts { test: Significance::Wilcoxon, level: 0.05 };
        let c = &compare_block(&block, 0, Metric::Regret, wilcoxon)[1];
        assert_eq!(c.p_floor, 2.0 / 256.0);
        assert_eq!(c.verdict, "indistinguishable");
    }

    #[test]
    fn each_group_is_represented_by_its_best_configuration() {
        let mut configs = Vec::new();
        for (solver, alpha, runs) in [("a", "0.1", [0.3, 0.4]), ("a", "0.5", [0.1, 0.2]), ("b", "0.1", [0.2, 0.2])] {
            let mut c = Config::with_runs(solver, &runs);
            c.key = vec![solver.to_string(), alpha.to_string()];
            configs.push(c);
        }
        let block = Block { key: vec![], configs };
        let reps = represent(&block, &[0], Metric::Regret, &[]).unwrap();
        assert_eq!(
            reps,
            [
                Representative { config: 1, configurations: 2, varying: vec![1] },
                Representative { config: 2, configurations: 1, varying: vec![] },
            ]
        );
        let pick = |v: &str| Pick {
            group: "a".into(),
            wanted: vec![(1, v.into())],
            blocks: Vec::new(),
            given: format!("a:alpha={v}"),
        };
        assert_eq!(represent(&block, &[0], Metric::Regret, &[pick("0.1")]).unwrap()[0].config, 0);
        assert!(represent(&block, &[0], Metric::Regret, &[pick("0.9")]).is_err());
    }
}
