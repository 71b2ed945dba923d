//! One table model, several renderers: what a command computes, as a value, before it is
//! printed. A [`Table`] is a title, typed columns, rows of typed cells (each row saying
//! what it stands for) and the notes printed under it; a [`Doc`] is what a command prints
//! in all: lines of text and tables, in order. Pure functions render them:
//!
//! - [`text()`]: aligned columns for a terminal: each column padded to its widest cell (or,
//!   for a column with a fixed width, each cell padded to that width, as `format!` pads),
//!   left or right, two spaces between columns unless the column says otherwise, trailing
//!   spaces trimmed; numbers with their column's decimals (six unless said), then the
//!   notes, one per line.
//! - [`csv()`]: a header and one record per row; numbers in full (the shortest form that
//!   reads back to the same bits, as `results.csv` writes them); no notes.
//! - [`json()`]: one object `{"title", "columns": [{"name", "type"}], "rows": [[...]],
//!   "notes": [...]}`; a row is an array in column order (a name may repeat, as `--by
//!   p_win` shows); numbers are JSON numbers in full precision, a missing or NaN number is
//!   `null`; `type` is `text`, `integer` or `number`.
//! - [`markdown()`]: a pipe table (numeric columns right-aligned, `|` escaped), its title
//!   as a `Table:` caption line under it (the form pandoc turns into a captioned table),
//!   then the notes, one paragraph each.
//! - [`latex()`]: a `table` environment with a `booktabs` `tabular`, the title as its
//!   caption, the notes as a comment under it; TeX's special characters escaped.
//! - [`html()`]: a sortable `<table>` (the one form of every table on `sweep report`'s
//!   page): a `<caption>` when the table has a title, a column's name in `data-col`, a
//!   numeric cell with class `n` and its full-precision value in `data-v` (so a table sorts
//!   numerically), a configuration's row with its key in `data-config`; the notes as a
//!   list under it; all text escaped.
//!
//! A [`Doc`] renders its lines and tables in order: in text as printed today, in CSV its
//! tables only (a blank line between two), in JSON one object `{"title", "blocks"}` whose
//! blocks are `{"text": line}` or `{"table": table}`, in Markdown, LaTeX and HTML its lines
//! as paragraphs. A doc may hold data tables: the figures its lines say in words, as a
//! table for programs and papers, left out of the text form. A doc of one table and no
//! lines renders as that table.
//!
//! Nothing here reads files or prints: the commands build a table or a doc and print what
//! a renderer returns.

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

/// Where a text table puts a cell in its column's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Align {
    /// Padded on the right.
    #[default]
    Left,
    /// Padded on the left.
    Right,
}

/// How wide a text table makes a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Width {
    /// As wide as its widest cell (or its name): every row lines up.
    #[default]
    Fit,
    /// Each cell padded to at least this many characters, as `format!("{:>8}")` pads: a
    /// longer cell pushes the rest of its own line only.
    AtLeast(usize),
}

/// A column: its name (a header cell), what it holds and how a text table lays it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header.
    pub name: String,
    /// What its cells hold.
    pub values: Values,
    /// Left or right in a text table (numbers too are left-aligned unless said).
    pub align: Align,
    /// Its width in a text table.
    pub width: Width,
    /// Spaces before it in a text table (not before the first column).
    pub gap: usize,
    /// Whether a text table prints its name in the header line (a trailing remark column
    /// may have none there; every other form names it).
    pub titled: bool,
}

impl Column {
    fn of(name: impl Into<String>, values: Values) -> Column {
        Column { name: name.into(), values, align: Align::Left, width: Width::Fit, gap: 2, titled: true }
    }

    /// A column of text.
    pub fn text(name: impl Into<String>) -> Column {
        Column::of(name, Values::Text)
    }

    /// A column of counts.
    pub fn integers(name: impl Into<String>) -> Column {
        Column::of(name, Values::Integers)
    }

    /// A column of real numbers, six decimals in a text table.
    pub fn numbers(name: impl Into<String>) -> Column {
        Column::of(name, Values::Numbers(6))
    }

