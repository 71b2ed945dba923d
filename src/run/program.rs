//! Running a command solver's program for one job, and scoring what it hands back.
//!
//! A program is untrusted: it may crash, hang, lie or ignore signals. Each job runs it
//! once, under its fence ([`super::fence`]: nothing it starts outlives the job), in a
//! private working folder (a random name, mode 0700, in the run's unlistable folder in the
//! system's temporary folder: never under the results folder, which the program is never
//! told), with its parameters
//! in argv (`{name}` placeholders, substituted in one pass, never through a shell) and in
//! the environment (`SWEEP_*`, see [`Env`]). Its standard input is `/dev/null`; its
//! standard output and error are read as they stream, and only their last [`LOG_CAP`]
//! bytes are kept, in memory. A watchdog thread ends the program when the job's
//! `timeout` passes or the run is asked to stop.
//!
//! Only what the program writes to `$SWEEP_POLICY` (and `$SWEEP_CHECKPOINTS`) is
//! believed, and it is read like a spec: a wrong board, an illegal move or a position
//! the policy needs and lacks makes a failed row that names the line or the board. Each
//! file it hands back must be a regular file (a symbolic link, a FIFO or a device is
//! refused by name before it is opened for reading) within its size limit
//! ([`policy_limit`], [`METRICS_CAP`]). Nothing the program prints is used;
//! `$SWEEP_METRICS` (JSON) is kept in the `metrics` column as it was written.
//!
//! `--threads N` bounds the programs at once: each takes `threads_per_job` of N slots
//! ([`Slots`]). The positions a policy may be asked about are listed once per (game,
//! seats) in a states file (`$SWEEP_STATES`, [`states_file`]), read-only. The working
//! folders and the states files are in a private folder of the process (`run_folder`),
//! removed at the end of the run (or by the next `sweep` after a SIGKILL).

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::StopToken;
use super::fence;
pub use super::hand_back::{Strict, handed_back, parse_policy, policy_limit};
use super::policy_server::PolicyServer;
use crate::game::{Game, Status};
use crate::kinds::{CommandPoint, Val};
use crate::mdp::{Policy, Seat};
use crate::solvers::TrainOpponent;

/// The most bytes of a failed job's standard output or error kept under `logs/`.
pub const LOG_CAP: u64 = 1 << 20;

/// The most bytes of `$SWEEP_METRICS` read: a JSON object of a few figures.
pub const METRICS_CAP: u64 = 64 << 10;

/// How long a fence may take to end its program's descendants after it is asked, before
/// its group is killed outright.
const FENCE_GRACE: Duration = Duration::from_secs(5);

/// How many lines of the program's standard error a failed row quotes.
const STDERR_LINES: usize = 5;

/// How often the watchdog looks at the running programs.
const WATCH: Duration = Duration::from_millis(10);

/// What ended a program that did not finish by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Killed {
    /// Its job's timeout passed.
    Timeout,
    /// The run was asked to stop (Ctrl-C, SIGTERM): the job is abandoned, not failed.
    Stopped,
}

/// One running program, as the watchdog sees it.
struct Running {
    deadline: Instant,
    stop: StopToken,
    killed: Option<Killed>,
    /// When the watchdog asked it to end.
    asked: Option<Instant>,
}

impl Running {
    fn new(timeout: Duration, stop: &StopToken) -> Running {
        Running { deadline: Instant::now() + timeout, stop: stop.clone(), killed: None, asked: None }
    }
}

/// The programs running in this process, by process group id.
static RUNNING: Mutex<Option<HashMap<i32, Running>>> = Mutex::new(None);

fn running() -> std::sync::MutexGuard<'static, Option<HashMap<i32, Running>>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Ends every program still running (the command line's second Ctrl-C, before it
/// exits): each fence ends its program's descendants (and would when `sweep` exits too).
pub fn kill_all() {
    if let Some(map) = running().as_mut() {
        for (&pgid, r) in map.iter_mut() {
            r.killed.get_or_insert(Killed::Stopped);
            fence::end(pgid);
        }
    }
}

