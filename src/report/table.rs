//! One table model, several renderers: the tables that `summary`, `compare` and
//! `importance` compute, as a value ([`Table`]: a title, typed columns, rows of typed cells
//! and the notes printed under it), and four pure functions that render it.
//!
//! - [`text()`]: aligned columns for a terminal: each column padded to its widest cell, two
//!   spaces between columns, trailing spaces trimmed; numbers with their column's decimals
//!   (six unless said), then the notes, one per line.
//! - [`csv()`]: a header and one record per row; numbers in full (the shortest form that
//!   reads back to the same bits, as `results.csv` writes them); no notes.
//! - [`json()`]: one object `{"title", "columns": [{"name", "type"}], "rows": [[...]],
//!   "notes": [...]}`; a row is an array in column order (a name may repeat, as `--by
//!   p_win` shows); numbers are JSON numbers in full precision, a missing or NaN number is
//!   `null`; `type` is `text`, `integer` or `number`.
//! - [`html()`]: a `<table>` with a `<caption>` (the title), a `<thead>` and one `<tr>` per
//!   row; a numeric cell has class `num` and its full-precision value in `data-value`, so a
//!   sortable table sorts numerically; the notes are a list under it; all text escaped.
//!
//! Nothing here reads files or prints: the commands build a table and print what a
//! renderer returns.

use serde_json::{Value, json};

/// What a column holds, and how a text table prints its numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Names, labels, verdicts: printed as they are.
    Text,
    /// Counts.
    Integers,
    /// Real numbers, printed in a text table with this many decimals (in full elsewhere).
    Numbers(usize),
}

/// A column: its name (a header cell) and what it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header.
    pub name: String,
    /// What its cells hold.
    pub values: Values,
}

impl Column {
    /// A column of text.
    pub fn text(name: impl Into<String>) -> Column {
        Column { name: name.into(), values: Values::Text }
    }

    /// A column of counts.
    pub fn integers(name: impl Into<String>) -> Column {
        Column { name: name.into(), values: Values::Integers }
    }

    /// A column of real numbers, six decimals in a text table.
    pub fn numbers(name: impl Into<String>) -> Column {
        Column { name: name.into(), values: Values::Numbers(6) }
    }

    /// A column of real numbers with `decimals` decimals in a text table.
    pub fn decimals(name: impl Into<String>, decimals: usize) -> Column {
        Column { name: name.into(), values: Values::Numbers(decimals) }
    }

    /// A key column of `results.csv` (a parameter or a field): numbers where the column
    /// holds numbers (a real or count parameter, a numeric field), else text.
    pub fn key(name: &str) -> Column {
        use crate::kinds::{Ty, any_param};
        let numeric = match any_param(name) {
            Some(p) => matches!(p.ty, Ty::Real(_) | Ty::Count { .. }),
            None => super::Field::ALL.iter().any(|f| f.name() == name && f.numeric()),
        };
        if numeric { Column::numbers(name) } else { Column::text(name) }
    }

