#![cfg(feature = "rig")]
//! canon's tools in rig: rig's OpenAI Chat Completions wire talks to a
//! scripted model (an HTTP double: no network, no clock), the tools are
//! `canon::rig::tools`, and each turn runs the way rig's agent runtime runs
//! it: the request is the conversation and the tools' definitions, each
//! call is dispatched to the tool's handler (`rig_core::serve`), and its
//! result goes back as `rig_core::transcript::tool_result_output` shapes
//! it. The model's side is asserted on the HTTP bodies rig sends.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use canon::export::Dialect;
use canon::{rig, tool, RepairRule, Toolbox};
use rig_core::completion::{CompletionRequest, Message};
use rig_core::driver::Model;
use rig_core::effect::{EffectKind, Outcome};
use rig_core::http_client::{self, HttpClientExt, LazyBody, MultipartForm, Request, Response};
use rig_core::providers::openai::wire::Chat;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolResult};
use rig_core::transcript::tool_result_output;
use serde_json::{json, Value};

/// Search code in the given data sources.
#[tool]
fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> String {
    format!(
        "{} hits for {query} in {}",
        limit.unwrap_or(10),
        data_source_names.join(", ")
    )
}

/// Where a change goes.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Target {
    /// The repository, like "dotnet/eshop".
    repository: String,
    /// Branches to push to.
    branches: Vec<String>,
    /// Reviewers, if any.
    reviewers: Option<Vec<String>>,
}

/// How a change is made.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Change {
    /// Replace text.
    Replace { from: String, to: String },
    /// Delete files.
    Delete { paths: Vec<String> },
}

/// Open a pull request.
#[tool]
fn open_pull_request(
    /// Where.
    target: Target,
    /// What.
    change: Change,
    /// A draft?
    draft: Option<bool>,
) -> String {
    let what = match change {
        Change::Replace { from, to } => format!("replace {from} with {to}"),
        Change::Delete { paths } => format!("delete {}", paths.join(", ")),
    };
    let draft = if draft == Some(true) { "draft " } else { "" };
    format!(
        "{draft}PR on {} ({}): {what}; reviewers {:?}",
        target.repository,
        target.branches.join(", "),
        target.reviewers
    )
}

/// Deploy a service.
#[tool]
fn deploy(service: String) -> Result<String, String> {
    Err(format!("{service} is frozen until Monday"))
}

/// Always panics.
#[tool]
fn explode() -> String {
    panic!("secret token sk-123")
}

// ---------------------------------------------------------------------------
// The scripted model: an HTTP client double for rig's OpenAI wire.

/// `bytes::Bytes`, which rig's HTTP client trait names, reached through
/// rig's own `LazyBytes` (this crate has no `bytes` dependency).
trait Resolves {
    type Value;
}

impl<T> Resolves for Pin<Box<dyn Future<Output = Result<T, http_client::Error>> + Send>> {
    type Value = T;
}

type Bytes = <http_client::LazyBytes as Resolves>::Value;

