//! `sweep solve --moves` and `--positions`: exact values of single positions by search
//! ([`crate::oracle`]), on any board it takes, Connect Four (`6x7g4`) included. Each
//! question gets the cheapest search that answers it ([`Ask`]): by default one search of
//! the position (null-window bisection on its score) for the player to move's value (1
//! win, 0 draw, -1 loss), the plies to the end under optimal play (the winner as fast as
//! it can, the loser as slowly) and the score in the field's convention
//! ([`crate::oracle::field_score`]); `--outcome` only win, draw or loss (two null windows
//! at most); `--every-move` adds each legal move's value (a search per move).
//! `--moves` prints one position as a table (or one JSON object); `--positions` streams a
//! file of any length, an answer per line as it is read ([`stream`]), and reads and
//! writes the field's test-set lines, `<moves> <score>`.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use super::lines::Lines;
use crate::error::{bad_input, exit};
use crate::game::Family;
use crate::oracle::{Outcome, Position, Score, Shape, Solver, book, field_score, plies_left};
use crate::report::table::{Cell, Column, Doc, Format, Table};

/// Reads a move list (see [`crate::oracle::parse_moves`]).
pub(super) fn parse_moves(shape: Shape, text: &str) -> Result<Vec<u8>, String> {
    crate::oracle::parse_moves(shape, text)
}

/// Whether `shape` has the field's notation: one digit per move, columns from 1.
pub(super) fn has_field_notation(shape: Shape) -> bool {
    shape.family() == Family::Gravity && shape.cols() <= 9
}

/// The position after a move list as `--moves` and a `--positions` line take it, or why
/// there is none. On a line of the field's form (`field`: a score follows the moves) a
/// single digit is a column from 1, as in the field's test sets; elsewhere a single
/// number is a move from 0, as `--moves` reads it.
fn position_of(shape: Shape, text: &str, field: bool) -> Result<(Vec<u8>, Position), String> {
    let single = text.len() == 1 && text.bytes().all(|b| b.is_ascii_digit());
    let moves = if field && single && has_field_notation(shape) {
        match text.as_bytes()[0] - b'0' {
            0 => return Err(format!("{text:?}: a digit string names columns from 1, and 0 is not one")),
            d => vec![d - 1],
        }
    } else {
        parse_moves(shape, text)?
    };
    let p = Position::after(shape, &moves).map_err(|e| format!("{shape} {:?}: {e}", text))?;
    Ok((moves, p))
}

/// The moves of `p`'s line in the field's notation (columns from 1, one digit each; `-`
/// for the empty board).
fn field_moves(moves: &[u8]) -> String {
    if moves.is_empty() {
        return "-".to_string();
    }
    moves.iter().map(|m| char::from(b'1' + m)).collect()
}

/// What each position is asked: the cheapest search that answers it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ask {
    /// Win, draw or loss only (no plies, no score).
    pub outcome: bool,
    /// Each legal move's value too.
    pub every_move: bool,
}

/// How `--moves` and `--positions` print their answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Printed {
    /// A table (`--moves`) or a line per answer (`--positions`: text or CSV).
    Table(Format),
    /// The field's test-set notation: `<moves> <score>` per position.
    Field,
}

/// What a search found for a position: its exact score, or only its outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Found {
    Score(Score),
    Outcome(Outcome),
}

impl Found {
    fn outcome(self) -> Outcome {
        match self {
            Found::Score(s) => Outcome::of(s),
            Found::Outcome(o) => o,
        }
    }

    /// Plies to the end and the field's score, with the position's `stones`, if known.
    fn plies_and_score(self, cells: usize, stones: u32) -> Option<(u32, i32)> {
        match self {
            Found::Score(s) => Some((plies_left(s, cells, stones), field_score(s, cells))),
            Found::Outcome(_) => None,
        }
    }

    /// Whether a given field score agrees: the same score, or, knowing only the
    /// outcome, the same sign.
    fn agrees(self, given: i32, cells: usize) -> bool {
        match self {
            Found::Score(s) => field_score(s, cells) == given,
            Found::Outcome(o) => i32::from(o.value()) == given.signum(),
        }
    }
}

/// A valued position: its text as given, its moves, its value, each move's on request,
/// and the score a `--positions` line gave.
struct Valued {
    text: String,
    moves: Vec<u8>,
    stones: u32,
    found: Found,
    per_move: Option<Vec<(u8, Found)>>,
    given: Option<i32>,
}

