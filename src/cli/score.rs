//! `sweep score`: one deterministic agent scored exactly on any board the search takes,
//! Connect Four (`6x7g4`) included, without enumerating the board: against `random`,
//! `minimax`, `minimax-uniform` and a best response (exploitability), with per-move
//! accuracy ([`crate::oracle::Scorer`]). The agent is built in (`lowest`, `perfect`) or a
//! program that answers positions on demand ([`crate::run::policy_server`]). With
//! `--test-set`, the agent's moves on fixed sets of positions instead ([`super::test_set`]).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::positions::parse_moves;
use crate::error::{bad_input, exit};
use crate::oracle::{
    Against, Agent, Asked, Figure, Limits, Lowest, Method, Perfect, Position, Scorer, Shape, Solver, Uct,
};
use crate::report::table::{Cell, Column, Doc, Table};
use crate::run::policy_server::PolicyServer;

/// Flags of `sweep score`.
#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// The board: any the search takes ("6x7g4" is Connect Four; "5x5k4", "6x5g4", ...).
    #[arg(long, default_value = "6x7g4")]
    game: String,
    /// The agent's seat: x (moves first) or o.
    #[arg(long, default_value = "x")]
    seat: String,
    /// Start from the position after these moves instead of the empty board (as `solve
    /// --moves` takes them: `3,3,4` from 0, or the digit string `4453` from 1).
    #[arg(long, default_value = "-")]
    from: String,
    /// A built-in agent: `lowest` (the lowest legal move), `perfect` (a move of the best
    /// outcome, the one `minimax` plays) or `mcts` (UCT with --iterations and --uct-c,
    /// seeded per position by --seed). Ignored when a policy command follows `--`.
    #[arg(long, default_value = "lowest")]
    agent: String,
    /// MCTS: iterations per move, from 1 to 4294967295 (as a spec's `iterations`).
    #[arg(long, default_value_t = 1000, value_parser = super::ranges::iterations)]
    iterations: u32,
    /// MCTS: the exploration constant, a finite number >= 0 (as a spec's `uct_c`).
    #[arg(long, default_value_t = 1.414, value_parser = super::ranges::uct_c)]
    uct_c: f64,
    /// The evaluation opponents, comma separated.
    #[arg(long, default_value = "random,minimax,minimax-uniform,best-response", value_delimiter = ',')]
    against: Vec<String>,
    /// Positions per batch sent to a policy program, from 1 to 1048576.
    #[arg(long, default_value_t = 1024, value_parser = super::ranges::batch)]
    batch: usize,
    /// How long a policy program may take to answer one batch: a duration such as 90s,
    /// 10m or 2h (or seconds), above 0 and at most 1e9 s, or `none` for no limit.
    #[arg(long, default_value = "60s", value_name = "DURATION", value_parser = super::ranges::timeout)]
    timeout: Duration,
    /// The most positions kept for an exact evaluation (past it: sampled games against
    /// random and minimax-uniform, a search for the best response); from 0 (never exact)
    /// to as many as this machine's memory holds, at about 100 bytes a position.
    #[arg(long, default_value_t = Limits::default().positions, value_parser = super::ranges::max_positions)]
    max_positions: usize,
    /// The most positions the best-response search visits before it reports a bound (>= 1).
    #[arg(long, default_value_t = Limits::default().nodes, value_parser = super::ranges::node_budget)]
    node_budget: u64,
    /// Games sampled where an exact evaluation does not fit, from 1 to 1000000 (a figure
    /// from one game, or from games that all ended alike, has no interval and says so).
    #[arg(long, default_value_t = Limits::default().games, value_parser = super::ranges::games)]
    games: u32,
    /// The seed of sampled games and of the MCTS agent.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Threads the search uses (the game value, the optimal moves of many positions at
    /// once; default: every core), from 1 to 1024. The figures do not depend on it.
    #[arg(long, value_parser = super::ranges::threads)]
    threads: Option<usize>,
    /// The search's transposition table, in MiB: from 1 to this machine's memory (never
    /// above 1048576, 1 TiB).
    #[arg(long, default_value_t = 512, value_parser = super::ranges::table_mib)]
    table_mib: usize,
    /// Print one JSON object instead of a table.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    #[command(flatten)]
    format: super::table::FormatFlag,
    /// Score the agent's moves on these sets of positions instead (the field's metric): a
    /// text file per set, one position a line as the field writes it, `<moves>` or
    /// `<moves> <score>` (columns from 1, as `4453`; the score, when given, is checked
    /// against the search's). Per set: the share of positions where the agent's move keeps
    /// the win/draw/loss value (`wdl_accuracy`), and where it is a move of the best score
    /// (`score_accuracy`), each with Wilson's 95% interval. The repository's
    /// tests/data/test-sets holds a small set.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["from", "against"])]
    test_set: Vec<std::path::PathBuf>,
    /// A policy program and its arguments, after `--`: it answers positions on its
    /// standard input (see the guide's "Agents that answer positions").
    #[arg(last = true)]
    command: Vec<String>,
}

