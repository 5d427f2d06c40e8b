//! The workspace's files use each other without a circle, and read in the
//! layers of docs/architecture.md: read from the source, every path into
//! the crate outside comments and test modules (`crate::`, `super::`,
//! `self::`, or a child module's name) is an edge from its file to the
//! file of the deepest module it names. A module's `mod.rs` is a file like
//! any other: a child that imports from its parent while the parent
//! imports from the child is a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each file's module and the modules it imports.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines: `bind::tolerant` for `bind/tolerant/mod.rs`.
fn module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The code of a file without comments and without its test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a use tree at the start of `text` (`a::b::{c, d::e}`, `*`),
/// each as its segments.
fn tree(text: &str) -> Vec<Vec<String>> {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        // The group's subtrees, split at the commas outside inner braces.
        let mut paths = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (at, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths.extend(tree(&group[start..at]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths.extend(tree(&group[start..at]));
                    start = at + 1;
                }
                _ => {}
            }
        }
        return paths;
    }
    let end = text.find(|c: char| !is_ident(c)).unwrap_or(text.len());
    let head = &text[..end];
    if head.is_empty() {
        return Vec::new();
    }
    match text[end..].strip_prefix("::") {
        Some(rest) => {
            let below = tree(rest);
            if below.is_empty() {
                return vec![vec![head.to_owned()]];
            }
            below
                .into_iter()
                .map(|mut path| {
                    path.insert(0, head.to_owned());
                    path
                })
                .collect()
        }
        None => vec![vec![head.to_owned()]],
    }
}