impl Valued {
    /// Whether the given score (if any) differs from the one found.
    fn differs(&self, cells: usize) -> bool {
        self.given.is_some_and(|g| !self.found.agrees(g, cells))
    }
}

fn word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Draw => "draw",
        Outcome::Loss => "loss",
    }
}

/// The position `p` (after `moves`, written `text`) valued by `solver` as `ask` asks: the
/// position's value is one search, or, with every move's, the best of theirs (no extra
/// search). An outcome or a score the [`book`] holds is not searched.
fn valued(solver: &mut Solver, text: &str, moves: Vec<u8>, p: Position, ask: Ask, given: Option<i32>) -> Valued {
    let (found, per_move) = match (ask.outcome, ask.every_move) {
        (false, false) => (Found::Score(book::score(p).unwrap_or_else(|| solver.score(p))), None),
        (true, false) => (Found::Outcome(book::known(p).unwrap_or_else(|| solver.outcome(p))), None),
        (false, true) => {
            let each: Vec<(u8, Found)> = solver.move_scores(p).into_iter().map(|(m, s)| (m, Found::Score(s))).collect();
            let best = each.iter().filter_map(|e| if let Found::Score(s) = e.1 { Some(s) } else { None }).max();
            (Found::Score(best.expect("a position in play has a move")), Some(each))
        }
        (true, true) => {
            let each: Vec<(u8, Found)> = solver
                .move_outcomes(p, crate::oracle::book::known)
                .into_iter()
                .map(|(m, o)| (m, Found::Outcome(o)))
                .collect();
            let best = each.iter().map(|e| e.1.outcome()).max();
            (Found::Outcome(best.expect("a position in play has a move")), Some(each))
        }
    };
    Valued { text: text.to_string(), moves, stones: p.plies(), found, per_move, given }
}

/// The note on what a value and a move mean on `shape`.
fn meaning(shape: Shape, ask: Ask) -> String {
    let figures = if ask.outcome {
        "value 1 win, 0 draw, -1 loss"
    } else {
        "value 1 win, 0 draw, -1 loss; plies to the end (the winner as fast as it can, the loser as slowly); score as the field writes it (positive: the player to move wins, (cells/2 + 1) - the winner's stones at the end; 0 draw; negative: loses)"
    };
    let moves = if shape.family() == Family::Gravity {
        "are columns from 0"
    } else {
        "are cells from 0, row by row from the top left"
    };
    format!("for the player to move under optimal play: {figures}; moves {moves}")
}

/// Values the position of `--moves` and prints it.
pub fn value(shape: Shape, moves: &str, table_mib: usize, json_out: bool, printed: Printed, ask: Ask) -> Result<i32> {
    let started = Instant::now();
    let text = moves.trim();
    let (list, p) = position_of(shape, text, false).map_err(|e| bad_input(format!("--moves {e}")))?;
    let mut solver = Solver::new(table_mib << 20);
    let valued = [valued(&mut solver, text, list, p, ask, None)];
    let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&valued_json(shape, &valued, &solver, elapsed_ms)).expect("JSON"));
        return Ok(exit::OK);
    }
    match printed {
        Printed::Field => println!("{}", field_line(shape, &valued[0])),
        Printed::Table(format) => {
            super::table::print_doc(&valued_doc(shape, &valued, &solver, elapsed_ms, ask), format)
        }
    }
    Ok(exit::OK)
}

/// The optimal moves of a position valued with its moves': those whose value is its own.
fn best_moves(v: &Valued) -> Vec<u8> {
    v.per_move.iter().flatten().filter(|&&(_, f)| f == v.found).map(|&(m, _)| m).collect()
}

