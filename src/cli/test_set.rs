//! `sweep score --test-set FILE...`: the field's metric. An agent's move in each position
//! of fixed, solver-labelled sets is judged against the exact search: does it keep the
//! position's win/draw/loss value (`wdl_accuracy`; AlphaZero.jl's mistake rate is its
//! complement), and is it one of the moves of the best score (`score_accuracy`)? Each
//! share comes with Wilson's 95% interval ([`crate::stats::binomial`]).
//!
//! A set is a text file in the field's notation: one position a line, `<moves>` or
//! `<moves> <score>`, the moves one digit each, columns (cells on an m,n,k board) from 1;
//! the score is the field's, for the player to move (`22 - stones of the winner at the
//! end` on 7x6 when it wins, 0 for a draw, negative when it loses). Blank lines and lines
//! starting with `#` are skipped. Every line is read (with a cap, [`super::lines`]), and
//! every position searched (the score of each legal move), before the agent is asked
//! anything: a bad line, or a score that is not the one the search finds, is an error
//! naming the file and the line.
//! Positions are then asked in batches of at most `--batch`, set after set.

use std::io::BufRead;
use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use super::lines::Lines;
use crate::error::{bad_input, exit};
use crate::oracle::{Agent, Asked, Position, Score, Shape, Solver};
use crate::report::table::{Cell, Column, Doc, Format, Table};

/// One position of a set: its line (from 1), the position, and the score the file gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    pub line: usize,
    pub position: Position,
    pub score: Option<i32>,
}

/// The positions of a set read from `reader` (`name` is its file, for errors), its lines
/// read with a cap ([`super::lines`]): an error names the file and the line and says
/// what is wrong.
pub fn read_set(shape: Shape, name: &str, reader: impl BufRead) -> Result<Vec<Line>, String> {
    let mut lines = Lines::new(reader, name).stopping_at_a_long_line();
    let mut set = Vec::new();
    while let Some(line) = lines.next_line().map_err(|e| format!("{name}: {e}"))? {
        let at = |what: String| format!("{}: {what}", lines.at(line.number));
        let text = line.text.map_err(at)?;
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (position, score) = parse_line(shape, trimmed).map_err(at)?;
        set.push(Line { line: line.number, position, score });
    }
    Ok(set)
}

/// A line's position and the score it gives, if any.
fn parse_line(shape: Shape, text: &str) -> Result<(Position, Option<i32>), String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() > 2 {
        return Err(format!("{}: a line is `<moves>` or `<moves> <score>`", excerpt(text)));
    }
    let moves = fields[0]
        .bytes()
        .map(|b| match b {
            b'1'..=b'9' => Ok(b - b'1'),
            _ => Err(format!("{}: the moves are digits from 1", excerpt(fields[0]))),
        })
        .collect::<Result<Vec<u8>, String>>()?;
    let position = replay(shape, &moves).map_err(|e| format!("{:?} on {shape}: {e}", fields[0]))?;
    let score = match fields.get(1) {
        None => None,
        Some(s) => Some(s.parse::<i32>().map_err(|_| format!("{}: the score is an integer", excerpt(s)))?),
    };
    Ok((position, score))
}

/// The position after `moves` (from 0), or what is wrong, the moves named as the file
/// writes them (from 1).
fn replay(shape: Shape, moves: &[u8]) -> Result<Position, String> {
    let mut p = Position::empty(shape);
    for (i, &m) in moves.iter().enumerate() {
        if p.is_over() {
            return Err(format!("move {} ({}) comes after the game is over", i + 1, m + 1));
        }
        if !p.is_legal(m) {
            return Err(format!("move {} ({}) is not legal (a full column, a taken cell or none such)", i + 1, m + 1));
        }
        p = p.play(m);
    }
    Position::after(shape, moves).map_err(|e| e.0)
}

/// The first 32 characters of a bad field, so that an error never echoes a huge line.
fn excerpt(s: &str) -> String {
    crate::error::excerpt(s.as_bytes())
}

/// The field's score of a search score (`cells + 1 - plies at the end` for the winner):
/// half of it, rounded away from zero (the winner's stones rather than the plies).
pub fn field_score(s: Score) -> i32 {
    s.signum() * ((s.abs() + 1) / 2)
}

