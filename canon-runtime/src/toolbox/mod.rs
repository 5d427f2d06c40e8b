//! Running tools, and the parts of a call: the [`Toolbox`] that dispatches
//! calls by name, one or a batch at a time; a tool's [`ToolSpec`] and
//! binding [`Plan`]; what a call carries ([`CallContext`], [`Arguments`])
//! and what becomes of it ([`ToolOutcome`], [`ToolMessage`],
//! [`ToolStats`]); and the details of a refused call ([`ViolationKind`],
//! [`Received`]) or of a schema that cannot be bound ([`SchemaError`]).
//!
//! The items used in nearly every program ([`Toolbox`], [`ToolCall`],
//! [`ToolOutcome`], [`CallResult`]) are also at the crate root.

pub(crate) mod context;
pub(crate) mod json_tool;
pub(crate) mod spec;
pub(crate) mod tool;

pub use crate::bind::canonical::{CanonicalizerOptions, SchemaError};
pub use crate::bind::policy::UnknownRule;
pub use crate::feedback::{
    CallError, JsonType, Received, ViolationKind, POINTER_CHARS, PREVIEW_CHARS,
};
pub use crate::repair::RepairsIntoIter;
pub use crate::schema::plan::Plan;
pub use context::{CallContext, ContextError};
pub use spec::ToolSpec;

use tool::{run_bound, Run};

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use futures_util::FutureExt;
use serde::Serialize;
use serde_json::Value;
use tracing::Instrument;

use crate::bind::policy::Policy;
use crate::export::{Dialect, ExportError};
use crate::feedback::BindError;
use crate::limits::Limits;
use crate::repair::{Repair, RepairRule, Repairs};
use crate::toolbox::tool::Tool;

/// A future a [`Toolbox`] can hold, whatever tool produced it.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool with its types erased, so tools of any kind share one toolbox.
///
/// Implemented for every [`Tool`]; [`JsonTool`](crate::JsonTool) implements it for tools
/// known only by a JSON Schema.
pub trait DynTool: Send + Sync {
    /// The tool's published description and binding plan.
    fn spec(&self) -> &ToolSpec;

    /// How long a call may take before the toolbox stops it (see
    /// [`Tool::timeout`]); `None` by default, which leaves it to the
    /// toolbox.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Binds `args` (with the rules of `policy` added to the tool's own),
    /// runs the tool with the caller's `context` and serializes its output.
    ///
    /// Do the work in the future, not before returning it: the toolbox
    /// times out and catches panics in the future (it also catches a panic
    /// before, as a failure, but cannot time out work done there).
    fn invoke<'a>(
        &'a self,
        args: &'a Value,
        context: &'a CallContext,
        policy: Policy,
    ) -> BoxFuture<'a, ToolOutcome>;

    /// [`invoke`](Self::invoke) for arguments given as JSON text. A tool
    /// with a Rust arguments type binds the text in one pass; the default
    /// parses it into a `Value` first, refusing text that is not JSON or
    /// that gives a key twice in one object.
    fn invoke_text<'a>(
        &'a self,
        text: &'a str,
        context: &'a CallContext,
        policy: Policy,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            match self.spec().parse_text(text) {
                Ok(value) => self.invoke(&value, context, policy).await,
                Err(error) => ToolOutcome::Rejected(error),
            }
        })
    }

    /// [`invoke`](Self::invoke), refusing before the tool runs a call that
    /// needs more than `max_repairs` repairs (a [`Toolbox`]'s
    /// [`Limits::max_repairs`]; the tool's own bound holds too). A `#[tool]`
    /// and a [`JsonTool`](crate::JsonTool) do so; the default, for a tool that binds its
    /// arguments itself, is [`invoke`](Self::invoke) and leaves the bound
    /// to it.
    fn invoke_within<'a>(
        &'a self,
        args: &'a Value,
        context: &'a CallContext,
        policy: Policy,
        max_repairs: usize,
    ) -> BoxFuture<'a, ToolOutcome> {
        let _ = max_repairs;
        self.invoke(args, context, policy)
    }

    /// [`invoke_text`](Self::invoke_text) within `max_repairs`, as
    /// [`invoke_within`](Self::invoke_within) is.
    fn invoke_text_within<'a>(
        &'a self,
        text: &'a str,
        context: &'a CallContext,
        policy: Policy,
        max_repairs: usize,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            match self.spec().parse_text(text) {
                Ok(value) => {
                    self.invoke_within(&value, context, policy, max_repairs)
                        .await
                }
                Err(error) => ToolOutcome::Rejected(error),
            }
        })
    }
}

impl<T: Tool> DynTool for T {
    fn spec(&self) -> &ToolSpec {
        Tool::spec(self)
    }

    fn timeout(&self) -> Option<Duration> {
        Tool::timeout(self)
    }