    /// Whether the column holds numbers.
    pub fn numeric(&self) -> bool {
        self.values != Values::Text
    }
}

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Text, as it is.
    Text(String),
    /// A count.
    Integer(u64),
    /// A real number, kept in full; NaN reads as missing.
    Float(f64),
    /// A number as `results.csv` writes it (a parameter's value, a count read back): shown
    /// as written in every form, a number in JSON and when an HTML table sorts.
    Written(String),
    /// Nothing here (a parameter that does not apply, a statistic that needs more runs).
    Missing,
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }

    /// A count.
    pub fn int(n: usize) -> Cell {
        Cell::Integer(n as u64)
    }

    /// A cell of a key column of `results.csv` (a parameter, a field): empty is missing;
    /// in a numeric column, a number as written.
    pub fn key(value: &str, numeric: bool) -> Cell {
        match value {
            "" => Cell::Missing,
            v if numeric && v.parse::<f64>().is_ok() => Cell::Written(v.to_string()),
            v => Cell::Text(v.to_string()),
        }
    }

    /// The number held, if any (NaN is none).
    pub fn number(&self) -> Option<f64> {
        match self {
            Cell::Integer(n) => Some(*n as f64),
            Cell::Float(x) if !x.is_nan() => Some(*x),
            Cell::Written(s) => s.parse::<f64>().ok().filter(|x| !x.is_nan()),
            _ => None,
        }
    }

    /// In full: text as it is, numbers in their shortest round-trip form, missing empty.
    pub fn full(&self) -> String {
        match self {
            Cell::Text(s) | Cell::Written(s) => s.clone(),
            Cell::Integer(n) => n.to_string(),
            Cell::Float(x) if x.is_nan() => String::new(),
            Cell::Float(x) => format!("{x}"),
            Cell::Missing => String::new(),
        }
    }

    /// As a text table shows it in a column of `values`.
    pub fn shown(&self, values: Values) -> String {
        match (self, values) {
            (Cell::Float(x), Values::Numbers(d)) if !x.is_nan() => format!("{x:.d$}"),
            (Cell::Float(x), _) if !x.is_nan() => format!("{x:.6}"),
            _ => self.full(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Cell::Text(s) => Value::String(s.clone()),
            Cell::Integer(n) => json!(n),
            // JSON has no NaN or infinity: those are null, like a missing cell.
            Cell::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
            Cell::Written(s) => match s.parse::<i64>() {
                Ok(n) => json!(n),
                Err(_) => self.number().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number),
            },
            Cell::Missing => Value::Null,
        }
    }
}

/// A table: what a command computes, before it is rendered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// What the table shows, in a few words (the caption of a page's table).
    pub title: String,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, each one cell per column.
    pub rows: Vec<Vec<Cell>>,
    /// The lines under the table: what the columns mean, what was left out.
    pub notes: Vec<String>,
}

impl Table {
    /// An empty table with a title and columns.
    pub fn new(title: impl Into<String>, columns: Vec<Column>) -> Table {
        Table { title: title.into(), columns, rows: Vec::new(), notes: Vec::new() }
    }

    /// Adds a row; it must have one cell per column.
    pub fn push(&mut self, row: Vec<Cell>) {
        assert_eq!(row.len(), self.columns.len(), "a row of {} has one cell per column", self.title);
        self.rows.push(row);
    }

    /// The index of the first column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// The output formats of a command that prints a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    /// Aligned columns and the notes ([`text()`]).
    #[default]
    Text,
    /// CSV, numbers in full ([`csv()`]).
    Csv,
    /// One JSON object ([`json()`]).
    Json,
    /// An HTML fragment ([`html()`]).
    Html,
}

/// Renders `table` in `format`.
pub fn render(table: &Table, format: Format) -> String {
    match format {
        Format::Text => text(table),
        Format::Csv => csv(table),
        Format::Json => json(table),
        Format::Html => html(table),
    }
}

