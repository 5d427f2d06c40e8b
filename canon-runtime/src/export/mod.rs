//! Telling a model about tools: the exact request fragment each provider
//! takes, from the one schema canon publishes.
//!
//! Each dialect is a small module of data transformation over
//! `serde_json::Value`, sharing the schema walker; the binder never sees a
//! dialect. Calls made against any export bind with the same plan: a
//! strict OpenAI export makes optional parameters required and nullable, and
//! the `null` a model then sends binds to `None`.

mod anthropic;
mod declaration;
mod gemini;
mod mcp;
mod openai;
mod shared;

use std::fmt;

use serde_json::{json, Value};

pub(crate) use declaration::Declaration;
pub use declaration::ToolAnnotations;
pub(crate) use shared::lay_over;
use shared::{name_problem, published, Refusal};

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