    fn invoke<'a>(
        &'a self,
        args: &'a Value,
        context: &'a CallContext,
        policy: Policy,
    ) -> BoxFuture<'a, ToolOutcome> {
        self.invoke_within(args, context, policy, usize::MAX)
    }

    fn invoke_text<'a>(
        &'a self,
        text: &'a str,
        context: &'a CallContext,
        policy: Policy,
    ) -> BoxFuture<'a, ToolOutcome> {
        self.invoke_text_within(text, context, policy, usize::MAX)
    }

    // Binding is part of the future, so a panic in an arguments type's own
    // `Deserialize` is caught, and timed, like the tool's.
    fn invoke_within<'a>(
        &'a self,
        args: &'a Value,
        context: &'a CallContext,
        policy: Policy,
        max_repairs: usize,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let bound =
                Tool::spec(self).within_repairs(|| self.bind_with(args, policy), max_repairs);
            ran(
                Tool::spec(self),
                run_bound(self, bound, Some(context)).await.into(),
            )
        })
    }

    fn invoke_text_within<'a>(
        &'a self,
        text: &'a str,
        context: &'a CallContext,
        policy: Policy,
        max_repairs: usize,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let bound =
                Tool::spec(self).within_repairs(|| self.bind_str_with(text, policy), max_repairs);
            ran(
                Tool::spec(self),
                run_bound(self, bound, Some(context)).await.into(),
            )
        })
    }
}

/// `outcome`, its repairs traced when the call ran: a call refused,
/// failed or timed out returns no repair, and reports none.
pub(crate) fn ran(spec: &ToolSpec, outcome: ToolOutcome) -> ToolOutcome {
    if let ToolOutcome::Ran { repairs, .. } = &outcome {
        spec.trace_repairs(repairs);
    }
    outcome
}

impl From<Run> for ToolOutcome {
    /// The run as a toolbox reports it.
    fn from(run: Run) -> ToolOutcome {
        match run {
            Run::Ran { output, repairs } => ToolOutcome::Ran { output, repairs },
            Run::Rejected(error) => ToolOutcome::Rejected(error),
            Run::Failed(message) => ToolOutcome::Failed { message },
            Run::Unserializable(reason) => ToolOutcome::Failed {
                message: messages::unserializable(&reason),
            },
        }
    }
}

/// A model's request to call a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The call's id, echoed in its result.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, as sent.
    pub arguments: Arguments,
}

impl ToolCall {
    /// A call of tool `name` with `arguments` (a JSON value, or JSON text).
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<Arguments>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// A call's arguments as the model sent them.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// A JSON value (Anthropic, Gemini, MCP).
    Json(Value),
    /// JSON text (OpenAI, vLLM, llama.cpp).
    Text(String),
}

impl From<Value> for Arguments {
    fn from(value: Value) -> Self {
        Arguments::Json(value)
    }
}

impl From<String> for Arguments {
    fn from(text: String) -> Self {
        Arguments::Text(text)
    }
}

impl From<&str> for Arguments {
    fn from(text: &str) -> Self {
        Arguments::Text(text.to_owned())
    }
}

/// What became of one call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolOutcome {
    /// The tool ran.
    Ran {
        /// Its output, as JSON.
        output: Value,
        /// The repairs that made the call bindable.
        repairs: Repairs,
    },
    /// The arguments could not be bound; the tool did not run.
    Rejected(BindError),
    /// The tool ran and failed, returned an error or panicked.
    Failed {
        /// The tool's error text; for a panic, `the tool panicked: ` and the
        /// panic's own text. The model is shown a panic's text only when
        /// the toolbox allows it ([`Toolbox::with_panic_messages`]); otherwise
        /// it is told the tool failed unexpectedly. The model reads the
        /// text escaped onto one line and bounded as [`Toolbox::message`]
        /// says; this field keeps it as the tool gave it.
        message: String,
    },
    /// The call did not finish within its timeout (see
    /// [`Toolbox::with_timeout`]) and was stopped: an async tool at the await it
    /// was waiting on; a sync tool's thread runs on, and its result is
    /// discarded.
    TimedOut {
        /// The timeout that applied.
        after: Duration,
    },
    /// No tool has that name.
    NoSuchTool {
        /// The name called.
        name: String,
        /// The closest tool name, if one is close.
        closest: Option<String>,
        /// Every tool name, in registration order.
        available: Vec<String>,
    },
}

impl ToolOutcome {
    /// The OpenTelemetry `error.type` of a call that did not run
    /// successfully (`rejected`, `no_such_tool`, `failed`, `panicked` or
    /// `timed_out`); `None` for one that ran.
    pub(crate) fn error_type(&self) -> Option<&'static str> {
        Some(match self {
            ToolOutcome::Ran { .. } => return None,
            ToolOutcome::Rejected(_) => "rejected",
            ToolOutcome::NoSuchTool { .. } => "no_such_tool",
            ToolOutcome::Failed { message } if message.starts_with(PANICKED) => "panicked",
            ToolOutcome::Failed { .. } => "failed",
            ToolOutcome::TimedOut { .. } => "timed_out",
        })
    }

    /// True unless the tool ran.
    pub fn is_error(&self) -> bool {
        !matches!(self, ToolOutcome::Ran { .. })
    }
}

