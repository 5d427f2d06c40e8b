//! Checks for your own tools, in your own `cargo test`.
//!
//! - [`check_exports`]: every tool of a toolbox can be declared in every
//!   dialect you name, or an [`ExportFailures`] listing each tool that
//!   cannot, with the dialect, the pointer into its schema and the reason.
//!   The rules are the ones canon's exporters enforce whenever a tool is
//!   declared ([`ToolSpec::export`](crate::toolbox::ToolSpec::export)):
//!   the providers' own rules, which canon's conformance suite
//!   (`tests/conformance` in canon's repository) holds to the providers'
//!   official validators.
//! - [`schemas`] and [`published_schemas`]: what each tool publishes, as
//!   one stable JSON value to snapshot (with `insta`, say), so a change
//!   to a tool's declaration shows in review.
//!
//! ```
//! use canon::export::Dialect;
//! use canon::{testing, tool, Toolbox};
//!
//! /// Search the notes.
//! #[tool]
//! fn search(
//!     /// What to look for.
//!     query: String,
//!     /// At most this many hits.
//!     limit: Option<u32>,
//! ) -> Vec<String> {
//!     vec![query; limit.unwrap_or(1) as usize]
//! }
//!
//! let mut toolbox = Toolbox::new();
//! toolbox.add(Search).unwrap();
//!
//! // In a #[test]: fails with one line per tool a provider would refuse.
//! testing::check_exports(&toolbox, &Dialect::ALL).unwrap();
//!
//! // With insta: insta::assert_json_snapshot!(testing::schemas(&toolbox, dialect));
//! let schemas = testing::schemas(&toolbox, Dialect::OpenAi { strict: true });
//! assert_eq!(schemas["search"]["function"]["strict"], true);
//! ```
//!
//! # A signature change that must not compile
//!
//! `#[tool]` refuses, at compile time, a parameter it cannot describe or
//! read (a type without `schemars::JsonSchema` or `serde::Deserialize`).
//! To pin such an error, use [trybuild](https://docs.rs/trybuild) as canon
//! does for its own (`tests/ui.rs` and `tests/ui/*.rs` in canon's
//! repository, `parameter_missing_derives.rs` for this very case): a
//! `tests/ui/signature_changed.rs` such as
//!
//! ```compile_fail
//! pub struct Filters {
//!     pub tag: String,
//! }
//!
//! /// Search the notes.
//! #[canon::tool]
//! fn search(query: String, filters: Filters) -> Vec<String> {
//!     let _ = filters;
//!     vec![query]
//! }
//!
//! fn main() {}
//! ```
//!
//! run by a `tests/ui.rs` holding
//! `trybuild::TestCases::new().compile_fail("tests/ui/*.rs")`, with the
//! expected error written once by `TRYBUILD=overwrite cargo test --test ui`
//! and committed as `tests/ui/signature_changed.stderr`. The message names
//! the parameter and what to derive; compiler messages change between Rust
//! releases, so run these tests on one pinned toolchain.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{json, Map, Value};

use crate::export::{Dialect, ExportError};
use crate::toolbox::Toolbox;

/// Every tool a dialect cannot express, from [`check_exports`]: one
/// [`ExportError`] per tool and dialect, in the order the dialects were
/// named, and the tools' registration order within each.
///
/// `Display` and `Debug` both give one line per failure, so a test that
/// calls `unwrap()` on [`check_exports`] fails with a readable message:
///
/// ```text
/// `search` in openai (strict): /properties/filters: an object with free-form members (a map); ...
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ExportFailures {
    /// The failures, each with its tool, dialect, pointer and reason.
    pub failures: Vec<ExportError>,
}

impl ExportFailures {
    /// The failures, each with its tool, dialect, pointer and reason.
    pub fn failures(&self) -> &[ExportError] {
        &self.failures
    }

    /// The names of the tools that failed, each once, in the order of their
    /// first failure.
    pub fn tools(&self) -> Vec<&str> {
        let mut tools: Vec<&str> = Vec::new();
        for failure in &self.failures {
            if !tools.contains(&failure.tool.as_str()) {
                tools.push(&failure.tool);
            }
        }
        tools
    }
}

impl fmt::Display for ExportFailures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, failure) in self.failures.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "`{}` in {}: ", failure.tool, failure.dialect.name())?;
            if !failure.pointer.is_empty() {
                write!(f, "{}: ", failure.pointer)?;
            }
            f.write_str(&failure.reason)?;
        }
        Ok(())
    }
}

/// The same lines as `Display`: `unwrap()` and a test returning the error
/// show them as they are.
impl fmt::Debug for ExportFailures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.failures.len();
        writeln!(
            f,
            "{n} tool declaration{} refused:",
            if n == 1 { "" } else { "s" }
        )?;
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for ExportFailures {}

