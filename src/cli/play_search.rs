//! `sweep play` on boards too big to enumerate (Connect Four is `6x7g4`): the same game in
//! the terminal, over the search's positions ([`crate::oracle::Position`]), against MCTS
//! ([`crate::oracle::Uct`]) or perfect play ([`crate::oracle::Perfect`], the move
//! `minimax` plays; on Connect Four its first replies take the search minutes, MCTS
//! answers at once).

use std::io::{BufRead, Write};

use anyhow::{Context, Result};

use crate::error::{bad_input, exit};
use crate::game::Family;
use crate::mdp::Seat;
use crate::oracle::{Agent, Perfect, Position, Shape, Uct};

/// The board row by row from the top, and the move numbers: the columns under a gravity
/// board, the free cells' numbers on an m,n,k board.
fn show(p: Position) -> String {
    let s = p.shape();
    let text = p.board_text();
    let width = if s.family() == Family::Gravity { 1 } else { (s.cells() - 1).to_string().len() };
    let mut out = String::new();
    for r in 0..s.rows() {
        let row: Vec<String> = (0..s.cols())
            .map(|c| {
                let cell = r * s.cols() + c;
                match &text[cell..=cell] {
                    "." if s.family() == Family::Mnk => format!("{cell:>width$}"),
                    mark => format!("{mark:>width$}"),
                }
            })
            .collect();
        out.push_str(&format!(" {}\n", row.join(" ")));
    }
    if s.family() == Family::Gravity {
        let cols: Vec<String> = (0..s.cols()).map(|c| c.to_string()).collect();
        out.push_str(&format!(" {}\n", cols.join(" ")));
    }
    out
}

/// Plays a game of `shape` with the person in `you`'s seat, reading moves from `input`.
#[allow(clippy::too_many_arguments)]
pub fn play(
    shape: Shape,
    agent_name: &str,
    you: Seat,
    iterations: u32,
    seed: u64,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    echo: bool,
) -> Result<i32> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut agent: Box<dyn Agent> = match agent_name {
        "optimal" => Box::new(Perfect::new(1 << 30).with_threads(threads)),
        "mcts" => Box::new(Uct::new(iterations, 1.414, seed)),
        other => {
            return Err(bad_input(format!(
                "--agent {other:?}: on {shape}, beyond enumeration, the agents are optimal and mcts (policy files list positions, and this board has too many)"
            )));
        }
    };
    let numbering =
        if shape.family() == Family::Gravity { "a column number (0 at the left)" } else { "a free cell's number" };
    writeln!(
        out,
        "{shape}: {} x {}, {} in a row wins. You play {}; the agent ({agent_name}) plays {}. Type {numbering}.",
        shape.rows(),
        shape.cols(),
        shape.k(),
        you.name().to_uppercase(),
        you.other().name().to_uppercase()
    )?;
    let you_move_at = if you == Seat::X { 0 } else { 1 };
    let mut p = Position::empty(shape);
    loop {
        if p.is_over() {
            write!(out, "{}", show(p))?;
            let you_moved_last = (p.plies() - 1) % 2 == you_move_at;
            let verdict = match (p.last_won(), you_moved_last) {
                (false, _) => "Draw.",
                (true, true) => "You win.",
                (true, false) => "The agent wins.",
            };
            writeln!(out, "{verdict}")?;
            return Ok(exit::OK);
        }
        if p.plies() % 2 != you_move_at {
            let m = agent.moves(&[p]).map_err(|e| anyhow::anyhow!(e))?[0];
            writeln!(out, "agent plays {m}")?;
            p = p.play(m);
            continue;
        }
        write!(out, "{}your move: ", show(p))?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line).context("cannot read the terminal")? == 0 {
            writeln!(out, "\nend of input: game abandoned")?;
            return Ok(exit::OK);
        }
        if echo {
            writeln!(out, "{}", line.trim_end())?;
        }
        match line.trim().parse::<u8>() {
            Ok(m) if p.is_legal(m) => p = p.play(m),
            _ => writeln!(out, "{:?} is not a legal move: type {numbering}", line.trim())?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_of_connect_four_against_mcts_ends_with_a_verdict() {
        let shape: Shape = "6x7g4".parse().unwrap();
        // The person drops every stone in column 0 (and then 1, 2, ...): MCTS wins.
        let moves: String = (0..7).flat_map(|c| std::iter::repeat_n(format!("{c}\n"), 6)).collect();
        let mut out = Vec::new();
        let code = play(shape, "mcts", Seat::X, 300, 1, &mut moves.as_bytes(), &mut out, true).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(code, exit::OK);
        assert!(text.contains("You play X; the agent (mcts) plays O"), "{text}");
        assert!(text.trim_end().ends_with("The agent wins."), "{text}");
        assert!(text.contains(" 0 1 2 3 4 5 6\n"), "{text}");
        let mut out = Vec::new();
        play(shape, "mcts", Seat::X, 50, 1, &mut "9\nx\n".as_bytes(), &mut out, true).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\"9\" is not a legal move") && text.contains("end of input"), "{text}");
        assert!(play(shape, "policy.csv", Seat::X, 50, 1, &mut "".as_bytes(), &mut Vec::new(), false).is_err());
    }
}
