//! Answers provider payloads with a toolbox: reads each payload in a folder
//! (a response or a recorded stream of OpenAI Chat Completions, the
//! Responses API, Anthropic Messages or Gemini), runs its tool calls, and
//! writes the calls read and the replies in the provider's shape, with
//! repair notes on (each in a block of its own beside the output). The
//! checks in `tests/wire_sdk/` feed it payloads serialized by the official
//! SDKs and validate its replies with the same SDKs.
//!
//! Run: `cargo run --example wire --features openai,anthropic,gemini -- IN OUT`

use std::fs;
use std::path::Path;

use canon::toolbox::ToolMessage;
use canon::{anthropic, gemini, openai, tool, ToolCall, Toolbox};
use serde::Deserialize;
use serde_json::{json, Value};

/// Search code in the given data sources.
#[tool]
fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
) -> Vec<String> {
    data_source_names
        .into_iter()
        .map(|repo| format!("{repo}: {query}"))
        .collect()
}

/// A unit of temperature.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// The weather in a city.
#[tool]
fn get_weather(
    /// The city.
    city: String,
    /// The unit of the temperature.
    unit: Unit,
) -> String {
    let degrees = match unit {
        Unit::Celsius => "14 °C",
        Unit::Fahrenheit => "57 °F",
    };
    format!("{city}: {degrees}")
}

/// The calls in `payload`, read as the file's name says.
fn calls(name: &str, payload: &Value) -> Vec<ToolCall> {
    let events = || payload.as_array().into_iter().flatten();
    match name {
        "openai_chat.json" => openai::tool_calls(payload),
        "openai_chat_stream.json" => {
            let mut stream = openai::ChatStream::new();
            let mut calls: Vec<ToolCall> = events().flat_map(|e| stream.push(e)).collect();
            calls.extend(stream.finish());
            calls
        }
        "openai_responses.json" => openai::function_calls(payload),
        "openai_responses_stream.json" => {
            let mut stream = openai::ResponsesStream::new();
            let mut calls: Vec<ToolCall> = events().flat_map(|e| stream.push(e)).collect();
            calls.extend(stream.finish());
            calls
        }
        "anthropic_message.json" => anthropic::tool_calls(payload),
        "anthropic_stream.json" => {
            let mut stream = anthropic::MessageStream::new();
            let mut calls: Vec<ToolCall> = events().flat_map(|e| stream.push(e)).collect();
            calls.extend(stream.finish());
            calls
        }
        "gemini_response.json" => gemini::tool_calls(payload),
        _ => Vec::new(),
    }
}

/// The replies to `messages` in the shape the provider of `name` takes.
fn reply(name: &str, messages: &[ToolMessage]) -> Value {
    if name.starts_with("openai_chat") {
        json!(openai::tool_messages(messages))
    } else if name.starts_with("openai_responses") {
        json!(messages
            .iter()
            .map(openai::function_call_output)
            .collect::<Vec<_>>())
    } else if name.starts_with("anthropic") {
        anthropic::user_message(messages)
    } else {
        gemini::user_content(messages)
    }
}

/// A call as the checks compare it: its arguments as a JSON value.
fn described(call: &ToolCall) -> Value {
    let arguments = match &call.arguments {
        canon::toolbox::Arguments::Json(value) => value.clone(),
        canon::toolbox::Arguments::Text(text) => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
    };
    json!({"id": call.id, "name": call.name, "arguments": arguments})
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(input), Some(output)) = (args.next(), args.next()) else {
        return Err("usage: wire IN OUT".into());
    };
    let (input, output) = (Path::new(&input), Path::new(&output));
    fs::create_dir_all(output.join("calls"))?;
    fs::create_dir_all(output.join("replies"))?;
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(SearchCode)?.add(GetWeather)?;
    let mut names: Vec<String> = fs::read_dir(input)?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    names.sort();
    for name in names.iter().filter(|n| *n != "expected.json") {
        let payload: Value = serde_json::from_str(&fs::read_to_string(input.join(name))?)?;
        let calls = calls(name, &payload);
        let read: Vec<Value> = calls.iter().map(described).collect();
        let results = toolbox.call_batch(calls).await;
        let messages: Vec<ToolMessage> = results.iter().map(|r| toolbox.message(r)).collect();
        for (result, message) in results.iter().zip(&messages) {
            let what = if result.outcome.is_error() {
                "refused"
            } else {
                "ran"
            };
            println!("{name}: {} {what}: {}", result.name, message.text);
            if let Some(note) = &message.note {
                println!("{name}: {} note: {note}", result.name);
            }
        }
        fs::write(
            output.join("calls").join(name),
            serde_json::to_string_pretty(&read)?,
        )?;
        let reply = reply(name, &messages);
        fs::write(
            output.join("replies").join(name),
            serde_json::to_string_pretty(&reply)?,
        )?;
    }
    Ok(())
}
