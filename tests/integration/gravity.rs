//! Gravity boards (`"<rows>x<cols>g<k>"`): their figures against a brute force written
//! here without the crate's rules, 4x4g4's public figures, exact values against games
//! sampled by the rules, mirrored boards, and every learner and MCTS through the command
//! line scored at or below the optimum.

use std::collections::HashMap;

use crate::common::*;
use sweep::game::Game;
use sweep::mdp::{Opponent, Seat};
use sweep::solvers::ground_truth;

fn game(s: &str) -> Game {
    s.parse().unwrap()
}

/// A brute force of a gravity board, independent of the crate: a board is a grid of
/// 0 (empty), 1 (X), 2 (O), row 0 at the top; a move drops a stone into a column.
struct Brute {
    rows: usize,
    cols: usize,
    k: usize,
    /// Every position reached (the key: the grid), with X's value under optimal play.
    value: HashMap<Vec<u8>, i8>,
}

impl Brute {
    fn new(rows: usize, cols: usize, k: usize) -> Brute {
        let mut b = Brute { rows, cols, k, value: HashMap::new() };
        b.solve(&vec![0; rows * cols], 1);
        b
    }

    /// Whether `who` has `k` in a row anywhere.
    fn has_line(&self, grid: &[u8], who: u8) -> bool {
        let (rows, cols, k) = (self.rows as i64, self.cols as i64, self.k as i64);
        let at = |r: i64, c: i64| r >= 0 && r < rows && c >= 0 && c < cols && grid[(r * cols + c) as usize] == who;
        (0..rows).any(|r| {
            (0..cols).any(|c| {
                [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| (0..k).all(|i| at(r + dr * i, c + dc * i)))
            })
        })
    }

    /// Whether the game goes on in `grid`: no line and an empty cell.
    fn unfinished(&self, grid: &[u8]) -> bool {
        !self.has_line(grid, 1) && !self.has_line(grid, 2) && grid.contains(&0)
    }

    /// The value for `me` of `grid` with `who` to move when `me` plays optimally and the
    /// other side uniformly at random over its columns.
    fn against_random(&self, grid: &[u8], who: u8, me: u8, memo: &mut HashMap<Vec<u8>, f64>) -> f64 {
        if let Some(&v) = memo.get(grid) {
            return v;
        }
        let v = if self.has_line(grid, me) {
            1.0
        } else if self.has_line(grid, 3 - me) {
            -1.0
        } else {
            let mut values = Vec::new();
            for c in 0..self.cols {
                if let Some(r) = (0..self.rows).rev().find(|&r| grid[r * self.cols + c] == 0) {
                    let mut next = grid.to_vec();
                    next[r * self.cols + c] = who;
                    values.push(self.against_random(&next, 3 - who, me, memo));
                }
            }
            match values.len() {
                0 => 0.0,
                _ if who == me => values.into_iter().fold(f64::NEG_INFINITY, f64::max),
                n => values.iter().sum::<f64>() / n as f64,
            }
        };
        memo.insert(grid.to_vec(), v);
        v
    }

    /// X's value of `grid` with `who` to move, recording every position reached.
    fn solve(&mut self, grid: &[u8], who: u8) -> i8 {
        if let Some(&v) = self.value.get(grid) {
            return v;
        }
        let v = if self.has_line(grid, 1) {
            1
        } else if self.has_line(grid, 2) {
            -1
        } else {
            let mut children = Vec::new();
            for c in 0..self.cols {
                if let Some(r) = (0..self.rows).rev().find(|&r| grid[r * self.cols + c] == 0) {
                    let mut next = grid.to_vec();
                    next[r * self.cols + c] = who;
                    children.push(next);
                }
            }
            if children.is_empty() {
                0
            } else {
                let values = children.iter().map(|g| self.solve(g, 3 - who));
                if who == 1 { values.max().unwrap() } else { values.min().unwrap() }
            }
        };
        self.value.insert(grid.to_vec(), v);
        v
    }
}

