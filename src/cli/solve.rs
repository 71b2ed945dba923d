//! `sweep solve`: the exact optimum of one (game, seat, opponent) MDP, as a table or JSON,
//! with the policy-iteration trace and every state's value on request. The optimum comes
//! from backward induction (one pass over the acyclic MDP, ending exactly where policy
//! iteration ends); policy and value iteration run beside it as checks on MDPs of up to
//! 2,000,000 action slots, or on any with `--check`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use crate::error::{bad_input, exit};
use crate::game::Game;
use crate::mdp::{AgentMdp, Evaluator, Opponent, Seat};
use crate::report::files::write_text_atomic;
use crate::solvers::{policy_iteration, value_iteration};

/// Flags of `sweep solve`.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The agent's seat: x or o.
    #[arg(long, default_value = "x", value_parser = super::seat_arg)]
    seat: Seat,
    /// The fixed opponent: random, minimax or minimax-uniform.
    #[arg(long, default_value = "random", value_parser = super::opponent_arg)]
    opponent: Opponent,
    /// The game: "<rows>x<cols>k<k>" (rows, columns >= 3, at most 16 cells, 3 <= k <= max(rows, columns)).
    #[arg(long, default_value = "3x3k3", value_parser = super::game_arg)]
    game: Game,
    /// Also run policy iteration and value iteration on an MDP of more than 2,000,000
    /// action slots (they always run on smaller ones): both must reach the optimum that
    /// backward induction finds in one pass.
    #[arg(long)]
    check: bool,
    /// Run policy iteration by the seed article's procedure and show its rounds.
    #[arg(long)]
    trace: bool,
    /// Write every agent state's value and optimal actions to this CSV file.
    #[arg(long, value_name = "FILE")]
    values: Option<PathBuf>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The simplest fraction within 1e-12 of `x` with a denominator up to 10^6, if any.
pub fn fraction(x: f64) -> Option<(i64, i64)> {
    let (mut h0, mut h1, mut k0, mut k1) = (0i64, 1i64, 1i64, 0i64);
    let mut r = x;
    for _ in 0..40 {
        let a = r.floor();
        let (h2, k2) = (a as i64 * h1 + h0, a as i64 * k1 + k0);
        if k2 > 1_000_000 {
            return None;
        }
        if (h2 as f64 / k2 as f64 - x).abs() < 1e-12 {
            return Some((h2, k2));
        }
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        let frac = r - a;
        if frac.abs() < 1e-15 {
            return None;
        }
        r = 1.0 / frac;
    }
    None
}

fn show(x: f64) -> String {
    match fraction(x) {
        Some((_, 1)) | None => format!("{x:.6}"),
        Some((p, q)) => format!("{x:.6} ({p}/{q})"),
    }
}

/// The game's value under optimal play by both sides, in words, from X's minimax value.
fn game_value(minimax: i8) -> &'static str {
    match minimax {
        1 => "first player win",
        0 => "draw",
        _ => "second player win",
    }
}

/// Policy and value iteration run as checks on MDPs of at most this many action slots
/// (every board up to 12 cells), and on any with `--check`.
const CHECK_SLOTS: usize = 2_000_000;

