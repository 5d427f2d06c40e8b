#![cfg(feature = "rig")]
//! canon's tools in rig's own agent loop: rig-agent's `AgentBuilder` takes
//! `canon::rig::tools` with `.dynamic_tools(..)`, and `agent.prompt(..)`
//! runs the turns (model, tool calls, results back to the model, model
//! again). No network and no clock: two scripted models drive the loop.
//!
//! - rig-agent's scripted completion model (`MockCompletionModel`, from its
//!   `test-utils`): each request is read as rig's loop built it, tool
//!   results and their error flags included.
//! - rig's OpenAI Chat Completions wire over an HTTP double: what the model
//!   reads is asserted on the HTTP bodies rig sends (the declared tools,
//!   strict or not, and each tool message).

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use canon::export::Dialect;
use canon::toolbox::CallContext;
use canon::{rig, tool, Context, RepairRule, Toolbox};
use rig_agent::test_utils::{MockCompletionModel, MockTurn};
use rig_agent::AgentBuilder;
use rig_core::completion::{CompletionRequest, Message};
use rig_core::driver::Model;
use rig_core::http_client::{self, HttpClientExt, LazyBody, MultipartForm, Request, Response};
use rig_core::message::UserContent;
use rig_core::providers::openai::wire::Chat;
use rig_core::providers::openai::OpenAIConfig;
use rig_core::tool::ToolContext;
use serde_json::{json, Value};

/// What the model reads for the broken call (`limit: "five"`, no query).
const FEEDBACK: &str = "The call to `search_code` was not run. \
    /limit: expected an integer or null, got the string \"five\". \
    /query: required, expected a string. Fix these and call `search_code` again.";

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

/// The caller's tenant, from the call context.
#[derive(Clone)]
struct Tenant(String);

/// Say whose workspace this is.
#[tool]
fn whoami(tenant: Context<Tenant>) -> String {
    format!("tenant {}", tenant.0 .0)
}

// ---------------------------------------------------------------------------
// rig-agent's scripted completion model.

/// The tool results the model reads in a request rig's loop built: each
/// call's id, its text, and whether rig flags it as an error.
fn results(request: &CompletionRequest) -> Vec<(String, String, bool)> {
    let mut results = Vec::new();
    for message in &request.chat_history {
        if let Message::User { content } = message {
            for part in content {
                if let UserContent::ToolResult(result) = part {
                    let text: Vec<_> = result.content.iter().map(|c| c.as_text()).collect();
                    let text = text.into_iter().collect::<Option<String>>();
                    let text = text.expect("tool results are text");
                    results.push((result.call.wire().into_owned(), text, result.is_error));
                }
            }
        }
    }
    results
}

/// The result of the call `id`, as the model reads it in `request`.
fn result(request: &CompletionRequest, id: &str) -> (String, bool) {
    results(request)
        .into_iter()
        .find(|(call, ..)| call == id)
        .map(|(_, text, is_error)| (text, is_error))
        .unwrap_or_else(|| panic!("no result for {id} in {:?}", results(request)))
}

// ---------------------------------------------------------------------------
// An HTTP client double for rig's OpenAI wire.

/// Answers each request with the next scripted Chat Completions response,
/// and keeps every request body.
#[derive(Clone, Default)]
struct ScriptedOpenAi {
    replies: Arc<Mutex<VecDeque<Value>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

impl ScriptedOpenAi {
    fn new(replies: impl IntoIterator<Item = Value>) -> Self {
        ScriptedOpenAi {
            replies: Arc::new(Mutex::new(replies.into_iter().collect())),
            requests: Arc::default(),
        }
    }

    /// The request bodies rig sent, in order.
    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

impl HttpClientExt for ScriptedOpenAi {
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

/// rig's OpenAI Chat Completions wire, strict or not, over `http`.
fn openai(strict: bool, http: &ScriptedOpenAi) -> Model<Chat, ScriptedOpenAi> {
    let chat = OpenAIConfig::new("sk-test").chat("gpt-4o-mini");
    let chat = if strict {
        chat.with_strict_tools()
    } else {
        chat
    };
    Model::new(chat, http.clone())
}

// ---------------------------------------------------------------------------

#[tokio::test]
async fn rigs_agent_loop_runs_the_near_miss_feeds_back_the_broken_call_and_runs_the_retry() {
    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode).unwrap();
    let toolbox = Arc::new(toolbox);