/// Runs `sweep score`.
pub fn score(args: &ScoreArgs) -> Result<i32> {
    let shape: Shape = args.game.parse().map_err(|e| bad_input(format!("--game: {e}")))?;
    let agent_is_x = match args.seat.as_str() {
        "x" => true,
        "o" => false,
        s => return Err(bad_input(format!("--seat {s:?}: the seat is x or o"))),
    };
    let table_bytes = args.table_mib << 20;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if !args.test_set.is_empty() {
        let sets = super::test_set::Sets { shape, files: &args.test_set, table_bytes, threads };
        let labelled = super::test_set::label(&sets)?;
        let seat = if agent_is_x { "x" } else { "o" };
        let (mut agent, name) = agent(args, shape, seat, table_bytes, threads)?;
        return super::test_set::run(&labelled, args.batch, agent.as_mut(), &name, args.json, args.format.format());
    }
    let moves = parse_moves(shape, &args.from).map_err(|e| bad_input(format!("--from {e}")))?;
    let root = Position::after(shape, &moves).map_err(|e| bad_input(format!("--from {:?}: {e}", args.from)))?;
    let against = opponents(&args.against)?;
    let seat = if agent_is_x { "x" } else { "o" };
    let (mut agent, name) = agent(args, shape, seat, table_bytes, threads)?;
    let limits =
        Limits { positions: args.max_positions, nodes: args.node_budget, games: args.games, seed: args.seed, threads };
    let started = Instant::now();
    let mut solver = Solver::new(table_bytes);
    let mut asked = Asked::new(agent.as_mut());
    let mut scorer = Scorer::new(root, agent_is_x, &mut asked, &mut solver, limits);
    let spinner = Spinner::new();
    spinner.now("the game value under optimal play");
    let game_value = scorer.game_value();
    let game_value_ms = started.elapsed().as_secs_f64() * 1e3;
    let game_value_from_book = crate::oracle::book::known(root).is_some();
    spinner.done(format!("game value {game_value}"), game_value_ms);
    let mut figures = Vec::new();
    for a in against {
        let at = Instant::now();
        spinner.now(&format!("against {}", a.name()));
        let f = scorer.score(a).map_err(|e| anyhow::anyhow!("{shape} from {:?}: {e}", args.from))?;
        let ms = at.elapsed().as_secs_f64() * 1e3;
        spinner.done(format!("against {}: {:.4} ({})", a.name(), f.value, f.method.name()), ms);
        figures.push((f, ms));
    }
    drop(spinner);
    let (asked_n, batches) = (asked.asked(), asked.batches());
    // A program's end: its input closed, its grace to exit, nothing more said.
    agent.finish().map_err(|e| anyhow::anyhow!("{shape} from {:?}: {e}", args.from))?;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    let scored = Scored {
        shape,
        seat,
        name,
        game_value,
        figures,
        asked: (asked_n, batches),
        nodes: solver.nodes(),
        elapsed_ms,
        game_value_ms,
        game_value_from_book,
        games: args.games,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&scored_json(args, &scored)).expect("JSON"));
        return Ok(exit::OK);
    }
    super::table::print_doc(&scored_doc(args, &scored, moves.is_empty()), args.format.format());
    Ok(exit::OK)
}

