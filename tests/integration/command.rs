//! `kind = "command"`: a program of the user's, run once per job, its policies scored
//! exactly. Truths (a minimax-optimal program has regret 0 against minimax and is not
//! exploitable; a first-legal-move program gets exactly what the library's evaluation of
//! the same moves gives, and its exploitability is a brute-force worst case), faults (exit
//! 1, SIGKILL, a timeout, a missing policy, a wrong board, an illegal move, a missing
//! position; Ctrl-C of `sweep` with a hung program), resume, reproduce and refusals.
//!
//! The programs are small shell scripts (and `cp` of a policy file the test writes), so
//! the tests need nothing but `sh`. Every program that could linger writes its process id
//! and its child's to a file, and each test checks by id that none is left (the escapes
//! from the process group and the session are `fence.rs`'s).

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use sweep::game::{Board, Game};
use sweep::mdp::{Evaluator, Opponent, Seat};
use sweep::solvers::ground_truth;

use super::common::*;

/// A spec of one command solver: `command` (a TOML list), then `rest` (keys of the solver).
fn spec(dir: &Path, command: &str, rest: &str, opponents: &str) -> PathBuf {
    let text = format!(
        "name = \"c\"\nseed = 5\nreplicates = 2\n[evaluation]\nopponents = {opponents}\n[[solver]]\nkind = \
         \"command\"\nlabel = \"prog\"\ncommand = {command}\nepisodes = 10\n{rest}\n"
    );
    write_spec(dir, "c.toml", &text)
}

/// A results row as a map from column to cell.
fn rows(dir: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let (h, rows) = read_csv(&dir.join("results.csv"));
    rows.into_iter().map(|r| h.iter().cloned().zip(r).collect()).collect()
}

fn num(r: &std::collections::HashMap<String, String>, c: &str) -> f64 {
    r[c].parse().unwrap_or_else(|_| panic!("{c} = {:?}", r[c]))
}

/// The shell command that copies `file` to `$SWEEP_POLICY`.
fn copier(file: &Path) -> String {
    format!("[\"sh\", \"-c\", \"cp \\\"$1\\\" \\\"$SWEEP_POLICY\\\"\", \"sh\", \"{}\"]", file.display())
}

#[test]
fn a_minimax_optimal_program_has_regret_0_against_minimax_and_is_not_exploitable() {
    for game in ["3x3k3", "3x4k3"] {
        let g: Game = game.parse().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("optimal.csv");
        let pos = g.positions();
        policy_file(&file, g, Seat::ALL, |p, _| pos.optimal_moves(p).trailing_zeros() as u8);
        let rest = format!("game = \"{game}\"\nseat = [\"x\", \"o\"]\nopponent = \"minimax\"");
        let spec = spec(tmp.path(), &copier(&file), &rest, "[\"minimax\", \"best-response\", \"random\"]");
        let out = tmp.path().join("out");
        let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let rows = rows(&out);
        assert_eq!(rows.len(), 2 * 2 * 3, "2 seats x 2 replicates x 3 opponents");
        for r in &rows {
            assert_eq!(r["status"], "ok", "{r:?}");
            assert_eq!(r["solver"], "command:prog");
            assert!(num(r, "regret") >= 0.0);
            if r["eval_opponent"] != "random" {
                assert_eq!(num(r, "regret"), 0.0, "{game} {} vs {}", r["seat"], r["eval_opponent"]);
            }
        }
    }
}

