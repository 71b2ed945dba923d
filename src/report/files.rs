//! Reading and writing the CSV files safely.
//!
//! - [`Appender`] appends a finished job's rows (curves first, then results) and flushes,
//!   so a crash loses at most the jobs in flight.
//! - [`repair`] cuts a partial last line that a crash left.
//! - [`scan_runs`] and [`rewrite_runs`] reorder or filter a file by job (the end-of-run sort,
//!   resume) holding only each job's byte range, never the rows: memory grows by a few
//!   dozen bytes per job, not with the rows written.
//! - [`write_atomic`] writes a whole file to a temporary name, syncs it and renames it over
//!   the old one, so a reader never sees half a file; every rewrite above goes through it.
//! - [`copy_runs`] interleaves the runs of several files (`sweep merge`).
//! - [`each_row`] reads a file one record at a time (`reproduce`; the report's readers take
//!   the records as typed rows, [`super::result_row`]).
//!
//! Every writer hashes the bytes it writes (see [`super::integrity`]): the appender keeps a
//! running hash of each file and every rewrite returns the hash of the file it wrote, for
//! the manifest to record.
//!
//! Every reader accepts a file written by an older version, whose header is a prefix of
//! today's (see [`Columns`]): its rows read as if the newer columns were empty, and every
//! rewrite ([`rewrite_runs`], [`copy_runs`]) writes today's header and pads the rows of an
//! older file with empty cells. [`Appender`] appends only to a file of today's columns.

use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::Record;
pub use super::header::Columns;
use super::integrity::{HashingWriter, Running, Written, hash_file};
use crate::error::bad_input;

/// Appends rows to `results.csv` and `curves.csv` of one directory, hashing what it
/// writes.
pub struct Appender {
    results: Output,
    curves: Output,
}

