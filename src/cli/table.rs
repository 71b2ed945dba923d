//! How the commands that print tables (`summary`, `compare`, `importance`, `plan`, `solve`,
//! `bench`, `fidelity`, `evaluate`, `columns`) are asked for their form: `--format
//! text|csv|json|markdown|latex|html`, and, where a command had it, `--csv`, the same as
//! `--format csv`. What a command prints is a [`Table`] or a [`Doc`] it computes;
//! [`crate::report::table`] renders it, and this module prints what it returns.

use crate::report::table::{Doc, Format, Table, render, render_doc};

/// The form of a command's table.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// Aligned columns, six decimals, the notes under the table.
    Text,
    /// CSV: a header and the rows, numbers in full, no notes.
    Csv,
    /// One JSON object: title, columns (name, type), rows (arrays), notes; numbers in full.
    Json,
    /// A Markdown pipe table, its title as a `Table:` caption line, the notes under it.
    Markdown,
    /// A LaTeX table (booktabs), its title as the caption, the notes as comments.
    Latex,
    /// An HTML fragment: a sortable table (numbers in full in `data-v`), the notes as a list.
    Html,
}

impl FormatArg {
    /// The renderer's format.
    pub fn format(self) -> Format {
        match self {
            FormatArg::Text => Format::Text,
            FormatArg::Csv => Format::Csv,
            FormatArg::Json => Format::Json,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Latex => Format::Latex,
            FormatArg::Html => Format::Html,
        }
    }
}

/// The one text of `--format`'s help.
pub const FORMAT_HELP: &str = "How to print the tables: text (aligned, as a terminal shows them), csv (numbers in full), \
json (one object: title, columns, rows as arrays, notes; numbers in full, missing as null), markdown (pipe tables to \
paste into a document), latex (booktabs tables) or html (sortable tables)";

/// `--format`: the form of a command's tables.
#[derive(clap::Args, Debug, Clone)]
pub struct FormatFlag {
    #[arg(long, value_enum, default_value = "text", value_name = "FORMAT", help = FORMAT_HELP, hide_possible_values = true)]
    format: FormatArg,
}

impl FormatFlag {
    /// The form asked for.
    pub fn format(&self) -> Format {
        self.format.format()
    }
}

/// The flags that choose the form of a command's table where it also has `--csv`.
#[derive(clap::Args, Debug, Clone)]
pub struct FormatArgs {
    #[command(flatten)]
    format: FormatFlag,
    /// Write the table as CSV to standard output (numbers in full): the same as --format csv.
    #[arg(long, conflicts_with = "format")]
    csv: bool,
}

impl FormatArgs {
    /// The form asked for.
    pub fn format(&self) -> Format {
        if self.csv { Format::Csv } else { self.format.format() }
    }
}

/// Prints `table` in `format` to standard output.
pub fn print(table: &Table, format: Format) {
    print!("{}", render(table, format));
}

/// Prints `doc` in `format` to standard output.
pub fn print_doc(doc: &Doc, format: Format) {
    print!("{}", render_doc(doc, format));
}
