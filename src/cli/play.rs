//! `sweep play`: a game in the terminal against the optimal policy, MCTS, or a policy file.
//!
//! Any game (`--game`, tic-tac-toe by default), against any agent. The board is shown row
//! by row with the cells a move may mark numbered by the move (the cell, row-major from 0,
//! on m,n,k-games; the column, from 0 at the left, on gravity boards); bad input gets a
//! message and a new prompt; end of input ends the game cleanly. Moves read from a pipe or file are echoed after the
//! prompt, so that a log reads like a game. A policy file plays the seat its positions
//! belong to (X's positions have as many X as O); playing it from the other seat is
//! refused.

use anyhow::{Context, Result};
use std::io::{BufRead, Write};

use crate::error::{bad_input, exit};
use crate::game::{Board, Game};
use crate::mdp::{Opponent, Policy, Seat};
use crate::solvers::mcts::Searcher;
use crate::solvers::{MctsParams, ground_truth};

/// Flags of `sweep play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Who you play against: `optimal`, `mcts`, or a policy file (CSV board,action from `reproduce --policy-out`).
    #[arg(long, default_value = "optimal")]
    agent: String,
    /// The seat YOU play: x (moves first) or o.
    #[arg(long, default_value = "x", value_parser = super::seat_arg)]
    seat: Seat,
    /// MCTS iterations per move (with --agent mcts), from 1 to 4294967295 (as a spec's `iterations`).
    #[arg(long, default_value_t = 10_000, value_parser = super::ranges::iterations)]
    iterations: u32,
    /// Seed of the MCTS searches (with --agent mcts).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The game: "<rows>x<cols>k<k>" (a move is a cell, numbered row by row from 0 at the top left) or "<rows>x<cols>g<k>" (gravity: a move is a column, numbered from 0 at the left; the stone drops to its lowest empty cell); rows, columns >= 3, at most 16 cells (k) or at most 20 cells, or 24 on at most 4 columns (g), 3 <= k <= max(rows, columns). Boards beyond that which the search takes (Connect Four is 6x7g4) are played against optimal or mcts.
    #[arg(long, default_value = "3x3k3")]
    game: String,
}

enum Agent {
    Optimal,
    Mcts(Searcher, MctsParams, u64),
    File(Policy),
}

impl Agent {
    /// The agent's move in `board`, where it plays `agent_seat`, with a note on how it
    /// chose it.
    fn choose(&mut self, board: Board, agent_seat: Seat) -> (u8, String) {
        match self {
            Agent::Optimal => optimal_move(board, agent_seat),
            Agent::Mcts(s, p, seed) => (s.choose(p, *seed, board), format!("{} iterations", p.iterations)),
            Agent::File(p) => match p.get(board) {
                Some(c) => (c, "from the policy file".to_string()),
                None => (p.get_or_first(board), "not in the policy file: lowest free cell".to_string()),
            },
        }
    }
}

/// The agent of `--agent` on `game`, playing the seat the player does not: the optimal
/// policy, MCTS, or a policy file of that seat.
fn agent_of(args: &PlayArgs, game: Game) -> Result<Agent> {
    Ok(match args.agent.as_str() {
        "optimal" => Agent::Optimal,
        "mcts" => Agent::Mcts(
            Searcher::new(),
            MctsParams { seat: args.seat.other(), iterations: args.iterations, game, ..MctsParams::default() },
            args.seed,
        ),
        file => {
            let (policy, seats) = read_policy(std::path::Path::new(file), game)?;
            check_policy_seat(&seats, args.seat.other(), file)?;
            Agent::File(policy)
        }
    })
}

/// The end of a game, from the reward `r` of the player's seat.
fn verdict(r: f64) -> &'static str {
    if r > 0.0 {
        "You win."
    } else if r < 0.0 {
        "The agent wins."
    } else {
        "Draw."
    }
}

/// Reads a `board,action[,seat[,game]]` policy file of `game` (`seat`, when present, must
/// be the seat to move in `board`; `game`, when present, must be `game`), with the seats
/// whose positions it holds.
pub fn read_policy(path: &std::path::Path, game: Game) -> Result<(Policy, Vec<Seat>)> {
    let mut seats = Vec::new();
    let mut reader = csv::Reader::from_path(path).map_err(|e| bad_input(format!("--agent {}: {e}", path.display())))?;
    let mut policy = Policy::new(game);
    let pos = game.positions();
    for (i, rec) in reader.records().enumerate() {
        let rec = rec.map_err(|e| bad_input(format!("{}: row {}: {e}", path.display(), i + 2)))?;
        let bad = |what: String| bad_input(format!("{}: row {}: {what}", path.display(), i + 2));
        if let Some(g) = rec.get(3).filter(|g| *g != game.to_string()) {
            return Err(bad(format!("this is a policy for the game {g}; play it with --game {g}")));
        }
        let board = Board::parse_in(game, rec.get(0).unwrap_or("")).map_err(|e| bad(format!("{e} (game {game})")))?;
        let cell = board.parse_move(rec.get(1).unwrap_or("")).map_err(|e| bad(format!("the action: {e}")))?;
        let id = pos.id(board).ok_or_else(|| bad(format!("{board} cannot arise in a game")))?;
        let to_move = if board.to_move() == Seat::X.player() { Seat::X } else { Seat::O };
        if rec.get(2).is_some_and(|s| s.parse::<Seat>().ok() != Some(to_move)) {
            return Err(bad(format!("the seat column says {:?}, but {to_move} is to move in {board}", &rec[2])));
        }
        if !seats.contains(&to_move) {
            seats.push(to_move);
        }
        policy.set(id, cell);
    }
    Ok((policy, seats))
}