/// What the agent did on one set: positions, those whose move kept the win/draw/loss
/// value and those whose move kept the best score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetFigures {
    pub set: String,
    pub positions: usize,
    pub wdl_kept: usize,
    pub score_kept: usize,
}

/// Sign of a score: the win/draw/loss value it has.
fn wdl(s: Score) -> Score {
    s.signum()
}

/// Where the sets are and how they are searched.
pub struct Sets<'a> {
    pub shape: Shape,
    pub files: &'a [PathBuf],
    pub table_bytes: usize,
    pub threads: usize,
}

/// Every set read and searched: its name (the file's) and each position with the score
/// of each legal move, so that a bad line stops `sweep score` before the agent is asked.
pub struct Labelled {
    sets: Vec<LabelledSet>,
    nodes: u64,
}

/// A set's name, its positions and the score of each legal move in each.
type LabelledSet = (String, Vec<Position>, Vec<Vec<(u8, Score)>>);

/// Reads and searches every set; an error names the file and the line.
pub fn label(sets: &Sets) -> Result<Labelled> {
    let mut read = Vec::new();
    for file in sets.files {
        let opened = std::fs::File::open(file).map_err(|e| bad_input(format!("{}: {e}", file.display())))?;
        let reader = std::io::BufReader::new(opened);
        let set = read_set(sets.shape, &file.display().to_string(), reader).map_err(bad_input)?;
        let label = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
        read.push((file, label, set));
    }
    let mut solver = Solver::new(sets.table_bytes);
    let mut labelled = Vec::new();
    for (file, label, set) in read {
        let positions: Vec<Position> = set.iter().map(|l| l.position).collect();
        let scores = solver.map_parallel(&positions, sets.threads, |s, p| s.move_scores(p));
        for (l, moves) in set.iter().zip(&scores) {
            let best = field_score(best(moves));
            if let Some(given) = l.score.filter(|&g| g != best) {
                return Err(bad_input(format!(
                    "{}:{}: the score {given} is not the position's: the search finds {best}",
                    file.display(),
                    l.line,
                )));
            }
        }
        labelled.push((label, positions, scores));
    }
    Ok(Labelled { sets: labelled, nodes: solver.nodes() })
}

/// The best score of a position's moves.
fn best(moves: &[(u8, Score)]) -> Score {
    moves.iter().map(|m| m.1).max().expect("a position in play has a move")
}

/// Scores `agent` (called `name`) on the labelled sets, set after set, in batches of at
/// most `batch` positions.
pub fn run(
    labelled: &Labelled,
    batch: usize,
    agent: &mut dyn Agent,
    name: &str,
    json: bool,
    format: Format,
) -> Result<i32> {
    let mut asked = Asked::new(agent);
    let mut figures = Vec::new();
    for (set, positions, scores) in &labelled.sets {
        let mut f = SetFigures { set: set.clone(), positions: positions.len(), wdl_kept: 0, score_kept: 0 };
        for chunk in positions.chunks(batch) {
            asked.ask(chunk).map_err(|e| anyhow::anyhow!("{set}: {e}"))?;
        }
        for (p, moves) in positions.iter().zip(scores) {
            let played = asked.get(*p).map_err(|e| anyhow::anyhow!("{set}: {e}"))?;
            let best = best(moves);
            let got = moves.iter().find(|m| m.0 == played).expect("the agent's move is legal").1;
            f.wdl_kept += usize::from(wdl(got) == wdl(best));
            f.score_kept += usize::from(got == best);
        }
        figures.push(f);
    }
    let (asked_n, batches) = (asked.asked(), asked.batches());
    agent.finish().map_err(|e| anyhow::anyhow!("{e}"))?;
    if json {
        let rows: Vec<_> = figures.iter().map(set_json).collect();
        println!("{}", serde_json::to_string_pretty(&rows).expect("JSON"));
        return Ok(exit::OK);
    }
    let shape = labelled.sets.iter().flat_map(|s| s.1.first()).next().map(|p| p.shape().to_string());
    let mut doc = Doc::new(format!("sweep score: {name} on test sets of {}", shape.unwrap_or_default()));
    doc.table(sets_table(&figures));
    doc.line(
        "wdl_accuracy: the share of positions where the agent's move keeps the win/draw/loss value (1 minus the \
         mistake rate); score_accuracy: where it is a move of the best score; ± half of Wilson's 95% interval",
    );
    doc.line(format!(
        "asked the agent {asked_n} positions in {batches} batches; searched {} positions",
        labelled.nodes
    ));
    super::table::print_doc(&doc, format);
    Ok(exit::OK)
}

