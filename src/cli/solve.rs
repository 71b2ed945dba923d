//! `sweep solve`: the exact optimum of one (game, seat, opponent) MDP, as a table or JSON,
//! with the policy-iteration trace and every state's value on request. The optimum comes
//! from backward induction (one pass over the acyclic MDP, ending exactly where policy
//! iteration ends); policy and value iteration run beside it as checks on MDPs of up to
//! 2,000,000 action slots, or on any with `--check`. A number is followed by a fraction
//! only when that fraction is provably its exact value (see [`exact_fraction`]).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use super::positions::{Ask, Printed, has_field_notation};
use crate::error::{bad_input, exit};
use crate::game::{Game, Positions};
use crate::mdp::{AgentMdp, Evaluation, Evaluator, Opponent, Seat};
use crate::oracle::Shape;
use crate::report::files::write_text_atomic;
use crate::report::table::{Cell, Column, Doc, Table};
use crate::solvers::{policy_iteration, value_iteration};
use crate::stats::special::gcd;

/// Flags of `sweep solve`.
#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The agent's seat: x or o.
    #[arg(long, default_value = "x", value_parser = super::seat_arg)]
    seat: Seat,
    /// The fixed opponent: random, minimax or minimax-uniform.
    #[arg(long, default_value = "random", value_parser = super::opponent_arg)]
    opponent: Opponent,
    /// The game: "<rows>x<cols>k<k>" or "<rows>x<cols>g<k>" (gravity: moves are columns, written as column numbers in --values); rows, columns >= 3, at most 16 cells (k) or at most 20 cells, or 24 on at most 4 columns (g), 3 <= k <= max(rows, columns). With --moves or --positions, any board the search takes: columns x (rows + 1) at most 63 (Connect Four is 6x7g4), m,n,k at most 31 cells.
    #[arg(long, default_value = "3x3k3")]
    game: String,
    /// Value the position after these moves by search instead of solving an MDP: moves
    /// from 0 separated by commas (gravity: columns, as `play` takes them; m,n,k: cells),
    /// `-` for the empty board, or on a gravity board a digit string of columns from 1
    /// (the field's notation, `4453`). Prints, from one search, the value for the player
    /// to move (1 win, 0 draw, -1 loss), the plies to the end and the score as the field
    /// writes it (positive: the player to move wins, (cells/2 + 1) - the winner's stones
    /// at the end, 22 - ... on 7x6; 0 draw; negative: loses); --outcome and --every-move
    /// ask less and more.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    moves: Option<String>,
    /// Value many positions by search, one per line: a move list as --moves takes it,
    /// or the field's test-set line `<moves> <score>` (`4453 -2`; there a single digit is
    /// a column from 1), whose score is not used by the search but checked: a
    /// `given_score` and whether it `agrees`, and a note on standard error where it does
    /// not. Blank lines, `#` comments and anything after a line's second field are
    /// ignored; a line holds at most 4096 bytes; `-` is standard input. Each answer is
    /// printed as its line is read (a line of text, a CSV record with --format csv,
    /// `<moves> <score>` with --format field, a JSON object per line with --json), so a
    /// file of any length takes bounded memory; every bad line is named by file and line
    /// on standard error, and any makes the exit code 2.
    #[arg(long, value_name = "FILE", conflicts_with = "moves")]
    positions: Option<PathBuf>,
    /// Answer positions on standard input by search until it ends: `positions N`, then N
    /// boards (X, O or . per cell, row by row from the top left); one line back per board,
    /// its value for the player to move and each legal move's, `1 3:1 2:0 4:0 ...`. A line
    /// holds at most 4096 bytes; the first bad line (not UTF-8, too long, a board of the
    /// wrong length or characters, or not a position in play) ends it with exit code 2 and
    /// `error: standard input:LINE: why` on standard output and error.
    #[arg(long, conflicts_with_all = ["moves", "positions"])]
    serve: bool,
    /// With --moves or --positions: win, draw or loss only, the cheapest search (two null
    /// windows at most); no plies, no score.
    #[arg(long)]
    outcome: bool,
    /// With --moves or --positions: also each legal move's value (value and plies, or
    /// the outcome with --outcome) and the best moves, a search per move.
    #[arg(long)]
    every_move: bool,
    /// The search's transposition table, in MiB: from 1 to this machine's memory (never
    /// above 1048576, 1 TiB); default a quarter of the memory budget, from 64 to 1024.
    #[arg(long, value_name = "MIB", value_parser = super::ranges::table_mib)]
    table_mib: Option<usize>,
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
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// How to print the tables: text, csv, json, markdown, latex or html (see `sweep
    /// summary --help`); with --moves or --positions also field, the field's test-set
    /// line `<moves> <score>` (moves as columns from 1), e.g. to label a test set.
    #[arg(long, default_value = "text", value_name = "FORMAT", value_parser = printed_arg)]
    format: Printed,
}