/// One call's result: its id, the tool name and what happened.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The call's id.
    pub id: String,
    /// The tool called.
    pub name: String,
    /// What happened.
    pub outcome: ToolOutcome,
}

/// A tool result as a model expects it: the text, canon's note beside it,
/// and an error flag.
///
/// For a call that ran, `text` is the tool's output and nothing else: a
/// string as the tool returned it, any other value as JSON (at most the
/// toolbox's [`Limits::max_output_bytes`], a prefix when longer). What
/// canon has to say about it (that the output was cut, which repairs the
/// call needed) is the `note`, which every wire format canon writes sends
/// as a content block of its own after the output, never inside it: a
/// client that parses a tool's JSON output parses it whether the call was
/// exact or repaired. For any other outcome, `text` is canon's feedback
/// and there is no note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolMessage {
    /// The call's id.
    pub id: String,
    /// The tool called (Gemini answers a call by the tool's name).
    pub name: String,
    /// The text for the model: the tool's output, or canon's feedback for
    /// a call that did not run successfully.
    pub text: String,
    /// What canon tells the model beside the output, one line each: that
    /// the output was truncated (`[canon: output truncated to its first N
    /// of M bytes]`), and, with [`Toolbox::with_repair_notes`], the repairs
    /// the call needed (`(Note: /x was sent as a string and read as a
    /// one-element array; send an array.)`). `None` when there is nothing
    /// to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// True when the call did not run successfully.
    pub is_error: bool,
}

impl ToolMessage {
    /// The message's content blocks, in the order a model is sent them:
    /// the text, then the note when there is one.
    ///
    /// ```
    /// use canon::toolbox::ToolMessage;
    ///
    /// let message = ToolMessage {
    ///     id: "call_1".into(),
    ///     name: "search".into(),
    ///     text: r#"["dotnet/eshop"]"#.into(),
    ///     note: Some("(Note: /repos was sent as a string and read as a one-element array; send an array.)".into()),
    ///     is_error: false,
    /// };
    /// let blocks: Vec<&str> = message.blocks().collect();
    /// assert_eq!(blocks.len(), 2);
    /// assert_eq!(blocks[0], r#"["dotnet/eshop"]"#);
    /// ```
    pub fn blocks(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.text.as_str()).chain(self.note.as_deref())
    }
}

impl CallResult {
    /// The message for the model; with `repair_notes`, a successful result
    /// that needed repairs has a [`note`](ToolMessage::note) saying what to
    /// send instead.
    /// A tool that panicked is said to have failed unexpectedly, without
    /// the panic's text (which [`Toolbox::message`] shows only with
    /// [`Toolbox::with_panic_messages`]).
    ///
    /// The output (or the tool's error text) is shown up to
    /// [`Limits::max_output_bytes`] of the default [`Limits`]; use
    /// [`Toolbox::message`] for a toolbox's own limits.
    pub fn to_message(&self, repair_notes: bool) -> ToolMessage {
        self.render(repair_notes, false, Limits::default().max_output_bytes)
    }

    /// The message for the model, showing a panic's text when
    /// `panic_messages` is set, and at most `max_output_bytes` of the
    /// tool's output or error text.
    fn render(
        &self,
        repair_notes: bool,
        panic_messages: bool,
        max_output_bytes: usize,
    ) -> ToolMessage {
        let feedback = |text: String| (text, None);
        let (text, note) = match &self.outcome {
            ToolOutcome::Ran { output, repairs } => messages::output(
                output,
                repair_notes.then_some(&repairs[..]),
                max_output_bytes,
            ),
            ToolOutcome::Rejected(error) => feedback(error.to_string()),
            ToolOutcome::Failed { message } if !panic_messages && message.starts_with(PANICKED) => {
                feedback(messages::failed_unexpectedly(&self.name))
            }
            ToolOutcome::Failed { message } => {
                feedback(messages::failed(&self.name, message, max_output_bytes))
            }
            ToolOutcome::TimedOut { after } => feedback(messages::timed_out(&self.name, *after)),
            ToolOutcome::NoSuchTool {
                name,
                closest,
                available,
            } => feedback(messages::no_such_tool(name, closest.as_deref(), available)),
        };
        ToolMessage {
            id: self.id.clone(),
            name: self.name.clone(),
            text,
            note,
            is_error: self.outcome.is_error(),
        }
    }
}

/// The longest unknown tool name, in bytes, for which the closest tool
/// name is looked for: a longer name is no near miss, and comparing it with
/// every tool would cost in proportion to its length.
use crate::feedback::messages::{self, PANICKED};
use crate::feedback::name_preview;
use crate::feedback::violations::MAX_SUGGESTED_NAME_BYTES;

