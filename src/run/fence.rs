//! The fence around a program: nothing a program starts outlives its job.
//!
//! `sweep` does not start a command solver's program (or a policy server) directly. It
//! starts itself as `sweep __fence PARENT SCRATCH PROGRAM ARGS...`, a small supervisor
//! that:
//!
//! - is the **subreaper** of everything below it (`PR_SET_CHILD_SUBREAPER`): a process
//!   that leaves its process group or session (`setsid`, a double fork, a daemon) still
//!   has the fence as an ancestor, so the fence can find it;
//! - starts the program with a **parent-death signal** (SIGKILL when the fence dies) and
//!   has one itself (SIGTERM when `sweep` dies, SIGKILL included);
//! - when the program ends, or on SIGTERM, SIGINT or SIGHUP (the watchdog's timeout or
//!   stop, `sweep`'s death), kills every descendant with SIGKILL, level by level, by
//!   process id, until it has no child left; then exits with the program's own status
//!   (the same code, or the same signal), so `sweep` reads it as it would the program's;
//! - when `sweep` died, also removes the job's scratch folder.
//!
//! So a job's end, timeout, failure, Ctrl-C, SIGTERM and SIGKILL of `sweep` all end every
//! descendant, those that ignore SIGTERM included (SIGKILL cannot be ignored). What it
//! cannot stop: a process that kills its fence first (it runs as the same user), or one
//! that gains privileges; `sweep` running as root does not fence programs from root.
//!
//! The fence is the `sweep` binary itself, so it is there wherever `sweep` is. A process
//! that did not start from `sweep`'s `main` (a test harness, a benchmark) has no fence:
//! [`enabled`] is false and programs start directly, in a group of their own with a
//! parent-death signal, as before.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// The first argument that makes `sweep` a fence.
pub const ARG: &str = "__fence";

/// The `sweep` binary that fences programs, once [`enable`] found it.
static EXE: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Turns the fence on for this process: programs started from now on run under
/// `sweep __fence`. Only `sweep`'s `main` calls it (it is the binary that answers
/// [`ARG`]).
pub fn enable() {
    // The running binary itself, even when its file was replaced or removed since it
    // started (a rebuild during a long run): the kernel's link to its inode, else its path.
    let own = Path::new("/proc/self/exe");
    EXE.get_or_init(|| if own.exists() { Some(own.to_path_buf()) } else { std::env::current_exe().ok() });
}

/// Whether programs run under a fence.
pub fn enabled() -> bool {
    EXE.get().is_some_and(Option::is_some)
}

/// `command` (a program, its arguments, folder and environment; no standard streams set
/// yet) as it is to be started: under the fence when [`enabled`], with `scratch` the
/// folder the fence removes if `sweep` dies. Either way in a process group of its own,
/// with a parent-death signal.
pub fn wrap(command: Command, scratch: Option<&Path>) -> Command {
    let Some(Some(exe)) = EXE.get() else {
        let mut command = command;
        // SAFETY: prctl is async-signal-safe; it only sets this process's attribute.
        unsafe {
            command.process_group(0).pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                Ok(())
            });
        }
        return command;
    };
    let mut fenced = Command::new(exe);
    fenced
        .arg(ARG)
        .arg(std::process::id().to_string())
        .arg(scratch.map_or_else(OsString::new, |p| p.as_os_str().to_os_string()))
        .arg(command.get_program())
        .args(command.get_args());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => fenced.env(name, value),
            None => fenced.env_remove(name),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        fenced.current_dir(dir);
    }
    // No `pre_exec`: the fence sets its own parent-death signal first thing, so the spawn
    // needs no fork of this (possibly large) process.
    fenced.process_group(0);
    fenced
}

