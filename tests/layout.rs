//! The runtime's modules use each other without a circle (the layering in
//! docs/architecture.md): read from the source, every `crate::` path
//! outside comments and test modules is an edge from its file's module to
//! the deepest module it names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// Each module's imports of other modules of the crate.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("canon-runtime/src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let modules: BTreeMap<String, PathBuf> = all
        .into_iter()
        .map(|f| (module(&src, &f), f))
        .filter(|(m, _)| m != "lib" && !m.ends_with("tests") && !m.ends_with("proptests"))
        .collect();
    let deepest = |path: &str| -> Option<String> {
        let parts: Vec<&str> = path.split("::").collect();
        (1..=parts.len())
            .rev()
            .map(|n| parts[..n].join("::"))
            .find(|m| modules.contains_key(m))
    };
    let mut graph = BTreeMap::new();
    for (name, file) in &modules {
        let code = code(&std::fs::read_to_string(file).unwrap());
        let mut uses = BTreeSet::new();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `crate::{a::X, b}`: each path in the group.
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for path in group.split(',') {
                    uses.extend(deepest(path.trim()));
                }
                continue;
            }
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            uses.extend(deepest(rest[..end].trim_end_matches(':')));
        }
        uses.remove(name);
        graph.insert(name.clone(), uses);
    }
    graph
}

/// A circle in `graph`, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
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

#[test]
fn the_runtime_has_no_import_circle() {
    let graph = graph();
    // The reader sees the modules it should: a broken reader proves nothing.
    assert!(
        graph["toolbox::spec"].contains("bind::diagnose"),
        "{graph:#?}"
    );
    assert!(graph["bind::json"].contains("feedback::violations"));
    assert_eq!(circle(&graph), None);
}

#[test]
fn the_circle_finder_finds_a_circle() {
    let mut graph = graph();
    graph
        .get_mut("bind::diagnose")
        .unwrap()
        .insert("toolbox::spec".into());
    let found = circle(&graph).expect("a circle through the spec");
    assert!(found.contains(&"toolbox::spec".to_owned()), "{found:?}");
}

/// The layers of docs/architecture.md, bottom first; the two upward edges
/// it names are the only ones.
#[test]
fn only_the_two_documented_edges_point_up() {
    const LAYERS: &[&str] = &[
        "repair",
        "feedback",
        "limits",
        "schema",
        "bind",
        "export",
        "toolbox",
        "wire",
        "rig",
        "testing",
        "mcp",
        "__private",
    ];
    let layer = |module: &str| {
        let top = module.split("::").next().unwrap();
        LAYERS.iter().position(|l| *l == top).unwrap()
    };
    let mut up = Vec::new();
    for (from, uses) in graph() {
        for to in uses {
            if layer(&to) > layer(&from) {
                up.push(format!("{from} -> {to}"));
            }
        }
    }
    assert_eq!(
        up,
        ["bind::policy -> export", "schema::plan -> bind::policy"]
    );
}
