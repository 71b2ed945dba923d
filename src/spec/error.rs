//! What is wrong with a spec: every [`Problem`] found, each naming the file, line, key and
//! value and saying what would be accepted.
//!
//! A problem prints as one paragraph (one line):
//!
//! ```text
//! experiments/x.toml:12: solver[1].alpha = 1.5 is out of range: alpha must be in (0, 1] (a step size).
//! ```
//!
//! The message is the predicate of that sentence: it completes `key = value`, or `key`
//! when there is no value, or stands alone when there is no key.

use std::fmt;
use std::ops::Range;

use super::MAX_JOBS;
use super::tree::{Entry, Leaf, Lines, Node};

/// One thing wrong with a spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The spec file as given.
    pub file: String,
    /// The 1-based line, when the problem has a place in the file.
    pub line: Option<usize>,
    /// The dotted key, e.g. `solver[2].alpha` (solvers count from 1, in file order).
    pub key: Option<String>,
    /// The value as written in the spec (shortened when long).
    pub value: Option<String>,
    /// What is wrong and what would be accepted.
    pub message: String,
}

/// A spec that cannot be used, with every problem found in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The problems, in file order.
    pub problems: Vec<Problem>,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: ", self.file)?,
            None => write!(f, "{}: ", self.file)?,
        }
        match (&self.key, &self.value) {
            (Some(key), Some(value)) => write!(f, "{key} = {value} ")?,
            (Some(key), None) => write!(f, "{key} ")?,
            (None, _) => {}
        }
        f.write_str(&self.message)?;
        if !self.message.ends_with(['.', '?', '!']) {
            f.write_str(".")?;
        }
        Ok(())
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecError {}

impl SpecError {
    /// A spec error with a single problem that has no place in the file.
    pub(crate) fn whole_file(file: &str, message: String) -> SpecError {
        SpecError { problems: vec![Problem { file: file.to_string(), line: None, key: None, value: None, message }] }
    }
}

/// Collects the problems of one spec as they are found.
pub(crate) struct Report<'a> {
    file: &'a str,
    lines: Lines<'a>,
    problems: Vec<Problem>,
    /// How many more values `linspace` and `logspace` may generate in this spec: a bound
    /// on memory before the grid sizes are checked.
    values_left: u64,
    /// What the spec should be told about how it was read (not problems).
    notes: Vec<String>,
    /// Whether `[search]` proposes the points of sampled axes (`method = "tpe"`): then
    /// solvers give no `samples` (the search's `trials` replaces it).
    pub proposed: bool,
}

impl<'a> Report<'a> {
    /// An empty report on `text`, read from `file`.
    pub fn new(file: &'a str, text: &'a str) -> Report<'a> {
        Report {
            file,
            lines: Lines::new(text),
            problems: Vec::new(),
            values_left: 2 * MAX_JOBS,
            notes: Vec::new(),
            proposed: false,
        }
    }

    /// The spec file as given (saved policies are read relative to its folder).
    pub fn spec_file(&self) -> &'a str {
        self.file
    }

    /// Claims `n` generated axis values; false when the spec's allowance is spent.
    pub fn claim_values(&mut self, n: u64) -> bool {
        let ok = n <= self.values_left;
        self.values_left = self.values_left.saturating_sub(n);
        ok
    }

    /// Records a note: how a valid value was read (e.g. rounded), for `sweep plan`.
    pub fn note(&mut self, message: String) {
        self.notes.push(message);
    }

    /// The notes recorded so far, leaving none.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// A node's source text as messages show it.
    pub fn shown(&self, node: &Node) -> String {
        self.lines.shown(node)
    }

    /// Records a problem at `span` (its first line).
    pub fn at(&mut self, span: Option<&Range<usize>>, key: Option<&str>, value: Option<String>, message: String) {
        self.problems.push(Problem {
            file: self.file.to_string(),
            line: span.map(|s| self.lines.line(s.start)),
            key: key.map(str::to_string),
            value,
            message,
        });
    }

    /// Records a problem with a value: `key = value message`, on the value's line.
    pub fn value(&mut self, key: &str, node: &Node, message: String) {
        let shown = self.lines.shown(node);
        self.at(node.span.as_ref(), Some(key), Some(shown), message);
    }

    /// Records a problem with a whole entry (`key = value message`), on the key's line.
    pub fn entry(&mut self, key: &str, entry: &Entry, message: String) {
        let shown = self.lines.shown(&entry.node);
        let span = entry.key_span.as_ref().or(entry.node.span.as_ref());
        self.at(span, Some(key), Some(shown), message);
    }

    /// Records a problem with the whole file.
    pub fn file(&mut self, key: Option<&str>, message: String) {
        self.at(None, key, None, message);
    }

    /// The 1-based line and column of a byte offset.
    pub fn position(&self, offset: usize) -> (usize, usize) {
        (self.lines.line(offset), self.lines.column(offset))
    }

    /// Whether any problem was recorded.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// The problems in file order (those without a line last), or `Ok` if there are none.
    pub fn finish(mut self) -> Result<(), SpecError> {
        if self.problems.is_empty() {
            return Ok(());
        }
        self.problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
        Err(SpecError { problems: self.problems })
    }
}

