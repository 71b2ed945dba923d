//! `sweep report`: a results directory as one self-contained HTML page (default
//! `DIR/report.html`), or two directories side by side (default `A/report-vs-<B>.html`).
//! The page is computed in [`crate::report::html`]; this file only reads flags and writes
//! the file.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use crate::error::{bad_input, exit};
use crate::report::files::write_text_atomic;
use crate::report::html;

/// Flags of `sweep report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A results directory (or its results.csv).
    results: PathBuf,
    #[command(flatten)]
    verification: super::reproduce::Verification,
    /// A second results directory: the page compares the two.
    other: Option<PathBuf>,
    /// The HTML file to write (default: report.html in the results directory; with two
    /// directories, report-vs-<second's name>.html in the first).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// Runs `sweep report`.
pub fn report(args: &ReportArgs) -> Result<i32> {
    let start = Instant::now();
    let dir = super::reproduce::results_dir(&args.results, args.verification)?;
    let bad = |e: anyhow::Error| bad_input(format!("{e:#}"));
    let (text, default) = match &args.other {
        None => {
            let data = html::read(&dir).map_err(bad)?;
            let title = format!(
                "sweep report: {}",
                data.manifest
                    .as_ref()
                    .and_then(|m| m.spec.get("name")?.as_str().map(String::from))
                    .unwrap_or_else(|| dir.display().to_string())
            );
            let text = html::page(&title, &html::facts(&data), &html::sections(&data), Some(&data.csv));
            (text, dir.join("report.html"))
        }
        Some(other) => {
            let other = super::reproduce::results_dir(other, args.verification)?;
            let pair = html::read_pair(&dir, &other).map_err(bad)?;
            let name = other.file_name().map_or("other".into(), |n| n.to_string_lossy().into_owned());
            (html::pair_page(&pair), dir.join(format!("report-vs-{name}.html")))
        }
    };
    let out = args.out.clone().unwrap_or(default);
    write_text_atomic(&out, &text)?;
    eprintln!("wrote {} ({} KiB in {:.2} s)", out.display(), text.len().div_ceil(1024), start.elapsed().as_secs_f64());
    Ok(exit::OK)
}