/// Starts the watchdog thread once.
fn watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        std::thread::Builder::new()
            .name("sweep-watchdog".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(WATCH);
                    let now = Instant::now();
                    if let Some(map) = running().as_mut() {
                        for (&pgid, r) in map.iter_mut() {
                            if r.killed.is_some() {
                                // A fence that has not ended in its grace is killed with
                                // its group (it never should need to be).
                                if r.asked.is_some_and(|at| now >= at + FENCE_GRACE) {
                                    fence::kill_group(pgid);
                                    r.asked = None;
                                }
                                continue;
                            }
                            let why = if r.stop.is_stopped() {
                                Some(Killed::Stopped)
                            } else if now >= r.deadline {
                                Some(Killed::Timeout)
                            } else {
                                None
                            };
                            if let Some(why) = why {
                                r.killed = Some(why);
                                r.asked = Some(now);
                                fence::end(pgid);
                            }
                        }
                    }
                }
            })
            .expect("cannot start the watchdog thread");
    });
}

/// Slots of `--threads`: a program takes `threads_per_job` of them while it runs.
pub struct Slots {
    free: Mutex<u32>,
    freed: Condvar,
    total: u32,
}

impl Slots {
    /// `total` slots, all free.
    pub fn new(total: u32) -> Slots {
        Slots { free: Mutex::new(total), freed: Condvar::new(), total: total.max(1) }
    }

    /// Takes `n` slots (at most all of them), waiting until they are free; `None` when the
    /// run stopped while waiting.
    fn take(&self, n: u32, stop: &StopToken) -> Option<SlotGuard<'_>> {
        let n = n.clamp(1, self.total);
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free < n {
            if stop.is_stopped() {
                return None;
            }
            free = self.freed.wait_timeout(free, WATCH).unwrap_or_else(PoisonError::into_inner).0;
        }
        *free -= n;
        Some(SlotGuard { slots: self, n })
    }
}

struct SlotGuard<'a> {
    slots: &'a Slots,
    n: u32,
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        *self.slots.free.lock().unwrap_or_else(PoisonError::into_inner) += self.n;
        self.slots.freed.notify_all();
    }
}

/// What a job's run of its program gave.
#[derive(Debug)]
pub enum Ran {
    /// The program finished and wrote a policy: the policy and the FNV-1a hash of its
    /// file, the checkpoints found (by episode), its metrics (compact JSON), its wall
    /// time and the time reading what it wrote took.
    Done {
        policy: Policy,
        hash: u64,
        checkpoints: Vec<(u64, Policy)>,
        metrics: Option<String>,
        wall: Duration,
        read: Duration,
        logs: Logs,
    },
    /// It failed: why (with the last lines of its standard error).
    Failed(String),
    /// The run was stopped while it ran: the job is abandoned and runs again on resume.
    Abandoned,
}

/// The last [`LOG_CAP`] bytes of a program's standard output and error, kept until its
/// policy is scored: a policy that fails then keeps them under `logs/` too.
#[derive(Clone, Debug, Default)]
pub struct Logs {
    out: Vec<u8>,
    err: Vec<u8>,
}

impl Logs {
    /// Writes them to `results/logs/<job_id>.{out,err}`.
    pub fn keep(&self, results: &Path, job_id: &str) {
        let logs = results.join("logs");
        if fs::create_dir_all(&logs).is_ok() {
            let _ = fs::write(logs.join(format!("{job_id}.out")), &self.out);
            let _ = fs::write(logs.join(format!("{job_id}.err")), &self.err);
        }
    }

    /// `why`, followed by the last lines of the standard error when it has any.
    pub fn explain(&self, why: String) -> String {
        let start = self.err.len().saturating_sub(4096);
        let text = String::from_utf8_lossy(&self.err[start..]);
        let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
        if lines.is_empty() {
            return why;
        }
        let last = lines[lines.len().saturating_sub(STDERR_LINES)..].join(" | ");
        format!("{why}; its stderr ends: {last}")
    }
}

/// A program's standard output or error, read as it streams by a thread of its own that
/// keeps only the last [`LOG_CAP`] bytes: a program that writes gigabytes costs neither
/// memory nor disk.
struct Capture {
    tail: Arc<Mutex<Vec<u8>>>,
    ended: Receiver<()>,
}

