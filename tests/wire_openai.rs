//! The OpenAI wire formats (`canon::openai`): calls read from Chat
//! Completions and Responses API payloads as OpenAI, vLLM, llama.cpp and
//! Ollama send them, bound through a toolbox, answered in each format; the
//! streams read split anywhere; hostile input, bounded.
//!
//! No test here reads a clock: bounds are shown by counting calls and
//! bytes.
#![cfg(feature = "openai")]

mod common;
#[path = "common/openai.rs"]
mod openai_fixtures;

use std::collections::BTreeSet;

use canon::export::Dialect;
use canon::openai::{self, ChatStream, ResponsesStream, MAX_ARGUMENT_BYTES, MAX_PENDING_CALLS};
use canon::toolbox::{Arguments, ViolationKind};
use canon::{Limits, RepairRule, ToolCall, ToolOutcome, Toolbox};
use openai_fixtures::chat_chunk as chunk;
use openai_fixtures::{
    calls_only, chat_chunks, llama_cpp, openai_parallel, response_events, toolbox, two_calls, vllm,
    Forecast, Tag, FORECAST, SEARCH,
};
use proptest::prelude::*;
use serde_json::{json, Value};

fn text(arguments: &str) -> Arguments {
    Arguments::Text(arguments.to_owned())
}

// ---------------------------------------------------------------------
// Recorded payload shapes
// ---------------------------------------------------------------------

#[test]
fn an_openai_response_gives_its_parallel_calls_in_order() {
    let calls = openai::tool_calls(&openai_parallel());
    assert_eq!(
        calls,
        [
            ToolCall::new(
                "call_8qty38WBCHIMvZl9lFmmhZSr",
                "search_code",
                r#"{"data_source_names":"dotnet/eshop","query":"basket"}"#
            ),
            ToolCall::new(
                "call_Zq6uB1bJRZtFz5ZbNwdOeLq4",
                "forecast",
                r#"{"city":"Paris","days":null,"unit":null}"#
            ),
        ]
    );
    // The assistant message alone, and its `tool_calls` array, read the same.
    let message = &openai_parallel()["choices"][0]["message"];
    assert_eq!(openai::tool_calls(message), calls);
    assert_eq!(openai::tool_calls(&message["tool_calls"]), calls);
}

#[test]
fn a_vllm_response_and_a_llama_cpp_response_read_the_same_way() {
    // vLLM 0.8 (`--enable-auto-tool-choice --tool-call-parser hermes`).
    let vllm = vllm();
    assert_eq!(
        openai::tool_calls(&vllm),
        [ToolCall::new(
            "chatcmpl-tool-0b3e2b8c8c2f4c0e8a1d7f5e9b6a4c3d",
            "forecast",
            r#"{"city": "Oslo", "days": 2}"#
        )]
    );
    // llama.cpp's server (`--jinja`): the id is 32 random characters, and
    // `id` comes after `function`.
    let llama_cpp = llama_cpp();
    assert_eq!(
        openai::tool_calls(&llama_cpp),
        [ToolCall::new(
            "uHiRUGcxw2kDRmMHkwY9FMr4tLJnLC3b",
            "ping",
            "{}"
        )]
    );
}

#[test]
fn arguments_sent_as_an_object_stay_a_value() {
    // Ollama's own `/api/chat`: arguments as an object, no id (older
    // versions), no `type`.
    let ollama = json!({
        "model": "llama3.1:8b",
        "created_at": "2025-05-20T16:45:29.416829Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "forecast", "arguments": {"city": "Toronto"}}},
                {"function": {"name": "search_code", "arguments": {"data_source_names": "dotnet/eshop", "query": "order"}}}
            ]
        },
        "done_reason": "stop",
        "done": true,
        "total_duration": 2134875958u64,
        "eval_count": 28
    });
    assert_eq!(
        openai::tool_calls(&ollama),
        [
            ToolCall::new("call_0", "forecast", json!({"city": "Toronto"})),
            ToolCall::new(
                "call_1",
                "search_code",
                json!({"data_source_names": "dotnet/eshop", "query": "order"})
            ),
        ]
    );
    // An OpenAI-compatible server sending the same inside `choices`.
    let compatible = json!({"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "tool_calls",
    "message": {"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_uqt1o3yd", "index": 0, "type": "function",
         "function": {"name": "forecast", "arguments": {"city": "Lima", "days": 1}}}
    ]}}]});
    assert_eq!(
        openai::tool_calls(&compatible)[0].arguments,
        Arguments::Json(json!({"city": "Lima", "days": 1}))
    );
}

/// A response cut by `max_tokens`, from a server that also sends calls with
/// parts missing: every call is kept.
fn unreadable() -> Value {
    json!({"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "length", "message": {
    "role": "assistant", "content": null, "tool_calls": [
        {"id": "call_empty", "type": "function", "function": {"name": "ping", "arguments": ""}},
        {"id": "call_empty_required", "type": "function", "function": {"name": "forecast", "arguments": ""}},
        {"id": "call_null", "type": "function", "function": {"name": "forecast", "arguments": null}},
        {"id": "call_missing", "type": "function", "function": {"name": "ping"}},
        {"id": "call_array", "type": "function", "function": {"name": "forecast", "arguments": ["Paris"]}},
        {"type": "function", "function": {"name": "forecast", "arguments": "{\"city\": \"Rome\"}"}},
        {"id": "call_nameless", "type": "function", "function": {"arguments": "{}"}},
        "not a call",
        {"id": "call_cut", "type": "function", "function": {"name": "search_code",
         "arguments": "{\"data_source_names\": [\"dotnet/eshop\"], \"query\": \"bas"}}
    ]}}]})
}

