//! Telling a model about tools: the exact request fragment each provider
//! takes, from the one schema canon publishes.
//!
//! Each dialect is a small module of data transformation over
//! `serde_json::Value`, sharing the schema walker; the binder never sees a
//! dialect. Calls made against any export bind with the same plan: a
//! strict OpenAI export makes optional parameters required and nullable, and
//! the `null` a model then sends binds to `None`.

mod anthropic;
mod gemini;
mod mcp;
mod openai;

use std::fmt;

use serde_json::{json, Map, Value};

use crate::schema::walk;

pub use mcp::ToolAnnotations;

/// A provider's way of declaring tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions: `{"type": "function", "function": {...}}`.
    /// With `strict`, the schema follows Structured Outputs' rules.
    OpenAi {
        /// Ask the model to follow the schema exactly.
        strict: bool,
    },
    /// OpenAI Responses API: the flat `{"type": "function", "name", ...}`.
    OpenAiResponses {
        /// Ask the model to follow the schema exactly.
        strict: bool,
    },
    /// Anthropic Messages: `{"name", "description", "input_schema"}`.
    Anthropic {
        /// Strict tool use: only the keywords Anthropic enforces.
        strict: bool,
    },
    /// Gemini `functionDeclarations[]` with an OpenAPI 3.0 `parameters`
    /// (left out for a tool without parameters).
    Gemini,
    /// Gemini `functionDeclarations[]` with a JSON Schema
    /// `parametersJsonSchema`.
    GeminiJsonSchema,
    /// An MCP `tools/list` entry (revision 2025-11-25).
    Mcp,
}

impl Dialect {
    /// Every dialect, strict and not.
    pub const ALL: [Dialect; 9] = [
        Dialect::OpenAi { strict: false },
        Dialect::OpenAi { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::OpenAiResponses { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::Gemini,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// The dialect's name in errors: `openai (strict)`, `gemini`, `mcp`.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAi { strict: true } => "openai (strict)",
            Dialect::OpenAi { strict: false } => "openai",
            Dialect::OpenAiResponses { strict: true } => "openai responses (strict)",
            Dialect::OpenAiResponses { strict: false } => "openai responses",
            Dialect::Anthropic { strict: true } => "anthropic (strict)",
            Dialect::Anthropic { strict: false } => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::GeminiJsonSchema => "gemini (parametersJsonSchema)",
            Dialect::Mcp => "mcp",
        }
    }

    /// The same dialect without strict mode (itself when it has none).
    pub fn relaxed(self) -> Dialect {
        match self {
            Dialect::OpenAi { .. } => Dialect::OpenAi { strict: false },
            Dialect::OpenAiResponses { .. } => Dialect::OpenAiResponses { strict: false },
            Dialect::Anthropic { .. } => Dialect::Anthropic { strict: false },
            other => other,
        }
    }

    /// True for a strict dialect.
    pub fn is_strict(self) -> bool {
        self != self.relaxed()
    }
}

/// A tool that cannot be declared in a dialect: which tool, where in its
/// schema, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportError {
    /// The tool.
    pub tool: String,
    /// The dialect asked for.
    pub dialect: Dialect,
    /// RFC 6901 pointer into the tool's input schema (empty for the root or
    /// the name).
    pub pointer: String,
    /// What the dialect does not allow there.
    pub reason: String,
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            String::new()
        } else {
            format!(" at {}", self.pointer)
        };
        write!(
            f,
            "the tool `{}` cannot be declared for {}{at}: {}",
            self.tool,
            self.dialect.name(),
            self.reason
        )
    }
}

impl std::error::Error for ExportError {}

/// Where in a schema a dialect stopped, and why; the tool and dialect are
/// added by [`export`].
pub(crate) struct Refusal {
    pub(crate) pointer: String,
    pub(crate) reason: String,
}

impl Refusal {
    pub(crate) fn at(pointer: &str, reason: impl Into<String>) -> Refusal {
        Refusal {
            pointer: pointer.to_owned(),
            reason: reason.into(),
        }
    }
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
    fn name(&self) -> &str {
        self.name
    }

    fn description(&self) -> &str {
        self.description
    }

    fn input_schema(&self) -> &Value {
        self.input_schema
    }

    fn output_schema(&self) -> Option<&Value> {
        self.output_schema
    }

    fn title(&self) -> Option<&str> {
        self.title
    }

    fn annotations(&self) -> Option<&ToolAnnotations> {
        self.annotations
    }
}