/// Answers each request with the next scripted Chat Completions response,
/// and keeps every request body.
#[derive(Clone, Default)]
struct ScriptedModel {
    replies: Arc<Mutex<VecDeque<Value>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedModel {
    fn new(replies: impl IntoIterator<Item = Value>) -> Self {
        ScriptedModel {
            replies: Arc::new(Mutex::new(replies.into_iter().collect())),
            requests: Arc::default(),
        }
    }

    /// The request bodies rig sent, in order.
    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

impl HttpClientExt for ScriptedModel {
    fn send<T, U>(
        &self,
        request: Request<T>,
    ) -> impl Future<Output = http_client::Result<Response<LazyBody<U>>>> + Send + 'static
    where
        T: Into<Bytes> + Send,
        U: From<Bytes> + Send + 'static,
    {
        let body: Bytes = request.into_body().into();
        let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
        self.requests.lock().unwrap().push(body);
        let reply = self.replies.lock().unwrap().pop_front();
        let reply = reply.expect("the model was asked more often than scripted");
        let bytes = Bytes::from(reply.to_string().into_bytes());
        let lazy: LazyBody<U> = Box::pin(async move { Ok(U::from(bytes)) });
        std::future::ready(
            Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(lazy)
                .map_err(http_client::Error::from),
        )
    }

    fn send_multipart<U>(
        &self,
        _: Request<MultipartForm>,
    ) -> impl Future<Output = http_client::Result<Response<LazyBody<U>>>> + Send + 'static
    where
        U: From<Bytes> + Send + 'static,
    {
        std::future::ready(Err(http_client::Error::StreamEnded))
    }

    fn send_streaming<T>(
        &self,
        _: Request<T>,
    ) -> impl Future<Output = http_client::Result<http_client::StreamingResponse>> + Send
    where
        T: Into<Bytes> + Send,
    {
        std::future::ready(Err(http_client::Error::StreamEnded))
    }
}

/// A Chat Completions response calling `name` with `arguments` (as text, as
/// OpenAI sends them).
fn calls(id: &str, name: &str, arguments: Value) -> Value {
    json!({
        "id": format!("chatcmpl-{id}"),
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()}
                }]
            },
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
}

/// A Chat Completions response answering with `text`.
fn answers(text: &str) -> Value {
    json!({
        "id": "chatcmpl-final",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-4o-mini",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
}

// ---------------------------------------------------------------------------
// The agent loop, as rig's agent runtime runs a turn.

/// Runs `prompt` to the model's final text, at most `max_turns` requests.
async fn prompt(
    model: &Model<Chat, ScriptedModel>,
    tools: &[DynamicTool],
    prompt: &str,
    max_turns: usize,
) -> String {
    let definitions: Vec<_> = tools.iter().map(DynamicTool::definition).collect();
    let mut history: Vec<Message> = vec![Message::user(prompt)];
    for _ in 0..max_turns {
        let (last, earlier) = history.split_last().expect("a conversation");
        let request = CompletionRequest::new(last.clone())
            .messages(earlier.to_vec())
            .tools(definitions.clone());
        let response = model.call(request).await.expect("the model answers");
        let calls: Vec<_> = response.tool_calls().cloned().collect();
        history.extend(response.message());
        if calls.is_empty() {
            return response.text();
        }
        let mut results = Vec::new();
        for call in calls {
            let tool = tools
                .iter()
                .find(|tool| *tool.name() == call.function.name)
                .expect("a tool the agent has");
            let effect = EffectKind::ToolCall {
                name: call.function.name.to_string(),
                args: call.function.arguments_value().to_string(),
            };
            let result = match rig_core::serve::serve_inline(tool.handler(), effect).await {
                Ok(Outcome::ToolResult { result }) => result,
                other => ToolResult::failed(ToolExecutionError::other(format!("{other:?}"))),
            };
            results.push(tool_result_output(call.id, call.function.name, &result));
        }
        history.push(Message::from(results));
    }
    panic!("no final answer within {max_turns} turns")
}

/// The tool message of the call `id` in a request body.
fn tool_message<'a>(request: &'a Value, id: &str) -> &'a Value {
    request["messages"]
        .as_array()
        .and_then(|messages| messages.iter().find(|m| m["tool_call_id"] == id))
        .unwrap_or_else(|| panic!("no tool message for {id} in {request:#}"))
}

/// The text of the tool message of the call `id` in a request body.
fn tool_text(request: &Value, id: &str) -> String {
    match &tool_message(request, id)["content"] {
        Value::String(text) => text.clone(),
        other => panic!("tool content is not text: {other}"),
    }
}

fn chat(strict: bool) -> Chat {
    let chat = OpenAIConfig::new("sk-test").chat("gpt-4o-mini");
    if strict {
        chat.with_strict_tools()
    } else {
        chat
    }
}

// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_near_miss_runs_a_broken_call_gets_feedback_and_the_retry_succeeds() {
    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode).unwrap();
    let toolbox = Arc::new(toolbox);
    let tools = rig::tools(Arc::clone(&toolbox)).unwrap();

    let model = ScriptedModel::new([
        // A bare string where the schema says array of strings.
        calls(
            "call_1",
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "basket"}),
        ),
        // A number as text and no query: nothing canon repairs.
        calls(
            "call_2",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "limit": "five"}),
        ),
        calls(
            "call_3",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "query": "order", "limit": 5}),
        ),
        answers("Found the basket and order code."),
    ]);
    let agent = Model::new(chat(false), model.clone());

    let answer = prompt(&agent, &tools, "Where is the basket code?", 5).await;
    assert_eq!(answer, "Found the basket and order code.");

    let requests = model.requests();
    assert_eq!(requests.len(), 4);

    // What rig declares to the model is canon's export (rig leaves out
    // `"strict": false`).
    let mut export = toolbox.export(Dialect::OpenAi { strict: false }).unwrap();
    for tool in export.as_array_mut().unwrap() {
        tool["function"].as_object_mut().unwrap().remove("strict");
    }
    for request in &requests {
        assert_eq!(request["tools"], export);
    }

    // The near miss ran, repaired.
    assert_eq!(
        tool_text(&requests[1], "call_1"),
        "10 hits for basket in dotnet/eshop"
    );
    // The broken call did not run: the model read canon's feedback.
    let feedback = tool_text(&requests[2], "call_2");
    insta::assert_snapshot!("feedback", feedback);
    assert_eq!(
        *tool_message(&requests[2], "call_2"),
        json!({"role": "tool", "tool_call_id": "call_2", "content": feedback})
    );
    // The retry ran.
    assert_eq!(
        tool_text(&requests[3], "call_3"),
        "5 hits for order in dotnet/eshop"
    );

    let stats = &toolbox.stats()["search_code"];
    assert_eq!((stats.calls, stats.ran, stats.rejected), (3, 2, 1));
    assert_eq!(stats.repairs.get(&RepairRule::ScalarToArray), Some(&1));
}

#[tokio::test]
async fn a_strict_wire_sends_canons_strict_export_and_null_binds_as_absent() {
    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode).unwrap();
    toolbox.add(OpenPullRequest).unwrap();
    let toolbox = Arc::new(toolbox);
    let tools = rig::strict_tools(Arc::clone(&toolbox)).unwrap();

    let model = ScriptedModel::new([
        // Strict mode: every parameter sent, `null` for the limit left out;
        // still a bare string for the array.
        calls(
            "call_1",
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "basket", "limit": null}),
        ),
        calls(
            "call_2",
            "open_pull_request",
            json!({
                "target": {"repository": "dotnet/eshop", "branches": "main", "reviewers": null},
                "change": {"kind": "delete", "paths": "old.cs"},
                "draft": null
            }),
        ),
        answers("done"),
    ]);
    let agent = Model::new(chat(true), model.clone());

    assert_eq!(prompt(&agent, &tools, "Search.", 3).await, "done");
    let requests = model.requests();
    // rig's strict rewrite leaves canon's strict export as it is.
    let export = toolbox.export(Dialect::OpenAi { strict: true }).unwrap();
    assert_eq!(requests[0]["tools"], export);
    assert_eq!(
        export[0]["function"]["parameters"]["required"],
        json!(["data_source_names", "query", "limit"])
    );
    // The nested `$ref`s and the tagged enum are in it.
    let parameters = &export[1]["function"]["parameters"];
    assert!(parameters["$defs"]["Change"]["anyOf"].is_array());
    assert_eq!(
        tool_text(&requests[1], "call_1"),
        "10 hits for basket in dotnet/eshop"
    );
    assert_eq!(
        tool_text(&requests[2], "call_2"),
        "PR on dotnet/eshop (main): delete old.cs; reviewers None"
    );
    // The `null`s are what the declaration allows, not repairs; the bare
    // strings are.
    for (tool, repairs) in [("search_code", 1), ("open_pull_request", 2)] {
        let stats = &toolbox.stats()[tool];
        assert_eq!((stats.ran, stats.rejected), (1, 0));
        assert_eq!(
            stats.repairs.get(&RepairRule::ScalarToArray),
            Some(&repairs)
        );
        assert_eq!(stats.repairs.values().sum::<u64>(), repairs);
    }
}

