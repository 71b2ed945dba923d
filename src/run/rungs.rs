//! Running a search (`[search]`): one pass of the executor per rung.
//!
//! Before each pass, the scores in the results file decide the jobs (see
//! [`crate::search::decide`]): every rung whose predecessors are all scored. A pass runs
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
use crate::search::{decide, read_scores};

/// Runs the search of `plan` (whose `jobs` are ignored: the search decides them).
pub(super) fn execute_search(mut plan: Plan<'_>, base: &Path, stop: &StopToken) -> Result<RunReport> {
    let sweep = plan.sweep;
    let search = sweep.search.as_ref().expect("a searched spec");
    let rungs = search.budgets();
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
    let started = std::time::Instant::now();
    loop {
        let scores = read_scores(&scores_dir.join("results.csv"), search).map_err(|e| bad_input(format!("{e:#}")))?;
        let decided = decide(sweep, plan.all_jobs, |id| scores.get(id).copied());
        let rung = decided.rungs.len() - 1;
        plan.jobs =
            decided.jobs().map(|i| &plan.all_jobs[i]).filter(|j| plan.shard.is_none_or(|s| s.owns(j.index))).collect();
        plan.last = plan.shard.is_some() || rung + 1 == rungs.len();
        if !plan.opts.quiet {
            let configurations = decided.configurations[rung].len();
            let jobs = decided.rungs[rung].len();
            let shard =
                plan.shard.map(|s| format!(" (shard {}/{}: {} jobs in all)", s.index, s.count, plan.jobs.len()));
            eprintln!(
                "{} rung {rung} of {}: {} at {} = {}, {}{}",
                search.method.name(),
                rungs.len(),
                count(configurations, "configuration"),
                search.parameter,
                rungs[rung],
                count(jobs, "job"),
                shard.unwrap_or_default()
            );
        }
        if plan.last && plan.shard.is_none() {
            plan.earlier.rung_lines = rung_lines(search, &rungs, &decided);
        }
        let report = execute(&plan, stop)?;
        plan.tell_resume = false;
        ran += report.ran;
        failed += report.failed;
        let kept = *kept.get_or_insert(report.kept);
        if plan.last || !matches!(report.outcome, Outcome::Completed) {
            return Ok(RunReport { ran, kept, failed, ..report });
        }
        plan.earlier =
            super::Earlier { ran, failed, kept: Some(kept), wall: started.elapsed(), rung_lines: Vec::new() };
    }
}

/// One line per rung of a search whose every rung is decided: its configurations and
/// budget, what it cost (jobs, budget units), and how many went on; then the total.
fn rung_lines(search: &crate::spec::SearchSpec, budgets: &[u64], decided: &crate::search::Decided) -> Vec<String> {
    let mut lines = Vec::new();
    let mut total = (0, 0u128);
    for (rung, configurations) in decided.configurations.iter().enumerate() {
        let jobs = decided.rungs[rung].len();
        let work = u128::from(budgets[rung]) * jobs as u128;
        total = (total.0 + jobs, total.1 + work);
        let next = match decided.configurations.get(rung + 1) {
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
    let resumed = state::resume(&plan.dir, &expected, &HashSet::new())?;
    if resumed.repaired > 0 && !plan.opts.quiet {
        eprintln!("cut a partial last line of {} bytes in {}", resumed.repaired, plan.dir.display());
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
