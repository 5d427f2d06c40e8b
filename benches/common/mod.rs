//! What both benchmarks bind: the tools, their strict twins, and the calls.

use canon::tool;
use serde::Deserialize;
use serde_json::Value;

/// Search code in the given data sources.
#[tool]
pub fn search_code(data_source_names: Vec<String>, query: String, limit: Option<u32>) -> usize {
    data_source_names.len() + query.len() + limit.unwrap_or(0) as usize
}

/// The same arguments as a plain serde struct.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct Strict {
    pub data_source_names: Vec<String>,
    pub query: String,
    pub limit: Option<u32>,
}

/// The valid call: two repositories.
pub const VALID: &str =
    r#"{"data_source_names": ["dotnet/eshop", "dotnet/runtime"], "query": "basket", "limit": 10}"#;
/// The near miss: one repository as a bare string.
pub const NEAR_MISS: &str =
    r#"{"data_source_names": "dotnet/eshop", "query": "basket", "limit": 10}"#;

/// Store a record: a map and free JSON, whose keys canon checks for repeats.
#[tool]
pub fn store(
    labels: std::collections::HashMap<String, String>,
    payload: serde_json::Value,
    tags: Vec<String>,
) -> usize {
    labels.len() + tags.len() + usize::from(payload.is_null())
}

/// The arguments of `store` as a plain serde struct.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct StrictStore {
    pub labels: std::collections::HashMap<String, String>,
    pub payload: serde_json::Value,
    pub tags: Vec<String>,
}

/// A valid `store` call: four labels, and free JSON two objects deep.
pub const STORE_VALID: &str = r#"{"labels": {"team": "search", "tier": "1", "owner": "ana", "env": "prod"}, "payload": {"id": 7, "source": {"repo": "dotnet/eshop", "paths": ["src", "tests"]}}, "tags": ["a", "b"]}"#;

/// A tool whose schema asserts more than types: bounds, lengths, an item
/// count and an enum, each checked by canon in the single pass.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct Tune {
    #[schemars(range(min = 1, max = 11))]
    pub level: u32,
    #[schemars(range(min = 0.0, max = 2.5))]
    pub ratio: f64,
    #[schemars(length(min = 2, max = 16))]
    pub name: String,
    #[schemars(length(max = 4))]
    pub tags: Vec<String>,
    pub mode: Mode,
}

/// A unit enum: a string enum in the schema.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum Mode {
    Fast,
    Safe,
}

/// The spec canon binds `Tune` with.
pub fn tune_spec() -> &'static canon::toolbox::ToolSpec {
    static SPEC: std::sync::OnceLock<canon::toolbox::ToolSpec> = std::sync::OnceLock::new();
    SPEC.get_or_init(|| canon::toolbox::ToolSpec::of::<Tune>("tune", "Tune the engine."))
}

/// A valid `tune` call: every assertion holds.
pub const TUNE_VALID: &str =
    r#"{"level": 7, "ratio": 1.5, "name": "engine-a", "tags": ["x", "y"], "mode": "safe"}"#;

/// The seed's middleware, the way to do it without canon: each string
/// where the schema says array of strings rewritten in place as a
/// one-element array (following `$ref`, `properties` and `items`), its
/// path kept; the caller then binds the rewritten tree. (Not every
/// benchmark uses it.)
#[allow(dead_code)]
pub fn rewrite(
    root: &Value,
    schema: &Value,
    value: &mut Value,
    at: String,
    repairs: &mut Vec<String>,
) {
    let mut schema = schema;
    while let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| root.pointer(r.trim_start_matches('#')))
    {
        schema = target;
    }
    let is_array = match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    };
    let string_items = schema.pointer("/items/type") == Some(&Value::from("string"));
    match value {
        Value::String(s) if is_array && string_items && !s.trim().is_empty() => {
            *value = Value::Array(vec![Value::String(std::mem::take(s))]);
            repairs.push(at);
        }
        Value::Object(members) => {
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (key, sub) in props {
                    if let Some(child) = members.get_mut(key) {
                        rewrite(root, sub, child, format!("{at}/{key}"), repairs);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    rewrite(root, sub, item, format!("{at}/{i}"), repairs);
                }
            }
        }
        _ => {}
    }
}