#[test]
fn a_first_legal_move_program_gets_exactly_the_libraries_evaluation_and_a_brute_force_worst_case() {
    let g = Game::TIC_TAC_TOE;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, g, Seat::ALL, |_, b| first_legal(b));
    let spec = spec(tmp.path(), &copier(&file), "seat = [\"x\", \"o\"]", "[\"random\", \"best-response\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in rows(&out) {
        let seat: Seat = r["seat"].parse().unwrap();
        let expected = match r["eval_opponent"].as_str() {
            "random" => {
                let truth = ground_truth(g, seat, Opponent::Random);
                let eval = Evaluator::new().evaluate(&truth.mdp, |_, b| first_legal(b));
                assert_eq!(num(&r, "p_win"), eval.p_win);
                eval.value
            }
            _ => f64::from(brute_force_worst_case(Board::empty(g), seat.player(), &first_legal)),
        };
        assert_eq!(num(&r, "value"), expected, "{seat} vs {}", r["eval_opponent"]);
        if seat == Seat::X && r["eval_opponent"] == "random" {
            // The policy iteration trace's first round starts from this policy: 0.604167.
            assert!((num(&r, "value") - 0.604_166_666_666_666_6).abs() < 1e-12);
        }
    }
}

/// What a faulty program does, and the words its failed row must hold.
const FAULTS: [(&str, &str, &str); 7] = [
    ("exit1", "echo about to fail >&2; exit 1", "exited with status 1; its stderr ends: about to fail"),
    ("sigkill", "kill -9 $$", "killed by signal 9 (SIGKILL)"),
    ("timeout", "sleep 30", "timed out after 1 s"),
    ("nopolicy", "true", "wrote no policy"),
    ("wrongboard", "printf 'board,action,seat,game\\nXXXXX,1,x,3x3k3\\n' > \"$SWEEP_POLICY\"", "line 2"),
    ("illegal", "printf 'board,action,seat,game\\nX........,0,o,3x3k3\\n' > \"$SWEEP_POLICY\"", "cell 0 is taken"),
    ("missing", "printf 'board,action,seat,game\\n.........,4,x,3x3k3\\n' > \"$SWEEP_POLICY\"", "has no move for "),
];

/// A program that records its process id and its sleeping child's in `pids/` (neither
/// may outlive the job), then behaves as `mode` says.
fn faulty_program(dir: &Path) -> String {
    let pids = dir.join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let mut script =
        format!("#!/bin/sh\nsleep 1000 &\necho $$ $! > {}/$SWEEP_JOB_ID\ncase \"$1\" in\n", pids.display());
    for (mode, body, _) in FAULTS {
        script.push_str(&format!("  {mode}) {body} ;;\n"));
    }
    script.push_str("esac\n");
    let path = dir.join("faulty.sh");
    std::fs::write(&path, script).unwrap();
    "[\"sh\", \"faulty.sh\", \"{mode}\"]".to_string()
}

