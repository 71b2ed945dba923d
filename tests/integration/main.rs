//! The integration tests, in one binary so that a fresh `cargo test` links the crate once
//! instead of once per file. Each module is one topic; `common` holds the shared helpers
//! (running the built `sweep`, writing specs, reading CSV).
//!
//! One topic: `cargo test --test integration boards::`.

mod common;

mod bad_input;
mod boards;
mod budget_schedules;
mod cluster;
mod command;
mod exact_properties;
mod executor;
mod exploitability;
mod faults;
mod fence;
mod gravity;
mod halving;
mod halving_props;
mod hostile_input;
mod hostile_protocol;
mod hostile_results;
mod integrity;
mod layers;
mod play;
mod policy_opponents;
mod q_lambda;
mod random_search;
mod report;
mod result_files;
mod runs;
mod sample_props;
mod score;
mod search;
mod search_trust;
mod searched;
mod solve;
mod spec_fuzz;
mod spec_props;
mod statistics;
mod table_formats;
mod test_sets;
mod test_split;
mod tpe;
