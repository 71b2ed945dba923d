//! `sweep report`: a results directory as one self-contained HTML page, and two
//! directories side by side.
//!
//! [`read`] and [`read_pair`] read the files (the only I/O here) through the computations
//! `summary`, `compare` and `importance` use, so a number on the page is the number those
//! commands print; [`sections`] turns what was read into the page's sections (tables and
//! inline SVG charts, [`svg`]); [`page`] assembles them. The page has no network reference
//! at all: no fonts, stylesheets, scripts or images from elsewhere; its few lines of
//! script sort tables and inflate the embedded CSV for download (deflated, base64).

mod data;
mod pair;
mod sections;
pub mod svg;

use std::fmt::Write;

pub use data::{Data, read};
pub use pair::{Pair, pair_page, read_pair};
pub use sections::{facts, sections};

/// Text made safe inside HTML (and SVG) elements and attribute values: the table model's
/// escaping, one function for every page.
pub use crate::report::table::escape;

/// A page's table: the table model, rendered by its one HTML form ([`html_table`]).
pub use crate::report::table::{Cell, Column, Stands, Table, html_table};

/// A page's table from its header and its rows, each with what it stands for: no title
/// (the section's heading names it) and no notes; numbers with six decimals.
pub fn page_table(header: Vec<String>, rows: Vec<(Stands, Vec<Cell>)>) -> Table {
    let mut table = Table::new("", header.into_iter().map(Column::numbers).collect());
    for (stands, cells) in rows {
        table.push_for(stands, cells);
    }
    table
}

/// A part of a section.
#[derive(Clone, Debug)]
pub enum Part {
    /// A subheading.
    Heading(String),
    /// A paragraph of plain text.
    Note(String),
    /// A table.
    Table(Table),
    /// A chart (inline SVG, already drawn).
    Chart(String),
}

/// A section of the page: an id, a title, one line on how to read it, and its parts.
#[derive(Clone, Debug)]
pub struct Section {
    /// The anchor (`id`) of the section.
    pub id: &'static str,
    /// Its title.
    pub title: String,
    /// How to read it, in one line.
    pub how: String,
    /// What it shows.
    pub parts: Vec<Part>,
}

/// The facts at the top of a page: (name, value) pairs.
pub type Facts = Vec<(String, String)>;

/// The embedded results: the file's name, its bytes deflated (zlib) and in base64, and
/// how they are laid out.
#[derive(Clone, Debug)]
pub struct Embedded {
    /// The download's file name.
    pub name: String,
    /// The zlib stream in base64.
    pub base64: String,
    /// The file's size before compression.
    pub bytes: usize,
    /// Whether the stream holds the file column by column (see [`columns`]) rather than as
    /// it is.
    pub columnar: bool,
    /// Whether the file ends with a line break (a columnar stream does not keep it).
    pub final_newline: bool,
}

/// Deflates `bytes` (zlib) and encodes them in base64, for the page to inflate on download:
/// column by column when the file allows it (a column's cells sit together and compress
/// about a third better), else as it is.
pub fn embed(name: &str, bytes: &[u8]) -> Embedded {
    let by_column = columns(bytes);
    let deflated = miniz_oxide::deflate::compress_to_vec_zlib(by_column.as_deref().unwrap_or(bytes), 6);
    Embedded {
        name: name.to_string(),
        base64: base64(&deflated),
        bytes: bytes.len(),
        columnar: by_column.is_some(),
        final_newline: bytes.last() == Some(&b'\n'),
    }
}