/// No process is left of those the programs recorded in `pids/` (checked by process id).
fn no_process_left(dir: &Path) {
    let deadline = Instant::now() + Duration::from_secs(5);
    for entry in std::fs::read_dir(dir.join("pids")).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for pid in text.split_whitespace().filter_map(|p| p.parse::<i32>().ok()) {
            while alive(pid) {
                assert!(Instant::now() < deadline, "process {pid} is still running");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

#[test]
fn every_fault_of_a_program_is_a_failed_row_with_its_reason_and_logs_and_leaves_no_process() {
    let tmp = tempfile::tempdir().unwrap();
    let command = faulty_program(tmp.path());
    let modes: Vec<String> = FAULTS.iter().map(|f| format!("\"{}\"", f.0)).collect();
    let rest = format!("timeout = \"1s\"\n[solver.params]\nmode = [{}]", modes.join(", "));
    let spec = spec(tmp.path(), &command, &rest, "[\"random\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--threads", "2", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = rows(&out);
    assert_eq!(rows.len(), FAULTS.len() * 2);
    for (mode, _, words) in FAULTS {
        for r in rows.iter().filter(|r| r["mode"] == mode) {
            assert_eq!(r["status"], "failed", "{mode}");
            assert!(r["error"].contains(words), "{mode}: {:?} lacks {words:?}", r["error"]);
            assert!(r["value"].is_empty(), "no metrics in a failed row");
            assert!(out.join("logs").join(format!("{}.err", r["job_id"])).exists(), "{mode}: its stderr is kept");
        }
    }
    no_process_left(tmp.path());
}

#[test]
fn ctrl_c_stops_a_hung_program_at_once_and_the_same_command_resumes_only_the_unfinished_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    let pids = tmp.path().join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let flag = tmp.path().join("hang");
    std::fs::write(&flag, "").unwrap();
    // Mode "hang" sleeps while the flag file exists (with a child); both modes then
    // write the first-legal policy.
    let script = format!(
        "#!/bin/sh\necho $$ > {pids}/$SWEEP_JOB_ID\nif [ \"$1\" = hang ] && [ -e {flag} ]; \
         then sleep 1000 & echo $! >> {pids}/$SWEEP_JOB_ID; sleep 1000; fi\ncp {file} \"$SWEEP_POLICY\"\n",
        pids = pids.display(),
        flag = flag.display(),
        file = file.display()
    );
    std::fs::write(tmp.path().join("p.sh"), script).unwrap();
    let rest = "[solver.params]\nmode = [\"ok\", \"hang\"]";
    let spec = spec(tmp.path(), "[\"sh\", \"p.sh\", \"{mode}\"]", rest, "[\"random\"]");
    let out = tmp.path().join("out");
    let args = ["run", spec.to_str().unwrap(), "--threads", "2", "--out", out.to_str().unwrap()];
    let child = spawn(&args, &[]);
    // Both "ok" jobs are written; the two "hang" jobs hang.
    let start = Instant::now();
    while std::fs::read_dir(&pids).unwrap().count() < 4
        || std::fs::read_to_string(out.join("results.csv")).map_or(0, |t| t.lines().count()) < 3
    {
        assert!(start.elapsed() < Duration::from_secs(60), "the programs did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopped = Instant::now();
    let ok = StdCommand::new("kill").args(["-s", "INT", &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stopped.elapsed() < Duration::from_secs(5), "stopped in {:?}", stopped.elapsed());
    no_process_left(tmp.path());
    let before = rows(&out);
    assert_eq!(before.len(), 2, "the finished jobs' rows, and no row of an abandoned job");
    assert!(before.iter().all(|r| r["mode"] == "ok" && r["status"] == "ok"));
    std::fs::remove_file(&flag).unwrap();
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 jobs already done, 2 to run"), "{}", stderr(&o));
    let after = rows(&out);
    assert_eq!(after.len(), 4);
    for r in &before {
        assert!(after.contains(r), "a finished row is kept as it was");
    }
}

#[test]
fn reproduce_says_whether_a_program_honours_its_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    // "seeded" copies one file whatever happens; "clock" writes another policy when it
    // runs a second time, as a program that draws from the clock would.
    let other = tmp.path().join("last.csv");
    policy_file(&other, Game::TIC_TAC_TOE, &[Seat::X], |_, b| last_legal(b));
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = clock ] && [ -e {tmp}/ran-$SWEEP_JOB_ID ]; then cp {other} \"$SWEEP_POLICY\"; \
         else touch {tmp}/ran-$SWEEP_JOB_ID; cp {file} \"$SWEEP_POLICY\"; fi\n",
        tmp = tmp.path().display(),
        other = other.display(),
        file = file.display()
    );
    std::fs::write(tmp.path().join("p.sh"), script).unwrap();
    let rest = "[solver.params]\nmode = [\"seeded\", \"clock\"]";
    let spec = spec(tmp.path(), "[\"sh\", \"p.sh\", \"{mode}\"]", rest, "[\"random\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--threads", "1", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&out);
    let id = |mode: &str| rows.iter().find(|r| r["mode"] == mode && r["replicate"] == "1").unwrap()["job_id"].clone();
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", &id("seeded"), "--trust"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("reproduced"), "{}", stdout(&o));
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", &id("clock"), "--trust"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("not reproducible: the program is not deterministic for this seed"), "{}", stdout(&o));
}

#[test]
fn a_missing_or_unusable_program_is_refused_before_any_job_naming_the_line() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("plain.sh"), "#!/bin/sh\n").unwrap();
    for (command, words) in [
        ("[\"no-such-program-here\"]", "no executable no-such-program-here on PATH"),
        ("[\"./plain.sh\"]", "is not an executable file"),
        ("[\"sh\", \"x.sh\", \"{lr}\"]", "the placeholder {lr}, which names no parameter"),
    ] {
        let spec = spec(tmp.path(), command, "", "[\"random\"]");
        let out = tmp.path().join("out");
        let o = run(&["run", spec.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert!(stderr(&o).contains("c.toml:9: solver[1].command"), "{}", stderr(&o));
        assert!(stderr(&o).contains(words), "{}", stderr(&o));
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn parameters_reach_the_program_and_a_changed_program_file_is_refused_at_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, Game::TIC_TAC_TOE, &[Seat::O], |_, b| first_legal(b));
    // The program checks its argv, environment and parameters file, and fails if one is off.
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = \"--lr=$SWEEP_PARAM_LR\" ] || exit 3\n[ \"$SWEEP_SEAT\" = o ] || exit 4\n\
         grep -q '\"hidden\":' \"$SWEEP_PARAMS\" || exit 5\n[ -s \"$SWEEP_STATES\" ] || exit 6\n\
         echo \"$SWEEP_SEED\" >> {seeds}\ncp {file} \"$SWEEP_POLICY\"\necho '{{\"loss\": 0.5}}' > \"$SWEEP_METRICS\"\n",
        seeds = tmp.path().join("seeds").display(),
        file = file.display()
    );
    std::fs::write(tmp.path().join("agent.sh"), &script).unwrap();
    let rest = "seat = \"o\"\n[solver.params]\nlr = [0.1, 0.2]\nhidden = [16, 64]";
    let spec = spec(tmp.path(), "[\"sh\", \"agent.sh\", \"--lr={lr}\"]", rest, "[\"random\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&out);
    assert_eq!(rows.len(), 2 * 2 * 2);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{}", r["error"]);
        assert_eq!(r["params"], format!("lr={} hidden={}", r["lr"], r["hidden"]));
        assert_eq!(r["metrics"], "{\"loss\":0.5}");
        assert_eq!(r["policy_hash"].len(), 16);
    }
    // Paired seeding: replicate k has one seed at every grid point.
    let seeds = std::fs::read_to_string(tmp.path().join("seeds")).unwrap();
    let mut distinct: Vec<&str> = seeds.lines().collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 2, "{seeds}");
    // The manifest records each file's hash; a changed file is refused at resume.
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("agent.sh") && manifest.contains("fnv1a"), "{manifest}");
    std::fs::write(tmp.path().join("agent.sh"), format!("{script}\n# edited\n")).unwrap();
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("agent.sh, a file of the command solver prog, has changed since the run"),
        "{}",
        stderr(&o)
    );
}

