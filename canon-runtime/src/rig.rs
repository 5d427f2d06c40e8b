//! A toolbox as tools a rig agent takes (feature `rig`).
//!
//! [`tools`] turns a [`Toolbox`] into rig's [`DynamicTool`]s: each declares
//! canon's exported schema as its `parameters`, and each call rig makes goes
//! through the toolbox. A near miss (a bare string where the schema says
//! array of strings) binds and runs, recorded as every toolbox call is (a
//! `tracing` event per repair, the toolbox's stats); a call canon refuses
//! does not run, and the model reads canon's feedback as the tool's error
//! result, so it can call again. rig itself binds arguments with
//! `serde_json` alone, which refuses the near miss before the tool runs.
//!
//! rig's agent runtime (the `rig-agent` crate, rig-core's companion) takes
//! them in one line, and its own loop runs each call the model makes
//! through the toolbox and sends the result back:
//!
//! ```text
//! let agent = AgentBuilder::new(model).dynamic_tools(canon::rig::tools(toolbox)?).build();
//! let answer = agent.prompt("Where is the basket code?").max_turns(5).await?;
//! ```
//!
//! rig-agent's default budget is one model call, which ends the run
//! (`PromptError::MaxTurns`) at the first tool call: leave room for the
//! tool results and for a retry after canon's feedback (`max_turns` on the
//! prompt, or `default_max_turns` on the builder). canon's
//! `examples/rig_agent.rs` and `tests/rig.rs` run this loop offline, with
//! rig-agent's scripted completion model (its `test-utils` feature).
//!
//! # What the model reads
//! Every result is the toolbox's message for the call
//! ([`Toolbox::message`]): a successful call answers with its output as a
//! text block, and canon's [`note`](crate::toolbox::ToolMessage::note) (a
//! repair note when the toolbox was built
//! [`with_repair_notes(true)`](Toolbox::with_repair_notes), a truncation
//! marker) as a second text block, never inside the output; any other
//! outcome is a [`ToolExecutionError`] whose model-visible output is that
//! text, so rig sends it as an error result:
//!
//! | canon's outcome | rig's error kind |
//! |---|---|
//! | refused arguments | `invalid_args` |
//! | the tool failed or panicked | `other` |
//! | timed out | `timeout` |
//! | no such tool | `not_found` |
//!
//! How the blocks reach a provider is rig's encoder's choice: its OpenAI
//! Chat Completions encoder joins a result's text blocks into one string,
//! separated by a newline, unless the wire is built
//! `.with_tool_result_array_content()`, which sends them as content parts
//! (so a tool's JSON output stays parseable there too).
//!
//! The error's operator-facing [`message`](ToolExecutionError::message) is
//! the same text, except for a tool that failed: there it is the tool's own
//! error text (with a panic's text, which the model is shown only with
//! [`Toolbox::with_panic_messages`]). No call panics, whatever the model
//! sent.
//!
//! rig reads the model's argument text before canon does: it takes `null`
//! as `{}`, an object sent as a JSON string as the object, and answers
//! text that is not JSON with its own message. Those calls reach canon
//! already changed, or not at all, so canon records no repair for what rig
//! changed and gives no feedback for what rig refused.
//!
//! # Strict declarations
//! rig sends each tool's `parameters` as given, except to a provider asked
//! for strict tools: rig's OpenAI Chat Completions and Responses wires with
//! `with_strict_tools()`, and Copilot's Responses route by default, rewrite
//! each schema for OpenAI's strict mode (every property required, objects
//! closed, `oneOf` as `anyOf`, nothing beside `$ref`) and mark the tool
//! `strict`. Pair those wires with [`strict_tools`]: canon's strict OpenAI
//! export already follows those rules (optional parameters required and
//! nullable), so rig sends it as it is, and the toolbox then binds the
//! `null` a model sends for a parameter it leaves out as that parameter
//! being absent: canon binds exactly what the strict declaration allows.
//!
//! Declared with [`tools`], a strict rig wire would make optional
//! parameters required and not nullable (the model must send a value for
//! each; such calls still bind), and its rewrite can loosen a schema
//! (`oneOf` read as `anyOf`, keywords beside a `$ref` dropped): canon keeps
//! enforcing its own schema, so a call only the loosened one allows gets
//! canon's feedback. Anthropic's strict tools (`with_strict_tools()` on
//! rig's Anthropic wire) keep optional parameters optional and only move
//! the keywords Anthropic cannot compile into descriptions: declare
//! [`tools`] there, and canon still enforces every keyword.
//!
//! # Call context
//! A tool that takes [`Context`](crate::Context) reads it from a
//! [`CallContext`] attached to rig's tool context as a scope: in rig-agent,
//! `agent.prompt(..).tool_context(ToolContext::new().with_scope(Arc::new(call_context)))`.
//! Without one, calls run with an empty context (a tool that needs a value
//! fails, telling the model the caller supplied none).