    let model = MockCompletionModel::from_turns([
        // A bare string where the schema says array of strings.
        MockTurn::tool_call(
            "call_1",
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "basket"}),
        ),
        // A number as text and no query: nothing canon repairs.
        MockTurn::tool_call(
            "call_2",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "limit": "five"}),
        ),
        MockTurn::tool_call(
            "call_3",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "query": "order", "limit": 5}),
        ),
        MockTurn::text("Found the basket and order code."),
    ]);
    let agent = AgentBuilder::new(model.clone())
        .dynamic_tools(rig::tools(Arc::clone(&toolbox)).unwrap())
        .build();

    let response = agent
        .prompt("Where is the basket code?")
        .max_turns(5)
        .await
        .unwrap();
    assert_eq!(response.output(), "Found the basket and order code.");

    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    // The model is offered canon's declaration.
    let export = toolbox.export(Dialect::OpenAi { strict: false }).unwrap();
    let function = &export[0]["function"];
    let declared = json!([{
        "name": function["name"],
        "description": function["description"],
        "parameters": function["parameters"],
    }]);
    for request in &requests {
        assert_eq!(serde_json::to_value(&request.tools).unwrap(), declared);
    }

    // The near miss ran, repaired.
    let ran = ("10 hits for basket in dotnet/eshop".to_owned(), false);
    assert_eq!(result(&requests[1], "call_1"), ran);
    // The broken call did not run: rig's loop sent canon's feedback back as
    // the call's error result, and the model called again.
    assert_eq!(result(&requests[2], "call_2"), (FEEDBACK.to_owned(), true));
    // The retry ran.
    let ran = ("5 hits for order in dotnet/eshop".to_owned(), false);
    assert_eq!(result(&requests[3], "call_3"), ran);
    assert_eq!(results(&requests[3]).len(), 3);

    let stats = &toolbox.stats()["search_code"];
    assert_eq!((stats.calls, stats.ran, stats.rejected), (3, 2, 1));
    assert_eq!(stats.repairs.get(&RepairRule::ScalarToArray), Some(&1));
    assert_eq!(stats.repairs.values().sum::<u64>(), 1);
}

#[tokio::test]
async fn a_context_tool_reads_the_call_context_in_the_runs_tool_context() {
    let mut toolbox = Toolbox::new();
    toolbox.add(Whoami).unwrap();
    let toolbox = Arc::new(toolbox);
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("call_1", "whoami", json!({})),
        MockTurn::text("You are acme."),
        MockTurn::tool_call("call_2", "whoami", json!({})),
        MockTurn::text("I cannot tell."),
    ]);
    let agent = AgentBuilder::new(model.clone())
        .dynamic_tools(rig::tools(Arc::clone(&toolbox)).unwrap())
        .build();

    // canon's call context, attached to the run's tool context as a scope.
    let call_context = CallContext::new().with(Tenant("acme".into()));
    let tool_context = ToolContext::new().with_scope(Arc::new(call_context));
    let response = agent
        .prompt("Who am I?")
        .tool_context(tool_context)
        .max_turns(3)
        .await
        .unwrap();
    assert_eq!(response.output(), "You are acme.");
    let requests = model.requests();
    assert_eq!(
        result(&requests[1], "call_1"),
        ("tenant acme".into(), false)
    );

    // Without one, the call context is empty: the tool does not run, and
    // the model reads why.
    let response = agent.prompt("Who am I?").max_turns(3).await.unwrap();
    assert_eq!(response.output(), "I cannot tell.");
    let requests = model.requests();
    assert_eq!(
        result(&requests[3], "call_2"),
        (
            "The tool `whoami` failed: the caller supplied no `Tenant` in the call \
             context, so the tool did not run"
                .into(),
            true
        )
    );
    let stats = &toolbox.stats()["whoami"];
    assert_eq!((stats.calls, stats.ran, stats.rejected), (2, 1, 0));
}

#[tokio::test]
async fn on_openais_wire_the_model_reads_canons_declaration_and_feedback() {
    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode).unwrap();
    let toolbox = Arc::new(toolbox);

    let http = ScriptedOpenAi::new([
        calls(
            "call_1",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "limit": "five"}),
        ),
        calls(
            "call_2",
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "order", "limit": 5}),
        ),
        answers("Found the order code."),
    ]);
    let agent = AgentBuilder::new(openai(false, &http))
        .dynamic_tools(rig::tools(Arc::clone(&toolbox)).unwrap())
        .build();
    let response = agent
        .prompt("Where is the order code?")
        .max_turns(3)
        .await
        .unwrap();
    assert_eq!(response.output(), "Found the order code.");

    let requests = http.requests();
    assert_eq!(requests.len(), 3);
    // What rig declares to the model is canon's export (rig leaves out
    // `"strict": false`).
    let mut export = toolbox.export(Dialect::OpenAi { strict: false }).unwrap();
    for tool in export.as_array_mut().unwrap() {
        tool["function"].as_object_mut().unwrap().remove("strict");
    }
    for request in &requests {
        assert_eq!(request["tools"], export);
    }
    // The refusal is a plain tool message: canon's feedback is all of it.
    assert_eq!(
        *tool_message(&requests[1], "call_1"),
        json!({"role": "tool", "tool_call_id": "call_1", "content": FEEDBACK})
    );
    assert_eq!(
        tool_text(&requests[2], "call_2"),
        "5 hits for order in dotnet/eshop"
    );
}

