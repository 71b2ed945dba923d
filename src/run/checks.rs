//! Everything checked before a run writes anything: the shard, `--only`, job ids, the
//! output directory, and what an existing directory holds (resume, `--fresh`, `--extend`).

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result};

use super::Notices;
use super::state::{self, Existing};
use crate::error::bad_input;
use crate::job::Job;
use crate::report::manifest::Shard;
use crate::spec::Sweep;

/// The shard from `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT` and
/// `SLURM_ARRAY_TASK_MIN`, when they are set.
pub fn shard_from_env(var: impl Fn(&str) -> Option<String>, notices: &Notices) -> Result<Option<Shard>> {
    let (Some(id), Some(count)) = (var("SLURM_ARRAY_TASK_ID"), var("SLURM_ARRAY_TASK_COUNT")) else {
        if var("SLURM_ARRAY_TASK_ID").is_some() {
            notices.say(
                "note: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; running every job (give --shard K/N to split)",
            );
        }
        return Ok(None);
    };
    let num = |name: &str, v: &str| {
        v.trim().parse::<u32>().map_err(|_| bad_input(format!("{name}={v:?} is not a whole number")))
    };
    let id = num("SLURM_ARRAY_TASK_ID", &id)?;
    let count = num("SLURM_ARRAY_TASK_COUNT", &count)?;
    let min = match var("SLURM_ARRAY_TASK_MIN") {
        Some(m) => num("SLURM_ARRAY_TASK_MIN", &m)?,
        None => 0,
    };
    let index = id.checked_sub(min).filter(|&k| k < count).ok_or_else(|| {
        bad_input(format!(
            "SLURM_ARRAY_TASK_ID={id} with SLURM_ARRAY_TASK_MIN={min} and SLURM_ARRAY_TASK_COUNT={count} \
             does not name a shard: the array must be contiguous, e.g. --array=0-{}",
            count.saturating_sub(1)
        ))
    })?;
    Ok(Some(Shard { index, count }))
}

/// Resolves `--only` prefixes to job ids.
pub fn select_only(jobs: &[Job], only: &[String]) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    for prefix in only {
        let matches: Vec<&Job> = jobs.iter().filter(|j| j.id.starts_with(prefix.as_str())).collect();
        match matches.len() {
            0 => {
                return Err(bad_input(format!(
                    "--only {prefix}: no job of this spec has an id starting with {prefix:?}"
                )));
            }
            1 => {
                out.insert(matches[0].id.clone());
            }
            n => {
                return Err(bad_input(format!(
                    "--only {prefix}: {n} jobs have ids starting with {prefix:?}; give more digits"
                )));
            }
        }
    }
    Ok(out)
}

/// Job ids are 48-bit hashes: refuse the (astronomically rare) spec where two differ only
/// by a hash collision, rather than mixing their rows.
pub fn check_unique_ids(jobs: &[Job]) -> Result<()> {
    let mut seen = HashSet::with_capacity(jobs.len());
    for j in jobs {
        if !seen.insert(j.id.as_str()) {
            return Err(bad_input(format!(
                "two jobs of this spec hash to the same id {}; change the master seed to separate them",
                j.id
            )));
        }
    }
    Ok(())
}

/// Refuses a directory that cannot be created or written, before anything is written.
pub fn check_writable(dir: &Path) -> Result<()> {
    let mut probe = dir;
    while !probe.exists() {
        match probe.parent() {
            Some(p) if !p.as_os_str().is_empty() => probe = p,
            _ => return Ok(()),
        }
    }
    let meta = std::fs::metadata(probe).with_context(|| format!("cannot read {}", probe.display()))?;
    if !meta.is_dir() {
        return Err(bad_input(format!("--out {}: {} is a file, not a directory", dir.display(), probe.display())));
    }
    if meta.permissions().readonly() || !writable(probe) {
        return Err(bad_input(format!("--out {}: {} is not writable", dir.display(), probe.display())));
    }
    Ok(())
}

