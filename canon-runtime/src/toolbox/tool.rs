//! The tool trait.

use std::fmt::Display;
use std::future::Future;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::bind::policy::Policy;
use crate::feedback::{BindError, CallError};
use crate::repair::{Bound, Repairs};
use crate::toolbox::context::CallContext;
use crate::toolbox::spec::ToolSpec;

/// A tool a model can call: a name, a description, an input schema, and a
/// function run on arguments bound tolerantly from the model's JSON.
///
/// `#[tool]` implements it for a unit struct named after the function
/// (`search_code` → `SearchCode`). Implement it by hand for a tool whose
/// arguments type you write yourself: provide [`spec`](Tool::spec) and
/// [`run`](Tool::run), and every other method follows.
///
/// ```
/// use canon::Tool;
/// use canon::toolbox::ToolSpec;
/// use std::sync::OnceLock;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct EchoArgs {
///     words: Vec<String>,
/// }
///
/// struct Echo;
///
/// impl Tool for Echo {
///     type Args = EchoArgs;
///     type Output = String;
///     type Error = std::convert::Infallible;
///
///     fn spec(&self) -> &ToolSpec {
///         static SPEC: OnceLock<ToolSpec> = OnceLock::new();
///         SPEC.get_or_init(|| ToolSpec::of::<EchoArgs>("echo", "Repeat words."))
///     }
///
///     async fn run(&self, args: EchoArgs) -> Result<String, Self::Error> {
///         Ok(args.words.join(" "))
///     }
/// }
///
/// let bound = Echo.bind(&serde_json::json!({"words": "hello"})).unwrap();
/// assert_eq!(bound.args.words, ["hello"]);
/// ```
pub trait Tool: Send + Sync {
    /// The bound arguments.
    type Args: DeserializeOwned + Send;
    /// What the tool returns on success; serialized to JSON by
    /// [`call`](Tool::call).
    type Output: Serialize;
    /// The tool's own error, reported apart from binding errors.
    type Error: Display;

    /// The tool's published description and binding plan.
    fn spec(&self) -> &ToolSpec;

    /// Runs the tool on bound arguments.
    fn run(
        &self,
        args: Self::Args,
    ) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send;

    /// Runs the tool on bound arguments with the caller's per-call
    /// [`CallContext`]; a tool without [`Context`](crate::Context)
    /// parameters ignores it.
    fn run_with(
        &self,
        args: Self::Args,
        context: &CallContext,
    ) -> impl Future<Output = Result<Self::Output, Self::Error>> + Send {
        let _ = context;
        self.run(args)
    }

    /// How long a call of this tool may take in a
    /// [`Toolbox`](crate::Toolbox) before it is stopped and reported as
    /// [`ToolOutcome::TimedOut`](crate::ToolOutcome::TimedOut); `None` (the
    /// default) leaves it to the toolbox's default
    /// ([`Toolbox::with_timeout`](crate::Toolbox::with_timeout)), and
    /// [`Toolbox::with_timeout_for`](crate::Toolbox::with_timeout_for) overrides it.
    /// `#[tool(timeout = "30s")]` sets it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use canon::{tool, Tool};
    ///
    /// /// Search the web.
    /// #[tool(timeout = "30s")]
    /// async fn search(query: String) -> Vec<String> {
    ///     vec![query]
    /// }
    ///
    /// assert_eq!(Tool::timeout(&Search), Some(Duration::from_secs(30)));
    /// ```
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// The tool's name, as the model calls it.
    fn name(&self) -> &str {
        self.spec().name()
    }

    /// The tool's description, as shown to the model.
    fn description(&self) -> &str {
        self.spec().description()
    }

    /// The JSON Schema of the tool's arguments, exactly as published.
    fn input_schema(&self) -> &Value {
        self.spec().input_schema()
    }

    /// The JSON Schema of the tool's output, when its type has one (for
    /// `#[tool]`: the function returns `T` or `Result<T, E>` with
    /// `T: JsonSchema`).
    fn output_schema(&self) -> Option<&Value> {
        self.spec().output_schema()
    }

