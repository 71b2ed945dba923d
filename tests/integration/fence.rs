//! Programs fenced in: every descendant of a command solver's program ends with its job,
//! those that leave the process group or the session and those that ignore SIGTERM
//! included, whether the job ends, fails, times out, or `sweep` is interrupted or killed
//! (checked by process id); what a program writes costs `sweep` bounded memory and no
//! disk; and a file it hands back is read only if it is a regular file within its limit.
//!
//! The program (`escape.sh`) starts three processes that try to outlive it: one in a new
//! session (`setsid`), one behind a double fork (its parent exits, so it is an orphan),
//! and one that ignores SIGTERM. Each writes its process id to `pids/<job>/`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sweep::game::Game;
use sweep::mdp::Seat;

use super::common::*;

/// The program: starts the three escapers, waits until they have written their ids,
/// marks itself ready, then behaves as its argument says: `ok` (writes the first-legal
/// policy), `exit` (fails), `hang` (sleeps; `hang-once` sleeps only while the flag file
/// `hang` exists, else is `ok`).
fn escaping_program(dir: &Path) {
    let policy = dir.join("first.csv");
    policy_file(&policy, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    let script = format!(
        r#"#!/bin/sh
d="{pids}/$SWEEP_JOB_ID"; mkdir -p "$d"
echo $$ > "$d/program"
setsid sh -c 'echo $$ > "$1"; exec sleep 300' sh "$d/session" &
sh -c 'sh -c '\''echo $$ > "$1"; exec sleep 300'\'' sh "$1" &' sh "$d/double"
sh -c 'trap "" TERM; echo $$ > "$1"; exec sleep 300' sh "$d/stubborn" &
while [ ! -s "$d/session" ] || [ ! -s "$d/double" ] || [ ! -s "$d/stubborn" ]; do sleep 0.01; done
touch "$d/ready"
case "$1" in
  ok) cp "{policy}" "$SWEEP_POLICY" ;;
  exit) exit 1 ;;
  hang) sleep 300 ;;
  hang-once) if [ -e "{flag}" ]; then sleep 300; fi; cp "{policy}" "$SWEEP_POLICY" ;;
esac
"#,
        pids = dir.join("pids").display(),
        policy = policy.display(),
        flag = dir.join("hang").display(),
    );
    std::fs::write(dir.join("escape.sh"), script).unwrap();
}

/// A spec of the escaping program, one job per mode, with `timeout`.
fn spec(dir: &Path, modes: &[&str], timeout: &str) -> PathBuf {
    escaping_program(dir);
    let modes: Vec<String> = modes.iter().map(|m| format!("{m:?}")).collect();
    let text = format!(
        "name = \"fence\"\nseed = 3\n[evaluation]\nopponents = [\"random\"]\n[[solver]]\nkind = \"command\"\nlabel = \
         \"esc\"\ncommand = [\"sh\", \"escape.sh\", \"{{mode}}\"]\nepisodes = 10\ntimeout = \"{timeout}\"\n\
         [solver.params]\nmode = [{}]\n",
        modes.join(", ")
    );
    write_spec(dir, "fence.toml", &text)
}

/// `sweep run` of `spec` into `dir/out`, with its temporary folder in `dir/tmp`.
fn args(dir: &Path, spec: &Path) -> Vec<String> {
    let out = dir.join("out");
    ["run", spec.to_str().unwrap(), "--quiet", "--threads", "2", "--out", out.to_str().unwrap()]
        .map(String::from)
        .to_vec()
}

