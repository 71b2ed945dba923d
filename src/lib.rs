//! `sweep`: reinforcement-learning experiments on tic-tac-toe, the other m,n,k-games up
//! to 16 cells and gravity (Connect-Four-style) boards up to 20 cells (24 on 4 columns:
//! 6x4), scored against the exact optimum.
//!
//! The core ([`game`], [`mdp`], [`solvers`]) is pure: no files, no printing, no clock, no
//! global random generator. Around it, [`spec`] turns a TOML spec into jobs, [`run`]
//! executes them in parallel within a [`memory`](cost::memory) budget, [`report`] writes the result
//! files, [`bench`](mod@bench) measures this machine's speed, and [`cli`] is the command
//! line.

pub mod bench;
pub mod cli;
pub mod cost;
pub mod error;
pub mod evaluation;
pub mod game;
pub mod hints;
pub mod job;
pub mod kinds;
pub mod mdp;
pub(crate) mod names;
pub mod oracle;
pub mod report;
pub mod run;
pub mod schema;
pub mod search;
pub mod seed;
pub mod solvers;
pub mod spec;
pub mod stats;
