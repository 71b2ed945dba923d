//! The result files: `results.csv`, `curves.csv` and `manifest.json`.
//!
//! Rows are plain vectors of strings in the fixed column order, built once by [`rows`] and
//! written by [`files`]; numbers are printed in Rust's shortest round-trip form so that a
//! value read back parses to the same bits and a re-run can be compared cell by cell.
//! Readers take the rows back as [`result_row::ResultRow`] and [`result_row::CurveRow`]:
//! typed accessors over each record, the columns named only in [`crate::schema`].

pub mod compare;
pub mod fidelity;
pub mod files;
pub mod header;
pub mod html;
pub mod integrity;
pub mod manifest;
pub mod nash_conv;
pub mod paired_runs;
pub mod result_row;
pub mod rows;
pub mod splits;
pub mod summary;
pub mod table;

pub use crate::schema::*;