/// What an operator asks first: per tool, how many calls came, ran, were
/// rejected or failed, and how many repairs each rule made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ToolStats {
    /// Calls received.
    pub calls: u64,
    /// Calls that ran successfully.
    pub ran: u64,
    /// Calls whose arguments were rejected.
    pub rejected: u64,
    /// Calls where the tool failed or panicked.
    pub failed: u64,
    /// Calls stopped at their timeout ([`ToolOutcome::TimedOut`]); counted
    /// apart from `failed`.
    pub timed_out: u64,
    /// Repairs made, by rule.
    pub repairs: BTreeMap<RepairRule, u64>,
}

/// Duplicate tool names are refused when a tool is added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateTool {
    /// The name already taken.
    pub name: String,
}

impl fmt::Display for DuplicateTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a tool named `{}` is already in the toolbox; tool names must be unique",
            self.name
        )
    }
}

impl std::error::Error for DuplicateTool {}

/// The tools an agent offers a model, dispatched by name.
///
/// ```
/// use canon::{tool, Toolbox, ToolCall, ToolOutcome};
/// use serde_json::json;
///
/// /// Count the given names.
/// #[tool]
/// fn count(names: Vec<String>) -> usize {
///     names.len()
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Count).unwrap();
/// # tokio_test_block_on(async {
/// let result = toolbox.call(ToolCall::new("1", "count", r#"{"names": "ada"}"#)).await;
/// assert!(matches!(result.outcome, ToolOutcome::Ran { .. }));
/// assert_eq!(result.to_message(false).text, "1");
/// # });
/// # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Default)]
pub struct Toolbox {
    tools: Vec<Arc<dyn DynTool>>,
    index: HashMap<String, usize>,
    repair_notes: bool,
    panic_messages: bool,
    policy: Policy,
    /// A declaration in a dialect that makes optional properties nullable
    /// was exported (or named with `declared_in`).
    nulls_declared: AtomicBool,
    limits: Limits,
    /// The default timeout of every call.
    timeout: Option<Duration>,
    /// Per tool name, a timeout that overrides every other.
    timeouts: HashMap<String, Duration>,
    stats: Mutex<BTreeMap<String, ToolStats>>,
}

impl Toolbox {
    /// The key under which [`stats`](Self::stats) counts every call of a
    /// tool the toolbox does not have, whatever name the model invented, so
    /// the table holds at most one entry per tool and this one. (A tool
    /// registered under this very name would share the entry.)
    ///
    /// ```
    /// use canon::{ToolCall, Toolbox};
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let toolbox = Toolbox::new();
    /// toolbox.call(ToolCall::new("1", "serach", "{}")).await;
    /// toolbox.call(ToolCall::new("2", "lookup", "{}")).await;
    /// let stats = toolbox.stats();
    /// assert_eq!(stats.len(), 1);
    /// assert_eq!(stats[Toolbox::UNKNOWN_TOOLS].calls, 2);
    /// # });
    /// ```
    pub const UNKNOWN_TOOLS: &'static str = "(unknown tools)";

    /// An empty toolbox.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool.
    ///
    /// # Errors
    /// [`DuplicateTool`] when a tool of the same name is already there.
    pub fn add(&mut self, tool: impl DynTool + 'static) -> Result<&mut Self, DuplicateTool> {
        self.add_shared(Arc::new(tool))
    }

    /// Adds a tool shared with other owners.
    ///
    /// # Errors
    /// [`DuplicateTool`] when a tool of the same name is already there.
    pub fn add_shared(&mut self, tool: Arc<dyn DynTool>) -> Result<&mut Self, DuplicateTool> {
        let name = tool.spec().name().to_owned();
        if self.index.contains_key(&name) {
            return Err(DuplicateTool { name });
        }
        self.index.insert(name, self.tools.len());
        self.tools.push(tool);
        Ok(self)
    }

    /// Appends a one-line note of the repairs made to each successful
    /// result's message, so the model learns the right shape. Off by
    /// default.
    #[must_use]
    pub fn with_repair_notes(mut self, on: bool) -> Self {
        self.repair_notes = on;
        self
    }

    /// Shows the model the text of a tool's panic. Off by default: a panic's
    /// text can hold anything (a token, a path, an internal state), so the
    /// model is told only that the tool failed unexpectedly, while the
    /// caller always gets the full text in the [`CallResult`]
    /// ([`ToolOutcome::Failed`]).
    ///
    /// ```
    /// use canon::{tool, ToolCall, ToolOutcome, Toolbox};
    ///
    /// /// Always fails.
    /// #[tool]
    /// fn explode() -> String {
    ///     panic!("secret token sk-123 leaked")
    /// }
    ///
    /// let mut quiet = Toolbox::new();
    /// quiet.add(Explode).unwrap();
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let result = quiet.call(ToolCall::new("1", "explode", "{}")).await;
    /// // The caller has the panic's text...
    /// assert_eq!(
    ///     result.outcome,
    ///     ToolOutcome::Failed { message: "the tool panicked: secret token sk-123 leaked".into() }
    /// );
    /// // ...the model is told only that the tool failed.
    /// assert_eq!(quiet.message(&result).text, "The tool `explode` failed unexpectedly.");
    ///
    /// let mut open = Toolbox::new().with_panic_messages(true);
    /// open.add(Explode).unwrap();
    /// assert_eq!(
    ///     open.message(&result).text,
    ///     "The tool `explode` failed: the tool panicked: secret token sk-123 leaked"
    /// );
    /// # });
    /// ```
    #[must_use]
    pub fn with_panic_messages(mut self, on: bool) -> Self {
        self.panic_messages = on;
        self
    }

