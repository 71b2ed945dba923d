//! `sweep solve --moves` and `--positions`: exact values of single positions by search
//! ([`crate::oracle`]), on any board it takes, Connect Four (`6x7g4`) included: for the
//! player to move the value (1 win, 0 draw, -1 loss), the plies to the end under optimal
//! play (the winner as fast as it can, the loser as slowly) and every legal move's value.
//! `--moves` prints one position as a table (or one JSON object); `--positions` streams a
//! file of any length, an answer per line as it is read ([`stream`]).

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use super::lines::Lines;
use crate::error::{bad_input, exit};
use crate::game::Family;
use crate::oracle::{Outcome, Position, Score, Shape, Solver, plies_left};
use crate::report::table::{Cell, Column, Doc, Format, Table};

/// Reads a move list (see [`crate::oracle::parse_moves`]).
pub(super) fn parse_moves(shape: Shape, text: &str) -> Result<Vec<u8>, String> {
    crate::oracle::parse_moves(shape, text)
}

/// The position after a move list as `--moves` and a `--positions` line take it, or why
/// there is none.
fn position_of(shape: Shape, text: &str) -> Result<Position, String> {
    let moves = parse_moves(shape, text)?;
    Position::after(shape, &moves).map_err(|e| format!("{shape} {:?}: {e}", text))
}

/// The note on what a value and a move mean on `shape`.
fn meaning(shape: Shape) -> String {
    format!(
        "for the player to move under optimal play: value 1 win, 0 draw, -1 loss; plies to the end (the winner as fast as it can, the loser as slowly); moves {}",
        if shape.family() == Family::Gravity {
            "are columns from 0"
        } else {
            "are cells from 0, row by row from the top left"
        }
    )
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

/// A position valued by `solver`, with its text.
fn valued(solver: &mut Solver, text: &str, p: Position) -> Valued {
    Valued { text: text.to_string(), plies: p.plies(), score: solver.score(p), moves: solver.move_scores(p) }
}

/// Values the position of `--moves` and prints it.
pub fn value(shape: Shape, moves: &str, table_mib: usize, json_out: bool, format: Format) -> Result<i32> {
    let started = Instant::now();
    let p = position_of(shape, moves.trim()).map_err(|e| bad_input(format!("--moves {e}")))?;
    let mut solver = Solver::new(table_mib << 20);
    let valued = [valued(&mut solver, moves.trim(), p)];
    let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&valued_json(shape, &valued, &solver, elapsed_ms)).expect("JSON"));
        return Ok(exit::OK);
    }
    super::table::print_doc(&valued_doc(shape, &valued, &solver, elapsed_ms), format);
    Ok(exit::OK)
}

/// The optimal moves of a valued position: those whose value is the position's.
fn best_moves(v: &Valued) -> Vec<u8> {
    v.moves.iter().filter(|&&(_, s)| s == v.score).map(|&(m, _)| m).collect()
}

/// One valued position as JSON: its moves, stones, value, plies, score, best moves and
/// each move's value and plies.
fn row_json(shape: Shape, v: &Valued) -> serde_json::Value {
    let cells = shape.cells();
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
}

/// The JSON object of `sweep solve --moves` with `--json`: the valued
/// positions and the search's work (`solver`) and time.
fn valued_json(shape: Shape, valued: &[Valued], solver: &Solver, elapsed_ms: f64) -> serde_json::Value {
    let rows: Vec<_> = valued.iter().map(|v| row_json(shape, v)).collect();
    json!({
        "game": shape.to_string(),
        "positions": rows,
        "nodes": solver.nodes(),
        "table_bytes": solver.table_bytes(),
        "time_ms": elapsed_ms,
    })
}

/// A valued position's moves (`-` for none), value in words, best moves and each move's
/// `move:value/plies`, as text.
fn row_texts(v: &Valued, cells: usize) -> [String; 4] {
    let o = Outcome::of(v.score);
    let per_move: Vec<String> = v
        .moves
        .iter()
        .map(|&(m, s)| format!("{m}:{}/{}", Outcome::of(s).value(), plies_left(s, cells, v.plies)))
        .collect();
    let best: Vec<String> = best_moves(v).iter().map(u8::to_string).collect();
    let moves = if v.text.is_empty() { "-".to_string() } else { v.text.clone() };
    [moves, format!("{} {}", o.value(), word(o)), best.join(","), per_move.join(" ")]
}

