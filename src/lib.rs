//! canon: tolerant tool binders for Rust agents.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use canon_runtime::*;

#[doc(hidden)]
pub mod __private {
    pub use canon_runtime::__private::*;
}