    /// Binds every call with the rules of `policy` as well as each tool's
    /// own (the core rule always applies; opt-in rules are off by default).
    ///
    /// ```
    /// use canon::{Policy, RepairRule, Toolbox};
    ///
    /// let toolbox = Toolbox::new().with_policy(Policy::DEFAULT.with(RepairRule::NumberText));
    /// assert!(toolbox.policy().contains(RepairRule::NumberText));
    /// ```
    #[must_use]
    pub fn with_policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Binds every call within `limits`: arguments text over the size bound
    /// is refused before it is parsed, arguments nested deeper than the
    /// depth bound before they are bound, and the model is shown at most
    /// `max_listed` violations in `max_feedback_bytes`. Each tool's own
    /// [`ToolSpec::limits`] hold too (1 MiB and 64 levels by default), so
    /// the smaller bounds apply. A call needing more than `max_repairs`
    /// repairs is refused before the tool runs ([`DynTool::invoke_within`];
    /// a hand-written [`DynTool`] that binds its own arguments keeps its
    /// own bound).
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Stops every call that has not finished after `timeout`: the call's
    /// outcome is [`ToolOutcome::TimedOut`], and the model is told the tool
    /// did not finish in time. No timeout applies by default. A tool's own
    /// timeout ([`Tool::timeout`], `#[tool(timeout = "30s")]`) wins over
    /// this default, and [`with_timeout_for`](Self::with_timeout_for) over both.
    ///
    /// The timer is Tokio's, around the whole call (binding included), so
    /// a call with a timeout needs a Tokio runtime with time enabled: with
    /// none current, the call fails (an outcome, never a panic) without
    /// running the tool.
    ///
    /// Stopping a call drops its future, as dropping the future of
    /// [`call`](Self::call) or [`call_batch`](Self::call_batch) does: an
    /// async tool stops at the await it is waiting on (its locals are
    /// dropped, so guards release). A sync tool cannot be stopped: it runs
    /// on Tokio's blocking pool, its thread runs it to the end in the
    /// background, and its result is discarded. Give a sync tool that may
    /// block for long a bound of its own (a timeout on its socket, say), or
    /// make it async.
    ///
    /// ```
    /// use std::time::Duration;
    /// use canon::{tool, ToolCall, ToolOutcome, Toolbox};
    ///
    /// /// Wait for a slow service.
    /// #[tool]
    /// async fn slow() -> String {
    ///     tokio::time::sleep(Duration::from_secs(60)).await;
    ///     "done".into()
    /// }
    ///
    /// let mut toolbox = Toolbox::new().with_timeout(Duration::from_millis(20));
    /// toolbox.add(Slow).unwrap();
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let result = toolbox.call(ToolCall::new("1", "slow", "{}")).await;
    /// assert_eq!(result.outcome, ToolOutcome::TimedOut { after: Duration::from_millis(20) });
    /// assert_eq!(
    ///     toolbox.message(&result).text,
    ///     "The tool `slow` did not finish within 20 ms and was stopped."
    /// );
    /// assert_eq!(toolbox.stats()["slow"].timed_out, 1);
    /// # });
    /// ```
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Gives calls of the tool named `name` their own timeout, which wins
    /// over the tool's own ([`Tool::timeout`]) and the toolbox's default
    /// ([`with_timeout`](Self::with_timeout)); see `with_timeout` for what stopping a call
    /// does. A name no tool has is kept and simply never applies (the tool
    /// may be added later).
    ///
    /// ```
    /// use std::time::Duration;
    /// use canon::{tool, Toolbox};
    ///
    /// /// Search the web.
    /// #[tool(timeout = "30s")]
    /// async fn search(query: String) -> Vec<String> {
    ///     vec![query]
    /// }
    ///
    /// let mut toolbox = Toolbox::new()
    ///     .with_timeout(Duration::from_secs(10))
    ///     .with_timeout_for("search", Duration::from_secs(5));
    /// toolbox.add(Search).unwrap();
    /// assert_eq!(toolbox.timeout_of("search"), Some(Duration::from_secs(5)));
    /// assert_eq!(toolbox.timeout_of("anything_else"), Some(Duration::from_secs(10)));
    /// ```
    #[must_use]
    pub fn with_timeout_for(mut self, name: impl Into<String>, timeout: Duration) -> Self {
        self.timeouts.insert(name.into(), timeout);
        self
    }

    /// The timeout that applies to a call of `name`: the one given by
    /// [`with_timeout_for`](Self::with_timeout_for), else the tool's own
    /// ([`Tool::timeout`]), else the toolbox's default
    /// ([`timeout`](Self::with_timeout)).
    pub fn timeout_of(&self, name: &str) -> Option<Duration> {
        self.timeouts
            .get(name)
            .copied()
            .or_else(|| self.get(name).and_then(DynTool::timeout))
            .or(self.timeout)
    }

