//! MCP `tools/list` entries, revision 2025-11-25: `inputSchema` (and
//! `outputSchema`, when the tool's output is an object) as JSON Schema
//! 2020-12 object schemas.

use serde::Serialize;
use serde_json::{json, Value};

use super::{published, Declaration, Refusal};

/// Hints about a tool's behaviour, for MCP clients (`annotations`). Every
/// field is optional; clients treat them as hints, never as guarantees.
///
/// ```
/// use canon::export::ToolAnnotations;
///
/// let hints = ToolAnnotations {
///     read_only_hint: Some(true),
///     ..ToolAnnotations::default()
/// };
/// assert_eq!(serde_json::to_value(&hints).unwrap(), serde_json::json!({"readOnlyHint": true}));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches beyond a closed domain (the web, say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

pub(super) fn entry(spec: &Declaration<'_>, input: Value) -> Result<Value, Refusal> {
    if input.get("type") != Some(&json!("object")) {
        return Err(Refusal::at(
            "",
            "an MCP inputSchema must be an object schema (`\"type\": \"object\"`)",
        ));
    }
    let mut entry = serde_json::Map::new();
    entry.insert("name".into(), json!(spec.name()));
    if let Some(title) = spec.title() {
        entry.insert("title".into(), json!(title));
    }
    entry.insert("description".into(), json!(spec.description()));
    entry.insert("inputSchema".into(), input);
    // Structured content is an object: an output of another type has no
    // outputSchema and travels as text.
    if let Some(output) = spec.output_schema().map(published) {
        if output.get("type") == Some(&json!("object")) {
            entry.insert("outputSchema".into(), output);
        }
    }
    if let Some(annotations) = spec.annotations() {
        if let Ok(value) = serde_json::to_value(annotations) {
            entry.insert("annotations".into(), value);
        }
    }
    Ok(Value::Object(entry))
}
