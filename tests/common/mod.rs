//! Tools and types shared by the integration tests: one of every kind of
//! tolerant position the core rule covers.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use canon::tool;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hit {
    pub repo: String,
    pub path: String,
}

/// Search code in the given data sources.
#[tool]
pub fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> Vec<Hit> {
    data_source_names
        .into_iter()
        .take(limit.unwrap_or(10) as usize)
        .map(|repo| Hit {
            path: format!("src/{query}.cs"),
            repo,
        })
        .collect()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Go,
    Python,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    pub labels: Vec<String>,
    /// A key that needs escaping in a JSON Pointer.
    #[serde(rename = "path/globs~")]
    pub globs: Option<Vec<String>>,
    pub min_stars: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Paging {
    pub cursor: Option<String>,
    pub fields: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Query {
    pub text: String,
    #[serde(flatten)]
    pub paging: Paging,
}

/// Already accepts a string: never rewritten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    pub name: String,
    pub tags: Vec<String>,
    pub children: Vec<Tree>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Action {
    Label { names: Vec<String> },
    Close,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind")]
pub enum Target {
    Repo { names: Vec<String> },
    Org { org: String },
}

/// Every kind of position, as a plain serde type (for property tests and
/// for `ToolSpec` used without the macro).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rich {
    pub names: Vec<String>,
    pub maybe_names: Option<Vec<String>>,
    pub set: HashSet<String>,
    pub ordered: BTreeSet<String>,
    pub langs: Vec<Lang>,
    pub filter: Filter,
    pub maybe_filter: Option<Filter>,
    pub filters: Vec<Filter>,
    pub groups: HashMap<String, Vec<String>>,
    pub sorted_groups: BTreeMap<String, Vec<String>>,
    #[serde(rename = "renamed")]
    pub original: Vec<String>,
    pub query: Query,
    pub either: OneOrMany,
    pub tree: Option<Tree>,
    pub action: Option<Action>,
    pub target: Option<Target>,
    pub count: u32,
    pub note: String,
}

/// Every kind of position, as a tool.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn survey(
    names: Vec<String>,
    maybe_names: Option<Vec<String>>,
    set: HashSet<String>,
    ordered: BTreeSet<String>,
    langs: Vec<Lang>,
    filter: Filter,
    maybe_filter: Option<Filter>,
    filters: Vec<Filter>,
    groups: HashMap<String, Vec<String>>,
    query: Query,
    either: OneOrMany,
    tree: Option<Tree>,
    action: Option<Action>,
    target: Option<Target>,
    count: u32,
) -> usize {
    let _ = (
        names,
        maybe_names,
        set,
        ordered,
        langs,
        filter,
        maybe_filter,
        filters,
        groups,
        query,
        either,
        tree,
        action,
        target,
    );
    count as usize
}

/// A parameter read as bytes (`deserialize_bytes`), published as a string.
#[derive(Debug, PartialEq)]
pub struct Raw(pub Vec<u8>);

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Raw;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Raw, E> {
                Ok(Raw(v.to_vec()))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Raw, E> {
                Ok(Raw(v.as_bytes().to_vec()))
            }
        }
        de.deserialize_bytes(Bytes)
    }
}

impl JsonSchema for Raw {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Raw".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}