    /// Binds calls made against the tools as declared in `dialect`, for a
    /// toolbox whose tools you declare to the model yourself (through
    /// [`ToolSpec::export`], or another library).
    ///
    /// A toolbox binds what it published: after
    /// [`export`](Self::export) in a strict OpenAI dialect it binds that
    /// declaration's calls with no further setting. A strict OpenAI
    /// declaration makes every optional parameter required and nullable, so
    /// a model following it sends `null` for a parameter it leaves at its
    /// default; that `null` binds as the parameter being absent, with no
    /// repair noted (see [`Policy::declared_in`]). Other dialects change
    /// nothing.
    ///
    /// ```
    /// use canon::Toolbox;
    /// use canon::export::Dialect;
    ///
    /// let toolbox = Toolbox::new().declared_in(Dialect::OpenAi { strict: true });
    /// assert!(toolbox.policy().nulls_declared());
    /// ```
    #[must_use]
    pub fn declared_in(self, dialect: Dialect) -> Self {
        self.declare(dialect);
        self
    }

    /// The policy calls are bound with, beside each tool's own (with
    /// [`Policy::nulls_declared`] once a strict declaration was exported).
    pub fn policy(&self) -> Policy {
        if self.nulls_declared.load(Ordering::Relaxed) {
            self.policy.declared_in(Dialect::OpenAi { strict: true })
        } else {
            self.policy
        }
    }

    /// Whether messages carry repair notes.
    pub fn repair_notes(&self) -> bool {
        self.repair_notes
    }

    /// Whether messages show the text of a tool's panic (see
    /// [`panic_messages`](Self::with_panic_messages)).
    pub fn panic_messages(&self) -> bool {
        self.panic_messages
    }

