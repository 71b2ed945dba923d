//! The command line: flags close to clap, then plain options that the engine takes.
//!
//! `sweep SPEC` is `sweep run SPEC`. Exit codes: 0 success, 1 a run failed or reproduced
//! differently, 2 bad input, 130 interrupted.

mod bench;
mod columns;
mod compare;
mod evaluate;
mod fidelity;
mod guard;
mod importance;
mod lines;
mod merge;
mod plan;
mod play;
mod play_search;
mod positions;
mod ranges;
mod report;
mod reproduce;
mod run;
mod schedule;
mod score;
mod serve;
mod solve;
mod summary;
mod table;
mod test_set;

use std::path::PathBuf;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};

use crate::error::{BadInput, bad_input, exit};
use crate::mdp::{Opponent, Seat};
use crate::report::manifest::Shard;
use crate::run::{Existing, Fault, Notices, RunOptions};

/// Reinforcement-learning experiments on tic-tac-toe, scored against the exact optimum.
#[derive(Parser, Debug)]
#[command(name = "sweep", version, about, long_about = None, after_help = "Examples:\n  sweep experiments/qlearning.toml     run a spec (same as `sweep run`)\n  sweep plan experiments/mcts.toml      what a spec would run, and how long\n  sweep solve --seat o --opponent random\n  sweep summary results/qlearning\n  sweep report results/qlearning       one HTML page: tables, charts, the CSV")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run every job of a spec in parallel and write results/<name>/ (the main job).
    #[command(
        after_help = "Examples:\n  sweep run experiments/qlearning.toml\n  sweep run experiments/mcts.toml --threads 2 --out /tmp/mcts\n  sweep run big.toml --shard 3/16        # shard 3 of 16 (0-based)\n  sweep run experiments/qlearning.toml --only 1a2b3c   # one job again"
    )]
    Run(RunArgs),
    /// Show what a spec would run: jobs per solver, total work, estimated time; a search's rungs, Hyperband's brackets and warnings. Writes nothing.
    #[command(
        after_help = "The estimate comes from one cost model calibrated on this machine: half a second of measuring now, or the figures `sweep bench --save` kept (the estimate line says which). It counts the shared tables' build and how much of a core a thread gets on this host now.\n\nExample:\n  sweep plan experiments/qlearning.toml"
    )]
    Plan {
        /// The spec (TOML).
        spec: PathBuf,
        /// Threads the estimate assumes, from 1 to 1024 (default: all cores).
        #[arg(long, value_parser = ranges::threads)]
        threads: Option<usize>,
        /// The memory budget to compare with (default: as `sweep run`'s).
        #[arg(long, value_name = "SIZE", value_parser = crate::cost::memory::parse)]
        max_memory: Option<u64>,
        /// Print only the estimated peak memory in MiB of --threads jobs at once (for job scripts).
        #[arg(long)]
        peak_memory: bool,
        /// The results directory a run would write (default: results/<name>): the jobs it
        /// already holds are counted as done, and the estimate covers the rest.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        format: table::FormatFlag,
    },
    /// Solve a (seat, opponent) MDP exactly by policy and value iteration, or value single positions by search (--moves, --positions; Connect Four included).
    #[command(
        after_help = "Examples:\n  sweep solve                       # X against a random opponent\n  sweep solve --seat o --opponent minimax --json\n  sweep solve --game 4x4k4          # 4x4, four in a row: 9,722,011 positions\n  sweep solve --trace               # the policy-iteration rounds\n  sweep solve --values values.csv   # every state's value and optimal moves\n  sweep solve --game 6x7g4 --moves 0,1,2,3,4,5,6,6,5,4,3,2,1,0,3,3,3,3\n                                    # one Connect Four position, by search\n  sweep solve --game 6x7g4 --positions positions.txt --json"
    )]
    Solve(solve::SolveArgs),
    /// Re-run one job from a results directory and compare with the recorded row.
    #[command(
        after_help = "Examples:\n  sweep reproduce results/qlearning --job 3fa2\n  sweep reproduce results/qlearning/results.csv --job 3fa2c01d9e7b --policy-out policy.csv"
    )]
    Reproduce(reproduce::ReproduceArgs),
    /// Combine the shards of a split sweep into DIR's results.
    #[command(after_help = "Example:\n  sweep merge results/big     # reads results/big/shards/K-of-N/")]
    Merge {
        /// The results directory that holds shards/.
        dir: PathBuf,
    },
    /// Rank configurations: mean regret over replicates with a 95% confidence interval, and which could be the best.
    #[command(
        after_help = "Examples:\n  sweep summary results/qlearning\n  sweep summary results/qlearning --by solver,alpha,eval_opponent\n  sweep summary results/mcts --csv > ranking.csv\n  sweep summary results/mcts --format json > ranking.json\n  sweep summary results/qlearning --significance t --alpha 0.01\n\nvs_best: by default, which configurations of each block could be the best (Hsu's multiple\ncomparisons with the best): best, equal (identical to the best on every replicate),\ncould-be-best or not-best, with the simultaneous interval mcb_low..mcb_high of each one's\ntrue regret minus the best of the others'."
    )]
    Summary(summary::SummaryArgs),
    /// Compare configurations (or learners, with --by solver) with a baseline, paired by replicate: difference, interval, p-values, verdict.
    #[command(
        after_help = "Examples:\n  sweep compare results/epsilon --metric regret_auc\n  sweep compare results/qlearning --baseline alpha=0.5 --csv\n  sweep compare results/learners --by solver --significance wilcoxon\n\nVerdicts are by the paired t test, Holm-adjusted over each block, unless --significance\nsays otherwise. A verdict is cannot-reject where the test's smallest attainable\nHolm-adjusted p-value (p_floor) is not below --alpha (the rank tests with few replicates):\nthose replicates could never show a difference."
    )]
    Compare(compare::CompareArgs),
    /// Which parameter matters: each main effect's and pairwise interaction's share of the metric's variance.
    #[command(
        after_help = "Examples:\n  sweep importance results/qlearning\n  sweep importance results/mcts --metric value --csv"
    )]
    Importance(importance::ImportanceArgs),
    /// Write one self-contained HTML page of a results directory (tables, charts, the CSV), or compare two.
    #[command(
        after_help = "Examples:\n  sweep report results/qlearning                 # writes results/qlearning/report.html\n  sweep report results/qlearning --out q.html\n  sweep report results/old results/new           # the configurations both ran, side by side\n\nThe page needs no network and no server: open it in any browser."
    )]
    Report(report::ReportArgs),
    /// Can a short budget pick the winner? Rank correlation of each checkpoint's ranking with the final one.
    #[command(after_help = fidelity::HELP)]
    Fidelity(fidelity::FidelityArgs),
    /// Two saved policies head to head: the exact value and win/draw/loss of A against B, and each one's exploitability.
    #[command(
        after_help = "Examples:\n  sweep evaluate x.csv o.csv           # files from `sweep reproduce --policy-out`\n  sweep evaluate x.csv o.csv --json"
    )]
    Evaluate(evaluate::EvaluateArgs),
    /// Score one deterministic agent exactly on any board the search takes (Connect Four included): value against random, minimax and minimax-uniform, exploitability, per-move accuracy.
    #[command(
        after_help = "The agent is built in (--agent lowest or perfect) or a program after `--` that answers\npositions on its standard input (the line protocol: `positions N`, then N boards; one\nmove per line back). Only the positions the agent reaches are visited: exact where they\nfit (--max-positions), else sampled games (labelled sampled, with a 95% interval) and a\nbest-response search with a node budget (labelled bound when it runs out). From the empty\n6x7g4 board the figures against random and minimax take minutes; on a terminal, stderr\nshows what is being searched and each figure as it is found.\n\nExamples:\n  sweep score --game 6x7g4 --agent lowest --against best-response\n  sweep score --game 6x5g4 --agent perfect\n  sweep score --game 6x7g4 --from 4,6,4,0,3,1,1,3,1,4,0,6 -- python3 examples/agents/connect_four_server.py"
    )]
    Score(score::ScoreArgs),
    /// Play a game in the terminal against the optimal policy, MCTS or a policy file.
    #[command(
        after_help = "Examples:\n  sweep play                      # you are X against the optimal policy\n  sweep play --seat o --agent mcts\n  sweep play --game 3x4k3         # 3x4, three in a row\n  sweep play --agent policy.csv   # a file from `sweep reproduce --policy-out`\n  sweep play --game 6x7g4 --agent mcts --iterations 5000   # Connect Four"
    )]
    Play(play::PlayArgs),
    /// Measure this machine's speed for each kernel (one core each) and the parallel speedup.
    #[command(
        after_help = "Each figure is the median of its repetitions, with min and max. A figure that could not be measured (too short to tell from noise) prints `not measured: why`; in --json it is null and `not_measured` holds the reason.\n\nWith --save, the figures `sweep plan` and `run`'s cost guard estimate with are kept in $SWEEP_CALIBRATION, else ~/.cache/sweep/calibration.json (delete it to measure at each plan again).\n\nExamples:\n  sweep bench\n  sweep bench --json --seconds 10\n  sweep bench --save"
    )]
    Bench(bench::BenchArgs),
    /// List the columns of results.csv and curves.csv; for parameters, their type, default,
    /// allowed values and the kinds that take them.
    #[command(
        after_help = "Examples:\n  sweep columns\n  sweep columns --json     # for scripts\n  sweep columns --format markdown"
    )]
    Columns {
        /// Print one JSON object: {"results": [...], "curves": [...]}.
        #[arg(long, conflicts_with = "format")]
        json: bool,
        #[command(flatten)]
        format: table::FormatFlag,
    },
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  sweep completions bash > ~/.local/share/bash-completion/completions/sweep\n  sweep completions zsh > ~/.zfunc/_sweep\n  sweep completions fish > ~/.config/fish/completions/sweep.fish"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The spec (TOML).
    spec: PathBuf,
    /// Worker threads, from 1 to 1024 (default: all cores).
    #[arg(long, value_parser = ranges::threads)]
    threads: Option<usize>,
    /// Results directory (default: results/<name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Move an existing results directory of another spec aside and start again.
    #[arg(long, conflicts_with = "extend")]
    fresh: bool,
    /// Keep the finished jobs of an existing directory whose spec only gained grid points or replicates.
    #[arg(long)]
    extend: bool,
    /// Run only shard K of N (0-based), e.g. 3/16; default: from SLURM_ARRAY_TASK_ID/COUNT.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Run only these jobs (ids or unique prefixes, comma separated).
    #[arg(long, value_delimiter = ',', value_name = "JOB_ID,..")]
    only: Vec<String>,
    /// Stop starting jobs at the first failure.
    #[arg(long)]
    fail_fast: bool,
    /// Run even more than 100,000 jobs, or an estimated hour or more, without asking.
    #[arg(long)]
    yes: bool,
    /// No progress bar, no summary, and no line about the shared tables built before the first job.
    #[arg(long, short)]
    quiet: bool,
    /// Memory the jobs may hold at once, e.g. 8G or 500M (default: the Slurm allocation, else 80% of the available memory).
    #[arg(long, value_name = "SIZE", value_parser = crate::cost::memory::parse)]
    max_memory: Option<u64>,
    /// Resume a results folder of command solvers that another spec file wrote (or that recorded another command): its programs' commands are shown and nothing runs without this flag. Never needed for a new folder, or to resume with the spec file that wrote the folder.
    #[arg(long)]
    trust: bool,
}