/// A program whose policy depends on its parameter and episodes: `k` plays the k-th legal
/// move (cycling), a job with more episodes the first legal one (so a search has a
/// winner), from the states file.
fn chooser(dir: &Path) -> String {
    let script = r#"#!/bin/sh
{ echo board,action,seat,game
  tail -n +2 "$SWEEP_STATES" | while IFS=, read -r board moves; do
    n=$(echo "$moves" | tr '|' '\n' | wc -l)
    i=$(( ($1 + $SWEEP_EPISODES / 100) % n + 1 ))
    echo "$board,$(echo "$moves" | tr '|' '\n' | sed -n "${i}p"),o,3x3g3"
  done; } > "$SWEEP_POLICY"
"#;
    std::fs::write(dir.join("chooser.sh"), script).unwrap();
    "[\"sh\", \"chooser.sh\", \"{k}\"]".to_string()
}

#[test]
fn a_command_solver_splits_over_shards_and_merges_into_the_local_files() {
    let tmp = tempfile::tempdir().unwrap();
    let rest = "game = \"3x3g3\"\nseat = \"o\"\n[solver.params]\nk = [1, 2, 3]";
    let spec = spec(tmp.path(), &chooser(tmp.path()), rest, "[\"random\", \"best-response\"]");
    let (local, split) = (tmp.path().join("local"), tmp.path().join("split"));
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", local.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for k in 0..3 {
        let shard = format!("{k}/3");
        let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", split.to_str().unwrap(), "--shard", &shard]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run(&["merge", split.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, _) = read_csv(&split.join("results.csv"));
    assert_eq!(header.last().map(String::as_str), Some("k"), "the program's parameter is the last column");
    assert_eq!(without_timings(&local.join("results.csv")), without_timings(&split.join("results.csv")));
    let ok = rows(&local).iter().all(|r| r["status"] == "ok");
    assert!(ok, "every job scored");
}

