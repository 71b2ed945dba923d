//! The pipes between `sweep` and a program it talks to, made safe against the program.
//!
//! - [`write_quietly`]: a write to a program that has exited (its input's reading end
//!   closed) is an error (`BrokenPipe`), never a signal. `sweep` restores SIGPIPE's
//!   default (so `sweep summary | head` ends quietly), which would kill it on such a write;
//!   the writing thread blocks SIGPIPE around the write and takes a pending one back
//!   before it unblocks it, so nothing else in the process is affected.
//! - [`lines`]: the program's output read line by line on a thread of its own, into a
//!   queue of at most [`QUEUE_CAP`] lines of at most [`LINE_CAP`] bytes: what the program
//!   writes costs `sweep` at most about a megabyte, however much it writes (past the cap
//!   the thread stops reading and the program waits on its full pipe).
//! - [`Tail`]: a program's standard error passed through to `sweep`'s own, its last
//!   [`TAIL_CAP`] bytes kept for messages.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

/// The longest line read from a program (an answer is a few digits): a longer one is an
/// error and ends the reading.
pub const LINE_CAP: u64 = 4096;

/// The most lines read ahead of `sweep`, waiting in the queue: a batch's answers are
/// taken as they come, so this bounds only a program that writes what nobody asked for
/// (256 lines of at most [`LINE_CAP`] bytes: 1 MiB).
pub const QUEUE_CAP: usize = 256;

/// The bytes of a program's standard error kept for messages.
pub const TAIL_CAP: usize = 4096;

/// Writes `bytes` to `out` and flushes it; a reader that has gone is the error
/// `BrokenPipe`, and no SIGPIPE reaches the process.
pub fn write_quietly(out: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: sigemptyset initialises the sets before they are read; pthread_sigmask
    // and sigtimedwait act on this thread's mask and its own pending signals only.
    unsafe {
        let mut pipe = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        let mut old = std::mem::zeroed::<libc::sigset_t>();
        libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old);
        let written = out.write_all(bytes).and_then(|_| out.flush());
        if written.as_ref().is_err_and(|e| e.kind() == ErrorKind::BrokenPipe) {
            // The failed write raised SIGPIPE on this thread, where it is blocked and
            // pending: take it, without waiting, before the mask comes back.
            let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            while libc::sigtimedwait(&pipe, std::ptr::null_mut(), &zero) == libc::SIGPIPE {}
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        written
    }
}

/// The lines `output` gives, without their line ends, read by a thread of its own into a
/// queue of [`QUEUE_CAP`] lines; the queue closes at the end of the output, after a read
/// error, or after a line longer than [`LINE_CAP`] (both sent as errors).
pub fn lines(output: impl Read + Send + 'static) -> Receiver<std::io::Result<String>> {
    let (send, lines) = sync_channel(QUEUE_CAP);
    std::thread::spawn(move || {
        let mut output = BufReader::new(output);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = (&mut output).take(LINE_CAP).read_until(b'\n', &mut line);
            let sent = match read {
                Ok(0) => return,
                Ok(n) if n as u64 == LINE_CAP && !line.ends_with(b"\n") => {
                    let _ = send.send(Err(std::io::Error::other(format!("a line longer than {LINE_CAP} bytes"))));
                    return;
                }
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line);
                    send.send(Ok(text.trim_end_matches(['\n', '\r']).to_string()))
                }
                Err(e) => {
                    let _ = send.send(Err(e));
                    return;
                }
            };
            if sent.is_err() {
                return;
            }
        }
    });
    lines
}

/// A program's standard error, passed through to `sweep`'s as it streams, its last
/// [`TAIL_CAP`] bytes kept.
#[derive(Clone, Default)]
pub struct Tail {
    kept: Arc<Mutex<Vec<u8>>>,
}

impl Tail {
    /// Starts passing `stream` through on a thread of its own.
    pub fn pass_through(mut stream: impl Read + Send + 'static) -> Tail {
        let tail = Tail::default();
        let kept = Arc::clone(&tail.kept);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stream.read(&mut buffer) {
                let _ = write_quietly(&mut std::io::stderr(), &buffer[..n]);
                let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                kept.extend_from_slice(&buffer[..n]);
                let cut = kept.len().saturating_sub(TAIL_CAP);
                kept.drain(..cut);
            }
        });
        tail
    }

    /// `why`, followed by the last `lines` non-empty lines kept, when there are any.
    pub fn explain(&self, why: String, lines: usize) -> String {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let text = String::from_utf8_lossy(&kept);
        let all: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
        if all.is_empty() {
            return why;
        }
        format!("{why}; its stderr ends: {}", all[all.len().saturating_sub(lines)..].join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_to_a_reader_that_has_gone_is_broken_pipe_and_no_signal() {
        let mut child =
            std::process::Command::new("true").stdin(std::process::Stdio::piped()).spawn().expect("true starts");
        let mut input = child.stdin.take().unwrap();
        child.wait().unwrap();
        // The pipe's buffer is 64 KiB: a larger write meets the closed end for sure.
        let e = write_quietly(&mut input, &vec![b'.'; 1 << 20]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::BrokenPipe);
        // SAFETY: reading this thread's pending set into a local.
        let pending = unsafe {
            let mut set = std::mem::zeroed::<libc::sigset_t>();
            libc::sigpending(&mut set);
            libc::sigismember(&set, libc::SIGPIPE)
        };
        assert_eq!(pending, 0, "no SIGPIPE left pending");
    }

    #[test]
    fn lines_are_capped_and_queued_in_order() {
        let text = b"3\r\n4\n".to_vec();
        let got: Vec<String> = lines(std::io::Cursor::new(text)).iter().map(Result::unwrap).collect();
        assert_eq!(got, ["3", "4"]);
        let long = vec![b'1'; LINE_CAP as usize + 10];
        let got: Vec<_> = lines(std::io::Cursor::new(long)).iter().collect();
        assert!(got.len() == 1 && got[0].as_ref().unwrap_err().to_string().contains("longer than"));
    }
}
