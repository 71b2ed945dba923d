//! `sweep solve --serve`: the policy-server protocol the other way round, so that a program
//! (the Python package's `minimax` opponents on boards beyond enumeration) asks for values.
//! Reads `positions N` and N boards (one line each, as `sweep score` writes them) from
//! standard input, and writes one line per board: its value for the player to move, then
//! each legal move as `move:value` (1 win, 0 draw, -1 loss, under optimal play). Ends at
//! the end of its input.
//!
//! The input is untrusted: lines are read with a cap ([`super::lines::MAX_LINE`]), and the
//! first bad line (not UTF-8, too long, not a header, a board of the wrong length, with
//! other characters than `X`, `O` and `.`, or not a position in play) ends the server
//! with exit code 2, after a last line `error: standard input:N: why` on standard output
//! (so that a client waiting for an answer reads why) and the same on standard error.
//! Positions the [book](crate::oracle::book) holds are answered without a search.

use std::io::{BufRead, Write};

use anyhow::Result;

use super::lines::{Line, Lines};
use crate::error::{bad_input, excerpt, exit};
use crate::oracle::{Position, Shape, Solver};

/// Where messages say the input comes from.
const NAME: &str = "standard input";

/// Serves positions of `shape` on standard input with a table of `table_mib` MiB.
pub fn serve(shape: Shape, table_mib: usize) -> Result<i32> {
    let mut solver = Solver::new(table_mib << 20);
    let mut lines = Lines::new(std::io::stdin().lock(), NAME).stopping_at_a_long_line();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let served = serve_on(shape, &mut solver, &mut lines, &mut out);
    if let Err(e) = &served {
        if e.downcast_ref::<crate::error::BadInput>().is_some() {
            let _ = writeln!(out, "error: {e}");
        }
    }
    let _ = out.flush();
    served.map(|()| exit::OK)
}

/// The loop of [`serve`]: each batch's header, then its boards, answered and flushed.
fn serve_on(shape: Shape, solver: &mut Solver, lines: &mut Lines<impl BufRead>, out: &mut impl Write) -> Result<()> {
    while let Some(header) = lines.next_line()? {
        let (number, header) = text_of(lines, header)?;
        if header.trim().is_empty() {
            continue;
        }
        let Some(n) = header.trim().strip_prefix("positions ").and_then(|n| n.trim().parse::<u64>().ok()) else {
            return Err(bad_input(format!(
                "{}: expected a header `positions N` (N a whole number), read {}",
                lines.at(number),
                excerpt(header.as_bytes())
            )));
        };
        for _ in 0..n {
            let Some(line) = lines.next_line()? else {
                return Err(bad_input(format!(
                    "{}: the input ended inside the batch of {n} boards that line {number} announced",
                    lines.at(lines.number() + 1)
                )));
            };
            let (at, board) = text_of(lines, line)?;
            let p = board_at(shape, &board).map_err(|why| bad_input(format!("{}: {why}", lines.at(at))))?;
            answer(solver, p, out)?;
        }
        out.flush()?;
    }
    Ok(())
}

/// A line's number and text, or the error that names why it is not text.
fn text_of(lines: &Lines<impl BufRead>, line: Line) -> Result<(usize, String)> {
    let Line { number, text } = line;
    text.map(|t| (number, t)).map_err(|why| bad_input(format!("{}: {why}", lines.at(number))))
}

/// The position a board line holds, or why it holds none: its length is checked first, so
/// that a message quotes at most the start of a long line.
fn board_at(shape: Shape, line: &str) -> Result<Position, String> {
    let board = line.trim();
    if board.len() != shape.cells() {
        return Err(format!(
            "a board of {} characters, {shape} has {} cells (one of X, O or . per cell, row by row from the top \
             left): {}",
            board.len(),
            shape.cells(),
            excerpt(board.as_bytes())
        ));
    }
    Position::of_board_text(shape, board).map_err(|e| e.to_string())
}

/// Writes the answer for `p`: its value for the player to move and each move's.
fn answer(solver: &mut Solver, p: Position, out: &mut impl Write) -> Result<()> {
    let moves = solver.move_outcomes(p, crate::oracle::book::known);
    let best = moves.iter().map(|&(_, o)| o).max().expect("a position in play has a move");
    write!(out, "{}", best.value())?;
    for (m, o) in moves {
        write!(out, " {m}:{}", o.value())?;
    }
    writeln!(out)?;
    Ok(())
}