impl Capture {
    fn start(mut stream: impl Read + Send + 'static) -> Capture {
        let tail = Arc::new(Mutex::new(Vec::new()));
        let (send, ended) = channel();
        let kept = Arc::clone(&tail);
        std::thread::spawn(move || {
            let mut buffer = vec![0u8; 64 << 10];
            while let Ok(n @ 1..) = stream.read(&mut buffer) {
                let mut tail = kept.lock().unwrap_or_else(PoisonError::into_inner);
                tail.extend_from_slice(&buffer[..n]);
                if tail.len() as u64 > 2 * LOG_CAP {
                    let cut = tail.len() - LOG_CAP as usize;
                    tail.drain(..cut);
                }
            }
            let _ = send.send(());
        });
        Capture { tail, ended }
    }

    /// The last [`LOG_CAP`] bytes so far.
    fn snapshot(&self) -> Vec<u8> {
        let tail = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        tail[tail.len().saturating_sub(LOG_CAP as usize)..].to_vec()
    }

    /// The last [`LOG_CAP`] bytes, once the stream has closed (the fence has ended every
    /// process that held it) or after a second at most.
    fn finish(self) -> Vec<u8> {
        let _ = self.ended.recv_timeout(Duration::from_secs(1));
        self.snapshot()
    }
}

/// Where a job's program runs and what it is told.
pub struct Env<'a> {
    /// The job id.
    pub job_id: &'a str,
    /// The job's seed.
    pub seed: u64,
    /// The episodes at which checkpoint policies are wanted (0: before training).
    pub checkpoints: &'a [u64],
    /// The results folder (the logs of failed jobs go under it; the program is never told
    /// where it is).
    pub results: &'a Path,
    /// The run's stop token.
    pub stop: &'a StopToken,
    /// The run's program slots.
    pub slots: &'a Slots,
    /// On a board too big to enumerate, `[evaluation] from`: the moves every evaluation
    /// starts from (`$SWEEP_FROM`, empty for the empty board).
    pub from: Option<&'a str>,
}

/// Runs the program of `point` for one job.
pub fn run(point: &CommandPoint, env: &Env<'_>) -> Ran {
    match run_inner(point, env) {
        Ok(ran) => ran,
        Err(message) => Ran::Failed(message),
    }
}

fn run_inner(point: &CommandPoint, env: &Env<'_>) -> Result<Ran, String> {
    let program = point.program;
    let seats = seats(point);
    let states = states_file(point.game(), &seats)?;
    let work = scratch_folder()?;
    let result = (|| {
        let Some(_slots) = env.slots.take(program.threads_per_job, env.stop) else { return Ok(Ran::Abandoned) };
        let started = Instant::now();
        let (status, killed, logs) = spawn_and_wait(point, env, &work, &states)?;
        let wall = started.elapsed();
        if killed == Some(Killed::Stopped) || (env.stop.is_stopped() && !status.success()) {
            return Ok(Ran::Abandoned);
        }
        let failure = match (killed, status.code(), status.signal()) {
            (Some(Killed::Timeout), _, _) => {
                Some(format!("timed out after {} s (the solver's timeout)", fmt_seconds(program.timeout)))
            }
            (_, Some(0), _) => None,
            (_, Some(code), _) => Some(format!("the program exited with status {code}")),
            (_, None, Some(signal)) => {
                Some(format!("the program was killed by signal {signal}{}", signal_name(signal)))
            }
            _ => Some("the program ended abnormally".to_string()),
        };
        let read = match failure {
            Some(why) => Err(why),
            None => read_outputs(point, env, &work, &seats, wall, &logs),
        };
        Ok(match read {
            Ok(ran) => ran,
            Err(why) => {
                logs.keep(env.results, env.job_id);
                Ran::Failed(logs.explain(why))
            }
        })
    })();
    let _ = fs::remove_dir_all(&work);
    result
}

/// The seats a job's policy plays: both in self-play, else its seat.
fn seats(point: &CommandPoint) -> Vec<Seat> {
    match point.opponent() {
        TrainOpponent::SelfPlay => vec![Seat::X, Seat::O],
        TrainOpponent::Fixed(_) => vec![point.seat()],
    }
}

