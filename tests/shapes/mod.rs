//! A toolbox that exercises every shape schemars emits which some provider
//! rejects: `Option<primitive>` (type arrays), `description` beside `$ref`,
//! a recursive root (`"$ref": "#"`), `serde_json::Value` (`true`) and
//! `items: true`, tuples (`prefixItems`), integer and float `format`s,
//! data-carrying enums (`oneOf` + `const`), maps and empty structs (objects
//! without `properties`), a default, and a tool without parameters. Shared
//! by the export tests and the conformance exporter (`examples/export.rs`).
#![allow(dead_code)]
// A tool takes one parameter per property; the fixture has many.
#![allow(clippy::too_many_arguments)]

use std::collections::HashMap;

use canon::export::ToolAnnotations;
use canon::toolbox::ToolSpec;
use canon::{tool, JsonTool, Toolbox};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which files to look at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Filter {
    /// Labels to match.
    pub labels: Vec<String>,
    /// A path prefix.
    pub path: Option<String>,
}

/// How to sort.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Oldest first.
    Asc,
    /// Newest first.
    Desc,
}

/// What to search: an enum carrying data, internally tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Scope {
    /// One repository.
    Repo {
        /// Its name.
        name: String,
    },
    /// Every repository.
    Everything,
    /// The files a filter matches: a struct's members beside the tag.
    Filtered(Filter),
}

/// A nested tree (recursive through `$defs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    /// The node's name.
    pub name: String,
    /// Its children.
    pub children: Vec<Tree>,
}

/// An empty struct: an object without properties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Nothing {}

/// The report a search returns (an object: MCP's outputSchema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// Hits found.
    pub hits: u32,
}

/// Search with every shape a strict dialect can take.
#[tool]
pub fn search(
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
    /// Offset, 64-bit.
    offset: i64,
    /// Minimum score.
    score: f64,
    /// Which files.
    filter: Filter,
    /// More files, perhaps.
    extra_filter: Option<Filter>,
    /// Sort order.
    order: Option<Order>,
    /// The scope.
    scope: Scope,
    /// Whether to match exactly.
    #[arg(default = false)]
    exact: bool,
) -> Report {
    let _ = (
        query,
        limit,
        offset,
        score,
        filter,
        extra_filter,
        order,
        scope,
        exact,
    );
    Report { hits: 0 }
}

/// Tag with the shapes strict dialects refuse.
#[tool]
pub fn tag(
    /// Any JSON value.
    meta: serde_json::Value,
    /// Any JSON values.
    extras: Vec<serde_json::Value>,
    /// A point.
    point: (f64, f64),
    /// Free-form labels.
    labels: HashMap<String, String>,
    /// Nothing at all.
    nothing: Nothing,
) -> String {
    let _ = (meta, extras, point, labels, nothing);
    "ok".into()
}

/// Plant a tree (a recursive parameter).
#[tool]
pub fn plant(tree: Tree) -> usize {
    tree.children.len()
}

/// Search code in the given data sources (the examples' tool).
#[tool]
pub fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> Vec<String> {
    let _ = (query, limit);
    data_source_names
}

/// Add labels to an issue (the examples' other tool).
#[tool]
pub async fn label_issue(
    /// The issue number.
    number: u64,
    /// Labels to add.
    labels: Vec<String>,
) -> Result<String, String> {
    Ok(format!("#{number}: added {}", labels.join(", ")))
}

/// Ping the service (a tool without parameters).
#[tool]
pub fn ping() -> String {
    "pong".into()
}

/// A tool whose whole input is a recursive type: its schema's root is
/// referred to as `"$ref": "#"`.
pub fn grow() -> JsonTool {
    let schema = ToolSpec::of::<Tree>("grow", "").input_schema().clone();
    JsonTool::new(
        "grow",
        "Grow a tree.",
        schema,
        |args| async move { Ok(args) },
    )
    .expect("a schemars schema compiles")
}

/// Every tool, in a fixed order.
pub fn toolbox() -> Toolbox {
    let mut toolbox = Toolbox::new();
    toolbox
        .add(Search)
        .and_then(|t| t.add(Tag))
        .and_then(|t| t.add(Plant))
        .and_then(|t| t.add(SearchCode))
        .and_then(|t| t.add(LabelIssue))
        .and_then(|t| t.add(grow()))
        .and_then(|t| t.add(Ping))
        .expect("distinct names");
    toolbox
}

/// A tool with an MCP title and annotations.
pub fn annotated() -> JsonTool {
    let spec = ToolSpec::of::<Filter>("list_files", "List files.")
        .with_title("List files")
        .with_annotations(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        });
    JsonTool::from_spec(spec, |args| async move { Ok(args) }).expect("a schemars schema compiles")
}