/// A CSV file column by column: each column's cells exactly as written (quotes and all)
/// joined by byte 0, the columns joined by byte 1. The page rebuilds the file by joining
/// each row's cells with commas and the rows with line breaks. None when that would not
/// give the same bytes back: a row of another width than the header, bytes 0 or 1 in the
/// file, text that is not UTF-8, or no rows.
pub fn columns(bytes: &[u8]) -> Option<Vec<u8>> {
    if bytes.is_empty() || bytes.contains(&0) || bytes.contains(&1) || std::str::from_utf8(bytes).is_err() {
        return None;
    }
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let mut cols: Vec<Vec<u8>> = Vec::new();
    let (mut start, mut col, mut row, mut quoted) = (0, 0, 0, false);
    let field = |cols: &mut Vec<Vec<u8>>, col: usize, row: usize, cell: &[u8]| -> Option<()> {
        if row == 0 {
            cols.push(cell.to_vec());
        } else {
            let c = cols.get_mut(col)?;
            c.push(0);
            c.extend_from_slice(cell);
        }
        Some(())
    };
    for (i, &b) in body.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b',' | b'\n' if !quoted => {
                field(&mut cols, col, row, &body[start..i])?;
                start = i + 1;
                if b == b'\n' {
                    if col + 1 != cols.len() {
                        return None;
                    }
                    (col, row) = (0, row + 1);
                } else {
                    col += 1;
                }
            }
            _ => {}
        }
    }
    field(&mut cols, col, row, &body[start..])?;
    if col + 1 != cols.len() || quoted {
        return None;
    }
    Some(cols.join(&1u8))
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1100px;\
padding:0 18px 40px;color:#1a1a1a}h1{font-size:24px;margin:18px 0 4px}h2{font-size:19px;margin:28px 0 2px;\
border-bottom:1px solid #ccc}h3{font-size:15px;margin:14px 0 4px}.how{color:#444;font-style:italic;margin:2px 0 8px}\
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}dl.facts dt{font-weight:600}\
dl.facts dd{margin:0;word-break:break-all}nav a{margin-right:12px}.scroll{overflow-x:auto;max-height:440px;\
overflow-y:auto;border:1px solid #ddd}table{border-collapse:collapse;font-size:12.5px}th,td{padding:3px 7px;\
border-bottom:1px solid #eee;white-space:nowrap;text-align:left}th{position:sticky;top:0;background:#f4f4f4;\
cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.others td{color:#666;font-style:italic}\
svg.chart{width:100%;max-width:720px;height:auto;display:block;margin:6px 0 14px}svg .title{font:600 13px \
sans-serif;text-anchor:middle}svg .tick{font:11px sans-serif;fill:#333}svg .label{font:12px sans-serif}svg \
.legend{font:11px sans-serif}svg .cell{font:11px sans-serif}svg .grid{stroke:#e6e6e6}svg .frame{fill:none;\
stroke:#888}.charts{display:flex;flex-wrap:wrap;gap:0 18px}.charts svg{flex:1 1 480px}.charts svg.wide{flex-basis:100%;max-width:100%}button{font:inherit;\
padding:4px 10px}";

const SCRIPT: &str = "document.querySelectorAll('table.sortable').forEach(function(t){t.querySelectorAll('th').\
forEach(function(th,i){var up=true;th.addEventListener('click',function(){var b=t.tBodies[0];var rows=Array.\
from(b.rows);rows.sort(function(x,y){var a=x.cells[i],c=y.cells[i];var p=a&&a.dataset.v!==undefined?parseFloat(a.\
dataset.v):NaN,q=c&&c.dataset.v!==undefined?parseFloat(c.dataset.v):NaN;var r=(!isNaN(p)&&!isNaN(q))?p-q:(a?a.\
textContent:'').localeCompare(c?c.textContent:'');return up?r:-r});up=!up;rows.forEach(function(r){b.\
appendChild(r)});b.querySelectorAll('tr.others').forEach(function(r){b.appendChild(r)})})})});\
function inflate(){var e=document.getElementById('csv');var s=atob(e.textContent.trim());var u=new Uint8Array(s.\
length);for(var i=0;i<s.length;i++)u[i]=s.charCodeAt(i);var z=new Response(new Blob([u]).stream().pipeThrough(new \
DecompressionStream('deflate')));if(e.dataset.layout!=='columns')return z.blob();return z.text().then(function(t){\
var c=t.split('\\x01').map(function(x){return x.split('\\x00')});var n=c[0].length,o=new Array(n);for(var i=0;i<n;\
i++){var r=new Array(c.length);for(var j=0;j<c.length;j++)r[j]=c[j][i];o[i]=r.join(',')}return new Blob([o.\
join('\\n')+(e.dataset.end==='1'?'\\n':'')])})}function download(){inflate().then(function(b){var a=document.\
createElement('a');a.href=URL.createObjectURL(new Blob([b],{type:'text/csv'}));a.download=document.\
getElementById('csv').dataset.name;document.body.appendChild(a);a.click();a.remove()})}";

/// The whole page: title, facts, a table of contents, the sections, and the embedded CSV.
pub fn page(title: &str, facts: &Facts, sections: &[Section], csv: Option<&Embedded>) -> String {
    let mut s = String::with_capacity(1 << 16);
    let _ = write!(
        s,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" \
         content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>",
        escape(title),
        escape(title)
    );
    s.push_str("<dl class=\"facts\">");
    for (k, v) in facts {
        let _ = write!(s, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(v));
    }
    s.push_str("</dl><nav>");
    for sec in sections {
        let _ = write!(s, "<a href=\"#{}\">{}</a>", sec.id, escape(&sec.title));
    }
    if csv.is_some() {
        s.push_str("<a href=\"#data\">Data</a>");
    }
    s.push_str("</nav>");
    for sec in sections {
        let _ = write!(
            s,
            "<section id=\"{}\"><h2>{}</h2><p class=\"how\">{}</p>",
            sec.id,
            escape(&sec.title),
            escape(&sec.how)
        );
        let mut charts = false;
        for part in &sec.parts {
            let chart = matches!(part, Part::Chart(_));
            if chart != charts {
                s.push_str(if chart { "<div class=\"charts\">" } else { "</div>" });
                charts = chart;
            }
            match part {
                Part::Heading(h) => {
                    let _ = write!(s, "<h3>{}</h3>", escape(h));
                }
                Part::Note(n) => {
                    let _ = write!(s, "<p>{}</p>", escape(n));
                }
                Part::Table(t) => s.push_str(&html_table(t)),
                Part::Chart(svg) => s.push_str(svg),
            }
        }
        if charts {
            s.push_str("</div>");
        }
        s.push_str("</section>");
    }
    if let Some(csv) = csv {
        let _ = write!(
            s,
            "<section id=\"data\"><h2>Data</h2><p class=\"how\">The results file itself, every row and column, as \
             the run wrote it ({} bytes).</p><button onclick=\"download()\">Download {}</button><script \
             type=\"application/octet-stream\" id=\"csv\" data-name=\"{}\" data-layout=\"{}\" \
             data-end=\"{}\">{}</script></section>",
            csv.bytes,
            escape(&csv.name),
            escape(&csv.name),
            if csv.columnar { "columns" } else { "rows" },
            u8::from(csv.final_newline),
            csv.base64
        );
    }
    let _ = writeln!(s, "<script>{SCRIPT}</script></body></html>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_encodings() {
        // RFC 4648, section 10.
        for (plain, coded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(base64(plain.as_bytes()), coded);
        }
    }

    #[test]
    fn a_file_by_columns_keeps_its_cells_as_written() {
        let text = "a,b,c\n1,\"x,\"\"y\"\"\nz\",\n2,,3\n";
        let cols = columns(text.as_bytes()).expect("a rectangular file");
        assert_eq!(cols, b"a\x001\x002\x01b\x00\"x,\"\"y\"\"\nz\"\x00\x01c\x00\x003".to_vec());
        assert_eq!(columns(b"a,b\n1\n"), None, "a short row");
        assert_eq!(columns(b"a,b\n\"1,2\n"), None, "an open quote");
        let e = embed("results.csv", text.as_bytes());
        assert!(e.columnar && e.final_newline);
    }
}