/// Parses `K/N`.
pub fn parse_shard(s: &str) -> Result<Shard> {
    let bad =
        || bad_input(format!("--shard {s:?}: expected K/N with 0 <= K < N, e.g. 0/4 for the first of four shards"));
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (index, count): (u32, u32) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if count == 0 || index >= count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

impl RunArgs {
    fn options(self) -> Result<RunOptions> {
        Ok(RunOptions {
            spec: self.spec,
            threads: self.threads,
            out: self.out,
            existing: if self.fresh {
                Existing::Fresh
            } else if self.extend {
                Existing::Extend
            } else {
                Existing::Resume
            },
            shard: self.shard.as_deref().map(parse_shard).transpose()?,
            only: self.only.into_iter().filter(|s| !s.is_empty()).collect(),
            fail_fast: self.fail_fast,
            yes: self.yes,
            max_memory: self.max_memory,
            quiet: self.quiet,
            fault: Fault::from_env(),
            notices: Notices::Stderr,
            trust: self.trust,
        })
    }
}

const SUBCOMMANDS: [&str; 17] = [
    "run",
    "plan",
    "solve",
    "reproduce",
    "merge",
    "summary",
    "compare",
    "importance",
    "completions",
    "help",
    "play",
    "bench",
    "columns",
    "fidelity",
    "evaluate",
    "score",
    "report",
];

/// `sweep SPEC ...` means `sweep run SPEC ...`.
fn normalise(mut args: Vec<String>) -> Vec<String> {
    if let Some(first) = args.get(1) {
        if !first.starts_with('-') && !SUBCOMMANDS.contains(&first.as_str()) {
            args.insert(1, "run".to_string());
        }
    }
    args
}

/// Parses a seat name for clap.
pub fn seat_arg(s: &str) -> Result<Seat, String> {
    s.parse().map_err(|e: crate::mdp::ParseNameError| e.to_string())
}

/// Parses a game (`<rows>x<cols>k<k>` or `<rows>x<cols>g<k>`) for clap.
pub fn game_arg(s: &str) -> Result<crate::game::Game, String> {
    s.parse().map_err(|e: crate::game::ParseGameError| match crate::game::Game::parse_any(s) {
        Some(big) => format!("{big} is too big to enumerate; {}", crate::kinds::param::BEYOND_ENUMERATION),
        None => e.to_string(),
    })
}

/// Parses an opponent name for clap.
pub fn opponent_arg(s: &str) -> Result<Opponent, String> {
    s.parse().map_err(|e: crate::mdp::ParseNameError| e.to_string())
}

/// Runs the command line and returns the exit code.
pub fn main() -> i32 {
    let args = normalise(std::env::args().collect());
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { exit::BAD_INPUT } else { exit::OK };
            let _ = e.print();
            return code;
        }
    };
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            if err.downcast_ref::<BadInput>().is_some() { exit::BAD_INPUT } else { exit::FAILED }
        }
    }
}

