//! The runtime of canon: the [`Tool`] trait, binding plans, repairs and the
//! errors a model reads. Use it through the `canon` crate, which re-exports
//! everything here together with the `#[tool]` attribute.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod canonical;
mod check;
mod constraint;
mod context;
mod diagnose;
mod error;
mod export;
mod json;
mod json_tool;
mod limits;
#[cfg(feature = "rmcp")]
pub mod mcp;
mod plan;
mod pointer;
mod policy;
#[cfg(test)]
mod proptests;
mod prune;
mod repair;
mod rule;
mod spec;
mod telemetry;
mod tolerant;
mod tool;
mod toolbox;
mod types;
mod walk;

#[doc(hidden)]
pub mod __private;

pub use canonical::{Canonicalizer, CanonicalizerOptions, SchemaError};
pub use context::{CallContext, Context, ContextError};
pub use error::{
    BindError, CallError, JsonType, Received, Violation, ViolationKind, PREVIEW_CHARS,
};
pub use export::{Dialect, ExportError, ToolAnnotations};
pub use json_tool::JsonTool;
pub use limits::Limits;
pub use plan::Plan;
pub use policy::{Policy, UnknownRule};
pub use repair::{Bound, Repair, RepairRule};
pub use spec::ToolSpec;
pub use tool::Tool;
pub use toolbox::{
    Arguments, BoxFuture, CallResult, DuplicateTool, DynTool, ToolCall, ToolMessage, ToolOutcome,
    ToolStats, Toolbox,
};