/// The declaration of one tool in `dialect`.
pub(crate) fn export(spec: &Declaration<'_>, dialect: Dialect) -> Result<Value, ExportError> {
    let fail = |refusal: Refusal| ExportError {
        tool: spec.name().to_owned(),
        dialect,
        pointer: refusal.pointer,
        reason: refusal.reason,
    };
    check_name(spec.name(), dialect).map_err(fail)?;
    let schema = published(spec.input_schema());
    let name = spec.name();
    let description = spec.description();
    Ok(match dialect {
        Dialect::OpenAi { strict } => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": openai::parameters(schema, strict).map_err(fail)?,
                "strict": strict,
            }
        }),
        Dialect::OpenAiResponses { strict } => json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": openai::parameters(schema, strict).map_err(fail)?,
            "strict": strict,
        }),
        Dialect::Anthropic { strict } => {
            let mut tool = json!({
                "name": name,
                "description": description,
                "input_schema": anthropic::input_schema(schema, strict).map_err(fail)?,
            });
            if strict {
                tool["strict"] = Value::Bool(true);
            }
            tool
        }
        Dialect::Gemini => {
            let mut declaration = json!({
                "name": name,
                "description": description,
            });
            // A tool without parameters declares none: Gemini refuses an
            // OBJECT with empty `properties`.
            if let Some(parameters) = gemini::parameters(&schema).map_err(fail)? {
                declaration["parameters"] = parameters;
            }
            declaration
        }
        Dialect::GeminiJsonSchema => json!({
            "name": name,
            "description": description,
            "parametersJsonSchema": schema,
        }),
        Dialect::Mcp => mcp::entry(spec, schema).map_err(fail)?,
    })
}

/// The fragment a request takes for several tools: an array of tools for
/// OpenAI and Anthropic, `{"functionDeclarations": [...]}` for Gemini,
/// `{"tools": [...]}` (a `tools/list` result) for MCP.
pub(crate) fn wrap(dialect: Dialect, tools: Vec<Value>) -> Value {
    match dialect {
        Dialect::Gemini | Dialect::GeminiJsonSchema => json!({ "functionDeclarations": tools }),
        Dialect::Mcp => json!({ "tools": tools }),
        _ => Value::Array(tools),
    }
}

/// A tool name as each dialect allows it.
fn check_name(name: &str, dialect: Dialect) -> Result<(), Refusal> {
    let (max, extra, rule): (usize, &[char], &str) = match dialect {
        Dialect::OpenAi { .. } | Dialect::OpenAiResponses { .. } | Dialect::Anthropic { .. } => {
            (64, &['_', '-'], "1 to 64 of A-Z, a-z, 0-9, `_` and `-`")
        }
        Dialect::Gemini | Dialect::GeminiJsonSchema => (
            128,
            &['_', '.', ':', '-'],
            "1 to 128 of A-Z, a-z, 0-9, `_`, `.`, `:` and `-`",
        ),
        Dialect::Mcp => (
            128,
            &['_', '.', '-'],
            "1 to 128 of A-Z, a-z, 0-9, `_`, `.` and `-`",
        ),
    };
    match name_problem(name, max, extra) {
        Some(problem) => Err(Refusal::at(
            "",
            format!("the name `{name}` is not allowed ({problem}); a name is {rule}"),
        )),
        None => Ok(()),
    }
}

/// Why `name` is not 1 to `max` of ASCII letters, digits and `extra`, if
/// it is not.
pub(crate) fn name_problem(name: &str, max: usize, extra: &[char]) -> Option<String> {
    let count = name.chars().count();
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || extra.contains(c)));
    match bad {
        _ if count == 0 => Some("it is empty".to_owned()),
        _ if count > max => Some(format!("it has {count} characters")),
        Some(c) => Some(format!("it contains {c:?}")),
        None => None,
    }
}

/// The schema as published, without what no dialect wants at its root.
fn published(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(root) = schema.as_object_mut() {
        root.remove("$schema");
        root.remove("title");
    }
    schema
}

/// Rewrites every schema under `schema` (children first), `f` seeing each
/// with its pointer (boolean schemas too, but a boolean
/// `additionalProperties`).
pub(crate) fn post_order(
    schema: &mut Value,
    at: &str,
    f: &mut impl FnMut(&mut Value, &str) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    if let Value::Object(obj) = schema {
        walk::children_mut(obj, |key, rel, sub| {
            // `additionalProperties: false` closes an object; it is not a
            // schema a value at some position must meet.
            if key == "additionalProperties" && sub.is_boolean() {
                return Ok(());
            }
            post_order(sub, &format!("{at}{rel}"), f)
        })?;
    }
    f(schema, at)
}

/// How many times a `$ref` beside other keywords is inlined inside
/// another; deeper, the keywords beside it are dropped instead.
const MAX_UNRAVEL: usize = 8;

/// A `$ref` beside other keywords (`{"$ref": ..., "description": ...}`),
/// which strict dialects refuse, as its definition with those keywords
/// laid over it, so the description reaches the model. `None` when `obj`
/// has no such `$ref`, or it names no definition.
fn unravel(obj: &Map<String, Value>, root: &Value) -> Option<Value> {
    let reference = obj.get("$ref")?.as_str()?;
    if obj.keys().all(|k| k == "$ref" || k == "$defs") {
        return None;
    }
    let Value::Object(mut target) = resolve(root, reference)?.clone() else {
        return None;
    };
    target.remove("$defs");
    for (k, v) in obj {
        if k != "$ref" && k != "$defs" {
            lay_over(&mut target, k.clone(), v.clone());
        }
    }
    Some(Value::Object(target))
}