use std::sync::Arc;

use rig_core::message::{ToolName, ToolResultContent};
use rig_core::tool::{DynamicTool, ToolContext, ToolExecutionError, ToolOutput};
use serde_json::Value;

use crate::export::{Dialect, ExportError};
use crate::toolbox::{CallContext, CallResult, ToolCall, ToolMessage, ToolOutcome, Toolbox};

/// The id of every call the toolbox runs for rig: rig does not tell a tool
/// its call's id, so canon's call span carries this one (rig's own tool
/// span has the model's).
const CALL_ID: &str = "rig";

/// Every tool of `toolbox` as a rig [`DynamicTool`], in registration order.
///
/// Each tool's definition is the toolbox's OpenAI export without strict mode
/// ([`Toolbox::export`] in [`Dialect::OpenAi`]`{ strict: false }`): the
/// tool's name, description, and its published input schema as
/// `parameters`. For a provider rig asks for strict tools, use
/// [`strict_tools`] (see [the module](self)).
///
/// Take an `Arc<Toolbox>` to keep a handle on the toolbox (for
/// [`Toolbox::stats`]), or give the toolbox itself.
///
/// ```
/// use canon::{tool, Toolbox};
/// use canon::rig;
/// use serde_json::json;
///
/// /// Search code in the given repositories.
/// #[tool]
/// fn search_code(repositories: Vec<String>, query: String) -> String {
///     format!("{query} in {}", repositories.join(", "))
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(SearchCode).unwrap();
/// let tools = rig::tools(toolbox).unwrap();
/// assert_eq!(tools[0].name().as_str(), "search_code");
/// assert_eq!(tools[0].definition().parameters["properties"]["repositories"]["type"], "array");
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // rig runs the tool: the near miss binds...
/// let output = tools[0]
///     .execute(json!({"repositories": "dotnet/eshop", "query": "basket"}))
///     .await
///     .unwrap();
/// assert_eq!(output.as_text(), Some("basket in dotnet/eshop"));
///
/// // ... and a broken call is an error whose model-visible output is
/// // canon's feedback.
/// let error = tools[0].execute(json!({"repositories": ["dotnet/eshop"]})).await.unwrap_err();
/// assert_eq!(
///     error.model_feedback(),
///     Some("The call to `search_code` was not run. /query: required, expected a string. \
///           Fix these and call `search_code` again.")
/// );
/// # });
/// ```
///
/// With rig-agent, the tools go to the agent as they are:
/// `AgentBuilder::new(model).dynamic_tools(canon::rig::tools(toolbox)?)`.
///
/// # Errors
/// An [`ExportError`] for a tool OpenAI cannot declare (a name other than 1
/// to 64 of `A-Z`, `a-z`, `0-9`, `_` and `-`).
pub fn tools(toolbox: impl Into<Arc<Toolbox>>) -> Result<Vec<DynamicTool>, ExportError> {
    declare(toolbox.into(), Dialect::OpenAi { strict: false })
}