#[test]
fn small_gravity_boards_match_a_brute_force() {
    for (rows, cols, k) in [(3, 3, 3), (3, 4, 3), (4, 3, 3), (3, 5, 3), (5, 3, 3), (3, 4, 4), (4, 4, 3), (3, 5, 4)] {
        let name = format!("{rows}x{cols}g{k}");
        let brute = Brute::new(rows, cols, k);
        let pos = game(&name).positions();
        let empty = vec![0u8; rows * cols];
        assert_eq!(pos.len(), brute.value.len(), "{name}: legal positions");
        assert_eq!(pos.minimax(0), brute.value[&empty], "{name}: the game value");
        // Against random, X's agent states are the unfinished positions with X to move.
        let x_to_move =
            brute.value.keys().filter(|g| brute.unfinished(g) && g.iter().filter(|&&m| m != 0).count() % 2 == 0);
        assert_eq!(ground_truth(game(&name), Seat::X, Opponent::Random).mdp.len(), x_to_move.count(), "{name}");
        // Every position has the brute force's value.
        for id in 0..pos.len() {
            let b = pos.board(id);
            let grid: Vec<u8> =
                b.to_string().bytes().map(|c| [b'.', b'X', b'O'].iter().position(|&m| m == c).unwrap() as u8).collect();
            assert_eq!(Some(&pos.minimax(id)), brute.value.get(&grid), "{name}: {b}");
        }
    }
}

#[test]
fn optimal_values_against_random_match_a_brute_force() {
    // 3x3g3, X against random: 25/27 (an expectimax over columns).
    let truth = ground_truth(game("3x3g3"), Seat::X, Opponent::Random);
    assert!((truth.solution.value - 25.0 / 27.0).abs() < 1e-12, "{}", truth.solution.value);
    for (rows, cols, k) in [(3, 3, 3), (3, 4, 3), (4, 3, 3), (3, 4, 4)] {
        let brute = Brute::new(rows, cols, k);
        for (seat, me) in [(Seat::X, 1), (Seat::O, 2)] {
            let want = brute.against_random(&vec![0; rows * cols], 1, me, &mut HashMap::new());
            let got = ground_truth(game(&format!("{rows}x{cols}g{k}")), seat, Opponent::Random).solution.value;
            assert!((got - want).abs() < 1e-12, "{rows}x{cols}g{k} {seat}: {got} but the brute force says {want}");
        }
    }
}

#[test]
fn four_by_four_gravity_has_its_public_figures() {
    let pos = game("4x4g4").positions();
    assert_eq!(pos.len(), 161_029, "4x4g4: legal positions, the empty board and finished boards included");
    assert_eq!(pos.minimax(0), 0, "4x4g4: a draw under optimal play");
    let brute = Brute::new(4, 4, 4);
    assert_eq!(brute.value.len(), 161_029);
    assert_eq!(brute.value[&vec![0; 16]], 0);
    let x_to_move =
        brute.value.keys().filter(|g| brute.unfinished(g) && g.iter().filter(|&&m| m != 0).count() % 2 == 0);
    assert_eq!(ground_truth(game("4x4g4"), Seat::X, Opponent::Random).mdp.len(), x_to_move.count());
    // Figures are counted, not looked up, and agree with the positions.
    let f = game("4x4g4").figures();
    assert_eq!(f.positions, 161_029);
    let ongoing = (0..pos.len()).filter(|&i| pos.status(i) == sweep::game::Status::Ongoing).count() as u64;
    assert_eq!(f.all().states, ongoing);
}

/// Exact values of three policies agree with games played by the rules, within a 99.9%
/// interval, in both seats against every opponent; none beats the optimum.
#[test]
fn exact_values_match_sampled_games() {
    let every: Vec<(Seat, Opponent)> =
        Seat::ALL.iter().flat_map(|&s| Opponent::ALL.iter().map(move |&o| (s, o))).collect();
    for g in [game("3x4g3"), game("4x4g4")] {
        exact_matches_sampled(g, 20_000, &every);
    }
}

#[test]
fn mirrored_boards_have_equal_values() {
    let g = game("4x4g4");
    for &seat in Seat::ALL {
        let truth = ground_truth(g, seat, Opponent::Random);
        for s in 0..truth.mdp.len() {
            let b = truth.mdp.board(s);
            let m = sweep::game::symmetry::apply(4, b);
            let t = truth.mdp.state(m).expect("the mirror image is an agent state too");
            assert!((truth.solution.values[s] - truth.solution.values[t]).abs() < 1e-12, "{b} and {m}");
        }
    }
}