/// Runs `sweep solve`.
pub fn solve(args: &SolveArgs) -> Result<i32> {
    let started = Instant::now();
    let mdp = AgentMdp::build(args.game, args.seat, args.opponent);
    let positions = args.game.positions();
    // The optimum by backward induction: exactly where policy iteration ends, in one pass.
    let best = policy_iteration::backward(&mdp);
    let checked = (args.check || args.trace || mdp.slots() <= CHECK_SLOTS).then(|| {
        let pi = if args.trace { policy_iteration::solve_traced(&mdp) } else { policy_iteration::solve(&mdp) };
        (pi, value_iteration::solve(&mdp))
    });
    let eval = Evaluator::new().evaluate(&mdp, |s, _| mdp.cell(best.actions[s] as usize));
    let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    if let Some(path) = &args.values {
        write_values(&mdp, &best, path)?;
    }
    let first = first_moves(&mdp, &best);
    if args.json {
        let obj = json!({
            "game": args.game.to_string(),
            "positions": positions.len(),
            "game_value": game_value(positions.minimax(0)),
            "seat": args.seat.name(),
            "opponent": args.opponent.name(),
            "agent_states": mdp.len(),
            "value": best.value,
            "value_fraction": fraction(best.value).map(|(p, q)| format!("{p}/{q}")),
            "p_win": eval.p_win,
            "p_draw": eval.p_draw,
            "p_loss": eval.p_loss,
            "policy_iteration": checked.as_ref().map(|(pi, _)| json!({
                "procedure": if args.trace { "seed-trace" } else { "backward" },
                "rounds": pi.rounds,
            })),
            "value_iteration": checked.as_ref().map(|(_, (vi, sweeps))| json!({ "sweeps": sweeps, "value": vi.value })),
            "first_moves": first.iter().map(|(b, c, v, opt)| json!({"board": b, "cell": c, "value": v, "optimal": opt})).collect::<Vec<_>>(),
            "time_ms": elapsed_ms,
        });
        println!("{}", serde_json::to_string_pretty(&obj).expect("JSON"));
        return Ok(exit::OK);
    }
    println!(
        "{}: {} legal positions; under optimal play by both sides the game is a {}",
        args.game,
        positions.len(),
        game_value(positions.minimax(0))
    );
    println!("seat {} against {}: {} agent states", args.seat, args.opponent, mdp.len());
    println!("optimal value V* = {}", show(best.value));
    println!("P(win) = {}   P(draw) = {}   P(loss) = {}", show(eval.p_win), show(eval.p_draw), show(eval.p_loss));
    println!("first decisions (* = optimal):");
    for (board, cell, value, optimal) in &first {
        println!("  {board}  cell {cell}  value {value:+.6}{}", if *optimal { "  *" } else { "" });
    }
    match &checked {
        Some((pi, (vi, vi_sweeps))) => {
            println!(
                "policy iteration: {} rounds; value iteration: {} sweeps, V* = {:.12}",
                pi.rounds.len(),
                vi_sweeps,
                vi.value
            );
            if args.trace {
                println!("round  sweeps  V(start)   changed");
                for (i, r) in pi.rounds.iter().enumerate() {
                    println!("{:>5}  {:>6}  {:.6}  {:>7}", i + 1, r.sweeps, r.value, r.changed);
                }
            }
        }
        None => println!(
            "solved by backward induction (one pass; {} action slots): --check also runs policy and value iteration",
            mdp.slots()
        ),
    }
    if let Some(path) = &args.values {
        println!("values of all {} states written to {}", mdp.len(), path.display());
    }
    println!("time: {elapsed_ms:.2} ms");
    Ok(exit::OK)
}

/// The agent's first decisions: each action of each start state with its value.
fn first_moves(mdp: &AgentMdp, pi: &policy_iteration::Solution) -> Vec<(String, u8, f64, bool)> {
    let mut starts: Vec<usize> = mdp.start().iter().map(|o| o.next as usize).collect();
    starts.dedup();
    let mut out = Vec::new();
    for s in starts {
        let best = pi.values[s];
        for (cell, q) in pi.action_values(mdp, s) {
            out.push((mdp.board(s).to_string(), cell, q, q >= best - policy_iteration::TIE));
        }
    }
    out
}

fn write_values(mdp: &AgentMdp, pi: &policy_iteration::Solution, path: &std::path::Path) -> Result<()> {
    let mut text = String::from("board,value,optimal_actions\n");
    for s in 0..mdp.len() {
        let cells: Vec<String> = pi.optimal_cells(mdp, s).iter().map(|c| c.to_string()).collect();
        text.push_str(&format!("{},{:?},{}\n", mdp.board(s), pi.values[s], cells.join("|")));
    }
    write_text_atomic(path, &text).map_err(|e| bad_input(format!("--values {}: {e:#}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        assert_eq!(fraction(191.0 / 192.0), Some((191, 192)));
        assert_eq!(fraction(0.0), Some((0, 1)));
        assert_eq!(fraction(std::f64::consts::PI), None);
    }
}
