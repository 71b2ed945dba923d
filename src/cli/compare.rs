//! `sweep compare`: within each block (solver, seat, evaluation opponent, game), every
//! configuration against a baseline, paired by replicate (see [`crate::report::compare`]);
//! or, when `--by` names block columns (`--by solver`), the groups with each other, each
//! represented by its best configuration. From the test rows when the file has them
//! (`[test]`), then with each tested configuration's gap to its tuning mean, else from the
//! tuning rows (`--split`). [`table`] computes the comparisons as a [`Table`] from the
//! results and plain [`CompareOptions`]; the command prints it in the `--format` asked.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::table::FormatArgs;
use crate::error::{bad_input, exit};
use crate::job::Split;
use crate::report::compare::{
    Baseline, Comparison, Pick, Representative, Verdicts, cannot_reject_note, compare_block, represent,
};
use crate::report::paired_runs::{Block, Metric, block_columns, default_config_columns, read_blocks_in};
use crate::report::splits;
use crate::report::table::{Cell, Column, Table, Values};
use crate::stats::significance::Significance;

/// Flags of `sweep compare`.
#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// A results directory or its results.csv.
    results: PathBuf,
    #[command(flatten)]
    verification: super::reproduce::Verification,
    /// The metric: regret, regret_auc, solved_at or value.
    #[arg(long, default_value = "regret", value_parser = metric_arg)]
    metric: Metric,
    /// `best` (the best mean in each block), a label, or col=value,col=value; with `--by`
    /// naming block columns, the group compared with (`--baseline sarsa`,
    /// `--baseline solver=sarsa`).
    #[arg(long, default_value = "best", value_name = "best|CONFIG")]
    baseline: String,
    /// What is compared (comma separated). Parameters: configurations are their values,
    /// runs of configurations that differ only elsewhere averaged per replicate (default:
    /// every parameter but the seat). Block columns (solver, seat, eval_opponent, game):
    /// their values are compared with each other within the blocks of the others, each
    /// represented by its best configuration (per value of any parameters also named).
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    by: Vec<String>,
    /// With `--by` naming block columns: represent a group by this configuration rather
    /// than by its best, as GROUP:col=value,col=value (GROUP: the group's `--by` values
    /// joined by `/`, e.g. `--pick sarsa:alpha=0.5`); a block column among the pairs
    /// limits the pick to those blocks (`--pick sarsa:game=4x4g4,alpha=0.5`); repeatable.
    /// A group or a block that the results do not have is an error.
    #[arg(long, value_name = "GROUP:CONFIG")]
    pick: Vec<String>,
    /// The paired test that makes the verdicts: t (paired t, the default: no floor on its
    /// p-value; assumes the mean difference about normal), wilcoxon (signed ranks) or
    /// permutation (exact sign flips of the mean difference).
    #[arg(long, default_value = "t", value_parser = significance_arg)]
    significance: Significance,
    /// The level below which a Holm-adjusted p-value is a difference.
    #[arg(long = "alpha", value_name = "ALPHA", default_value_t = crate::stats::significance::DEFAULT_LEVEL, value_parser = level_arg)]
    level: f64,
    #[command(flatten)]
    output: FormatArgs,
    /// The rows compared: `test` (the configurations a [test] table chose, on fresh seeds;
    /// the default when the file has test rows) or `tune` (the grid or search).
    #[arg(long, value_parser = splits::arg, value_name = "tune|test")]
    split: Option<Split>,
}

/// Parses a metric name for clap.
pub fn metric_arg(s: &str) -> Result<Metric, String> {
    s.parse().map_err(|e: crate::mdp::ParseNameError| e.to_string())
}

/// Parses a significance test's name for clap.
pub fn significance_arg(s: &str) -> Result<Significance, String> {
    s.parse().map_err(|e: crate::mdp::ParseNameError| e.to_string())
}

/// Parses a level for clap: a number strictly between 0 and 1.
pub fn level_arg(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("{s:?} is not a level; allowed: a number strictly between 0 and 1 (e.g. 0.05)")),
    }
}

