//! A program that answers positions on demand: the policy-server line protocol.
//!
//! `sweep` starts the program once, under its fence ([`crate::run::fence`]: nothing it
//! starts outlives it), and talks to it over its standard input and output:
//!
//! ```text
//! sweep   -> program:  positions 3            a batch of 3 positions follows
//!                      .......\n...           each a board, one line: X, O or . per cell,
//!                      ...                    row by row from the top left
//! program -> sweep:    3                      one move per line, in order (gravity: the
//!                      4                      column from 0; m,n,k: the cell from 0)
//!                      2
//! ```
//!
//! The side to move follows from the count of stones (X moves first). The environment
//! carries `SWEEP_GAME` (such as `6x7g4`), `SWEEP_SEAT` (`x` or `o`) and
//! `SWEEP_PROTOCOL=positions/1`. Batches are at most `batch` positions, so a neural agent
//! evaluates each in one forward pass. A batch not answered within the timeout, a line
//! that is not a move, or a closed output is an error naming the board; the scorer checks
//! that every move is legal; an answer line is at most 4,096 bytes. The program and
//! every descendant are ended when the server is dropped.
//!
//! `positions/2` (a command solver's `serve_checkpoints = true`) adds learning curves: the
//! program speaks first, each time a policy is ready to answer, and `sweep` asks that
//! policy its batches:
//!
//! ```text
//! program -> sweep:    checkpoint 250         the policy after 250 episodes answers next
//!                                             (one of $SWEEP_CHECKPOINT_EPISODES, rising)
//! sweep   -> program:  positions 3 ...        batches, as in positions/1
//!                      continue               that checkpoint is done: train on
//! program -> sweep:    final                  training is over: the final policy answers
//! sweep   -> program:  positions 3 ...        batches; then sweep closes the input
//! ```
//!
//! A checkpoint may be skipped; once one was announced, the final policy counts as the
//! last one (the episodes trained) unless the program announced that one too. An announcement that is not one of
//! these lines, an episode not asked for or not after the last, or an output closed
//! before `final` fails the job.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::Duration;

use crate::oracle::{Agent, Position};

/// The longest answer line read (a move is a few digits).
const LINE_CAP: u64 = 4096;

/// A running policy server.
pub struct PolicyServer {
    child: Child,
    input: BufWriter<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    batch: usize,
    timeout: Duration,
    text: String,
    asked: usize,
    started: std::time::Instant,
    first_answer: Option<Duration>,
}

/// What a `positions/2` program announced: the policy that answers next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Announced {
    /// The policy after this many episodes.
    Checkpoint(u64),
    /// The final policy.
    Final,
}

/// The protocol's name in `SWEEP_PROTOCOL`: `positions/2` when the program announces its
/// checkpoints, else `positions/1`.
pub fn protocol(checkpoints: bool) -> &'static str {
    if checkpoints { "positions/2" } else { "positions/1" }
}

impl PolicyServer {
    /// Starts `argv` (a program and its arguments) for `game` and `seat` (`x` or `o`), its
    /// standard error passed through.
    pub fn start(argv: &[String], game: &str, seat: &str, batch: usize, timeout: Duration) -> Result<Self, String> {
        let (program, args) = argv.split_first().ok_or("the policy command is empty")?;
        let mut command = Command::new(program);
        command.args(args).env("SWEEP_GAME", game).env("SWEEP_SEAT", seat);
        let mut command = crate::run::fence::wrap(command, None);
        command.stderr(Stdio::inherit());
        Self::spawn(command, batch, timeout, false)
    }