/// Aligned columns, then the notes; every line ends in a newline.
pub fn text(table: &Table) -> String {
    let header: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|r| r.iter().zip(&table.columns).map(|(cell, c)| cell.shown(c.values)).collect())
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].len()).chain([header[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |r: &[String]| r.iter().zip(&widths).map(|(s, w)| format!("{s:<w$}")).collect::<Vec<_>>().join("  ");
    let mut out = String::new();
    for r in std::iter::once(&header).chain(&rows) {
        out.push_str(line(r).trim_end());
        out.push('\n');
    }
    for note in &table.notes {
        out.push_str(note);
        out.push('\n');
    }
    out
}

/// The header and the rows as CSV, numbers in full; the notes are left out.
pub fn csv(table: &Table) -> String {
    let header: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    let rows = table.rows.iter().map(|r| r.iter().map(Cell::full).collect());
    super::files::encode(std::iter::once(header).chain(rows))
}

/// One JSON object (see the module's documentation), with a final newline: a column, a
/// row or a note per line.
pub fn json(table: &Table) -> String {
    let line = |v: Value| format!("    {v}");
    let list =
        |items: Vec<String>| if items.is_empty() { "[]".to_string() } else { format!("[\n{}\n  ]", items.join(",\n")) };
    let columns = table.columns.iter().map(|c| {
        let kind = match c.values {
            Values::Text => "text",
            Values::Integers => "integer",
            Values::Numbers(_) => "number",
        };
        line(json!({ "name": c.name, "type": kind }))
    });
    let rows = table.rows.iter().map(|r| line(Value::Array(r.iter().map(Cell::json).collect())));
    let notes = table.notes.iter().map(|n| line(json!(n)));
    format!(
        "{{\n  \"title\": {},\n  \"columns\": {},\n  \"rows\": {},\n  \"notes\": {}\n}}\n",
        json!(table.title),
        list(columns.collect()),
        list(rows.collect()),
        list(notes.collect())
    )
}

/// An HTML fragment: the table (caption, head, one `<tr>` per row), then the notes as a
/// list; a numeric cell shows the text table's rounding and holds its full value in
/// `data-value`.
pub fn html(table: &Table) -> String {
    let mut out = String::from("<table class=\"sweep-table\">\n");
    out.push_str(&format!("<caption>{}</caption>\n<thead>\n<tr>", escape(&table.title)));
    for c in &table.columns {
        let kind = if c.numeric() { " class=\"num\"" } else { "" };
        out.push_str(&format!("<th scope=\"col\"{kind}>{}</th>", escape(&c.name)));
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for (cell, c) in row.iter().zip(&table.columns) {
            let shown = escape(&cell.shown(c.values));
            match cell.number() {
                Some(_) => {
                    out.push_str(&format!("<td class=\"num\" data-value=\"{}\">{shown}</td>", escape(&cell.full())))
                }
                None if c.numeric() => out.push_str(&format!("<td class=\"num\">{shown}</td>")),
                None => out.push_str(&format!("<td>{shown}</td>")),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    if !table.notes.is_empty() {
        out.push_str("<ul class=\"sweep-table-notes\">\n");
        for note in &table.notes {
            out.push_str(&format!("<li>{}</li>\n", escape(note)));
        }
        out.push_str("</ul>\n");
    }
    out
}

/// Text made safe inside an element or a quoted attribute.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table with every kind of cell, awkward text and numbers that six decimals round.
    fn sample() -> Table {
        let mut t = Table::new(
            "regret <by> \"configuration\" & seat",
            vec![Column::text("solver"), Column::integers("n"), Column::numbers("mean"), Column::decimals("ms", 1)],
        );
        t.push(vec![Cell::text("q-learning"), Cell::int(5), Cell::Float(0.1 + 0.2), Cell::Float(12.345)]);
        t.push(vec![Cell::text("a<b & 'c' \"d\""), Cell::int(0), Cell::Float(f64::NAN), Cell::Missing]);
        t.push(vec![Cell::text("mcts"), Cell::int(12), Cell::Float(1e-17), Cell::Float(191.0 / 192.0)]);
        t.notes = vec!["note <one> & more".into(), "second".into()];
        t
    }

    #[test]
    fn text_pads_rounds_and_trims() {
        let out = text(&sample());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 1 + 3 + 2);
        assert!(lines.iter().all(|l| !l.ends_with(' ')));
        // Columns start where the widest cell above or below them starts.
        let at = lines[0].find("mean").unwrap();
        assert_eq!(&lines[1][at..at + 8], "0.300000");
        assert_eq!(&lines[3][at..at + 8], "0.000000");
        assert!(lines[1].ends_with("12.3"), "{}", lines[1]);
        assert_eq!(lines[4], "note <one> & more");
    }

    #[test]
    fn csv_has_full_numbers_and_no_notes() {
        let out = csv(&sample());
        let mut r = ::csv::Reader::from_reader(out.as_bytes());
        let rows: Vec<::csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0][2].parse::<f64>().unwrap().to_bits(), (0.1f64 + 0.2).to_bits());
        assert_eq!(&rows[1][0], "a<b & 'c' \"d\"");
        assert_eq!((&rows[1][2], &rows[1][3]), ("", ""));
        assert!(!out.contains("note"));
    }

    #[test]
    fn json_round_trips_the_csv_numbers_to_the_bit() {
        let table = sample();
        let parsed: Value = serde_json::from_str(&json(&table)).unwrap();
        assert_eq!(parsed["title"], table.title);
        assert_eq!(parsed["notes"], json!(table.notes));
        let names: Vec<&str> =
            parsed["columns"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["solver", "n", "mean", "ms"]);
        assert_eq!(parsed["columns"][3]["type"], "number");
        let csv_text = csv(&table);
        let mut r = ::csv::Reader::from_reader(csv_text.as_bytes());
        for (row, record) in parsed["rows"].as_array().unwrap().iter().zip(r.records()) {
            let record = record.unwrap();
            for (k, cell) in row.as_array().unwrap().iter().enumerate() {
                match cell {
                    Value::Null => assert_eq!(&record[k], ""),
                    Value::String(s) => assert_eq!(s, &record[k]),
                    Value::Number(n) => {
                        assert_eq!(n.as_f64().unwrap().to_bits(), record[k].parse::<f64>().unwrap().to_bits())
                    }
                    other => panic!("unexpected {other}"),
                }
            }
        }
    }

    #[test]
    fn html_escapes_and_has_a_row_per_row() {
        let out = html(&sample());
        assert_eq!(out.matches("<tr>").count(), 1 + 3);
        assert_eq!(out.matches("<thead>").count(), 1);
        assert!(out.contains("<caption>regret &lt;by&gt; &quot;configuration&quot; &amp; seat</caption>"));
        assert!(out.contains("<td>a&lt;b &amp; &#39;c&#39; &quot;d&quot;</td>"));
        assert!(out.contains("<li>note &lt;one&gt; &amp; more</li>"));
        assert!(!out.contains("a<b"));
        // The full value sorts; the shown one is the text table's.
        let full = format!("data-value=\"{}\">0.300000</td>", 0.1f64 + 0.2);
        assert!(out.contains(&full), "{out}");
        assert!(out.contains("<td class=\"num\"></td>"));
    }

    #[test]
    fn key_cells_keep_their_written_form_and_are_numbers_in_json() {
        let columns = vec![Column::key("alpha"), Column::key("solver"), Column::key("episodes")];
        assert_eq!(columns.iter().map(Column::numeric).collect::<Vec<_>>(), [true, false, true]);
        let mut t = Table::new("keys", columns);
        t.push(vec![Cell::key("0.10", true), Cell::key("q-learning", false), Cell::key("50000", true)]);
        t.push(vec![Cell::key("", true), Cell::key("mcts", false), Cell::key("", true)]);
        assert!(text(&t).lines().nth(1).unwrap().starts_with("0.10   q-learning  50000"), "{}", text(&t));
        assert_eq!(csv(&t), "alpha,solver,episodes\n0.10,q-learning,50000\n,mcts,\n");
        let parsed: Value = serde_json::from_str(&json(&t)).unwrap();
        assert_eq!(parsed["rows"], json!([[0.1, "q-learning", 50000], [null, "mcts", null]]));
        assert!(html(&t).contains("<td class=\"num\" data-value=\"0.10\">0.10</td>"));
    }

    #[test]
    fn escape_leaves_plain_text() {
        assert_eq!(escape("q-learning alpha=0.5"), "q-learning alpha=0.5");
        assert_eq!(escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
    }
}