/// The board row by row, the cells a move may mark by the move's number (as wide as the
/// largest cell number), other free cells as `.`.
fn show(board: Board) -> String {
    let game = board.game();
    let (rows, cols, moves) = (game.rows(), game.cols(), board.moves());
    let width = (game.cells() - 1).to_string().len();
    let mut out = String::new();
    for r in 0..rows {
        let cells: Vec<String> = (0..cols)
            .map(|c| {
                let i = cols * r + c;
                let mark = match (board.x() >> i & 1, board.o() >> i & 1) {
                    (1, _) => "X".to_string(),
                    (_, 1) => "O".to_string(),
                    _ if moves >> i & 1 == 1 => game.move_text(i as u8),
                    _ => ".".to_string(),
                };
                format!("{mark:>width$}")
            })
            .collect();
        out.push_str(&format!(" {} \n", cells.join(" | ")));
        if r + 1 < rows {
            out.push_str(&vec!["-".repeat(width + 2); cols].join("+"));
            out.push('\n');
        }
    }
    out
}

/// The optimal agent's move: a minimax-optimal move (it never loses), and among those the
/// one worth most against a random opponent (so it exploits mistakes).
fn optimal_move(board: Board, agent_seat: Seat) -> (u8, String) {
    let pos = board.game().positions();
    let id = pos.id(board).expect("reachable");
    let safe = pos.optimal_moves(id);
    let truth = ground_truth(board.game(), agent_seat, Opponent::Random);
    let s = truth.mdp.state(board).expect("every position is reachable against random");
    let (cell, value) = truth
        .solution
        .action_values(&truth.mdp, s)
        .filter(|(c, _)| safe & (1 << c) != 0)
        .fold((u8::MAX, f64::NEG_INFINITY), |best, (c, v)| if v > best.1 + 1e-12 { (c, v) } else { best });
    let game = pos.minimax(id) * if agent_seat == Seat::X { 1 } else { -1 };
    let verdict = match game {
        1 => "a forced win",
        0 => "a draw with best play",
        _ => "a loss with best play",
    };
    (cell, format!("value {value:+.4} against a random player; {verdict}"))
}

/// Refuses a policy file that holds positions of the other seat only.
fn check_policy_seat(seats: &[Seat], agent_seat: Seat, file: &str) -> Result<()> {
    if let [seat] = seats {
        if *seat != agent_seat {
            return Err(bad_input(format!(
                "{file} is a policy for {}, so you must play {}: use --seat {}",
                seat.name().to_uppercase(),
                agent_seat.name().to_uppercase(),
                agent_seat.name()
            )));
        }
    }
    Ok(())
}

/// Runs `sweep play`, reading moves from `input`; `echo` repeats each move read after
/// its prompt (for input that is not a terminal).
pub fn play_with(args: &PlayArgs, input: &mut dyn BufRead, out: &mut dyn Write, echo: bool) -> Result<i32> {
    let game: Game = match args.game.parse() {
        Ok(g) => g,
        Err(e) => match args.game.parse::<crate::oracle::Shape>() {
            Ok(shape) => {
                return super::play_search::play(
                    shape,
                    &args.agent,
                    args.seat,
                    args.iterations,
                    args.seed,
                    input,
                    out,
                    echo,
                );
            }
            Err(_) => {
                return Err(bad_input(format!(
                    "--game: {e}; beyond those, any board the search takes is played against optimal or mcts (columns x (rows + 1) at most 63: Connect Four is 6x7g4)"
                )));
            }
        },
    };
    let mut agent = agent_of(args, game)?;
    let agent_seat = args.seat.other();
    let mut board = Board::empty(game);
    let rules = match game {
        Game::TIC_TAC_TOE => String::new(),
        g => format!("{g}: {} x {}, {} in a row wins. ", g.rows(), g.cols(), g.k()),
    };
    writeln!(
        out,
        "{rules}You play {}; the agent ({}) plays {}. Type {}.",
        args.seat.name().to_uppercase(),
        args.agent,
        agent_seat.name().to_uppercase(),
        game.numbering()
    )?;
    loop {
        if let Some(r) = board.status().reward(args.seat.player()) {
            write!(out, "{}", show(board))?;
            writeln!(out, "{}", verdict(r))?;
            return Ok(exit::OK);
        }
        if board.to_move() == agent_seat.player() {
            let (cell, note) = agent.choose(board, agent_seat);
            writeln!(out, "agent plays {} ({note})", game.move_text(cell))?;
            board = board.play(cell);
            continue;
        }
        write!(out, "{}your move: ", show(board))?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line).context("cannot read the terminal")? == 0 {
            writeln!(out, "\nend of input: game abandoned")?;
            return Ok(exit::OK);
        }
        if echo {
            writeln!(out, "{}", line.trim_end())?;
        }
        match board.parse_move(&line) {
            Ok(c) => board = board.play(c),
            Err(why) => writeln!(out, "{why}")?,
        }
    }
}

/// Runs `sweep play` on the terminal.
pub fn play(args: &PlayArgs) -> Result<i32> {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    play_with(args, &mut stdin.lock(), &mut std::io::stdout(), echo)
}