#[tokio::test]
async fn a_strict_wire_sends_canons_strict_export_and_null_binds_as_absent() {
    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode).unwrap();
    toolbox.add(OpenPullRequest).unwrap();
    let toolbox = Arc::new(toolbox);

    let http = ScriptedOpenAi::new([
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
    // rig's OpenAI wire sends strict tools; canon declares its strict export.
    let agent = AgentBuilder::new(openai(true, &http))
        .dynamic_tools(rig::strict_tools(Arc::clone(&toolbox)).unwrap())
        .build();
    let response = agent.prompt("Search.").max_turns(3).await.unwrap();
    assert_eq!(response.output(), "done");
    let requests = http.requests();
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

    let http = ScriptedOpenAi::new([
        calls("call_1", "deploy", json!({"service": "billing"})),
        calls("call_2", "explode", json!({})),
        calls(
            "call_3",
            "search_code",
            json!({"data_source_names": "a/b", "query": "q"}),
        ),
        answers("ok"),
    ]);
    let agent = AgentBuilder::new(openai(false, &http))
        .dynamic_tools(rig::tools(toolbox).unwrap())
        .build();
    let response = agent.prompt("Go.").max_turns(4).await.unwrap();
    assert_eq!(response.output(), "ok");

    let requests = http.requests();
    assert_eq!(
        tool_text(&requests[1], "call_1"),
        "The tool `deploy` failed: billing is frozen until Monday"
    );
    // The panic's text stays with the operator.
    assert_eq!(
        tool_text(&requests[2], "call_2"),
        "The tool `explode` failed unexpectedly."
    );
    // With repair notes, the result says what to send next time. canon
    // hands rig the output and the note as two text blocks (below); rig's
    // Chat Completions encoder joins a result's text blocks into one string
    // unless the wire is built `with_tool_result_array_content`.
    insta::assert_snapshot!("repair_note", tool_text(&requests[3], "call_3"));
}

#[tokio::test]
async fn a_repaired_result_is_the_output_then_the_note_in_blocks_of_their_own() {
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(SearchCode).unwrap();
    let tools = rig::tools(toolbox).unwrap();
    let texts = |output: &rig_core::tool::ToolOutput| -> Vec<String> {
        output
            .as_content()
            .iter()
            .map(|block| block.as_text().expect("a text block").to_owned())
            .collect()
    };
    let exact = tools[0]
        .execute(json!({"data_source_names": ["a/b"], "query": "q"}))
        .await
        .unwrap();
    let near = tools[0]
        .execute(json!({"data_source_names": "a/b", "query": "q"}))
        .await
        .unwrap();
    assert_eq!(texts(&exact), ["10 hits for q in a/b"]);
    assert_eq!(
        texts(&near),
        [
            "10 hits for q in a/b",
            "(Note: /data_source_names was sent as a string and read as a one-element array; send an array.)"
        ]
    );

    // Where rig's wire sends content parts, the model reads them apart.
    let http = ScriptedOpenAi::new([
        calls(
            "call_1",
            "search_code",
            json!({"data_source_names": "a/b", "query": "q"}),
        ),
        answers("ok"),
    ]);
    let chat = OpenAIConfig::new("sk-test")
        .chat("gpt-4o-mini")
        .with_tool_result_array_content();
    let agent = AgentBuilder::new(Model::new(chat, http.clone()))
        .dynamic_tools(tools)
        .build();
    assert_eq!(
        agent.prompt("Go.").max_turns(2).await.unwrap().output(),
        "ok"
    );
    assert_eq!(
        tool_message(&http.requests()[1], "call_1")["content"],
        json!([
            {"type": "text", "text": "10 hits for q in a/b"},
            {"type": "text", "text": "(Note: /data_source_names was sent as a string and read as a one-element array; send an array.)"}
        ])
    );
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
