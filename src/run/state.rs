//! Preparing a results directory: the lock, what an existing directory holds, resume,
//! `--fresh` and `--extend`.
//!
//! Invariant: nothing is ever deleted. `--fresh` renames the old directory aside; resume
//! keeps every complete job's rows and drops only the rows of jobs that will run again
//! (incomplete or failed ones).
//!
//! A file written by an older version (fewer columns, see [`Columns`]) is upgraded when a
//! run resumes or extends the directory: the old file is kept beside it as
//! `<name>.<width>-columns` (see [`keep_older`]), one line says so, and the rewrite that
//! resume does anyway writes today's header with every old row padded by empty cells.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use fs2::FileExt;

use crate::error::bad_input;
use crate::report::files::{Columns, Run, repair, rewrite_runs, scan_file, scan_runs, write_atomic};
use crate::report::manifest::{Manifest, now_utc};
use crate::report::{CURVE_COLUMNS, Field, RESULT_COLUMNS};

/// How an existing results directory of another spec is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Existing {
    /// Resume when the spec is the same, refuse otherwise.
    #[default]
    Resume,
    /// Move it aside and start again.
    Fresh,
    /// Keep its finished jobs when the spec only gained grid points or replicates.
    Extend,
}

/// An exclusive lock on a results directory, held for the whole run. Its file, `.lock`,
/// says who holds it while it is held (`pid P on HOST since TIME`), for the message of
/// a run refused by it; the holder empties it when it lets go.
pub struct DirLock {
    file: File,
}

impl DirLock {
    /// Whether this lock is the one of `dir` now: false when `dir` was moved aside
    /// (`--fresh`) after it was taken.
    pub fn holds(&self, dir: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (self.file.metadata(), fs::metadata(dir.join(".lock"))) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
            _ => false,
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
    }
}

/// Takes the lock of `dir` (creating `dir`), or says that another sweep holds it: which
/// one (its pid and host) and since when, as it recorded them.
pub fn lock(dir: &Path) -> Result<DirLock> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create the results directory {}", dir.display()))?;
    let path = dir.join(".lock");
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    if file.try_lock_exclusive().is_err() {
        // No record within its wait: the holder has let the lock go since (a run that
        // ended between our try and our read) or not yet written it. The lock is tried
        // once more, and a run that has ended leaves the folder to this one.
        let holder = holder(&mut file);
        if holder.is_none() && file.try_lock_exclusive().is_ok() {
            return Ok(held(file));
        }
        let holder = holder.map(|h| format!(" ({h})")).unwrap_or_default();
        return Err(bad_input(format!(
            "another sweep is already writing to {}{holder}; wait for it to finish, or choose another directory \
             with --out",
            dir.display()
        )));
    }
    Ok(held(file))
}

/// The lock of a file this process has just locked, its holder recorded in it (a courtesy
/// to the run it refuses: the lock holds without it).
fn held(file: File) -> DirLock {
    use std::os::unix::fs::FileExt as _;
    let host = fs::read_to_string("/proc/sys/kernel/hostname").map(|h| format!(" on {}", h.trim())).unwrap_or_default();
    let record = format!("pid {}{host} since {}\n", std::process::id(), now_utc());
    let _ = file.set_len(0).and_then(|_| file.write_all_at(record.as_bytes(), 0));
    DirLock { file }
}