#[test]
fn calls_with_parts_missing_or_unreadable_are_all_kept() {
    let calls = openai::tool_calls(&unreadable());
    assert_eq!(
        calls,
        [
            ToolCall::new("call_empty", "ping", ""),
            ToolCall::new("call_empty_required", "forecast", ""),
            ToolCall::new("call_null", "forecast", Value::Null),
            ToolCall::new("call_missing", "ping", ""),
            ToolCall::new("call_array", "forecast", json!(["Paris"])),
            ToolCall::new("call_5", "forecast", r#"{"city": "Rome"}"#),
            ToolCall::new("call_nameless", "", "{}"),
            ToolCall::new("call_7", "", ""),
            ToolCall::new(
                "call_cut",
                "search_code",
                r#"{"data_source_names": ["dotnet/eshop"], "query": "bas"#
            ),
        ]
    );
}

#[tokio::test]
async fn each_unreadable_call_gets_its_own_answer_and_the_others_run() {
    let toolbox = toolbox();
    let results = toolbox.call_batch(openai::tool_calls(&unreadable())).await;
    let outcome = |id: &str| &results.iter().find(|r| r.id == id).unwrap().outcome;
    // Empty, missing and null arguments are read as `{}`: a tool without
    // required parameters runs, with the repair recorded...
    for id in ["call_empty", "call_missing"] {
        match outcome(id) {
            ToolOutcome::Ran { output, repairs } => {
                assert_eq!(output, &json!("pong"));
                assert_eq!(repairs[0].rule, RepairRule::EmptyArguments);
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    // ...any other is refused, each required parameter named.
    for id in ["call_empty_required", "call_null"] {
        match outcome(id) {
            ToolOutcome::Rejected(error) => assert_eq!(error.pointers(), ["/city"], "{id}"),
            other => panic!("{id}: {other:?}"),
        }
    }
    match outcome("call_array") {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.violations()[0].kind, ViolationKind::WrongType)
        }
        other => panic!("{other:?}"),
    }
    match outcome("call_cut") {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.violations()[0].kind, ViolationKind::Malformed)
        }
        other => panic!("{other:?}"),
    }
    for id in ["call_nameless", "call_7"] {
        assert!(
            matches!(outcome(id), ToolOutcome::NoSuchTool { name, .. } if name.is_empty()),
            "{id}"
        );
    }
    // The call without an id ran, and its answer carries the id it was given.
    assert!(matches!(outcome("call_5"), ToolOutcome::Ran { .. }));
    // What the model reads, one message per call.
    let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
    insta::assert_json_snapshot!("unreadable_calls", openai::tool_messages(&messages));
}

#[test]
fn anything_else_gives_no_calls() {
    for value in [
        Value::Null,
        json!(true),
        json!(7),
        json!("tool_calls"),
        json!({}),
        json!({"choices": []}),
        json!({"choices": "x"}),
        json!({"choices": [{"message": {"role": "assistant", "content": "Hello!"}}]}),
        json!({"choices": [{"message": {"tool_calls": null}}]}),
        json!({"role": "assistant", "content": "Hi", "tool_calls": []}),
    ] {
        assert_eq!(openai::tool_calls(&value), [], "{value}");
        assert_eq!(openai::function_calls(&value), [], "{value}");
    }
}

// ---------------------------------------------------------------------
// Results out, and the whole loop
// ---------------------------------------------------------------------

#[tokio::test]
async fn a_near_miss_is_repaired_and_answered_in_both_formats() {
    let toolbox = toolbox();
    openai::tools(&toolbox, true).unwrap();
    let results = toolbox
        .call_batch(openai::tool_calls(&openai_parallel()))
        .await;
    match &results[0].outcome {
        ToolOutcome::Ran { repairs, .. } => {
            assert_eq!(repairs[0].pointer, "/data_source_names");
            assert_eq!(repairs[0].rule, RepairRule::ScalarToArray);
        }
        other => panic!("{other:?}"),
    }
    // `days: null` and `unit: null`, as the strict declaration allowed.
    assert_eq!(
        results[1].outcome,
        ToolOutcome::Ran {
            output: json!("Paris: 3 days in celsius"),
            repairs: canon::Repairs::new()
        }
    );
    let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
    insta::assert_json_snapshot!(
        "near_miss_repaired",
        json!({
            "chat": openai::tool_messages(&messages),
            "responses": openai::function_call_outputs(&messages),
        })
    );
    assert_eq!(
        openai::tool_message(&messages[0]),
        openai::tool_messages(&messages)[0]
    );
    assert_eq!(
        openai::function_call_output(&messages[1]),
        openai::function_call_outputs(&messages)[1]
    );
}

#[test]
fn a_failed_call_is_said_in_its_text_only() {
    let message = canon::toolbox::ToolMessage {
        id: "call_1".into(),
        name: "forecast".into(),
        text: "The call to `forecast` was not run.".into(),
        note: None,
        is_error: true,
    };
    assert_eq!(
        openai::tool_message(&message),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "The call to `forecast` was not run."})
    );
    assert_eq!(
        openai::function_call_output(&message),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "The call to `forecast` was not run."})
    );
}

