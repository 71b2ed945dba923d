//! `sweep evaluate A.csv B.csv`: two saved policies head to head, exactly.
//!
//! Both files are deterministic policies (`board,action,seat,game`, as `sweep reproduce
//! --policy-out` writes them), so A against B is one game: its value for A (+1, 0, -1)
//! and its win/draw/loss probabilities (each 0 or 1). Each policy's exploitability is
//! its seat's game value minus its value against a best response (see
//! [`crate::mdp::best_response`]). A plays X when A holds X positions and B holds O
//! positions, else O (a self-play file holds both). The game is the files' `game`
//! column (`--game` when they have none). A position the game or a best response reaches
//! that a file lacks is an error naming the board (exit 2).

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::json;

use crate::report::table::{Cell, Column, Doc, Table};

use super::play::read_policy;
use crate::error::{bad_input, exit};
use crate::game::{Board, Game, Status};
use crate::mdp::{Evaluation, Policy, Seat, best_response, game_value};

/// Flags of `sweep evaluate`.
#[derive(clap::Args, Debug)]
pub struct EvaluateArgs {
    /// Policy A (CSV board,action,seat,game from `sweep reproduce --policy-out`).
    a: PathBuf,
    /// Policy B, of the other seat and the same game.
    b: PathBuf,
    /// The game, for files without a game column (default 3x3k3).
    #[arg(long, value_parser = super::game_arg)]
    game: Option<Game>,
    /// Print one JSON object instead of text.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    #[command(flatten)]
    format: super::table::FormatFlag,
}

/// A policy file and the seat it plays.
struct Side<'a> {
    path: &'a Path,
    policy: Policy,
    seat: Seat,
}

impl Side<'_> {
    /// The move in `b`, or an error naming the board the file lacks.
    fn get(&self, b: Board) -> Result<u8> {
        self.policy.get(b).ok_or_else(|| {
            bad_input(format!("{}: no move for the position {b} ({} to move)", self.path.display(), self.seat))
        })
    }

    /// Its value against a best response, or an error naming a position it lacks.
    fn worst_case(&self) -> Result<Evaluation> {
        let mut missing = None;
        let eval = best_response(self.policy.game(), self.seat, |b| {
            self.policy.get(b).unwrap_or_else(|| {
                missing.get_or_insert(b);
                b.legal_moves().trailing_zeros() as u8
            })
        });
        match missing {
            Some(b) => Err(bad_input(format!(
                "{}: no move for the position {b} ({} to move), which a best response reaches",
                self.path.display(),
                self.seat
            ))),
            None => Ok(eval),
        }
    }
}

/// The `game` column of the first row of a policy file, if it has one.
fn file_game(path: &Path) -> Result<Option<Game>> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| bad_input(format!("{}: cannot read: {e}", path.display())))?;
    let Some(rec) = reader.records().next() else { return Ok(None) };
    let rec = rec.map_err(|e| bad_input(format!("{}: row 2: {e}", path.display())))?;
    match rec.get(3) {
        None | Some("") => Ok(None),
        Some(g) => g.parse().map(Some).map_err(|e| bad_input(format!("{}: row 2: game {g:?}: {e}", path.display()))),
    }
}

/// Runs `sweep evaluate`.
pub fn evaluate(args: &EvaluateArgs) -> Result<i32> {
    let game = common_game(args)?;
    let (pa, seats_a) = read_policy(&args.a, game)?;
    let (pb, seats_b) = read_policy(&args.b, game)?;
    let seat_a = seat_of_a(args, &seats_a, &seats_b)?;
    let a = Side { path: &args.a, policy: pa, seat: seat_a };
    let b = Side { path: &args.b, policy: pb, seat: seat_a.other() };
    let (moves, value) = play_out(game, &a, &b)?;
    let (worst_a, worst_b) = (a.worst_case()?, b.worst_case()?);
    let played = Played { game, moves, value, worst: [worst_a, worst_b] };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&played_json(&a, &b, &played))?);
        return Ok(exit::OK);
    }
    super::table::print_doc(&played_doc(&a, &b, &played), args.format.format());
    Ok(exit::OK)
}

/// The game both files play: their `game` columns, or `--game` for a file without one
/// (tic-tac-toe when neither says); files of two different games are refused.
fn common_game(args: &EvaluateArgs) -> Result<Game> {
    let (ga, gb) = (file_game(&args.a)?, file_game(&args.b)?);
    match (ga.or(args.game), gb.or(args.game)) {
        (Some(a), Some(b)) if a != b => Err(bad_input(format!(
            "{} is a policy for {a} and {} one for {b}: both must play the same game",
            args.a.display(),
            args.b.display()
        ))),
        (a, b) => Ok(a.or(b).unwrap_or(Game::TIC_TAC_TOE)),
    }
}