/// The columns `--by` names, or the default configuration columns.
pub fn config_columns(by: &[String]) -> Vec<&str> {
    if by.is_empty() { default_config_columns() } else { by.iter().map(String::as_str).collect() }
}

/// What is read and how each block is split: the block columns, the configuration
/// columns, and (when groups are compared) the configuration columns that make a group.
struct Layout<'a> {
    block: Vec<&'a str>,
    config: Vec<&'a str>,
    group: Option<Vec<usize>>,
}

impl<'a> Layout<'a> {
    fn of(by: &'a [String]) -> Layout<'a> {
        let all = block_columns();
        let lifted = by.iter().any(|c| all.contains(&c.as_str()));
        if !lifted {
            return Layout { block: all, config: config_columns(by), group: None };
        }
        let block: Vec<&str> = all.into_iter().filter(|c| !by.iter().any(|b| b == c)).collect();
        let mut config: Vec<&str> = by.iter().map(String::as_str).collect();
        config.extend(default_config_columns().into_iter().filter(|c| !by.iter().any(|b| b == c)));
        Layout { block, config, group: Some((0..by.len()).collect()) }
    }

    /// The value of block column `name` for a configuration of `block`.
    fn value(&self, block: &Block, config: usize, name: &str) -> String {
        match self.block.iter().position(|c| *c == name) {
            Some(k) => block.key[k].clone(),
            None => self
                .config
                .iter()
                .position(|c| *c == name)
                .map(|k| block.configs[config].key[k].clone())
                .unwrap_or_default(),
        }
    }
}

/// What the comparison table is computed from, beside the results: the flags, without clap.
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// The metric.
    pub metric: Metric,
    /// `best`, a label, or col=value,...
    pub baseline: String,
    /// What is compared (empty: every parameter but the seat).
    pub by: Vec<String>,
    /// Representatives chosen by name (GROUP:CONFIG).
    pub pick: Vec<String>,
    /// The paired test that makes the verdicts.
    pub significance: Significance,
    /// Its level.
    pub level: f64,
    /// The rows compared (default: the test rows when the file has them).
    pub split: Option<Split>,
}

impl CompareArgs {
    /// The options these flags give.
    pub fn options(&self) -> CompareOptions {
        CompareOptions {
            metric: self.metric,
            baseline: self.baseline.clone(),
            by: self.by.clone(),
            pick: self.pick.clone(),
            significance: self.significance,
            level: self.level,
            split: self.split,
        }
    }
}

/// Runs `sweep compare`.
pub fn compare(args: &CompareArgs) -> Result<i32> {
    let dir = super::reproduce::results_dir(&args.results, args.verification)?;
    super::table::print(&table(&dir, &args.options())?, args.output.format());
    Ok(exit::OK)
}