/// A fresh, private folder in `parent`: `prefix` and a random name nobody can guess, made
/// by this call (never one that was there), mode 0700.
fn private_folder(parent: &Path, prefix: &str) -> Result<PathBuf, String> {
    let mut last = None;
    for _ in 0..16 {
        let dir = parent.join(format!("{prefix}{:016x}", random_u64()));
        match fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) => last = Some(e),
        }
    }
    let e = last.map(|e| e.to_string()).unwrap_or_default();
    Err(format!("cannot make a private folder in {}: {e}", parent.display()))
}

/// This process's private folder in the system's temporary folder,
/// `sweep-<pid>-<random>` (mode 0300: no one but root can list it), made when a program first needs it: the jobs'
/// working folders and the states files go in it, and it goes at the end of the run
/// ([`remove_scratch`]). Making it also removes the folders of `sweep` processes that
/// no longer run (killed before they could).
fn run_folder() -> Result<PathBuf, String> {
    let mut folder = RUN_FOLDER.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(dir) = folder.as_ref() {
        return Ok(dir.clone());
    }
    let temp = std::env::temp_dir();
    remove_stale(&temp);
    let dir = private_folder(&temp, &format!("sweep-{}-", std::process::id()))?;
    // Write and search, no read: a program can reach its own folder and the states files
    // by name, but cannot list the other jobs' folders (nor can anyone without root).
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o300))
        .map_err(|e| format!("cannot set the mode of {}: {e}", dir.display()))?;
    Ok(folder.insert(dir).clone())
}

/// The folder of [`run_folder`], once made.
static RUN_FOLDER: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Removes the run folders (`sweep-<pid>-<16 hex digits>`) in `temp` whose process no
/// longer runs.
fn remove_stale(temp: &Path) {
    let Ok(entries) = fs::read_dir(temp) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("sweep-")) else { continue };
        let Some((pid, random)) = rest.split_once('-') else { continue };
        let Ok(pid) = pid.parse::<i32>() else { continue };
        if random.len() != 16 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        // SAFETY: signal 0 sends nothing; ESRCH says no process has that id.
        let gone =
            unsafe { libc::kill(pid, 0) } == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            remove_run_folder(&entry.path());
        }
    }
}

/// Removes this process's private folder (`run_folder`), if it made one: the end of a
/// run.
pub fn remove_scratch() {
    if let Some(dir) = RUN_FOLDER.lock().unwrap_or_else(PoisonError::into_inner).take() {
        remove_run_folder(&dir);
    }
}

/// Removes a run folder (readable again first: it is made unlistable).
fn remove_run_folder(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    let _ = fs::remove_dir_all(dir);
}

/// 64 random bits from the system (`/dev/urandom`), for names nobody can guess.
fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    let read = fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        // Without the system's source, the clock's nanoseconds and the process id.
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let mixed = crate::seed::splitmix64(now.as_nanos() as u64 ^ (u64::from(std::process::id()) << 32));
        return mixed;
    }
    u64::from_le_bytes(bytes)
}