    /// A column of real numbers with `decimals` decimals in a text table.
    pub fn decimals(name: impl Into<String>, decimals: usize) -> Column {
        Column::of(name, Values::Numbers(decimals))
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

    /// The column right-aligned in a text table.
    pub fn right(self) -> Column {
        Column { align: Align::Right, ..self }
    }

    /// The column with each text cell padded to at least `width` characters.
    pub fn at_least(self, width: usize) -> Column {
        Column { width: Width::AtLeast(width), ..self }
    }

    /// The column with `gap` spaces before it in a text table.
    pub fn gap(self, gap: usize) -> Column {
        Column { gap, ..self }
    }

    /// The column without its name in a text table's header line.
    pub fn untitled(self) -> Column {
        Column { titled: false, ..self }
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
    /// A number shown in a form of its own (a unit, a rounding: `12.3s`, `4.0 MiB`) where
    /// a person reads it, and as written in full where a program does (CSV, JSON,
    /// `data-v`); an empty `full` is missing.
    Shown {
        /// What the text, Markdown, LaTeX and HTML forms show.
        text: String,
        /// The number in full, as CSV writes it.
        full: String,
    },
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

    /// A number shown as `text` to people, in full (the shortest form that reads back to
    /// the same bits) to programs; NaN is missing in every form.
    pub fn number_as(text: impl Into<String>, x: f64) -> Cell {
        if x.is_nan() { Cell::Missing } else { Cell::Shown { text: text.into(), full: format!("{x}") } }
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
            Cell::Shown { full, .. } => full.parse::<f64>().ok().filter(|x| !x.is_nan()),
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
            Cell::Shown { full, .. } => full.clone(),
            Cell::Missing => String::new(),
        }
    }

    /// As a text table shows it in a column of `values`.
    pub fn shown(&self, values: Values) -> String {
        match (self, values) {
            (Cell::Float(x), Values::Numbers(d)) if !x.is_nan() => format!("{x:.d$}"),
            (Cell::Float(x), _) if !x.is_nan() => format!("{x:.6}"),
            (Cell::Shown { text, .. }, _) => text.clone(),
            _ => self.full(),
        }
    }

    fn json(&self) -> Value {
        match self {
            Cell::Text(s) => Value::String(s.clone()),
            Cell::Integer(n) => json!(n),
            // JSON has no NaN or infinity: those are null, like a missing cell.
            Cell::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
            Cell::Written(s) | Cell::Shown { full: s, .. } => match s.parse::<i64>() {
                Ok(n) => json!(n),
                Err(_) => self.number().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number),
            },
            Cell::Missing => Value::Null,
        }
    }
}

/// What a row stands for, where the page needs to know (to pick out a configuration).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Stands {
    /// Anything (a rung, a failure, a line of a command's table).
    #[default]
    Plain,
    /// A configuration, by its key (`data-config` on the page).
    Config(String),
    /// The configurations not listed, in one line.
    Others,
}

/// A row: what it stands for and one cell per column.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Row {
    /// What the row stands for.
    pub stands: Stands,
    /// Its cells.
    pub cells: Vec<Cell>,
}

/// A table: what a command computes, before it is rendered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// What the table shows, in a few words (the caption of a page's table).
    pub title: String,
    /// The columns.
    pub columns: Vec<Column>,
    /// The rows, each one cell per column.
    pub rows: Vec<Row>,
    /// The lines under the table: what the columns mean, what was left out.
    pub notes: Vec<String>,
    /// Spaces before every line of the text form.
    pub indent: usize,
    /// Whether the text form starts with the columns' names (a list of figures may not).
    pub header_line: bool,
}

impl Table {
    /// An empty table with a title and columns.
    pub fn new(title: impl Into<String>, columns: Vec<Column>) -> Table {
        Table { title: title.into(), columns, rows: Vec::new(), notes: Vec::new(), indent: 0, header_line: true }
    }

    /// The table with its text form indented by `indent` spaces.
    pub fn indented(self, indent: usize) -> Table {
        Table { indent, ..self }
    }

    /// The table without the header line in its text form.
    pub fn headless(self) -> Table {
        Table { header_line: false, ..self }
    }

    /// Adds a row; it must have one cell per column.
    pub fn push(&mut self, cells: Vec<Cell>) {
        self.push_for(Stands::Plain, cells);
    }

