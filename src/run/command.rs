//! Running a command solver's program for one job, and scoring what it hands back.
//!
//! A program is untrusted: it may crash, hang, lie or ignore signals. Each job runs it
//! once, in a fresh working folder, in a process group of its own, with its parameters in
//! argv (`{name}` placeholders) and in the environment (`SWEEP_*`, see [`Env`]). Its
//! standard output and error go to files in that folder. A watchdog thread kills the
//! group (SIGKILL) when the job's `timeout` passes or the run is asked to stop; the
//! group is killed again when the program ends, so that nothing it started outlives its
//! job. Only what the program writes to `$SWEEP_POLICY` (and `$SWEEP_CHECKPOINTS`) is
//! believed, and it is read like a spec: a wrong board, an illegal move or a position
//! the policy needs and lacks makes a failed row that names the line or the board.
//! Nothing the program prints is used; `$SWEEP_METRICS` (JSON) is kept in the `metrics`
//! column as it was written.
//!
//! `--threads N` bounds the programs at once: each takes `threads_per_job` of N slots
//! ([`Slots`]). The positions a policy may be asked about are listed once per (game,
//! seats) in a states file (`$SWEEP_STATES`) under the results folder.

use std::collections::HashMap;
use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use super::StopToken;
use super::policy_server::PolicyServer;
use crate::game::{Board, Game, Status};
use crate::kinds::{CommandPoint, Val};
use crate::mdp::{Moves, Policy, Seat};
use crate::solvers::TrainOpponent;

/// The most bytes of a failed job's standard output or error kept under `logs/`.
pub const LOG_CAP: u64 = 1 << 20;

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
}

/// The programs running in this process, by process group id.
static RUNNING: Mutex<Option<HashMap<i32, Running>>> = Mutex::new(None);