/// `--format`: a table form, or the field's notation.
fn printed_arg(text: &str) -> Result<Printed, String> {
    if text == "field" {
        return Ok(Printed::Field);
    }
    <super::table::FormatArg as clap::ValueEnum>::from_str(text, false)
        .map(|f| Printed::Table(f.format()))
        .map_err(|_| format!("{text:?}: one of text, csv, json, markdown, latex, html, field"))
}

/// A bound on the absolute floating-point error of a value or probability of `game`
/// computed by the exact evaluation: at most one averaging over at most `cells` moves per
/// level, at most `cells` levels, each adding at most `cells + 1` roundings of relative
/// size `EPSILON` to numbers of size at most 1; doubled for a value (a difference of two
/// probabilities) and doubled again for margin.
pub fn error_bound(game: Game) -> f64 {
    let n = game.cells() as f64;
    4.0 * n * (n + 1.0) * f64::EPSILON
}

/// `x` as the exact fraction `p/q` (in lowest terms) when it provably is one: `x` is
/// within `error` of a multiple of `1/denominator`, and `denominator · error < 1/2`, so
/// that only one multiple is that close. None when no multiple is close enough (a bug in
/// the denominator) or when the error is too large to single one out.
pub fn exact_fraction(x: f64, denominator: u128, error: f64) -> Option<(i128, u128)> {
    let d = denominator as f64;
    if !x.is_finite() || d * error >= 0.5 || d >= 2f64.powi(52) {
        return None;
    }
    let scaled = x * d;
    let numerator = scaled.round();
    // The product x · d adds its own rounding, at most an ulp of it.
    if (scaled - numerator).abs() > d * error + scaled.abs() * f64::EPSILON {
        return None;
    }
    let numerator = numerator as i128;
    let g = gcd(numerator.unsigned_abs(), denominator).max(1);
    Some((numerator / g as i128, denominator / g))
}

/// A number to six decimals, followed by its exact fraction when it has one that is not
/// whole.
fn show(x: f64, exact: impl Fn(f64) -> Option<(i128, u128)>) -> String {
    match exact(x) {
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

/// The flags with the game read as an enumerable one.
struct Resolved<'a> {
    game: Game,
    args: &'a SolveArgs,
}

impl std::ops::Deref for Resolved<'_> {
    type Target = SolveArgs;
    fn deref(&self) -> &SolveArgs {
        self.args
    }
}

/// Runs `sweep solve`.
pub fn solve(args: &SolveArgs) -> Result<i32> {
    if args.moves.is_some() || args.positions.is_some() || args.serve {
        return by_search(args);
    }
    if args.outcome || args.every_move {
        return Err(bad_input("--outcome and --every-move ask of a position: with --moves or --positions"));
    }
    let Printed::Table(format) = args.format else {
        return Err(bad_input("--format field writes positions and their scores: with --moves or --positions"));
    };
    let game = enumerable(args)?;
    let args = &Resolved { game, args };
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
    let common = args.opponent.denominator(args.game, args.seat);
    let solved = Solved { mdp, positions, best, checked, eval, elapsed_ms, first, common };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&solved_json(args, &solved)).expect("JSON"));
        return Ok(exit::OK);
    }
    super::table::print_doc(&solved_doc(args, &solved), format);
    Ok(exit::OK)
}