    /// Binds a model's arguments given as a JSON value, with the tool's own
    /// policy.
    ///
    /// # Errors
    /// A [`BindError`] listing every violation when the call cannot be bound.
    fn bind(&self, args: &Value) -> Result<Bound<Self::Args>, BindError> {
        self.bind_with(args, Policy::DEFAULT)
    }

    /// Binds a model's arguments given as JSON text (OpenAI sends
    /// `arguments` as a string), with the tool's own policy.
    ///
    /// # Errors
    /// A [`BindError`] listing every violation when the call cannot be bound,
    /// including text that is not JSON.
    fn bind_str(&self, args: &str) -> Result<Bound<Self::Args>, BindError> {
        self.bind_str_with(args, Policy::DEFAULT)
    }

    /// [`bind`](Tool::bind) with the rules of `policy` added to the tool's
    /// own (a [`Toolbox`](crate::Toolbox) passes its policy here).
    ///
    /// # Errors
    /// A [`BindError`] listing every violation when the call cannot be bound.
    fn bind_with(&self, args: &Value, policy: Policy) -> Result<Bound<Self::Args>, BindError> {
        self.spec().bind_with(args, policy)
    }

    /// [`bind_str`](Tool::bind_str) with the rules of `policy` added to the
    /// tool's own.
    ///
    /// # Errors
    /// As [`bind_str`](Tool::bind_str).
    fn bind_str_with(&self, args: &str, policy: Policy) -> Result<Bound<Self::Args>, BindError> {
        self.spec().bind_str_with(args, policy)
    }

    /// Binds the arguments, runs the tool and serializes its output.
    ///
    /// # Errors
    /// [`CallError::Rejected`] when the arguments cannot be bound (the tool
    /// does not run), [`CallError::Failed`] when the tool returns an error,
    /// [`CallError::Output`] when its output cannot be serialized.
    fn call(&self, args: Value) -> impl Future<Output = Result<Value, CallError>> + Send
    where
        Self: Sized,
    {
        async move {
            let bound = self.bind(&args);
            drop(args);
            run_bound(self, bound, None).await.into_result(self.name())
        }
    }
}

/// What became of a call after binding: the one path from bound arguments
/// to a serialized output, shared by [`Tool::call`] and every toolbox call
/// (the MCP server's among them).
pub(crate) enum Run {
    /// The tool ran and its output serialized.
    Ran { output: Value, repairs: Repairs },
    /// The arguments were not bound.
    Rejected(BindError),
    /// The tool returned an error, with its text.
    Failed(String),
    /// The tool's output did not serialize, with serde's reason.
    Unserializable(String),
}

/// Runs `tool` on the arguments it has bound (with `context` when the call
/// came through a toolbox), and serializes its output; or says why the
/// arguments were not bound.
pub(crate) async fn run_bound<T: Tool + ?Sized>(
    tool: &T,
    bound: Result<Bound<T::Args>, BindError>,
    context: Option<&CallContext>,
) -> Run {
    let Bound { args, repairs } = match bound {
        Ok(bound) => bound,
        Err(error) => return Run::Rejected(error),
    };
    let ran = match context {
        Some(context) => tool.run_with(args, context).await,
        None => tool.run(args).await,
    };
    match ran {
        Ok(output) => match serde_json::to_value(output) {
            Ok(output) => Run::Ran { output, repairs },
            Err(e) => Run::Unserializable(e.to_string()),
        },
        Err(e) => Run::Failed(e.to_string()),
    }
}

impl Run {
    /// The run as [`Tool::call`] returns it, for the tool named `tool`.
    pub(crate) fn into_result(self, tool: &str) -> Result<Value, CallError> {
        match self {
            Run::Ran { output, .. } => Ok(output),
            Run::Rejected(error) => Err(CallError::Rejected(error)),
            Run::Failed(message) => Err(CallError::Failed {
                tool: tool.to_owned(),
                message,
            }),
            Run::Unserializable(message) => Err(CallError::Output {
                tool: tool.to_owned(),
                message,
            }),
        }
    }
}
