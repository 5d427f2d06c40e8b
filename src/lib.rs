//! canon: tolerant tool binders for Rust agents.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use canon_macros::tool;
pub use canon_runtime::*;

/// schemars, re-exported: `#[schemars(crate = "canon::schemars")]`.
pub use canon_runtime::__private::schemars;
/// serde, re-exported so tools can derive its traits with `#[serde(crate = "canon::serde")]`.
pub use canon_runtime::__private::serde;
/// serde_json, re-exported.
pub use canon_runtime::__private::serde_json;

#[doc(hidden)]
pub mod __private {
    pub use canon_runtime::__private::*;
}
