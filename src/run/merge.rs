//! `sweep merge`: combine the shards of a split sweep (`DIR/shards/K-of-N/`) into DIR's
//! result files, identical apart from timings to a one-machine run of the same spec.
//!
//! Checks, each a clear error that lists exactly what is wrong: every shard of one N is
//! present; each is complete; all share the spec hash and the tool and generator
//! versions; every job of the spec appears in exactly one shard; each shard's files hold
//! what its run wrote (the hashes in its manifest). The merged manifest records the hashes
//! of the merged files.
//!
//! Shards written by an older version (fewer columns) merge too: DIR's files get today's
//! columns, the older shards' rows padded with empty cells; the shards are only read.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::bad_input;
use crate::names::count;
use crate::report::files::{Run, copy_runs, scan_file};
use crate::report::integrity::Written;
use crate::report::manifest::Manifest;
use crate::report::{CURVE_COLUMNS, Field};
use crate::spec;

/// What a merge did.
#[derive(Debug)]
pub struct MergeReport {
    /// Number of shards.
    pub shards: u32,
    /// Jobs merged.
    pub jobs: usize,
    /// Result rows written.
    pub rows: usize,
    /// Failed jobs among them.
    pub failed: usize,
    /// The shard files written by an older version, with the columns they lack (their
    /// rows were padded with empty cells).
    pub upgraded: Vec<String>,
    /// What could not be checked (a shard's manifest of an older version records no
    /// hashes).
    pub notes: Vec<String>,
}

/// The shard folders of one split in `dir/shards` (`K-of-N`): N and the folder of each K.
/// Refuses no shards, shards of several N, or a missing K.
fn find_shards(dir: &Path) -> Result<(u32, BTreeMap<u32, PathBuf>)> {
    let shards_dir = dir.join("shards");
    let entries = std::fs::read_dir(&shards_dir).map_err(|e| {
        bad_input(format!("{}: cannot read the shards folder ({e}); run the shards first", shards_dir.display()))
    })?;
    let mut by_n: BTreeMap<u32, BTreeMap<u32, PathBuf>> = BTreeMap::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some((k, n)) = name.split_once("-of-") else { continue };
        if let (Ok(k), Ok(n)) = (k.parse::<u32>(), n.parse::<u32>()) {
            by_n.entry(n).or_default().insert(k, entry.path());
        }
    }
    let n = match by_n.len() {
        0 => return Err(bad_input(format!("{} holds no shard folders named K-of-N", shards_dir.display()))),
        1 => *by_n.keys().next().expect("one"),
        _ => {
            let list: Vec<String> = by_n.iter().map(|(n, ks)| format!("{} shard(s) of {n}", ks.len())).collect();
            return Err(bad_input(format!(
                "{} mixes splits: {}; keep the shards of one N (move the others away) and merge again",
                shards_dir.display(),
                list.join(", ")
            )));
        }
    };
    let shards = by_n.remove(&n).expect("the one N");
    let missing: Vec<String> = (0..n).filter(|k| !shards.contains_key(k)).map(|k| format!("{k}-of-{n}")).collect();
    if !missing.is_empty() {
        return Err(bad_input(format!(
            "missing shards in {}: {}; run them (e.g. `sweep run SPEC --shard {}/{n} --out {}`) and merge again",
            shards_dir.display(),
            missing.join(", "),
            missing[0].split('-').next().unwrap_or("0"),
            dir.display()
        )));
    }
    Ok((n, shards))
}

/// The manifests of the shards; refuses an incomplete shard, shards of different specs,
/// tool versions or generator versions, or a shard whose files changed since its run wrote
/// them. Adds to `notes` what could not be checked.
fn read_manifests(shards: &BTreeMap<u32, PathBuf>, n: u32, notes: &mut Vec<String>) -> Result<Vec<(u32, Manifest)>> {
    let manifests: Vec<(u32, Manifest)> = shards
        .iter()
        .map(|(&k, p)| Manifest::read(p).map(|m| (k, m)).map_err(|e| bad_input(format!("shard {k}-of-{n}: {e:#}"))))
        .collect::<Result<_>>()?;
    for (k, manifest) in &manifests {
        notes.extend(manifest.check_files(&shards[k])?);
    }
    let incomplete: Vec<String> = manifests
        .iter()
        .filter(|(_, m)| !m.complete)
        .map(|(k, m)| format!("{k}-of-{n} ({} of {} done)", m.jobs_done, count(m.jobs_total, "job")))
        .collect();
    if !incomplete.is_empty() {
        return Err(bad_input(format!(
            "incomplete shards: {}; run each again with the same command to resume it, then merge",
            incomplete.join(", ")
        )));
    }
    let first = &manifests[0].1;
    let fingerprint = |m: &Manifest| {
        (m.spec_hash.clone(), m.tool_version.clone(), m.rand_version.clone(), m.rand_pcg_version.clone())
    };
    let odd: Vec<String> = manifests
        .iter()
        .filter(|(_, m)| fingerprint(m) != fingerprint(first))
        .map(|(k, m)| format!("{k}-of-{n} (spec {}, sweep {}, rand {})", m.spec_hash, m.tool_version, m.rand_version))
        .collect();
    if !odd.is_empty() {
        return Err(bad_input(format!(
            "shards disagree with shard 0-of-{n} (spec {}, sweep {}, rand {}): {}",
            first.spec_hash,
            first.tool_version,
            first.rand_version,
            odd.join(", ")
        )));
    }
    Ok(manifests)
}