    /// The tools' specs, in registration order.
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.tools.iter().map(|t| t.spec())
    }

    /// Every tool declared in `dialect`, in registration order: the
    /// fragment a request takes (an array of tools for OpenAI and Anthropic,
    /// `{"functionDeclarations": [...]}` for Gemini, `{"tools": [...]}` for
    /// MCP).
    ///
    /// # Errors
    /// The first tool the dialect cannot express, with the pointer and the
    /// reason.
    pub fn export(&self, dialect: Dialect) -> Result<Value, ExportError> {
        let tools = self
            .specs()
            .map(|spec| spec.export(dialect))
            .collect::<Result<Vec<_>, _>>()?;
        self.declare(dialect);
        Ok(crate::export::wrap(dialect, tools))
    }

    /// From now on, binds what a declaration in `dialect` allows.
    fn declare(&self, dialect: Dialect) {
        if Policy::STRICT.declared_in(dialect).nulls_declared() {
            self.nulls_declared.store(true, Ordering::Relaxed);
        }
    }

    /// [`export`](Self::export), declaring each tool that a strict dialect
    /// cannot express in the same dialect without strict mode instead; the
    /// second value says which tools were relaxed and why.
    ///
    /// # Errors
    /// A tool the relaxed dialect cannot express either (a name it does not
    /// allow, say).
    pub fn export_or_relax(
        &self,
        dialect: Dialect,
    ) -> Result<(Value, Vec<ExportError>), ExportError> {
        let mut relaxed = Vec::new();
        let mut tools = Vec::new();
        for spec in self.specs() {
            match spec.export(dialect) {
                Ok(tool) => tools.push(tool),
                Err(error) if dialect.is_strict() => {
                    tools.push(spec.export(dialect.relaxed())?);
                    relaxed.push(error);
                }
                Err(error) => return Err(error),
            }
        }
        self.declare(dialect);
        Ok((crate::export::wrap(dialect, tools), relaxed))
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&dyn DynTool> {
        self.index.get(name).map(|&i| &*self.tools[i])
    }

    /// Executes one call. Never panics: a tool that panics is reported as
    /// failed.
    pub async fn call(&self, call: ToolCall) -> CallResult {
        self.call_with(call, &CallContext::new()).await
    }

    /// Executes one call with the caller's per-call context (see
    /// [`Context`](crate::Context)).
    ///
    /// The call is a `tracing` span (target `canon::call`) after the
    /// OpenTelemetry GenAI semantic conventions for tool execution: named
    /// `execute_tool {name}` through `otel.name`, with
    /// `gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`,
    /// `gen_ai.tool.call.id`, `gen_ai.tool.type = "function"` and, when the
    /// call did not run successfully, `error.type` (`rejected`,
    /// `no_such_tool`, `failed`, `panicked` or `timed_out`) and
    /// `otel.status_code = "ERROR"`. It covers binding and running, and the
    /// call's repair, rejection and timeout events are emitted inside it.
    /// No argument value is recorded.
    pub async fn call_with(&self, call: ToolCall, context: &CallContext) -> CallResult {
        let ToolCall {
            id,
            name,
            arguments,
        } = call;
        let span = crate::bind::telemetry::call_span(&name, &id);
        let outcome = self
            .execute(&name, &arguments, context)
            .instrument(span.clone())
            .await;
        // Recorded before the span closes, when the last handle drops.
        crate::bind::telemetry::call_outcome(&span, outcome.error_type());
        drop(span);
        // However deep the caller built it, dropping it does not recurse.
        if let Arguments::Json(value) = arguments {
            crate::bind::json::release(value);
        }
        self.count(&name, &outcome);
        CallResult { id, name, outcome }
    }

    /// Executes a batch of calls concurrently; the results keep the calls'
    /// order and ids. One bad call never stops the others.
    pub async fn call_batch(&self, calls: impl IntoIterator<Item = ToolCall>) -> Vec<CallResult> {
        self.call_batch_with(calls, &CallContext::new()).await
    }

    /// [`call_batch`](Self::call_batch) with the caller's per-call context,
    /// shared by the calls of the batch.
    pub async fn call_batch_with(
        &self,
        calls: impl IntoIterator<Item = ToolCall>,
        context: &CallContext,
    ) -> Vec<CallResult> {
        join_all(calls.into_iter().map(|call| self.call_with(call, context))).await
    }

    /// The call's result as the message a model expects, with repair notes
    /// and a panic's text as the toolbox was built
    /// ([`repair_notes`](Self::with_repair_notes),
    /// [`panic_messages`](Self::with_panic_messages)).
    ///
    /// At most [`Limits::max_output_bytes`] of the toolbox's
    /// [`limits`](Self::with_limits) of the tool's output, or of its error text,
    /// are shown; longer text is cut at a character boundary. A cut output
    /// is said so in the message's [`note`](ToolMessage::note), beside the
    /// output, never inside it; a cut error text is followed, on its own
    /// line, by a marker saying how much was shown. The tool's
    /// error text is also escaped onto one line (control characters and
    /// line or paragraph separators as `\n`, `\u{2028}`...), so that it
    /// cannot pose as the start of another message. The [`CallResult`]
    /// keeps the whole output.
    ///
    /// ```
    /// use canon::{tool, Limits, ToolCall, Toolbox};
    ///
    /// /// Read a log.
    /// #[tool]
    /// fn read_log() -> String {
    ///     "line\n".repeat(10)
    /// }
    ///
    /// let mut toolbox = Toolbox::new().with_limits(Limits { max_output_bytes: 12, ..Limits::default() });
    /// toolbox.add(ReadLog).unwrap();
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let result = toolbox.call(ToolCall::new("1", "read_log", "{}")).await;
    /// let message = toolbox.message(&result);
    /// assert_eq!(message.text, "line\nline\nli");
    /// assert_eq!(
    ///     message.note.as_deref(),
    ///     Some("[canon: output truncated to its first 12 of 50 bytes]")
    /// );
    /// # });
    /// ```
    pub fn message(&self, result: &CallResult) -> ToolMessage {
        result.render(
            self.repair_notes,
            self.panic_messages,
            self.limits.max_output_bytes,
        )
    }

    /// Per-tool counts of calls, outcomes and repairs by rule; calls of
    /// tools the toolbox does not have are counted together under
    /// [`UNKNOWN_TOOLS`](Self::UNKNOWN_TOOLS), as rejected.
    pub fn stats(&self) -> BTreeMap<String, ToolStats> {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    async fn execute(
        &self,
        name: &str,
        arguments: &Arguments,
        context: &CallContext,
    ) -> ToolOutcome {
        let Some(tool) = self.get(name) else {
            return self.no_such_tool(name);
        };
        // Bounds are checked before the tool's binder sees the call.
        let over = match arguments {
            Arguments::Json(value) if self.limits.too_deep(value) => {
                Some(self.limits.too_deep_violation())
            }
            Arguments::Text(text) if text.len() > self.limits.max_text_bytes => {
                Some(self.limits.too_large(text.len()))
            }
            // The tool's own pass counts depth to its own bound; a tighter
            // bound here is checked on the text first.
            Arguments::Text(text)
                if self.limits.max_depth < tool.spec().limits().max_depth
                    && self.limits.text_too_deep(text) =>
            {
                Some(self.limits.too_deep_violation())
            }
            _ => None,
        };
        if let Some(violation) = over {
            let error = BindError::new(tool.spec().name().to_owned(), vec![violation]);
            return ToolOutcome::Rejected(crate::bind::telemetry::reject(
                error.with_limits(&self.limits),
            ));
        }
        let empty_object = Value::Object(Default::default());
        let policy = self.policy();
        let empty_arguments = match arguments {
            Arguments::Json(Value::Null) => true,
            Arguments::Text(text) => text.trim().is_empty() || text.trim() == "null",
            Arguments::Json(_) => false,
        };
        // Empty arguments read as `{}` are a repair: it counts against the
        // bound, before the tool runs.
        let repairs = match (empty_arguments, self.limits.max_repairs) {
            (true, 0) => {
                return ToolOutcome::Rejected(tool.spec().too_many_repairs_for(1, 0));
            }
            (true, max) => max - 1,
            (false, max) => max,
        };
        // A tool written by hand may work, and panic, before it returns its
        // future: that panic is the tool's too.
        let created = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let limit = self.timeouts.get(name).copied().or_else(|| tool.timeout());
            let invocation = match arguments {
                _ if empty_arguments => tool.invoke_within(&empty_object, context, policy, repairs),
                Arguments::Json(value) => tool.invoke_within(value, context, policy, repairs),
                Arguments::Text(text) => tool.invoke_text_within(text, context, policy, repairs),
            };
            (invocation, limit.or(self.timeout))
        }));
        let (invocation, limit) = match created {
            Ok(created) => created,
            Err(panic) => return panicked(&*panic),
        };
        // `Err(after)` when the call timed out.
        let invoked = match limit {
            None => AssertUnwindSafe(invocation).catch_unwind().await.map(Ok),
            Some(after) => match timed(after, invocation) {
                Ok(timed) => AssertUnwindSafe(timed)
                    .catch_unwind()
                    .await
                    .map(|finished| finished.map_err(|_| after)),
                Err(message) => return ToolOutcome::Failed { message },
            },
        };
        let mut outcome = match invoked {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(after)) => {
                crate::bind::telemetry::timeout(tool.spec().name(), after);
                ToolOutcome::TimedOut { after }
            }
            Err(panic) => panicked(&*panic),
        };
        if let ToolOutcome::Rejected(error) = outcome {
            // The tool's own bounds on feedback hold too: the smaller apply.
            let own = tool.spec().limits();
            let limits = Limits {
                max_listed: self.limits.max_listed.min(own.max_listed),
                max_feedback_bytes: self.limits.max_feedback_bytes.min(own.max_feedback_bytes),
                ..self.limits
            };
            outcome = ToolOutcome::Rejected(error.with_limits(&limits));
        }
        if empty_arguments {
            // Recorded where the arguments were read as `{}` and bound: a
            // call refused, failed or timed out reports no repair.
            let repair = Repair::new("", RepairRule::EmptyArguments);
            if let ToolOutcome::Ran { repairs, .. } = &mut outcome {
                tool.spec().trace_repairs(std::slice::from_ref(&repair));
                let rest = std::mem::take(repairs);
                *repairs = std::iter::once(repair).chain(rest).collect();
            }
        }
        outcome
    }

    fn no_such_tool(&self, name: &str) -> ToolOutcome {
        let available: Vec<String> = self.specs().map(|s| s.name().to_owned()).collect();
        let closest = if name.len() <= MAX_SUGGESTED_NAME_BYTES {
            crate::feedback::violations::closest(name, available.iter().map(String::as_str))
                .map(str::to_owned)
        } else {
            None
        };
        tracing::warn!(target: "canon::reject", tool = %name_preview(name), "no such tool");
        ToolOutcome::NoSuchTool {
            name: name.to_owned(),
            closest,
            available,
        }
    }

    fn count(&self, name: &str, outcome: &ToolOutcome) {
        let Ok(mut stats) = self.stats.lock() else {
            return;
        };
        // Invented names share one entry, so the table stays bounded.
        let key = match outcome {
            ToolOutcome::NoSuchTool { .. } => Self::UNKNOWN_TOOLS,
            _ => name,
        };
        let entry = stats.entry(key.to_owned()).or_default();
        entry.calls += 1;
        match outcome {
            ToolOutcome::Ran { repairs, .. } => {
                entry.ran += 1;
                for repair in repairs {
                    *entry.repairs.entry(repair.rule).or_default() += 1;
                }
            }
            ToolOutcome::Rejected(_) | ToolOutcome::NoSuchTool { .. } => entry.rejected += 1,
            ToolOutcome::Failed { .. } => entry.failed += 1,
            ToolOutcome::TimedOut { .. } => entry.timed_out += 1,
        }
    }
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.specs().map(ToolSpec::name).collect();
        f.debug_struct("Toolbox")
            .field("tools", &names)
            .field("repair_notes", &self.repair_notes)
            .field("panic_messages", &self.panic_messages)
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .field("timeouts", &self.timeouts)
            .finish()
    }
}

/// `future` under a Tokio timer of `after`; or, when no Tokio runtime with
/// time enabled is current, why the call cannot be timed.
fn timed<F: Future>(after: Duration, future: F) -> Result<tokio::time::Timeout<F>, String> {
    let untimed = || messages::untimed(after);
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(untimed());
    }
    // A runtime built without `enable_time` panics here, before the tool
    // runs.
    std::panic::catch_unwind(AssertUnwindSafe(|| tokio::time::timeout(after, future)))
        .map_err(|_| untimed())
}

/// The outcome of a tool that panicked with `panic`.
fn panicked(panic: &(dyn std::any::Any + Send)) -> ToolOutcome {
    ToolOutcome::Failed {
        message: format!("{PANICKED}{}", panic_message(panic)),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    }
}
