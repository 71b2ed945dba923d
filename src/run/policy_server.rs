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
//! evaluates each in one forward pass; the scorer checks that every move is legal.
//!
//! The protocol is checked both ways, and each breach fails the job (or `sweep score`)
//! with an error that names the batch (its number, from 1) and the board or the line:
//!
//! - **a batch answered late**: the timeout is per batch, from the moment it is sent to its
//!   last move (a program that answers a line now and then does not keep it going);
//! - **a line that is not a move** (after trimming, a number), or longer than
//!   [`pipe::LINE_CAP`] (4,096) bytes;
//! - **a line before a batch or past its count**: an answer belongs to the batch that
//!   asked for it. Before each batch, a line already written is an error (not the next
//!   batch's first answer); at the end, a line written after the last batch is too;
//! - **a program that stopped talking**: a write to a program that has exited, or its
//!   output closed before a batch's last move, is an error with its exit status (and the
//!   end of its standard error), never a signal: `sweep` blocks SIGPIPE while it writes
//!   ([`pipe::write_quietly`]).
//!
//! `sweep` reads the program's output into a queue of at most [`pipe::QUEUE_CAP`] (256)
//! lines, so a program that writes gigabytes costs `sweep` a megabyte at most (the program
//! waits on its full pipe). At the end, once every batch is answered, `sweep` closes the
//! program's input and gives it [`GRACE`] (5 s) to exit by itself (writing its own
//! statistics or files), reading what it still writes (a line is a surplus: an error);
//! then, and on every error at once, the program and every descendant are ended.
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

use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

use super::pipe::{self, Tail};
use crate::oracle::{Agent, Position};

/// How long the program has, once its input is closed at the end, to exit by itself
/// (writing its own statistics or files) before its fence ends it.
pub const GRACE: Duration = Duration::from_secs(5);

/// How long a message waits for the exit status of a program that stopped reading or
/// writing.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// How many lines of the program's standard error a message quotes.
const STDERR_LINES: usize = 5;

/// A running policy server.
pub struct PolicyServer {
    child: Child,
    /// Its standard input, until [`PolicyServer::finish`] closes it.
    input: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    /// Its standard error's tail, when `sweep` passes it through (`sweep score`).
    stderr: Option<Tail>,
    batch: usize,
    timeout: Duration,
    text: String,
    asked: usize,
    /// The batches sent so far (the next is number `batches + 1`).
    batches: usize,
    started: Instant,
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
    /// Starts `argv` (a program and its arguments, the program run as written) for `game`
    /// and `seat` (`x` or `o`), its standard error passed through (and its tail quoted by
    /// errors). The timeout is per batch.
    pub fn start(argv: &[String], game: &str, seat: &str, batch: usize, timeout: Duration) -> Result<Self, String> {
        let (program, args) = argv.split_first().ok_or("the policy command is empty")?;
        let mut command = Command::new(program);
        command.args(args).env("SWEEP_GAME", game).env("SWEEP_SEAT", seat);
        let mut command = crate::run::fence::wrap(command, None);
        command.stderr(Stdio::piped());
        let mut server = Self::spawn(command, batch, timeout, false)?;
        server.stderr = server.take_stderr().map(Tail::pass_through);
        Ok(server)
    }

    /// Starts `command` (as [`crate::run::fence::wrap`] gave it) as the server: its
    /// standard input and output become the protocol's, and it gets `SWEEP_PROTOCOL`
    /// (`positions/2` when it announces its `checkpoints`); the rest of its setting
    /// (arguments, environment, folder, standard error) is the caller's. `timeout` bounds
    /// each batch and each announcement.
    pub fn spawn(mut command: Command, batch: usize, timeout: Duration, checkpoints: bool) -> Result<Self, String> {
        let name = crate::run::fence::program(&command);
        let started = Instant::now();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .env("SWEEP_PROTOCOL", protocol(checkpoints))
            .spawn()
            .map_err(|e| format!("cannot start {name:?}: {e}"))?;
        let input = child.stdin.take().expect("piped");
        let lines = pipe::lines(child.stdout.take().expect("piped"));
        Ok(PolicyServer {
            child,
            input: Some(input),
            lines,
            stderr: None,
            batch: batch.max(1),
            timeout,
            text: String::new(),
            asked: 0,
            batches: 0,
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
                return Err(self.gone("the policy program closed its output before it announced its final policy"));
            }
        };
        parse_announcement(&line)
    }

    /// Tells a `positions/2` program that its checkpoint is done: it trains on.
    pub fn resume(&mut self) -> Result<(), String> {
        self.nothing_pending("sweep's `continue`")?;
        self.text.clear();
        self.text.push_str("continue\n");
        self.send("`continue` after its checkpoint")
    }

    /// An error unless the program has written nothing since its last batch was answered:
    /// a line now would be read as an answer to what comes `next`.
    fn nothing_pending(&mut self, next: &str) -> Result<(), String> {
        let read = match self.lines.try_recv() {
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => return Ok(()),
            Ok(read) => read,
        };
        let last = match self.batches {
            0 => String::new(),
            n => format!(" after batch {n} was answered in full,"),
        };
        Err(self.explain(match read {
            Ok(line) => format!(
                "the policy program wrote {}{last} before {next}: a line before a batch or past its count is a \
                 protocol error (an answer belongs to the batch that asks for it)",
                quoted(&line)
            ),
            Err(e) => format!("cannot read the policy program's output{last} before {next}: {e}"),
        }))
    }