/// Each file's imports of the crate's other files, for the crate whose
/// sources are in `src` (relative to the workspace root). The crate root
/// (`lib.rs`) and test modules are left out.
fn graph(src: &str) -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(src);
    let mut all = Vec::new();
    files(&src, &mut all);
    let is_test = |m: &str| {
        let last = m.rsplit("::").next().unwrap_or(m);
        ["tests", "proptests", "limit"].contains(&last)
    };
    let (tests, modules): (BTreeMap<String, PathBuf>, BTreeMap<String, PathBuf>) = all
        .into_iter()
        .map(|f| (module(&src, &f), f))
        .filter(|(m, _)| m != "lib" && m != "main")
        .partition(|(m, _)| is_test(m));
    // The deepest module a path names; nothing for a path into a test
    // module (a `#[cfg(test)]` hook in code).
    let deepest = |parts: &[String]| -> Option<String> {
        let prefixes = (1..=parts.len()).rev().map(|n| parts[..n].join("::"));
        let prefixes: Vec<String> = prefixes.collect();
        if prefixes.iter().any(|m| tests.contains_key(m)) {
            return None;
        }
        prefixes.into_iter().find(|m| modules.contains_key(m))
    };
    let mut graph = Graph::new();
    for (name, file) in &modules {
        let code = code(&std::fs::read_to_string(file).unwrap());
        let here: Vec<String> = name.split("::").map(str::to_owned).collect();
        let is_child = |word: &str| modules.contains_key(&format!("{name}::{word}"));
        let mut uses = BTreeSet::new();
        let mut at = 0;
        while at < code.len() {
            let rest = &code[at..];
            let Some(start) = rest.find(is_ident) else {
                break;
            };
            let word_at = at + start;
            let len = code[word_at..]
                .find(|c: char| !is_ident(c))
                .unwrap_or(code.len() - word_at);
            let word = &code[word_at..word_at + len];
            let after = &code[word_at + len..];
            let before = &code[..word_at];
            at = word_at + len;
            // A path that starts here: not the middle of `a::b`.
            if before.ends_with("::") || !after.starts_with("::") {
                continue;
            }
            let base: Vec<String> = match word {
                "crate" => Vec::new(),
                "self" => here.clone(),
                "super" => here[..here.len().saturating_sub(1)].to_vec(),
                child if is_child(child) => {
                    let mut base = here.clone();
                    base.push(child.to_owned());
                    base
                }
                _ => continue,
            };
            for path in tree(&after[2..]) {
                let mut full = base.clone();
                let mut path = path.as_slice();
                // `super::super::x`, `self::x` after a prefix.
                while let Some((first, rest)) = path.split_first() {
                    match first.as_str() {
                        "super" => {
                            full.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    path = rest;
                }
                full.extend(path.iter().cloned());
                uses.extend(deepest(&full));
            }
        }
        uses.remove(name);
        graph.insert(name.clone(), uses);
    }
    graph
}

/// A circle in `graph`, if there is one.
fn circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &Graph,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

const RUNTIME: &str = "canon-runtime/src";
const MACROS: &str = "canon-macros/src";
const ENGINE: &str = "canon-replay/src";

#[test]
fn the_runtime_has_no_import_circle() {
    let graph = graph(RUNTIME);
    // The reader sees the modules it should: a broken reader proves nothing.
    assert!(
        graph["toolbox::spec"].contains("bind::diagnose"),
        "{graph:#?}"
    );
    assert!(graph["bind::json"].contains("feedback::violations"));
    // Paths relative to the file: `super::`, and a child module's name.
    assert!(graph["bind::tolerant::plain"].contains("bind::tolerant::value"));
    assert!(graph["bind::tolerant"].contains("bind::tolerant::plain"));
    assert_eq!(circle(&graph), None);
}

#[test]
fn the_macro_crate_has_no_import_circle() {
    let graph = graph(MACROS);
    assert!(graph["check"].contains("ast"), "{graph:#?}");
    assert!(graph["expand::args"].contains("model"));
    assert!(graph["expand"].contains("expand::args"));
    assert_eq!(circle(&graph), None);
}

#[test]
fn the_replay_engine_has_no_import_circle() {
    let graph = graph(ENGINE);
    assert!(graph["trace"].contains("replay"), "{graph:#?}");
    assert!(graph["formats::otlp"].contains("formats::call"));
    assert_eq!(circle(&graph), None);
}

#[test]
fn the_circle_finder_finds_a_circle_in_each_crate() {
    // Between folders.
    let mut runtime = graph(RUNTIME);
    runtime
        .get_mut("bind::diagnose")
        .unwrap()
        .insert("toolbox::spec".into());
    let found = circle(&runtime).expect("a circle through the spec");
    assert!(found.contains(&"toolbox::spec".to_owned()), "{found:?}");
    // Between a child and its parent's `mod.rs`.
    let mut runtime = graph(RUNTIME);
    runtime
        .get_mut("bind::tolerant::value")
        .unwrap()
        .insert("bind::tolerant".into());
    assert!(circle(&runtime).is_some());
    // In the macro crate.
    let mut macros = graph(MACROS);
    macros.get_mut("ast").unwrap().insert("model".into());
    let found = circle(&macros).expect("a circle through the model");
    assert!(found.contains(&"ast".to_owned()), "{found:?}");
    // In the replay engine.
    let mut cli = graph(ENGINE);
    cli.get_mut("outcome").unwrap().insert("report".into());
    assert!(circle(&cli).is_some());
}

#[test]
fn the_reader_reads_relative_paths_and_groups() {
    assert_eq!(
        tree("{a::{b, c::D}, e as f, g::*}; more"),
        [vec!["a", "b"], vec!["a", "c", "D"], vec!["e"], vec!["g"],]
    );
    assert_eq!(tree("x::Y::new()"), [vec!["x", "Y", "new"]]);
}

/// docs/architecture.md.
fn architecture() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
        .unwrap()
}

