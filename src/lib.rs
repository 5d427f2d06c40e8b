//! canon: tolerant tool binders for Rust agents.
//!
//! Declare a tool with [`#[tool]`](tool) on a function. canon derives its
//! argument struct, publishes an exact JSON Schema for the model, and binds
//! the model's arguments with one narrow tolerance: wherever the schema says
//! *array of strings* and the model sent one string, the string is bound as
//! a one-element array, and the repair is recorded. Nothing else is
//! rewritten. A call that still cannot be bound gets a [`BindError`] that
//! lists every violation with its JSON Pointer, in words a model can act on.
//!
//! ```
//! use canon::{tool, Tool};
//! use serde_json::json;
//!
//! /// Search code in the given data sources.
//! #[tool]
//! pub fn search_code(
//!     /// Repositories to search, like "dotnet/eshop".
//!     data_source_names: Vec<String>,
//!     /// What to look for.
//!     query: String,
//!     /// At most this many hits.
//!     limit: Option<u32>,
//! ) -> Vec<String> {
//!     data_source_names
//! }
//!
//! // The schema stays exact: an array of strings, never `string | string[]`.
//! assert_eq!(
//!     SearchCode.input_schema()["properties"]["data_source_names"]["type"],
//!     "array"
//! );
//!
//! // A near miss binds, and says what was repaired.
//! let bound = SearchCode
//!     .bind(&json!({"data_source_names": "dotnet/eshop", "query": "basket"}))
//!     .unwrap();
//! assert_eq!(bound.args.data_source_names, ["dotnet/eshop"]);
//! assert_eq!(bound.repairs[0].pointer, "/data_source_names");
//!
//! // Anything else is refused with every violation at once.
//! let error = SearchCode.bind_str(r#"{"limit": "ten"}"#).err().unwrap();
//! assert_eq!(error.pointers(), ["/data_source_names", "/limit", "/query"]);
//! assert!(error.to_string().starts_with("The call to `search_code` was not run."));
//! ```
//!
//! # The binding rule
//! - Tolerant positions come from the published schema: every position whose
//!   schema is an array of strings (at any depth, through `$ref`, nullable
//!   arrays, sets, string enums, maps' values, flattened and renamed
//!   fields). A union that already accepts a string is left alone.
//! - A string `s` there becomes `[s]`, recorded as a [`Repair`] with rule
//!   [`RepairRule::ScalarToArray`] and emitted as a `tracing` event (target
//!   `canon::repair`; tool, pointer and rule, never the value).
//! - A blank string, or one holding the text of a list (a JSON array, or a
//!   list literal such as `['a', 'b']`), is not wrapped:
//!   it is a violation, with what to send instead.
//! - Nothing else changes: no comma splitting, no number/bool/string
//!   coercion, no null-to-empty, no renaming.
//! - A rejected call emits one `tracing` event (target `canon::reject`) with
//!   the tool name and the violation pointers.
//!
//! Valid calls are bound in one pass over the input, guided by a
//! [`Plan`](toolbox::Plan)
//! compiled once per tool; the schema validator runs only after a failure.
//!
//! # Beyond the core rule
//! - Opt-in rules (`json_text`, `number_text`, `bool_text`,
//!   `null_as_absent`), enabled by name on a [`Policy`], a [`Toolbox`], or
//!   one tool with `#[tool(repair(...))]`.
//! - [`Canonicalizer`]: the same binder for tools known only by a JSON
//!   Schema (MCP servers, other services).
//! - [`Toolbox::export`] (and [`ToolSpec::export`](toolbox::ToolSpec::export)
//!   for one tool): the tools declared in the dialect each provider takes
//!   ([`export::Dialect`]).
//! - [`Limits`]: bounds on text size, depth, repairs and listed violations.
//! - With the `rmcp` feature, `canon::mcp`: a toolbox served over MCP, and
//!   tolerant binding for an rmcp `ToolRouter`.
//!
//! # Where things are
//! The crate root holds what nearly every program names: the attributes,
//! [`Tool`], [`Context`], [`Toolbox`] with [`ToolCall`], [`ToolOutcome`]
//! and [`CallResult`], binding's [`Bound`], [`Repairs`], [`Repair`],
//! [`RepairRule`], [`BindError`], [`Violation`], [`Policy`] and
//! [`Limits`], and the binders for tools known only by a schema,
//! [`JsonTool`] and [`Canonicalizer`].
//! [`toolbox`] holds the parts of tools and calls (specs, plans, contexts,
//! outcomes, stats, the details of a violation), and [`export`] the
//! provider dialects.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use canon_macros::{tool, tools};
pub use canon_runtime::*;

/// schemars, re-exported: `#[schemars(crate = "canon::schemars")]`.
pub use canon_runtime::__private::schemars;
/// serde, re-exported: derive its traits on your own parameter types with
/// `#[serde(crate = "canon::serde")]` and no serde dependency of your own.
pub use canon_runtime::__private::serde;
/// serde_json, re-exported.
pub use canon_runtime::__private::serde_json;

#[doc(hidden)]
pub mod __private {
    pub use canon_runtime::__private::*;
}