    /// Adds a row that stands for `stands`; it must have one cell per column.
    pub fn push_for(&mut self, stands: Stands, cells: Vec<Cell>) {
        assert_eq!(cells.len(), self.columns.len(), "a row of {} has one cell per column", self.title);
        self.rows.push(Row { stands, cells });
    }

    /// The index of the first column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// One part of what a command prints.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A line of text.
    Line(String),
    /// A table.
    Table(Table),
    /// A table of the figures the lines around it say in words: every form but text has it.
    Data(Table),
}

/// What a command prints in all: lines and tables, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doc {
    /// What the output is about (the JSON object's title).
    pub title: String,
    /// The lines and tables.
    pub blocks: Vec<Block>,
}

impl Doc {
    /// An empty doc.
    pub fn new(title: impl Into<String>) -> Doc {
        Doc { title: title.into(), blocks: Vec::new() }
    }

    /// Adds a line.
    pub fn line(&mut self, line: impl Into<String>) {
        self.blocks.push(Block::Line(line.into()));
    }

    /// Adds a table.
    pub fn table(&mut self, table: Table) {
        self.blocks.push(Block::Table(table));
    }

    /// Adds a table of figures the lines say in words (left out of the text form).
    pub fn data(&mut self, table: Table) {
        self.blocks.push(Block::Data(table));
    }

    /// The tables, in order, with the data tables.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Table(t) | Block::Data(t) => Some(t),
            Block::Line(_) => None,
        })
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
    /// A Markdown pipe table ([`markdown()`]).
    Markdown,
    /// A LaTeX table ([`latex()`]).
    Latex,
    /// An HTML fragment ([`html()`]).
    Html,
}

/// Renders `table` in `format`.
pub fn render(table: &Table, format: Format) -> String {
    match format {
        Format::Text => text(table),
        Format::Csv => csv(table),
        Format::Json => json(table),
        Format::Markdown => markdown(table),
        Format::Latex => latex(table),
        Format::Html => html(table),
    }
}

/// Renders `doc` in `format` (see the module's documentation).
pub fn render_doc(doc: &Doc, format: Format) -> String {
    if let [Block::Table(table)] = doc.blocks.as_slice() {
        return render(table, format);
    }
    // Each block in one form: a line by `line`, a table by `table` (a data table but in text).
    let each = |line: &dyn Fn(&str) -> String, table: &dyn Fn(&Table) -> String| -> Vec<String> {
        let text = format == Format::Text;
        doc.blocks
            .iter()
            .filter_map(|b| match b {
                Block::Line(l) => Some(line(l)),
                Block::Table(t) => Some(table(t)),
                Block::Data(t) => (!text).then(|| table(t)),
            })
            .collect()
    };
    match format {
        Format::Text => each(&|l| format!("{l}\n"), &text).concat(),
        Format::Csv => doc.tables().map(csv).collect::<Vec<_>>().join("\n"),
        Format::Json => {
            let blocks: Vec<Value> = doc
                .blocks
                .iter()
                .map(|b| match b {
                    Block::Line(line) => json!({ "text": line }),
                    Block::Table(t) | Block::Data(t) => json!({ "table": json_value(t) }),
                })
                .collect();
            let object = json!({ "title": doc.title, "blocks": blocks });
            format!("{}\n", serde_json::to_string_pretty(&object).expect("JSON of a doc"))
        }
        Format::Markdown => each(&|l| format!("{}\n", markdown_text(l)), &markdown).join("\n"),
        Format::Latex => each(&|l| format!("{}\n", latex_text(l)), &latex).join("\n"),
        Format::Html => each(&|l| format!("<p>{}</p>\n", escape(l)), &html).concat(),
    }
}

/// Each cell as a text table shows it.
fn shown(table: &Table) -> Vec<Vec<String>> {
    table
        .rows
        .iter()
        .map(|r| r.cells.iter().zip(&table.columns).map(|(cell, c)| cell.shown(c.values)).collect())
        .collect()
}

