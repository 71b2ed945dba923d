//! Reading and writing the CSV files safely.
//!
//! - [`Appender`] appends a finished job's rows (curves first, then results) and flushes,
//!   so a crash loses at most the jobs in flight.
//! - [`read`] reads a file back, cutting a partial last line that a crash left.
//! - [`write_atomic`] writes a whole file to a temporary name, syncs it and renames it over
//!   the old one, so a reader never sees half a file.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::Record;

/// Appends rows to `results.csv` and `curves.csv` of one directory.
pub struct Appender {
    results: (PathBuf, File),
    curves: (PathBuf, File),
}

fn open_append(path: &Path, header: &[&str]) -> Result<File> {
    let exists = path.exists();
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {} for writing", path.display()))?;
    if !exists || f.metadata()?.len() == 0 {
        f.write_all(encode(std::iter::once(header.iter().map(|s| s.to_string()).collect())).as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(f)
}

/// CSV text of some records.
pub fn encode(records: impl IntoIterator<Item = Record>) -> String {
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    for r in records {
        w.write_record(&r).expect("writing to memory");
    }
    String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 is UTF-8")
}

impl Appender {
    /// Opens (or creates, with headers) the two files in `dir`.
    pub fn open(dir: &Path) -> Result<Appender> {
        let rp = dir.join("results.csv");
        let cp = dir.join("curves.csv");
        let results = open_append(&rp, &super::RESULT_COLUMNS)?;
        let curves = open_append(&cp, &super::CURVE_COLUMNS)?;
        Ok(Appender { results: (rp, results), curves: (cp, curves) })
    }

    /// Appends one job's rows, curves first, and flushes both files. Fails, naming the
    /// file, when a file was removed while open (rows would go nowhere) or a write fails.
    pub fn append(&mut self, results: &[Record], curves: &[Record]) -> Result<()> {
        for ((path, file), rows) in [(&mut self.curves, curves), (&mut self.results, results)] {
            if !path.exists() {
                bail!("cannot write {}: the file was removed while the sweep was running", path.display());
            }
            if rows.is_empty() {
                continue;
            }
            file.write_all(encode(rows.iter().cloned()).as_bytes())
                .and_then(|_| file.flush())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Forces both files to disk.
    pub fn sync(&mut self) -> Result<()> {
        for (path, file) in [&self.curves, &self.results] {
            file.sync_data().with_context(|| format!("cannot sync {}", path.display()))?;
        }
        Ok(())
    }
}

/// Cuts a partial last line (one with no newline) from a file a crash interrupted.
/// Returns how many bytes were cut.
pub fn repair(path: &Path) -> Result<u64> {
    let mut f = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
    };
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes).with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(0);
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    f.set_len(keep as u64).with_context(|| format!("cannot repair {}", path.display()))?;
    f.seek(SeekFrom::End(0))?;
    Ok((bytes.len() - keep) as u64)
}

/// Reads a CSV file whose header must be `header`; returns its records.
pub fn read(path: &Path, header: &[&str]) -> Result<Vec<Record>> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(std::io::BufReader::new(file));
    let found = r.headers().with_context(|| format!("{} is not a CSV file", path.display()))?.clone();
    if found.iter().ne(header.iter().copied()) {
        bail!(
            "{} does not have the expected columns: expected {}, found {}",
            path.display(),
            header.join(","),
            found.iter().collect::<Vec<_>>().join(",")
        );
    }
    let mut out = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.with_context(|| format!("{}: malformed row {}", path.display(), i + 2))?;
        if rec.len() != header.len() {
            bail!("{}: row {} has {} fields, expected {}", path.display(), i + 2, rec.len(), header.len());
        }
        out.push(rec.iter().map(str::to_string).collect());
    }
    Ok(out)
}

/// Writes `path` atomically: `fill` writes a temporary file beside it, which is synced and
/// renamed over `path`; on any error the temporary file is removed and `path` is untouched.
fn atomically(path: &Path, tmp_ext: &str, fill: impl FnOnce(&mut BufWriter<File>) -> Result<()>) -> Result<()> {
    let tmp = path.with_extension(tmp_ext);
    let result = (|| -> Result<()> {
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        fill(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `header` and `records` to `path` atomically (temporary file, sync, rename).
pub fn write_atomic(path: &Path, header: &[&str], records: impl IntoIterator<Item = Record>) -> Result<()> {
    atomically(path, "csv.tmp", |w| {
        let mut csv = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(w);
        csv.write_record(header)?;
        for r in records {
            csv.write_record(&r)?;
        }
        csv.flush()?;
        Ok(())
    })
}

/// Writes text to `path` atomically.
pub fn write_text_atomic(path: &Path, text: &str) -> Result<()> {
    atomically(path, "tmp", |w| Ok(w.write_all(text.as_bytes())?))
}

/// A CSV file held as its bytes, with the byte range of every record: rows can be
/// reordered and copied out without splitting them into strings (merging a million rows
/// takes a fraction of the memory and time).
pub struct RawTable {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Each record's byte range, including its line end.
    pub rows: Vec<std::ops::Range<usize>>,
}

impl RawTable {
    /// Reads `path`, checks that its header is `header`, and calls `each(i, record)` for
    /// every record (to pick out the fields the caller needs).
    pub fn read(
        path: &Path,
        header: &[&str],
        mut each: impl FnMut(usize, &csv::ByteRecord) -> Result<()>,
    ) -> Result<RawTable> {
        let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(bytes.as_slice());
        let found = r.byte_headers().with_context(|| format!("{} is not a CSV file", path.display()))?.clone();
        if found.iter().ne(header.iter().map(|h| h.as_bytes())) {
            bail!("{} does not have the expected columns: expected {}", path.display(), header.join(","));
        }
        let mut rows = Vec::new();
        let mut rec = csv::ByteRecord::new();
        let mut start = r.position().byte() as usize;
        while r
            .read_byte_record(&mut rec)
            .with_context(|| format!("{}: malformed row {}", path.display(), rows.len() + 2))?
        {
            if rec.len() != header.len() {
                bail!("{}: row {} has {} fields, expected {}", path.display(), rows.len() + 2, rec.len(), header.len());
            }
            each(rows.len(), &rec)?;
            let end = r.position().byte() as usize;
            rows.push(start..end);
            start = end;
        }
        Ok(RawTable { bytes, rows })
    }
}

/// Writes `header` and then the given byte ranges of several tables, in order, atomically.
pub fn write_raw_atomic(path: &Path, header: &[&str], tables: &[RawTable], order: &[(u32, u32)]) -> Result<()> {
    atomically(path, "csv.tmp", |w| {
        w.write_all(encode(std::iter::once(header.iter().map(|s| s.to_string()).collect())).as_bytes())?;
        for &(table, row) in order {
            let t = &tables[table as usize];
            let row = &t.bytes[t.rows[row as usize].clone()];
            w.write_all(row)?;
            if !row.ends_with(b"\n") {
                w.write_all(b"\n")?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repair_cuts_a_partial_line_and_read_gets_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        fs::write(&p, "a,b\n1,2\n3,\"fo").unwrap();
        assert_eq!(repair(&p).unwrap(), 5);
        assert_eq!(read(&p, &["a", "b"]).unwrap(), vec![vec!["1".to_string(), "2".to_string()]]);
        assert!(read(&p, &["a", "c"]).is_err());
        write_atomic(&p, &["a", "b"], vec![vec!["x,y".into(), "".into()]]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "a,b\n\"x,y\",\n");
    }
}
