//! `sweep solve --moves` and `--positions`: exact values of single positions by search
//! ([`crate::oracle`]), on any board it takes, Connect Four (`6x7g4`) included: for the
//! player to move the value (1 win, 0 draw, -1 loss), the plies to the end under optimal
//! play (the winner as fast as it can, the loser as slowly) and every legal move's value.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use crate::error::{bad_input, exit};
use crate::game::Family;
use crate::oracle::{Outcome, Position, Score, Shape, Solver, plies_left};
use crate::report::table::{Cell, Column, Doc, Format, Table};

/// One position to value, as it was written, with its moves.
struct Query {
    text: String,
    moves: Vec<u8>,
}

/// Reads a move list (see [`crate::oracle::parse_moves`]).
pub(super) fn parse_moves(shape: Shape, text: &str) -> Result<Vec<u8>, String> {
    crate::oracle::parse_moves(shape, text)
}

/// The queries of `--moves` or of a `--positions` file (blank lines and `#` comments
/// skipped; a line's first field is its moves, anything after it is ignored, so a test
/// set's `<moves> <score>` lines are read as they are).
fn queries(shape: Shape, moves: Option<&str>, file: Option<&Path>) -> Result<Vec<Query>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    if let Some(m) = moves {
        match parse_moves(shape, m) {
            Ok(moves) => out.push(Query { text: m.trim().to_string(), moves }),
            Err(e) => errors.push(format!("--moves {e}")),
        }
    }
    if let Some(path) = file {
        let text =
            std::fs::read_to_string(path).map_err(|e| bad_input(format!("cannot read {}: {e}", path.display())))?;
        for (i, line) in text.lines().enumerate() {
            let Some(first) = line.split('#').next().and_then(|l| l.split_whitespace().next()) else { continue };
            match parse_moves(shape, first) {
                Ok(moves) => out.push(Query { text: first.to_string(), moves }),
                Err(e) => errors.push(format!("{}:{}: {e}", path.display(), i + 1)),
            }
        }
        if out.is_empty() && errors.is_empty() {
            errors.push(format!("{}: no positions (one move list per line)", path.display()));
        }
    }
    if !errors.is_empty() {
        return Err(bad_input(errors.join("\n")));
    }
    Ok(out)
}

/// A valued position: its outcome, plies to the end and each move's (outcome, plies).
struct Valued {
    text: String,
    plies: u32,
    score: Score,
    moves: Vec<(u8, Score)>,
}

fn word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    }
}

/// Values the positions of `--moves` / `--positions` and prints them.
pub fn value(
    shape: Shape,
    moves: Option<&str>,
    file: Option<&Path>,
    table_mib: usize,
    json_out: bool,
    format: Format,
) -> Result<i32> {
    let started = Instant::now();
    let queries = queries(shape, moves, file)?;
    let positions = positions_of(shape, &queries)?;
    let mut solver = Solver::new(table_mib << 20);
    let valued: Vec<Valued> = positions
        .into_iter()
        .map(|(text, p)| Valued { text, plies: p.plies(), score: solver.score(p), moves: solver.move_scores(p) })
        .collect();
    let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&valued_json(shape, &valued, &solver, elapsed_ms)).expect("JSON"));
        return Ok(exit::OK);
    }
    super::table::print_doc(&valued_doc(shape, &valued, &solver, elapsed_ms), format);
    Ok(exit::OK)
}

/// The positions of the queries on `shape`, each with its text; an error naming every
/// query that is not a position in play.
fn positions_of(shape: Shape, queries: &[Query]) -> Result<Vec<(String, Position)>> {
    let mut positions = Vec::new();
    let mut errors = Vec::new();
    for q in queries {
        match Position::after(shape, &q.moves) {
            Ok(p) => positions.push((q.text.clone(), p)),
            Err(e) => errors.push(format!("{shape} {:?}: {e}", q.text)),
        }
    }
    if !errors.is_empty() {
        return Err(bad_input(errors.join("\n")));
    }
    Ok(positions)
}

/// The optimal moves of a valued position: those whose value is the position's.
fn best_moves(v: &Valued) -> Vec<u8> {
    v.moves.iter().filter(|&&(_, s)| s == v.score).map(|&(m, _)| m).collect()
}