fn writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".sweep-write-test-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => std::fs::remove_file(&probe).is_ok(),
        Err(_) => false,
    }
}

/// Handles an existing directory: refuse, move aside, or extend one of another spec;
/// before keeping anything, checks that its result files hold what sweep wrote and that
/// the programs of its command solvers may run (see [`super::trust`]).
pub fn prepare(
    dir: &Path,
    (spec, sweep): (&Path, &Sweep),
    existing: Existing,
    jobs: &[Job],
    (trust, notices): (bool, &Notices),
) -> Result<()> {
    let has_results = dir.join("results.csv").exists() || dir.join("manifest.json").exists();
    if existing == Existing::Fresh {
        if has_results {
            let aside = state::move_aside(dir)?;
            notices.say(&format!("moved the old {} aside to {}", dir.display(), aside.display()));
        }
        return Ok(());
    }
    let Some(old) = state::existing_manifest(dir)? else {
        if dir.join("results.csv").exists() && !state::clear_unstarted(dir)? {
            return Err(bad_input(format!(
                "{} holds a results.csv but no manifest.json; use --fresh to move it aside or --out to write elsewhere",
                dir.display()
            )));
        }
        return Ok(());
    };
    for note in old.check_files(dir)? {
        notices.say(&note);
    }
    super::trust::check_resume(dir, &old, spec, sweep, trust)?;
    let same_spec = old.spec_hash == sweep.hash();
    if let Some(why) = super::trust::changed_file(&old.spec, &sweep.resolved()).filter(|_| !same_spec) {
        return Err(bad_input(format!(
            "{}: {why}, so the finished rows came from another program; restore the file, or use --fresh to move the \
             old results aside (or --out DIR to write elsewhere)",
            dir.display()
        )));
    }
    super::trust::compare(&old.programs, &super::trust::programs(sweep), false)?;
    if same_spec {
        return Ok(());
    }
    match existing {
        Existing::Fresh => unreachable!("handled above"),
        Existing::Extend => {
            let ids: HashSet<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
            let old_ids = state::existing_job_ids(dir)?;
            let mut gone: Vec<&String> = old_ids.iter().filter(|id| !ids.contains(id.as_str())).collect();
            gone.sort();
            if gone.is_empty() {
                return Ok(());
            }
            Err(bad_input(format!(
                "--extend: {} finished jobs in {} are not in the new spec (e.g. {}); --extend only adds grid points \
                 or replicates. Use --fresh to start again (the old directory is moved aside) or --out to write elsewhere",
                gone.len(),
                dir.display(),
                gone.iter().take(5).map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            )))
        }
        Existing::Resume => {
            let diff = state::spec_diff(&old.spec, &sweep.resolved(), 8);
            Err(bad_input(format!(
                "{} holds results of a different spec ({}, hash {}); what changed: {}. Use --fresh to move the old \
                 results aside, --extend if you only added grid points or replicates, or --out DIR to write elsewhere",
                dir.display(),
                old.spec_file,
                old.spec_hash,
                if diff.is_empty() { "the spec text".to_string() } else { diff.join("; ") }
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn shards_from_the_slurm_variables() {
        let s = |pairs: &[(&str, &str)]| shard_from_env(env(pairs), &Notices::Silent);
        assert_eq!(s(&[]).unwrap(), None);
        assert_eq!(s(&[("SLURM_ARRAY_TASK_ID", "3")]).unwrap(), None);
        let two = [("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_COUNT", "4")];
        assert_eq!(s(&two).unwrap(), Some(Shard { index: 2, count: 4 }));
        let offset = [("SLURM_ARRAY_TASK_ID", "11"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "10")];
        assert_eq!(s(&offset).unwrap(), Some(Shard { index: 1, count: 4 }));
        assert!(s(&[("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_COUNT", "4")]).is_err());
        assert!(s(&[("SLURM_ARRAY_TASK_ID", "x"), ("SLURM_ARRAY_TASK_COUNT", "4")]).is_err());
    }
}