/// Asks a started program (its process id, which is also its group's) to end now: the
/// fence's SIGTERM, which ends every descendant; without a fence, SIGKILL to its group.
pub fn end(pid: i32) {
    // SAFETY: kill and killpg only send a signal; a process that is gone gives ESRCH.
    unsafe {
        if enabled() {
            libc::kill(pid, libc::SIGTERM);
        } else {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

/// Kills a started program's group outright: what is left when its fence did not end in
/// time (it should never have to).
pub fn kill_group(pid: i32) {
    // SAFETY: killpg only sends a signal; a group that no longer exists gives ESRCH.
    unsafe {
        libc::killpg(pid, libc::SIGKILL);
    }
}

/// `sweep __fence ...`: runs the fence and returns its exit code (when the program ended
/// by a signal, the fence ends by the same signal and does not return). `None` when the
/// command line is not a fence's.
pub fn main_if_asked() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != ARG {
        return None;
    }
    let args: Vec<OsString> = args.collect();
    Some(match run(&args) {
        Ok(code) => code,
        Err(why) => {
            eprintln!("sweep: the fence around a program: {why}");
            127
        }
    })
}

/// What ended the fence's wait.
enum Ended {
    /// The program ended with this wait status.
    Program(libc::c_int),
    /// `sweep` asked (or died): the program is to be ended.
    Asked,
}

fn run(args: &[OsString]) -> Result<i32, String> {
    let [parent, scratch, program, rest @ ..] = args else {
        return Err("usage: sweep __fence PARENT SCRATCH PROGRAM [ARGS...]".into());
    };
    let parent: i32 = parent.to_str().and_then(|p| p.parse().ok()).ok_or("PARENT is not a process id")?;
    // SAFETY: plain system calls on this process's own attributes and signal mask.
    let me = unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong);
        // sweep may have died before the parent-death signal was set.
        if libc::getppid() != parent {
            return Ok(128 + libc::SIGTERM);
        }
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong);
        // The signals the fence waits for are blocked, and read with sigwaitinfo: no
        // handler runs, nothing races. The program starts with an empty mask (std resets
        // it in the child).
        libc::sigprocmask(libc::SIG_BLOCK, &watched(), std::ptr::null_mut());
        libc::getpid()
    };
    let mut command = Command::new(program);
    command.args(rest);
    // SAFETY: prctl and getppid are async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
            if libc::getppid() != me {
                return Err(std::io::Error::other("the fence ended before the program started"));
            }
            Ok(())
        });
    }
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("cannot start {:?}: {e}", program.to_string_lossy());
            return Ok(127);
        }
    };
    let pid = child.id() as i32;
    let ended = wait(pid);
    let status = end_all(
        pid,
        match ended {
            Ended::Program(status) => Some(status),
            Ended::Asked => None,
        },
    );
    // SAFETY: getppid has no preconditions.
    if unsafe { libc::getppid() } != parent && !scratch.is_empty() {
        // sweep is gone: nobody else will remove the job's folder.
        let _ = std::fs::remove_dir_all(Path::new(scratch));
    }
    match (ended, status) {
        (Ended::Program(_), Some(status)) => Ok(mirror(status)),
        _ => Ok(mirror(libc::SIGKILL)),
    }
}

/// The signals the fence waits for.
fn watched() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set before sigaddset reads it.
    unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        for signal in [libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
            libc::sigaddset(&mut set, signal);
        }
        set
    }
}

/// Waits until the program `pid` ends or the fence is asked to end it; reaps the orphans
/// that end by themselves meanwhile.
fn wait(pid: i32) -> Ended {
    let set = watched();
    loop {
        if let Some(status) = reap(pid) {
            return Ended::Program(status);
        }
        // SAFETY: `set` is initialised; a null info pointer is allowed.
        let signal = unsafe { libc::sigwaitinfo(&set, std::ptr::null_mut()) };
        if signal > 0 && signal != libc::SIGCHLD {
            return Ended::Asked;
        }
    }
}

/// Reaps every child that has ended; the wait status of `pid` if it was among them.
fn reap(pid: i32) -> Option<libc::c_int> {
    let mut found = None;
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes the status into a local.
        let reaped = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if reaped <= 0 {
            return found;
        }
        if reaped == pid {
            found = Some(status);
        }
    }
}

/// Kills every descendant, level by level (each one killed hands its children to the
/// fence, the subreaper), until the fence has no child left. Returns the program's wait
/// status: `status` if it had already ended, else the one reaped here.
fn end_all(pid: i32, mut status: Option<libc::c_int>) -> Option<libc::c_int> {
    loop {
        for child in children() {
            // SAFETY: kill only sends a signal; a pid from our own children list.
            unsafe {
                libc::kill(child, libc::SIGKILL);
            }
        }
        loop {
            let mut s = 0;
            // SAFETY: waitpid writes the status into a local.
            let reaped = unsafe { libc::waitpid(-1, &mut s, libc::WNOHANG) };
            if reaped == pid {
                status.get_or_insert(s);
            }
            if reaped < 0 {
                // ECHILD: no child at all, so no descendant either.
                return status;
            }
            if reaped == 0 {
                break;
            }
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The fence's children, by process id: `/proc/self/task/<tid>/children` (the fence has
/// one thread), else every process whose parent is the fence.
fn children() -> Vec<i32> {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    if let Ok(text) = std::fs::read_to_string(format!("/proc/{me}/task/{me}/children")) {
        return text.split_whitespace().filter_map(|p| p.parse().ok()).collect();
    }
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| parent_of(pid) == Some(me))
        .collect()
}

/// The parent of process `pid`, from `/proc/<pid>/stat` (the field after the name, which
/// may hold spaces and parentheses, so the text after its last `)`).
pub fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let end = stat.iter().rposition(|&b| b == b')')?;
    let rest = OsStr::from_bytes(&stat[end + 1..]).to_str()?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Ends the fence the way the program ended: the same exit code, or the same signal
/// (without a core file; a signal whose default is to carry on gives 128 + its number).
fn mirror(status: libc::c_int) -> i32 {
    let status = std::process::ExitStatus::from_raw(status);
    if let Some(code) = status.code() {
        return code;
    }
    let signal = status.signal().unwrap_or(libc::SIGKILL);
    // SAFETY: resetting this process's own limits, disposition and mask before it ends.
    unsafe {
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        libc::signal(signal, libc::SIG_DFL);
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
    }
    128 + signal
}

/// The program a command starts, for messages: under a fence, the program it fences.
pub fn program(command: &Command) -> String {
    let fenced = enabled() && command.get_args().next().is_some_and(|a| a == ARG);
    let name = if fenced { command.get_args().nth(3) } else { None };
    name.unwrap_or(command.get_program()).to_string_lossy().into_owned()
}