fn dispatch(command: Command) -> Result<i32> {
    match command {
        Command::Run(args) => {
            let options = args.options()?;
            if !guard::before_run(&options)? {
                return Ok(exit::OK);
            }
            run::run(&options)
        }
        Command::Plan { spec, threads, max_memory, peak_memory, out, format } => {
            plan::plan(&spec, threads, max_memory, peak_memory, out.as_deref(), format.format())
        }
        Command::Solve(args) => solve::solve(&args),
        Command::Reproduce(args) => reproduce::reproduce(&args),
        Command::Merge { dir } => merge::merge(&dir),
        Command::Summary(args) => summary::summary(&args),
        Command::Compare(args) => compare::compare(&args),
        Command::Importance(args) => importance::importance(&args),
        Command::Report(args) => report::report(&args),
        Command::Fidelity(args) => fidelity::fidelity(&args),
        Command::Evaluate(args) => evaluate::evaluate(&args),
        Command::Score(args) => score::score(&args),
        Command::Play(args) => play::play(&args),
        Command::Bench(args) => bench::bench(&args),
        Command::Columns { json, format } => columns::columns(json, format.format()),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "sweep", &mut std::io::stdout());
            Ok(exit::OK)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_valid() {
        Cli::command().debug_assert();
    }

    #[test]
    fn spec_alone_means_run() {
        let a = normalise(vec!["sweep".into(), "x.toml".into()]);
        assert_eq!(a, ["sweep", "run", "x.toml"]);
        let b = normalise(vec!["sweep".into(), "solve".into()]);
        assert_eq!(b, ["sweep", "solve"]);
    }

    #[test]
    fn shards_parse() {
        assert_eq!(parse_shard("3/4").unwrap(), Shard { index: 3, count: 4 });
        for bad in ["4/4", "1", "a/b", "0/0", "-1/3"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