fn temp(dir: &Path) -> PathBuf {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

fn start(dir: &Path, spec: &Path) -> std::process::Child {
    let args = args(dir, spec);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    spawn(&args, &[("TMPDIR", temp(dir).to_str().unwrap())])
}

/// Waits until `jobs` programs are ready (their escapers started).
fn until_ready(dir: &Path, jobs: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let ready = || {
        std::fs::read_dir(dir.join("pids"))
            .map(|d| d.flatten().filter(|e| e.path().join("ready").exists()).count())
            .unwrap_or(0)
    };
    while ready() < jobs {
        assert!(Instant::now() < deadline, "the programs did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every process id the programs recorded: (job, what, pid).
fn recorded(dir: &Path) -> Vec<(String, String, i32)> {
    let mut out = Vec::new();
    for job in std::fs::read_dir(dir.join("pids")).unwrap().flatten() {
        for file in std::fs::read_dir(job.path()).unwrap().flatten() {
            let what = file.file_name().to_string_lossy().into_owned();
            if let Ok(pid) = std::fs::read_to_string(file.path()).unwrap_or_default().trim().parse() {
                out.push((job.file_name().to_string_lossy().into_owned(), what, pid));
            }
        }
    }
    out
}

/// Every recorded process has ended (within a second of the moment this is called) and
/// the run left no working folder behind. Returns how many were checked.
fn all_ended(dir: &Path) -> usize {
    let pids = recorded(dir);
    let deadline = Instant::now() + Duration::from_secs(1);
    for (job, what, pid) in &pids {
        while alive(*pid) {
            assert!(Instant::now() < deadline, "job {job}: its {what} process {pid} outlived it");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    pids.len()
}

/// The working folders left in the run's temporary folder.
fn left_in(tmp: &Path) -> Vec<String> {
    let mut left = Vec::new();
    for run in std::fs::read_dir(tmp).unwrap().flatten() {
        left.push(run.file_name().to_string_lossy().into_owned());
    }
    left
}

fn statuses(dir: &Path) -> Vec<(String, String, String)> {
    let (h, rows) = read_csv(&dir.join("out").join("results.csv"));
    let at = |c: &str| h.iter().position(|x| x == c).unwrap();
    rows.iter().map(|r| (r[at("mode")].clone(), r[at("status")].clone(), r[at("error")].clone())).collect()
}

#[test]
fn every_descendant_ends_with_its_job_when_it_succeeds_fails_or_times_out() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let spec = spec(dir, &["ok", "exit", "hang"], "1s");
    let o = start(dir, &spec).wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "two jobs fail: {}", String::from_utf8_lossy(&o.stderr));
    let rows = statuses(dir);
    let row = |mode: &str| rows.iter().find(|r| r.0 == mode).unwrap().clone();
    assert_eq!(row("ok").1, "ok");
    assert!(row("exit").2.contains("exited with status 1"), "{:?}", row("exit"));
    assert!(row("hang").2.contains("timed out"), "{:?}", row("hang"));
    assert_eq!(all_ended(dir), 3 * 4, "three jobs, each a program and three escapers");
    assert_eq!(left_in(&temp(dir)), Vec::<String>::new(), "the run's working folders are gone");
}

#[test]
fn ctrl_c_and_sigterm_of_sweep_end_every_descendant() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let spec = spec(dir, &["hang"], "60s");
        let child = start(dir, &spec);
        until_ready(dir, 1);
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(130), "signal {signal}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(all_ended(dir), 4, "signal {signal}");
        assert_eq!(left_in(&temp(dir)), Vec::<String>::new(), "signal {signal}: the working folders are gone");
    }
}

#[test]
fn sigkill_of_sweep_ends_every_descendant_and_the_same_command_reruns_the_unfinished_job() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("hang"), "").unwrap();
    let spec = spec(dir, &["hang-once"], "60s");
    let mut child = start(dir, &spec);
    until_ready(dir, 1);
    child.kill().unwrap();
    child.wait().unwrap();
    // The fence, told by its parent-death signal, ends the program and its escapers.
    assert_eq!(all_ended(dir), 4);
    std::fs::remove_file(dir.join("hang")).unwrap();
    let o = start(dir, &spec).wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(statuses(dir), vec![("hang-once".to_string(), "ok".to_string(), String::new())]);
    // The killed run's folder went with the next run's start, and the next run's at its end.
    assert_eq!(left_in(&temp(dir)), Vec::<String>::new());
    assert_eq!(all_ended(dir), 4);
}

