//! A file's header against today's column list, and columns found by name.
//!
//! Columns only grow, at the end: a file written by an older version of `sweep` has a
//! prefix of today's columns. [`Columns::check`] accepts such a header (and today's) and
//! refuses any other, naming the file and the first column that differs. A reader then
//! finds a column by name ([`Columns::index`]) and reads the columns the file lacks as
//! empty cells ([`Columns::pad`]), so that a column's position is the same in every
//! version.

use std::path::Path;

use anyhow::{Result, bail};

/// The header of one CSV file, checked against today's columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Columns {
    /// Today's columns, in order.
    current: Vec<String>,
    /// How many of them the file has (its header is `current[..width]`, then `extras`).
    width: usize,
    /// Columns after today's (program parameters).
    extras: Vec<String>,
}

impl Columns {
    /// Checks the header `found` of `path` against today's columns `current`: it must be
    /// `current` or a non-empty prefix of it (a file of an older version). Otherwise the
    /// error names the file and the first column that differs.
    pub fn check<'f>(path: &Path, found: impl IntoIterator<Item = &'f str>, current: &[&str]) -> Result<Columns> {
        let found: Vec<&str> = found.into_iter().collect();
        let prefix = !found.is_empty() && found.len() <= current.len() && current[..found.len()] == found[..];
        // Columns after all of today's are a command solver's program parameters: read
        // with the row (past today's columns), never taken for one of them.
        let extras = found.len() > current.len()
            && current.contains(&crate::schema::ParamColumn::Params.name())
            && found[..current.len()] == current[..]
            && found[current.len()..].iter().all(|c| !current.contains(c));
        if extras {
            return Ok(Columns {
                current: current.iter().map(|c| c.to_string()).collect(),
                width: current.len(),
                extras: found[current.len()..].iter().map(|c| c.to_string()).collect(),
            });
        }
        if !prefix {
            let first = (0..found.len().max(current.len())).find(|&i| found.get(i) != current.get(i)).unwrap_or(0);
            let what = match (found.get(first), current.get(first)) {
                (Some(f), Some(c)) => format!("column {} is {f:?} where {c:?} belongs", first + 1),
                (Some(f), None) => format!("column {} ({f:?}) is not one of this version's columns", first + 1),
                (None, _) => "it has no columns".to_string(),
            };
            bail!(
                "{} does not have the expected columns: expected {}, found {} ({what})",
                path.display(),
                current.join(","),
                found.join(",")
            );
        }
        Ok(Columns { current: current.iter().map(|c| c.to_string()).collect(), width: found.len(), extras: Vec::new() })
    }

    /// The columns after today's: a command solver's program parameters, in order (their
    /// cells follow today's in each record).
    pub fn extras(&self) -> &[String] {
        &self.extras
    }

    /// How many columns the file has.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Whether the file has exactly today's columns.
    pub fn is_current(&self) -> bool {
        self.width == self.current.len()
    }

    /// Today's columns that the file lacks (written after its version), in order.
    pub fn missing(&self) -> &[String] {
        &self.current[self.width..]
    }

    /// The position of column `name` in the file, if the file has it. (Positions are the
    /// same in every version, since columns are only appended.)
    pub fn index(&self, name: &str) -> Option<usize> {
        self.current[..self.width].iter().position(|c| c == name)
    }

    /// Refuses a file that lacks a column the reader needs, naming the file and the
    /// columns.
    pub fn require(&self, path: &Path, needed: &[&str]) -> Result<()> {
        let lacking: Vec<&str> = needed.iter().copied().filter(|c| self.index(c).is_none()).collect();
        if !lacking.is_empty() {
            bail!(
                "{} was written by an older version of sweep and lacks the column(s) {} needed here",
                path.display(),
                lacking.join(", ")
            );
        }
        Ok(())
    }

    /// Appends an empty cell to `record` for every column the file lacks, so that it has
    /// today's columns.
    pub fn pad(&self, record: &mut csv::StringRecord) {
        for _ in self.width..self.current.len() {
            record.push_field("");
        }
    }

    /// As [`Columns::pad`], for a byte record.
    pub fn pad_bytes(&self, record: &mut csv::ByteRecord) {
        for _ in self.width..self.current.len() {
            record.push_field(b"");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: [&str; 4] = ["job_id", "regret", "train_ms", "eval_ms"];

    fn check(found: &[&str]) -> Result<Columns> {
        Columns::check(Path::new("dir/results.csv"), found.iter().copied(), &TODAY)
    }

    #[test]
    fn todays_header_and_its_prefixes_are_accepted() {
        let today = check(&TODAY).unwrap();
        assert!(today.is_current() && today.missing().is_empty());
        let older = check(&TODAY[..2]).unwrap();
        assert!(!older.is_current());
        assert_eq!(older.width(), 2);
        assert_eq!(older.missing(), ["train_ms", "eval_ms"]);
        assert_eq!((older.index("regret"), older.index("eval_ms"), older.index("game")), (Some(1), None, None));
        let mut rec = csv::StringRecord::from(vec!["a", "0.5"]);
        older.pad(&mut rec);
        assert_eq!(rec, csv::StringRecord::from(vec!["a", "0.5", "", ""]));
        assert!(older.require(Path::new("x.csv"), &["job_id", "regret"]).is_ok());
        let err = older.require(Path::new("x.csv"), &["regret", "train_ms"]).unwrap_err().to_string();
        assert!(err.contains("x.csv") && err.contains("lacks the column(s) train_ms"), "{err}");
    }

    #[test]
    fn a_header_that_is_not_a_prefix_is_refused_naming_the_file_and_the_first_difference() {
        let message = |found: &[&str]| check(found).unwrap_err().to_string();
        let renamed = message(&["job_id", "regrets", "train_ms"]);
        assert!(renamed.starts_with("dir/results.csv does not have the expected columns:"), "{renamed}");
        assert!(renamed.contains("column 2 is \"regrets\" where \"regret\" belongs"), "{renamed}");
        let reordered = message(&["regret", "job_id"]);
        assert!(reordered.contains("column 1 is \"regret\" where \"job_id\" belongs"), "{reordered}");
        let newer = message(&["job_id", "regret", "train_ms", "eval_ms", "game"]);
        assert!(newer.contains("column 5 (\"game\") is not one of this version's columns"), "{newer}");
        assert!(message(&[]).contains("it has no columns"));
    }

    #[test]
    fn program_parameter_columns_after_todays_are_read_with_the_row() {
        let today = ["job_id", "regret", "params"];
        let found = ["job_id", "regret", "params", "lr", "hidden"];
        let c = Columns::check(Path::new("r.csv"), found.iter().copied(), &today).unwrap();
        assert!(c.is_current());
        assert_eq!(c.extras(), ["lr", "hidden"]);
        assert_eq!(c.index("lr"), None, "an extra column is never taken for one of today's");
        let renamed = ["job_id", "regret", "params", "regret"];
        assert!(Columns::check(Path::new("r.csv"), renamed.iter().copied(), &today).is_err());
    }
}