/// What the score is doing and for how long, on stderr while it runs (a spinner, and a
/// line for each figure as it is found): a figure from Connect Four's first plies can take
/// minutes of search. Nothing when stderr is not a terminal; cleared at the end.
struct Spinner {
    bar: Option<ProgressBar>,
}

impl Spinner {
    fn new() -> Spinner {
        if !std::io::stderr().is_terminal() {
            return Spinner { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4));
        bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("a valid template"));
        bar.enable_steady_tick(Duration::from_millis(250));
        Spinner { bar: Some(bar) }
    }

    /// Searching for `what` now.
    fn now(&self, what: &str) {
        if let Some(b) = &self.bar {
            b.set_message(format!("searching: {what}"));
        }
    }

    /// A figure found, in `ms`.
    fn done(&self, what: String, ms: f64) {
        if let Some(b) = &self.bar {
            b.println(format!("{what}, {:.1} s", ms / 1e3));
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The evaluation opponents of `--against`.
fn opponents(against: &[String]) -> Result<Vec<Against>> {
    against
        .iter()
        .map(|a| {
            Against::of(a.trim()).ok_or_else(|| {
                bad_input(format!(
                    "--against {a:?}: the opponents are random, minimax, minimax-uniform and best-response"
                ))
            })
        })
        .collect::<Result<_>>()
}

/// The agent scored and its name: the policy program after `--` (started for `seat` on
/// `shape`), else the built-in agent of `--agent`.
fn agent(
    args: &ScoreArgs,
    shape: Shape,
    seat: &str,
    table_bytes: usize,
    threads: usize,
) -> Result<(Box<dyn Agent>, String)> {
    if !args.command.is_empty() {
        let server = PolicyServer::start(&args.command, &shape.to_string(), seat, args.batch, args.timeout)
            .map_err(|e| bad_input(format!("policy command: {e}")))?;
        return Ok((Box::new(server), args.command.join(" ")));
    }
    Ok(match args.agent.as_str() {
        "lowest" => (Box::new(Lowest), "lowest".to_string()),
        "perfect" => (Box::new(Perfect::new(table_bytes).with_threads(threads)), "perfect".to_string()),
        "mcts" => (
            Box::new(Uct::new(args.iterations, args.uct_c, args.seed)),
            format!("mcts (iterations {}, uct_c {})", args.iterations, args.uct_c),
        ),
        a => return Err(bad_input(format!("--agent {a:?}: the built-in agents are lowest, perfect and mcts"))),
    })
}

/// What `sweep score` found: the board, the agent's seat and name, the game value for its
/// seat, a figure per evaluation opponent, the positions asked of the agent and in how
/// many batches, the positions searched and the time taken.
struct Scored {
    shape: Shape,
    seat: &'static str,
    name: String,
    game_value: i8,
    /// Each figure and the milliseconds it took.
    figures: Vec<(Figure, f64)>,
    asked: (usize, usize),
    nodes: u64,
    elapsed_ms: f64,
    /// The milliseconds the game value took (the start of `elapsed_ms`).
    game_value_ms: f64,
    /// Whether the game value comes from the [`crate::oracle::book`] (else the search).
    game_value_from_book: bool,
    /// The games `--games` asked for per sampled figure.
    games: u32,
}

impl Scored {
    /// The exploitability of a figure against the best response: the game value minus the
    /// agent's value; none against the other opponents.
    fn exploit(&self, f: &Figure) -> Option<f64> {
        (f.against == Against::BestResponse).then(|| f64::from(self.game_value) - f.value)
    }
}

/// The JSON object of `sweep score --json`.
fn scored_json(args: &ScoreArgs, scored: &Scored) -> serde_json::Value {
    let rows: Vec<_> = scored
        .figures
        .iter()
        .map(|(f, ms)| {
            json!({
                "eval_opponent": f.against.name(),
                "method": f.method.name(),
                "value": f.value,
                "p_win": f.p_win,
                "p_draw": f.p_draw,
                "p_loss": f.p_loss,
                "half_width": f.half_width,
                "games": f.games,
                "interval": (f.method == Method::Sampled).then(|| games_note(f, args.games)),
                "exploitability": scored.exploit(f),
                "accuracy": f.accuracy,
                "positions": f.positions,
                "time_ms": ms,
            })
        })
        .collect();
    json!({
        "game": scored.shape.to_string(),
        "seat": scored.seat,
        "from": args.from,
        "agent": scored.name,
        "game_value": scored.game_value,
        "figures": rows,
        "positions_asked": scored.asked.0,
        "batches": scored.asked.1,
        "nodes": scored.nodes,
        "time_ms": scored.elapsed_ms,
        "game_value_ms": scored.game_value_ms,
        "game_value_from": if scored.game_value_from_book { "book" } else { "search" },
    })
}

/// What `sweep score` prints without `--json`: where the game starts (`from_start`: the
/// empty board) and its value, the scores and the work done.
fn scored_doc(args: &ScoreArgs, scored: &Scored, from_start: bool) -> Doc {
    let Scored {
        shape,
        seat,
        name,
        game_value,
        asked: (asked_n, batches),
        nodes,
        elapsed_ms,
        game_value_ms,
        game_value_from_book,
        ..
    } = scored;
    let mut doc = Doc::new(format!("sweep score: {name} as {seat} on {shape}"));
    doc.line(format!(
        "from {}; game value for the agent's seat under optimal play: {game_value}{}",
        if from_start { "the empty board".to_string() } else { format!("the position after {}", args.from) },
        if *game_value_from_book { " (from the book of positions this search has solved)" } else { "" }
    ));
    doc.table(scores_table(scored));
    doc.line(
        "value: the agent's expected return (win 1, draw 0, loss -1); sampled: ± half a 95% interval and the games \
         it comes from (no ± where they are too few or all ended alike); bound: the node budget ran out, the agent's \
         worst case is at most the value",
    );
    doc.line(format!(
        "asked the agent {asked_n} positions in {batches} batches; searched {nodes} positions; {elapsed_ms:.0} ms, \
         of which {game_value_ms:.0} ms for the game value"
    ));
    doc
}

/// How many games a sampled figure comes from, said where they are fewer than `asked`,
/// and why it has no interval where it has none: one game, or games that all ended alike.
fn games_note(f: &Figure, asked: u32) -> String {
    let played = f.games.unwrap_or(0);
    let plural = if played == 1 { "" } else { "s" };
    let games =
        if played < asked { format!("{played} of the {asked} games asked") } else { format!("{played} game{plural}") };
    match (f.half_width, played) {
        (Some(_), _) => games,
        (None, 0 | 1) => format!("{games}: too few for an interval"),
        (None, _) => format!("{games}, all ended alike: no interval"),
    }
}

/// The scores, one row per evaluation opponent: a sampled value with half its 95%
/// interval, a bound's value and exploitability marked as such.
fn scores_table(scored: &Scored) -> Table {
    let columns = vec![
        Column::text("eval_opponent"),
        Column::text("method"),
        Column::text("value"),
        Column::text("p_win"),
        Column::text("p_draw"),
        Column::text("p_loss"),
        Column::text("exploitability"),
        Column::text("accuracy"),
        Column::integers("positions"),
        Column::integers("ms"),
    ];
    let mut table = Table::new("scores", columns);
    let num = |v: f64| format!("{v:.6}");
    for (f, ms) in &scored.figures {
        let value = match (f.method, f.half_width) {
            (Method::Sampled, Some(h)) => format!("{} ± {} ({})", num(f.value), num(h), games_note(f, scored.games)),
            (Method::Sampled, None) => format!("{} ({})", num(f.value), games_note(f, scored.games)),
            (Method::Bound, _) => format!("<= {}", num(f.value)),
            _ => num(f.value),
        };
        let exploitability = match (scored.exploit(f), f.method) {
            (Some(e), Method::Bound) => format!(">= {}", num(e)),
            (Some(e), _) => num(e),
            (None, _) => String::new(),
        };
        table.push(vec![
            Cell::text(f.against.name()),
            Cell::text(f.method.name()),
            Cell::text(value),
            Cell::text(num(f.p_win)),
            Cell::text(num(f.p_draw)),
            Cell::text(num(f.p_loss)),
            Cell::text(exploitability),
            Cell::text(f.accuracy.map(num).unwrap_or_default()),
            Cell::int(f.positions),
            Cell::int(ms.round() as usize),
        ]);
    }
    table
}