/// Every learner (with and without symmetry, and in self-play) and MCTS on two gravity
/// boards through the command line: every row scored, regret >= 0, the `game` column
/// says the board; one job reproduces; summary reads the results.
#[test]
fn every_learner_on_gravity_boards_scores_at_or_below_the_optimum() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("gravity.toml");
    let mut text = String::from(
        "name = \"gravity-test\"\nseed = 7\nreplicates = 1\n\n[evaluation]\n\
         opponents = [\"random\", \"minimax\", \"best-response\"]\ncheckpoints = 2\n",
    );
    for kind in ["q-learning", "sarsa", "expected-sarsa", "double-q-learning", "monte-carlo"] {
        text.push_str(&format!(
            "\n[[solver]]\nkind = \"{kind}\"\ngame = [\"3x4g3\", \"4x4g4\"]\nseat = [\"x\", \"o\"]\n\
             episodes = 2000\nsymmetry = [false, true]\n\
             \n[[solver]]\nkind = \"{kind}\"\nlabel = \"{kind}-self\"\ngame = \"3x4g3\"\n\
             opponent = \"self\"\nepisodes = 2000\n"
        ));
    }
    text.push_str("\n[[solver]]\nkind = \"mcts\"\ngame = \"4x4g4\"\nseat = [\"x\", \"o\"]\niterations = 50\n");
    text.push_str("\n[[solver]]\nkind = \"policy-iteration\"\ngame = \"4x4g4\"\nseat = [\"x\", \"o\"]\n");
    std::fs::write(&spec, text).unwrap();
    let out = tmp.path().join("out");
    let o = sweep().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert!(rows.len() > 40);
    for r in &rows {
        assert_eq!(r[col("status")], "ok", "{r:?}");
        assert!(["3x4g3", "4x4g4"].contains(&r[col("game")].as_str()), "{r:?}");
        let regret: f64 = r[col("regret")].parse().unwrap();
        assert!(regret >= -1e-12, "negative regret in {r:?}");
        if r[col("solver")] == "policy-iteration" && r[col("eval_opponent")] == "random" {
            assert!(regret.abs() < 1e-12, "{r:?}");
        }
    }
    let job = &rows.iter().find(|r| r[col("solver")] == "q-learning" && r[col("game")] == "4x4g4").unwrap()[0];
    let policy = tmp.path().join("policy.csv");
    let o = run(&["reproduce", out.to_str().unwrap(), "--job", job, "--policy-out", policy.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // The policy file writes moves as columns, and a spec can name it as an opponent.
    let (_, moves) = read_csv(&policy);
    assert!(moves.iter().all(|m| m[1].parse::<usize>().unwrap() < 4 && m[3] == "4x4g4"), "{moves:?}");
    let o = run(&["summary", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("4x4g4"), "{}", stdout(&o));
}

#[test]
fn play_solve_and_plan_take_a_gravity_board() {
    let o = run(&["solve", "--game", "4x4g4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v["game"].as_str(), v["positions"].as_u64()), (Some("4x4g4"), Some(161_029)));
    assert_eq!(v["game_value"], "draw");

    // Columns, not cells: 1 drops to cell 13; 4 is no column; after four stones column 1
    // is full.
    let o = sweep().args(["play", "--game", "4x4g4", "--seat", "x"]).write_stdin("1\n4\n1\n1\n").output().unwrap();
    let text = stdout(&o);
    assert!(o.status.success(), "{text}");
    assert!(text.contains("Type a column number 0-3"), "{text}");
    assert!(text.contains("\"4\" is not a column; type a number from 0 to 3"), "{text}");
    assert!(text.contains("agent plays"), "{text}");

    for beyond in ["5x5g4", "4x6g4", "7x4g4"] {
        let o = run(&["solve", "--game", beyond]);
        assert_eq!(o.status.code(), Some(2), "{beyond}");
        let e = stderr(&o);
        assert!(e.contains(beyond) && e.contains("<rows>x<cols>g<k>"), "{e}");
        assert!(e.contains("rows times columns at most 20, or at most 24 on at most 4 columns"), "{e}");
    }
}

/// Boards beyond 16 cells keep their positions in a sorted list instead of a base-3 table:
/// 3x6g3 (18 cells) and 5x4g4 (20 cells) position by position against the brute force,
/// and the optimum against random of one seat against the brute force's expectimax.
#[test]
fn gravity_boards_beyond_sixteen_cells_match_a_brute_force() {
    for (rows, cols, k) in [(3, 6, 3), (5, 4, 4)] {
        let name = format!("{rows}x{cols}g{k}");
        let brute = Brute::new(rows, cols, k);
        let pos = game(&name).positions();
        assert_eq!(pos.len(), brute.value.len(), "{name}: legal positions");
        assert_eq!(pos.minimax(0), brute.value[&vec![0u8; rows * cols]], "{name}: the game value");
        for id in 0..pos.len() {
            let b = pos.board(id);
            assert_eq!(pos.id(b), Some(id), "{name}: {b}");
            let grid: Vec<u8> =
                b.to_string().bytes().map(|c| [b'.', b'X', b'O'].iter().position(|&m| m == c).unwrap() as u8).collect();
            assert_eq!(Some(&pos.minimax(id)), brute.value.get(&grid), "{name}: {b}");
            for c in b.legal_cells() {
                assert_eq!(pos.child(id, c) as usize, pos.id(b.play(c)).expect("a move leads to a position"));
            }
        }
        let x_to_move =
            brute.value.keys().filter(|g| brute.unfinished(g) && g.iter().filter(|&&m| m != 0).count() % 2 == 0);
        assert_eq!(ground_truth(game(&name), Seat::X, Opponent::Random).mdp.len(), x_to_move.count(), "{name}");
        let (seat, me) = if rows == 5 { (Seat::X, 1) } else { (Seat::O, 2) };
        let want = brute.against_random(&vec![0; rows * cols], 1, me, &mut HashMap::new());
        let got = ground_truth(game(&name), seat, Opponent::Random).solution.value;
        assert!((got - want).abs() < 1e-12, "{name} {seat}: {got} but the brute force says {want}");
        // Mirrored boards have equal values.
        for id in (0..pos.len()).step_by(101) {
            let m = sweep::game::symmetry::apply(4, pos.board(id));
            assert_eq!(pos.minimax(pos.id(m).expect("mirror images are reachable")), pos.minimax(id));
        }
    }
}

/// 4 rows x 5 columns, four in a row: counted against the brute force (release build).
#[test]
#[ignore = "release build: the brute force holds 4x5g4's 3.9 million positions"]
fn four_by_five_gravity_matches_a_brute_force() {
    let brute = Brute::new(4, 5, 4);
    let pos = game("4x5g4").positions();
    assert_eq!(pos.len(), brute.value.len());
    assert_eq!(pos.minimax(0), brute.value[&vec![0u8; 20]]);
}

/// 6 rows x 4 columns, four in a row (24 cells, the largest allowed): its positions and
/// value from the brute force, and through `solve` (release build).
#[test]
#[ignore = "release build: the brute force holds 6x4g4's 15.8 million positions"]
fn six_by_four_gravity_matches_a_brute_force() {
    let o = run(&["solve", "--game", "6x4g4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let brute = Brute::new(6, 4, 4);
    assert_eq!(v["positions"].as_u64(), Some(brute.value.len() as u64));
    let value = ["second player win", "draw", "first player win"][(brute.value[&vec![0u8; 24]] + 1) as usize];
    assert_eq!(v["game_value"], value);
}

/// The largest boards through the command line: `solve` and `plan` on a 20-cell board,
/// and a short sweep of a learner and MCTS on an 18-cell one, scored at or below the
/// optimum.
#[test]
fn solve_plan_and_sweep_take_boards_beyond_sixteen_cells() {
    let o = run(&["solve", "--game", "5x4g4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let pos = game("5x4g4").positions();
    assert_eq!(v["positions"].as_u64(), Some(pos.len() as u64));
    assert_eq!(v["game_value"], ["second player win", "draw", "first player win"][(pos.minimax(0) + 1) as usize]);

    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("big.toml");
    std::fs::write(
        &spec,
        "name = \"big-gravity\"\nseed = 3\nreplicates = 1\n\n[evaluation]\nopponents = [\"random\", \"minimax\"]\n\
         checkpoints = 1\n\n[[solver]]\nkind = \"q-learning\"\ngame = \"3x6g3\"\nseat = [\"x\", \"o\"]\n\
         episodes = 500\nsymmetry = [false, true]\n\n[[solver]]\nkind = \"mcts\"\ngame = \"3x6g3\"\nseat = \"x\"\n\
         iterations = 20\n",
    )
    .unwrap();
    let o = run(&["plan", spec.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp.path().join("out");
    let o = sweep().args([spec.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("results.csv"));
    let col = |name: &str| header.iter().position(|c| c == name).unwrap();
    assert!(rows.len() >= 5 * 2, "{rows:?}");
    for r in &rows {
        assert_eq!((r[col("status")].as_str(), r[col("game")].as_str()), ("ok", "3x6g3"), "{r:?}");
        assert!(r[col("regret")].parse::<f64>().unwrap() >= -1e-12, "{r:?}");
    }
}