// ---------------------------------------------------------------------
// Tools declared
// ---------------------------------------------------------------------

#[test]
fn tools_are_the_toolbox_export_in_each_shape() {
    let toolbox = toolbox();
    for strict in [false, true] {
        assert_eq!(
            openai::tools(&toolbox, strict).unwrap(),
            toolbox.export(Dialect::OpenAi { strict }).unwrap()
        );
        assert_eq!(
            openai::response_tools(&toolbox, strict).unwrap(),
            toolbox.export(Dialect::OpenAiResponses { strict }).unwrap()
        );
    }
    let chat = openai::tools(&toolbox, true).unwrap();
    assert_eq!(chat[1]["type"], "function");
    assert_eq!(chat[1]["function"]["name"], "forecast");
    assert_eq!(chat[1]["function"]["strict"], true);
    assert_eq!(
        chat[1]["function"]["parameters"]["properties"]["days"]["type"],
        json!(["integer", "null"])
    );
    let responses = openai::response_tools(&toolbox, false).unwrap();
    assert_eq!(responses[1]["name"], "forecast");
    assert_eq!(responses[1]["strict"], false);
    assert_eq!(
        responses[1]["parameters"]["properties"]["days"]["type"],
        "integer"
    );
}

async fn forecast_outcome(toolbox: &Toolbox) -> ToolOutcome {
    let call = ToolCall::new(
        "1",
        "forecast",
        r#"{"city": "Paris", "days": null, "unit": null}"#,
    );
    toolbox.call(call).await.outcome
}

#[tokio::test]
async fn a_strict_export_makes_the_toolbox_bind_the_nulls_it_declared() {
    for responses in [false, true] {
        let export = |toolbox: &Toolbox, strict| {
            if responses {
                openai::response_tools(toolbox, strict)
            } else {
                openai::tools(toolbox, strict)
            }
        };
        let toolbox = toolbox();
        // Not declared strict: `days: null` is a wrong type for a `u32`.
        export(&toolbox, false).unwrap();
        assert!(!toolbox.policy().nulls_declared());
        assert!(matches!(
            forecast_outcome(&toolbox).await,
            ToolOutcome::Rejected(_)
        ));
        // Declared strict (through `&self`): the null is the default.
        export(&toolbox, true).unwrap();
        assert!(toolbox.policy().nulls_declared());
        assert!(matches!(
            forecast_outcome(&toolbox).await,
            ToolOutcome::Ran { ref repairs, .. } if repairs.is_empty()
        ));
        // For good: a later export without strict mode does not undo it.
        export(&toolbox, false).unwrap();
        assert!(matches!(
            forecast_outcome(&toolbox).await,
            ToolOutcome::Ran { .. }
        ));
    }
}

#[tokio::test]
async fn a_failed_strict_export_changes_nothing() {
    let mut toolbox = toolbox();
    toolbox.add(Tag).unwrap();
    let error = openai::tools(&toolbox, true).unwrap_err();
    assert_eq!(error.tool, "tag");
    assert_eq!(error.pointer, "/properties/meta");
    assert!(openai::response_tools(&toolbox, true).is_err());
    assert!(!toolbox.policy().nulls_declared());
    assert!(matches!(
        forecast_outcome(&toolbox).await,
        ToolOutcome::Rejected(_)
    ));
}

// ---------------------------------------------------------------------
// Responses API
// ---------------------------------------------------------------------

/// gpt-4.1 through `/v1/responses`
/// ([`openai_fixtures::responses_parallel`]) as some OpenAI-compatible
/// servers send it: no `tools`, a `usage` without its token details.
fn responses_parallel() -> Value {
    let mut response = openai_fixtures::responses_parallel();
    let object = response.as_object_mut().unwrap();
    object.remove("tools");
    object["usage"] = json!({"input_tokens": 291, "output_tokens": 23, "total_tokens": 314});
    response
}

#[test]
fn a_responses_response_gives_its_function_calls_by_call_id() {
    let response = responses_parallel();
    let calls = openai::function_calls(&response);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id, "call_unLAR8MvFNptuiZK6K6HCy5k");
    assert_eq!(calls[0].name, "search_code");
    assert_eq!(
        calls[1],
        ToolCall::new(
            "call_3nMqXkzeSWsRgtbvjtE1JQ8a",
            "forecast",
            r#"{"city":"Paris","days":2,"unit":null}"#
        )
    );
    // The `output` array, a `response.completed` event, one item.
    assert_eq!(openai::function_calls(&response["output"]), calls);
    let completed =
        json!({"type": "response.completed", "sequence_number": 20, "response": response});
    assert_eq!(openai::function_calls(&completed), calls);
    assert_eq!(
        openai::function_calls(&response["output"][3]),
        [calls[1].clone()]
    );
}

#[test]
fn a_function_call_item_with_parts_missing_is_kept() {
    let output = json!([
        {"type": "function_call", "id": "fc_1", "name": "ping", "arguments": "{}"},
        {"type": "function_call", "name": "ping"},
        {"type": "function_call", "call_id": "call_x", "arguments": {"city": "Oslo"}},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        "noise",
    ]);
    assert_eq!(
        openai::function_calls(&output),
        [
            ToolCall::new("fc_1", "ping", "{}"),
            ToolCall::new("call_1", "ping", ""),
            ToolCall::new("call_x", "", json!({"city": "Oslo"})),
        ]
    );
}

