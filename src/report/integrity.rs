//! Whether `results.csv` and `curves.csv` still hold what sweep wrote.
//!
//! Every writer of the two files keeps a [`Running`] hash of the bytes it writes itself
//! (the [`super::files::Appender`] from the file it opened, each atomic rewrite from its
//! first byte), and the manifest records them as [`Written`]: the length and FNV-1a of
//! each file, whenever it is written (a run's start, its end, a stop, a merge). A reader
//! ([`check`]) hashes the file's first `bytes` bytes and compares. Bytes that sweep did
//! not write are never hashed into the record, so a program that appends a row while the
//! run goes on is found, not blessed.
//!
//! A record is *sealed* when the files hold exactly its bytes (a run or a merge ended, or
//! a run stopped): then a byte more, a byte less or a byte changed is an error naming the
//! file. While a run is under way (and after it was killed) the record is open: the rows
//! after the recorded bytes are the run's own, which a resume keeps by its usual rule
//! (complete jobs only), and a first part that differs can be sweep's own rewrite cut
//! short, so it is said, not refused.
//!
//! FNV-1a hashes about 0.8 GB a second, one byte at a time: a results file of 100,000 rows
//! (28 MB) is checked in 35 ms, against 0.85 s for `sweep summary` to read it
//! (`docs/performance.md`).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::error::bad_input;
use crate::seed::Fnv1a;

/// The length and FNV-1a hash (16 hex digits) of the bytes sweep wrote to a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// How many bytes, from the first.
    pub bytes: u64,
    /// Their FNV-1a hash.
    pub fnv1a: String,
}

/// What sweep wrote to the two result files, as the manifest records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    /// `results.csv`.
    #[serde(rename = "results.csv")]
    pub results: Digest,
    /// `curves.csv`.
    #[serde(rename = "curves.csv")]
    pub curves: Digest,
    /// Whether the files hold exactly these bytes (see the module's documentation): false
    /// while a run is under way, and after it was killed.
    pub sealed: bool,
}

/// A hash being computed over bytes as they are written.
#[derive(Clone, Copy, Debug, Default)]
pub struct Running {
    bytes: u64,
    hash: Fnv1a,
}

impl Running {
    /// Adds bytes written.
    pub fn update(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        self.hash.update(bytes);
    }