/// The JSON object of `sweep solve --moves` or `--positions` with `--json`: the valued
/// positions and the search's work (`solver`) and time.
fn valued_json(shape: Shape, valued: &[Valued], solver: &Solver, elapsed_ms: f64) -> serde_json::Value {
    let cells = shape.cells();
    let rows: Vec<_> = valued
        .iter()
        .map(|v| {
            json!({
                "moves": v.text,
                "stones": v.plies,
                "value": Outcome::of(v.score).value(),
                "plies": plies_left(v.score, cells, v.plies),
                "score": v.score,
                "best_moves": best_moves(v),
                "move_values": v.moves.iter().map(|&(m, s)| json!({
                    "move": m,
                    "value": Outcome::of(s).value(),
                    "plies": plies_left(s, cells, v.plies),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "game": shape.to_string(),
        "positions": rows,
        "nodes": solver.nodes(),
        "table_bytes": solver.table_bytes(),
        "time_ms": elapsed_ms,
    })
}

/// What `sweep solve --moves` or `--positions` prints without `--json`: a table of the
/// valued positions, with the search's work (`solver`) and time under it.
fn valued_doc(shape: Shape, valued: &[Valued], solver: &Solver, elapsed_ms: f64) -> Doc {
    let cells = shape.cells();
    let mut doc = Doc::new(format!("sweep solve: {} positions of {shape}", valued.len()));
    doc.line(format!(
        "for the player to move under optimal play: value 1 win, 0 draw, -1 loss; plies to the end (the winner as fast as it can, the loser as slowly); moves {}",
        if shape.family() == Family::Gravity { "are columns from 0" } else { "are cells from 0, row by row from the top left" }
    ));
    let columns = vec![
        Column::text("moves"),
        Column::integers("stones"),
        Column::text("value"),
        Column::integers("plies"),
        Column::text("best_moves"),
        Column::text("move_values"),
    ];
    let mut table = Table::new("positions", columns);
    for v in valued {
        let o = Outcome::of(v.score);
        let per_move: Vec<String> = v
            .moves
            .iter()
            .map(|&(m, s)| format!("{m}:{}/{}", Outcome::of(s).value(), plies_left(s, cells, v.plies)))
            .collect();
        let best: Vec<String> = best_moves(v).iter().map(u8::to_string).collect();
        table.push(vec![
            Cell::text(if v.text.is_empty() { "-".to_string() } else { v.text.clone() }),
            Cell::int(v.plies as usize),
            Cell::text(format!("{} {}", o.value(), word(o))),
            Cell::int(plies_left(v.score, cells, v.plies) as usize),
            Cell::text(best.join(",")),
            Cell::text(per_move.join(" ")),
        ]);
    }
    doc.table(table);
    doc.line("move_values: move:value/plies, each for the player to move now");
    doc.line(format!(
        "searched {} positions in {elapsed_ms:.1} ms, table {} MiB",
        solver.nodes(),
        solver.table_bytes() >> 20
    ));
    doc
}

/// `sweep solve --serve`: the policy-server protocol the other way round, so that a
/// program (the Python package's `minimax` opponents on boards beyond enumeration) asks
/// for values. Reads `positions N` and N boards (one line each, as `sweep score` writes
/// them) from standard input, and writes one line per board: its value for the player to
/// move, then each legal move as `move:value` (1 win, 0 draw, -1 loss, under optimal
/// play), or `error: ...` for a board that is not a position in play. Ends at the end of
/// its input.
pub fn serve(shape: Shape, table_mib: usize) -> Result<i32> {
    use std::io::{BufRead, Write};
    let mut solver = Solver::new(table_mib << 20);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    while let Some(header) = lines.next() {
        let header = header?;
        let n = match header.trim().strip_prefix("positions ").map(|n| n.trim().parse::<usize>()) {
            Some(Ok(n)) => n,
            _ if header.trim().is_empty() => continue,
            _ => return Err(bad_input(format!("--serve: expected `positions N`, read {header:?}"))),
        };
        for _ in 0..n {
            let Some(line) = lines.next() else {
                return Err(bad_input(format!("--serve: the input ended inside a batch of {n}")));
            };
            let line = line?;
            match Position::of_board_text(shape, line.trim()) {
                Ok(p) => {
                    let moves = solver.move_outcomes(p);
                    let best = moves.iter().map(|&(_, o)| o).max().expect("a position in play has a move");
                    write!(out, "{}", best.value())?;
                    for (m, o) in moves {
                        write!(out, " {m}:{}", o.value())?;
                    }
                    writeln!(out)?;
                }
                Err(e) => writeln!(out, "error: {e}")?,
            }
        }
        out.flush()?;
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_read_in_both_notations() {
        let c4: Shape = "6x7g4".parse().unwrap();
        assert_eq!(parse_moves(c4, "3,3,4"), Ok(vec![3, 3, 4]));
        assert_eq!(parse_moves(c4, "4453"), Ok(vec![3, 3, 4, 2]));
        assert_eq!(parse_moves(c4, "-"), Ok(vec![]));
        assert_eq!(parse_moves(c4, "5"), Ok(vec![5]));
        assert!(parse_moves(c4, "40").unwrap_err().contains("0 is not one"));
        assert!(parse_moves(c4, "3,x").unwrap_err().contains("\"x\" is not a move"));
        let m: Shape = "5x5k4".parse().unwrap();
        assert_eq!(parse_moves(m, "12"), Ok(vec![12]));
    }
}
