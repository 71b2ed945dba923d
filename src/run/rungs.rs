//! Running a search (`[search]`) or a tuning/test split (`[test]`): one pass of the
//! executor per rung, then one for the test.
//!
//! Before each pass, the scores in the results file decide the jobs (see
//! [`crate::test_split::decide`]): every rung whose predecessors are all scored, then the
//! test configurations once tuning is scored (a grid is one tuning pass). A pass runs
//! the decided jobs that are not done yet (resume keeps the rest), sorts the files and
//! reads the scores again, until the last rung is done. Since decisions depend only on the
//! spec and the finished jobs' rows, a search stopped at any moment resumes with the same
//! command to the same files.
//!
//! A shard (`--shard K/N` or a Slurm array task) runs its share of the jobs that the
//! *merged* results in the base directory decide, in one pass, and stops: a sharded
//! search alternates "every shard runs" and `sweep merge` once per rung.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::Result;

use super::{Outcome, Plan, RunReport, StopToken, execute, state};
use crate::error::bad_input;
use crate::names::count;
use crate::report::manifest::Manifest;
use crate::test_split::{Scores, decide, tuning_passes};

/// Runs the search or test split of `plan` (whose `jobs` are ignored: the passes decide
/// them).
pub(super) fn execute_search(mut plan: Plan<'_>, base: &Path, stop: &StopToken) -> Result<RunReport> {
    let sweep = plan.sweep;
    let tuning = tuning_passes(sweep);
    let passes = tuning + usize::from(sweep.test.is_some());
    let scores_dir = match plan.shard {
        Some(_) => {
            check_base(base, &sweep.hash())?;
            base.to_path_buf()
        }
        None => {
            clean(&plan)?;
            plan.dir.clone()
        }
    };
    let (mut ran, mut failed, mut kept) = (0, 0, None);
    let mut shared_tables = crate::report::manifest::SharedTables::default();
    let started = std::time::Instant::now();
    loop {
        let scores = Scores::read(&scores_dir.join("results.csv"), sweep).map_err(|e| bad_input(format!("{e:#}")))?;
        let decided = decide(sweep, plan.all_jobs, &scores);
        let rung = decided.rungs.len() - 1;
        plan.jobs =
            decided.jobs().map(|i| &plan.all_jobs[i]).filter(|j| plan.shard.is_none_or(|s| s.owns(j.index))).collect();
        plan.last = plan.shard.is_some() || rung + 1 == passes;
        if !plan.opts.quiet {
            let configurations = decided.configurations[rung].len();
            let jobs = decided.rungs[rung].len();
            let shard =
                plan.shard.map(|s| format!(" (shard {}/{}: {} jobs in all)", s.index, s.count, plan.jobs.len()));
            let shard = shard.unwrap_or_default();
            let line = match (&sweep.search, &sweep.test) {
                (_, Some(test)) if rung == tuning => format!(
                    "test: the best {} per {} by {} against {}: {}, {} fresh seeds \
                     each, {}{shard}",
                    test.top,
                    test.per.name(),
                    test.metric.name(),
                    test.opponent.name(),
                    count(configurations, "configuration"),
                    test.replicates,
                    count(jobs, "job")
                ),
                (Some(search), _) => {
                    let budgets = search.budgets();
                    format!(
                        "{} rung {rung} of {}: {} at {} = {}, {}{shard}",
                        search.method.name(),
                        budgets.len(),
                        count(configurations, "configuration"),
                        search.parameter,
                        budgets[rung],
                        count(jobs, "job"),
                    )
                }
                (None, _) => {
                    format!("tuning: {}, {}{shard}", count(configurations, "configuration"), count(jobs, "job"))
                }
            };
            plan.opts.notices.say(&line);
        }
        if plan.last && plan.shard.is_none() {
            plan.earlier.rung_lines = pass_lines(sweep, &decided);
        }
        let report = execute(&plan, stop)?;
        plan.tell_resume = false;
        ran += report.ran;
        failed += report.failed;
        shared_tables.add(&report.shared_tables);
        let kept = *kept.get_or_insert(report.kept);
        if plan.last || !matches!(report.outcome, Outcome::Completed) {
            return Ok(RunReport { ran, kept, failed, shared_tables, ..report });
        }
        plan.earlier = super::Earlier {
            ran,
            failed,
            kept: Some(kept),
            wall: started.elapsed(),
            shared_tables: shared_tables.clone(),
            rung_lines: Vec::new(),
        };
    }
}

