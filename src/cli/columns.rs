//! `sweep columns`: the columns of `results.csv` and `curves.csv`, with what each holds;
//! for parameters, the declaration (type, default, allowed values, the kinds that take it,
//! meaning). Scripts read `--json` instead of keeping their own lists.

use anyhow::Result;
use serde_json::{Value, json};

use crate::error::exit;
use crate::kinds::Kind;
use crate::kinds::{Param, Ty, Val, any_param, takers};
use crate::report::table::{Cell, Column, Doc, Format, Table};
use crate::report::{CURVE_COLUMNS, Field, RESULT_COLUMNS};

/// What a parameter accepts, in words.
fn allowed(p: &Param) -> String {
    match p.ty {
        Ty::Real(bounds) => bounds.describe(),
        Ty::Count { max } if max >= i64::MAX as u64 => "a whole number >= 1".to_string(),
        Ty::Count { max } => format!("a whole number from 1 to {max}"),
        Ty::Flag => "true or false".to_string(),
        Ty::Choice(names) => names.join(", "),
        Ty::Game { max_cells, searched } => {
            let forms: Vec<String> = crate::game::Family::ALL
                .iter()
                .filter(|f| f.max_cells() <= max_cells)
                .map(|f| format!("<rows>x<cols>{}<k> ({})", f.letter(), f.sizes()))
                .collect();
            let beyond = if searched {
                format!("; mcts and command also play {}", crate::kinds::param::SEARCHED_BOARDS)
            } else {
                String::new()
            };
            format!("{}, rows and columns >= 3{beyond}", forms.join(" or "))
        }
    }
}

/// Every declaration of parameter `name` (kinds may accept different values), merged.
fn describe_param(name: &str) -> Value {
    let p = any_param(name).expect("a declared parameter");
    let kinds = takers(name);
    let mut accepted: Vec<String> = Vec::new();
    for kind in &kinds {
        let a = allowed(kind.param(name).expect("a taker"));
        if !accepted.contains(&a) {
            accepted.push(a);
        }
    }
    let ty = match p.ty {
        Ty::Real(_) => "real",
        Ty::Count { .. } => "count",
        Ty::Flag => "flag",
        Ty::Choice(_) => "choice",
        Ty::Game { .. } => "game",
    };
    json!({
        "name": name,
        "role": "parameter",
        "since": p.since,
        "type": ty,
        "default": match p.default { _ if p.optional => Value::Null, Val::Name(n) => Value::from(n), v => v.to_json() },
        "allowed": accepted.join(" | "),
        "kinds": kinds.iter().map(|k| k.name()).collect::<Vec<_>>(),
        "meaning": p.meaning,
    })
}

/// The listing as JSON.
pub fn listing() -> Value {
    let results: Vec<Value> = RESULT_COLUMNS
        .iter()
        .map(|&c| match Field::ALL.iter().zip(crate::report::FIELDS).find(|(f, _)| f.name() == c) {
            Some((f, &(name, since))) => {
                json!({ "name": name, "role": "field", "since": since, "type": if f.numeric() { "number" } else { "text" } })
            }
            None => describe_param(c),
        })
        .collect();
    let curves: Vec<Value> = CURVE_COLUMNS
        .iter()
        .map(|&c| {
            let ty = if matches!(c, "job_id" | "seat" | "eval_opponent") { "text" } else { "number" };
            json!({ "name": c, "role": "field", "since": 1, "type": ty })
        })
        .collect();
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    json!({ "results": results, "curves": curves, "solvers": kinds })
}

/// The listing as lines (each column and what it holds, by file) and, for programs and
/// papers, one table of every column: file, name, role, since, type, kinds, allowed,
/// default, meaning.
pub fn doc() -> Doc {
    let listing = listing();
    let mut doc = Doc::new("the columns of results.csv and curves.csv");
    let columns = ["file", "name", "role"].map(Column::text).into_iter().chain([Column::integers("since")]);
    let columns = columns.chain(["type", "kinds", "allowed", "default", "meaning"].map(Column::text)).collect();
    let mut table = Table::new("the columns of results.csv and curves.csv", columns);
    let text = |c: &Value, key: &str| c[key].as_str().unwrap_or_default().to_string();
    doc.line("results.csv:");
    for c in listing["results"].as_array().into_iter().flatten() {
        let name = text(c, "name");
        let kinds: Vec<&str> = c["kinds"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let default = if c["default"].is_null() { String::new() } else { c["default"].to_string() };
        match c["role"].as_str() {
            Some("parameter") => doc.line(format!(
                "  {name:<15} parameter of {}: {}; {} (default {})",
                kinds.join(", "),
                text(c, "meaning"),
                text(c, "allowed"),
                if c["default"].is_null() { "not set: the cell is empty" } else { &default }
            )),
            _ => doc.line(format!("  {name}")),
        }
        table.push(vec![
            Cell::text("results.csv"),
            Cell::text(name),
            Cell::text(text(c, "role")),
            Cell::Integer(c["since"].as_u64().unwrap_or_default()),
            Cell::text(text(c, "type")),
            Cell::text(kinds.join(", ")),
            Cell::text(text(c, "allowed")),
            Cell::key(default.trim_matches('"'), false),
            Cell::text(text(c, "meaning")),
        ]);
    }
    doc.line(format!("curves.csv:\n  {}", CURVE_COLUMNS.join(", ")));
    for c in listing["curves"].as_array().into_iter().flatten() {
        table.push(vec![
            Cell::text("curves.csv"),
            Cell::text(text(c, "name")),
            Cell::text(text(c, "role")),
            Cell::Integer(c["since"].as_u64().unwrap_or_default()),
            Cell::text(text(c, "type")),
            Cell::Missing,
            Cell::Missing,
            Cell::Missing,
            Cell::Missing,
        ]);
    }
    doc.data(table);
    doc
}

/// Runs `sweep columns`.
pub fn columns(as_json: bool, format: Format) -> Result<i32> {
    if as_json {
        println!("{}", serde_json::to_string_pretty(&listing())?);
        return Ok(exit::OK);
    }
    super::table::print_doc(&doc(), format);
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    /// The plot scripts read `scripts/columns.json` instead of keeping lists of their own;
    /// it must be exactly today's listing (regenerate it with
    /// `sweep columns --json > scripts/columns.json`).
    #[test]
    fn the_scripts_listing_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/columns.json");
        let text = std::fs::read_to_string(path).expect("scripts/columns.json exists");
        let stored: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert!(
            stored == super::listing(),
            "scripts/columns.json is stale: run `sweep columns --json > scripts/columns.json`"
        );
    }

    #[test]
    fn the_listing_names_every_column_once_in_file_order() {
        let listing = super::listing();
        let names: Vec<&str> =
            listing["results"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert_eq!(names, *crate::report::RESULT_COLUMNS);
        let opponent = listing["results"].as_array().unwrap().iter().find(|c| c["name"] == "opponent").unwrap();
        let learners = crate::solvers::learners::LEARNERS.iter().map(|l| l.name);
        let kinds: Vec<&str> =
            ["policy-iteration", "value-iteration"].into_iter().chain(learners).chain(["command"]).collect();
        assert_eq!(opponent["kinds"], serde_json::json!(kinds));
        assert_eq!(opponent["allowed"], "random, minimax, minimax-uniform | random, minimax, minimax-uniform, self");
        assert_eq!(opponent["default"], "random");
    }
}