    /// Starts `command` (as [`crate::run::fence::wrap`] gave it) as the server: its
    /// standard input and output become the protocol's, and it gets `SWEEP_PROTOCOL`
    /// (`positions/2` when it announces its `checkpoints`); the rest of its setting
    /// (arguments, environment, folder, standard error) is the caller's.
    pub fn spawn(mut command: Command, batch: usize, timeout: Duration, checkpoints: bool) -> Result<Self, String> {
        let name = crate::run::fence::program(&command);
        let started = std::time::Instant::now();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("SWEEP_PROTOCOL", protocol(checkpoints))
            .spawn()
            .map_err(|e| format!("cannot start {name:?}: {e}"))?;
        let input = BufWriter::new(child.stdin.take().expect("piped"));
        let mut output = BufReader::new(child.stdout.take().expect("piped"));
        let (send, lines) = channel();
        thread::spawn(move || {
            // An answer is a short line: a longer one ends the reading (memory stays
            // bounded whatever the program writes).
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
        Ok(PolicyServer {
            child,
            input,
            lines,
            batch: batch.max(1),
            timeout,
            text: String::new(),
            asked: 0,
            started,
            first_answer: None,
        })
    }

    /// The process group of the program (its process id: its fence's, when it has one).
    pub fn pgid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Its standard error, when the caller's command piped it, to be read by the caller.
    pub fn take_stderr(&mut self) -> Option<std::process::ChildStderr> {
        self.child.stderr.take()
    }

    /// The time from the program's start to its first answer: a program that trains
    /// before it serves spends it training (and starting).
    pub fn first_answer(&self) -> Option<Duration> {
        self.first_answer
    }

    /// The time since the program started.
    pub fn age(&self) -> Duration {
        self.started.elapsed()
    }

    /// How many positions the program was asked, all batches together.
    pub fn asked(&self) -> usize {
        self.asked
    }

    /// The next policy a `positions/2` program has ready: it may first train for as long
    /// as the timeout allows.
    pub fn announced(&mut self) -> Result<Announced, String> {
        let line = match self.lines.recv_timeout(self.timeout) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(format!("cannot read the policy program's announcement: {e}")),
            Err(RecvTimeoutError::Timeout) => {
                return Err(format!(
                    "the policy program announced no checkpoint and no final policy within {:.1} s",
                    self.timeout.as_secs_f64()
                ));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the policy program closed its output before it announced its final policy".into());
            }
        };
        parse_announcement(&line)
    }

    /// Tells a `positions/2` program that its checkpoint is done: it trains on.
    pub fn resume(&mut self) -> Result<(), String> {
        let sent = self.input.write_all(b"continue\n").and_then(|_| self.input.flush());
        sent.map_err(|e| format!("the policy program stopped reading its input ({e}) after a checkpoint"))
    }

    /// One batch: the moves the program gives for `positions`, read as numbers.
    fn ask(&mut self, positions: &[Position]) -> Result<Vec<u8>, String> {
        let first = positions.first().map(|p| p.board_text()).unwrap_or_default();
        self.text.clear();
        self.text.push_str(&format!("positions {}\n", positions.len()));
        for p in positions {
            self.text.push_str(&p.board_text());
            self.text.push('\n');
        }
        let sent = self.input.write_all(self.text.as_bytes()).and_then(|_| self.input.flush());
        sent.map_err(|e| format!("the policy program stopped reading its input ({e}) at the board {first}"))?;
        self.asked += positions.len();
        let mut moves = Vec::with_capacity(positions.len());
        for p in positions {
            let line = match self.lines.recv_timeout(self.timeout) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => {
                    return Err(format!("cannot read the policy program's answer for {}: {e}", p.board_text()));
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "the policy program gave no move for the board {} within {:.1} s",
                        p.board_text(),
                        self.timeout.as_secs_f64()
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the policy program closed its output before its move for the board {}",
                        p.board_text()
                    ));
                }
            };
            let m = line.trim().parse::<u8>().map_err(|_| {
                format!(
                    "the policy program answered {:?} for the board {}: not a move number",
                    line.trim(),
                    p.board_text()
                )
            })?;
            moves.push(m);
            self.first_answer.get_or_insert_with(|| self.started.elapsed());
        }
        Ok(moves)
    }
}

/// A `positions/2` announcement line: `checkpoint <episodes>` or `final`.
fn parse_announcement(line: &str) -> Result<Announced, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words[..] {
        ["final"] => Ok(Announced::Final),
        ["checkpoint", n] => n
            .parse()
            .map(Announced::Checkpoint)
            .map_err(|_| format!("the policy program announced checkpoint {n:?}: not a number of episodes")),
        _ => Err(format!(
            "the policy program wrote {:?} where it announces its next policy (positions/2: `checkpoint <episodes>` \
             or `final`)",
            line.chars().take(80).collect::<String>()
        )),
    }
}

impl Agent for PolicyServer {
    fn moves(&mut self, positions: &[Position]) -> Result<Vec<u8>, String> {
        let mut out = Vec::with_capacity(positions.len());
        for chunk in positions.chunks(self.batch) {
            out.extend(self.ask(chunk)?);
        }
        Ok(out)
    }
}

impl Drop for PolicyServer {
    /// Ends the program: its fence ends every descendant, then itself; a fence that has
    /// not ended within five seconds is killed with its group.
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        crate::run::fence::end(pid);
        let waited = std::time::Instant::now();
        while matches!(self.child.try_wait(), Ok(None)) {
            if waited.elapsed() > Duration::from_secs(5) {
                crate::run::fence::kill_group(pid);
                let _ = self.child.wait();
                return;
            }
            thread::sleep(Duration::from_millis(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announcement_is_a_checkpoint_with_its_episodes_or_final_and_nothing_else() {
        assert_eq!(parse_announcement("checkpoint 250"), Ok(Announced::Checkpoint(250)));
        assert_eq!(parse_announcement("  final \r"), Ok(Announced::Final));
        assert!(parse_announcement("checkpoint -1").unwrap_err().contains("not a number of episodes"));
        // A move where an announcement belongs: a positions/1 answer.
        let e = parse_announcement("3").unwrap_err();
        assert!(e.contains("\"3\"") && e.contains("`checkpoint <episodes>`"), "{e}");
        assert_eq!(protocol(true), "positions/2");
        assert_eq!(protocol(false), "positions/1");
    }
}