#[test]
fn halving_over_episodes_and_a_test_table_run_a_command_solver() {
    let tmp = tempfile::tempdir().unwrap();
    let rest = "game = \"3x3g3\"\nseat = \"o\"\n[solver.params]\nk = [1, 2, 3, 4]";
    let command = chooser(tmp.path());
    let text = format!(
        "name = \"h\"\nseed = 5\nreplicates = 2\n[evaluation]\nopponents = [\"random\"]\n[search]\nmethod = \
         \"halving\"\neta = 2\nmin_budget = 100\nmax_budget = 400\nmetric = \"regret\"\n[test]\nreplicates = 2\n\
         top = 1\n[[solver]]\nkind = \"command\"\nlabel = \"prog\"\ncommand = {command}\n{rest}\n"
    );
    let spec = write_spec(tmp.path(), "h.toml", &text);
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&out);
    let rung = |k: &str| rows.iter().filter(|r| r["rung"] == k && r["split"] == "tune").count();
    assert_eq!((rung("0"), rung("1"), rung("2")), (4 * 2, 2 * 2, 2), "4, 2, then 1 configuration");
    let test: Vec<_> = rows.iter().filter(|r| r["split"] == "test").collect();
    assert_eq!(test.len(), 2, "the best configuration on two fresh seeds");
    assert!(test.iter().all(|r| r["episodes"] == "400" && r["status"] == "ok"));
    let summary = run(&["summary", out.to_str().unwrap()]);
    assert!(summary.status.success() && stdout(&summary).contains("command:prog"), "{}", stderr(&summary));
}

#[test]
fn threads_per_job_counts_a_program_as_that_many_threads() {
    // Each program notes when it starts and ends; with threads_per_job = 2 on 2 threads no
    // two run at once, with 1 they do.
    for (per_job, overlap) in [(2, false), (1, true)] {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("first.csv");
        policy_file(&file, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
        let log = tmp.path().join("log");
        let script = format!(
            "#!/bin/sh\necho start >> {log}\nsleep 0.5\necho end >> {log}\ncp {file} \"$SWEEP_POLICY\"\n",
            log = log.display(),
            file = file.display()
        );
        std::fs::write(tmp.path().join("p.sh"), script).unwrap();
        let rest = format!("threads_per_job = {per_job}\n[solver.params]\nk = [1, 2]");
        let spec = spec(tmp.path(), "[\"sh\", \"p.sh\"]", &rest, "[\"random\"]");
        let out = tmp.path().join("out");
        let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--threads", "2", "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8, "4 jobs");
        let alternating = lines.chunks(2).all(|p| p == ["start", "end"]);
        assert_eq!(!alternating, overlap, "threads_per_job = {per_job}: {lines:?}");
    }
}

#[test]
fn a_programs_parameter_may_be_sampled_and_its_points_are_the_jobs() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    let rest = "samples = 3\n[solver.params]\nlr = { loguniform = [0.001, 0.5] }\nlayers = { choice = [\"a\", \"b\"] }";
    let spec = spec(tmp.path(), &copier(&file), rest, "[\"random\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&out);
    let mut lrs: Vec<f64> = rows.iter().map(|r| num(r, "lr")).collect();
    lrs.sort_by(f64::total_cmp);
    lrs.dedup();
    assert_eq!(lrs.len(), 3, "{lrs:?}");
    assert!(lrs.iter().all(|&x| (0.001..=0.5).contains(&x)));
    assert!(rows.iter().all(|r| ["a", "b"].contains(&r["layers"].as_str())));
    assert_eq!(rows.len(), 3 * 2, "3 points x 2 replicates");
}