/// One file the appender writes, and the hash of its bytes.
struct Output {
    path: PathBuf,
    file: File,
    running: Running,
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
    } else if !open_checked(path, header)?.1.is_current() {
        bail!(
            "{} was written by an older version of sweep; run the same `sweep run` command again to resume, \
             which upgrades it to today's columns first",
            path.display()
        );
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
    /// Opens (or creates, with headers) the two files in `dir`; `header` is the run's
    /// results header (today's columns and its program parameters'). The running hash of
    /// each starts from the bytes the file holds: what resume kept (checked against the
    /// manifest, then rewritten by sweep) under the directory's lock, before any job runs.
    pub fn open(dir: &Path, header: &[&str]) -> Result<Appender> {
        let output = |path: PathBuf, header: &[&str]| -> Result<Output> {
            let file = open_append(&path, header)?;
            let running = hash_file(&path)?;
            Ok(Output { path, file, running })
        };
        let results = output(dir.join("results.csv"), header)?;
        let curves = output(dir.join("curves.csv"), &super::CURVE_COLUMNS)?;
        Ok(Appender { results, curves })
    }

    /// Appends one job's rows, curves first, and flushes both files. Fails, naming the
    /// file, when a file was removed while open (rows would go nowhere) or a write fails;
    /// a write that fails half way is cut back to the last whole job where the file system
    /// allows.
    pub fn append(&mut self, results: &[Record], curves: &[Record]) -> Result<()> {
        for (out, rows) in [(&mut self.curves, curves), (&mut self.results, results)] {
            if !out.path.exists() {
                bail!("cannot write {}: the file was removed while the sweep was running", out.path.display());
            }
            if rows.is_empty() {
                continue;
            }
            let text = encode(rows.iter().cloned());
            let written = out.file.write_all(text.as_bytes()).and_then(|_| out.file.flush());
            if let Err(e) = written {
                let _ = out.file.set_len(out.running.len());
                return Err(e).with_context(|| format!("cannot write {}", out.path.display()));
            }
            out.running.update(text.as_bytes());
        }
        Ok(())
    }

    /// Forces both files to disk.
    pub fn sync(&mut self) -> Result<()> {
        for out in [&self.curves, &self.results] {
            out.file.sync_data().with_context(|| format!("cannot sync {}", out.path.display()))?;
        }
        Ok(())
    }

    /// What this appender's files hold, as far as sweep wrote them: for the manifest.
    pub fn written(&self, sealed: bool) -> Written {
        Written { results: self.results.running.digest(), curves: self.curves.running.digest(), sealed }
    }

    /// Checks that each file holds exactly the bytes sweep wrote to it (before it is
    /// sorted, which would take in whatever else is there): an error names the file that
    /// another process wrote to during the run.
    pub fn check_unchanged(&self) -> Result<()> {
        for out in [&self.results, &self.curves] {
            let now = hash_file(&out.path)?.digest();
            let wrote = out.running.digest();
            if now != wrote {
                let change = if now.bytes > wrote.bytes {
                    format!("{} bytes were added after the {} bytes sweep wrote", now.bytes - wrote.bytes, wrote.bytes)
                } else {
                    format!("it holds {} bytes that are not the {} bytes sweep wrote", now.bytes, wrote.bytes)
                };
                bail!(
                    "{} was changed during the run by another process (a command solver's program?): {change}; the \
                     results are left unsorted and the manifest records what sweep wrote. Restore the file from a \
                     copy, or run the spec again into a new folder (`sweep run SPEC --fresh` moves this one aside)",
                    out.path.display()
                );
            }
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
    let len = f.metadata().with_context(|| format!("cannot read {}", path.display()))?.len();
    let keep = last_line_end(&mut f, len).with_context(|| format!("cannot read {}", path.display()))?;
    if keep == len {
        return Ok(0);
    }
    f.set_len(keep).with_context(|| format!("cannot repair {}", path.display()))?;
    f.seek(SeekFrom::End(0))?;
    Ok(len - keep)
}

/// Where the last line end of a file of `len` bytes is (the byte after its last newline; 0
/// without one): a partial last line starts there when it is less than `len`. Looks from
/// the end, a block at a time: the file is not read whole.
fn last_line_end(f: &mut File, len: u64) -> std::io::Result<u64> {
    let mut end = len;
    let mut block = vec![0u8; 1 << 16];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let chunk = &mut block[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Where the partial last line of the file at `path` starts (none when it ends with a
/// newline, or cannot be read).
fn partial_line_start(path: &Path) -> Option<u64> {
    let mut f = File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    last_line_end(&mut f, len).ok().filter(|&start| start < len)
}

/// Opens a CSV file for reading and checks that its header is `header` or, for a file
/// written by an older version, a prefix of it (see [`Columns::check`]).
pub fn open_checked(path: &Path, header: &[&str]) -> Result<(csv::Reader<BufReader<File>>, Columns)> {
    let file = File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(BufReader::with_capacity(1 << 16, file));
    let found = r.headers().with_context(|| format!("{} is not a CSV file", path.display()))?;
    let columns = Columns::check(path, found.iter(), header)?;
    Ok((r, columns))
}

/// What a damaged result file needs, said after the row that is wrong (which starts at
/// byte `row_start`). When that row is the file's last line and is cut short (no line
/// end), as a run killed while it wrote the row leaves it: in a run's folder (it has a
/// manifest), that resuming the run mends it; else the command that cuts the line.
/// Otherwise the file was changed by hand or on disk.
fn damaged(path: &Path, row_start: Option<u64>) -> String {
    let cut = partial_line_start(path).filter(|&start| row_start.is_none_or(|row| row >= start));
    match cut {
        Some(start) if path.parent().is_some_and(|dir| dir.join("manifest.json").exists()) => format!(
            "its last line (from byte {start}) is cut short, as a run killed while writing it leaves it; resuming \
             the run mends it: run the same `sweep run` command again (it cuts the line and runs that job again)"
        ),
        Some(start) => format!(
            "its last line (from byte {start}) is cut short, as a run killed while writing it leaves it; \
             `truncate -s {start} {}` removes it",
            path.display()
        ),
        None => "the file is damaged; restore it from a copy, or move the directory aside and run again".to_string(),
    }
}

/// A row that does not parse: bad input (exit 2) that names the file and the row, like
/// every other unreadable input file; a failed read of the disk stays an I/O error.
fn malformed(path: &Path, row: u64, e: csv::Error) -> anyhow::Error {
    if e.is_io_error() {
        return anyhow::Error::new(e).context(format!("{}: reading row {row}", path.display()));
    }
    let row_start = e.position().map(|p| p.byte());
    bad_input(format!("{}: malformed row {row}: {e}; {}", path.display(), damaged(path, row_start)))
}

/// Reads a CSV file of `header`'s columns (or of an older version, see [`Columns`]) one row
/// at a time, calling `each` with every record padded to today's columns (those the file
/// lacks read as empty); refuses a file that lacks a column of `needed` before reading any
/// row. Returns the file's columns. Errors name the file and the row (the header is row 1).
pub fn each_row(
    path: &Path,
    header: &[&str],
    needed: &[&str],
    mut each: impl FnMut(&csv::StringRecord),
) -> Result<Columns> {
    each_numbered_row(path, header, needed, |rec, _| each(rec))
}

/// As [`each_row`], with each record's row number as a spreadsheet shows it (the header is
/// row 1), for readers that name the row (see [`super::result_row`]).
pub fn each_numbered_row(
    path: &Path,
    header: &[&str],
    needed: &[&str],
    mut each: impl FnMut(&csv::StringRecord, u64),
) -> Result<Columns> {
    let (mut r, columns) = open_checked(path, header)?;
    columns.require(path, needed)?;
    // A last line cut short may still parse, with its last figure cut: never read as one.
    if let Some(start) = partial_line_start(path) {
        return Err(bad_input(format!("{}: {}", path.display(), damaged(path, Some(start)))));
    }
    let mut rec = csv::StringRecord::new();
    let mut rows = 0;
    while r.read_record(&mut rec).map_err(|e| malformed(path, rows + 2, e))? {
        rows += 1;
        columns.pad(&mut rec);
        each(&rec, rows + 1);
    }
    Ok(columns)
}

/// The writer a rewrite fills: buffered, and hashing what it writes.
type Filler = HashingWriter<BufWriter<File>>;

/// Writes `path` atomically: `fill` writes a temporary file beside it, which is synced and
/// renamed over `path`; on any error the temporary file is removed and `path` is untouched.
/// Returns the hash of the bytes written.
fn atomically(path: &Path, tmp_ext: &str, fill: impl FnOnce(&mut Filler) -> Result<()>) -> Result<Running> {
    let tmp = path.with_extension(tmp_ext);
    let result = (|| -> Result<Running> {
        let mut w = HashingWriter::new(BufWriter::with_capacity(1 << 20, File::create(&tmp)?));
        fill(&mut w)?;
        let running = w.running();
        w.into_inner().into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, path)?;
        Ok(running)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// Writes `header` and `records` to `path` atomically (temporary file, sync, rename);
/// returns the hash of what it wrote.
pub fn write_atomic(path: &Path, header: &[&str], records: impl IntoIterator<Item = Record>) -> Result<Running> {
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
    atomically(path, "tmp", |w| Ok(w.write_all(text.as_bytes())?)).map(|_| ())
}

/// One job's consecutive rows in a file, as a byte range: files are rewritten by moving
/// runs, so that no row is ever held in memory (a run is a few dozen bytes, whatever the
/// number of rows in it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The job id (first column).
    pub job: Box<str>,
    /// The rows' bytes in the file, line ends included.
    pub bytes: Range<u64>,
    /// How many rows.
    pub rows: usize,
    /// Whether the caller's test held for any of the rows.
    pub flagged: bool,
    /// How many of today's columns the file lacks (it was written by an older version):
    /// a copy pads each row with that many empty cells.
    pub missing_columns: u16,
}

/// Reads through a CSV file whose header must be `header` (or a prefix of it, see
/// [`Columns`]) and whose first column is the job id, one row at a time, and returns its
/// runs of consecutive rows of one job in file order; `flag` marks the runs where it holds
/// for some row (it sees each row padded to `header`'s columns).
pub fn scan_runs(path: &Path, header: &[&str], flag: impl Fn(&csv::ByteRecord) -> bool) -> Result<Vec<Run>> {
    scan_file(path, header, flag).map(|(_, runs)| runs)
}

/// As [`scan_runs`], and the file's columns.
pub fn scan_file(path: &Path, header: &[&str], flag: impl Fn(&csv::ByteRecord) -> bool) -> Result<(Columns, Vec<Run>)> {
    let (mut r, columns) = open_checked(path, header)?;
    let missing_columns = u16::try_from(columns.missing().len()).expect("fewer than 65536 columns");
    let mut runs: Vec<Run> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    let mut start = r.position().byte();
    // Row numbers as a spreadsheet shows them: the header is row 1.
    let mut row = 1;
    while r.read_byte_record(&mut rec).map_err(|e| malformed(path, row + 1, e))? {
        row += 1;
        if rec.len() != columns.width() {
            let message =
                format!("{}: row {row} has {} fields, expected {}", path.display(), rec.len(), columns.width());
            return Err(bad_input(format!("{message}; {}", damaged(path, Some(start)))));
        }
        let end = r.position().byte();
        columns.pad_bytes(&mut rec);
        let flagged = flag(&rec);
        match runs.last_mut() {
            Some(run) if run.job.as_bytes() == &rec[0] => {
                run.bytes.end = end;
                run.rows += 1;
                run.flagged |= flagged;
            }
            _ => {
                let job = std::str::from_utf8(&rec[0])
                    .with_context(|| format!("{}: row {row} has a job id that is not UTF-8", path.display()))?;
                runs.push(Run { job: job.into(), bytes: start..end, rows: 1, flagged, missing_columns });
            }
        }
        start = end;
    }
    Ok((columns, runs))
}

/// Rewrites `path` atomically as `header` followed by the given runs of it, in the given
/// order (runs left out are dropped; rows of an older file are padded to `header`);
/// returns the hash of what it wrote.
pub fn rewrite_runs<'a>(path: &Path, header: &[&str], runs: impl IntoIterator<Item = &'a Run>) -> Result<Running> {
    copy_runs(path, header, &[path], runs.into_iter().map(|r| (0, r)))
}

/// Writes `path` atomically as `header` followed by runs of several files, in the given
/// order: `(i, run)` is `run` of `sources[i]`. Copies bytes, one run at a time, and pads
/// the rows of a run from an older file with empty cells; `path` may be one of the sources.
/// Returns the hash of what it wrote.
pub fn copy_runs<'a, P: AsRef<Path>>(
    path: &Path,
    header: &[&str],
    sources: &[P],
    runs: impl IntoIterator<Item = (usize, &'a Run)>,
) -> Result<Running> {
    let mut files: Vec<File> = sources
        .iter()
        .map(|p| File::open(p).with_context(|| format!("cannot read {}", p.as_ref().display())))
        .collect::<Result<_>>()?;
    let mut buf = Vec::new();
    atomically(path, "csv.tmp", |w| {
        w.write_all(encode(std::iter::once(header.iter().map(|s| s.to_string()).collect())).as_bytes())?;
        for (i, run) in runs {
            let src = &mut files[i];
            buf.resize((run.bytes.end - run.bytes.start) as usize, 0);
            src.seek(SeekFrom::Start(run.bytes.start))?;
            src.read_exact(&mut buf).with_context(|| format!("cannot read {}", sources[i].as_ref().display()))?;
            if run.missing_columns > 0 {
                write_padded(w, &buf, run.missing_columns)?;
                continue;
            }
            w.write_all(&buf)?;
            if !buf.ends_with(b"\n") {
                w.write_all(b"\n")?;
            }
        }
        Ok(())
    })
}

/// Writes the CSV rows in `rows` to `w`, each with `missing` empty cells appended.
fn write_padded(w: &mut impl Write, rows: &[u8], missing: u16) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).from_reader(rows);
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(w);
    let mut rec = csv::ByteRecord::new();
    while reader.read_byte_record(&mut rec)? {
        for _ in 0..missing {
            rec.push_field(b"");
        }
        writer.write_byte_record(&rec)?;
    }
    writer.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_last_line_cut_short_is_said_with_how_to_mend_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("results.csv");
        std::fs::write(&path, "job_id,value\na,1\nb").unwrap();
        let err = format!("{:#}", scan_runs(&path, &["job_id", "value"], |_| false).unwrap_err());
        assert!(err.contains("row 3") && err.contains("`truncate -s 17 "), "{err}");
        std::fs::write(tmp.path().join("manifest.json"), "{}").unwrap();
        let err = format!("{:#}", scan_runs(&path, &["job_id", "value"], |_| false).unwrap_err());
        assert!(err.contains("resuming the run mends it"), "{err}");
        // Cut in its last figure, the line parses: a reader refuses it all the same.
        std::fs::write(&path, "job_id,value\na,1\nb,0.12").unwrap();
        let err = format!("{:#}", each_row(&path, &["job_id", "value"], &[], |_| {}).unwrap_err());
        assert!(err.contains("(from byte 17) is cut short") && err.contains("resuming the run mends it"), "{err}");
        std::fs::remove_file(tmp.path().join("manifest.json")).unwrap();
        // A bad row that is not the last line: damaged.
        std::fs::write(&path, "job_id,value\na\nb,2").unwrap();
        let err = format!("{:#}", scan_runs(&path, &["job_id", "value"], |_| false).unwrap_err());
        assert!(err.contains("row 2") && err.contains("restore it from a copy"), "{err}");
    }

    #[test]
    fn repair_cuts_a_partial_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        fs::write(&p, "a,b\n1,2\n3,\"fo").unwrap();
        assert_eq!(repair(&p).unwrap(), 5);
        assert_eq!(fs::read_to_string(&p).unwrap(), "a,b\n1,2\n");
        assert!(open_checked(&p, &["a", "b"]).is_ok() && open_checked(&p, &["a", "c"]).is_err());
        write_atomic(&p, &["a", "b"], vec![vec!["x,y".into(), "".into()]]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "a,b\n\"x,y\",\n");
    }

    #[test]
    fn repair_finds_the_last_newline_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        // A partial line longer than the 64 KiB block, then a file with no newline at all.
        let long = "y".repeat(200_000);
        fs::write(&p, format!("a\n1\n{long}")).unwrap();
        assert_eq!(repair(&p).unwrap(), 200_000);
        assert_eq!(fs::read_to_string(&p).unwrap(), "a\n1\n");
        assert_eq!(repair(&p).unwrap(), 0);
        fs::write(&p, &long).unwrap();
        assert_eq!(repair(&p).unwrap(), 200_000);
        assert_eq!(fs::read(&p).unwrap().len(), 0);
    }

    #[test]
    fn runs_group_consecutive_rows_and_rewrite_moves_them_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        // Quoted fields with commas and a newline inside; no newline after the last row.
        let text = "id,v\nb,1\nb,\"2,\n3\"\na,x\nc,4\nb,5";
        fs::write(&p, text).unwrap();
        let runs = scan_runs(&p, &["id", "v"], |r| &r[1] == b"x").unwrap();
        let summary: Vec<(&str, usize, bool)> = runs.iter().map(|r| (&*r.job, r.rows, r.flagged)).collect();
        assert_eq!(summary, vec![("b", 2, false), ("a", 1, true), ("c", 1, false), ("b", 1, false)]);
        assert_eq!(&text[runs[0].bytes.start as usize..runs[0].bytes.end as usize], "b,1\nb,\"2,\n3\"\n");
        assert_eq!(runs[3].bytes.end as usize, text.len());
        // Reorder and drop "c": the bytes of each run move unchanged; a newline is added at the end.
        rewrite_runs(&p, &["id", "v"], [&runs[1], &runs[3], &runs[0]]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "id,v\na,x\nb,5\nb,1\nb,\"2,\n3\"\n");
        assert_eq!(scan_runs(&p, &["id", "v"], |_| false).unwrap().iter().map(|r| r.rows).sum::<usize>(), 4);
        assert!(scan_runs(&p, &["id", "w"], |_| false).is_err());
        fs::write(&p, "id,v\na\n").unwrap();
        let err = scan_runs(&p, &["id", "v"], |_| false).unwrap_err();
        assert!(format!("{err:#}").contains("row 2"), "{err:#}");
    }

    #[test]
    fn an_older_file_reads_padded_and_is_rewritten_with_todays_header() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.csv");
        fs::write(&p, "id,v\nb,\"1,\n2\"\na,3\n").unwrap();
        let today = ["id", "v", "w", "z"];
        let mut seen = Vec::new();
        let columns = each_row(&p, &today, &["v"], |r| seen.push(r.iter().collect::<Vec<_>>().join("|"))).unwrap();
        assert_eq!(seen, ["b|1,\n2||", "a|3||"]);
        assert_eq!(columns.missing(), ["w", "z"]);
        assert!(format!("{:#}", each_row(&p, &today, &["w"], |_| {}).unwrap_err()).contains("lacks the column(s) w"));
        let runs = scan_runs(&p, &today, |r| r.len() == 4 && r[3].is_empty()).unwrap();
        assert!(runs.iter().all(|r| r.flagged && r.missing_columns == 2));
        rewrite_runs(&p, &today, [&runs[1], &runs[0]]).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "id,v,w,z\na,3,,\nb,\"1,\n2\",,\n");
        assert!(scan_runs(&p, &today, |_| false).unwrap().iter().all(|r| r.missing_columns == 0));
    }

    #[test]
    fn the_appender_refuses_a_file_of_an_older_version() {
        let dir = tempfile::tempdir().unwrap();
        let older = &super::super::RESULT_COLUMNS[..10];
        write_atomic(&dir.path().join("results.csv"), older, Vec::new()).unwrap();
        let err = format!("{:#}", Appender::open(dir.path(), &super::super::RESULT_COLUMNS).err().expect("refused"));
        assert!(err.contains("was written by an older version of sweep; run the same `sweep run` command"), "{err}");
    }
}