/// Aligned columns, then the notes; every line ends in a newline.
pub fn text(table: &Table) -> String {
    let header: Vec<String> =
        table.columns.iter().map(|c| if c.titled { c.name.clone() } else { String::new() }).collect();
    let rows = shown(table);
    let widths: Vec<usize> = table
        .columns
        .iter()
        .enumerate()
        .map(|(k, c)| match c.width {
            // A headless table's columns are as wide as their cells alone.
            Width::Fit => {
                let named = if table.header_line { header[k].len() } else { 0 };
                rows.iter().map(|r| r[k].len()).chain([named]).max().unwrap_or(0)
            }
            Width::AtLeast(w) => w,
        })
        .collect();
    let line = |r: &[String]| {
        let mut out = String::new();
        for (k, (cell, c)) in r.iter().zip(&table.columns).enumerate() {
            if k > 0 {
                out.extend(std::iter::repeat_n(' ', c.gap));
            }
            let w = widths[k];
            match c.align {
                Align::Left => out.push_str(&format!("{cell:<w$}")),
                Align::Right => out.push_str(&format!("{cell:>w$}")),
            }
        }
        out
    };
    let mut out = String::new();
    let header = table.header_line.then_some(&header);
    for r in header.into_iter().chain(&rows) {
        out.extend(std::iter::repeat_n(' ', table.indent));
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
    let rows = table.rows.iter().map(|r| r.cells.iter().map(Cell::full).collect());
    super::files::encode(std::iter::once(header).chain(rows))
}

/// A column's type in JSON.
fn json_type(c: &Column) -> &'static str {
    match c.values {
        Values::Text => "text",
        Values::Integers => "integer",
        Values::Numbers(_) => "number",
    }
}

/// The table as a JSON value (the object [`json()`] prints).
fn json_value(table: &Table) -> Value {
    json!({
        "title": table.title,
        "columns": table.columns.iter().map(|c| json!({ "name": c.name, "type": json_type(c) })).collect::<Vec<_>>(),
        "rows": table.rows.iter().map(|r| Value::Array(r.cells.iter().map(Cell::json).collect())).collect::<Vec<_>>(),
        "notes": table.notes,
    })
}

/// One JSON object (see the module's documentation), with a final newline: a column, a
/// row or a note per line.
pub fn json(table: &Table) -> String {
    let line = |v: Value| format!("    {v}");
    let list =
        |items: Vec<String>| if items.is_empty() { "[]".to_string() } else { format!("[\n{}\n  ]", items.join(",\n")) };
    let columns = table.columns.iter().map(|c| line(json!({ "name": c.name, "type": json_type(c) })));
    let rows = table.rows.iter().map(|r| line(Value::Array(r.cells.iter().map(Cell::json).collect())));
    let notes = table.notes.iter().map(|n| line(json!(n)));
    format!(
        "{{\n  \"title\": {},\n  \"columns\": {},\n  \"rows\": {},\n  \"notes\": {}\n}}\n",
        json!(table.title),
        list(columns.collect()),
        list(rows.collect()),
        list(notes.collect())
    )
}

/// Text made safe in Markdown's running text and table cells.
fn markdown_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(ch, '\\' | '|' | '*' | '`' | '<' | '>' | '[' | ']') {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// A pipe table (numeric and right-aligned columns right-aligned), the title as a
/// `Table:` caption line, then each note as a paragraph.
pub fn markdown(table: &Table) -> String {
    let right = |c: &Column| c.numeric() || c.align == Align::Right;
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = row(table.columns.iter().map(|c| markdown_text(&c.name)).collect());
    out.push_str(&row(table.columns.iter().map(|c| if right(c) { "---:" } else { ":---" }.to_string()).collect()));
    for r in shown(table) {
        out.push_str(&row(r.iter().map(|s| markdown_text(s)).collect()));
    }
    if !table.title.is_empty() {
        out.push_str(&format!("\nTable: {}\n", markdown_text(&table.title)));
    }
    for note in &table.notes {
        out.push_str(&format!("\n{}\n", markdown_text(note)));
    }
    out
}

/// Text made safe in LaTeX.
fn latex_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            c => out.push(c),
        }
    }
    out
}