/// The drawing of a crate's layers in docs/architecture.md: the first
/// `text` block after the line `heading`. Each line is a layer, the top
/// first: its top-level modules (`__private, mcp`), then in parentheses
/// the files of a folder, each using only those before it (`mod` is the
/// folder's `mod.rs`); a line that starts with a space goes on with the
/// list above. Each module of the crate maps to (its layer, its place).
fn drawing(docs: &str, heading: &str) -> BTreeMap<String, (usize, usize)> {
    let after = &docs[docs.find(heading).expect(heading)..];
    let block = &after[after.find("```text\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let mut lines: Vec<String> = Vec::new();
    for line in block.lines() {
        match lines.last_mut() {
            Some(last) if line.starts_with(' ') => last.push_str(line),
            _ => lines.push(line.to_owned()),
        }
    }
    let mut places = BTreeMap::new();
    // The bottom layer is 0.
    for (layer, line) in lines.iter().rev().enumerate() {
        let (tops, files) = match line.split_once('(') {
            Some((tops, files)) => (tops, files.trim_end().trim_end_matches(')')),
            None => (line.as_str(), ""),
        };
        for top in tops.split(',').map(str::trim) {
            places.insert(top.to_owned(), (layer, 0));
            for (place, file) in files.split(',').map(str::trim).enumerate() {
                let module = match file {
                    "mod" => top.to_owned(),
                    file => format!("{top}::{file}"),
                };
                places.insert(module, (layer, place));
            }
        }
    }
    places
}

/// The drawing holds every module, and every edge of `graph` goes down it
/// (to a lower layer, or to a file listed before in the same folder), but
/// for the edges returned, which go up.
fn upward(graph: &Graph, places: &BTreeMap<String, (usize, usize)>) -> Vec<String> {
    let place = |module: &str| {
        *places
            .get(module)
            .unwrap_or_else(|| panic!("docs/architecture.md does not draw `{module}`"))
    };
    let mut up = Vec::new();
    for (from, uses) in graph {
        for to in uses {
            let (from_layer, from_place) = place(from);
            let (to_layer, to_place) = place(to);
            let same_folder = from.split("::").next() == to.split("::").next();
            if to_layer > from_layer {
                up.push(format!("{from} -> {to}"));
            } else if to_layer == from_layer && same_folder {
                assert!(
                    to_place < from_place,
                    "`{from}` uses `{to}`, which docs/architecture.md draws above it"
                );
            }
        }
    }
    up
}

/// docs/architecture.md draws the layers as the code has them; few edges
/// point up, and it gives each its reason.
#[test]
fn the_layers_are_drawn_as_they_are_and_few_edges_point_up() {
    let docs = architecture();
    let mut up = upward(&graph(RUNTIME), &drawing(&docs, "## What may use what"));
    up.extend(upward(
        &graph(MACROS),
        &drawing(&docs, "### What may use what in the macro crate"),
    ));
    up.extend(upward(
        &graph(ENGINE),
        &drawing(&docs, "### What may use what in the replay engine"),
    ));
    assert!(up.len() <= 5, "{up:#?}");
    for edge in &up {
        let (from, to) = edge.split_once(" -> ").unwrap();
        assert!(
            docs.contains(&format!("`{from}` uses `{to}`")),
            "docs/architecture.md does not say why `{from}` uses `{to}`"
        );
    }
}

#[test]
fn a_drawing_that_puts_a_file_above_what_it_uses_is_refused() {
    let docs = architecture().replace("expand       (tokens, args", "expand       (args, tokens");
    let places = drawing(&docs, "### What may use what in the macro crate");
    let refused = std::panic::catch_unwind(|| upward(&graph(MACROS), &places));
    assert!(refused.is_err());
}

/// The workspace's packages each depends on through `[dependencies]`, by
/// path: package directory -> the package directories it names.
fn packages() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut graph = BTreeMap::new();
    for package in [
        "canon-macros",
        "canon-runtime",
        "canon-replay",
        "canon-cli",
        "canon-datafusion",
    ] {
        let manifest = std::fs::read_to_string(root.join(package).join("Cargo.toml")).unwrap();
        let deps = &manifest[manifest.find("[dependencies]").expect("[dependencies]")..];
        let deps = match deps[1..].find("\n[") {
            Some(end) => &deps[..end + 1],
            None => deps,
        };
        let named: BTreeSet<String> = deps
            .lines()
            .filter_map(|line| {
                let path = line.split("path = \"").nth(1)?;
                let path = &path[..path.find('"')?];
                Some(path.trim_start_matches("../").to_owned())
            })
            .collect();
        graph.insert(package.to_owned(), named);
    }
    graph
}

/// The replay engine depends on neither the command nor the SQL functions,
/// so the command may read Parquet through the SQL functions' crate.
#[test]
fn the_packages_depend_one_way() {
    let packages = packages();
    // The reader sees the path dependencies: `..` is the facade.
    assert!(packages["canon-replay"].contains(".."), "{packages:#?}");
    assert!(packages["canon-cli"].contains("canon-replay"));
    for engine_user in ["canon-cli", "canon-datafusion"] {
        assert!(
            !packages["canon-replay"].contains(engine_user),
            "canon-replay depends on {engine_user}"
        );
    }
    assert!(
        !packages["canon-datafusion"].contains("canon-cli"),
        "canon-datafusion depends on the command: the command could not use it"
    );
    let graph: Graph = packages.clone();
    assert_eq!(circle(&graph), None);
}