// ---------------------------------------------------------------------
// Chat Completions streams
// ---------------------------------------------------------------------

/// Each call returned, with the number of the chunk that returned it.
fn stream_chat(stream: &mut ChatStream, chunks: &[Value]) -> Vec<(usize, ToolCall)> {
    let mut calls = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        calls.extend(stream.push(chunk).into_iter().map(|call| (n, call)));
    }
    calls.extend(stream.finish().into_iter().map(|call| (chunks.len(), call)));
    calls
}

/// The same calls, unstreamed.
fn unstreamed() -> Vec<ToolCall> {
    let tool_calls: Vec<Value> = two_calls()
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    openai::tool_calls(
        &json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": tool_calls}}]}),
    )
}

#[test]
fn a_streamed_call_is_returned_when_the_next_one_starts() {
    let chunks = chat_chunks(&two_calls(), &[vec![10, 30], vec![5]]);
    let calls = stream_chat(&mut ChatStream::new(), &chunks);
    // The first call is returned by the chunk that starts the second
    // (chunk 5), before the stream ends; the second by `finish_reason`.
    assert_eq!(calls[0].0, 5);
    assert_eq!(calls[1].0, chunks.len() - 2);
    assert_eq!(calls_only(calls), unstreamed());
}

#[test]
fn a_stream_split_at_every_boundary_gives_the_unstreamed_calls() {
    let expected = unstreamed();
    let mut streams = 0;
    for (call, (_, _, arguments)) in two_calls().iter().enumerate() {
        let boundaries: Vec<usize> = (0..=arguments.len())
            .filter(|&i| arguments.is_char_boundary(i))
            .collect();
        // Every pair of cuts, one cut (`i == j`) and none (`0`) among them.
        for (a, &i) in boundaries.iter().enumerate() {
            for &j in &boundaries[a..] {
                let mut cuts = vec![Vec::new(), Vec::new()];
                cuts[call] = vec![i, j];
                let chunks = chat_chunks(&two_calls(), &cuts);
                let mut stream = ChatStream::new();
                assert_eq!(
                    calls_only(stream_chat(&mut stream, &chunks)),
                    expected,
                    "{cuts:?}"
                );
                assert_eq!(stream.pending(), 0);
                streams += 1;
            }
        }
    }
    // Both arguments, cut at each pair of their boundaries.
    assert!(streams > 2_000, "{streams}");
}

#[test]
fn a_split_inside_an_escape_joins_as_text() {
    let mut stream = ChatStream::new();
    stream.push(&chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "search_code", "arguments": "{\"query\": \"caf\\u00"}}]}),
        None,
    ));
    stream.push(&chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "e9\", \"data_source_names\": [\"a\\"}}]}),
        None,
    ));
    stream.push(&chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"b\"]}"}}]}),
        None,
    ));
    let calls = stream.push(&chunk(json!({}), Some("tool_calls")));
    assert_eq!(
        calls[0].arguments,
        text(r#"{"query": "caf\u00e9", "data_source_names": ["a\"b"]}"#)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_stream_cut_anywhere_gives_the_unstreamed_calls(
        search in proptest::collection::btree_set(0..=SEARCH.len(), 0..12),
        forecast in proptest::collection::btree_set(0..=FORECAST.len(), 0..12),
    ) {
        let on_boundaries = |cuts: BTreeSet<usize>, text: &str| -> Vec<usize> {
            cuts.into_iter().filter(|&i| text.is_char_boundary(i)).collect()
        };
        let cuts = vec![on_boundaries(search, SEARCH), on_boundaries(forecast, FORECAST)];
        let chunks = chat_chunks(&two_calls(), &cuts);
        prop_assert_eq!(calls_only(stream_chat(&mut ChatStream::new(), &chunks)), unstreamed());
    }
}