/// The closest of `known` to `word`, if it is close enough to be a likely typo.
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let length = word.chars().count();
    let limit = (length / 3).max(1);
    known
        .into_iter()
        .map(|k| (edit_distance(word, k), k))
        .filter(|&(d, _)| d <= limit && d < length)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// Edit distance over characters, counting an insertion, a deletion, a substitution or a
/// swap of two neighbours as one edit (optimal string alignment).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the dynamic programme: two back, one back, current.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut one_back: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (one_back[j] + 1).min(current[j - 1] + 1).min(one_back[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two_back[j - 2] + 1);
            }
            current[j] = d;
        }
        std::mem::swap(&mut two_back, &mut one_back);
        std::mem::swap(&mut one_back, &mut current);
    }
    one_back[b.len()]
}

/// `"a", "b", "c"`: names quoted and comma separated.
pub(crate) fn quoted_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    names.into_iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
}

/// The string of table entry `e` (reported as `key`) if it is one of `allowed`; else reports
/// what the key takes.
pub(crate) fn one_of(report: &mut Report, key: &str, e: &Entry, allowed: &[&str]) -> Option<String> {
    match &e.node.value {
        Leaf::Str(s) if allowed.contains(&s.as_str()) => Some(s.clone()),
        _ => {
            let message = format!("is not allowed: {} takes one of {}", e.key, quoted_list(allowed.iter().copied()));
            report.entry(key, e, message);
            None
        }
    }
}

/// A whole number in `lo..=hi`; `rule` says so in words.
pub(crate) fn whole(report: &mut Report, key: &str, entry: &Entry, lo: u64, hi: u64, rule: &str) -> Option<u64> {
    match entry.node.value {
        Leaf::Int(i) if i >= 0 && (lo..=hi).contains(&(i as u64)) => Some(i as u64),
        Leaf::Int(_) => {
            report.entry(key, entry, format!("is out of range: {rule}"));
            None
        }
        ref other => {
            let mut message = format!("has the wrong type ({}): {rule}", other.type_name());
            if matches!(other, Leaf::Array(_) | Leaf::Table(_)) {
                message.push_str("; only solver parameters can be grid axes");
            }
            report.entry(key, entry, message);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_suggestion() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("alpha", "alpha"), 0);
        assert_eq!(edit_distance("alpah", "alpha"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
        assert_eq!(closest("z", ["x", "o"]), None);
        assert_eq!(closest("alpah", ["gamma", "alpha", "alpha_min"]), Some("alpha"));
        assert_eq!(closest("zzzzzz", ["gamma", "alpha"]), None);
    }

    #[test]
    fn display_forms() {
        let p = Problem {
            file: "x.toml".into(),
            line: Some(12),
            key: Some("solver[1].alpha".into()),
            value: Some("1.5".into()),
            message: "is out of range: alpha must be in (0, 1] (a step size)".into(),
        };
        assert_eq!(
            p.to_string(),
            "x.toml:12: solver[1].alpha = 1.5 is out of range: alpha must be in (0, 1] (a step size)."
        );
        let q = Problem { line: None, key: None, value: None, message: "has no [[solver]] table.".into(), ..p.clone() };
        assert_eq!(q.to_string(), "x.toml: has no [[solver]] table.");
        let e = SpecError { problems: vec![p, q] };
        assert_eq!(e.to_string().lines().count(), 2);
    }
}
