//! The runtime of canon: the [`Tool`] trait, binding plans, repairs and the
//! errors a model reads. Use it through the `canon` crate, which re-exports
//! everything here together with the `#[tool]` attribute.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bind;
pub mod export;
mod feedback;
mod limits;
#[cfg(feature = "rmcp")]
pub mod mcp;
mod repair;
#[cfg(feature = "rig")]
pub mod rig;
mod schema;
pub mod testing;
pub mod toolbox;
mod wire;

#[cfg(feature = "anthropic")]
pub use wire::anthropic;
#[cfg(feature = "gemini")]
pub use wire::gemini;
#[cfg(feature = "openai")]
pub use wire::openai;

#[doc(hidden)]
pub mod __private;

pub use bind::canonical::Canonicalizer;
pub use bind::policy::Policy;
pub use feedback::{BindError, Violation};
pub use limits::Limits;
pub use repair::{Bound, Repair, RepairRule, Repairs};
pub use toolbox::context::Context;
pub use toolbox::json_tool::JsonTool;
pub use toolbox::tool::Tool;
pub use toolbox::{CallResult, ToolCall, ToolOutcome, Toolbox};
