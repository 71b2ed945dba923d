//! Saved policies as opponents, through the command line: a policy saved with
//! `reproduce --policy-out` is trained and evaluated against with
//! `opponent = { policy = "file.csv" }`. The truths: a best response to a deterministic
//! policy reaches the optimum of that MDP, which a brute-force game-tree search written
//! here (not the tool's MDP) finds independently; the manifest holds the file's FNV-1a
//! hash; `reproduce` re-runs such a row and refuses a changed file; bad files are refused
//! with exit 2 and nothing written.

use std::collections::HashMap;
use std::path::Path;

use crate::common::{read_csv, run, stderr, stdout, write_spec};

/// The rows of `results.csv` as maps from column to cell.
fn rows(dir: &Path) -> Vec<HashMap<String, String>> {
    let (header, rows) = read_csv(&dir.join("results.csv"));
    rows.into_iter().map(|r| header.iter().cloned().zip(r).collect()).collect()
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}{}", stdout(&o), stderr(&o));
    stdout(&o)
}

/// Runs `spec` into `out` and returns its rows.
fn run_spec(spec: &Path, out: &Path) -> Vec<HashMap<String, String>> {
    ok(&["run", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--yes"]);
    rows(out)
}

/// Saves the policy of the job of `row` in `out` to `file`.
fn save_policy(out: &Path, row: &HashMap<String, String>, file: &Path) {
    let said =
        ok(&["reproduce", out.to_str().unwrap(), "--job", &row["job_id"], "--policy-out", file.to_str().unwrap()]);
    assert!(said.contains("reproduced:"), "{said}");
}

/// A policy file of tic-tac-toe: board → cell.
fn read_policy(file: &Path) -> HashMap<String, u8> {
    let (header, rows) = read_csv(file);
    assert_eq!(header, ["board", "action", "seat", "game"]);
    rows.into_iter().map(|r| (r[0].clone(), r[1].parse().unwrap())).collect()
}

/// The winner of a 3x3 board given as 9 characters, if any.
fn winner(b: &[u8; 9]) -> Option<u8> {
    const LINES: [[usize; 3]; 8] =
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
    LINES.iter().find(|l| b[l[0]] != b'.' && b[l[0]] == b[l[1]] && b[l[1]] == b[l[2]]).map(|l| b[l[0]])
}

/// The best value `agent` (b'X' or b'O') can reach from `b` when the other mark plays
/// `policy`: a plain search of the game tree (agent maximises; a missing policy move is
/// a failure of the test).
fn best_response(b: &mut [u8; 9], agent: u8, policy: &HashMap<String, u8>) -> i32 {
    if let Some(w) = winner(b) {
        return if w == agent { 1 } else { -1 };
    }
    if !b.contains(&b'.') {
        return 0;
    }
    let xs = b.iter().filter(|&&c| c == b'X').count();
    let os = b.iter().filter(|&&c| c == b'O').count();
    let to_move = if xs == os { b'X' } else { b'O' };
    if to_move == agent {
        let mut best = i32::MIN;
        for c in 0..9 {
            if b[c] == b'.' {
                b[c] = agent;
                best = best.max(best_response(b, agent, policy));
                b[c] = b'.';
            }
        }
        best
    } else {
        let key = String::from_utf8(b.to_vec()).unwrap();
        let c = usize::from(*policy.get(&key).unwrap_or_else(|| panic!("the policy has no move for {key}")));
        assert_eq!(b[c], b'.', "{key}: an illegal move");
        b[c] = to_move;
        let v = best_response(b, agent, policy);
        b[c] = b'.';
        v
    }
}

fn against(rows: &[HashMap<String, String>], solver: &str, eval: &str) -> HashMap<String, String> {
    let found = rows.iter().find(|r| r["solver"] == solver && r["eval_opponent"].starts_with(eval));
    found.unwrap_or_else(|| panic!("no {solver} row against {eval}")).clone()
}

/// One round of best response: X against a briefly trained O, then O against that X.
/// Policy iteration reaches the exact optimum of the MDP the saved policy induces (regret
/// 0 exactly, and the value a game-tree search finds); Q-learning's value against a
/// deterministic opponent is one game's result.
#[test]
fn best_responses_to_saved_policies_reach_the_exact_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let o_spec = write_spec(
        dir.path(),
        "o.toml",
        "name = \"o\"\nseed = 7\n[[solver]]\nkind = \"q-learning\"\nseat = \"o\"\nepisodes = 300\n",
    );
    let o_rows = run_spec(&o_spec, &dir.path().join("o"));
    save_policy(&dir.path().join("o"), &o_rows[0], &dir.path().join("o.csv"));

    let x_spec = write_spec(
        dir.path(),
        "x.toml",
        "name = \"x\"\nseed = 7\n[evaluation]\nopponents = [\"random\", { policy = \"o.csv\" }]\n\
         [[solver]]\nkind = \"policy-iteration\"\nopponent = { policy = \"o.csv\" }\n\
         [[solver]]\nkind = \"q-learning\"\nepisodes = 5000\nopponent = { policy = \"o.csv\" }\n",
    );
    let x_rows = run_spec(&x_spec, &dir.path().join("x"));
    let o_policy = read_policy(&dir.path().join("o.csv"));
    let truth = best_response(&mut [b'.'; 9], b'X', &o_policy);
    let exact = against(&x_rows, "policy-iteration", "policy:o.csv@");
    assert_eq!(exact["opponent"], exact["eval_opponent"]);
    assert_eq!(exact["optimal_value"].parse::<f64>().unwrap(), f64::from(truth));
    assert_eq!(exact["value"].parse::<f64>().unwrap(), f64::from(truth));
    assert_eq!(exact["regret"].parse::<f64>().unwrap(), 0.0);
    let learned = against(&x_rows, "q-learning", "policy:o.csv@");
    let value: f64 = learned["value"].parse().unwrap();
    assert!([-1.0, 0.0, 1.0].contains(&value), "one deterministic game: {value}");
    assert_eq!(learned["regret"].parse::<f64>().unwrap(), f64::from(truth) - value);
    for r in &x_rows {
        assert!(r["opponent"].starts_with("policy:o.csv@"), "{}", r["opponent"]);
    }

    // The next round: O against the exact best response of X.
    save_policy(&dir.path().join("x"), &exact, &dir.path().join("x.csv"));
    let o2_spec = write_spec(
        dir.path(),
        "o2.toml",
        "name = \"o2\"\nseed = 7\n[evaluation]\nopponents = [{ policy = \"x.csv\" }]\n\
         [[solver]]\nkind = \"policy-iteration\"\nseat = \"o\"\nopponent = { policy = \"x.csv\" }\n",
    );
    let o2 = run_spec(&o2_spec, &dir.path().join("o2"));
    let truth = best_response(&mut [b'.'; 9], b'O', &read_policy(&dir.path().join("x.csv")));
    assert_eq!(o2.len(), 1);
    assert_eq!(o2[0]["value"].parse::<f64>().unwrap(), f64::from(truth));
    assert_eq!(o2[0]["regret"].parse::<f64>().unwrap(), 0.0);
}

/// FNV-1a, 64 bits, written out here.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The X policy of policy iteration against random, saved by `reproduce --policy-out` to
/// `dir/x.csv` (it holds every position O can lead it to).
fn saved_x(dir: &Path) -> std::path::PathBuf {
    let spec = write_spec(dir, "px.toml", "name = \"px\"\nseed = 1\n[[solver]]\nkind = \"policy-iteration\"\n");
    let rows = run_spec(&spec, &dir.join("px"));
    let file = dir.join("x.csv");
    save_policy(&dir.join("px"), &rows[0], &file);
    file
}

#[test]
fn the_manifest_holds_the_hash_and_reproduce_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = saved_x(dir.path());
    let text = "name = \"vs\"\nseed = 3\n[[solver]]\nkind = \"q-learning\"\nseat = \"o\"\nepisodes = 500\n\
                opponent = { policy = \"x.csv\" }\n";
    let spec = write_spec(dir.path(), "vs.toml", text);
    let out = dir.path().join("vs");
    let rows = run_spec(&spec, &out);
    let hash = format!("{:016x}", fnv1a(&std::fs::read(&file).unwrap()));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["policies"], serde_json::json!([{ "path": "x.csv", "fnv1a": hash }]));
    assert_eq!(rows[0]["opponent"], format!("policy:x.csv@{}", &hash[..8]));

    let o = run(&["reproduce", out.to_str().unwrap(), "--job", &rows[0]["job_id"]]);
    assert!(o.status.success() && stdout(&o).contains("reproduced: every column"), "{}", stdout(&o));

    // The same spec against another file is another job.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(other.join("x.csv"), &bytes).unwrap();
    let other_rows = run_spec(&write_spec(&other, "vs.toml", text), &other.join("vs"));
    assert_ne!(other_rows[0]["job_id"], rows[0]["job_id"]);

    // A changed file cannot reproduce the rows.
    std::fs::write(&file, &bytes).unwrap();
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", &rows[0]["job_id"]]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has changed since the run") && stderr(&o).contains(&hash), "{}", stderr(&o));
}

