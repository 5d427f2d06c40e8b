//! Fixtures shared by tests/wire_openai.rs and tests/wire_async_openai.rs:
//! the tools they bind, the payloads OpenAI-compatible servers were
//! recorded sending, and the chunks and events the two APIs stream.
//!
//! Declared from each of them as
//! `#[path = "common/openai.rs"] mod openai_fixtures;`, beside `mod common;`.
#![allow(dead_code)]

use canon::{tool, ToolCall, Toolbox};
use serde_json::{json, Value};

use crate::common::SearchCode;

// ---------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------

/// Forecast the weather.
#[tool]
pub fn forecast(
    /// Where.
    city: String,
    /// How many days.
    #[arg(default = 3)]
    days: u32,
    /// The unit.
    unit: Option<String>,
) -> String {
    format!(
        "{city}: {days} days in {}",
        unit.unwrap_or("celsius".into())
    )
}

/// Takes no arguments.
#[tool]
pub fn ping() -> &'static str {
    "pong"
}

/// Tags a document with any metadata (an any-value parameter, which a
/// strict declaration cannot express).
#[tool]
pub fn tag(meta: serde_json::Value) -> String {
    meta.to_string()
}

/// `search_code`, `forecast` and `ping` (not `tag`), with repair notes.
pub fn toolbox() -> Toolbox {
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox
        .add(SearchCode)
        .unwrap()
        .add(Forecast)
        .unwrap()
        .add(Ping)
        .unwrap();
    toolbox
}

// ---------------------------------------------------------------------
// Recorded payload shapes
// ---------------------------------------------------------------------

/// gpt-4o, two parallel calls: a near miss (one string for an array of
/// strings) and a call with the nulls a strict declaration allows.
pub fn openai_parallel() -> Value {
    json!({
        "id": "chatcmpl-BGWf1FZ4M8Gk3lS5vIc0Rr2jVxQ7d",
        "object": "chat.completion",
        "created": 1743760547,
        "model": "gpt-4o-2024-08-06",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    {
                        "id": "call_8qty38WBCHIMvZl9lFmmhZSr",
                        "type": "function",
                        "function": {
                            "name": "search_code",
                            "arguments": "{\"data_source_names\":\"dotnet/eshop\",\"query\":\"basket\"}"
                        }
                    },
                    {
                        "id": "call_Zq6uB1bJRZtFz5ZbNwdOeLq4",
                        "type": "function",
                        "function": {
                            "name": "forecast",
                            "arguments": "{\"city\":\"Paris\",\"days\":null,\"unit\":null}"
                        }
                    }
                ],
                "refusal": null,
                "annotations": []
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 161, "completion_tokens": 58, "total_tokens": 219},
        "service_tier": "default",
        "system_fingerprint": "fp_b705f0c291"
    })
}

/// vLLM 0.8 (`--tool-call-parser hermes`): fields OpenAI does not send.
pub fn vllm() -> Value {
    json!({
        "id": "chatcmpl-6a1b0a0f3bd94c1b9f8e5f2d0c7e4a11",
        "object": "chat.completion",
        "created": 1745912345,
        "model": "Qwen/Qwen2.5-7B-Instruct",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "reasoning_content": null,
                "content": null,
                "tool_calls": [{
                    "id": "chatcmpl-tool-0b3e2b8c8c2f4c0e8a1d7f5e9b6a4c3d",
                    "type": "function",
                    "function": {"name": "forecast", "arguments": "{\"city\": \"Oslo\", \"days\": 2}"}
                }]
            },
            "logprobs": null,
            "finish_reason": "tool_calls",
            "stop_reason": null
        }],
        "usage": {"prompt_tokens": 301, "total_tokens": 327, "completion_tokens": 26, "prompt_tokens_details": null},
        "prompt_logprobs": null
    })
}

/// llama.cpp's server (`--jinja`): `id` after `function`.
pub fn llama_cpp() -> Value {
    json!({
        "choices": [{
            "finish_reason": "tool_calls",
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [{
                    "type": "function",
                    "function": {"name": "ping", "arguments": "{}"},
                    "id": "uHiRUGcxw2kDRmMHkwY9FMr4tLJnLC3b"
                }]
            }
        }],
        "created": 1745912400,
        "model": "gpt-3.5-turbo",
        "system_fingerprint": "b5225-9f2da587",
        "object": "chat.completion",
        "usage": {"completion_tokens": 12, "prompt_tokens": 210, "total_tokens": 222},
        "id": "chatcmpl-Yy3hH6c3Jc0hBu0pKpJmG0d2kX6zN2aQ"
    })
}