#[test]
fn parallel_calls_interleaved_by_index_each_complete_on_their_own() {
    let part = |index: u64, arguments: &str| {
        chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
            None,
        )
    };
    let chunks = [
        chunk(
            json!({"tool_calls": [
                {"index": 0, "id": "call_a", "type": "function", "function": {"name": "forecast", "arguments": "{\"ci"}},
                {"index": 1, "id": "call_b", "type": "function", "function": {"name": "forecast", "arguments": "{\"city\": \"Ro"}}
            ]}),
            None,
        ),
        part(0, "ty\": \"Pa"),
        part(1, "me\", \"days\": 1"),
        part(0, "ris\"}"),
        part(1, "}"),
        chunk(json!({}), Some("tool_calls")),
    ];
    let calls = stream_chat(&mut ChatStream::new(), &chunks);
    assert_eq!(
        calls,
        [
            // Returned as soon as its object closes: a higher index started.
            (
                3,
                ToolCall::new("call_a", "forecast", r#"{"city": "Paris"}"#)
            ),
            (
                5,
                ToolCall::new("call_b", "forecast", r#"{"city": "Rome", "days": 1}"#)
            ),
        ]
    );
}

#[test]
fn calls_sharing_index_0_or_sent_without_one_are_told_apart() {
    // Ollama's OpenAI-compatible stream gives every parallel call index 0;
    // each call comes whole, with its own id.
    let ollama = [
        chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_8dt5ygk1", "index": 0, "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\":\"Paris\"}"}}]}),
            None,
        ),
        chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_p1hx5p9c", "index": 0, "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\":\"Rome\"}"}}]}),
            None,
        ),
        chunk(
            json!({"role": "assistant", "content": ""}),
            Some("tool_calls"),
        ),
    ];
    let calls = stream_chat(&mut ChatStream::new(), &ollama);
    assert_eq!(
        calls,
        [
            (
                1,
                ToolCall::new("call_8dt5ygk1", "forecast", r#"{"city":"Paris"}"#)
            ),
            (
                2,
                ToolCall::new("call_p1hx5p9c", "forecast", r#"{"city":"Rome"}"#)
            ),
        ]
    );
    // Older builds send neither index nor id.
    let bare = [
        chunk(
            json!({"tool_calls": [{"function": {"name": "ping", "arguments": "{}"}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"function": {"name": "forecast", "arguments": "{\"city\":\"Oslo\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("stop")),
    ];
    assert_eq!(
        calls_only(stream_chat(&mut ChatStream::new(), &bare)),
        [
            ToolCall::new("call_0", "ping", "{}"),
            ToolCall::new("call_1", "forecast", r#"{"city":"Oslo"}"#),
        ]
    );
}

#[test]
fn a_server_repeating_id_and_name_on_every_delta_makes_one_call() {
    let delta = |arguments: &str| {
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "forecast", "arguments": arguments}}]}),
            None,
        )
    };
    let chunks = [
        delta("{\"city\""),
        delta(": \"Oslo\"}"),
        delta(""),
        chunk(json!({}), Some("tool_calls")),
    ];
    assert_eq!(
        calls_only(stream_chat(&mut ChatStream::new(), &chunks)),
        [ToolCall::new("call_1", "forecast", r#"{"city": "Oslo"}"#)]
    );
}

#[test]
fn streamed_arguments_sent_as_an_object_stay_a_value() {
    let chunks = [
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                "function": {"name": "forecast", "arguments": {"city": "Lima"}}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
    ];
    assert_eq!(
        calls_only(stream_chat(&mut ChatStream::new(), &chunks)),
        [ToolCall::new("call_1", "forecast", json!({"city": "Lima"}))]
    );
    // Ollama's own `/api/chat` stream: each call whole in one chunk.
    let mut stream = ChatStream::new();
    let calls = stream.push(
        &json!({"model": "llama3.1:8b", "created_at": "2025-05-20T16:45:29Z",
        "message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "forecast", "arguments": {"city": "Toronto"}}}]},
        "done": false}),
    );
    assert_eq!(
        calls,
        [ToolCall::new(
            "call_0",
            "forecast",
            json!({"city": "Toronto"})
        )]
    );
    assert!(stream
        .push(
            &json!({"model": "llama3.1:8b", "message": {"role": "assistant", "content": ""},
            "done_reason": "stop", "done": true})
        )
        .is_empty());
}

#[tokio::test]
async fn a_stream_cut_short_still_gives_its_calls_and_binding_says_why() {
    let toolbox = toolbox();
    let mut chunks = chat_chunks(&two_calls(), &[vec![20]]);
    // The connection drops in the second call's arguments: no finish_reason.
    chunks.truncate(5);
    chunks.push(chunk(
        json!({"tool_calls": [{"index": 1, "function": {"arguments": "{\"city\":\"Pa"}}]}),
        None,
    ));
    let mut stream = ChatStream::new();
    let calls = stream_chat(&mut stream, &chunks);
    assert_eq!(calls.len(), 2);
    // The first was returned when the second started; the second at the end.
    assert_eq!(calls[0].0, 4);
    assert_eq!(calls[1].0, chunks.len());
    let results = toolbox.call_batch(calls_only(calls)).await;
    assert!(matches!(results[0].outcome, ToolOutcome::Ran { .. }));
    match &results[1].outcome {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.violations()[0].kind, ViolationKind::Malformed);
            assert!(toolbox
                .message(&results[1])
                .text
                .contains("the arguments are not valid JSON"));
        }
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------
// Responses API streams
// ---------------------------------------------------------------------

fn stream_responses(stream: &mut ResponsesStream, events: &[Value]) -> Vec<(usize, ToolCall)> {
    let mut calls = Vec::new();
    for (n, event) in events.iter().enumerate() {
        calls.extend(stream.push(event).into_iter().map(|call| (n, call)));
    }
    calls.extend(stream.finish().into_iter().map(|call| (events.len(), call)));
    calls
}

#[test]
fn a_responses_call_is_returned_at_its_arguments_done() {
    let events = response_events(&responses_parallel(), &[vec![7, 40], vec![3]], true);
    let mut stream = ResponsesStream::new();
    let calls = stream_responses(&mut stream, &events);
    let done_at: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "response.function_call_arguments.done")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(calls.iter().map(|(n, _)| *n).collect::<Vec<_>>(), done_at);
    assert_eq!(
        calls_only(calls),
        openai::function_calls(&responses_parallel())
    );
    assert_eq!(stream.pending(), 0);
}

#[test]
fn a_responses_stream_split_at_every_boundary_gives_the_final_calls() {
    let expected = openai::function_calls(&responses_parallel());
    let arguments: Vec<String> = expected
        .iter()
        .map(|call| match &call.arguments {
            Arguments::Text(text) => text.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    for (call, text) in arguments.iter().enumerate() {
        for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut cuts = vec![Vec::new(), Vec::new()];
            cuts[call] = vec![i];
            // Fragments alone (`done` without text), and the whole text.
            for whole in [false, true] {
                let events = response_events(&responses_parallel(), &cuts, whole);
                assert_eq!(
                    calls_only(stream_responses(&mut ResponsesStream::new(), &events)),
                    expected,
                    "{cuts:?} {whole}"
                );
            }
        }
    }
}

#[test]
fn the_whole_text_of_done_wins_over_the_fragments() {
    let mut stream = ResponsesStream::new();
    stream.push(&json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "forecast", "arguments": ""}}));
    stream.push(&json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{\"city\": \"Par"}));
    let calls = stream.push(
        &json!({"type": "response.function_call_arguments.done", "item_id": "fc_1",
        "output_index": 0, "arguments": "{\"city\": \"Paris\"}"}),
    );
    assert_eq!(
        calls,
        [ToolCall::new("call_1", "forecast", r#"{"city": "Paris"}"#)]
    );
}

#[test]
fn events_are_matched_by_output_index_when_a_gateway_rewrites_item_ids() {
    let mut stream = ResponsesStream::new();
    stream.push(&json!({"type": "response.output_item.added", "output_index": 2,
        "item": {"type": "function_call", "id": "fc_real", "call_id": "call_1", "name": "forecast", "arguments": ""}}));
    stream.push(&json!({"type": "response.function_call_arguments.delta", "item_id": "obf_91a", "output_index": 2, "delta": "{\"city\":"}));
    stream.push(&json!({"type": "response.function_call_arguments.delta", "item_id": "obf_07c", "output_index": 2, "delta": "\"Rome\"}"}));
    let calls = stream.push(&json!({"type": "response.function_call_arguments.done", "item_id": "obf_33d", "output_index": 2, "arguments": ""}));
    assert_eq!(
        calls,
        [ToolCall::new("call_1", "forecast", r#"{"city":"Rome"}"#)]
    );
    assert!(stream
        .push(&json!({"type": "response.output_item.done", "output_index": 2,
            "item": {"type": "function_call", "id": "fc_real", "call_id": "call_1", "name": "forecast",
                     "arguments": "{\"city\":\"Rome\"}", "status": "completed"}}))
        .is_empty());
}

#[test]
fn an_item_done_never_announced_is_a_call_and_the_end_returns_the_rest() {
    let mut stream = ResponsesStream::new();
    // Only the item's `done` (no item id: the Responses API allows it).
    let calls = stream.push(
        &json!({"type": "response.output_item.done", "output_index": 0,
        "item": {"type": "function_call", "call_id": "call_1", "name": "ping", "arguments": "{}"}}),
    );
    assert_eq!(calls, [ToolCall::new("call_1", "ping", "{}")]);
    // A call cut short by `max_output_tokens`: `response.incomplete` ends it.
    stream.push(&json!({"type": "response.output_item.added", "output_index": 1,
        "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "forecast", "arguments": ""}}));
    stream.push(&json!({"type": "response.function_call_arguments.delta", "item_id": "fc_2", "output_index": 1, "delta": "{\"city\": \"Li"}));
    assert_eq!(stream.pending(), 1);
    let calls = stream.push(&json!({"type": "response.incomplete",
        "response": {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}));
    assert_eq!(
        calls,
        [ToolCall::new("call_2", "forecast", r#"{"city": "Li"#)]
    );
    // A stream that just stops: `finish` returns what is held.
    stream.push(&json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"type": "function_call", "id": "fc_3", "call_id": "call_3", "name": "ping", "arguments": "{}"}}));
    assert_eq!(stream.finish(), [ToolCall::new("call_3", "ping", "{}")]);
    assert_eq!(stream.pending(), 0);
}

// ---------------------------------------------------------------------
// Hostile streams: no panic, bounded memory, no call dropped
// ---------------------------------------------------------------------

fn junk() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(-1),
        json!("data: [DONE]"),
        json!([]),
        json!([{"choices": []}]),
        json!({}),
        json!({"choices": 5}),
        json!({"choices": [5, null, "x"]}),
        json!({"choices": [{"index": 0, "delta": 5}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": 5}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [5, null, "x", [], {}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": 5}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": null}}]}}]}),
        json!({"choices": [{"index": 3, "finish_reason": "stop"}]}),
        json!({"message": 5, "done": "yes"}),
        json!({"type": 5}),
        json!({"type": "response.output_item.added"}),
        json!({"type": "response.output_item.added", "item": "x"}),
        json!({"type": "response.output_item.done", "item": {"type": "message"}}),
        json!({"type": "response.function_call_arguments.delta"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": -3, "delta": ""}),
        json!({"type": "response.output_text.delta", "delta": "hello"}),
    ]
}

#[test]
fn junk_starts_no_call_and_breaks_nothing() {
    let mut chat = ChatStream::new();
    let mut responses = ResponsesStream::new();
    for value in junk() {
        assert_eq!(chat.push(&value), [], "{value}");
        assert_eq!(responses.push(&value), [], "{value}");
    }
    assert_eq!(chat.finish(), []);
    assert_eq!(responses.finish(), []);
    // And a real stream after the junk reads as if alone.
    let chunks = chat_chunks(&two_calls(), &[vec![3]]);
    assert_eq!(calls_only(stream_chat(&mut chat, &chunks)), unstreamed());
}

#[test]
fn any_index_is_a_call_and_none_is_dropped() {
    let mut stream = ChatStream::new();
    let indices = [
        json!(u64::MAX),
        json!(1e300),
        json!(-1),
        json!(1.5),
        json!("3"),
        json!(null),
        json!(18446744073709551615u64),
    ];
    let mut returned = Vec::new();
    for (n, index) in indices.iter().enumerate() {
        returned.extend(stream.push(&chunk(
            json!({"tool_calls": [{"index": index, "id": format!("c{n}"), "type": "function",
                "function": {"name": "ping", "arguments": "{}"}}]}),
            None,
        )));
    }
    returned.extend(stream.finish());
    let mut ids: Vec<String> = returned.into_iter().map(|call| call.id).collect();
    ids.sort();
    assert_eq!(ids, ["c0", "c1", "c2", "c3", "c4", "c5", "c6"]);
}

#[test]
fn ten_thousand_indices_in_one_chunk_are_held_within_the_bound() {
    let tool_calls: Vec<Value> = (0..10_000u64)
        .map(|i| {
            json!({"index": i * 7919, "id": format!("call_{i}"), "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\": "}})
        })
        .collect();
    let mut stream = ChatStream::new();
    let mut calls = stream.push(&chunk(json!({"tool_calls": tool_calls}), None));
    assert!(stream.pending() <= MAX_PENDING_CALLS);
    assert_eq!(calls.len() + stream.pending(), 10_000);
    calls.extend(stream.finish());
    let ids: BTreeSet<String> = calls.into_iter().map(|call| call.id).collect();
    assert_eq!(ids.len(), 10_000);
}

#[test]
fn ten_thousand_indices_over_ten_thousand_chunks_stay_bounded() {
    // Descending indices: a higher index never starts, and no object ever
    // closes; only the bound returns calls before the end.
    let mut stream = ChatStream::new().with_max_pending(16);
    let mut returned = 0;
    for i in (0..10_000u64).rev() {
        returned += stream
            .push(&chunk(
                json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function",
                    "function": {"name": "forecast", "arguments": "{\"a\": ["}}]}),
                None,
            ))
            .len();
        assert!(stream.pending() <= 16);
        // A fragment for a call still held joins it; one for a call let go
        // starts a new one, still within the bound.
        returned += stream
            .push(&chunk(
                json!({"tool_calls": [{"index": i + 20, "function": {"arguments": "1"}}]}),
                None,
            ))
            .len();
        assert!(stream.pending() <= 16);
    }
    returned += stream.finish().len();
    assert!(
        (10_000..=20_000).contains(&returned),
        "{returned} calls returned"
    );
}

#[tokio::test]
async fn arguments_past_the_bound_are_not_kept_and_binding_refuses_them() {
    assert_eq!(MAX_ARGUMENT_BYTES, Limits::default().max_text_bytes);
    let mut stream = ChatStream::new();
    stream.push(&chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_big", "type": "function",
            "function": {"name": "search_code", "arguments": "{\"query\": \"a"}}]}),
        None,
    ));
    // 2 MiB of `é` (two bytes each) in fragments of 64 KiB: the bound falls
    // inside a character, and the text kept ends after it.
    let fragment = "é".repeat(32 * 1024);
    for _ in 0..32 {
        assert!(stream
            .push(&chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}),
                None
            ))
            .is_empty());
    }
    let calls = stream.push(&chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"}"}}]}),
        Some("tool_calls"),
    ));
    let Arguments::Text(kept) = &calls[0].arguments else {
        panic!("{:?}", calls[0].arguments)
    };
    assert!(kept.len() > MAX_ARGUMENT_BYTES && kept.len() <= MAX_ARGUMENT_BYTES + 4);
    let result = toolbox().call(calls[0].clone()).await;
    match result.outcome {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge)
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_stream_bound_matches_a_toolbox_with_its_own_limits() {
    let limits = Limits {
        max_text_bytes: 1_000,
        ..Limits::default()
    };
    let mut toolbox = Toolbox::new().with_limits(limits);
    toolbox.add(Forecast).unwrap();
    let mut stream = ResponsesStream::new().with_max_argument_bytes(limits.max_text_bytes);
    stream.push(&json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "forecast", "arguments": ""}}));
    let fragment = "x".repeat(100);
    for _ in 0..100 {
        stream.push(
            &json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
            "output_index": 0, "delta": fragment}),
        );
    }
    // The whole text of `done` is bounded the same way.
    let whole = format!("{{\"city\": \"{}\"}}", "y".repeat(50_000));
    let calls = stream.push(
        &json!({"type": "response.function_call_arguments.done", "item_id": "fc_1",
        "output_index": 0, "arguments": whole}),
    );
    assert_eq!(calls[0].arguments, text(&whole[..1_001]));
    let result = toolbox.call(calls[0].clone()).await;
    match result.outcome {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn ten_thousand_response_items_stay_bounded_and_none_is_dropped() {
    let mut stream = ResponsesStream::new();
    let mut returned = Vec::new();
    for i in 0..10_000u64 {
        // Announced, never done...
        returned.extend(stream.push(&json!({"type": "response.output_item.added", "output_index": i,
            "item": {"type": "function_call", "id": format!("fc_{i}"), "call_id": format!("call_{i}"),
                     "name": "ping", "arguments": ""}})));
        // ...and fragments for items never announced.
        returned.extend(
            stream.push(&json!({"type": "response.function_call_arguments.delta",
            "item_id": format!("ghost_{i}"), "output_index": u64::MAX - i, "delta": "{"})),
        );
        assert!(stream.pending() <= MAX_PENDING_CALLS);
    }
    returned.extend(stream.finish());
    assert_eq!(returned.len(), 20_000);
    let ids: BTreeSet<&str> = returned.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids.len(), 20_000);
    assert!(ids.contains("call_9999") && ids.contains("ghost_0"));
}