/// Merges `dir/shards/*` into `dir`.
pub fn merge(dir: &Path) -> Result<MergeReport> {
    let (n, shards) = find_shards(dir)?;
    let mut notes = Vec::new();
    let manifests = read_manifests(&shards, n, &mut notes)?;
    let first = &manifests[0].1;
    let sweep = spec::parse(&first.spec_text, &first.spec_file).map_err(|e| bad_input(e.to_string()))?;
    let jobs = match sweep.search.as_ref().filter(|s| s.method.models()) {
        // A model-based search's jobs are what the shards' scores decide.
        Some(_) => crate::search::rounds::decide(&sweep, &shard_scores(&sweep, &shards)?).jobs,
        None => sweep.jobs(),
    };
    let header = sweep.result_header();
    let mut scan = scan_shards(&shards, &jobs, &header)?;
    let (expected, finished) = expected_jobs(&sweep, &jobs, &scan.result_files, |j| scan.owner[j] != NOBODY)?;
    check_complete(dir, &jobs, &expected, &scan)?;
    // Stable sorts: rows of one job keep their order.
    scan.result_runs.sort_by_key(|&(job, _, _)| job);
    scan.curve_runs.sort_by_key(|&(job, _, _)| job);
    let row_count = scan.result_runs.iter().map(|(_, _, r)| r.rows).sum();
    // A merge killed between its files and its manifest leaves an open record.
    crate::run::state::unseal(dir)?;
    let curves = scan.curve_runs.iter().map(|(_, t, r)| (*t, r));
    let curves = copy_runs(&dir.join("curves.csv"), &CURVE_COLUMNS, &scan.curve_files, curves)?;
    let results = scan.result_runs.iter().map(|(_, t, r)| (*t, r));
    let results = copy_runs(&dir.join("results.csv"), &header, &scan.result_files, results)?;
    let failed = scan.failed.iter().filter(|&&f| f).count();
    let mut merged = first.clone();
    merged.shard = None;
    merged.threads = manifests.iter().map(|(_, m)| m.threads).max().unwrap_or(1);
    merged.started = manifests.iter().map(|(_, m)| m.started.clone()).min().unwrap_or_default();
    merged.ended = manifests.iter().filter_map(|(_, m)| m.ended.clone()).max();
    let merged_jobs = expected.iter().filter(|&&e| e).count();
    merged.jobs_total = merged_jobs as u64;
    merged.jobs_done = merged_jobs as u64;
    merged.jobs_failed = failed as u64;
    merged.complete = finished;
    // Each shard built its own shared tables; its manifest keeps what they took.
    merged.shared_tables = None;
    merged.written = Some(Written { results: results.digest(), curves: curves.digest(), sealed: true });
    merged.write(dir)?;
    Ok(MergeReport { shards: n, jobs: merged_jobs, rows: row_count, failed, upgraded: scan.upgraded, notes })
}

/// The scores in every shard's results (a model-based search decides its jobs from them).
fn shard_scores(sweep: &spec::Sweep, shards: &BTreeMap<u32, PathBuf>) -> Result<crate::search::test_pass::Scores> {
    let mut scores = crate::search::test_pass::Scores::default();
    for shard in shards.values() {
        let file = shard.join("results.csv");
        scores.extend(crate::search::test_pass::Scores::read(&file, sweep).map_err(|e| bad_input(format!("{e:#}")))?);
    }
    Ok(scores)
}

/// No shard holds the job.
const NOBODY: u32 = u32::MAX;

/// What the shards hold: each job's runs of rows (byte ranges) and the shard that has it.
/// Nothing but the ranges is held.
struct ShardScan {
    /// The shard number holding each job, or [`NOBODY`].
    owner: Vec<u32>,
    /// Jobs found in two shards, described.
    duplicates: Vec<String>,
    /// Rows of jobs not in the spec.
    unknown: usize,
    /// Whether each job has a failed row.
    failed: Vec<bool>,
    /// (job index, file index, run) of the results and curves files.
    result_runs: Vec<(u32, usize, Run)>,
    curve_runs: Vec<(u32, usize, Run)>,
    result_files: Vec<PathBuf>,
    curve_files: Vec<PathBuf>,
    /// Shard files of an older version, described.
    upgraded: Vec<String>,
}