#[tokio::test]
async fn tool_errors_and_panics_reach_the_model_as_canon_says_them() {
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(Deploy).unwrap();
    toolbox.add(Explode).unwrap();
    toolbox.add(SearchCode).unwrap();
    let tools = rig::tools(toolbox).unwrap();

    let model = ScriptedModel::new([
        calls("call_1", "deploy", json!({"service": "billing"})),
        calls("call_2", "explode", json!({})),
        calls(
            "call_3",
            "search_code",
            json!({"data_source_names": "a/b", "query": "q"}),
        ),
        answers("ok"),
    ]);
    let agent = Model::new(chat(false), model.clone());
    assert_eq!(prompt(&agent, &tools, "Go.", 5).await, "ok");

    let requests = model.requests();
    assert_eq!(
        tool_text(&requests[1], "call_1"),
        "The tool `deploy` failed: billing is frozen until Monday"
    );
    // The panic's text stays with the operator.
    assert_eq!(
        tool_text(&requests[2], "call_2"),
        "The tool `explode` failed unexpectedly."
    );
    // With repair notes, the result says what to send next time.
    insta::assert_snapshot!("repair_note", tool_text(&requests[3], "call_3"));
}

#[tokio::test]
async fn outcomes_map_to_rigs_error_kinds_with_canons_text() {
    let mut toolbox = Toolbox::new();
    toolbox.add(Deploy).unwrap();
    toolbox.add(Explode).unwrap();
    toolbox.add(SearchCode).unwrap();
    let tools = rig::tools(toolbox).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name().as_str()).collect();
    assert_eq!(names, ["deploy", "explode", "search_code"]);

    let error = tools[0]
        .execute(json!({"service": "api"}))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), rig_core::tool::ToolErrorKind::Other);
    assert_eq!(
        error.model_feedback(),
        Some("The tool `deploy` failed: api is frozen until Monday")
    );
    assert_eq!(error.message(), "api is frozen until Monday");

    let error = tools[1].execute(json!({})).await.unwrap_err();
    assert_eq!(
        error.model_feedback(),
        Some("The tool `explode` failed unexpectedly.")
    );
    assert_eq!(error.message(), "the tool panicked: secret token sk-123");

    // Whatever the model sends, an answer and never a panic.
    for arguments in [
        json!(null),
        json!("dotnet/eshop"),
        json!([1, 2]),
        json!({"data_source_names": [[[]]], "query": {"a": 1}}),
    ] {
        let error = tools[2].execute(arguments).await.unwrap_err();
        assert_eq!(error.kind(), rig_core::tool::ToolErrorKind::InvalidArgs);
        let feedback = error.model_feedback().unwrap();
        assert!(feedback.starts_with("The call to `search_code` was not run."));
    }
}

#[test]
fn a_tool_strict_mode_cannot_express_is_refused_with_its_pointer() {
    /// Tag things.
    #[tool]
    fn tag(labels: std::collections::BTreeMap<String, String>) -> usize {
        labels.len()
    }

    let mut toolbox = Toolbox::new();
    toolbox.add(Tag).unwrap();
    let toolbox = Arc::new(toolbox);
    let error = rig::strict_tools(Arc::clone(&toolbox)).unwrap_err();
    assert_eq!(error.tool, "tag");
    assert_eq!(error.pointer, "/properties/labels");
    // Without strict mode it is declared.
    assert_eq!(rig::tools(toolbox).unwrap().len(), 1);
}