/// gpt-4.1 through `/v1/responses`: reasoning, a message, two calls.
pub fn responses_parallel() -> Value {
    json!({
        "id": "resp_67ccf18ef5fc8190b16dbee19bc54e5f087bb177ab789d5c",
        "object": "response",
        "created_at": 1741484430,
        "status": "completed",
        "error": null,
        "incomplete_details": null,
        "model": "gpt-4.1-2025-04-14",
        "output": [
            {"type": "reasoning", "id": "rs_67ccf18f64008190a39b619f4c8455ef", "summary": []},
            {"type": "message", "id": "msg_67ccf190ca3881909d433c50b1f6357e", "status": "completed",
             "role": "assistant", "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}]},
            {"type": "function_call", "id": "fc_67ccf18f64008190a39b619f4c8455ef",
             "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k", "name": "search_code",
             "arguments": SEARCH, "status": "completed"},
            {"type": "function_call", "id": "fc_67ccf1906c248190a7cbc3a7b8f8b9c1",
             "call_id": "call_3nMqXkzeSWsRgtbvjtE1JQ8a", "name": "forecast",
             "arguments": FORECAST, "status": "completed"}
        ],
        "parallel_tool_calls": true,
        "tool_choice": "auto",
        "tools": [],
        "usage": {"input_tokens": 291, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 23, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 314}
    })
}

/// Arguments with an escape (`\u00e9`), escaped quotes and a character of
/// two bytes: splits fall inside each.
pub const SEARCH: &str =
    "{\"data_source_names\":\"dotnet/eshop\",\"query\":\"caf\\u00e9 \\\"basket\\\" \u{fc}\"}";
pub const FORECAST: &str = "{\"city\":\"Paris\",\"days\":2,\"unit\":null}";

// ---------------------------------------------------------------------
// Chat Completions streams
// ---------------------------------------------------------------------

/// One chunk of a `/v1/chat/completions` stream, as gpt-4o sends it.
pub fn chat_chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-BGWf1FZ4M8Gk3lS5vIc0Rr2jVxQ7d",
        "object": "chat.completion.chunk",
        "created": 1743760547,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_b705f0c291",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
    })
}

/// The chunks OpenAI streams for `calls` (id, name, arguments), each
/// call's arguments cut at `cuts[i]` (byte offsets, ascending), ending
/// with the usage chunk `stream_options.include_usage` adds.
pub fn chat_chunks(calls: &[(&str, &str, &str)], cuts: &[Vec<usize>]) -> Vec<Value> {
    let mut chunks = vec![chat_chunk(
        json!({"role": "assistant", "content": null, "refusal": null}),
        None,
    )];
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        chunks.push(chat_chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        let mut from = 0;
        let ends = cuts.get(index).cloned().unwrap_or_default();
        for end in ends.into_iter().chain([arguments.len()]) {
            chunks.push(chat_chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": &arguments[from..end]}}]}),
                None,
            ));
            from = end;
        }
    }
    chunks.push(chat_chunk(json!({}), Some("tool_calls")));
    chunks.push(
        json!({"id": "chatcmpl-BGWf1FZ4M8Gk3lS5vIc0Rr2jVxQ7d", "object": "chat.completion.chunk",
        "created": 1743760547, "model": "gpt-4o-2024-08-06", "choices": [],
        "usage": {"prompt_tokens": 161, "completion_tokens": 58, "total_tokens": 219}}),
    );
    chunks
}

/// The calls of a stream, without the number of the chunk or event that
/// returned each.
pub fn calls_only(calls: Vec<(usize, ToolCall)>) -> Vec<ToolCall> {
    calls.into_iter().map(|(_, call)| call).collect()
}

/// The calls of [`responses_parallel`] (id, name, arguments), to stream.
pub fn two_calls() -> [(&'static str, &'static str, &'static str); 2] {
    [
        ("call_unLAR8MvFNptuiZK6K6HCy5k", "search_code", SEARCH),
        ("call_3nMqXkzeSWsRgtbvjtE1JQ8a", "forecast", FORECAST),
    ]
}

// ---------------------------------------------------------------------
// Responses API streams
// ---------------------------------------------------------------------

/// The events `/v1/responses` streams for `response` (as
/// [`responses_parallel`]), its calls' arguments cut at `cuts`; with
/// `whole`, each `arguments.done` carries the whole text.
pub fn response_events(response: &Value, cuts: &[Vec<usize>], whole: bool) -> Vec<Value> {
    let mut created = response.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    created.as_object_mut().unwrap().remove("usage");
    let mut events =
        vec![json!({"type": "response.created", "sequence_number": 0, "response": created})];
    let mut seq = 1;
    let mut event = |mut value: Value| {
        value["sequence_number"] = json!(seq);
        seq += 1;
        value
    };
    let output = response["output"].as_array().unwrap();
    let mut calls = 0;
    for (output_index, item) in output.iter().enumerate() {
        if item["type"] != "function_call" {
            events.push(event(json!({"type": "response.output_item.added", "output_index": output_index, "item": item})));
            if item["type"] == "message" {
                events.push(event(json!({"type": "response.output_text.delta", "item_id": item["id"],
                    "output_index": output_index, "content_index": 0, "delta": item["content"][0]["text"], "logprobs": []})));
            }
            events.push(event(json!({"type": "response.output_item.done", "output_index": output_index, "item": item})));
            continue;
        }
        let mut added = item.clone();
        added["arguments"] = json!("");
        added["status"] = json!("in_progress");
        events.push(event(json!({"type": "response.output_item.added", "output_index": output_index, "item": added})));
        let arguments = item["arguments"].as_str().unwrap();
        let mut from = 0;
        let ends = cuts.get(calls).cloned().unwrap_or_default();
        for end in ends.into_iter().chain([arguments.len()]) {
            events.push(event(json!({"type": "response.function_call_arguments.delta",
                "item_id": item["id"], "output_index": output_index, "delta": &arguments[from..end]})));
            from = end;
        }
        let whole_text = if whole { arguments } else { "" };
        events.push(event(
            json!({"type": "response.function_call_arguments.done",
            "item_id": item["id"], "output_index": output_index, "arguments": whole_text}),
        ));
        events.push(event(json!({"type": "response.output_item.done", "output_index": output_index, "item": item})));
        calls += 1;
    }
    events.push(event(
        json!({"type": "response.completed", "response": response}),
    ));
    events
}
