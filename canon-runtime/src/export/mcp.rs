//! MCP `tools/list` entries, revision 2025-11-25: `inputSchema` (and
//! `outputSchema`, when the tool's output is an object) as JSON Schema
//! 2020-12 object schemas.

use serde_json::{json, Value};

use super::declaration::Declaration;
use super::shared::{published, Refusal};

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
