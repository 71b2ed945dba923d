//! `sweep merge`: combine the shards of a split sweep (`DIR/shards/K-of-N/`) into DIR's
//! result files, identical apart from timings to a one-machine run of the same spec.
//!
//! Checks, each a clear error that lists exactly what is wrong: every shard of one N is
//! present; each is complete; all share the spec hash and the tool and generator
//! versions; every job of the spec appears in exactly one shard.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Result;

use crate::error::bad_input;
use crate::report::files::{read, write_atomic};
use crate::report::manifest::Manifest;
use crate::report::{CURVE_COLUMNS, RESULT_COLUMNS, Record, column};
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
}

/// Merges `dir/shards/*` into `dir`.
pub fn merge(dir: &Path) -> Result<MergeReport> {
    let shards_dir = dir.join("shards");
    let entries = std::fs::read_dir(&shards_dir).map_err(|e| {
        bad_input(format!("{}: cannot read the shards folder ({e}); run the shards first", shards_dir.display()))
    })?;
    let mut by_n: BTreeMap<u32, BTreeMap<u32, std::path::PathBuf>> = BTreeMap::new();
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
    let shards = &by_n[&n];
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
    let manifests: Vec<(u32, Manifest)> = shards
        .iter()
        .map(|(&k, p)| Manifest::read(p).map(|m| (k, m)).map_err(|e| bad_input(format!("shard {k}-of-{n}: {e:#}"))))
        .collect::<Result<_>>()?;
    let incomplete: Vec<String> = manifests
        .iter()
        .filter(|(_, m)| !m.complete)
        .map(|(k, m)| format!("{k}-of-{n} ({} of {} jobs done)", m.jobs_done, m.jobs_total))
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
    let sweep = spec::parse(&first.spec_text, &first.spec_file).map_err(|e| bad_input(e.to_string()))?;
    let jobs = sweep.jobs();
    let order: HashMap<&str, usize> = jobs.iter().map(|j| (j.id.as_str(), j.index)).collect();
    let mut rows: Vec<Record> = Vec::new();
    let mut curves: Vec<Record> = Vec::new();
    let mut owner: HashMap<String, u32> = HashMap::new();
    let mut duplicates = Vec::new();
    for (&k, path) in shards {
        let shard_rows = read(&path.join("results.csv"), &RESULT_COLUMNS).map_err(|e| bad_input(format!("{e:#}")))?;
        for r in &shard_rows {
            if let Some(&other) = owner.get(&r[0]) {
                if other != k {
                    duplicates.push(format!("{} (shards {other} and {k})", r[0]));
                }
            }
            owner.insert(r[0].clone(), k);
        }
        rows.extend(shard_rows);
        curves.extend(read(&path.join("curves.csv"), &CURVE_COLUMNS).map_err(|e| bad_input(format!("{e:#}")))?);
    }
    duplicates.sort();
    duplicates.dedup();
    let missing_jobs: Vec<&str> = jobs.iter().filter(|j| !owner.contains_key(&j.id)).map(|j| j.id.as_str()).collect();
    let unknown: Vec<&String> = owner.keys().filter(|id| !order.contains_key(id.as_str())).collect();
    if !duplicates.is_empty() || !missing_jobs.is_empty() || !unknown.is_empty() {
        let mut parts = Vec::new();
        if !missing_jobs.is_empty() {
            parts.push(format!(
                "{} jobs missing (e.g. {})",
                missing_jobs.len(),
                missing_jobs[..missing_jobs.len().min(5)].join(", ")
            ));
        }
        if !duplicates.is_empty() {
            parts.push(format!(
                "{} jobs in two shards (e.g. {})",
                duplicates.len(),
                duplicates[..duplicates.len().min(5)].join(", ")
            ));
        }
        if !unknown.is_empty() {
            parts.push(format!("{} jobs not in the spec", unknown.len()));
        }
        return Err(bad_input(format!("cannot merge {}: {}", dir.display(), parts.join("; "))));
    }
    let key = |r: &Record| order.get(r[0].as_str()).copied().unwrap_or(usize::MAX);
    rows.sort_by_key(key);
    curves.sort_by_key(key);
    let failed = {
        let status = column("status");
        let mut ids: Vec<&str> = rows.iter().filter(|r| r[status] != "ok").map(|r| r[0].as_str()).collect();
        ids.dedup();
        ids.len()
    };
    write_atomic(&dir.join("curves.csv"), &CURVE_COLUMNS, curves)?;
    let row_count = rows.len();
    write_atomic(&dir.join("results.csv"), &RESULT_COLUMNS, rows)?;
    let mut merged = first.clone();
    merged.shard = None;
    merged.threads = manifests.iter().map(|(_, m)| m.threads).max().unwrap_or(1);
    merged.started = manifests.iter().map(|(_, m)| m.started.clone()).min().unwrap_or_default();
    merged.ended = manifests.iter().filter_map(|(_, m)| m.ended.clone()).max();
    merged.jobs_total = jobs.len() as u64;
    merged.jobs_done = jobs.len() as u64;
    merged.jobs_failed = failed as u64;
    merged.complete = true;
    merged.write(dir)?;
    Ok(MergeReport { shards: n, jobs: jobs.len(), rows: row_count, failed })
}
