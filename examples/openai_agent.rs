//! A complete agent loop against an OpenAI-compatible Chat Completions
//! endpoint, streaming: canon declares the tools, reads each tool call from
//! the stream and starts it as soon as it is complete (parallel calls run
//! concurrently), binds it (repairing a near miss, refusing what it may
//! not repair with feedback for the model), and sends the results back,
//! until the model answers.
//!
//! Offline (a stand-in server on 127.0.0.1 replays a recorded OpenAI
//! stream: a near miss, a refused call, its retry, the answer):
//!
//! ```sh
//! cargo run --example openai_agent --features openai
//! ```
//!
//! Against a real endpoint (`OPENAI_API_KEY` is optional for local servers):
//!
//! ```sh
//! OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-... MODEL=gpt-4o-mini \
//!     cargo run --example openai_agent --features openai
//! OPENAI_BASE_URL=http://localhost:11434/v1 MODEL=qwen2.5:3b \
//!     cargo run --example openai_agent --features openai
//! ```

#[path = "openai_agent/http.rs"]
mod http;
#[path = "openai_agent/stand_in.rs"]
mod stand_in;

use std::process::ExitCode;
use std::sync::Arc;

use canon::openai::{self, ChatStream};
use canon::toolbox::Arguments;
use canon::{tool, CallResult, ToolCall, ToolOutcome, Toolbox};
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The code the search tool searches: `repo:file:line: text`.
const CODE: &[&str] = &[
    "dotnet/eshop:src/Basket.API/Model/CustomerBasket.cs:31: public decimal GetTotal() => Items.Sum(i => i.UnitPrice * i.Quantity);",
    "dotnet/eshop:src/Ordering.API/Application/Queries/OrderQueries.cs:58: Total = order.Items.Sum(i => i.Units * i.UnitPrice),",
];

/// Search code in the given repositories; each hit is `repo:file:line: text`.
#[tool]
fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    repos: Vec<String>,
    /// The text to look for; quote it for an exact phrase.
    query: String,
) -> Vec<String> {
    let needle = query.trim_matches('"').to_lowercase();
    let hits = CODE.iter().filter(|hit| {
        let in_repos = repos.iter().any(|r| hit.starts_with(&format!("{r}:")));
        in_repos && hit.to_lowercase().contains(&needle)
    });
    hits.map(|hit| hit.to_string()).collect()
}

/// Read an issue: its title, state and description.
#[tool]
fn get_issue(
    /// The repository, like "dotnet/eshop".
    repo: String,
    /// The issue number.
    number: u64,
) -> Result<String, String> {
    match (repo.as_str(), number) {
        ("dotnet/eshop", 412) => Ok("#412 Basket total ignores discounts (open): the total is computed before coupons are applied.".into()),
        _ => Err(format!("{repo} has no issue #{number}")),
    }
}

const QUESTION: &str =
    "Where is the basket total computed in dotnet/eshop, and what does issue #412 say about it?";
const MAX_TURNS: usize = 6;

/// A call started as the stream yielded it: the entry the assistant
/// message carries, and the task running it.
type Started = (Value, JoinHandle<CallResult>);