fn running() -> std::sync::MutexGuard<'static, Option<HashMap<i32, Running>>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Kills a process group.
fn kill_group(pgid: i32) {
    // SAFETY: killpg only sends a signal; a group that no longer exists gives ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Kills every program still running (the command line's second Ctrl-C, before it
/// exits).
pub fn kill_all() {
    if let Some(map) = running().as_mut() {
        for (&pgid, r) in map.iter_mut() {
            r.killed.get_or_insert(Killed::Stopped);
            kill_group(pgid);
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
                        for (&pgid, r) in map.iter_mut().filter(|(_, r)| r.killed.is_none()) {
                            let why = if r.stop.is_stopped() {
                                Some(Killed::Stopped)
                            } else if now >= r.deadline {
                                Some(Killed::Timeout)
                            } else {
                                None
                            };
                            if let Some(why) = why {
                                r.killed = Some(why);
                                kill_group(pgid);
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
    fn read(work: &Path) -> Logs {
        let read = |name: &str| tail(&work.join(name), LOG_CAP).unwrap_or_default();
        Logs { out: read("stdout.txt"), err: read("stderr.txt") }
    }

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

/// Where a job's program runs and what it is told.
pub struct Env<'a> {
    /// The job id.
    pub job_id: &'a str,
    /// The job's seed.
    pub seed: u64,
    /// The episodes at which checkpoint policies are wanted (0: before training).
    pub checkpoints: &'a [u64],
    /// The results folder (states files and the logs of failed jobs go under it).
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
    let states = states_file(env.results, point.game(), &seats)?;
    let work = scratch_folder(env.job_id)?;
    let result = (|| {
        let Some(_slots) = env.slots.take(program.threads_per_job, env.stop) else { return Ok(Ran::Abandoned) };
        let started = Instant::now();
        let (status, killed) = spawn_and_wait(point, env, &work, &states)?;
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
        let logs = Logs::read(&work);
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

/// A fresh, empty working folder for the job, in the system's temporary folder.
fn scratch_folder(job_id: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("sweep-{}-{job_id}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("checkpoints"))
        .map_err(|e| format!("cannot make the job's working folder {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The command line of a job: placeholders filled in, arguments that name files in the
/// spec's folder made absolute.
pub fn argv(point: &CommandPoint, job_id: &str, seed: u64) -> Vec<String> {
    let program = point.program;
    let values = placeholder_values(point, job_id, seed);
    program
        .command
        .iter()
        .map(|arg| {
            let names = crate::spec::command::placeholders(arg);
            if names.is_empty() {
                let path = program.dir.join(arg);
                let relative = !Path::new(arg).is_absolute() && (arg.contains('/') || path.exists());
                if relative && path.exists() {
                    return path.canonicalize().unwrap_or(path).display().to_string();
                }
                return arg.clone();
            }
            crate::spec::command::substitute(arg, |name| {
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

/// The program's command for one job, every setting but its standard streams: its
/// arguments, its folder and its environment (`$SWEEP_STATES` only where the board is
/// enumerated).
fn prepare(point: &CommandPoint, env: &Env<'_>, work: &Path, states: Option<&Path>) -> Result<Command, String> {
    let program = point.program;
    let argv = argv(point, env.job_id, env.seed);
    let params = work.join("params.json");
    fs::write(&params, params_json(point, env).to_string())
        .map_err(|e| format!("cannot write {}: {e}", params.display()))?;
    let executable = crate::spec::command::find_program(&argv[0], &program.dir)?;
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
    Ok(command)
}

/// Starts the program in its own process group and waits for it; the watchdog kills it
/// on timeout or stop. Returns its exit status and why it was killed, if it was.
fn spawn_and_wait(
    point: &CommandPoint,
    env: &Env<'_>,
    work: &Path,
    states: &Path,
) -> Result<(std::process::ExitStatus, Option<Killed>), String> {
    let program = point.program;
    let open = |name: &str| fs::File::create(work.join(name)).map_err(|e| format!("cannot create {name}: {e}"));
    let mut command = prepare(point, env, work, Some(states))?;
    command.stdin(Stdio::null()).stdout(open("stdout.txt")?).stderr(open("stderr.txt")?).process_group(0);
    watchdog();
    // The lock is held from the spawn to the registration, so that the watchdog never
    // misses a program and a stop between the two still reaches it.
    let mut guard = running();
    let mut child =
        command.spawn().map_err(|e| format!("cannot start {:?}: {e}", command.get_program().to_string_lossy()))?;
    let pgid = child.id() as i32;
    let entry = Running { deadline: Instant::now() + program.timeout, stop: env.stop.clone(), killed: None };
    guard.get_or_insert_with(HashMap::new).insert(pgid, entry);
    drop(guard);
    let status = child.wait();
    let killed = running().as_mut().and_then(|map| map.remove(&pgid)).and_then(|r| r.killed);
    // Whatever the program started in its group goes with it.
    kill_group(pgid);
    let status = status.map_err(|e| format!("cannot wait for the program: {e}"))?;
    Ok((status, killed))
}

/// A job's program running as a policy server (a board too big to enumerate): it trains
/// as it likes, then answers the positions the evaluation reaches over its standard
/// input and output ([`PolicyServer`]). It holds its slots and its working folder, and
/// the watchdog ends it at the job's timeout or a stop, like any program; dropping it
/// kills its group and removes the folder.
pub struct Serving<'a> {
    /// The server (the scorer's agent).
    pub server: PolicyServer,
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

    /// Its standard error and output so far (for a failed row's message and `logs/`).
    pub fn logs(&self) -> Logs {
        Logs::read(&self.work)
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        let pgid = self.server.pgid();
        kill_group(pgid);
        running().as_mut().and_then(|map| map.remove(&pgid));
        let _ = fs::remove_dir_all(&self.work);
    }
}

/// Starts the program of `point` as a policy server for one job (see [`Serving`]), or
/// `Ok(None)` when the run stopped while it waited for its slots.
pub fn serve<'a>(point: &CommandPoint, env: &Env<'a>, batch: usize) -> Result<Option<Serving<'a>>, String> {
    let program = point.program;
    let Some(slots) = env.slots.take(program.threads_per_job, env.stop) else { return Ok(None) };
    let work = scratch_folder(env.job_id)?;
    let started = (|| {
        let mut command = prepare(point, env, &work, None)?;
        let err = fs::File::create(work.join("stderr.txt")).map_err(|e| format!("cannot create stderr.txt: {e}"))?;
        command.stderr(err);
        watchdog();
        let mut guard = running();
        // A batch may wait longer than the job's timeout: the watchdog ends the program
        // at the timeout, and the job says so.
        let server = PolicyServer::spawn(command, batch, program.timeout + Duration::from_secs(5))?;
        let entry = Running { deadline: Instant::now() + program.timeout, stop: env.stop.clone(), killed: None };
        guard.get_or_insert_with(HashMap::new).insert(server.pgid(), entry);
        Ok(server)
    })();
    match started {
        Ok(server) => Ok(Some(Serving { server, work, _slots: slots })),
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
    let path = work.join("policy.csv");
    if !path.exists() {
        return Err("the program wrote no policy to $SWEEP_POLICY".to_string());
    }
    let started = Instant::now();
    let (policy, hash) = read_policy(&path, game, seats).map_err(|e| format!("$SWEEP_POLICY: {e}"))?;
    let mut checkpoints = Vec::new();
    for &episode in env.checkpoints {
        let file = work.join("checkpoints").join(format!("{episode}.csv"));
        if file.exists() {
            // The last checkpoint is often the final policy: read once.
            let same = fs::read(&file).is_ok_and(|b| crate::seed::fnv1a(&b) == hash);
            let p = match same {
                true => policy.clone(),
                false => {
                    let read = read_policy(&file, game, seats);
                    read.map_err(|e| format!("$SWEEP_CHECKPOINTS/{episode}.csv: {e}"))?.0
                }
            };
            checkpoints.push((episode, p));
        }
    }
    let metrics = match fs::read(work.join("metrics.json")) {
        Err(_) => None,
        Ok(bytes) => match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(v @ serde_json::Value::Object(_)) => Some(v.to_string()),
            Ok(_) => return Err("$SWEEP_METRICS holds JSON that is not an object ({\"name\": number, ..})".into()),
            Err(e) => return Err(format!("$SWEEP_METRICS is not JSON: {e}")),
        },
    };
    let read = started.elapsed();
    Ok(Ran::Done { policy, hash, checkpoints, metrics, wall, read, logs: logs.clone() })
}

/// A policy file of `game` for `seats`, as a [`Policy`], and the FNV-1a hash of its bytes.
pub fn read_policy(path: &Path, game: Game, seats: &[Seat]) -> Result<(Policy, u64), String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let (found, moves) = crate::spec::policy_file::parse(&bytes)?;
    if found != game {
        return Err(format!("it is a policy for {found}, but the job plays {game}"));
    }
    let pos = game.positions();
    let mut policy = Policy::new(game);
    for (id, cell) in moves {
        let to_move = if pos.board(id).to_move() == Seat::X.player() { Seat::X } else { Seat::O };
        if seats.contains(&to_move) {
            policy.set(id, cell);
        }
    }
    Ok((policy, crate::seed::fnv1a(&bytes)))
}

/// A policy that notes the first board it is asked about and lacks.
pub struct Strict<'a> {
    policy: &'a Policy,
    missing: std::cell::Cell<Option<Board>>,
}

impl<'a> Strict<'a> {
    /// Wraps `policy`.
    pub fn new(policy: &'a Policy) -> Strict<'a> {
        Strict { policy, missing: std::cell::Cell::new(None) }
    }

    /// The first board asked about that the policy lacks, if any (and forgets it).
    pub fn take_missing(&self) -> Option<Board> {
        self.missing.take()
    }
}

impl Moves for Strict<'_> {
    fn game(&self) -> Game {
        self.policy.game()
    }

    fn get(&self, b: Board) -> Option<u8> {
        let m = self.policy.get(b);
        if m.is_none() && self.missing.get().is_none() {
            self.missing.set(Some(b));
        }
        m
    }
}

/// The states file of `game` for `seats` under `results/states/`, written once (by the
/// first job that needs it, atomically): `board,moves`, every position where one of the
/// seats is to move that some play reaches, with its legal moves joined by `|`.
pub fn states_file(results: &Path, game: Game, seats: &[Seat]) -> Result<PathBuf, String> {
    static WRITTEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let name: String = seats.iter().map(|s| s.name()).collect();
    // Absolute: the program runs in a folder of its own.
    let results = std::path::absolute(results).map_err(|e| format!("{}: {e}", results.display()))?;
    let path = results.join("states").join(format!("{game}-{name}.csv"));
    let mut written = WRITTEN.lock().unwrap_or_else(PoisonError::into_inner);
    if written.contains(&path) && path.exists() {
        return Ok(path);
    }
    let text = states_text(game, seats);
    let dir = results.join("states");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    crate::report::files::write_text_atomic(&path, &text).map_err(|e| format!("{e:#}"))?;
    written.push(path.clone());
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

/// The last `cap` bytes of a file.
fn tail(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = fs::File::open(path)?;
    let len = f.metadata()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(cap)))?;
    let mut out = Vec::new();
    f.read_to_end(&mut out)?;
    Ok(out)
}
