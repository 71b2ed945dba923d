//! The crate's layers point one way, read from the source.
//!
//! - Every top-level module of `src/` has a place in [`LAYERS`], bottom first, and its
//!   code (its tests aside) names only modules below it. A new module must be given its
//!   place here; an import that points up fails with its file and line.
//! - No circle of imports between the files of the crate: a file may name its parent's
//!   items (`super::Thing`), but two files never name each other, directly or round a
//!   longer circle.
//!
//! A reference is every `crate::a::b`, `$crate::a::b` (in macros), `super::...` and
//! `self::...` path, `use` groups included, outside comments and `#[cfg(test)]` modules,
//! resolved to the deepest module of the crate it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules, bottom first: a module may name only those before it.
const LAYERS: &[&str] = &[
    // Foundations: no game, no files.
    "error",
    "names",
    "seed",
    "stats",
    "hints",
    // The pure core.
    "game",
    // Single positions by search, for boards too big to enumerate.
    "oracle",
    "mdp",
    "solvers",
    // What a job costs, in bytes and seconds, and the kernels that measure it.
    "cost",
    "bench",
    // The solver kinds and how their policies are scored.
    "evaluation",
    "kinds",
    // Specs and the result files.
    "schema",
    "spec",
    "report",
    // Searches, the executor and the command line.
    "search",
    "run",
    "cli",
];

type Module = Vec<String>;

/// One source file: its module path (`spec/solver.rs` is `["spec", "solver"]`,
/// `spec/mod.rs` is `["spec"]`) and its code.
struct File {
    module: Module,
    shown: String,
    code: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate's files but its test files (`tests.rs`, `*_tests.rs`) and `lib.rs`/`main.rs`.
fn files() -> Vec<File> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let rel = path.strip_prefix(&src).unwrap();
        let mut module: Module = rel.iter().map(|c| c.to_str().unwrap().trim_end_matches(".rs").to_string()).collect();
        let last = module.last().unwrap().clone();
        if last == "tests" || last.ends_with("_tests") || module == ["lib"] || module == ["main"] {
            continue;
        }
        if last == "mod" {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        out.push(File { module, shown: format!("src/{}", rel.display()), code: code(&text) });
    }
    out
}

/// The file's code without comments and without its `#[cfg(test)]` modules (a
/// `#[cfg(test)]` line followed by a `mod` line, to the end of the file: test modules come
/// last in this crate's files), line breaks kept.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].iter().map(|line| line.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

fn ident(s: &str) -> usize {
    s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len())
}

/// The identifier segments of a path that starts at `s`, and for a `{...}` group each
/// item's segments after them.
fn segments(s: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = s;
    loop {
        let n = ident(rest);
        if n == 0 {
            break;
        }
        prefix.push(rest[..n].to_string());
        match rest[n..].strip_prefix("::") {
            Some(more) => rest = more,
            None => return vec![prefix],
        }
    }
    let Some(group) = rest.strip_prefix('{') else {
        return vec![prefix];
    };
    let mut depth = 0;
    let mut items = Vec::new();
    let mut start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..i]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for item in items {
        for tail in segments(item.trim()) {
            let mut path = prefix.clone();
            path.extend(tail);
            out.push(path);
        }
    }
    if out.is_empty() { vec![prefix] } else { out }
}

/// (line, absolute path) of every `crate::`, `super::` and `self::` path in `file`'s code.
fn references(file: &File) -> Vec<(usize, Module)> {
    let mut found = Vec::new();
    for (n, line) in file.code.lines().enumerate() {
        let mut at = 0;
        while at < line.len() {
            let rest = &line[at..];
            let start = ["crate::", "super::", "self::"].iter().filter_map(|p| rest.find(p).map(|i| (i, *p))).min();
            let Some((i, head)) = start else { break };
            let before = rest[..i].chars().next_back();
            at += i + head.len();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut base: Module = match head {
                "crate::" => Vec::new(),
                "self::" => file.module.clone(),
                _ => file.module[..file.module.len().saturating_sub(1)].to_vec(),
            };
            let mut tail = &line[at..];
            while let Some(more) = tail.strip_prefix("super::") {
                base.pop();
                tail = more;
                at += "super::".len();
            }
            for segs in segments(tail) {
                let mut path = base.clone();
                path.extend(segs);
                found.push((n + 1, path));
            }
        }
    }
    found
}