/// What `sweep solve --moves` prints without `--json`: a table of the
/// valued positions, with the search's work (`solver`) and time under it.
fn valued_doc(shape: Shape, valued: &[Valued], solver: &Solver, elapsed_ms: f64) -> Doc {
    let cells = shape.cells();
    let mut doc = Doc::new(format!("sweep solve: {} positions of {shape}", valued.len()));
    doc.line(meaning(shape));
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
        let [moves, value, best, per_move] = row_texts(v, cells);
        table.push(vec![
            Cell::text(moves),
            Cell::int(v.plies as usize),
            Cell::text(value),
            Cell::int(plies_left(v.score, cells, v.plies) as usize),
            Cell::text(best),
            Cell::text(per_move),
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

/// The form `--positions` prints each answer in.
#[derive(Clone, Copy)]
enum Form {
    /// A header, then one line of tab-separated fields per position, then the work done.
    Text,
    /// A header, then one CSV record per position.
    Csv,
    /// One JSON object per position (JSON lines).
    Json,
}

/// The bad lines of a `--positions` file named on standard error; past them, only counted.
const NAMED: usize = 20;

/// `sweep solve --positions FILE` (`-`: standard input): values each line's position as it
/// is read and prints its answer at once, so that memory stays bounded whatever the file's
/// length and a reader sees the answers as they come. Each bad line is named on standard
/// error by file and line (the first [`NAMED`]) and the rest of the file still answered;
/// any makes the exit code 2 at the end.
pub fn stream(shape: Shape, file: &Path, table_mib: usize, json_out: bool, format: Format) -> Result<i32> {
    let started = Instant::now();
    let form = match (json_out, format) {
        (true, _) => Form::Json,
        (false, Format::Text) => Form::Text,
        (false, Format::Csv) => Form::Csv,
        _ => return Err(bad_input("--positions prints each answer as it is found: --format text or csv, or --json")),
    };
    let (reader, name) = open(file)?;
    let mut lines = Lines::new(reader, name.clone());
    let mut solver = Solver::new(table_mib << 20);
    // Standard output is flushed at each line's end: each answer leaves as it is found.
    let mut out = std::io::stdout().lock();
    header(&mut out, form, shape)?;
    let (mut answered, mut bad) = (0usize, 0usize);
    while let Some(line) = lines.next_line()? {
        let found = line.text.and_then(|t| match t.split('#').next().and_then(|l| l.split_whitespace().next()) {
            None => Ok(None),
            Some(first) => position_of(shape, first).map(|p| Some((first.to_string(), p))),
        });
        match found {
            Ok(None) => {}
            Ok(Some((text, p))) => {
                row(&mut out, form, shape, line.number, &valued(&mut solver, &text, p))?;
                answered += 1;
            }
            Err(why) => {
                bad += 1;
                if bad <= NAMED {
                    eprintln!("error: {}: {why}", lines.at(line.number));
                }
            }
        }
    }
    if let Form::Text = form {
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let mib = solver.table_bytes() >> 20;
        writeln!(out, "# {answered} positions; searched {} positions in {ms:.1} ms, table {mib} MiB", solver.nodes())?;
    }
    if bad > 0 {
        let named = if bad > NAMED { format!("the first {NAMED} named above") } else { "named above".to_string() };
        return Err(bad_input(format!(
            "--positions {name}: {bad} of its {} lines are not positions ({named}); the {answered} others were answered",
            lines.number()
        )));
    }
    if answered == 0 {
        return Err(bad_input(format!("--positions {name}: no positions (one move list per line)")));
    }
    Ok(exit::OK)
}

/// The reader of `--positions FILE` (`-`: standard input) and its name for messages.
fn open(file: &Path) -> Result<(Box<dyn BufRead>, String)> {
    if file == Path::new("-") {
        return Ok((Box::new(std::io::stdin().lock()), "standard input".to_string()));
    }
    let f = std::fs::File::open(file)
        .map_err(|e| bad_input(format!("--positions {}: cannot read: {e}", file.display())))?;
    Ok((Box::new(std::io::BufReader::new(f)), file.display().to_string()))
}

/// What `--positions` prints before its first answer: in text, the meaning of the figures
/// and the fields' names; in CSV, the header.
fn header(out: &mut impl Write, form: Form, shape: Shape) -> std::io::Result<()> {
    const FIELDS: [&str; 7] = ["line", "moves", "stones", "value", "plies", "best_moves", "move_values"];
    match form {
        Form::Text => {
            writeln!(out, "# {}; move_values: move:value/plies", meaning(shape))?;
            writeln!(out, "{}", FIELDS.join("\t"))
        }
        Form::Csv => writeln!(out, "{}", FIELDS.join(",")),
        Form::Json => Ok(()),
    }
}

/// One answer of `--positions`, for the position of line `number`.
fn row(out: &mut impl Write, form: Form, shape: Shape, number: usize, v: &Valued) -> std::io::Result<()> {
    let cells = shape.cells();
    let plies = plies_left(v.score, cells, v.plies);
    match form {
        Form::Json => {
            let mut object = row_json(shape, v);
            object["line"] = json!(number);
            writeln!(out, "{object}")
        }
        Form::Text => {
            let [moves, value, best, per_move] = row_texts(v, cells);
            writeln!(out, "{number}\t{moves}\t{}\t{value}\t{plies}\t{best}\t{per_move}", v.plies)
        }
        Form::Csv => {
            let [moves, _, best, per_move] = row_texts(v, cells);
            let value = Outcome::of(v.score).value();
            let quoted = |s: &str| if s.contains(',') { format!("\"{s}\"") } else { s.to_string() };
            let (moves, best) = (quoted(&moves), quoted(&best));
            writeln!(out, "{number},{moves},{},{value},{plies},{best},{per_move}", v.plies)
        }
    }
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
