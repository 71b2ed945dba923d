//! How the commands that print a table (`summary`, `compare`, `importance`) are asked for
//! its form: `--format text|csv|json`, and `--csv`, the same as `--format csv`. The table
//! itself is a [`Table`] the command computes; [`crate::report::table`] renders it.

use crate::report::table::{Format, Table, render};

/// The form of a command's table.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// Aligned columns, six decimals, the notes under the table.
    Text,
    /// CSV: a header and the rows, numbers in full, no notes.
    Csv,
    /// One JSON object: title, columns (name, type), rows (arrays), notes; numbers in full.
    Json,
}

/// The flags that choose the form of a command's table.
#[derive(clap::Args, Debug, Clone)]
pub struct FormatArgs {
    /// How to print the table: text (aligned, six decimals, notes under it), csv (numbers in
    /// full) or json (one object: title, columns, rows as arrays, notes; numbers in full,
    /// missing as null).
    #[arg(long, value_enum, default_value = "text", value_name = "text|csv|json", hide_possible_values = true)]
    format: FormatArg,
    /// Write the table as CSV to standard output (numbers in full): the same as --format csv.
    #[arg(long, conflicts_with = "format")]
    csv: bool,
}

impl FormatArgs {
    /// The form asked for.
    pub fn format(&self) -> Format {
        match (self.csv, self.format) {
            (true, _) | (_, FormatArg::Csv) => Format::Csv,
            (_, FormatArg::Json) => Format::Json,
            (_, FormatArg::Text) => Format::Text,
        }
    }
}

/// Prints `table` in `format` to standard output.
pub fn print(table: &Table, format: Format) {
    print!("{}", render(table, format));
}

/// Prints `header` and `rows`, cells already formatted, as the text renderer aligns them
/// (for `fidelity`, whose CSV keeps its own number form).
pub fn print_table(header: &[String], rows: &[crate::report::Record]) {
    let mut table = Table::new("", header.iter().map(crate::report::table::Column::text).collect());
    for r in rows {
        table.push(r.iter().map(crate::report::table::Cell::text).collect());
    }
    print(&table, Format::Text);
}
