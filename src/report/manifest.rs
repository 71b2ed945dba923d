//! `manifest.json`: what ran, with which tool and generator versions, when, and how far
//! it got; the hashes of the spec file, of the programs of its command solvers and of the
//! result files as sweep wrote them (see [`super::integrity`]).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::files::write_text_atomic;
use super::integrity::{self, Written};
use crate::error::bad_input;

/// The version of the `rand` crate this binary was built with (checked against Cargo.lock
/// by a test).
pub const RAND_VERSION: &str = "0.9.5";
/// The version of the `rand_pcg` crate this binary was built with.
pub const RAND_PCG_VERSION: &str = "0.9.0";
/// The generator every stream uses.
pub const GENERATOR: &str = "rand_pcg::Pcg64Mcg";

/// One shard of a split sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based shard number.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// The folder name of this shard under `shards/`: `K-of-N`.
    pub fn dir_name(&self) -> String {
        format!("{}-of-{}", self.index, self.count)
    }

    /// Does this shard own the job at `index` (in spec order)?
    pub fn owns(&self, index: usize) -> bool {
        index as u64 % u64::from(self.count) == u64::from(self.index)
    }
}

/// The contents of `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `sweep`.
    pub tool: String,
    /// The tool's version.
    pub tool_version: String,
    /// The rand crate's version.
    pub rand_version: String,
    /// The rand_pcg crate's version.
    pub rand_pcg_version: String,
    /// The generator.
    pub generator: String,
    /// The spec file as given.
    pub spec_file: String,
    /// The spec file's absolute path when the run started: relative paths of the spec
    /// (programs, policies) are taken from its folder (absent in manifests of older
    /// versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_path: Option<String>,
    /// FNV-1a of the spec file's bytes (`spec_text`) when the run started (absent in
    /// manifests of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_fnv1a: Option<String>,
    /// The spec's text, so a results directory can be re-run or merged on its own.
    pub spec_text: String,
    /// Hash of the resolved spec.
    pub spec_hash: String,
    /// The spec as resolved (every axis expanded).
    pub spec: serde_json::Value,
    /// The master seed.
    pub master_seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// The shard, when the sweep was split.
    pub shard: Option<Shard>,
    /// When the run started (UTC, RFC 3339).
    pub started: String,
    /// When it ended, if it did.
    pub ended: Option<String>,
    /// Jobs in this run (this shard's, after `--only`).
    pub jobs_total: u64,
    /// Jobs with rows in the results, failed ones included.
    pub jobs_done: u64,
    /// Jobs that failed.
    pub jobs_failed: u64,
    /// True when every job has rows and the files are sorted.
    pub complete: bool,
    /// The saved policy files the spec names as opponents, with their hashes (absent
    /// when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<PolicyFile>,
    /// The tables the jobs share that this run built before its first job (absent in
    /// manifests written before they were timed apart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_tables: Option<SharedTables>,
    /// The programs of the command solvers, as resolved when the run started: each
    /// solver's command and the files it runs, with their hashes (absent when there are
    /// none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programs: Vec<ProgramRecord>,
    /// What sweep wrote to `results.csv` and `curves.csv` (absent in manifests of older
    /// versions, whose files are read unchecked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Written>,
}

/// A command solver's program as a run found it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramRecord {
    /// The solver's label.
    pub label: String,
    /// Its command, placeholders as written.
    pub command: Vec<String>,
    /// The files it runs (the executable, or an interpreter's script), absolute, with their
    /// FNV-1a hashes.
    pub files: Vec<FileHash>,
}

/// A file and the FNV-1a hash (16 hex digits) of its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileHash {
    /// The file.
    pub path: String,
    /// The hash of its bytes.
    pub fnv1a: String,
}

/// The tables a run built for its jobs to share, before the first job started (the ones
/// its process had built already are not counted again): no job's `train_ms` holds them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SharedTables {
    /// The games whose positions were built.
    pub positions: Vec<String>,
    /// The exact MDPs (a seat against an opponent) built and solved, ground truths of
    /// the evaluations and the learners' training.
    pub mdps: u64,
    /// The tabular learners' table layouts built (states, slots, symmetry index).
    #[serde(default)]
    pub layouts: u64,
    /// The wall time of building them, in milliseconds.
    pub ms: f64,
}

impl SharedTables {
    /// Adds `other`, built later by the same run (a search's next pass).
    pub fn add(&mut self, other: &SharedTables) {
        self.positions.extend(other.positions.iter().cloned());
        self.mdps += other.mdps;
        self.layouts += other.layouts;
        self.ms += other.ms;
    }

    /// Whether nothing was built.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty() && self.mdps == 0 && self.layouts == 0
    }
}

pub use crate::spec::PolicyFile;