    /// Writes `self.text` to the program; `what` names it for the error.
    fn send(&mut self, what: &str) -> Result<(), String> {
        let Some(input) = self.input.as_mut() else {
            return Err(format!("sweep closed the policy program's input before {what}"));
        };
        match pipe::write_quietly(input, self.text.as_bytes()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                Err(self.gone(&format!("the policy program stopped reading its input before {what}")))
            }
            Err(e) => Err(self.explain(format!("cannot write {what} to the policy program: {e}"))),
        }
    }

    /// `why` a program stopped talking, with its exit status (waited for [`EXIT_WAIT`] at
    /// most) and the end of its standard error.
    fn gone(&mut self, why: &str) -> String {
        let until = Instant::now() + EXIT_WAIT;
        let status = loop {
            match self.child.try_wait() {
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(2)),
                Ok(status) => break status,
                Err(_) => break None,
            }
        };
        use std::os::unix::process::ExitStatusExt;
        let how = match status {
            None => "it is still running".to_string(),
            Some(s) => match (s.code(), s.signal()) {
                (Some(code), _) => format!("it exited with status {code}"),
                (None, Some(signal)) => format!("it was killed by signal {signal}"),
                _ => "it ended".to_string(),
            },
        };
        self.explain(format!("{why}; {how}"))
    }

    /// `why`, with the end of the program's standard error when `sweep` passes it through
    /// (otherwise the caller keeps it, and adds it).
    fn explain(&self, why: String) -> String {
        match &self.stderr {
            Some(tail) => {
                // The tail's thread may still be reading what the program wrote last.
                thread::sleep(Duration::from_millis(50));
                tail.explain(why, STDERR_LINES)
            }
            None => why,
        }
    }

    /// One batch: the moves the program gives for `positions`, read as numbers, all within
    /// the timeout.
    fn ask(&mut self, positions: &[Position]) -> Result<Vec<u8>, String> {
        let number = self.batches + 1;
        self.nothing_pending(&format!("batch {number} was asked"))?;
        self.text.clear();
        self.text.push_str(&format!("positions {}\n", positions.len()));
        for p in positions {
            self.text.push_str(&p.board_text());
            self.text.push('\n');
        }
        let first = positions.first().map(|p| p.board_text()).unwrap_or_default();
        self.send(&format!("batch {number} (its first board {first})"))?;
        self.batches = number;
        self.asked += positions.len();
        let deadline = Instant::now() + self.timeout;
        let mut moves = Vec::with_capacity(positions.len());
        for p in positions {
            let line = self.answer(number, moves.len(), positions.len(), p, deadline)?;
            let m = line.trim().parse::<u8>().map_err(|_| {
                format!(
                    "the policy program answered {} for the board {} (batch {number}): not a move number",
                    quoted(line.trim()),
                    p.board_text()
                )
            })?;
            moves.push(m);
            self.first_answer.get_or_insert_with(|| self.started.elapsed());
        }
        Ok(moves)
    }

    /// The answer line for `p`, the answer `k` of the `n` of batch `number`, read before
    /// `deadline` (the batch's).
    fn answer(&mut self, number: usize, k: usize, n: usize, p: &Position, deadline: Instant) -> Result<String, String> {
        match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(e)) => Err(self.explain(format!(
                "cannot read the policy program's answer for {} (batch {number}): {e}",
                p.board_text()
            ))),
            Err(RecvTimeoutError::Timeout) => Err(self.explain(format!(
                "the policy program gave {k} of the {n} moves of batch {number} within {:.1} s (the timeout is per \
                 batch); no move for the board {}",
                self.timeout.as_secs_f64(),
                p.board_text()
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(self.gone(&format!(
                "the policy program closed its output after {k} of the {n} moves of batch {number}, before its move \
                 for the board {}",
                p.board_text()
            ))),
        }
    }
}

/// A line the program wrote, quoted for a message (its first 80 characters).
fn quoted(line: &str) -> String {
    format!("{:?}", line.chars().take(80).collect::<String>())
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

    /// The end of the protocol, once every batch is answered: closes the program's input
    /// and gives it [`GRACE`] to exit by itself, reading what it still writes. A line
    /// written then is a surplus answer, an error naming the last batch; a program still
    /// running after the grace is ended by the drop, as on any other path.
    fn finish(&mut self) -> Result<(), String> {
        drop(self.input.take());
        let until = Instant::now() + GRACE;
        let mut surplus = None;
        // Read until the end of its output (or the grace's), keeping the first line.
        while let Ok(read) = self.lines.recv_timeout(until.saturating_duration_since(Instant::now())) {
            surplus.get_or_insert(read);
        }
        while Instant::now() < until && matches!(self.child.try_wait(), Ok(None)) {
            thread::sleep(Duration::from_millis(2));
        }
        match surplus {
            None => Ok(()),
            Some(Err(e)) => Err(self.explain(format!(
                "cannot read the policy program's output after batch {}, its last: {e}",
                self.batches
            ))),
            Some(Ok(line)) => Err(self.explain(format!(
                "the policy program wrote {} after batch {}, its last, was answered in full: a line past a batch's \
                 count is a protocol error (an answer belongs to the batch that asks for it)",
                quoted(&line),
                self.batches
            ))),
        }
    }
}

impl Drop for PolicyServer {
    /// Ends the program (after [`Agent::finish`]'s grace, or at once on an error): its
    /// fence ends every descendant, then itself; a fence that has not ended within five
    /// seconds is killed with its group.
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        // A fence reaped here ended every descendant before it exited (and its process id
        // may be another process's by now).
        if crate::run::fence::enabled() && matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
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