/// A's seat: X when A holds X positions and B holds O positions, else O when the other
/// way round; an error when the files hold no opposite seats.
fn seat_of_a(args: &EvaluateArgs, seats_a: &[Seat], seats_b: &[Seat]) -> Result<Seat> {
    [Seat::X, Seat::O].into_iter().find(|&s| seats_a.contains(&s) && seats_b.contains(&s.other())).ok_or_else(|| {
        let names = |s: &[Seat]| s.iter().map(|s| s.name()).collect::<Vec<_>>().join(" and ");
        bad_input(format!(
            "{} holds positions of {} and {} of {}: the two policies must play opposite seats",
            args.a.display(),
            names(seats_a),
            args.b.display(),
            names(seats_b)
        ))
    })
}

/// The one game of A against B and each side's value against a best response.
struct Played {
    game: Game,
    /// The cells played.
    moves: Vec<u8>,
    /// The game's value for A.
    value: f64,
    /// A's and B's values against a best response.
    worst: [Evaluation; 2],
}

impl Played {
    /// The probability of outcome `o` (`win`, `draw` or `loss`) for A: 1 for the game's
    /// outcome, else 0.
    fn p(&self, o: &str) -> f64 {
        let outcome = match self.value {
            v if v > 0.0 => "win",
            v if v < 0.0 => "loss",
            _ => "draw",
        };
        if outcome == o { 1.0 } else { 0.0 }
    }
}

/// The JSON object of `sweep evaluate --json`.
fn played_json(a: &Side, b: &Side, played: &Played) -> serde_json::Value {
    let side_json = |s: &Side, worst: &Evaluation| {
        let optimal = game_value(played.game, s.seat);
        json!({
            "file": s.path.display().to_string(),
            "seat": s.seat.name(),
            "worst_case": worst.value,
            "game_value": optimal,
            "exploitability": optimal - worst.value,
        })
    };
    json!({
        "game": played.game.to_string(),
        "a": side_json(a, &played.worst[0]),
        "b": side_json(b, &played.worst[1]),
        "value": played.value,
        "p_win": played.p("win"),
        "p_draw": played.p("draw"),
        "p_loss": played.p("loss"),
        "moves": played.moves,
    })
}

/// What `sweep evaluate` prints without `--json`: the game in words and each side's
/// exploitability, then the game and the sides as tables.
fn played_doc(a: &Side, b: &Side, played: &Played) -> Doc {
    let Played { game, moves, value, worst: [worst_a, worst_b] } = played;
    let p = |o: &str| played.p(o);
    let cells: Vec<String> = moves.iter().map(u8::to_string).collect();
    let mut doc = Doc::new(format!("sweep evaluate: {} against {} on {game}", a.path.display(), b.path.display()));
    doc.line(format!(
        "{game}: {} ({}) against {} ({}), one game (both deterministic)",
        a.path.display(),
        a.seat,
        b.path.display(),
        b.seat
    ));
    doc.line(format!("  moves {}", cells.join(" ")));
    doc.line(format!("  value for A {value:+}: p_win {} p_draw {} p_loss {}", p("win"), p("draw"), p("loss")));
    let columns = vec![Column::text("side"), Column::text("file"), Column::text("seat")];
    let columns = columns.into_iter().chain(["exploitability", "worst_case", "game_value"].map(Column::numbers));
    let mut sides = Table::new("each policy's exploitability", columns.collect());
    for (name, s, worst) in [("a", a, worst_a), ("b", b, worst_b)] {
        let optimal = game_value(*game, s.seat);
        doc.line(format!(
            "  exploitability of {} ({}): {} (worst case {:+}, game value {:+})",
            s.path.display(),
            s.seat,
            optimal - worst.value,
            worst.value,
            optimal
        ));
        sides.push(vec![
            Cell::text(name),
            Cell::text(s.path.display().to_string()),
            Cell::text(s.seat.name()),
            Cell::Float(optimal - worst.value),
            Cell::Float(worst.value),
            Cell::Float(optimal),
        ]);
    }
    let mut result = Table::new("the game of A against B", vec![Column::text("game"), Column::text("moves")]);
    let result_columns = ["value", "p_win", "p_draw", "p_loss"].map(Column::numbers);
    result.columns.extend(result_columns);
    result.push(vec![
        Cell::text(game.to_string()),
        Cell::text(cells.join(" ")),
        Cell::Float(*value),
        Cell::Float(p("win")),
        Cell::Float(p("draw")),
        Cell::Float(p("loss")),
    ]);
    doc.data(result);
    doc.data(sides);
    doc
}

/// Plays the one game of A against B: the cells played and the value for A.
fn play_out(game: Game, a: &Side, b: &Side) -> Result<(Vec<u8>, f64)> {
    let mut board = Board::empty(game);
    let mut moves = Vec::new();
    loop {
        if board.status() != Status::Ongoing {
            let r = board.status().reward(a.seat.player()).expect("the game is over");
            return Ok((moves, r));
        }
        let side = if board.to_move() == a.seat.player() { a } else { b };
        let cell = side.get(board)?;
        moves.push(cell);
        board = board.play(cell);
    }
}
