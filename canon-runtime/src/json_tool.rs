//! Tools known only by a JSON Schema, run by a function over
//! `serde_json::Value`.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::context::CallContext;
use crate::policy::Policy;
use crate::repair::Bound;
use crate::spec::ToolSpec;
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
/// );
/// let mut toolbox = Toolbox::new();
/// toolbox.add(echo).unwrap();
/// ```
pub struct JsonTool {
    spec: ToolSpec,
    handler: Arc<JsonHandler>,
}

impl JsonTool {
    /// A tool named `name`, whose arguments follow `schema`, run by
    /// `handler` on the bound arguments; an `Err` is the tool's own error.
    pub fn new<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        handler: F,
    ) -> Self
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
    pub fn from_spec<F, Fut>(spec: ToolSpec, handler: F) -> Self
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, String>> + Send + 'static,
    {
        JsonTool {
            spec,
            handler: Arc::new(move |args| Box::pin(handler(args))),
        }
    }
}

impl DynTool for JsonTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn invoke<'a>(
        &'a self,
        args: &'a Value,
        _: &'a CallContext,
        policy: Policy,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let Bound { args, repairs } = match self.spec.bind_json_with(args, policy) {
                Ok(bound) => bound,
                Err(error) => return ToolOutcome::Rejected(error),
            };
            match (self.handler)(args).await {
                Ok(output) => ToolOutcome::Ran { output, repairs },
                Err(message) => ToolOutcome::Failed { message },
            }
        })
    }
}