/// Scans every shard's files, one row at a time.
fn scan_shards(shards: &BTreeMap<u32, PathBuf>, jobs: &[crate::job::Job], header: &[&str]) -> Result<ShardScan> {
    let order: HashMap<&str, u32> = jobs.iter().map(|j| (j.id.as_str(), j.index as u32)).collect();
    let mut scan = ShardScan {
        owner: vec![NOBODY; jobs.len()],
        duplicates: Vec::new(),
        unknown: 0,
        failed: vec![false; jobs.len()],
        result_runs: Vec::new(),
        curve_runs: Vec::new(),
        result_files: Vec::new(),
        curve_files: Vec::new(),
        upgraded: Vec::new(),
    };
    let status = Field::Status.column();
    for (t, (k, path)) in shards.iter().enumerate() {
        let (rp, cp) = (path.join("results.csv"), path.join("curves.csv"));
        let (columns, runs) =
            scan_file(&rp, header, |r| &r[status] != b"ok").map_err(|e| bad_input(format!("{e:#}")))?;
        scan.note_older(&rp, &columns);
        for run in runs {
            let Some(&job) = order.get(&*run.job) else {
                scan.unknown += run.rows;
                continue;
            };
            match scan.owner[job as usize] {
                NOBODY => scan.owner[job as usize] = *k,
                other if other != *k => {
                    scan.duplicates.push(format!("{} (shards {other} and {k})", jobs[job as usize].id))
                }
                _ => {}
            }
            scan.failed[job as usize] |= run.flagged;
            scan.result_runs.push((job, t, run));
        }
        let (columns, runs) = scan_file(&cp, &CURVE_COLUMNS, |_| false).map_err(|e| bad_input(format!("{e:#}")))?;
        scan.note_older(&cp, &columns);
        scan.curve_runs.extend(runs.into_iter().map(|run| (order.get(&*run.job).copied().unwrap_or(NOBODY), t, run)));
        scan.result_files.push(rp);
        scan.curve_files.push(cp);
    }
    scan.duplicates.sort();
    scan.duplicates.dedup();
    Ok(scan)
}

impl ShardScan {
    /// Notes a shard file of an older version.
    fn note_older(&mut self, path: &Path, columns: &crate::report::files::Columns) {
        if !columns.is_current() {
            self.upgraded.push(format!("{} (lacks {})", path.display(), columns.missing().join(", ")));
        }
    }
}

/// Refuses a merge with a job missing, a job in two shards or rows not in the spec.
fn check_complete(dir: &Path, jobs: &[crate::job::Job], expected: &[bool], scan: &ShardScan) -> Result<()> {
    let missing: Vec<&str> =
        jobs.iter().filter(|j| expected[j.index] && scan.owner[j.index] == NOBODY).map(|j| j.id.as_str()).collect();
    let mut parts = Vec::new();
    if !missing.is_empty() {
        let some = &missing[..missing.len().min(5)];
        parts.push(format!("{} missing (e.g. {})", count(missing.len(), "job"), some.join(", ")));
    }
    if !scan.duplicates.is_empty() {
        let some = &scan.duplicates[..scan.duplicates.len().min(5)];
        parts.push(format!("{} in two shards (e.g. {})", count(scan.duplicates.len(), "job"), some.join(", ")));
    }
    if scan.unknown > 0 {
        parts.push(format!("{} of jobs not in the spec", count(scan.unknown, "row")));
    }
    if parts.is_empty() {
        return Ok(());
    }
    Err(bad_input(format!("cannot merge {}: {}", dir.display(), parts.join("; "))))
}

/// Which jobs the shards must hold, and whether that is the whole sweep. Without a
/// `[search]` or `[test]`, every job. With one, the jobs its passes (rungs, then the test)
/// decide from the shards' scores, up to the last pass that the shards have run (a
/// sharded search or test merges once per pass).
fn expected_jobs(
    sweep: &spec::Sweep,
    jobs: &[crate::job::Job],
    result_files: &[PathBuf],
    present: impl Fn(usize) -> bool,
) -> Result<(Vec<bool>, bool)> {
    if sweep.search.is_none() && sweep.test.is_none() {
        return Ok((vec![true; jobs.len()], true));
    }
    let mut scores = crate::search::test_pass::Scores::default();
    for file in result_files {
        scores.extend(crate::search::test_pass::Scores::read(file, sweep).map_err(|e| bad_input(format!("{e:#}")))?);
    }
    let mut decided = match sweep.search.as_ref().filter(|s| s.method.models()) {
        Some(_) => crate::search::rounds::decide(sweep, &scores).decided,
        None => crate::search::test_pass::decide(sweep, jobs, &scores),
    };
    let last_run = decided.rungs.last().is_some_and(|rung| rung.iter().any(|&j| present(j)));
    if decided.rungs.len() > 1 && !last_run {
        decided.rungs.pop();
        decided.finished = false;
    }
    let mut expected = vec![false; jobs.len()];
    for j in decided.jobs() {
        expected[j] = true;
    }
    Ok((expected, decided.finished))
}
