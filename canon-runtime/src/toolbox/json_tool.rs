//! Tools known only by a JSON Schema, run by a function over
//! `serde_json::Value`.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::bind::canonical::SchemaError;
use crate::bind::policy::Policy;
use crate::repair::Bound;
use crate::toolbox::context::CallContext;
use crate::toolbox::spec::ToolSpec;
use crate::toolbox::{BoxFuture, DynTool, ToolOutcome};

type JsonHandler = dyn Fn(Value) -> BoxFuture<'static, Result<Value, String>> + Send + Sync;

/// A tool defined by a JSON Schema and a function over `serde_json::Value`:
/// a tool from an MCP server or another service, bound with the same rule.
///
/// ```
/// use canon::{JsonTool, Toolbox, ToolCall};
/// use serde_json::json;
///
/// let echo = JsonTool::new(
///     "echo",
///     "Repeat the words.",
///     json!({"type": "object",
///            "properties": {"words": {"type": "array", "items": {"type": "string"}}},
///            "required": ["words"]}),
///     |args| async move { Ok(args["words"].clone()) },
/// )
/// .unwrap();
/// let mut toolbox = Toolbox::new();
/// toolbox.add(echo).unwrap();
/// ```
///
/// The schema is all that checks a call's arguments, so a schema that does
/// not compile is refused when the tool is built, naming the keyword:
///
/// ```
/// use canon::JsonTool;
/// use serde_json::json;
///
/// let error = JsonTool::new(
///     "lookup",
///     "Look up an id.",
///     json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "(["}}}),
///     |args| async move { Ok(args) },
/// )
/// .err()
/// .unwrap();
/// assert_eq!(error.keyword(), "pattern");
/// assert_eq!(error.pointer(), "/properties/id/pattern");
/// ```
pub struct JsonTool {
    spec: ToolSpec,
    handler: Arc<JsonHandler>,
}

impl JsonTool {
    /// A tool named `name`, whose arguments follow `schema`, run by
    /// `handler` on the bound arguments; an `Err` is the tool's own error.
    ///
    /// # Errors
    /// A [`SchemaError`] naming the keyword and its pointer when `schema`
    /// does not compile (an invalid `pattern`, a keyword of the wrong type):
    /// such a tool would run every call unchecked.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        handler: F,
    ) -> Result<Self, SchemaError>
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, String>> + Send + 'static,
    {
        JsonTool::from_spec(
            ToolSpec::new(name.into(), description.into(), schema),
            handler,
        )
    }

    /// A tool described by `spec` (with a title, annotations or a policy of
    /// its own), run by `handler`.
    ///
    /// # Errors
    /// As [`new`](Self::new), from [`ToolSpec::check_schema`].
    pub fn from_spec<F, Fut>(spec: ToolSpec, handler: F) -> Result<Self, SchemaError>
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, String>> + Send + 'static,
    {
        spec.check_schema()?;
        Ok(JsonTool {
            spec,
            handler: Arc::new(move |args| Box::pin(handler(args))),
        })
    }
}

impl std::fmt::Debug for JsonTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonTool")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

impl DynTool for JsonTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(
        &'a self,
        args: &'a Value,
        context: &'a CallContext,
        policy: Policy,
    ) -> BoxFuture<'a, ToolOutcome> {
        self.invoke_within(args, context, policy, usize::MAX)
    }

    fn invoke_within<'a>(
        &'a self,
        args: &'a Value,
        _: &'a CallContext,
        policy: Policy,
        max_repairs: usize,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let bound = self
                .spec
                .within_repairs(|| self.spec.bind_json_with(args, policy), max_repairs);
            let Bound { args, repairs } = match bound {
                Ok(bound) => bound,
                Err(error) => return ToolOutcome::Rejected(error),
            };
            let outcome = match (self.handler)(args).await {
                Ok(output) => ToolOutcome::Ran { output, repairs },
                Err(message) => ToolOutcome::Failed { message },
            };
            super::ran(&self.spec, outcome)
        })
    }
}