/// A fresh working folder for a job ([`private_folder`] in [`run_folder`]) with its
/// `checkpoints` folder.
fn scratch_folder() -> Result<PathBuf, String> {
    let dir = private_folder(&run_folder()?, "job-")?;
    fs::create_dir(dir.join("checkpoints"))
        .map_err(|e| format!("cannot make the job's working folder {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The command line of a job: placeholders filled in, arguments that name files in the
/// spec's folder made absolute as written (joined and normalised, never through their
/// symbolic links: a virtual environment's `bin/python` stays itself).
pub fn argv(point: &CommandPoint, job_id: &str, seed: u64) -> Vec<String> {
    let program = point.program;
    let values = placeholder_values(point, job_id, seed);
    program
        .command
        .iter()
        .map(|arg| {
            let names = crate::kinds::command::placeholders(arg);
            if names.is_empty() {
                let path = program.dir.join(arg);
                let relative = !Path::new(arg).is_absolute() && (arg.contains('/') || path.exists());
                if relative && path.exists() {
                    return crate::kinds::command::absolute(&path).display().to_string();
                }
                return arg.clone();
            }
            crate::kinds::command::substitute(arg, |name| {
                values.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone())
            })
        })
        .collect()
}

/// Every placeholder's value for a job.
fn placeholder_values(point: &CommandPoint, job_id: &str, seed: u64) -> Vec<(&'static str, String)> {
    let mut values = vec![
        ("seed", seed.to_string()),
        ("episodes", point.episodes().to_string()),
        ("game", point.game().to_string()),
        ("seat", seat_text(point)),
        ("opponent", point.opponent().name().to_string()),
        ("job_id", job_id.to_string()),
    ];
    values.extend(point.own().map(|(name, v)| (name, v.show())));
    values
}

/// The seat as the program is told it: `x`, `o`, or `both` in self-play.
fn seat_text(point: &CommandPoint) -> String {
    match point.opponent() {
        TrainOpponent::SelfPlay => "both".to_string(),
        TrainOpponent::Fixed(_) => point.seat().name().to_string(),
    }
}

/// The job's parameters as the JSON file `$SWEEP_PARAMS` holds.
fn params_json(point: &CommandPoint, env: &Env<'_>) -> serde_json::Value {
    let own: serde_json::Map<String, serde_json::Value> = point
        .own()
        .map(|(name, v)| {
            let value = match v {
                Val::Real(x) => serde_json::Value::from(x),
                Val::Count(n) => serde_json::Value::from(n),
                Val::Flag(b) => serde_json::Value::from(b),
                other => serde_json::Value::from(other.show()),
            };
            (name.to_string(), value)
        })
        .collect();
    serde_json::json!({
        "job_id": env.job_id,
        "seed": env.seed,
        "game": point.game().to_string(),
        "seat": seat_text(point),
        "opponent": point.opponent().name(),
        "episodes": point.episodes(),
        "checkpoints": env.checkpoints,
        "params": own,
    })
}

/// The program's command for one job, under its fence, every setting but its standard
/// streams: its arguments, its folder and its environment (`$SWEEP_STATES` only where
/// the board is enumerated).
fn prepare(point: &CommandPoint, env: &Env<'_>, work: &Path, states: Option<&Path>) -> Result<Command, String> {
    let program = point.program;
    let argv = argv(point, env.job_id, env.seed);
    let params = work.join("params.json");
    fs::write(&params, params_json(point, env).to_string())
        .map_err(|e| format!("cannot write {}: {e}", params.display()))?;
    let executable = crate::kinds::command::find_program(&argv[0], &program.dir)?;
    let mut command = Command::new(executable);
    command
        .args(&argv[1..])
        .current_dir(work)
        .env("SWEEP_SEED", env.seed.to_string())
        .env("SWEEP_GAME", point.game().to_string())
        .env("SWEEP_SEAT", seat_text(point))
        .env("SWEEP_OPPONENT", point.opponent().name())
        .env("SWEEP_EPISODES", point.episodes().to_string())
        .env("SWEEP_JOB_ID", env.job_id)
        .env("SWEEP_PARAMS", &params)
        .env("SWEEP_POLICY", work.join("policy.csv"))
        .env("SWEEP_CHECKPOINTS", work.join("checkpoints"))
        .env("SWEEP_CHECKPOINT_EPISODES", env.checkpoints.iter().map(u64::to_string).collect::<Vec<_>>().join(","))
        .env("SWEEP_METRICS", work.join("metrics.json"))
        .env("SWEEP_SPEC_DIR", spec_dir(&program.dir));
    if let Some(states) = states {
        command.env("SWEEP_STATES", states);
    } else {
        command.env("SWEEP_FROM", env.from.unwrap_or(""));
    }
    for (name, value) in point.own() {
        command.env(format!("SWEEP_PARAM_{}", name.to_ascii_uppercase()), value.show());
    }
    Ok(fence::wrap(command, Some(work)))
}

/// Starts the program under its fence and waits for it (the fence returns once every
/// descendant has ended); the watchdog ends it on timeout or stop. Returns its exit
/// status, why it was killed if it was, and the tails of its standard output and error.
fn spawn_and_wait(
    point: &CommandPoint,
    env: &Env<'_>,
    work: &Path,
    states: &Path,
) -> Result<(std::process::ExitStatus, Option<Killed>, Logs), String> {
    let program = point.program;
    let mut command = prepare(point, env, work, Some(states))?;
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    watchdog();
    // The lock is held from the spawn to the registration, so that the watchdog never
    // misses a program and a stop between the two still reaches it.
    let mut guard = running();
    let mut child = command.spawn().map_err(|e| format!("cannot start {:?}: {e}", program.command[0]))?;
    let pgid = child.id() as i32;
    guard.get_or_insert_with(HashMap::new).insert(pgid, Running::new(program.timeout, env.stop));
    drop(guard);
    let out = child.stdout.take().map(Capture::start);
    let err = child.stderr.take().map(Capture::start);
    let status = child.wait();
    let killed = running().as_mut().and_then(|map| map.remove(&pgid)).and_then(|r| r.killed);
    // Without a fence (a library caller), whatever the program left in its group goes.
    if !fence::enabled() {
        fence::kill_group(pgid);
    }
    let out = out.map(Capture::finish).unwrap_or_default();
    let logs = Logs { out, err: err.map(Capture::finish).unwrap_or_default() };
    let status = status.map_err(|e| format!("cannot wait for the program: {e}"))?;
    Ok((status, killed, logs))
}

/// A job's program running as a policy server (a board too big to enumerate): it trains
/// as it likes, then answers the positions the evaluation reaches over its standard
/// input and output ([`PolicyServer`]). It holds its slots and its working folder, and
/// the watchdog ends it at the job's timeout or a stop, like any program; dropping it
/// kills its group and removes the folder.
pub struct Serving<'a> {
    /// The server (the scorer's agent).
    pub server: PolicyServer,
    err: Capture,
    work: PathBuf,
    _slots: SlotGuard<'a>,
}

/// What ended a served program early, if anything did: `Some(Killed)` once the
/// watchdog killed it.
impl Serving<'_> {
    /// Why the watchdog killed the program, if it did.
    pub fn killed(&self) -> Option<Killed> {
        running().as_ref().and_then(|map| map.get(&self.server.pgid())).and_then(|r| r.killed)
    }

    /// The tail of its standard error so far (for a failed row's message and `logs/`;
    /// its standard output is the protocol's).
    pub fn logs(&self) -> Logs {
        Logs { out: Vec::new(), err: self.err.snapshot() }
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        // The server's own drop ends the program (its fence ends the descendants).
        running().as_mut().and_then(|map| map.remove(&self.server.pgid()));
        let _ = fs::remove_dir_all(&self.work);
    }
}