#[test]
fn returned_calls_awaiting_their_item_done_stay_bounded() {
    let mut stream = ResponsesStream::new().with_max_pending(8);
    let mut returned = 0;
    for i in 0..10_000u64 {
        stream.push(&json!({"type": "response.output_item.added", "output_index": i,
            "item": {"type": "function_call", "id": format!("fc_{i}"), "call_id": format!("call_{i}"),
                     "name": "ping", "arguments": ""}}));
        returned += stream
            .push(&json!({"type": "response.function_call_arguments.done", "item_id": format!("fc_{i}"),
                "output_index": i, "arguments": "{}"}))
            .len();
        assert_eq!(stream.pending(), 0);
    }
    assert_eq!(returned, 10_000);
    assert_eq!(stream.finish(), []);
}

/// A server that repeats each call's id and name on every delta, and
/// interleaves calls by index.
#[test]
fn a_call_returned_early_is_not_begun_again_by_a_repeated_delta() {
    let delta = |index: u64, id: &str, arguments: &str| {
        chunk(
            json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                "function": {"name": "ping", "arguments": arguments}}]}),
            None,
        )
    };
    let mut stream = ChatStream::new();
    let mut calls = Vec::new();
    calls.extend(stream.push(&delta(0, "call_a", "{}")));
    calls.extend(stream.push(&delta(1, "call_b", "{}")));
    calls.extend(stream.push(&delta(0, "call_a", "")));
    calls.extend(stream.push(&chunk(json!({}), Some("tool_calls"))));
    let ids: Vec<_> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_a", "call_b"]);
}