/// A set's object of `--json`: both shares, each with its Wilson 95% interval (its ends
/// and its half width).
fn set_json(f: &SetFigures) -> serde_json::Value {
    let (wl, wh, ww) = crate::stats::binomial::wilson95(f.wdl_kept, f.positions.max(1));
    let (sl, sh, sw) = crate::stats::binomial::wilson95(f.score_kept, f.positions.max(1));
    let share = |k: usize| if f.positions == 0 { None } else { Some(k as f64 / f.positions as f64) };
    let some = |x: f64| (f.positions > 0).then_some(x);
    json!({
        "set": f.set,
        "positions": f.positions,
        "wdl_accuracy": share(f.wdl_kept),
        "wdl_half_width": some(ww),
        "wdl_interval": (f.positions > 0).then_some([wl, wh]),
        "score_accuracy": share(f.score_kept),
        "score_half_width": some(sw),
        "score_interval": (f.positions > 0).then_some([sl, sh]),
    })
}

/// The text table: one row per set.
fn sets_table(figures: &[SetFigures]) -> Table {
    let columns = vec![
        Column::text("set"),
        Column::integers("positions"),
        Column::text("wdl_accuracy"),
        Column::text("score_accuracy"),
        Column::text("mistakes"),
    ];
    let mut table = Table::new("test sets", columns);
    for f in figures {
        let share = |k: usize| {
            if f.positions == 0 {
                return String::new();
            }
            let (_, _, half) = crate::stats::binomial::wilson95(k, f.positions);
            format!("{:.4} ± {:.4}", k as f64 / f.positions as f64, half)
        };
        table.push(vec![
            Cell::text(&f.set),
            Cell::int(f.positions),
            Cell::text(share(f.wdl_kept)),
            Cell::text(share(f.score_kept)),
            Cell::int(f.positions - f.wdl_kept),
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_scores_are_the_winners_stones_left_of_22_on_seven_by_six() {
        // X wins with its 4th stone at ply 7: 43 - 7 = 36 for the search, 22 - 4 = 18.
        assert_eq!(field_score(36), 18);
        // O wins with its 4th stone at ply 8: 35, and 18 for O.
        assert_eq!((field_score(35), field_score(-35), field_score(0)), (18, -18, 0));
    }

    #[test]
    fn a_bad_line_is_named_by_file_and_line() {
        let shape: Shape = "6x7g4".parse().unwrap();
        let ok = read_set(shape, "s.txt", "# c\n\n4453 -2\n44\n".as_bytes()).unwrap();
        assert_eq!((ok.len(), ok[0].line, ok[0].score, ok[1].score), (2, 3, Some(-2), None));
        for (text, says) in [
            ("44\n408 1\n", "s.txt:2: \"408\": the moves are digits from 1"),
            ("44\n8 1\n", "s.txt:2: \"8\" on 6x7g4: move 1 (8) is not legal"),
            ("1111111\n", "s.txt:1: \"1111111\" on 6x7g4: move 7 (1) is not legal"),
            ("1212121\n", "s.txt:1: \"1212121\" on 6x7g4: the game is over"),
            ("44 x\n", "s.txt:1: \"x\": the score is an integer"),
            ("44 1 2\n", "s.txt:1: \"44 1 2\": a line is"),
        ] {
            let e = read_set(shape, "s.txt", text.as_bytes()).unwrap_err();
            assert!(e.starts_with(says), "{text:?}: {e}");
        }
        // A line past the cap stops the reading there, without being kept.
        let long = format!("44\n{}\n", "4".repeat(super::super::lines::MAX_LINE + 1));
        let e = read_set(shape, "s.txt", long.as_bytes()).unwrap_err();
        assert!(e.starts_with("s.txt:2: a line longer than the 4096 bytes"), "{e}");
    }
}