/// One valued position as JSON: its moves, stones, value, and as asked plies and score,
/// best moves and each move's value (and plies), and the score its line gave.
fn row_json(shape: Shape, v: &Valued) -> serde_json::Value {
    let cells = shape.cells();
    let mut object = json!({
        "moves": v.text,
        "stones": v.stones,
        "value": v.found.outcome().value(),
    });
    if let Some((plies, score)) = v.found.plies_and_score(cells, v.stones) {
        object["plies"] = json!(plies);
        object["score"] = json!(score);
    }
    if let Some(each) = &v.per_move {
        object["best_moves"] = json!(best_moves(v));
        object["move_values"] = each
            .iter()
            .map(|&(m, f)| {
                let mut one = json!({ "move": m, "value": f.outcome().value() });
                if let Some((plies, _)) = f.plies_and_score(cells, v.stones) {
                    one["plies"] = json!(plies);
                }
                one
            })
            .collect();
    }
    if let Some(given) = v.given {
        object["given_score"] = json!(given);
        object["agrees"] = json!(!v.differs(cells));
    }
    object
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

/// A valued position's fields as text, in the order of [`FIELDS`] after `line`: moves
/// (`-` for none), stones, value in words, plies, best moves, each move's
/// `move:value/plies` (`move:value` knowing outcomes only), score, given score and
/// whether they agree; empty where not asked or not given.
fn row_texts(v: &Valued, cells: usize) -> [String; 9] {
    let o = v.found.outcome();
    let each = v.per_move.iter().flatten().map(|&(m, f)| match f.plies_and_score(cells, v.stones) {
        Some((plies, _)) => format!("{m}:{}/{plies}", f.outcome().value()),
        None => format!("{m}:{}", f.outcome().value()),
    });
    let best: Vec<String> = best_moves(v).iter().map(u8::to_string).collect();
    let moves = if v.text.is_empty() { "-".to_string() } else { v.text.clone() };
    let (plies, score) = match v.found.plies_and_score(cells, v.stones) {
        Some((plies, score)) => (plies.to_string(), score.to_string()),
        None => (String::new(), String::new()),
    };
    let given = v.given.map_or(String::new(), |g| g.to_string());
    let agrees = v.given.map_or(String::new(), |_| if v.differs(cells) { "no" } else { "yes" }.to_string());
    [
        moves,
        v.stones.to_string(),
        format!("{} {}", o.value(), word(o)),
        plies,
        best.join(","),
        each.collect::<Vec<_>>().join(" "),
        score,
        given,
        agrees,
    ]
}

/// What `sweep solve --moves` prints without `--json`: a table of the valued positions
/// (the columns `ask` answers), with the search's work (`solver`) and time under it.
fn valued_doc(shape: Shape, valued: &[Valued], solver: &Solver, elapsed_ms: f64, ask: Ask) -> Doc {
    let cells = shape.cells();
    let mut doc = Doc::new(format!("sweep solve: {} positions of {shape}", valued.len()));
    doc.line(meaning(shape, ask));
    let mut columns = vec![Column::text("moves"), Column::integers("stones"), Column::text("value")];
    if !ask.outcome {
        columns.extend([Column::integers("plies"), Column::numbers("score")]);
    }
    if ask.every_move {
        columns.extend([Column::text("best_moves"), Column::text("move_values")]);
    }
    let mut table = Table::new("positions", columns);
    for v in valued {
        let [moves, _, value, _, best, per_move, ..] = row_texts(v, cells);
        let mut row = vec![Cell::text(moves), Cell::int(v.stones as usize), Cell::text(value)];
        if let Some((plies, score)) = v.found.plies_and_score(cells, v.stones) {
            row.extend([Cell::int(plies as usize), Cell::Written(score.to_string())]);
        }
        if ask.every_move {
            row.extend([Cell::text(best), Cell::text(per_move)]);
        }
        table.push(row);
    }
    doc.table(table);
    if ask.every_move {
        let form = if ask.outcome { "move:value" } else { "move:value/plies" };
        doc.line(format!("move_values: {form}, each for the player to move now"));
    }
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
    /// The field's `<moves> <score>`, nothing else.
    Field,
}

/// The bad lines of a `--positions` file named on standard error; past them, only
/// counted. The same for lines whose given score differs from the one found.
const NAMED: usize = 20;

/// The fields of a `--positions` answer, in text and CSV.
const FIELDS: [&str; 10] =
    ["line", "moves", "stones", "value", "plies", "best_moves", "move_values", "score", "given_score", "agrees"];

/// A `--positions` line read: its moves as written, as moves, the position, the given score.
type Read = (String, Vec<u8>, Position, Option<i32>);

/// A `--positions` line's position and the score it gives, or none for a blank line or
/// a comment: its first field is the moves, its second (if any) the field's score.
fn read_line(shape: Shape, text: &str) -> Result<Option<Read>, String> {
    let mut fields = text.split('#').next().unwrap_or("").split_whitespace();
    let Some(first) = fields.next() else { return Ok(None) };
    let given = match fields.next() {
        None => None,
        Some(g) => Some(g.parse::<i32>().map_err(|_| {
            format!("{g:?} is not a score: a line is <moves> or <moves> <score> (the field's, an integer)")
        })?),
    };
    let (moves, p) = position_of(shape, first, given.is_some())?;
    Ok(Some((first.to_string(), moves, p, given)))
}

/// `sweep solve --positions FILE` (`-`: standard input): values each line's position as it
/// is read and prints its answer at once, so that memory stays bounded whatever the file's
/// length and a reader sees the answers as they come. Each bad line is named on standard
/// error by file and line (the first [`NAMED`]) and the rest of the file still answered;
/// any makes the exit code 2 at the end. A line whose given score differs from the one
/// found is named on standard error too (a note: the exit code stays 0).
pub fn stream(shape: Shape, file: &Path, table_mib: usize, json_out: bool, printed: Printed, ask: Ask) -> Result<i32> {
    let started = Instant::now();
    let form = match (json_out, printed) {
        (true, _) => Form::Json,
        (false, Printed::Table(Format::Text)) => Form::Text,
        (false, Printed::Table(Format::Csv)) => Form::Csv,
        (false, Printed::Field) => Form::Field,
        _ => {
            return Err(bad_input(
                "--positions prints each answer as it is found: --format text, csv or field, or --json",
            ));
        }
    };
    let (reader, name) = open(file)?;
    let mut lines = Lines::new(reader, name.clone());
    let mut solver = Solver::new(table_mib << 20);
    // Standard output is flushed at each line's end: each answer leaves as it is found.
    let mut out = std::io::stdout().lock();
    header(&mut out, form, shape, ask)?;
    let (mut answered, mut bad, mut differ) = (0usize, 0usize, 0usize);
    while let Some(line) = lines.next_line()? {
        match line.text.and_then(|t| read_line(shape, &t)) {
            Ok(None) => {}
            Ok(Some((text, moves, p, given))) => {
                let v = valued(&mut solver, &text, moves, p, ask, given);
                row(&mut out, form, shape, line.number, &v)?;
                answered += 1;
                if v.differs(shape.cells()) {
                    differ += 1;
                    if differ <= NAMED {
                        let found = row_texts(&v, shape.cells());
                        let found = if ask.outcome { found[2].clone() } else { format!("score {}", found[6]) };
                        eprintln!("note: {}: given score {} but found {found}", lines.at(line.number), given.unwrap());
                    }
                }
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
        let differ = if differ > 0 { format!(" ({differ} differ from their given score)") } else { String::new() };
        writeln!(
            out,
            "# {answered} positions{differ}; searched {} positions in {ms:.1} ms, table {mib} MiB",
            solver.nodes()
        )?;
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
fn header(out: &mut impl Write, form: Form, shape: Shape, ask: Ask) -> std::io::Result<()> {
    match form {
        Form::Text => {
            let each = if ask.outcome { "move:value" } else { "move:value/plies" };
            writeln!(out, "# {}; move_values (with --every-move): {each}", meaning(shape, ask))?;
            writeln!(out, "{}", FIELDS.join("\t"))
        }
        Form::Csv => writeln!(out, "{}", FIELDS.join(",")),
        Form::Json | Form::Field => Ok(()),
    }
}

/// A valued position as the field writes it: `<moves> <score>`, the moves as digits of
/// columns from 1.
fn field_line(shape: Shape, v: &Valued) -> String {
    let (_, score) = v.found.plies_and_score(shape.cells(), v.stones).expect("--format field asks for the score");
    format!("{} {score}", field_moves(&v.moves))
}

/// One answer of `--positions`, for the position of line `number`.
fn row(out: &mut impl Write, form: Form, shape: Shape, number: usize, v: &Valued) -> std::io::Result<()> {
    let cells = shape.cells();
    match form {
        Form::Json => {
            let mut object = row_json(shape, v);
            object["line"] = json!(number);
            writeln!(out, "{object}")
        }
        Form::Field => writeln!(out, "{}", field_line(shape, v)),
        Form::Text => {
            let fields = row_texts(v, cells);
            writeln!(out, "{number}\t{}", fields.join("\t"))
        }
        Form::Csv => {
            let mut fields = row_texts(v, cells);
            fields[2] = v.found.outcome().value().to_string();
            let quoted = |s: &str| if s.contains(',') { format!("\"{s}\"") } else { s.to_string() };
            let fields: Vec<String> = fields.iter().map(|f| quoted(f)).collect();
            writeln!(out, "{number},{}", fields.join(","))
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