/// The comparisons of the results in `dir`: one row per configuration (or group) against
/// its block's baseline, the lines under it as notes.
pub fn table(dir: &Path, args: &CompareOptions) -> Result<Table> {
    let layout = Layout::of(&args.by);
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    let path = dir.join("results.csv");
    let shown = splits::shown(&path).map_err(bad)?;
    let split = args.split.unwrap_or(shown);
    let blocks = read_blocks_in(&path, args.metric, &layout.block, &layout.config, split).map_err(bad)?;
    if blocks.is_empty() {
        return Err(bad_input(format!("{}: no successful rows with a {} value", dir.display(), args.metric.name())));
    }
    let picks = parse_picks(&args.pick, &layout).map_err(bad)?;
    let mut used = vec![false; picks.len()];
    let mut groups: Vec<String> = Vec::new();
    let baseline = Baseline::parse(&args.baseline);
    let verdicts = Verdicts { test: args.significance, level: args.level };
    let title = format!("{} against the baseline, paired by replicate", args.metric.name());
    let mut table = Table::new(title, compare_columns());
    let mut notes: Vec<String> = Vec::new();
    let (mut skipped, mut unsolved) = (0, 0);
    for read in &blocks {
        // The block compared: the one read, or its groups' representatives.
        let (block, reps) = match &layout.group {
            None => (read.clone(), None),
            Some(group) => {
                let (block, reps) = represent_groups(read, group, &picks, &mut used, &mut groups, args.metric)?;
                (block, Some(reps))
            }
        };
        let Some(base) = baseline.find(&block, &layout.config, args.metric).map_err(bad)? else {
            skipped += 1;
            unsolved += block.configs.iter().map(|c| c.unsolved()).sum::<usize>();
            continue;
        };
        let comparisons = compare_block(&block, base, args.metric, verdicts);
        for c in &comparisons {
            let rep = reps.as_ref().map(|r| &r[c.config]);
            table.push(table_row(&layout, &block, c, rep, args.significance));
            unsolved += block.configs[c.config].unsolved();
        }
        notes.extend(cannot_reject_note(&block.key, &comparisons, verdicts));
    }
    if let Some(k) = used.iter().position(|u| !u) {
        return Err(bad_input(unused_pick(&picks[k], &groups, &layout)));
    }
    if table.rows.is_empty() && unsolved > 0 {
        return Err(bad_input(format!(
            "{}: no run was ever solved ({unsolved} runs never reached regret 0, so none has a solved_at)",
            dir.display()
        )));
    }
    if table.rows.is_empty() {
        return Err(bad_input(format!("--baseline {}: no configuration matches", args.baseline)));
    }
    table.notes = column_notes(args, &picks, layout.group.is_some().then_some(split), skipped, unsolved);
    table.notes.extend(notes);
    if shown == Split::Test || args.split.is_some() {
        table.notes.push(splits::describe(split, shown == Split::Test));
    }
    if split == Split::Test && args.by.is_empty() {
        // The default columns make each configuration one grid point: its tuning mean.
        table.notes.extend(gap_lines(&path, args.metric, &layout.config)?);
    }
    Ok(table)
}

/// The columns of the comparison table.
fn compare_columns() -> Vec<Column> {
    let mut columns: Vec<Column> = block_columns().iter().map(|&c| Column::key(c)).collect();
    columns.extend([Column::text("label"), Column::text("configuration"), Column::integers("n")]);
    columns.extend(["mean", "difference", "ci_low", "ci_high"].map(Column::numbers));
    columns.extend(["p_t", "p_wilcoxon", "p_holm", "p_improve"].map(Column::numbers));
    columns.extend([Column::text("verdict"), Column::text("test"), Column::numbers("p_floor")]);
    columns.extend([Column::integers("unsolved"), Column::integers("configurations")]);
    columns
}

/// A block `read` whose groups (the configurations that share the `--by` columns at
/// `group`) are each represented by one configuration: the block of the representatives,
/// and the representatives. The picks that apply to the block and name one of its groups
/// choose that group's representative, and are marked in `used`; the block's group names
/// (the `--by` values joined by `/`) are added to `groups`, each once.
fn represent_groups(
    read: &Block,
    group: &[usize],
    picks: &[Pick],
    used: &mut [bool],
    groups: &mut Vec<String>,
    metric: Metric,
) -> Result<(Block, Vec<Representative>)> {
    // The block's group names (the `--by` values joined by `/`), once.
    let names: Vec<String> =
        read.configs.iter().map(|c| group.iter().map(|&k| c.key[k].as_str()).collect::<Vec<_>>().join("/")).collect();
    let here: Vec<Pick> = picks
        .iter()
        .zip(used.iter_mut())
        .filter(|(p, _)| p.blocks.iter().all(|(k, v)| read.key[*k] == *v))
        .filter_map(|(p, used)| {
            let named = names.contains(&p.group);
            *used |= named;
            named.then(|| p.clone())
        })
        .collect();
    for name in names {
        if !groups.contains(&name) {
            groups.push(name);
        }
    }
    let reps = represent(read, group, metric, &here).map_err(|e| bad_input(format!("{e:#}")))?;
    let configs = reps.iter().map(|r| read.configs[r.config].clone()).collect();
    Ok((Block { key: read.key.clone(), configs }, reps))
}