/// `sweep`'s peak resident memory, in bytes, from `wait4` of the child.
fn wait_peak_rss(child: std::process::Child) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: wait4 writes into locals; the pid is this test's child, not yet waited for.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::wait4(child.id() as i32, &mut status, 0, &mut usage);
        usage
    };
    (libc::WEXITSTATUS(status), usage.ru_maxrss as u64 * 1024)
}

#[test]
fn a_program_that_writes_two_gigabytes_costs_sweep_neither_memory_nor_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let text = "name = \"loud\"\nseed = 3\n[evaluation]\nopponents = [\"random\"]\n[[solver]]\nkind = \"command\"\n\
                label = \"loud\"\ncommand = [\"sh\", \"-c\", \"head -c 2000000000 /dev/zero; head -c 100000000 \
                /dev/zero >&2; echo the-end >&2; exit 1\"]\nepisodes = 10\ntimeout = \"120s\"\n";
    let spec = write_spec(dir, "loud.toml", text);
    let mut args = args(dir, &spec);
    args.truncate(args.len() - 2);
    args.extend(["--out".to_string(), dir.join("out").display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = spawn(&args, &[("TMPDIR", temp(dir).to_str().unwrap())]);
    // The scratch space, sampled while the program writes.
    let mut most = 0;
    let pid = child.id() as i32;
    while alive(pid) {
        most = most.max(du(&temp(dir)));
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, peak) = wait_peak_rss(child);
    assert_eq!(code, 1, "the job fails");
    let logs = dir.join("out").join("logs");
    let (out, err) = std::fs::read_dir(&logs).unwrap().flatten().fold((0, 0), |(o, e), f| {
        let len = f.metadata().unwrap().len();
        if f.path().extension().unwrap() == "out" { (o + len, e) } else { (o, e + len) }
    });
    assert_eq!((out, err), (1 << 20, 1 << 20), "the last MiB of each stream is kept");
    let (_, rows) = read_csv(&dir.join("out").join("results.csv"));
    assert!(rows[0].iter().any(|c| c.contains("the-end")), "the row quotes the end of stderr: {rows:?}");
    eprintln!("peak RSS {:.1} MiB, scratch at most {most} bytes", peak as f64 / 1048576.0);
    assert!(peak < 100 << 20, "sweep's peak RSS is {peak} bytes for a program that wrote 2.1 GB");
    assert!(most < 1 << 20, "the scratch folder held {most} bytes");
}

/// The bytes of the files under `dir`.
fn du(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => du(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

#[test]
fn a_file_handed_back_is_read_only_if_it_is_a_regular_file_within_its_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let policy = dir.join("first.csv");
    policy_file(&policy, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    let p = policy.display();
    let cases = [
        ("zero", r#"ln -s /dev/zero "$SWEEP_POLICY""#.to_string(), "$SWEEP_POLICY is a symbolic link"),
        ("fifo", r#"mkfifo "$SWEEP_POLICY""#.to_string(), "$SWEEP_POLICY is a FIFO"),
        ("device", r#"mknod "$SWEEP_POLICY" c 1 5 2>/dev/null || mkfifo "$SWEEP_POLICY""#.to_string(), "not a regular"),
        (
            "huge",
            format!(r#"cp "{p}" "$SWEEP_POLICY"; head -c 20000000 /dev/zero | tr '\0' '\n' >> "$SWEEP_POLICY""#),
            "$SWEEP_POLICY is 20",
        ),
        (
            "metrics",
            format!(r#"cp "{p}" "$SWEEP_POLICY"; head -c 100000 /dev/zero | tr '\0' ' ' > "$SWEEP_METRICS""#),
            "$SWEEP_METRICS is 100000 bytes, more than the 65536",
        ),
        ("linked", format!(r#"ln -s "{p}" "$SWEEP_POLICY""#), "$SWEEP_POLICY is a symbolic link"),
    ];
    let mut script = String::from("#!/bin/sh\ncase \"$1\" in\n");
    for (mode, body, _) in &cases {
        script.push_str(&format!("  {mode}) {body} ;;\n"));
    }
    script.push_str("esac\n");
    std::fs::write(dir.join("hand.sh"), script).unwrap();
    let modes: Vec<String> = cases.iter().map(|c| format!("{:?}", c.0)).collect();
    let text = format!(
        "name = \"hand\"\nseed = 3\n[evaluation]\nopponents = [\"random\"]\n[[solver]]\nkind = \"command\"\nlabel = \
         \"hand\"\ncommand = [\"sh\", \"hand.sh\", \"{{mode}}\"]\nepisodes = 10\ntimeout = \"60s\"\n[solver.params]\n\
         mode = [{}]\n",
        modes.join(", ")
    );
    let spec = write_spec(dir, "hand.toml", &text);
    let started = Instant::now();
    let o = start(dir, &spec).wait_with_output().unwrap();
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = statuses(dir);
    for (mode, _, words) in &cases {
        let row = rows.iter().find(|r| r.0 == *mode).unwrap();
        assert_eq!(row.1, "failed", "{mode}");
        assert!(row.2.contains(words), "{mode}: {:?} lacks {words:?}", row.2);
    }
    // Nothing waited on the FIFO or read /dev/zero: far inside the jobs' 60 s timeout.
    assert!(took < Duration::from_secs(20), "the run took {took:?}");
}

#[test]
fn a_program_is_never_told_the_results_folder_and_cannot_list_the_other_jobs_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let policy = dir.join("first.csv");
    policy_file(&policy, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    let seen = dir.join("seen");
    std::fs::create_dir_all(&seen).unwrap();
    // Each job notes its folder's mode, its run folder's, whether it could list the run
    // folder, and its whole environment and working folder.
    let script = format!(
        "#!/bin/sh\nf={seen}/$SWEEP_JOB_ID\nstat -c %a . > $f.mode\nstat -c %a .. > $f.run\n\
         if ls .. > /dev/null 2>&1; then echo listed > $f.ls; else echo refused > $f.ls; fi\n\
         env > $f.env\npwd > $f.pwd\ncp {policy} \"$SWEEP_POLICY\"\n",
        seen = seen.display(),
        policy = policy.display()
    );
    std::fs::write(dir.join("p.sh"), script).unwrap();
    let text = "name = \"told\"\nseed = 3\nreplicates = 2\n[evaluation]\nopponents = [\"random\"]\n[[solver]]\n\
                kind = \"command\"\nlabel = \"told\"\ncommand = [\"sh\", \"p.sh\"]\nepisodes = 10\n";
    let spec = write_spec(dir, "told.toml", text);
    let o = start(dir, &spec).wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = std::fs::canonicalize(dir.join("out")).unwrap();
    let (_, rows) = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    for job in rows.iter().map(|r| &r[0]) {
        let read = |ext: &str| std::fs::read_to_string(seen.join(format!("{job}.{ext}"))).unwrap();
        assert_eq!(read("mode").trim(), "700", "the job's own folder");
        assert_eq!(read("run").trim(), "300", "the run's folder: search, no listing");
        // Root reads any folder: what guards a program run as root is up to the machine.
        assert_eq!(read("ls").trim(), if root { "listed" } else { "refused" });
        let out_text = out.display().to_string();
        assert!(!read("env").contains(&out_text), "the environment names the results folder");
        assert!(!read("pwd").contains(&out_text));
        assert!(read("pwd").starts_with(&std::fs::canonicalize(temp(dir)).unwrap().display().to_string()));
    }
}