/// `sweep solve --moves`, `--positions` or `--serve`: positions of any board the search
/// takes, valued by search with a transposition table of `--table-mib` (by default from
/// the memory budget).
fn by_search(args: &SolveArgs) -> Result<i32> {
    let shape: Shape = args.game.parse().map_err(|e: crate::oracle::ParseShapeError| bad_input(e.to_string()))?;
    let table_mib = args.table_mib.unwrap_or_else(|| {
        crate::cost::memory::default_budget().map_or(1024, |(bytes, _)| (bytes >> 22) as usize).clamp(64, 1024)
    });
    if args.serve {
        return super::serve::serve(shape, table_mib);
    }
    let ask = Ask { outcome: args.outcome, every_move: args.every_move };
    if args.format == Printed::Field {
        if !has_field_notation(shape) {
            return Err(bad_input(format!(
                "--format field writes moves as one digit per column from 1: a gravity board of at most 9 columns, not {shape}"
            )));
        }
        if args.outcome || args.every_move {
            return Err(bad_input(
                "--format field writes each position's score only: not with --outcome or --every-move",
            ));
        }
    }
    if let Some(file) = &args.positions {
        return super::positions::stream(shape, file, table_mib, args.json, args.format, ask);
    }
    let moves = args.moves.as_deref().expect("by_search runs with --moves, --positions or --serve");
    super::positions::value(shape, moves, table_mib, args.json, args.format, ask)
}

/// The game of `--game` as an enumerable one; a board that only the search takes is
/// refused with the flags that value its positions.
fn enumerable(args: &SolveArgs) -> Result<Game> {
    match args.game.parse() {
        Ok(g) => Ok(g),
        Err(e) if args.game.parse::<Shape>().is_ok() => Err(bad_input(format!(
            "{e}\n{} is too big to enumerate: value its positions by search with --moves or --positions (e.g. sweep solve --game {} --moves 3,3,4); {}",
            args.game,
            args.game,
            crate::kinds::param::BEYOND_ENUMERATION
        ))),
        Err(e) => Err(bad_input(e.to_string())),
    }
}

/// What `sweep solve` found for one MDP: the optimum, the checks by policy and value
/// iteration (when they ran), the optimal policy's outcomes, the time taken, the agent's
/// first decisions, and the denominator common to every exact value and probability
/// (when the opponent has one).
struct Solved {
    mdp: AgentMdp,
    positions: &'static Positions,
    best: policy_iteration::Solution,
    checked: Option<(policy_iteration::Solution, (policy_iteration::Solution, u32))>,
    eval: Evaluation,
    elapsed_ms: f64,
    first: Vec<(String, u8, f64, bool)>,
    common: Option<u128>,
}

impl Solved {
    /// `x` as an exact fraction of `game`'s common denominator, when it provably is one.
    fn exact(&self, game: Game, x: f64) -> Option<(i128, u128)> {
        self.common.and_then(|d| exact_fraction(x, d, error_bound(game)))
    }
}