/// One line per tested configuration: its mean over the tuning and the test seeds.
fn gap_lines(results: &Path, metric: Metric, columns: &[&str]) -> Result<Vec<String>> {
    let gaps = crate::report::paired_runs::gaps(results, metric, columns).map_err(|e| bad_input(format!("{e:#}")))?;
    let num = |x: f64| Cell::Float(x).shown(Values::Numbers(6));
    let mut lines = vec![format!("gap = test mean - tuning mean of each tested configuration ({}):", metric.name())];
    for g in gaps {
        let on = g.block.get(3).map(|game| format!(" on {game}")).unwrap_or_default();
        lines.push(format!(
            "  {} {} ({} vs {}{on}): tune {} over {}, test {} over {}, gap {}",
            g.label,
            g.name,
            g.block[1],
            g.block[2],
            num(g.tune.1),
            g.tune.0,
            num(g.test.1),
            g.test.0,
            num(g.gap())
        ));
    }
    Ok(lines)
}

/// One line of the table: a comparison, its configuration named by what varies (a group by
/// its parameters and what picks its representative).
fn table_row(
    layout: &Layout,
    block: &Block,
    c: &Comparison,
    rep: Option<&Representative>,
    test: Significance,
) -> Vec<Cell> {
    let config = &block.configs[c.config];
    let representatives_vary = block.factors(&layout.config);
    let shown: Vec<usize> = match (rep, &layout.group) {
        // A group of one configuration (a [test]'s choice) is named by what differs
        // between the representatives.
        (Some(r), Some(group)) => group
            .iter()
            .chain(if r.varying.is_empty() { &representatives_vary } else { &r.varying })
            .copied()
            .filter(|&k| !block_columns().contains(&layout.config[k]) && !config.key[k].is_empty())
            .collect(),
        _ => block.factors(&layout.config),
    };
    // A decay derived from a set `_min_at` restates it: not part of the name.
    let shown: Vec<usize> =
        shown.into_iter().filter(|&k| !crate::report::derived(&layout.config, &config.key, k)).collect();
    let name: Vec<String> = shown.iter().map(|&k| crate::report::setting(layout.config[k], &config.key[k])).collect();
    let mut r: Vec<Cell> =
        block_columns().iter().map(|col| Cell::key(&layout.value(block, c.config, col), false)).collect();
    r.extend([Cell::text(config.label.clone()), Cell::Text(name.join(" ")), Cell::int(c.runs), Cell::Float(c.mean)]);
    let d = &c.difference;
    r.extend([d.mean, c.low, c.high, d.p_value, c.wilcoxon.p_value].map(Cell::Float));
    r.extend([Cell::Float(c.p_holm), Cell::Float(c.p_improve), Cell::text(c.verdict)]);
    r.extend([Cell::text(test.name()), Cell::Float(c.p_floor), Cell::int(config.unsolved())]);
    r.push(Cell::int(rep.map_or(1, |r| r.configurations)));
    r
}

/// What `ci_low`..`ci_high` are: the verdict's own interval, or none.
pub fn interval_note(test: Significance, level: f64) -> String {
    match test {
        Significance::T => format!(
            "ci_low..ci_high: the verdict's interval, paired t at level 1 - {level} x p_t / p_holm (Holm-adjusted as \
             the p-value is: it excludes 0 exactly when the verdict is better or worse)"
        ),
        other => format!(
            "ci_low..ci_high: empty, as the {other} test that made the verdicts has no interval here (--significance \
             t gives one)"
        ),
    }
}

