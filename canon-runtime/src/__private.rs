//! Items used by code that `#[tool]` generates. Not a public API.

pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

use serde::de::DeserializeOwned;

/// Asserts, at the span of a parameter's type, that it can be a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on the type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait Param: DeserializeOwned + schemars::JsonSchema {}

impl<T: DeserializeOwned + schemars::JsonSchema> Param for T {}

/// Called with each parameter type so that a missing trait is reported on it.
pub const fn assert_param<T: Param>() {}

/// A function's return type when it is written `Result<T, E>`.
pub trait ToolResult {
    /// The success type.
    type Ok;
    /// The error type.
    type Err;
    /// The value as a `Result`.
    fn into_result(self) -> Result<Self::Ok, Self::Err>;
}

impl<T, E> ToolResult for Result<T, E> {
    type Ok = T;
    type Err = E;
    fn into_result(self) -> Result<T, E> {
        self
    }
}
