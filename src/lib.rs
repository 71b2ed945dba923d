//! `sweep`: reinforcement-learning experiments on tic-tac-toe, scored against the exact
//! optimum.
//!
//! The core ([`game`], [`mdp`], [`solvers`]) is pure: no files, no printing, no clock, no
//! global random generator. Around it, [`spec`] turns a TOML spec into jobs, [`run`]
//! executes them in parallel and [`report`] writes the result files.

pub mod game;
pub mod seed;
pub mod mdp;
pub mod solvers;