#[tokio::main]
async fn main() -> ExitCode {
    if let Err(error) = run().await {
        eprintln!("error: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

async fn run() -> Result<(), String> {
    let (base_url, model) = match std::env::var("OPENAI_BASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
    {
        Some(url) => (url, std::env::var("MODEL").map_err(|_| "set MODEL too")?),
        None => {
            let url = stand_in::start().map_err(|e| format!("stand-in server: {e}"))?;
            println!("no OPENAI_BASE_URL: replaying a recorded model at {url}");
            (url, "stand-in".to_owned())
        }
    };
    let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
    let key = std::env::var("OPENAI_API_KEY")
        .ok()
        .filter(|k| !k.is_empty());

    // Tools in: the toolbox declares its tools, and binds what it declared.
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(SearchCode).map_err(|e| e.to_string())?;
    toolbox.add(GetIssue).map_err(|e| e.to_string())?;
    let tools = openai::tools(&toolbox, false).map_err(|e| e.to_string())?;
    let toolbox = Arc::new(toolbox);

    println!("user: {QUESTION}");
    let mut messages = vec![json!({"role": "user", "content": QUESTION})];
    for turn in 1..=MAX_TURNS {
        println!("== turn {turn}");
        let request = json!({"model": model, "messages": messages, "tools": tools, "stream": true});
        let (text, started) = stream_turn(&url, key.clone(), request, &toolbox).await?;
        if started.is_empty() {
            println!("answer: {text}");
            return Ok(());
        }
        if !text.is_empty() {
            println!("model: {text}");
        }
        let (mut asked, mut replies) = (Vec::new(), Vec::new());
        for (call, running) in started {
            let result = running.await.map_err(|e| format!("tool task: {e}"))?;
            report(&result);
            asked.push(call);
            replies.push(toolbox.message(&result));
        }
        // Results back: the assistant message as streamed, then a tool
        // message per call, carrying the tool's result or canon's feedback.
        let content = Some(text).filter(|t| !t.is_empty());
        messages.push(json!({"role": "assistant", "content": content, "tool_calls": asked}));
        messages.extend(openai::tool_messages(&replies));
    }
    Err(format!("no answer after {MAX_TURNS} turns"))
}

/// Sends one request and reads its stream: returns the text the model
/// wrote and each tool call, started as soon as the stream completed it.
async fn stream_turn(
    url: &str,
    key: Option<String>,
    request: Value,
    toolbox: &Arc<Toolbox>,
) -> Result<(String, Vec<Started>), String> {
    let (sender, mut chunks) = mpsc::unbounded_channel();
    let url = url.to_owned();
    std::thread::spawn(move || {
        if let Err(error) = http::post_stream(&url, key, request.to_string(), &sender) {
            let _ = sender.send(Err(error));
        }
    });
    let (mut stream, mut text, mut started) = (ChatStream::new(), String::new(), Vec::new());
    let (mut count, mut finished) = (0, false);
    while let Some(chunk) = chunks.recv().await {
        let chunk = chunk?;
        count += 1;
        if let Some(error) = chunk.get("error") {
            return Err(format!(
                "the server sent an error: {}",
                short(&error.to_string())
            ));
        }
        let choice = &chunk["choices"][0];
        text.push_str(choice["delta"]["content"].as_str().unwrap_or(""));
        finished |= !choice["finish_reason"].is_null();
        // Calls out: each call as soon as its arguments are complete.
        for call in stream.push(&chunk) {
            started.push(start(call, count, toolbox));
        }
    }
    if !finished {
        return Err("the stream ended before the model finished its message".into());
    }
    for call in stream.finish() {
        started.push(start(call, count, toolbox));
    }
    println!("   (end of stream at chunk {count})");
    Ok((text, started))
}

/// Runs a call in the toolbox, on a task of its own.
fn start(call: ToolCall, chunk: usize, toolbox: &Arc<Toolbox>) -> Started {
    let arguments = match &call.arguments {
        Arguments::Text(text) => text.clone(),
        Arguments::Json(value) => value.to_string(),
    };
    println!(
        "-> {} {} {}  (started at chunk {chunk})",
        call.name,
        call.id,
        short(&arguments)
    );
    let function = json!({"name": call.name, "arguments": arguments});
    let asked = json!({"id": call.id, "type": "function", "function": function});
    let toolbox = Arc::clone(toolbox);
    (asked, tokio::spawn(async move { toolbox.call(call).await }))
}

/// Prints what became of a call: bound as sent, repaired, refused, failed.
fn report(result: &CallResult) {
    let what = match &result.outcome {
        ToolOutcome::Ran { output, repairs } => {
            let repairs = repairs
                .iter()
                .map(|r| format!("repaired {} ({})", r.pointer, r.rule.as_str()));
            let repairs = repairs.collect::<Vec<_>>().join(", ");
            let how = if repairs.is_empty() {
                "bound as sent"
            } else {
                &repairs
            };
            format!("{how}\n   result: {}", short(&output.to_string()))
        }
        ToolOutcome::Rejected(error) => {
            let why = error
                .violations()
                .iter()
                .map(|v| format!("{}: {}", v.location(), v.message));
            format!("refused: {}", short(&why.collect::<Vec<_>>().join("; ")))
        }
        _ => format!("failed: {}", short(&result.to_message(false).text)),
    };
    println!("<- {} {}: {what}", result.name, result.id);
}

/// `text` cut to at most 200 characters.
fn short(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}