/// Calls without ids, all at index 0, each name sent with empty
/// arguments before its fragments.
#[test]
fn calls_sharing_index_0_are_told_apart_when_the_name_comes_alone() {
    let delta = |function: Value| {
        chunk(
            json!({"tool_calls": [{"index": 0, "function": function}]}),
            None,
        )
    };
    let mut stream = ChatStream::new();
    let mut calls = Vec::new();
    for function in [
        json!({"name": "a", "arguments": ""}),
        json!({"arguments": "{\"x\": 1}"}),
        json!({"name": "b", "arguments": ""}),
        json!({"arguments": "{\"y\": 2}"}),
    ] {
        calls.extend(stream.push(&delta(function)));
    }
    calls.extend(stream.push(&chunk(json!({}), Some("tool_calls"))));
    let got: Vec<_> = calls
        .iter()
        .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("call_0", "a", Arguments::Text("{\"x\": 1}".into())),
            ("call_1", "b", Arguments::Text("{\"y\": 2}".into())),
        ]
    );
    // A name repeated with empty arguments after the whole object, and
    // nothing after it, begins nothing.
    let mut stream = ChatStream::new();
    let mut calls = Vec::new();
    for function in [
        json!({"name": "a", "arguments": "{\"x\": 1}"}),
        json!({"name": "a", "arguments": ""}),
    ] {
        calls.extend(stream.push(&delta(function)));
    }
    calls.extend(stream.push(&chunk(json!({}), Some("tool_calls"))));
    assert_eq!(calls.len(), 1);
}