/// [`tools`], declared for OpenAI's strict mode, for a rig wire that sends
/// strict tools (`with_strict_tools()` on rig's OpenAI Chat Completions or
/// Responses wire).
///
/// Each tool's `parameters` are the toolbox's strict OpenAI export
/// ([`Toolbox::export`] in [`Dialect::OpenAi`]`{ strict: true }`): every
/// property required, optional ones nullable, no undeclared properties. rig
/// sends that schema unchanged, and from now on the toolbox binds the `null`
/// a model sends for an optional parameter as the parameter left out (see
/// [`Toolbox::declared_in`]).
///
/// ```
/// use canon::{tool, Toolbox};
/// use canon::rig;
/// use serde_json::json;
///
/// /// Search code.
/// #[tool]
/// fn search_code(query: String, limit: Option<u32>) -> String {
///     format!("{query}, at most {}", limit.unwrap_or(10))
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(SearchCode).unwrap();
/// let tools = rig::strict_tools(toolbox).unwrap();
/// let parameters = tools[0].definition().parameters;
/// assert_eq!(parameters["required"], json!(["query", "limit"]));
/// assert_eq!(parameters["additionalProperties"], false);
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // The model follows the strict schema and sends `null` for the limit
/// // it leaves out.
/// let output = tools[0].execute(json!({"query": "basket", "limit": null})).await.unwrap();
/// assert_eq!(output.as_text(), Some("basket, at most 10"));
/// # });
/// ```
///
/// # Errors
/// An [`ExportError`] for a tool strict mode cannot express (an any-value
/// parameter, a map, a keyword strict mode does not support), or a name
/// OpenAI does not allow, with the pointer and the reason.
pub fn strict_tools(toolbox: impl Into<Arc<Toolbox>>) -> Result<Vec<DynamicTool>, ExportError> {
    declare(toolbox.into(), Dialect::OpenAi { strict: true })
}

/// Each tool of `toolbox` as exported in `dialect` (an OpenAI dialect), as
/// a rig tool running through the toolbox.
fn declare(toolbox: Arc<Toolbox>, dialect: Dialect) -> Result<Vec<DynamicTool>, ExportError> {
    let export = toolbox.export(dialect)?;
    let entries = match export {
        Value::Array(entries) => entries,
        _ => Vec::new(),
    };
    entries
        .into_iter()
        .map(|mut entry| {
            let function = entry["function"].take();
            let name = function["name"].as_str().unwrap_or_default().to_owned();
            let description = function["description"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let parameters = function["parameters"].clone();
            let tool_name = ToolName::new(name.clone()).map_err(|error| ExportError {
                tool: name.clone(),
                dialect,
                pointer: String::new(),
                reason: format!("rig cannot name it: {error}"),
            })?;
            Ok(dynamic_tool(
                Arc::clone(&toolbox),
                tool_name,
                name,
                description,
                parameters,
            ))
        })
        .collect()
}

/// The rig tool `name`, declared with `description` and `parameters`, whose
/// calls the toolbox runs.
fn dynamic_tool(
    toolbox: Arc<Toolbox>,
    tool_name: ToolName,
    name: String,
    description: String,
    parameters: Value,
) -> DynamicTool {
    let name: Arc<str> = name.into();
    DynamicTool::new_with_context(
        tool_name,
        description,
        parameters,
        move |context: &mut ToolContext, arguments| {
            let toolbox = Arc::clone(&toolbox);
            let name = Arc::clone(&name);
            let call_context = context.scope::<CallContext>();
            Box::pin(async move {
                let call = ToolCall::new(CALL_ID, &*name, arguments);
                let result = match call_context {
                    Some(context) => toolbox.call_with(call, &context).await,
                    None => toolbox.call(call).await,
                };
                answer(&toolbox, &result)
            })
        },
    )
}

/// What rig hands the model for `result`: the toolbox's message, as the
/// tool's output or as its error's model-visible output.
fn answer(toolbox: &Toolbox, result: &CallResult) -> Result<ToolOutput, ToolExecutionError> {
    let ToolMessage { text, note, .. } = toolbox.message(result);
    match &result.outcome {
        ToolOutcome::Ran { .. } => Ok(match note {
            None => ToolOutput::text(text),
            Some(note) => {
                let blocks = vec![ToolResultContent::text(text), ToolResultContent::text(note)];
                // rig refuses only an empty list of blocks.
                ToolOutput::content(blocks).unwrap_or_else(|_| ToolOutput::text(""))
            }
        }),
        ToolOutcome::Rejected(_) => Err(ToolExecutionError::invalid_args(text)),
        ToolOutcome::Failed { message } => {
            Err(ToolExecutionError::other(message.clone()).with_model_feedback(text))
        }
        ToolOutcome::TimedOut { .. } => Err(ToolExecutionError::timeout(text)),
        ToolOutcome::NoSuchTool { .. } => Err(ToolExecutionError::not_found(text)),
    }
}
