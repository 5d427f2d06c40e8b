//! What an exporter reads of a tool: its name, words, schemas and hints,
//! with nothing of how its calls are bound.

use serde::Serialize;
use serde_json::Value;

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

/// What an exporter reads of a tool: its name, words and schemas, with
/// nothing of how its calls are bound.
#[derive(Clone, Copy)]
pub(crate) struct Declaration<'a> {
    /// The tool's name.
    pub(crate) name: &'a str,
    /// What the tool does, for the model.
    pub(crate) description: &'a str,
    /// The published input schema.
    pub(crate) input_schema: &'a Value,
    /// The published output schema, if any.
    pub(crate) output_schema: Option<&'a Value>,
    /// A title for people (MCP).
    pub(crate) title: Option<&'a str>,
    /// Hints about the tool's behaviour (MCP).
    pub(crate) annotations: Option<&'a ToolAnnotations>,
}

impl Declaration<'_> {
    pub(super) fn name(&self) -> &str {
        self.name
    }

    pub(super) fn description(&self) -> &str {
        self.description
    }

    pub(super) fn input_schema(&self) -> &Value {
        self.input_schema
    }

    pub(super) fn output_schema(&self) -> Option<&Value> {
        self.output_schema
    }

    pub(super) fn title(&self) -> Option<&str> {
        self.title
    }

    pub(super) fn annotations(&self) -> Option<&ToolAnnotations> {
        self.annotations
    }
}