/// Declares every tool of `toolbox` in each of `dialects` (a dialect named
/// twice is checked once), and collects every tool a dialect cannot
/// express: one bad tool does not hide another.
///
/// Each tool is exported on its own
/// ([`ToolSpec::export`](crate::toolbox::ToolSpec::export)), so the check
/// leaves the toolbox as it was: unlike
/// [`Toolbox::export`](crate::Toolbox::export) in a strict OpenAI dialect,
/// it does not switch the toolbox to binding that declaration's `null`s
/// (see [`Toolbox::declared_in`](crate::Toolbox::declared_in)). Pass
/// [`Dialect::ALL`] to check every dialect.
///
/// ```
/// use canon::export::Dialect;
/// use canon::{testing, tool, Toolbox};
/// use std::collections::HashMap;
///
/// /// Search with free-form filters.
/// #[tool]
/// fn search(query: String, filters: HashMap<String, String>) -> String {
///     query
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Search).unwrap();
/// assert!(testing::check_exports(&toolbox, &[Dialect::OpenAi { strict: false }]).is_ok());
///
/// let failures = testing::check_exports(&toolbox, &[Dialect::OpenAi { strict: true }])
///     .unwrap_err();
/// assert_eq!(failures.tools(), ["search"]);
/// assert_eq!(failures.failures[0].pointer, "/properties/filters");
/// assert!(failures.to_string().starts_with("`search` in openai (strict): /properties/filters: "));
/// ```
///
/// # Errors
/// [`ExportFailures`] listing every tool a dialect refuses, with the
/// dialect, the pointer into the tool's input schema and the reason.
pub fn check_exports(toolbox: &Toolbox, dialects: &[Dialect]) -> Result<(), ExportFailures> {
    let mut seen: Vec<Dialect> = Vec::new();
    let mut failures = Vec::new();
    for &dialect in dialects {
        if seen.contains(&dialect) {
            continue;
        }
        seen.push(dialect);
        failures.extend(
            toolbox
                .specs()
                .filter_map(|spec| spec.export(dialect).err()),
        );
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(ExportFailures { failures })
    }
}

/// Every tool's declaration in `dialect`, as one JSON object keyed by tool
/// name (sorted, so the value does not depend on the order tools were
/// added): the entry [`ToolSpec::export`](crate::toolbox::ToolSpec::export)
/// gives, for a snapshot test such as
/// `insta::assert_json_snapshot!(canon::testing::schemas(&toolbox, Dialect::OpenAi { strict: true }))`.
///
/// A tool the dialect cannot express appears in its place as
/// `{"error": {"pointer": "...", "reason": "..."}}` (no declaration has
/// an `error` member), so the snapshot shows the refusal instead of
/// failing before it is taken. Like [`check_exports`], this leaves the
/// toolbox's binding as it was.
///
/// ```
/// use canon::export::Dialect;
/// use canon::{testing, tool, Toolbox};
/// use serde_json::json;
///
/// /// Say hello.
/// #[tool]
/// fn greet(name: String) -> String {
///     format!("hello {name}")
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Greet).unwrap();
/// assert_eq!(
///     testing::schemas(&toolbox, Dialect::Anthropic { strict: false }),
///     json!({
///         "greet": {
///             "name": "greet",
///             "description": "Say hello.",
///             "input_schema": {
///                 "type": "object",
///                 "properties": {"name": {"type": "string"}},
///                 "required": ["name"],
///                 "additionalProperties": false
///             }
///         }
///     })
/// );
/// ```
pub fn schemas(toolbox: &Toolbox, dialect: Dialect) -> Value {
    keyed(toolbox.specs().map(|spec| {
        let entry = match spec.export(dialect) {
            Ok(declaration) => declaration,
            Err(error) => json!({
                "error": {"pointer": error.pointer, "reason": error.reason}
            }),
        };
        (spec.name(), entry)
    }))
}

/// Every tool's published input schema (the one canon binds against,
/// before any dialect rewrites it), as one JSON object keyed by tool name,
/// sorted: for a snapshot of the tools' contract whatever the provider.
///
/// ```
/// use canon::{testing, tool, Toolbox};
///
/// /// Say hello.
/// #[tool]
/// fn greet(name: String) -> String {
///     format!("hello {name}")
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Greet).unwrap();
/// let schemas = testing::published_schemas(&toolbox);
/// assert_eq!(schemas["greet"]["required"], serde_json::json!(["name"]));
/// ```
pub fn published_schemas(toolbox: &Toolbox) -> Value {
    keyed(
        toolbox
            .specs()
            .map(|spec| (spec.name(), spec.input_schema().clone())),
    )
}

/// An object of `entries` in the order of their keys (a `Map` keeps
/// insertion order when serde_json preserves order, as canon's build does).
fn keyed<'a>(entries: impl Iterator<Item = (&'a str, Value)>) -> Value {
    let sorted: BTreeMap<&str, Value> = entries.collect();
    Value::Object(
        sorted
            .into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect::<Map<String, Value>>(),
    )
}