    /// How many bytes so far.
    pub fn len(&self) -> u64 {
        self.bytes
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The digest of the bytes so far.
    pub fn digest(&self) -> Digest {
        Digest { bytes: self.bytes, fnv1a: hex(self.hash.value()) }
    }
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// A writer that hashes what goes through it.
pub struct HashingWriter<W: Write> {
    inner: W,
    running: Running,
}

impl<W: Write> HashingWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> HashingWriter<W> {
        HashingWriter { inner, running: Running::default() }
    }

    /// The hash of what was written so far.
    pub fn running(&self) -> Running {
        self.running
    }

    /// The writer inside.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.running.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The hash of the first `limit` bytes of `file` (all of it with `u64::MAX`), read a block
/// at a time: the running hash and how many bytes there were.
fn hash_prefix(file: &mut File, limit: u64) -> io::Result<Running> {
    let mut running = Running::default();
    let mut block = vec![0u8; 1 << 20];
    while running.len() < limit {
        let want = (limit - running.len()).min(block.len() as u64) as usize;
        let n = file.read(&mut block[..want])?;
        if n == 0 {
            break;
        }
        running.update(&block[..n]);
    }
    Ok(running)
}

/// The running hash of the whole file at `path` (empty when there is none).
pub fn hash_file(path: &Path) -> Result<Running> {
    match File::open(path) {
        Ok(mut f) => hash_prefix(&mut f, u64::MAX).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Running::default()),
        Err(e) => Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    }
}

/// What to do about a changed file: said after what changed (a reader given `--unverified`
/// says what changed without it).
pub const WHAT_TO_DO: &str = "sweep will not read it. Restore the file from a copy, or run the spec again into a new \
                          folder (`sweep run SPEC --fresh` moves this one aside)";

/// How a file differs from its record, in words; `None` when it holds the recorded bytes
/// (followed by more, when `extra_allowed`).
fn difference(path: &Path, recorded: &Digest, extra_allowed: bool) -> Result<Option<String>> {
    let mut file = match File::open(path) {
        Ok(f) => f,
        // A removed file is not read as anything: its readers and a resume say it is gone.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    };
    let len = file.metadata().map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?.len();
    if len < recorded.bytes {
        return Ok(Some(format!("it is {len} bytes long, but sweep wrote {} bytes to it", recorded.bytes)));
    }
    let prefix =
        hash_prefix(&mut file, recorded.bytes).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let now = prefix.digest();
    if now.bytes != recorded.bytes || now.fnv1a != recorded.fnv1a {
        return Ok(Some(format!(
            "its first {} bytes are not the ones sweep wrote (FNV-1a {} now, {} recorded in manifest.json)",
            recorded.bytes, now.fnv1a, recorded.fnv1a
        )));
    }
    if len > recorded.bytes && !extra_allowed {
        let shown = path.display();
        return Ok(Some(format!(
            "{} bytes were added after the {} bytes sweep wrote (those are intact: `truncate -s {} {shown}` removes \
             the rest)",
            len - recorded.bytes,
            recorded.bytes,
            recorded.bytes
        )));
    }
    Ok(None)
}

/// Checks both files of `dir` against `written`. A sealed record must match exactly: a
/// difference is an error (bad input) that names the file, says what changed and what to
/// do. An open record (a run under way or killed) must match its first bytes; a
/// difference there is returned as a note, since sweep's own rewrite may have been cut
/// short.
pub fn check(dir: &Path, written: &Written) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for (name, recorded) in [("results.csv", &written.results), ("curves.csv", &written.curves)] {
        let path = dir.join(name);
        let Some(why) = difference(&path, recorded, !written.sealed)? else { continue };
        if written.sealed {
            return Err(bad_input(format!("{} has changed since sweep wrote it: {why}; {WHAT_TO_DO}", path.display())));
        }
        notes.push(format!(
            "note: {} differs from what sweep recorded when its last run started ({why}); the run is under way, or \
             was killed while sweep rewrote the file, so it is read unchecked",
            path.display()
        ));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(dir: &Path, sealed: bool) -> Written {
        let digest = |name: &str| hash_file(&dir.join(name)).unwrap().digest();
        Written { results: digest("results.csv"), curves: digest("curves.csv"), sealed }
    }

    #[test]
    fn a_sealed_record_refuses_any_change_and_an_open_one_allows_more_rows() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("results.csv"), "job_id,value\na,1\n").unwrap();
        std::fs::write(dir.join("curves.csv"), "job_id\n").unwrap();
        let (sealed, open) = (written(dir, true), written(dir, false));
        assert!(check(dir, &sealed).unwrap().is_empty());
        std::fs::write(dir.join("results.csv"), "job_id,value\na,1\nb,2\n").unwrap();
        let err = format!("{:#}", check(dir, &sealed).unwrap_err());
        assert!(err.contains("results.csv has changed since sweep wrote it: 4 bytes were added"), "{err}");
        assert!(err.contains("truncate -s 17"), "{err}");
        assert!(check(dir, &open).unwrap().is_empty(), "an open record allows the rows of the run under way");
        std::fs::write(dir.join("results.csv"), "job_id,value\na,2\n").unwrap();
        let err = format!("{:#}", check(dir, &sealed).unwrap_err());
        assert!(err.contains("its first 17 bytes are not the ones sweep wrote"), "{err}");
        assert_eq!(check(dir, &open).unwrap().len(), 1, "said, not refused");
        std::fs::write(dir.join("results.csv"), "job_id\n").unwrap();
        assert!(format!("{:#}", check(dir, &sealed).unwrap_err()).contains("is 7 bytes long, but sweep wrote 17"));
        std::fs::write(dir.join("results.csv"), "job_id,value\na,1\n").unwrap();
        std::fs::write(dir.join("curves.csv"), "job_id\nx\n").unwrap();
        assert!(format!("{:#}", check(dir, &sealed).unwrap_err()).contains("curves.csv has changed"));
    }

    #[test]
    fn a_hashing_writer_hashes_what_goes_through() {
        let mut w = HashingWriter::new(Vec::new());
        w.write_all(b"job_id,").unwrap();
        w.write_all(b"value\n").unwrap();
        let d = w.running().digest();
        assert_eq!(d, Digest { bytes: 13, fnv1a: hex(crate::seed::fnv1a(b"job_id,value\n")) });
        assert_eq!(w.into_inner(), b"job_id,value\n");
    }
}