/// A command solver searched by TPE: its parameter `k` (a listed axis, a categorical) is
/// proposed round by round; the same rows on 1 and 2 threads, every trial distinct.
#[test]
fn a_tpe_search_proposes_a_programs_parameters() {
    let tmp = tempfile::tempdir().unwrap();
    let command = chooser(tmp.path());
    let text = format!(
        "name = \"t\"\nseed = 6\nreplicates = 2\n[evaluation]\nopponents = [\"random\"]\n[search]\nmethod = \
         \"tpe\"\ntrials = 4\nbatch = 2\nstartup = 2\n[[solver]]\nkind = \"command\"\nlabel = \"prog\"\n\
         command = {command}\ngame = \"3x3g3\"\nseat = \"o\"\nepisodes = 100\n[solver.params]\n\
         k = [1, 2, 3, 4, 5, 6, 7, 8]\n"
    );
    let spec = write_spec(tmp.path(), "t.toml", &text);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--threads", threads, "--out", dir.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(without_timings(&one.join("results.csv")), without_timings(&two.join("results.csv")));
    let rows = rows(&one);
    assert!(rows.iter().all(|r| r["status"] == "ok"));
    let ks: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["k"].as_str()).collect();
    assert_eq!(ks.len(), 4, "four distinct trials: {ks:?}");
    let rounds: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["round"].as_str()).collect();
    assert_eq!(rounds.len(), 2, "two rounds of 2: {rounds:?}");
}