impl Manifest {
    /// Reads `dir/manifest.json`.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{} is not a sweep manifest", path.display()))
    }

    /// Writes `dir/manifest.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a manifest serialises") + "\n";
        write_text_atomic(&dir.join("manifest.json"), &text)
    }

    /// Checks `dir`'s result files against [`Manifest::written`] (see
    /// [`integrity::check`]): an error names a file that changed since sweep wrote it;
    /// the notes say what could not be checked.
    pub fn check_files(&self, dir: &Path) -> Result<Vec<String>> {
        match &self.written {
            Some(written) => integrity::check(dir, written),
            None => Ok(vec![format!(
                "note: {} records no hashes of its result files (an older version of sweep wrote it), so they are \
                 read unchecked",
                dir.join("manifest.json").display()
            )]),
        }
    }
}

/// Checks the result files of `dir` against its manifest, for a reader that prints figures
/// from them. Files that cannot be checked (no manifest, or one that cannot be read) or
/// that fail their check are refused (bad input, naming what is wrong and `--unverified`);
/// with `unverified` they are read anyway, and the returned notes say, first, that they
/// are unverified. A sweep may be writing `dir` at the same time, so a difference is looked
/// at again after the manifest changes (a run records the files it has just rewritten a
/// moment after it renames them).
pub fn check_dir(dir: &Path, unverified: bool) -> Result<Vec<String>> {
    let refused = |why: String| -> Result<Vec<String>> {
        if unverified {
            Ok(vec![format!("warning: the figures below are unverified (--unverified): {why}")])
        } else {
            Err(bad_input(format!(
                "{why}; sweep will not print figures from it. Run the spec again (`sweep run SPEC`; --fresh moves \
                 this folder aside), or add --unverified to read it anyway, unchecked"
            )))
        }
    };
    match check_against_manifest(dir) {
        Ok(Checked::Notes(notes)) => Ok(notes),
        Ok(Checked::Missing) if !dir.join("results.csv").exists() => Ok(Vec::new()),
        Ok(Checked::Missing) => refused(format!(
            "{} has no manifest.json, so nothing shows that its results.csv holds what sweep wrote (a run records \
             each file's length and hash there)",
            dir.display()
        )),
        Ok(Checked::Unreadable(why)) => refused(format!("{why}, so its result files cannot be checked")),
        // A file that changed is bad input; a failed read of the disk stays what it is.
        Err(error) if error.downcast_ref::<crate::error::BadInput>().is_none() => Err(error),
        Err(changed) if unverified => {
            let changed = format!("{changed:#}");
            let what = changed.strip_suffix(&format!("; {}", integrity::WHAT_TO_DO)).unwrap_or(&changed);
            Ok(vec![format!("warning: the figures below are unverified (--unverified): {what}")])
        }
        Err(changed) => Err(bad_input(format!("{changed:#}; or add --unverified to read it anyway, unchecked"))),
    }
}

/// What a reader's check of a folder's manifest found.
enum Checked {
    /// The files were checked (or could be read only unchecked, as said).
    Notes(Vec<String>),
    /// There is no manifest.
    Missing,
    /// The manifest cannot be read, or is not a sweep manifest: why.
    Unreadable(String),
}

/// Checks the result files of `dir` against its manifest: an error when one changed.
fn check_against_manifest(dir: &Path) -> Result<Checked> {
    let path = dir.join("manifest.json");
    let read = || match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {} ({e})", path.display())),
    };
    let mut text = match read() {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Checked::Missing),
        Err(why) => return Ok(Checked::Unreadable(why)),
    };
    for _ in 0..5 {
        let Ok(manifest) = serde_json::from_str::<Manifest>(&text) else {
            return Ok(Checked::Unreadable(format!("{} is not a sweep manifest", path.display())));
        };
        let error = match manifest.check_files(dir) {
            Ok(notes) => return Ok(Checked::Notes(notes)),
            Err(error) => error,
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        match read() {
            Ok(Some(again)) if again != text => text = again,
            _ => return Err(error),
        }
    }
    Manifest::read(dir)?.check_files(dir).map(Checked::Notes)
}

/// The time now as UTC RFC 3339 with seconds (`2026-11-29T19:15:00Z`).
pub fn now_utc() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Formats seconds since the Unix epoch as UTC RFC 3339.
pub fn format_utc(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_795_979_700), "2026-11-29T19:15:00Z");
    }

    #[test]
    fn recorded_versions_are_the_locked_ones() {
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
        for (name, version) in [("rand", RAND_VERSION), ("rand_pcg", RAND_PCG_VERSION)] {
            let entry = format!("name = \"{name}\"\nversion = \"{version}\"");
            assert!(lock.contains(&entry), "Cargo.lock does not lock {name} {version}");
        }
    }

    #[test]
    fn shards_partition_by_index() {
        let shards: Vec<Shard> = (0..4).map(|index| Shard { index, count: 4 }).collect();
        for i in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.owns(i)).count(), 1);
        }
        assert_eq!(shards[2].dir_name(), "2-of-4");
    }
}