/// Starts the program of `point` as a policy server for one job (see [`Serving`]), or
/// `Ok(None)` when the run stopped while it waited for its slots.
pub fn serve<'a>(point: &CommandPoint, env: &Env<'a>, batch: usize) -> Result<Option<Serving<'a>>, String> {
    let program = point.program;
    let Some(slots) = env.slots.take(program.threads_per_job, env.stop) else { return Ok(None) };
    let work = scratch_folder()?;
    let started = (|| {
        let mut command = prepare(point, env, &work, None)?;
        command.stderr(Stdio::piped());
        watchdog();
        let mut guard = running();
        // A batch may wait longer than the job's timeout: the watchdog ends the program
        // at the timeout, and the job says so.
        let wait = program.timeout + Duration::from_secs(5);
        let mut server = PolicyServer::spawn(command, batch, wait, program.serve_checkpoints)?;
        guard.get_or_insert_with(HashMap::new).insert(server.pgid(), Running::new(program.timeout, env.stop));
        let err = server.take_stderr().map_or_else(|| Capture::start(std::io::empty()), Capture::start);
        Ok((server, err))
    })();
    match started {
        Ok((server, err)) => Ok(Some(Serving { server, err, work, _slots: slots })),

        Err(e) => {
            let _ = fs::remove_dir_all(&work);
            Err(e)
        }
    }
}

