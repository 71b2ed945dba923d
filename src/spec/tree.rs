//! The spec's TOML as a small tree in which every key and value remembers where it was
//! written, so that each problem can name its line.
//!
//! The document is parsed by `toml_edit` (the parser under the `toml` crate), whose items
//! keep their byte spans, and copied into [`Node`]s. Tables created implicitly by dotted
//! keys (`evaluation.games = 5`) have no span of their own; their keys still do.

use std::ops::Range;

use toml_edit::{ImDocument, Item, Value};

/// One TOML value and the bytes of the spec it was read from.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    /// The value.
    pub value: Leaf,
    /// Its bytes in the spec, when known.
    pub span: Option<Range<usize>>,
}

/// The TOML value types.
#[derive(Clone, Debug)]
pub(crate) enum Leaf {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Datetime,
    Array(Vec<Node>),
    /// A table (`[x]`, `[[x]]` element or `{ .. }`), its entries in document order.
    Table(Vec<Entry>),
}

/// A key of a table and its value.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The key as written (unquoted).
    pub key: String,
    /// The key's bytes in the spec.
    pub key_span: Option<Range<usize>>,
    /// The value.
    pub node: Node,
}

/// A TOML syntax error: what the parser said and where.
#[derive(Clone, Debug)]
pub(crate) struct SyntaxError {
    pub message: String,
    pub offset: Option<usize>,
}

/// Parses a whole document into its root table's entries.
pub(crate) fn parse(text: &str) -> Result<Vec<Entry>, SyntaxError> {
    let doc = ImDocument::parse(text)
        .map_err(|e| SyntaxError { message: e.message().trim().to_string(), offset: e.span().map(|s| s.start) })?;
    Ok(table_entries(doc.as_table()))
}

fn table_entries(table: &toml_edit::Table) -> Vec<Entry> {
    table
        .iter()
        .map(|(key, item)| Entry {
            key: key.to_string(),
            key_span: table.key(key).and_then(|k| k.span()),
            node: item_node(item),
        })
        .collect()
}

fn item_node(item: &Item) -> Node {
    match item {
        Item::Value(v) => value_node(v),
        Item::Table(t) => Node { value: Leaf::Table(table_entries(t)), span: t.span() },
        Item::ArrayOfTables(a) => {
            let tables = a.iter().map(|t| Node { value: Leaf::Table(table_entries(t)), span: t.span() }).collect();
            Node { value: Leaf::Array(tables), span: a.span() }
        }
        Item::None => Node { value: Leaf::Table(Vec::new()), span: None },
    }
}

fn value_node(value: &Value) -> Node {
    let leaf = match value {
        Value::String(s) => Leaf::Str(s.value().clone()),
        Value::Integer(i) => Leaf::Int(*i.value()),
        Value::Float(f) => Leaf::Float(*f.value()),
        Value::Boolean(b) => Leaf::Bool(*b.value()),
        Value::Datetime(_) => Leaf::Datetime,
        Value::Array(a) => Leaf::Array(a.iter().map(value_node).collect()),
        Value::InlineTable(t) => Leaf::Table(
            t.iter()
                .map(|(key, v)| Entry {
                    key: key.to_string(),
                    key_span: t.key(key).and_then(|k| k.span()),
                    node: value_node(v),
                })
                .collect(),
        ),
    };
    Node { value: leaf, span: value.span() }
}

impl Leaf {
    /// The type's name with its article, for messages ("a string", "a table").
    pub fn type_name(&self) -> &'static str {
        match self {
            Leaf::Str(_) => "a string",
            Leaf::Int(_) => "an integer",
            Leaf::Float(_) => "a float",
            Leaf::Bool(_) => "a boolean",
            Leaf::Datetime => "a date-time",
            Leaf::Array(_) => "a list",
            Leaf::Table(_) => "a table",
        }
    }

    /// The value as a number, if it is an integer or a float.
    pub fn as_number(&self) -> Option<f64> {
        match *self {
            Leaf::Int(i) => Some(i as f64),
            Leaf::Float(f) => Some(f),
            _ => None,
        }
    }
}

/// Byte offsets to 1-based lines and columns.
#[derive(Clone, Debug)]
pub(crate) struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// Indexes the line starts of `text`.
    pub fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts }
    }

    /// The 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }

    /// The 1-based column (in characters) of a byte offset.
    pub fn column(&self, offset: usize) -> usize {
        let start = self.starts[self.line(offset) - 1];
        let end = offset.min(self.text.len());
        self.text.get(start..end).map_or(1, |s| s.chars().count() + 1)
    }

    /// The source text of a node, on one line and at most `MAX_SHOWN` characters, or a
    /// description when the node is a table or has no span.
    pub fn shown(&self, node: &Node) -> String {
        const MAX_SHOWN: usize = 60;
        let text = match (&node.value, &node.span) {
            (Leaf::Table(_), _) if !self.is_inline(node) => return "a table".to_string(),
            (Leaf::Array(items), _)
                if items.first().is_some_and(|t| matches!(t.value, Leaf::Table(_)) && !self.is_inline(t)) =>
            {
                return "a list of tables".to_string();
            }
            (_, Some(span)) => self.text.get(span.clone()).unwrap_or(""),
            (_, None) => "",
        };
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if flat.is_empty() {
            return node.value.type_name().to_string();
        }
        if flat.chars().count() > MAX_SHOWN {
            let cut: String = flat.chars().take(MAX_SHOWN - 3).collect();
            return format!("{cut}...");
        }
        flat
    }

    fn is_inline(&self, node: &Node) -> bool {
        let first = node.span.as_ref().and_then(|s| self.text.get(s.clone())).and_then(|t| t.chars().next());
        first == Some('{')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_reach_keys_and_values() {
        let text = "a = 1\n[t]\nb = [1, 2.5]\nc.d = \"x\"\n[[s]]\ne = { f = true }\n";
        let root = parse(text).unwrap();
        let lines = Lines::new(text);
        assert_eq!(root[0].key, "a");
        assert_eq!(lines.line(root[0].key_span.clone().unwrap().start), 1);
        let Leaf::Table(t) = &root[1].node.value else { panic!() };
        assert_eq!(lines.line(t[0].node.span.clone().unwrap().start), 3);
        assert_eq!(lines.shown(&t[0].node), "[1, 2.5]");
        // A dotted key: the implicit table has no span but its key does.
        assert_eq!(lines.line(t[1].key_span.clone().unwrap().start), 4);
        let Leaf::Array(s) = &root[2].node.value else { panic!() };
        let Leaf::Table(e) = &s[0].value else { panic!() };
        assert_eq!(lines.shown(&e[0].node), "{ f = true }");
        assert_eq!(lines.shown(&root[1].node), "a table");
    }

    #[test]
    fn syntax_errors_have_offsets() {
        let e = parse("a = 1\nb = \n").unwrap_err();
        let lines = Lines::new("a = 1\nb = \n");
        assert_eq!(lines.line(e.offset.unwrap()), 2);
        assert!(!e.message.is_empty());
    }

    #[test]
    fn lines_and_columns() {
        let lines = Lines::new("ab\ncd\n\nxé y");
        assert_eq!((lines.line(0), lines.column(0)), (1, 1));
        assert_eq!((lines.line(4), lines.column(4)), (2, 2));
        assert_eq!(lines.line(7), 4);
        assert_eq!((lines.column(10), lines.column(11)), (3, 4));
        assert_eq!(lines.line(1000), 4);
    }
}
