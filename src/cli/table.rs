//! Plain-text tables for the commands that print one: columns padded to their widest cell.

use crate::report::Record;

/// A number with six decimals, or empty for NaN.
pub fn num(x: f64) -> String {
    if x.is_nan() { String::new() } else { format!("{x:.6}") }
}

/// A number in full: the shortest form that reads back to the same bits (as `results.csv`
/// writes them), or empty for NaN.
pub fn full(x: f64) -> String {
    if x.is_nan() { String::new() } else { format!("{x}") }
}

/// How a command writes its numbers: rounded to six decimals in a text table, in full in
/// CSV output.
pub fn number_format(csv: bool) -> fn(f64) -> String {
    if csv { full } else { num }
}

/// Prints `header` and `rows` as aligned columns.
pub fn print_table(header: &[String], rows: &[Record]) {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].len()).chain([header[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |r: &[String]| r.iter().zip(&widths).map(|(s, w)| format!("{s:<w$}")).collect::<Vec<_>>().join("  ");
    println!("{}", line(header).trim_end());
    for r in rows {
        println!("{}", line(r).trim_end());
    }
}