/// The spec's folder as an absolute path (a spec named by a bare file name has an empty
/// folder: the current one).
fn spec_dir(dir: &Path) -> PathBuf {
    let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    dir.canonicalize()
        .or_else(|_| std::env::current_dir().map(|cwd| cwd.join(dir)))
        .unwrap_or_else(|_| dir.to_path_buf())
}

/// Seconds, as short as they are exact to the millisecond.
fn fmt_seconds(d: Duration) -> String {
    crate::kinds::param::fmt_short((d.as_secs_f64() * 1e3).round() / 1e3)
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGINT => " (SIGINT)",
        _ => "",
    }
}

/// Reads the policy, the checkpoints and the metrics the program wrote.
fn read_outputs(
    point: &CommandPoint,
    env: &Env<'_>,
    work: &Path,
    seats: &[Seat],
    wall: Duration,
    logs: &Logs,
) -> Result<Ran, String> {
    let game = point.game();
    let started = Instant::now();
    let limit = policy_limit(game);
    let bytes = handed_back(&work.join("policy.csv"), limit, "$SWEEP_POLICY")?
        .ok_or("the program wrote no policy to $SWEEP_POLICY")?;
    let (policy, hash) = parse_policy(&bytes, game, seats).map_err(|e| format!("$SWEEP_POLICY: {e}"))?;
    let mut checkpoints = Vec::new();
    let folder = work.join("checkpoints");
    if !fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
        return Err("$SWEEP_CHECKPOINTS is no longer the folder sweep made: it was replaced".into());
    }
    for &episode in env.checkpoints {
        let what = format!("$SWEEP_CHECKPOINTS/{episode}.csv");
        if let Some(file) = handed_back(&folder.join(format!("{episode}.csv")), limit, &what)? {
            // The last checkpoint is often the final policy: read once.
            let p = match file == bytes {
                true => policy.clone(),
                false => parse_policy(&file, game, seats).map_err(|e| format!("{what}: {e}"))?.0,
            };
            checkpoints.push((episode, p));
        }
    }
    let metrics = match handed_back(&work.join("metrics.json"), METRICS_CAP, "$SWEEP_METRICS")? {
        None => None,
        Some(bytes) => match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(v @ serde_json::Value::Object(_)) => Some(v.to_string()),
            Ok(_) => return Err("$SWEEP_METRICS holds JSON that is not an object ({\"name\": number, ..})".into()),
            Err(e) => return Err(format!("$SWEEP_METRICS is not JSON: {e}")),
        },
    };
    let read = started.elapsed();
    Ok(Ran::Done { policy, hash, checkpoints, metrics, wall, read, logs: logs.clone() })
}

/// The states file of `game` for `seats`, written once per process (by the first job that
/// needs it, under a lock) in the process's private folder (`run_folder`), read-only,
/// never under the results folder: `board,moves`, every position where one of the seats
/// is to move that some play reaches, with its legal moves joined by `|`.
pub fn states_file(game: Game, seats: &[Seat]) -> Result<PathBuf, String> {
    static WRITING: Mutex<()> = Mutex::new(());
    let name: String = seats.iter().map(|s| s.name()).collect();
    let _writing = WRITING.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = run_folder()?.join("states");
    let path = dir.join(format!("{game}-{name}.csv"));
    if path.exists() {
        return Ok(path);
    }
    fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let text = states_text(game, seats);
    crate::report::files::write_text_atomic(&path, &text).map_err(|e| format!("{e:#}"))?;
    let _ = fs::set_permissions(&path, fs::Permissions::from_mode(0o400));
    Ok(path)
}

/// The text of a states file.
pub fn states_text(game: Game, seats: &[Seat]) -> String {
    let pos = game.positions();
    let mut text = String::from("board,moves\n");
    for id in 0..pos.len() {
        let b = pos.board(id);
        let seat = if b.to_move() == Seat::X.player() { Seat::X } else { Seat::O };
        if pos.status(id) != Status::Ongoing || !seats.contains(&seat) {
            continue;
        }
        let moves: Vec<String> = crate::game::cells(b.moves()).map(|c| game.move_text(c)).collect();
        text.push_str(&format!("{b},{}\n", moves.join("|")));
    }
    text
}