#[test]
fn wrong_seat_game_or_missing_states_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = saved_x(dir.path());
    let lines: Vec<String> = std::fs::read_to_string(&file).unwrap().lines().map(String::from).collect();
    std::fs::write(dir.path().join("short.csv"), lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    let cases = [
        ("seat = \"x\"\nopponent = { policy = \"x.csv\" }", "cannot be the opponent of an agent in seat x"),
        ("seat = \"o\"\ngame = \"3x4k3\"\nopponent = { policy = \"x.csv\" }", "is a policy for 3x3k3"),
        ("seat = \"o\"\nopponent = { policy = \"short.csv\" }", "has no move for"),
        ("seat = \"o\"\nopponent = { policy = \"none.csv\" }", "does not exist"),
        ("seat = \"o\"\nopponent = { policy = 3 }", "is not a policy opponent"),
    ];
    for (k, (keys, says)) in cases.iter().enumerate() {
        let text = format!("name = \"bad{k}\"\n[[solver]]\nkind = \"policy-iteration\"\n{keys}\n");
        let spec = write_spec(dir.path(), &format!("bad{k}.toml"), &text);
        let out = dir.path().join(format!("bad{k}"));
        let o = run(&["run", spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--yes"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{keys}: {err}");
        assert!(err.contains(says) && err.contains("solver[1].opponent"), "{keys}: {err}");
        assert!(err.contains(&format!("bad{k}.toml:")), "the file and line: {err}");
        assert!(!out.exists(), "nothing written");
    }
    // As an evaluation opponent: a policy of X cannot face an agent in seat x.
    let text =
        "name = \"e\"\n[evaluation]\nopponents = [{ policy = \"x.csv\" }]\n[[solver]]\nkind = \"value-iteration\"\n";
    let o = run(&["plan", write_spec(dir.path(), "e.toml", text).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("evaluation.opponents"), "{}", stderr(&o));
}

/// A self-play job's saved file holds both seats, so it can face a self-play learner in
/// both; an opponent axis with a policy beside `random` keeps the `random` point's job id.
#[test]
fn a_self_play_file_faces_both_seats_and_other_job_ids_stay() {
    let dir = tempfile::tempdir().unwrap();
    let sp = "name = \"sp\"\nseed = 2\n[[solver]]\nkind = \"q-learning\"\nopponent = \"self\"\nepisodes = 2000\n";
    let sp_rows = run_spec(&write_spec(dir.path(), "sp.toml", sp), &dir.path().join("sp"));
    save_policy(&dir.path().join("sp"), &sp_rows[0], &dir.path().join("sp.csv"));
    let seats: std::collections::BTreeSet<String> =
        read_csv(&dir.path().join("sp.csv")).1.into_iter().map(|r| r[2].clone()).collect();
    assert_eq!(seats.into_iter().collect::<Vec<_>>(), ["o", "x"]);

    let both = "name = \"vs\"\nseed = 2\n[evaluation]\nopponents = [\"random\", { policy = \"sp.csv\" }]\n\
                [[solver]]\nkind = \"q-learning\"\nopponent = \"self\"\nepisodes = 2000\n\
                [[solver]]\nkind = \"value-iteration\"\nseat = [\"x\", \"o\"]\nopponent = [\"random\", { policy = \"sp.csv\" }]\n";
    let rows = run_spec(&write_spec(dir.path(), "vs.toml", both), &dir.path().join("vs"));
    let self_play: Vec<_> = rows.iter().filter(|r| r["solver"] == "q-learning").collect();
    assert_eq!(self_play.len(), 4, "two seats, two evaluation opponents");
    for r in rows.iter().filter(|r| r["solver"] == "value-iteration" && r["opponent"] == r["eval_opponent"]) {
        assert_eq!(r["regret"].parse::<f64>().unwrap(), 0.0, "{r:?}");
    }

    // The `random` points have the ids they have in a spec without any policy.
    let plain = "name = \"plain\"\nseed = 2\n[[solver]]\nkind = \"value-iteration\"\nseat = [\"x\", \"o\"]\n";
    let plain_rows = run_spec(&write_spec(dir.path(), "plain.toml", plain), &dir.path().join("plain"));
    for r in &plain_rows {
        let same = rows
            .iter()
            .find(|v| v["solver"] == "value-iteration" && v["opponent"] == "random" && v["seat"] == r["seat"]);
        assert_eq!(same.map(|v| &v["job_id"]), Some(&r["job_id"]));
    }
}