/// Lays keyword `key` of a schema beside a `$ref` over the definition the
/// `$ref` names: both hold, so their `properties` are merged and their
/// `required` joined (an internally tagged variant's tag beside its
/// struct's members); any other keyword beside the `$ref` (its
/// description) wins.
pub(crate) fn lay_over(target: &mut Map<String, Value>, key: String, value: Value) {
    match (key.as_str(), target.get_mut(&key), value) {
        ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
            for (name, schema) in theirs {
                mine.insert(name, schema);
            }
        }
        ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
            for name in theirs {
                if !mine.contains(&name) {
                    mine.push(name);
                }
            }
        }
        (_, _, value) => {
            target.insert(key, value);
        }
    }
}

/// The first steps of both strict dialects: `oneOf` read as `anyOf`, and a
/// `$ref` left alone (inlined, then rewritten with `again`, when keywords
/// stand beside it). True when the schema was a `$ref`: nothing is left to
/// do.
pub(crate) fn strict_ref(
    schema: &mut Value,
    at: &str,
    root: &Value,
    depth: usize,
    again: &mut dyn FnMut(&mut Value, &str, usize) -> Result<(), Refusal>,
) -> Result<bool, Refusal> {
    let Value::Object(obj) = schema else {
        return Ok(false);
    };
    if let Some(one_of) = obj.remove("oneOf") {
        obj.insert("anyOf".into(), one_of);
    }
    if depth < MAX_UNRAVEL {
        if let Some(mut inlined) = unravel(obj, root) {
            post_order(&mut inlined, at, &mut |s, at| again(s, at, depth + 1))?;
            *schema = inlined;
            return Ok(true);
        }
    }
    if obj.contains_key("$ref") {
        obj.retain(|k, _| k == "$ref" || k == "$defs");
        return Ok(true);
    }
    Ok(false)
}

/// Refuses an object whose members are split between its `properties` and
/// a union beside them (a flattened enum): strict mode closes each schema
/// on its own, which no call could then match.
pub(crate) fn split_members(obj: &Map<String, Value>, at: &str) -> Result<(), Refusal> {
    match ["anyOf", "oneOf", "allOf"]
        .iter()
        .find(|k| obj.contains_key(**k))
    {
        Some(key) if obj.contains_key("properties") => Err(Refusal::at(
            at,
            format!(
                "an object whose members are split between its `properties` and the `{key}` beside them \
                 (a flattened enum); strict mode closes each on its own, so no call could match"
            ),
        )),
        _ => Ok(()),
    }
}

/// The local definition a `$ref` names (`#`, `#/$defs/X`, any pointer).
pub(crate) use crate::schema::refs::target as resolve;

/// The `type` keyword as a list of names.
pub(crate) fn types(obj: &Map<String, Value>) -> Vec<&str> {
    obj.get("type")
        .and_then(crate::schema::types::listed)
        .unwrap_or_default()
}

/// The root of a declaration `provider` takes: one object schema, with
/// `"type": "object"`, not a union of them (a tool whose arguments are an
/// enum).
pub(crate) fn object_root(schema: &Value, provider: &str) -> Result<(), Refusal> {
    let Value::Object(root) = schema else {
        return Err(Refusal::at("", "the input schema is not an object schema"));
    };
    if let Some(key) = ["anyOf", "oneOf", "allOf"]
        .iter()
        .find(|k| root.contains_key(**k))
    {
        return Err(Refusal::at(
            "",
            format!("`{key}` at the root: {provider} takes one object schema there"),
        ));
    }
    if root.get("type") != Some(&Value::String("object".into())) {
        return Err(Refusal::at(
            "",
            "the input schema must have `\"type\": \"object\"`",
        ));
    }
    Ok(())
}

/// Where a `$ref` first closes a cycle of references (a recursive type),
/// and the reference: `None` when no reference leads back to itself.
/// Each definition is walked once.
pub(crate) fn recursion(root: &Value) -> Option<(String, String)> {
    fn visit(
        root: &Value,
        node: &Value,
        at: &str,
        stack: &mut Vec<String>,
        done: &mut std::collections::HashSet<String>,
        depth: usize,
    ) -> Option<(String, String)> {
        if depth > crate::schema::MAX_DEPTH {
            return None;
        }
        let Value::Object(obj) = node else {
            return None;
        };
        if let Some(Value::String(reference)) = obj.get("$ref") {
            if stack.contains(reference) {
                return Some((at.to_owned(), reference.clone()));
            }
            if !done.contains(reference) {
                if let Some(target) = resolve(root, reference) {
                    stack.push(reference.clone());
                    let found = visit(root, target, at, stack, done, depth + 1);
                    stack.pop();
                    if found.is_some() {
                        return found;
                    }
                    done.insert(reference.clone());
                }
            }
        }
        // The schemas below this one (not its definitions: those are
        // reached through the references that use them).
        let below = walk::children(obj, |key, rel, sub| {
            if matches!(key, "$defs" | "definitions") {
                return Ok(());
            }
            match visit(root, sub, &format!("{at}{rel}"), stack, done, depth + 1) {
                Some(found) => Err(found),
                None => Ok(()),
            }
        });
        below.err()
    }
    visit(
        root,
        root,
        "",
        &mut Vec::new(),
        &mut std::collections::HashSet::new(),
        0,
    )
}