#[test]
fn a_string_parameter_reaches_the_program_verbatim_substituted_once_and_never_through_a_shell() {
    let tmp = tempfile::tempdir().unwrap();
    // The value holds a placeholder, a command substitution, quotes, `;` and spaces.
    let tag = r#"{seed}; $(touch "$SWEEP_SPEC_DIR/pwned") "q" a  b"#;
    let command = r#"["sh", "-c", "printf '%s' \"$1\" > \"$SWEEP_SPEC_DIR/arg-$SWEEP_JOB_ID.txt\"; exit 3", "sh", "{tag}|{seed}"]"#;
    let path = spec(tmp.path(), command, &format!("[solver.params]\ntag = '{tag}'"), "[\"random\"]");
    let out = tmp.path().join("out");
    let o = sweep().args([path.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    assert!(!o.status.success(), "the program exits 3: its jobs fail");
    let written: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("arg-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(written.len(), 2, "one file per job");
    // `{tag}` first: a second pass would turn the value's own `{seed}` into the seed.
    for w in written {
        let (value, seed) = w.rsplit_once('|').unwrap();
        assert_eq!(value, tag, "the value as written in the spec");
        assert!(seed.parse::<u64>().is_ok(), "{seed:?} is the job's seed");
    }
    assert!(!tmp.path().join("pwned").exists(), "no shell evaluated the value");
}

#[test]
fn the_spec_folder_a_program_is_told_is_absolute_for_a_spec_named_by_a_bare_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    let told = tmp.path().join("told.txt");
    let command =
        format!(r#"["sh", "-c", "printf '%s' \"$SWEEP_SPEC_DIR\" > \"$1\"; exit 3", "sh", "{}"]"#, told.display());
    spec(tmp.path(), &command, "", "[\"random\"]");
    let o = sweep().current_dir(tmp.path()).args(["c.toml", "--out", "out", "--threads", "1"]).output().unwrap();
    assert!(!o.status.success(), "the program exits 3: its jobs fail");
    let dir = std::fs::read_to_string(&told).unwrap();
    assert!(Path::new(&dir).is_absolute(), "{dir:?}");
    assert_eq!(Path::new(&dir).canonicalize().unwrap(), tmp.path().canonicalize().unwrap());
}

#[test]
fn two_program_parameters_that_differ_only_in_case_are_refused_naming_both() {
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), r#"["true"]"#, "[solver.params]\nlr = 0.1\nLR = 0.2", "[\"random\"]");
    let o = run(&["plan", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("solver[1].params.LR") && e.contains("the parameter lr again but for case"), "{e}");
    assert!(e.contains("SWEEP_PARAM_LR"), "{e}");
}

#[test]
fn an_interpreters_missing_script_is_refused_before_any_job() {
    let tmp = tempfile::tempdir().unwrap();
    let path = spec(tmp.path(), r#"["python3", "missing.py"]"#, "", "[\"random\"]");
    let o = run(&["plan", path.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("solver[1].command") && e.contains("missing.py does not exist"), "{e}");
    // An option first (`python3 -c ...`) is not a script.
    let path = spec(tmp.path(), r#"["python3", "-c", "pass"]"#, "", "[\"random\"]");
    assert!(run(&["plan", path.to_str().unwrap()]).status.success());
}

#[test]
fn a_policy_that_gives_one_board_two_moves_fails_its_row_naming_both_lines() {
    let g = Game::TIC_TAC_TOE;
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, g, &[Seat::X], |_, b| first_legal(b));
    // The empty board again, with its last cell instead of the first: line 2 (the empty
    // board is the first position) against the line appended at the end.
    let mut text = std::fs::read_to_string(&file).unwrap();
    let lines = text.lines().count();
    text.push_str(&format!("{},{},x,{g}\n", Board::empty(g), g.move_text(8)));
    std::fs::write(&file, &text).unwrap();
    let spec = spec(tmp.path(), &copier(&file), "seat = \"x\"", "[\"random\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(!o.status.success());
    let r = &rows(&out)[0];
    assert_eq!(r["status"], "failed");
    let want = format!("lines 2 and {} give", lines + 1);
    assert!(r["error"].contains(&want) && r["error"].contains("two moves"), "{}", r["error"]);
    // The same move twice is a repeat, not a conflict.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text = text.lines().take(lines).map(|l| format!("{l}\n")).collect();
    let second = text.lines().nth(1).unwrap().to_string();
    text.push_str(&format!("{second}\n"));
    std::fs::write(&file, &text).unwrap();
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--fresh", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_policy_file_with_its_rows_shuffled_or_repeated_is_the_same_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("first.csv");
    policy_file(&file, Game::TIC_TAC_TOE, &[Seat::X], |_, b| first_legal(b));
    // "shuffled" writes the rows in a new random order every time, three of them twice.
    let script = format!(
        "#!/bin/sh\nf={file}\ncase \"$1\" in\n  plain) cp \"$f\" \"$SWEEP_POLICY\" ;;\n  shuffled) {{ head -n 1 \"$f\"; \
         tail -n +2 \"$f\" | shuf; tail -n 3 \"$f\"; }} > \"$SWEEP_POLICY\" ;;\nesac\n",
        file = file.display()
    );
    std::fs::write(tmp.path().join("p.sh"), script).unwrap();
    let rest = "[solver.params]\nmode = [\"plain\", \"shuffled\"]";
    let spec = spec(tmp.path(), "[\"sh\", \"p.sh\", \"{mode}\"]", rest, "[\"random\"]");
    let out = tmp.path().join("out");
    let o = run(&["run", spec.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = rows(&out);
    // A file in position order, each row once, hashes as its bytes do.
    let bytes = format!("{:016x}", sweep::seed::fnv1a(&std::fs::read(&file).unwrap()));
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["policy_hash"], bytes, "{}: the same moves, the same policy", r["mode"]);
    }
    let shuffled = rows.iter().find(|r| r["mode"] == "shuffled").unwrap()["job_id"].clone();
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", &shuffled, "--trust"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("reproduced: the same policy"), "{}", stdout(&o));
}