/// The JSON object of `sweep solve --json`.
fn solved_json(args: &Resolved, solved: &Solved) -> serde_json::Value {
    let Solved { mdp, positions, best, checked, eval, elapsed_ms, first, .. } = solved;
    json!({
        "game": args.game.to_string(),
        "positions": positions.len(),
        "game_value": game_value(positions.minimax(0)),
        "seat": args.seat.name(),
        "opponent": args.opponent.name(),
        "agent_states": mdp.len(),
        "value": best.value,
        "value_fraction": solved.exact(args.game, best.value).map(|(p, q)| format!("{p}/{q}")),
        "p_win": eval.p_win,
        "p_draw": eval.p_draw,
        "p_loss": eval.p_loss,
        "policy_iteration": checked.as_ref().map(|(pi, _)| json!({
            "procedure": if args.trace { "seed-trace" } else { "backward" },
            "rounds": pi.rounds,
        })),
        "value_iteration": checked.as_ref().map(|(_, (vi, sweeps))| json!({ "sweeps": sweeps, "value": vi.value })),
        "first_moves": first.iter().map(|(b, c, v, opt)| json!({"board": b, "cell": c, "move": args.game.move_text(*c), "value": v, "optimal": opt})).collect::<Vec<_>>(),
        "time_ms": elapsed_ms,
    })
}

/// What `sweep solve` prints without `--json`: the optimum in words and as a table, the
/// first decisions, the checks (with policy iteration's rounds under `--trace`), where
/// the values went and the time taken.
fn solved_doc(args: &Resolved, solved: &Solved) -> Doc {
    let Solved { mdp, positions, best, eval, elapsed_ms, .. } = solved;
    let exact = |x: f64| solved.exact(args.game, x);
    let mut doc = Doc::new(format!("sweep solve: {} as {} against {}", args.game, args.seat, args.opponent));
    doc.line(format!(
        "{}: {} legal positions; under optimal play by both sides the game is a {}",
        args.game,
        positions.len(),
        game_value(positions.minimax(0))
    ));
    doc.line(format!("seat {} against {}: {} agent states", args.seat, args.opponent, mdp.len()));
    doc.line(format!("optimal value V* = {}", show(best.value, exact)));
    doc.line(format!(
        "P(win) = {}   P(draw) = {}   P(loss) = {}",
        show(eval.p_win, exact),
        show(eval.p_draw, exact),
        show(eval.p_loss, exact)
    ));
    let fraction = |x: f64| exact(x).map_or(Cell::Missing, |(p, q)| Cell::text(format!("{p}/{q}")));
    let figures = ["game", "game_value", "seat", "opponent"].map(Column::text).into_iter();
    let figures = figures.chain(["positions", "agent_states"].map(Column::integers));
    let figures = figures.chain([Column::numbers("value"), Column::text("value_fraction")]);
    let figures = figures.chain(["p_win", "p_draw", "p_loss"].map(Column::numbers));
    let mut solution = Table::new("the optimum", figures.collect());
    solution.push(vec![
        Cell::text(args.game.to_string()),
        Cell::text(game_value(positions.minimax(0))),
        Cell::text(args.seat.name()),
        Cell::text(args.opponent.name()),
        Cell::int(positions.len()),
        Cell::int(mdp.len()),
        Cell::Float(best.value),
        fraction(best.value),
        Cell::Float(eval.p_win),
        Cell::Float(eval.p_draw),
        Cell::Float(eval.p_loss),
    ]);
    doc.data(solution);
    doc.line("first decisions (* = optimal):");
    doc.table(first_decisions(args.game, &solved.first));
    checks(&mut doc, args, solved);
    if let Some(path) = &args.values {
        doc.line(format!("values of all {} states written to {}", mdp.len(), path.display()));
    }
    doc.line(format!("time: {elapsed_ms:.2} ms"));
    doc
}

/// The agent's first decisions on `game` as a headless table: board, cell (and the move,
/// where it is not written as its cell), value and `*` on the optimal ones.
fn first_decisions(game: Game, first: &[(String, u8, f64, bool)]) -> Table {
    let columns = vec![
        Column::text("board").at_least(0),
        Column::integers("cell").at_least(0),
        Column::numbers("value").at_least(0),
        Column::text("optimal").at_least(0),
    ];
    let mut decisions = Table::new("first decisions (* = optimal)", columns).headless().indented(2);
    for (board, cell, value, optimal) in first {
        // Where a move is not written as its cell (gravity boards: the column), say both.
        let text = game.move_text(*cell);
        let shown = if text == cell.to_string() { String::new() } else { format!(" (move {text})") };
        decisions.push(vec![
            Cell::text(board.to_string()),
            Cell::Shown { text: format!("cell {cell}{shown}"), full: cell.to_string() },
            Cell::number_as(format!("value {value:+.6}"), *value),
            Cell::text(if *optimal { "*" } else { "" }),
        ]);
    }
    decisions
}