/// The lines under the table: what the columns mean, and what was left out or chosen.
/// `grouped`: the split of the rows when groups are compared (`--by` naming block columns).
fn column_notes(
    args: &CompareOptions,
    picks: &[Pick],
    grouped: Option<Split>,
    skipped: usize,
    unsolved: usize,
) -> Vec<String> {
    let mut notes = Vec::new();
    notes.push(format!(
        "{}: difference = configuration - baseline over paired replicates; {}; p_t: paired t; \
         p_wilcoxon: signed-rank test (exact up to 25 pairs); p_holm: {} p Holm-adjusted over each block's \
         comparisons; p_improve: P(a run beats a baseline run); verdicts by {} at {}; p_floor: the smallest p_holm \
         these pairs could reach{}",
        args.metric.name(),
        interval_note(args.significance, args.level),
        args.significance,
        args.significance,
        args.level,
        if skipped > 0 {
            format!(
                "; {skipped} block{} left out (no baseline there, or no run with a {})",
                if skipped == 1 { "" } else { "s" },
                args.metric.name()
            )
        } else {
            String::new()
        }
    ));
    if grouped == Some(Split::Test) {
        notes.push(format!(
            "each {} is represented by the configuration its [test] chose on the tuning seeds, compared here on \
             fresh seeds that played no part in the choice{}",
            args.by.join("/"),
            if picks.is_empty() { "" } else { " (but those --pick names)" }
        ));
    } else if grouped.is_some() {
        notes.push(format!(
            "each {} is represented by its best configuration by {}{}, chosen on the same runs it is compared on: \
             optimistic, the more so the more configurations it has (column configurations); a [test] table \
             removes the optimism",
            args.by.join("/"),
            args.metric.name(),
            if picks.is_empty() { "" } else { " (but those --pick names)" }
        ));
    }
    if unsolved > 0 {
        notes.push(format!(
            "{unsolved} {} never reached regret 0: no solved_at, counted in `unsolved`, in neither the means nor \
             the pairs",
            if unsolved == 1 { "run" } else { "runs" }
        ));
    }
    notes
}

/// Why a pick matched nothing: no such group (with the nearest name), or no block with its
/// block values.
fn unused_pick(pick: &Pick, groups: &[String], layout: &Layout) -> String {
    if !groups.contains(&pick.group) {
        let hint = crate::spec::closest_name(&pick.group, groups.iter().map(String::as_str))
            .map(|g| format!(" (did you mean {g}?)"))
            .unwrap_or_default();
        return format!("--pick {}: no group {:?}{hint}; the groups are {}", pick.given, pick.group, groups.join(", "));
    }
    let blocks: Vec<String> = pick.blocks.iter().map(|(k, v)| format!("{}={v}", layout.block[*k])).collect();
    format!("--pick {}: {} has no block with {}", pick.given, pick.group, blocks.join(","))
}

/// The `--pick` flags, checked against the layout: only when groups are compared, and only
/// naming configuration columns or (to limit a pick to some blocks) block columns.
fn parse_picks(given: &[String], layout: &Layout) -> Result<Vec<Pick>> {
    if !given.is_empty() && layout.group.is_none() {
        anyhow::bail!("--pick {}: only with --by naming a block column (solver, seat, eval_opponent, game)", given[0]);
    }
    let mut picks = Vec::new();
    for p in given {
        let Some((group, config)) = p.split_once(':') else {
            anyhow::bail!("--pick {p}: expected GROUP:col=value,col=value (e.g. sarsa:alpha=0.5)");
        };
        let (mut wanted, mut blocks) = (Vec::new(), Vec::new());
        for pair in config.split(',') {
            let Some((col, value)) = pair.split_once('=') else {
                anyhow::bail!("--pick {p}: {pair:?} is not col=value");
            };
            if let Some(k) = layout.block.iter().position(|c| *c == col) {
                blocks.push((k, value.to_string()));
                continue;
            }
            let Some(k) = layout.config.iter().position(|c| *c == col) else {
                anyhow::bail!(
                    "--pick {p}: {col} is not a configuration column; those are {} (and the block columns {})",
                    layout.config.join(", "),
                    layout.block.join(", ")
                );
            };
            wanted.push((k, value.to_string()));
        }
        if wanted.is_empty() {
            anyhow::bail!("--pick {p}: name the configuration (GROUP:col=value,...), not only its blocks");
        }
        picks.push(Pick { group: group.to_string(), wanted, blocks, given: p.clone() });
    }
    Ok(picks)
}
