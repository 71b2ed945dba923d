//! Lines of untrusted text read with a cap: `solve --serve`'s standard input and a `solve
//! --positions` file. A line longer than [`MAX_LINE`] bytes is skipped to its end without
//! being kept, and a line that is not UTF-8 is named as such, so memory stays bounded
//! whatever the input, and every bad line is named by its number with at most its start
//! ([`crate::error::excerpt`]).

use std::io::BufRead;

use crate::error::excerpt;

/// The longest line read, in bytes (without its end): far more than any board or move
/// list (a board of at most 63 cells, a move list of at most 63 moves) with a comment.
pub const MAX_LINE: usize = 4096;

/// Lines read one at a time from `reader`, numbered from 1, named `name` in messages.
pub struct Lines<R> {
    reader: R,
    name: String,
    number: usize,
    buf: Vec<u8>,
    /// Whether a line past the cap is read to its end (to go on with the next line).
    skip_long: bool,
}

/// One line: its number, and its text or why it is not a line of text.
pub struct Line {
    pub number: usize,
    pub text: Result<String, String>,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `reader`, which messages call `name` (`positions.txt`, `standard input`).
    pub fn new(reader: R, name: impl Into<String>) -> Lines<R> {
        Lines { reader, name: name.into(), number: 0, buf: Vec::with_capacity(MAX_LINE + 1), skip_long: true }
    }

    /// Lines for a reader that stops at the first bad line: a line past the cap is not
    /// read to its end (which an endless input never reaches), so its length is not told.
    pub fn stopping_at_a_long_line(self) -> Lines<R> {
        Lines { skip_long: false, ..self }
    }

    /// Where line `number` is, for messages: `positions.txt:12`.
    pub fn at(&self, number: usize) -> String {
        format!("{}:{number}", self.name)
    }

    /// The number of the last line read (0 before the first).
    pub fn number(&self) -> usize {
        self.number
    }

    /// The next line without its end (`\n` or `\r\n`), or none at the end of the input.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        self.buf.clear();
        let mut capped = std::io::Read::take(&mut self.reader, MAX_LINE as u64 + 1);
        let read = capped.read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        let number = self.number;
        let ended = self.buf.last() == Some(&b'\n');
        if !ended && self.buf.len() > MAX_LINE {
            let start = excerpt(&self.buf[..32]);
            let why = if self.skip_long {
                let length = self.buf.len() as u64 + self.skip_line()?;
                format!("a line of {length} bytes, longer than the {MAX_LINE} a line may hold (it starts {start})")
            } else {
                format!("a line longer than the {MAX_LINE} bytes a line may hold (it starts {start})")
            };
            return Ok(Some(Line { number, text: Err(why) }));
        }
        if ended {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        let text = match std::str::from_utf8(&self.buf) {
            Ok(t) => Ok(t.to_string()),
            Err(e) => {
                Err(format!("not UTF-8 text (binary input?) from byte {}: {}", e.valid_up_to() + 1, excerpt(&self.buf)))
            }
        };
        Ok(Some(Line { number, text }))
    }

    /// Reads to the end of the current line without keeping it; the bytes skipped.
    fn skip_line(&mut self) -> std::io::Result<u64> {
        let mut skipped = 0u64;
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(skipped);
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.reader.consume(i + 1);
                    return Ok(skipped + i as u64);
                }
                None => {
                    let n = chunk.len();
                    self.reader.consume(n);
                    skipped += n as u64;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<(usize, Result<String, String>)> {
        let mut lines = Lines::new(input, "in");
        let mut out = Vec::new();
        while let Some(l) = lines.next_line().unwrap() {
            out.push((l.number, l.text));
        }
        out
    }

    #[test]
    fn lines_are_numbered_and_a_long_or_binary_one_is_named_not_kept() {
        let mut input = b"a\r\nb\n".to_vec();
        input.extend(vec![b'x'; 3 * MAX_LINE]);
        input.extend(b"\n\xff\xfe\nlast");
        let got = all(&input);
        assert_eq!(got[0], (1, Ok("a".to_string())));
        assert_eq!(got[1], (2, Ok("b".to_string())));
        let long = got[2].1.as_ref().unwrap_err();
        assert!(long.starts_with(&format!("a line of {} bytes, longer than the 4096", 3 * MAX_LINE)), "{long}");
        assert!(long.ends_with(&format!("(it starts {:?})", "x".repeat(32))), "{long}");
        assert!(got[3].1.as_ref().unwrap_err().starts_with("not UTF-8 text (binary input?) from byte 1: "));
        assert_eq!(got[4], (5, Ok("last".to_string())));
        assert_eq!(got.len(), 5);
        // A line of exactly the cap is read whole.
        let mut exact = vec![b'y'; MAX_LINE];
        exact.push(b'\n');
        assert_eq!(all(&exact), [(1, Ok("y".repeat(MAX_LINE)))]);
        // Stopping at a long line: not read to its end, so an endless one is told at once.
        let endless = std::io::repeat(b'z');
        let mut lines = Lines::new(std::io::BufReader::new(endless), "in").stopping_at_a_long_line();
        let why = lines.next_line().unwrap().unwrap().text.unwrap_err();
        assert!(why.starts_with("a line longer than the 4096 bytes a line may hold"), "{why}");
    }
}