/// Ollama's own stream: each call whole in its own chunk, without ids.
#[test]
fn ollama_calls_in_separate_chunks_are_numbered_across_the_response() {
    let message = |city: &str| {
        json!({"model": "qwen3", "message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "forecast", "arguments": {"city": city}}}]},
            "done": false})
    };
    let mut stream = ChatStream::new();
    let mut calls = stream.push(&message("Paris"));
    calls.extend(stream.push(&message("Rome")));
    calls.extend(stream.push(&json!({"model": "qwen3",
        "message": {"role": "assistant", "content": ""}, "done": true})));
    let ids: Vec<_> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1"]);
    // The next response numbers from 0 again.
    let again = stream.push(&message("Oslo"));
    assert_eq!(again[0].id, "call_0");
}

/// Entries without `index` take their place in the delta's list: a new
/// name at a place whose call was returned early begins a call.
#[test]
fn a_new_name_at_a_place_returned_early_begins_a_call() {
    let entries = |list: Value| chunk(json!({"tool_calls": list}), None);
    let mut stream = ChatStream::new();
    let mut calls = Vec::new();
    calls.extend(stream.push(&entries(json!([
        {"function": {"name": "f", "arguments": "{\"x\": 1}"}},
        {"function": {"name": "g", "arguments": "{\"y\": 2}"}}
    ]))));
    calls.extend(stream.push(&entries(
        json!([{"function": {"name": "h", "arguments": ""}}]),
    )));
    calls.extend(stream.push(&entries(json!([{"function": {"arguments": "{\"z\": 3}"}}]))));
    calls.extend(stream.push(&chunk(json!({}), Some("tool_calls"))));
    let names: Vec<_> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["f", "h", "g"]);
    assert_eq!(calls[1].arguments, Arguments::Text("{\"z\": 3}".into()));
}
