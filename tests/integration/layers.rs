//! The crate's layers point one way, read from the source.
//!
//! - Every top-level module of `src/` has a place in [`LAYERS`], bottom first, and its
//!   code (its tests aside) names only modules below it. A new module must be given its
//!   place here; an import that points up fails with its file and line.
//! - No circle of imports between the files of the crate: a file may name its parent's
//!   items (`super::Thing`), but two files never name each other, directly or round a
//!   longer circle.
//!
//! A reference is every `crate::a::b`, `$crate::a::b` (in macros), `super::...`,
//! `self::...` and `child::...` path (a child module of the file's, as `mod.rs` names
//! them), `use` groups included even over several lines, outside comments and
//! `#[cfg(test)]` modules, resolved to the deepest module of the crate it names, and then
//! through re-exports: `super::Seat` where the parent has `pub use seat::Seat` is a
//! reference to `seat`, so a circle through a re-export is a circle.

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
    // A job: what the spec makes and the executor runs.
    "job",
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
#[derive(Clone)]
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
/// last in this crate's files), line breaks kept; a `use` statement over several lines is
/// joined on its first (the lines after it left empty), so its group is read whole.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]" && lines.get(i + 1).is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    let lines: Vec<&str> = lines[..end].iter().map(|line| line.split("//").next().unwrap()).collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let head = lines[i].trim_start();
        let is_use = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "].iter().any(|p| head.starts_with(p));
        let mut joined = lines[i].to_string();
        let first = i;
        while is_use && !joined.contains(';') && i + 1 < lines.len() {
            i += 1;
            joined.push(' ');
            joined.push_str(lines[i].trim());
        }
        out.push(joined);
        out.extend(std::iter::repeat_n(String::new(), i - first));
        i += 1;
    }
    out.join("\n")
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