/// One line per pass of a run whose every pass is decided: for a search, each rung's
/// configurations and budget, what it cost (jobs, budget units) and how many went on, then
/// the search's total; for a `[test]`, the test pass. Empty for a grid without `[test]`.
fn pass_lines(sweep: &crate::spec::Sweep, decided: &crate::search::Decided) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(search) = &sweep.search {
        let budgets = search.budgets();
        let mut total = (0, 0u128);
        for (rung, configurations) in decided.configurations.iter().enumerate().take(budgets.len()) {
            let jobs = decided.rungs[rung].len();
            let work = u128::from(budgets[rung]) * jobs as u128;
            total = (total.0 + jobs, total.1 + work);
            let next = match decided.configurations.get(rung + 1).filter(|_| rung + 1 < budgets.len()) {
                Some(next) => {
                    let went_on = next.iter().filter(|c| configurations.contains(c)).count();
                    match next.len() - went_on {
                        0 => format!("{went_on} went on"),
                        joined => format!("{went_on} went on, {joined} joined (a later bracket)"),
                    }
                }
                None => "the last".to_string(),
            };
            lines.push(format!(
                "rung {rung}: {} at {} = {}, {}, {work} {}; {next}",
                count(configurations.len(), "configuration"),
                search.parameter,
                budgets[rung],
                count(jobs, "job"),
                search.parameter
            ));
        }
        lines.push(format!("search: {} in all, {} {}", count(total.0, "job"), total.1, search.parameter));
    }
    if let Some(test) = &sweep.test
        && decided.rungs.len() > crate::test_split::tuning_passes(sweep)
    {
        let configurations = decided.configurations.last().map_or(0, Vec::len);
        lines.push(format!(
            "test: {} on {} fresh seeds each, {}",
            count(configurations, "configuration"),
            test.replicates,
            count(decided.rungs.last().map_or(0, Vec::len), "job")
        ));
    }
    lines
}

/// Before the first decision: keeps only the rows of complete jobs (cutting a partial
/// last line), so that a job killed while its rows were written does not count as scored.
fn clean(plan: &Plan<'_>) -> Result<()> {
    if !plan.dir.join("results.csv").exists() {
        return Ok(());
    }
    let evaluations = plan.sweep.evaluation.opponents.len();
    let expected: HashMap<&str, usize> =
        plan.all_jobs.iter().map(|j| (j.id.as_str(), j.params.eval_seats().len() * evaluations)).collect();
    let resumed = state::resume(&plan.dir, &plan.sweep.result_header(), &expected, &HashSet::new())?;
    if resumed.repaired > 0 && !plan.opts.quiet {
        plan.opts.notices.say(&format!(
            "cut a partial last line of {} bytes in {}",
            resumed.repaired,
            plan.dir.display()
        ));
    }
    Ok(())
}

/// Refuses a base directory whose merged results belong to another spec.
fn check_base(base: &Path, hash: &str) -> Result<()> {
    if !base.join("manifest.json").exists() {
        return Ok(());
    }
    let manifest = Manifest::read(base)?;
    if manifest.spec_hash != hash {
        return Err(bad_input(format!(
            "{} holds merged results of a different spec (hash {}, this one {hash}); a shard of a [search] \
             decides its rung from them: use another --out",
            base.display(),
            manifest.spec_hash
        )));
    }
    Ok(())
}