/// The deepest module of `modules` that `path` names, if any.
fn resolve<'a>(modules: &'a BTreeSet<Module>, path: &[String]) -> Option<&'a Module> {
    (1..=path.len()).rev().find_map(|n| modules.get(&path[..n].to_vec()))
}

#[test]
fn every_module_names_only_the_modules_below_it() {
    let rank = |name: &str| LAYERS.iter().position(|l| *l == name);
    let mut upward = Vec::new();
    let mut unplaced = BTreeMap::new();
    let mut edges = 0;
    for file in files() {
        let top = file.module[0].clone();
        let Some(from) = rank(&top) else {
            unplaced.insert(top, file.shown.clone());
            continue;
        };
        for (line, path) in references(&file) {
            let Some(name) = path.first().filter(|n| **n != top) else { continue };
            edges += 1;
            match rank(name) {
                Some(to) if to < from => {}
                Some(_) => upward.push(format!("{}:{line}: {top} names {name}, a layer above it", file.shown)),
                None if name.chars().next().is_some_and(char::is_uppercase) => {}
                None => {
                    unplaced.insert(name.clone(), file.shown.clone());
                }
            }
        }
    }
    assert!(unplaced.is_empty(), "modules with no place in LAYERS (tests/integration/layers.rs): {unplaced:?}");
    assert!(upward.is_empty(), "imports that point up:\n{}", upward.join("\n"));
    assert!(edges > 100, "only {edges} references between modules were found: the scan is broken");
}

#[test]
fn no_two_files_import_each_other_round_a_circle() {
    let files = files();
    let modules: BTreeSet<Module> = files.iter().map(|f| f.module.clone()).collect();
    // file -> the files it names (not itself, not the modules inside it), with a line.
    let mut graph: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
    for file in &files {
        let out = graph.entry(file.module.clone()).or_default();
        for (line, path) in references(file) {
            let Some(to) = resolve(&modules, &path) else { continue };
            if !to.starts_with(&file.module) {
                out.entry(to.clone()).or_insert_with(|| format!("{}:{line}", file.shown));
            }
        }
    }
    assert!(graph.values().map(BTreeMap::len).sum::<usize>() > 200, "the scan found too few imports");
    // Depth-first search for a back edge; the circle is the stack from its target.
    fn visit(
        m: &Module,
        graph: &BTreeMap<Module, BTreeMap<Module, String>>,
        state: &mut BTreeMap<Module, u8>,
        stack: &mut Vec<(Module, String)>,
        circles: &mut Vec<String>,
    ) {
        state.insert(m.clone(), 1);
        for (to, at) in graph.get(m).into_iter().flatten() {
            stack.push((to.clone(), at.clone()));
            match state.get(to) {
                Some(1) => {
                    let from = stack[..stack.len() - 1].iter().rposition(|(s, _)| s == to).unwrap_or(0);
                    let circle: Vec<String> =
                        stack[from + 1..].iter().map(|(s, at)| format!("{} ({at})", s.join("::"))).collect();
                    circles.push(format!("{} -> {}", to.join("::"), circle.join(" -> ")));
                }
                Some(_) => {}
                None => visit(to, graph, state, stack, circles),
            }
            stack.pop();
        }
        state.insert(m.clone(), 2);
    }
    let mut state = BTreeMap::new();
    let mut circles = Vec::new();
    for m in graph.keys() {
        if !state.contains_key(m) {
            let mut stack = vec![(m.clone(), String::new())];
            visit(m, &graph, &mut state, &mut stack, &mut circles);
        }
    }
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
}

#[test]
fn the_scan_reads_groups_supers_and_macros_and_skips_comments_and_tests() {
    let file = File {
        module: vec!["spec".into(), "solver".into()],
        shown: "x.rs".into(),
        code: code(
            "use crate::{game::Board, mdp::{Seat, Opponent}};\nuse super::super::cli::X;\n\
             // crate::cli\nfn f() { $crate::spec::x(); super::axis::y(); self::z(); }\n\
             #[cfg(test)]\nmod tests { use crate::cli; }\n",
        ),
    };
    let found: Vec<String> = references(&file).into_iter().map(|(_, m)| m.join("::")).collect();
    assert_eq!(
        found,
        ["game::Board", "mdp::Seat", "mdp::Opponent", "cli::X", "spec::x", "spec::axis::y", "spec::solver::z"]
    );
}