/// (line, absolute path) of every `crate::`, `super::`, `self::` and child-module path in
/// `file`'s code (`modules`: every module of the crate, to know the children).
fn references(file: &File, modules: &BTreeSet<Module>) -> Vec<(usize, Module)> {
    let children: Vec<String> = modules
        .iter()
        .filter(|m| m.len() == file.module.len() + 1 && m.starts_with(&file.module))
        .map(|m| format!("{}::", m.last().unwrap()))
        .collect();
    let mut heads: Vec<&str> = vec!["crate::", "super::", "self::"];
    heads.extend(children.iter().map(String::as_str));
    let mut found = Vec::new();
    for (n, line) in file.code.lines().enumerate() {
        let mut at = 0;
        while at < line.len() {
            let rest = &line[at..];
            let start = heads.iter().filter_map(|p| rest.find(p).map(|i| (i, *p))).min();
            let Some((i, head)) = start else { break };
            let before = rest[..i].chars().next_back();
            at += i + head.len();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut base: Module = match head {
                "crate::" => Vec::new(),
                "self::" => file.module.clone(),
                "super::" => file.module[..file.module.len().saturating_sub(1)].to_vec(),
                child => [file.module.clone(), vec![child.trim_end_matches("::").to_string()]].concat(),
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

/// Every item a module re-exports (`pub use` and `pub(crate) use`): (module, name) -> the
/// item's absolute path.
type Reexports = BTreeMap<(Module, String), Module>;

fn reexports(files: &[File], modules: &BTreeSet<Module>) -> Reexports {
    let mut out = Reexports::new();
    for file in files {
        let lines: Vec<&str> = file.code.lines().collect();
        for (line, path) in references(file, modules) {
            let text = lines[line - 1].trim_start();
            let public = text.starts_with("pub use ") || text.starts_with("pub(crate) use ");
            if let (true, Some(name)) = (public, path.last()) {
                out.insert((file.module.clone(), name.clone()), path.clone());
            }
        }
    }
    out
}

/// The module that `path` names: the deepest module of `modules` it starts with, and
/// through that module's re-export of the item after it, if it has one (again, a few
/// times at most).
fn resolve<'a>(modules: &'a BTreeSet<Module>, reexports: &Reexports, path: &[String]) -> Option<&'a Module> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let n = (1..=path.len()).rev().find(|&n| modules.contains(&path[..n].to_vec()))?;
        let Some(target) = path.get(n).and_then(|item| reexports.get(&(path[..n].to_vec(), item.clone()))) else {
            return modules.get(&path[..n].to_vec());
        };
        if target.starts_with(&path[..n]) && target.len() == n + 1 {
            return modules.get(&path[..n].to_vec());
        }
        path = [target.clone(), path[n + 1..].to_vec()].concat();
    }
    None
}

#[test]
fn every_module_names_only_the_modules_below_it() {
    let rank = |name: &str| LAYERS.iter().position(|l| *l == name);
    let mut upward = Vec::new();
    let mut unplaced = BTreeMap::new();
    let mut edges = 0;
    let files = files();
    let modules: BTreeSet<Module> = files.iter().map(|f| f.module.clone()).collect();
    for file in files {
        let top = file.module[0].clone();
        let Some(from) = rank(&top) else {
            unplaced.insert(top, file.shown.clone());
            continue;
        };
        for (line, path) in references(&file, &modules) {
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
    let (edges, circles) = circles(&files());
    assert!(edges > 200, "the scan found too few imports");
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
}

#[test]
fn a_circle_through_a_reexport_is_found() {
    let file = |module: &[&str], text: &str| File {
        module: module.iter().map(|m| m.to_string()).collect(),
        shown: format!("src/{}.rs", module.join("/")),
        code: code(text),
    };
    // `x` names `y`; `y` names the parent's `Thing`, which the parent re-exports from `x`
    // (over two lines, as rustfmt writes a long group).
    let planted = [
        file(&["a"], "mod x;\nmod y;\npub use x::{\n    Thing,\n};\n"),
        file(&["a", "x"], "use super::y::Other;\npub struct Thing;\n"),
        file(&["a", "y"], "use super::Thing;\npub struct Other;\n"),
    ];
    let (_, found) = circles(&planted);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("a::x") && found[0].contains("a::y"), "{found:?}");
    // The same files with `Thing` named where it is defined: no circle.
    let direct = [planted[0].clone(), planted[1].clone(), file(&["a", "y"], "use super::x::Thing;\n")];
    let (_, none) = circles(&direct);
    assert!(!none.is_empty(), "x and y still name each other: {none:?}");
    let apart = [planted[0].clone(), file(&["a", "x"], "pub struct Thing;\n"), planted[2].clone()];
    assert_eq!(circles(&apart).1, Vec::<String>::new());
}

/// The number of edges between files and every circle among them.
fn circles(files: &[File]) -> (usize, Vec<String>) {
    let modules: BTreeSet<Module> = files.iter().map(|f| f.module.clone()).collect();
    let reexports = reexports(files, &modules);
    // file -> the files it names (not itself, not the modules inside it), with a line.
    let mut graph: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
    for file in files {
        let out = graph.entry(file.module.clone()).or_default();
        for (line, path) in references(file, &modules) {
            let Some(to) = resolve(&modules, &reexports, &path) else { continue };
            if !to.starts_with(&file.module) {
                out.entry(to.clone()).or_insert_with(|| format!("{}:{line}", file.shown));
            }
        }
    }
    let edges = graph.values().map(BTreeMap::len).sum::<usize>();
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
    (edges, circles)
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
    let modules = BTreeSet::from([vec!["spec".to_string()], vec!["spec".to_string(), "solver".to_string()]]);
    let found: Vec<String> = references(&file, &modules).into_iter().map(|(_, m)| m.join("::")).collect();
    assert_eq!(
        found,
        ["game::Board", "mdp::Seat", "mdp::Opponent", "cli::X", "spec::x", "spec::axis::y", "spec::solver::z"]
    );
}