/// Adds to `doc` what the checks by policy and value iteration found, with policy
/// iteration's rounds under `--trace`, or that the optimum came from backward induction
/// alone.
fn checks(doc: &mut Doc, args: &Resolved, solved: &Solved) {
    match &solved.checked {
        Some((pi, (vi, vi_sweeps))) => {
            doc.line(format!(
                "policy iteration: {} rounds; value iteration: {} sweeps, V* = {:.12}",
                pi.rounds.len(),
                vi_sweeps,
                vi.value
            ));
            if args.trace {
                let columns = vec![
                    Column::integers("round").right().at_least(5),
                    Column::integers("sweeps").right().at_least(6),
                    Column::numbers("V(start)").at_least(0),
                    Column::integers("changed").right().at_least(7),
                ];
                let mut rounds = Table::new("policy iteration's rounds", columns);
                for (i, r) in pi.rounds.iter().enumerate() {
                    rounds.push(vec![
                        Cell::int(i + 1),
                        Cell::Integer(r.sweeps.into()),
                        Cell::Float(r.value),
                        Cell::Integer(r.changed.into()),
                    ]);
                }
                doc.table(rounds);
            }
        }
        None => doc.line(format!(
            "solved by backward induction (one pass; {} action slots): --check also runs policy and value iteration",
            solved.mdp.slots()
        )),
    }
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
        let game = mdp.board(s).game();
        let cells: Vec<String> = pi.optimal_cells(mdp, s).iter().map(|&c| game.move_text(c)).collect();
        text.push_str(&format!("{},{:?},{}\n", mdp.board(s), pi.values[s], cells.join("|")));
    }
    write_text_atomic(path, &text).map_err(|e| bad_input(format!("--values {}: {e:#}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_are_exact_or_absent() {
        let tic_tac_toe = Game::default();
        // X against random on 3x3: the opponent chooses among 8, 6, 4 and 2 cells.
        assert_eq!(Opponent::Random.denominator(tic_tac_toe, Seat::X), Some(8 * 6 * 4 * 2));
        assert_eq!(Opponent::Random.denominator(tic_tac_toe, Seat::O), Some(9 * 7 * 5 * 3));
        // On a gravity board of 3 columns a random turn has 1, 2 or 3 moves (lcm 6), and at
        // most 2 with 2 empty cells.
        let gravity: Game = "3x3g3".parse().unwrap();
        assert_eq!(Opponent::Random.denominator(gravity, Seat::X), Some(6 * 6 * 6 * 2));
        assert_eq!(Opponent::MinimaxUniform.denominator(tic_tac_toe, Seat::X), Some(840 * 60 * 12 * 2));
        let e = error_bound(tic_tac_toe);
        assert_eq!(exact_fraction(191.0 / 192.0, 384, e), Some((191, 192)));
        assert_eq!(exact_fraction(0.0, 384, e), Some((0, 1)));
        assert_eq!(exact_fraction(-1.0 / 3.0, 945, e), Some((-1, 3)));
        // Not a multiple of 1/384: no fraction, rather than a near one.
        assert_eq!(exact_fraction(1.0 / 7.0, 384, e), None);
        assert_eq!(exact_fraction(191.0 / 192.0 + 1e-9, 384, e), None);
        // A denominator too large to single out one numerator within the error.
        assert_eq!(exact_fraction(0.5, 1 << 50, e), None);
    }
}
