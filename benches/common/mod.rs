//! What both benchmarks bind: the tool, its strict twin, and the two calls.

use canon::tool;
use serde::Deserialize;

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