/// A `table` environment around a `booktabs` `tabular` (numeric columns right-aligned),
/// the title as its caption, the notes as comments under it.
pub fn latex(table: &Table) -> String {
    let spec: String =
        table.columns.iter().map(|c| if c.numeric() || c.align == Align::Right { 'r' } else { 'l' }).collect();
    let row = |cells: Vec<String>| format!("{} \\\\\n", cells.join(" & "));
    let mut out = String::from("% needs \\usepackage{booktabs}\n\\begin{table}\n\\centering\n");
    if !table.title.is_empty() {
        out.push_str(&format!("\\caption{{{}}}\n", latex_text(&table.title)));
    }
    out.push_str(&format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n"));
    out.push_str(&row(table.columns.iter().map(|c| latex_text(&c.name)).collect()));
    out.push_str("\\midrule\n");
    for r in shown(table) {
        out.push_str(&row(r.iter().map(|s| latex_text(s)).collect()));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
    for note in &table.notes {
        out.push_str(&format!("% {}\n", note.replace('\n', " ")));
    }
    out
}

/// The table as an HTML fragment: [`html_table`], then the notes as a list.
pub fn html(table: &Table) -> String {
    let mut s = html_table(table);
    if !table.notes.is_empty() {
        s.push_str("\n<ul class=\"notes\">\n");
        for note in &table.notes {
            s.push_str(&format!("<li>{}</li>\n", escape(note)));
        }
        s.push_str("</ul>");
    }
    s.push('\n');
    s
}

/// The one place a table becomes HTML, on the report's page and in `--format html`: a
/// sortable `<table>` in a scrolling `<div>` (see the module's documentation).
pub fn html_table(table: &Table) -> String {
    let mut s = String::from("<div class=\"scroll\"><table class=\"sortable\">");
    if !table.title.is_empty() {
        s.push_str(&format!("<caption>{}</caption>", escape(&table.title)));
    }
    s.push_str("<thead><tr>");
    for c in &table.columns {
        s.push_str(&format!("<th data-col=\"{0}\" title=\"sort by {0}\">{0}</th>", escape(&c.name)));
    }
    s.push_str("</tr></thead><tbody>");
    for row in &table.rows {
        match &row.stands {
            Stands::Config(key) => s.push_str(&format!("<tr data-config=\"{}\">", escape(key))),
            Stands::Plain => s.push_str("<tr>"),
            Stands::Others => s.push_str("<tr class=\"others\">"),
        }
        for (cell, c) in row.cells.iter().zip(&table.columns) {
            let shown = escape(&cell.shown(c.values));
            match cell.number() {
                Some(_) => s.push_str(&format!("<td class=\"n\" data-v=\"{}\">{shown}</td>", escape(&cell.full()))),
                None => s.push_str(&format!("<td>{shown}</td>")),
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s
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
        let full = format!("data-v=\"{}\">0.300000</td>", 0.1f64 + 0.2);
        assert!(out.contains(&full), "{out}");
        assert!(out.contains("<td></td>"));
        assert!(out.contains("<th data-col=\"mean\" title=\"sort by mean\">mean</th>"));
    }

    #[test]
    fn html_marks_what_a_row_stands_for() {
        let mut t = Table::new("", vec![Column::text("a<b"), Column::numbers("v")]);
        t.push_for(Stands::Config("k1".into()), vec![Cell::text("x"), Cell::Float(0.5)]);
        t.push_for(Stands::Others, vec![Cell::text("<i>"), Cell::Missing]);
        assert_eq!(
            html_table(&t),
            "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th data-col=\"a&lt;b\" title=\"sort by \
             a&lt;b\">a&lt;b</th><th data-col=\"v\" title=\"sort by v\">v</th></tr></thead><tbody><tr \
             data-config=\"k1\"><td>x</td><td class=\"n\" data-v=\"0.5\">0.500000</td></tr><tr \
             class=\"others\"><td>&lt;i&gt;</td><td></td></tr></tbody></table></div>"
        );
    }

    /// The legacy layout of a fixed-width table: right-aligned, one space apart, a long
    /// cell pushing its own line only, and an untitled remark column.
    #[test]
    fn fixed_widths_pad_like_format() {
        let mut t = Table::new(
            "",
            vec![
                Column::text("name").at_least(6).gap(1),
                Column::integers("n").right().at_least(4).gap(1),
                Column::text("remark").untitled(),
            ],
        );
        t.push(vec![Cell::text("ab"), Cell::int(7), Cell::text("")]);
        t.push(vec![Cell::text("abcdefgh"), Cell::int(12345), Cell::text("(see below)")]);
        let want =
            format!("{:<6} {:>4}\n{:<6} {:>4}\n{:<6} {:>4}  (see below)\n", "name", "n", "ab", 7, "abcdefgh", 12345);
        assert_eq!(text(&t), want);
    }

    #[test]
    fn shown_cells_read_as_people_and_programs_want() {
        let mut t = Table::new("cost", vec![Column::text("solver"), Column::decimals("cpu", 1)]);
        t.push(vec![Cell::text("q"), Cell::number_as("12.3s", 12.345)]);
        assert_eq!(text(&t), "solver  cpu\nq       12.3s\n");
        assert_eq!(csv(&t), "solver,cpu\nq,12.345\n");
        let parsed: Value = serde_json::from_str(&json(&t)).unwrap();
        assert_eq!(parsed["rows"], json!([["q", 12.345]]));
        assert!(markdown(&t).contains("| q | 12.3s |"));
    }

    #[test]
    fn markdown_is_a_pipe_table_with_a_caption() {
        let out = markdown(&sample());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "| solver | n | mean | ms |");
        assert_eq!(lines[1], "| :--- | ---: | ---: | ---: |");
        assert_eq!(lines[2], "| q-learning | 5 | 0.300000 | 12.3 |");
        assert_eq!(lines[3], "| a\\<b & 'c' \"d\" | 0 |  |  |");
        assert!(out.contains("\nTable: regret \\<by\\> \"configuration\" & seat\n"), "{out}");
        assert!(out.ends_with("\nsecond\n"));
        // Every row has as many cells as the header.
        assert!(lines[..5].iter().all(|l| l.matches(" | ").count() == 3));
    }

    #[test]
    fn latex_escapes_and_aligns() {
        let mut t = Table::new("alpha_decay & 50%", vec![Column::text("solver"), Column::numbers("mean_regret")]);
        t.push(vec![Cell::text("q_learning #1 {x}"), Cell::Float(0.25)]);
        let out = latex(&t);
        assert!(out.contains("\\caption{alpha\\_decay \\& 50\\%}"), "{out}");
        assert!(out.contains("\\begin{tabular}{lr}"));
        assert!(out.contains("solver & mean\\_regret \\\\\n"));
        assert!(out.contains("q\\_learning \\#1 \\{x\\} & 0.250000 \\\\\n"), "{out}");
    }

    #[test]
    fn a_doc_renders_its_lines_and_tables_in_order() {
        let mut doc = Doc::new("plan");
        doc.line("first line");
        let mut t = Table::new("jobs", vec![Column::text("solver"), Column::integers("jobs")]);
        t.push(vec![Cell::text("q"), Cell::int(3)]);
        doc.table(t.clone());
        doc.line("last | line");
        doc.table(t.clone());
        assert_eq!(
            render_doc(&doc, Format::Text),
            "first line\nsolver  jobs\nq       3\nlast | line\nsolver  jobs\nq       3\n"
        );
        assert_eq!(render_doc(&doc, Format::Csv), "solver,jobs\nq,3\n\nsolver,jobs\nq,3\n");
        let parsed: Value = serde_json::from_str(&render_doc(&doc, Format::Json)).unwrap();
        assert_eq!(parsed["title"], "plan");
        assert_eq!(parsed["blocks"][0]["text"], "first line");
        assert_eq!(parsed["blocks"][1]["table"]["rows"], json!([["q", 3]]));
        assert!(render_doc(&doc, Format::Markdown).contains("last \\| line\n"));
        assert!(render_doc(&doc, Format::Html).starts_with("<p>first line</p>\n<div"));
        // A doc of one table is that table.
        let mut one = Doc::new("x");
        one.table(t.clone());
        for format in [Format::Text, Format::Csv, Format::Json, Format::Markdown, Format::Latex, Format::Html] {
            assert_eq!(render_doc(&one, format), render(&t, format));
        }
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
        assert!(html(&t).contains("<td class=\"n\" data-v=\"0.10\">0.10</td>"));
    }

    #[test]
    fn escape_leaves_plain_text() {
        assert_eq!(escape("q-learning alpha=0.5"), "q-learning alpha=0.5");
        assert_eq!(escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
    }
}