/// What the holder of a lock recorded in its file (`pid P on HOST since TIME`), read a few
/// times over 200 ms when the holder has only just taken the lock and not yet written it.
fn holder(file: &mut File) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    for _ in 0..10 {
        let mut text = String::new();
        if file.seek(SeekFrom::Start(0)).is_ok() && file.read_to_string(&mut text).is_ok() {
            let line = text.trim();
            if line.starts_with("pid ") && line.contains(" since ") {
                return Some(line.to_string());
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}

/// Lists the differences between two resolved specs, as `path: old -> new`: the first
/// `limit`, then how many more. Entries of a list of tables (the solvers) count from 1,
/// as the spec's own errors do (`solver[2].alpha`); an entry only one side has is named by
/// its kind and label.
pub fn spec_diff(old: &serde_json::Value, new: &serde_json::Value, limit: usize) -> Vec<String> {
    fn name(v: &serde_json::Value) -> String {
        let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(String::from);
        match (field("kind"), field("label")) {
            (Some(kind), Some(label)) if kind != label => format!("{kind} (label {label})"),
            (Some(kind), _) => kind,
            _ => v.to_string(),
        }
    }
    fn walk(path: &str, a: &serde_json::Value, b: &serde_json::Value, out: &mut Vec<String>) {
        use serde_json::Value::{Array, Object};
        match (a, b) {
            (Object(x), Object(y)) => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    // The spec's table is [[solver]]; the resolved spec's list, "solvers".
                    let shown = if k == "solvers" { "solver" } else { k.as_str() };
                    let p = if path.is_empty() { shown.to_string() } else { format!("{path}.{shown}") };
                    match (x.get(k), y.get(k)) {
                        (Some(u), Some(v)) => walk(&p, u, v, out),
                        (Some(u), None) => out.push(format!("{p}: {u} -> (absent)")),
                        (None, Some(v)) => out.push(format!("{p}: (absent) -> {v}")),
                        (None, None) => {}
                    }
                }
            }
            (Array(x), Array(y)) if x.iter().chain(y).all(|e| e.is_object()) => {
                for i in 0..x.len().max(y.len()) {
                    let p = format!("{path}[{}]", i + 1);
                    match (x.get(i), y.get(i)) {
                        (Some(u), Some(v)) => walk(&p, u, v, out),
                        (Some(u), None) => out.push(format!("{p}: {} -> (absent)", name(u))),
                        (None, Some(v)) => out.push(format!("{p}: (absent) -> {}", name(v))),
                        (None, None) => {}
                    }
                }
            }
            _ if a != b => out.push(format!("{path}: {a} -> {b}")),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", old, new, &mut out);
    if out.len() > limit {
        let more = out.len() - limit;
        out.truncate(limit);
        out.push(format!("and {more} more {}", if more == 1 { "difference" } else { "differences" }));
    }
    out
}

/// Moves `dir` aside to `dir.old-<UTC time>` and returns the new name.
pub fn move_aside(dir: &Path) -> Result<PathBuf> {
    let stamp = now_utc().replace([':', '-'], "");
    let mut target = PathBuf::from(format!("{}.old-{stamp}", dir.display()));
    let mut n = 1;
    while target.exists() {
        target = PathBuf::from(format!("{}.old-{stamp}-{n}", dir.display()));
        n += 1;
    }
    fs::rename(dir, &target).with_context(|| format!("cannot move {} aside", dir.display()))?;
    Ok(target)
}

/// What an existing directory holds for this run.
#[derive(Debug, Default)]
pub struct Resumed {
    /// Jobs whose rows are complete and kept, with their status (true = failed).
    pub done: HashMap<String, bool>,
    /// Bytes cut from partial last lines.
    pub repaired: u64,
    /// Rows dropped because their job will run again.
    pub dropped_rows: usize,
    /// What it did that the run should say (an older file upgraded and kept aside).
    pub notes: Vec<String>,
}

/// Reads the rows already in `dir`, keeps those of complete jobs (a job is complete when
/// it has `expected(job_id)` rows; failed jobs in `rerun` are dropped to run again), and
/// rewrites both files with what is kept (the results with `header`, the run's).
pub fn resume(dir: &Path, header: &[&str], expected: &HashMap<&str, usize>, rerun: &HashSet<&str>) -> Result<Resumed> {
    let rp = dir.join("results.csv");
    let cp = dir.join("curves.csv");
    let mut out = Resumed::default();
    if !rp.exists() {
        if cp.exists() {
            // No results yet: keep the curves as they are, upgraded if they are older.
            let (columns, curves) = scan_file(&cp, &CURVE_COLUMNS, |_| false)?;
            if !columns.is_current() {
                out.notes.push(keep_older(&cp, &columns)?);
                rewrite_runs(&cp, &CURVE_COLUMNS, &curves)?;
            }
        }
        return Ok(out);
    }
    out.repaired = repair(&rp)? + repair(&cp)?;
    let status = Field::Status.column();
    let (results_columns, rows) = scan_file(&rp, header, |r| &r[status] != b"ok")?;
    let mut count: HashMap<&str, (usize, bool)> = HashMap::new();
    for run in &rows {
        let e = count.entry(&run.job).or_default();
        e.0 += run.rows;
        e.1 |= run.flagged;
    }
    for (job, (n, failed)) in count {
        let complete = expected.get(job).is_some_and(|&want| want == n);
        if complete && !(failed && rerun.contains(job)) {
            out.done.insert(job.to_string(), failed);
        }
    }
    let kept: Vec<&Run> = rows.iter().filter(|r| out.done.contains_key(&*r.job)).collect();
    out.dropped_rows = rows.iter().map(|r| r.rows).sum::<usize>() - kept.iter().map(|r| r.rows).sum::<usize>();
    if cp.exists() {
        let (columns, curves) = scan_file(&cp, &CURVE_COLUMNS, |_| false)?;
        if !columns.is_current() {
            out.notes.push(keep_older(&cp, &columns)?);
        }
        let kept_curves = curves.iter().filter(|r| out.done.get(&*r.job).is_some_and(|failed| !failed));
        rewrite_runs(&cp, &CURVE_COLUMNS, kept_curves)?;
    } else {
        write_atomic(&cp, &CURVE_COLUMNS, Vec::new())?;
    }
    if !results_columns.is_current() {
        out.notes.push(keep_older(&rp, &results_columns)?);
    }
    rewrite_runs(&rp, header, kept)?;
    Ok(out)
}

/// Before a file written by an older version is upgraded (rewritten with today's columns):
/// keeps the old file beside it as `<name>.<width>-columns` (`-1`, `-2`, ... if taken; a
/// hard link where the file system allows, a copy otherwise). Returns the line that says
/// so.
pub fn keep_older(path: &Path, columns: &Columns) -> Result<String> {
    let base = format!("{}.{}-columns", path.display(), columns.width());
    let mut aside = PathBuf::from(&base);
    let mut n = 1;
    while aside.exists() {
        aside = PathBuf::from(format!("{base}-{n}"));
        n += 1;
    }
    if fs::hard_link(path, &aside).is_err() {
        fs::copy(path, &aside)
            .with_context(|| format!("cannot keep a copy of {} as {}", path.display(), aside.display()))?;
    }
    Ok(format!(
        "upgraded {} from an older version of sweep to today's columns (added {}, empty in its rows); the old file is kept as {}",
        path.display(),
        columns.missing().join(", "),
        aside.display()
    ))
}

/// Opens the record of what sweep wrote in `dir`'s manifest (see
/// [`crate::report::integrity`]) before a run rewrites the files it checked: a run killed
/// while it rewrites them then leaves a record that says so.
pub fn unseal(dir: &Path) -> Result<()> {
    let Some(mut manifest) = existing_manifest(dir)? else { return Ok(()) };
    match &mut manifest.written {
        Some(written) if written.sealed => {
            written.sealed = false;
            manifest.write(dir)
        }
        _ => Ok(()),
    }
}

/// Removes what a run that could not start leaves when its disk is full: `results.csv`
/// and `curves.csv` without a manifest, each empty or a header at most (no row), which
/// would otherwise look like results of unknown origin. Returns whether it removed them;
/// it touches nothing when either holds a row, or a byte past a first line.
pub fn clear_unstarted(dir: &Path) -> Result<bool> {
    let files = [dir.join("results.csv"), dir.join("curves.csv")];
    for path in &files {
        if !holds_no_row(path).with_context(|| format!("cannot read {}", path.display()))? {
            return Ok(false);
        }
    }
    for path in files.iter().filter(|p| p.exists()) {
        fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
    }
    Ok(true)
}

/// Whether the file at `path` is absent, empty or one line at most (a header, perhaps cut
/// short): a line end anywhere but at its last byte means a row began.
fn holds_no_row(path: &Path) -> std::io::Result<bool> {
    match fs::metadata(path) {
        // A header is well under 64 KiB: a longer file is not read whole to find out.
        Ok(meta) if meta.len() > 1 << 16 => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e),
    }
    let text = fs::read(path)?;
    let body = text.strip_suffix(b"\n").unwrap_or(&text);
    Ok(!body.contains(&b'\n'))
}

/// The manifest of `dir`, if there is one.
pub fn existing_manifest(dir: &Path) -> Result<Option<Manifest>> {
    if dir.join("manifest.json").exists() { Manifest::read(dir).map(Some) } else { Ok(None) }
}

/// The job ids in `dir/results.csv`, if any.
pub fn existing_job_ids(dir: &Path) -> Result<HashSet<String>> {
    let rp = dir.join("results.csv");
    if !rp.exists() {
        return Ok(HashSet::new());
    }
    repair(&rp)?;
    Ok(scan_runs(&rp, &RESULT_COLUMNS, |_| false)?.into_iter().map(|r| r.job.into()).collect())
}

#[cfg(test)]
mod tests {
    use super::{clear_unstarted, lock, spec_diff};

    #[test]
    fn files_without_a_row_left_by_a_run_that_could_not_start_are_cleared() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (results, curves) = (dir.join("results.csv"), dir.join("curves.csv"));
        std::fs::write(&results, "").unwrap();
        assert!(clear_unstarted(dir).unwrap());
        assert!(!results.exists());
        // A header, and one cut short: no row.
        std::fs::write(&results, "job_id,solver\n").unwrap();
        std::fs::write(&curves, "job_id,epi").unwrap();
        assert!(clear_unstarted(dir).unwrap());
        assert!(!results.exists() && !curves.exists());
        // A row, even a partial one, is kept, and so is the other file.
        std::fs::write(&results, "job_id,solver\n").unwrap();
        std::fs::write(&curves, "job_id,episode\nab").unwrap();
        assert!(!clear_unstarted(dir).unwrap());
        assert!(results.exists() && curves.exists());
    }

    #[test]
    fn a_held_lock_names_its_holder_and_is_emptied_when_let_go() {
        let tmp = tempfile::tempdir().unwrap();
        let held = lock(tmp.path()).unwrap();
        assert!(held.holds(tmp.path()));
        let err = format!("{:#}", lock(tmp.path()).err().unwrap());
        let pid = format!("(pid {} ", std::process::id());
        assert!(
            err.contains("another sweep is already writing") && err.contains(&pid) && err.contains(" since "),
            "{err}"
        );
        drop(held);
        assert_eq!(std::fs::read_to_string(tmp.path().join(".lock")).unwrap(), "");
        assert!(lock(tmp.path()).is_ok());
    }

    #[test]
    fn spec_differences_count_solvers_from_1_and_name_every_one() {
        let solver = |kind: &str, alpha: f64| serde_json::json!({ "kind": kind, "label": kind, "alpha": alpha });
        let old = serde_json::json!({
            "seed": 1,
            "solvers": (0..6).map(|i| solver("q-learning", 0.1 * i as f64)).collect::<Vec<_>>(),
        });
        let mut six: Vec<serde_json::Value> = (0..6).map(|i| solver("q-learning", 0.1 * i as f64)).collect();
        six[5] = solver("q-learning", 0.9);
        six.push(solver("sarsa", 0.5));
        let new = serde_json::json!({ "seed": 1, "solvers": six });
        let diff = spec_diff(&old, &new, 8);
        assert_eq!(diff, ["solver[6].alpha: 0.5 -> 0.9", "solver[7]: (absent) -> sarsa"]);
        // Past the limit: how many more.
        let many = serde_json::json!({ "seed": 2, "solvers": (0..6).map(|i| solver("sarsa", 0.1 * i as f64)).collect::<Vec<_>>() });
        let diff = spec_diff(&old, &many, 3);
        assert_eq!(diff.len(), 4, "{diff:?}");
        assert_eq!(diff[3], "and 10 more differences");
        assert!(diff[0].starts_with("seed: 1 -> 2"), "{diff:?}");
    }
}
