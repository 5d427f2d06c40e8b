#![cfg(feature = "async-openai")]
//! `canon::openai::async_openai`: real payloads read by async-openai into
//! its own types, converted by canon, and held to the `serde_json::Value`
//! path of `canon::openai`: the same calls from the same JSON, and
//! request values whose JSON is what the Value path builds. Streams are
//! compared chunk by chunk, split at every boundary (inside strings and
//! escapes). What async-openai refuses before canon sees it is pinned too.
//!
//! No test here reads a clock.

mod common;
#[path = "common/openai.rs"]
mod openai_fixtures;

use std::collections::BTreeSet;

use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestUserMessage, ChatCompletionResponseMessage, ChatCompletionTools,
    CreateChatCompletionRequest, CreateChatCompletionResponse, CreateChatCompletionStreamResponse,
};
use async_openai::types::responses::{
    CreateResponse, FunctionCallOutputItemParam, InputItem, InputParam, OutputItem, Response,
    ResponseStreamEvent, Tool,
};
use canon::openai::async_openai as aoai;
use canon::openai::{self, ChatStream, ResponsesStream, MAX_PENDING_CALLS};
use canon::toolbox::{Arguments, ToolMessage, ViolationKind};
use canon::{RepairRule, ToolCall, ToolOutcome};
use openai_fixtures::{
    calls_only, chat_chunk, chat_chunks, llama_cpp, openai_parallel, response_events,
    responses_parallel, toolbox, two_calls, vllm, Tag, FORECAST, SEARCH,
};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// `value` as async-openai reads it: the test fails if async-openai
/// refuses it.
fn typed<T: DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone())
        .unwrap_or_else(|error| panic!("async-openai refuses {value}: {error}"))
}

fn to_json(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap()
}

// ---------------------------------------------------------------------
// Recorded payload shapes (tests/common/openai.rs, tests/wire_sdk)
// ---------------------------------------------------------------------

/// Three calls the toolbox treats differently: a near miss it repairs, a
/// comma-separated list it refuses (saying what to send), and a call cut
/// short by `max_tokens` (not valid JSON); text beside the calls.
fn mixed() -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1764750000, "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": "length", "logprobs": null, "message": {
            "role": "assistant", "content": "Let me look.", "refusal": null, "annotations": [],
            "tool_calls": [
                {"id": "call_search", "type": "function", "function": {"name": "search_code",
                 "arguments": "{\"data_source_names\": \"dotnet/eshop\", \"query\": \"basket\"}"}},
                {"id": "call_list", "type": "function", "function": {"name": "search_code",
                 "arguments": "{\"data_source_names\": \"dotnet/eshop, dotnet/aspire\", \"query\": \"order\"}"}},
                {"id": "call_cut", "type": "function", "function": {"name": "forecast",
                 "arguments": "{\"city\": \"Bogot\\u00"}}
            ]}}],
        "usage": {"prompt_tokens": 90, "completion_tokens": 40, "total_tokens": 130}
    })
}

/// As tests/wire_sdk writes it: non-ASCII escaped.
const WEATHER: &str = "{\"city\": \"Bogot\\u00e1\", \"unit\": \"celsius\"}";

// ---------------------------------------------------------------------
// Chat Completions: calls in
// ---------------------------------------------------------------------

#[test]
fn a_typed_chat_response_gives_the_calls_of_its_json() {
    for payload in [openai_parallel(), vllm(), llama_cpp(), mixed()] {
        let response: CreateChatCompletionResponse = typed(&payload);
        let calls = aoai::tool_calls(&response);
        assert!(!calls.is_empty());
        assert_eq!(calls, openai::tool_calls(&payload), "{payload}");
        // The same from what async-openai kept of it.
        assert_eq!(calls, openai::tool_calls(&to_json(&response)));
        // The message, its `tool_calls` list (slice and Vec), and the
        // message as the next request carries it, read the same.
        let message = &response.choices[0].message;
        assert_eq!(aoai::tool_calls(message), calls);
        let list = message.tool_calls.clone().unwrap();
        assert_eq!(aoai::tool_calls(&list), calls);
        assert_eq!(aoai::tool_calls(list.as_slice()), calls);
        let ChatCompletionRequestMessage::Assistant(assistant) = aoai::assistant_message(message)
        else {
            panic!("not an assistant message")
        };
        assert_eq!(aoai::tool_calls(&assistant), calls);
    }
    assert_eq!(
        aoai::tool_calls(&typed::<CreateChatCompletionResponse>(&openai_parallel())),
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
}

#[test]
fn responses_without_calls_give_none() {
    let plain = json!({"id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Hello!"}}]});
    let refusal = json!({"id": "chatcmpl-3", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": null, "refusal": "I can't help with that."}}]});
    let no_choices = json!({"id": "chatcmpl-4", "object": "chat.completion", "created": 1, "model": "m",
        "choices": []});
    let empty_list = json!({"id": "chatcmpl-5", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Hi", "tool_calls": []}}]});
    for payload in [plain, refusal, no_choices, empty_list] {
        let response: CreateChatCompletionResponse = typed(&payload);
        assert_eq!(aoai::tool_calls(&response), []);
        assert_eq!(openai::tool_calls(&payload), []);
    }
    assert_eq!(
        aoai::tool_calls(&CreateChatCompletionResponse::default()),
        []
    );
}

#[test]
fn empty_ids_and_names_and_custom_calls_are_read_as_their_json_is() {
    let payload = json!({"id": "chatcmpl-6", "object": "chat.completion", "created": 1, "model": "m",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "tool_calls": [
        {"id": "", "type": "function", "function": {"name": "ping", "arguments": ""}},
        {"id": "call_b", "type": "function", "function": {"name": "", "arguments": "{}"}},
        {"id": "call_c", "type": "custom", "custom_tool": {"name": "grammar", "input": "x"}},
        {"id": "", "type": "custom", "custom_tool": {"name": "grammar", "input": "y"}}
    ]}}]});
    let response: CreateChatCompletionResponse = typed(&payload);
    let calls = aoai::tool_calls(&response);
    assert_eq!(
        calls,
        [
            ToolCall::new("call_0", "ping", ""),
            ToolCall::new("call_b", "", "{}"),
            ToolCall::new("call_c", "", ""),
            ToolCall::new("call_3", "", ""),
        ]
    );
    assert_eq!(calls, openai::tool_calls(&payload));
    assert_eq!(calls, openai::tool_calls(&to_json(&response)));
}

/// What async-openai's deserializer refuses: the whole response, before
/// canon sees it. The Value path reads every call of the same JSON (the
/// module documentation sends such users there). If async-openai starts
/// accepting one of these, this test says the documentation is out of
/// date.
#[test]
fn what_async_openai_refuses_the_value_path_reads() {
    let envelope = |tool_calls: Value| {
        json!({"id": "chatcmpl-7", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls",
                         "message": {"role": "assistant", "content": "", "tool_calls": tool_calls}}]})
    };
    let refused = [
        // Arguments as an object (Ollama's OpenAI-compatible endpoint, LM
        // Studio...).
        envelope(json!([{"id": "call_1", "type": "function",
            "function": {"name": "forecast", "arguments": {"city": "Lima"}}}])),
        // Arguments null, or missing.
        envelope(json!([{"id": "call_1", "type": "function",
            "function": {"name": "forecast", "arguments": null}}])),
        envelope(json!([{"id": "call_1", "type": "function", "function": {"name": "ping"}}])),
        // No `type`, no `id` (Ollama).
        envelope(json!([{"function": {"name": "ping", "arguments": "{}"}}])),
        // A custom tool call as OpenAI sends it (async-openai expects
        // `custom_tool`).
        envelope(
            json!([{"id": "call_1", "type": "custom", "custom": {"name": "g", "input": "x"}}]),
        ),
        // One entry that is not a call spoils the others.
        envelope(json!([{"id": "call_1", "type": "function",
            "function": {"name": "ping", "arguments": "{}"}}, "not a call"])),
    ];
    for payload in refused {
        assert!(
            serde_json::from_value::<CreateChatCompletionResponse>(payload.clone()).is_err(),
            "async-openai now reads {payload}"
        );
        assert!(!openai::tool_calls(&payload).is_empty());
    }
    // A streamed delta without an `index` (older Ollama builds).
    let chunk = chat_chunk(
        json!({"tool_calls": [{"function": {"name": "ping", "arguments": "{}"}}]}),
        None,
    );
    assert!(serde_json::from_value::<CreateChatCompletionStreamResponse>(chunk.clone()).is_err());
    let mut stream = ChatStream::new();
    assert!(stream.push(&chunk).is_empty());
    assert_eq!(stream.finish(), [ToolCall::new("call_0", "ping", "{}")]);
    // A `function_call` item without `call_id`.
    let item = json!({"type": "function_call", "id": "fc_1", "name": "ping", "arguments": "{}"});
    assert!(serde_json::from_value::<OutputItem>(item.clone()).is_err());
    assert_eq!(
        openai::function_calls(&item),
        [ToolCall::new("fc_1", "ping", "{}")]
    );
    // A Responses `usage` without its details (the shape recorded in
    // tests/wire_openai.rs).
    let mut response = responses_parallel();
    response["usage"] = json!({"input_tokens": 291, "output_tokens": 23, "total_tokens": 314});
    assert!(serde_json::from_value::<Response>(response.clone()).is_err());
    assert_eq!(openai::function_calls(&response).len(), 2);
}

// ---------------------------------------------------------------------
// Chat Completions: the whole loop, results out
// ---------------------------------------------------------------------

#[tokio::test]
async fn the_chat_loop_repairs_a_near_miss_and_answers_refused_calls() {
    let toolbox = toolbox();
    let tools = aoai::tools(&toolbox, true).unwrap();
    assert_eq!(to_json(&tools), openai::tools(&toolbox, true).unwrap());
    let response: CreateChatCompletionResponse = typed(&mixed());
    let results = toolbox.call_batch(aoai::tool_calls(&response)).await;
    match &results[0].outcome {
        ToolOutcome::Ran { repairs, .. } => {
            assert_eq!(repairs[0].pointer, "/data_source_names");
            assert_eq!(repairs[0].rule, RepairRule::ScalarToArray);
        }
        other => panic!("{other:?}"),
    }
    for (result, kind) in results[1..]
        .iter()
        .zip([ViolationKind::CommaList, ViolationKind::Malformed])
    {
        match &result.outcome {
            ToolOutcome::Rejected(error) => assert_eq!(error.violations()[0].kind, kind),
            other => panic!("{other:?}"),
        }
    }
    let messages: Vec<ToolMessage> = results.iter().map(|r| toolbox.message(r)).collect();
    let replies = aoai::tool_messages(&messages);
    // The model reads what the Value path sends, word for word.
    assert_eq!(to_json(&replies), json!(openai::tool_messages(&messages)));
    for (message, reply) in messages.iter().zip(&replies) {
        assert_eq!(&aoai::tool_message(message), reply);
        assert_eq!(&ChatCompletionRequestMessage::from(message), reply);
        let ChatCompletionRequestMessage::Tool(tool) = reply else {
            panic!("{reply:?}")
        };
        assert_eq!(&ChatCompletionRequestToolMessage::from(message), tool);
        assert_eq!(tool.tool_call_id, message.id);
    }
    // The next request, as async-openai sends it: the user's message, the
    // assistant's calls, one answer for each.
    let mut request = CreateChatCompletionRequest {
        model: "gpt-4.1-mini".into(),
        messages: vec![ChatCompletionRequestUserMessage::from("Where is the basket code?").into()],
        tools: Some(tools),
        ..Default::default()
    };
    request
        .messages
        .push(aoai::assistant_message(&response.choices[0].message));
    request.messages.extend(replies);
    let sent = to_json(&request);
    // async-openai reads back what canon built.
    assert_eq!(typed::<CreateChatCompletionRequest>(&sent), request);
    insta::assert_json_snapshot!("next_chat_request", sent);
}

#[test]
fn the_assistant_message_is_the_response_message_as_a_request_takes_it() {
    for payload in [openai_parallel(), mixed()] {
        let response: CreateChatCompletionResponse = typed(&payload);
        let mut expected = payload["choices"][0]["message"].clone();
        let object = expected.as_object_mut().unwrap();
        object.remove("annotations");
        object.retain(|_, value| !value.is_null());
        assert_eq!(
            to_json(&aoai::assistant_message(&response.choices[0].message)),
            expected
        );
    }
    // A refusal and audio (by id) are carried; custom calls as sent.
    let message = json!({"role": "assistant", "content": null, "refusal": "No.",
        "audio": {"id": "audio_1", "expires_at": 1, "data": "AAAA", "transcript": "No."},
        "tool_calls": [{"id": "call_c", "type": "custom", "custom_tool": {"name": "g", "input": "x"}}]});
    let reply = to_json(&aoai::assistant_message(&typed(&message)));
    assert_eq!(
        reply,
        json!({"role": "assistant", "refusal": "No.", "audio": {"id": "audio_1"},
            "tool_calls": [{"id": "call_c", "type": "custom", "custom_tool": {"name": "g", "input": "x"}}]})
    );
}

// ---------------------------------------------------------------------
// Tools declared
// ---------------------------------------------------------------------

#[tokio::test]
async fn typed_tools_serialize_to_the_value_export_and_declare_the_same() {
    for strict in [false, true] {
        let toolbox = toolbox();
        let chat = aoai::tools(&toolbox, strict).unwrap();
        assert_eq!(to_json(&chat), openai::tools(&toolbox, strict).unwrap());
        assert!(chat.iter().all(|tool| matches!(
            tool,
            ChatCompletionTools::Function(tool) if tool.function.strict == Some(strict)
        )));
        let responses = aoai::response_tools(&toolbox, strict).unwrap();
        assert_eq!(
            to_json(&responses),
            openai::response_tools(&toolbox, strict).unwrap()
        );
        assert!(responses
            .iter()
            .all(|tool| matches!(tool, Tool::Function(tool) if tool.strict == Some(strict))));
        // async-openai reads them back as they are.
        assert_eq!(typed::<Vec<ChatCompletionTools>>(&to_json(&chat)), chat);
        assert_eq!(typed::<Vec<Tool>>(&to_json(&responses)), responses);
        // A strict export marks the toolbox as the Value path's does.
        assert_eq!(toolbox.policy().nulls_declared(), strict);
    }
    // A failed strict export is the same error, and changes nothing.
    let mut toolbox = toolbox();
    toolbox.add(Tag).unwrap();
    let error = aoai::tools(&toolbox, true).unwrap_err();
    assert_eq!(error, openai::tools(&toolbox, true).unwrap_err());
    assert_eq!(error.tool, "tag");
    assert_eq!(
        aoai::response_tools(&toolbox, true).unwrap_err(),
        openai::response_tools(&toolbox, true).unwrap_err()
    );
    assert!(!toolbox.policy().nulls_declared());
    assert!(aoai::tools(&toolbox, false).is_ok());
}

// ---------------------------------------------------------------------
// Responses API
// ---------------------------------------------------------------------

#[test]
fn a_typed_response_gives_the_function_calls_of_its_json() {
    let payload = responses_parallel();
    let response: Response = typed(&payload);
    let calls = aoai::function_calls(&response);
    assert_eq!(calls, openai::function_calls(&payload));
    assert_eq!(calls, openai::function_calls(&to_json(&response)));
    assert_eq!(
        calls,
        [
            ToolCall::new("call_unLAR8MvFNptuiZK6K6HCy5k", "search_code", SEARCH),
            ToolCall::new("call_3nMqXkzeSWsRgtbvjtE1JQ8a", "forecast", FORECAST),
        ]
    );
    // Its `output` (Vec and slice) and one item read the same.
    assert_eq!(aoai::function_calls(&response.output), calls);
    assert_eq!(aoai::function_calls(response.output.as_slice()), calls);
    assert_eq!(
        aoai::function_calls(&response.output[3]),
        [calls[1].clone()]
    );
    assert_eq!(aoai::function_calls(&response.output[1]), []);
}

#[test]
fn function_call_items_with_empty_ids_are_read_as_their_json_is() {
    let output = json!([
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": "Looking.", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "", "name": "ping", "arguments": "{}"},
        {"type": "function_call", "call_id": "", "name": "", "arguments": ""},
        {"type": "function_call", "id": "", "call_id": "", "name": "ping", "arguments": "{"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_c", "name": "g", "input": "x"}
    ]);
    let items: Vec<OutputItem> = typed(&output);
    let calls = aoai::function_calls(&items);
    assert_eq!(
        calls,
        [
            ToolCall::new("fc_1", "ping", "{}"),
            ToolCall::new("call_2", "", ""),
            ToolCall::new("call_3", "ping", "{"),
        ]
    );
    assert_eq!(calls, openai::function_calls(&output));
    assert_eq!(calls, openai::function_calls(&to_json(&items)));
}

#[tokio::test]
async fn the_responses_loop_answers_each_call_as_the_value_path_does() {
    let toolbox = toolbox();
    let tools = aoai::response_tools(&toolbox, false).unwrap();
    let response: Response = typed(&responses_parallel());
    let results = toolbox.call_batch(aoai::function_calls(&response)).await;
    match &results[0].outcome {
        ToolOutcome::Ran { repairs, .. } => {
            assert_eq!(repairs[0].rule, RepairRule::ScalarToArray)
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(results[1].outcome, ToolOutcome::Ran { .. }));
    let messages: Vec<ToolMessage> = results.iter().map(|r| toolbox.message(r)).collect();
    let outputs = aoai::function_call_outputs(&messages);
    assert_eq!(
        to_json(&outputs),
        json!(openai::function_call_outputs(&messages))
    );
    for (message, output) in messages.iter().zip(&outputs) {
        assert_eq!(&aoai::function_call_output(message), output);
        assert_eq!(&InputItem::from(message), output);
        assert_eq!(
            to_json(&FunctionCallOutputItemParam::from(message)),
            json!({"call_id": message.id, "output": openai::function_call_output(message)["output"]})
        );
    }
    let request = CreateResponse {
        model: Some("gpt-4.1".into()),
        previous_response_id: Some(response.id.clone()),
        input: InputParam::Items(outputs),
        tools: Some(tools),
        ..Default::default()
    };
    let sent = to_json(&request);
    assert_eq!(typed::<CreateResponse>(&sent), request);
    insta::assert_json_snapshot!("next_responses_request", sent);
}

// ---------------------------------------------------------------------
// Results out, for any text
// ---------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the id and text (any Unicode, quotes, escapes, control
    /// characters, JSON-looking text), the typed answers serialize to the
    /// Value path's, and async-openai reads them back unchanged: canon
    /// builds them field by field, so there is nothing that could fail.
    #[test]
    fn typed_answers_serialize_as_the_value_path_for_any_text(
        id in prop_oneof![Just(String::new()), "call_[A-Za-z0-9]{1,24}", any::<String>()],
        name in any::<String>(),
        text in prop_oneof![any::<String>(), "[\\[\\]{}\":,\\\\ a-z]{0,40}", Just("{\"type\": \"message\"}".to_owned())],
        note in proptest::option::of(any::<String>()),
        is_error in any::<bool>(),
    ) {
        let message = ToolMessage { id, name, text, note, is_error };
        let chat = aoai::tool_message(&message);
        prop_assert_eq!(to_json(&chat), openai::tool_message(&message));
        prop_assert_eq!(typed::<ChatCompletionRequestMessage>(&to_json(&chat)), chat);
        let item = aoai::function_call_output(&message);
        prop_assert_eq!(to_json(&item), openai::function_call_output(&message));
        prop_assert_eq!(typed::<InputItem>(&to_json(&item)), item);
    }
}

// ---------------------------------------------------------------------
// Typed and Value paths agree on generated payloads
// ---------------------------------------------------------------------

fn an_id() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "call_[A-Za-z0-9]{1,8}",
        Just("call_1".to_owned())
    ]
}

fn a_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("search_code".to_owned()),
        Just("ping".to_owned()),
        "[a-z_]{1,8}"
    ]
}

fn some_arguments() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(SEARCH.to_owned()),
        Just(FORECAST.to_owned()),
        any::<String>()
    ]
}

/// A chat `tool_calls` entry async-openai reads: a function or custom call.
fn a_chat_entry() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (an_id(), a_name(), some_arguments()).prop_map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        }),
        1 => (an_id(), a_name()).prop_map(|(id, name)| {
            json!({"id": id, "type": "custom", "custom_tool": {"name": name, "input": "x"}})
        }),
    ]
}

/// An output item async-openai reads: mostly function calls, with and
/// without item ids, among messages and reasoning.
fn an_output_item() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (an_id(), prop::option::of(an_id()), a_name(), some_arguments()).prop_map(
            |(call_id, id, name, arguments)| {
                let mut item = json!({"type": "function_call", "call_id": call_id, "name": name,
                    "arguments": arguments, "status": "completed"});
                if let Some(id) = id {
                    item["id"] = json!(id);
                }
                item
            }
        ),
        1 => Just(json!({"type": "reasoning", "id": "rs_1", "summary": []})),
        1 => Just(json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "Hi", "annotations": []}]})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn typed_and_value_paths_agree_on_chat_responses(
        entries in prop::collection::vec(a_chat_entry(), 0..6),
        more_choices in any::<bool>(),
    ) {
        let mut choices = vec![json!({"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": null, "tool_calls": entries}})];
        if more_choices {
            choices.push(json!({"index": 1, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "other"}}));
        }
        let payload = json!({"id": "chatcmpl-p", "object": "chat.completion", "created": 1,
            "model": "m", "choices": choices});
        let response: CreateChatCompletionResponse = typed(&payload);
        prop_assert_eq!(aoai::tool_calls(&response), openai::tool_calls(&payload));
    }

    #[test]
    fn typed_and_value_paths_agree_on_responses(
        output in prop::collection::vec(an_output_item(), 0..6),
    ) {
        let mut payload = responses_parallel();
        payload["output"] = json!(output);
        let response: Response = typed(&payload);
        prop_assert_eq!(aoai::function_calls(&response), openai::function_calls(&payload));
        prop_assert_eq!(aoai::function_calls(&response.output), openai::function_calls(&payload["output"]));
    }
}

// ---------------------------------------------------------------------
// Chat Completions streams
// ---------------------------------------------------------------------

/// Each call returned, with the number of the chunk that returned it: by
/// the typed path and by the Value path, on two streams.
fn stream_both(chunks: &[Value]) -> Vec<(usize, ToolCall)> {
    let mut typed_stream = ChatStream::new();
    let mut value_stream = ChatStream::new();
    let mut calls = Vec::new();
    for (n, chunk) in chunks.iter().enumerate() {
        let from_typed = typed_stream.push_chunk(&typed(chunk));
        let from_value = value_stream.push(chunk);
        assert_eq!(from_typed, from_value, "chunk {n}: {chunk}");
        assert_eq!(typed_stream.pending(), value_stream.pending());
        calls.extend(from_typed.into_iter().map(|call| (n, call)));
    }
    let rest = typed_stream.finish();
    assert_eq!(rest, value_stream.finish());
    calls.extend(rest.into_iter().map(|call| (chunks.len(), call)));
    calls
}

fn unstreamed() -> Vec<ToolCall> {
    two_calls()
        .iter()
        .map(|(id, name, arguments)| ToolCall::new(*id, *name, *arguments))
        .collect()
}

#[test]
fn a_typed_stream_returns_each_call_when_the_value_stream_does() {
    let chunks = chat_chunks(&two_calls(), &[vec![10, 30], vec![5]]);
    let calls = stream_both(&chunks);
    // The first call is returned by the chunk that starts the second,
    // before the stream ends; the second by `finish_reason`.
    assert_eq!(calls[0].0, 5);
    assert_eq!(calls[1].0, chunks.len() - 2);
    assert_eq!(calls_only(calls), unstreamed());
}

#[test]
fn a_typed_stream_split_at_every_boundary_gives_the_unstreamed_calls() {
    let expected = unstreamed();
    let mut streams = 0;
    for (call, (_, _, arguments)) in two_calls().iter().enumerate() {
        let boundaries: Vec<usize> = (0..=arguments.len())
            .filter(|&i| arguments.is_char_boundary(i))
            .collect();
        // Every pair of cuts: inside the `\u00e9` escape, an escaped
        // quote, the two-byte character, and between them.
        for (a, &i) in boundaries.iter().enumerate() {
            for &j in &boundaries[a..] {
                let mut cuts = vec![Vec::new(), Vec::new()];
                cuts[call] = vec![i, j];
                let chunks = chat_chunks(&two_calls(), &cuts);
                assert_eq!(calls_only(stream_both(&chunks)), expected, "{cuts:?}");
                streams += 1;
            }
        }
    }
    assert!(streams > 2_000, "{streams}");
}

/// tests/wire_sdk's stream: fragments of 7 characters, one ending inside
/// the `\u00` escape; a near miss among the calls.
#[tokio::test]
async fn the_sdk_stream_shape_binds_its_near_miss() {
    let search = "{\"data_source_names\": \"dotnet/eshop\", \"query\": \"basket\"}";
    let pieces = |text: &str| -> Vec<usize> {
        let cut = text
            .find("\\u00")
            .map_or_else(|| text.find("dotnet").unwrap() + 3, |at| at + 4);
        let mut ends: Vec<usize> = (7..cut).step_by(7).collect();
        ends.push(cut);
        ends.extend((cut + 7..text.len()).step_by(7));
        ends
    };
    let calls = [
        ("call_search", "search_code", search),
        ("call_weather", "forecast", WEATHER),
    ];
    let chunks = chat_chunks(&calls, &[pieces(search), pieces(WEATHER)]);
    assert!(chunks.iter().any(
        |chunk| chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .is_some_and(|text| text.ends_with("\\u00"))
    ));
    let streamed = calls_only(stream_both(&chunks));
    assert_eq!(
        streamed,
        [
            ToolCall::new("call_search", "search_code", search),
            ToolCall::new("call_weather", "forecast", WEATHER),
        ]
    );
    let results = toolbox().call_batch(streamed).await;
    match &results[0].outcome {
        ToolOutcome::Ran { repairs, .. } => {
            assert_eq!(repairs[0].rule, RepairRule::ScalarToArray)
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        results[1].outcome,
        ToolOutcome::Ran {
            output: json!("Bogot\u{e1}: 3 days in celsius"),
            repairs: canon::Repairs::new()
        }
    );
}

#[test]
fn typed_streams_tell_apart_the_calls_servers_send_as_the_value_stream_does() {
    let part = |index: u64, arguments: &str| {
        chat_chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]}),
            None,
        )
    };
    // Parallel calls interleaved by index: each complete on its own.
    let interleaved = [
        chat_chunk(
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
        chat_chunk(json!({}), Some("tool_calls")),
    ];
    assert_eq!(
        stream_both(&interleaved),
        [
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
    // Ollama's compatible stream: every call at index 0, each whole.
    let ollama = [
        chat_chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_8dt5ygk1", "index": 0, "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\":\"Paris\"}"}}]}),
            None,
        ),
        chat_chunk(
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "call_p1hx5p9c", "index": 0, "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\":\"Rome\"}"}}]}),
            None,
        ),
        chat_chunk(json!({"role": "assistant", "content": ""}), Some("stop")),
    ];
    assert_eq!(stream_both(&ollama).len(), 2);
    // A server repeating id and name on every delta; an empty id.
    let repeating = [
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "id": "", "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\""}}]}),
            None,
        ),
        chat_chunk(
            json!({"tool_calls": [{"index": 0, "id": "", "type": "function",
                "function": {"name": "forecast", "arguments": ": \"Oslo\"}"}}]}),
            None,
        ),
        chat_chunk(json!({}), Some("length")),
    ];
    assert_eq!(
        calls_only(stream_both(&repeating)),
        [ToolCall::new("call_0", "forecast", r#"{"city": "Oslo"}"#)]
    );
    // A stream cut off: no finish_reason, the call is returned at the end.
    let mut cut = chat_chunks(&two_calls(), &[vec![20]]);
    cut.truncate(5);
    let calls = stream_both(&cut);
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].0, cut.len());
    // Choices other than the first are not read; a chunk whose only
    // choice is another gives nothing.
    let mut other = chat_chunk(
        json!({"tool_calls": [{"index": 0, "id": "call_x", "type": "function",
            "function": {"name": "ping", "arguments": "{}"}}]}),
        Some("tool_calls"),
    );
    other["choices"][0]["index"] = json!(1);
    assert_eq!(stream_both(&[other]), []);
}

#[test]
fn a_typed_stream_stays_within_the_bound() {
    // Indices async-openai takes (`u32`), far apart, none closing.
    let tool_calls: Vec<Value> = (0..1_000u32)
        .map(|i| {
            json!({"index": u32::MAX - i * 7919, "id": format!("call_{i}"), "type": "function",
                "function": {"name": "forecast", "arguments": "{\"city\": "}})
        })
        .collect();
    let chunk: CreateChatCompletionStreamResponse =
        typed(&chat_chunk(json!({"tool_calls": tool_calls}), None));
    let mut stream = ChatStream::new();
    let mut calls = stream.push_chunk(&chunk);
    assert!(stream.pending() <= MAX_PENDING_CALLS);
    calls.extend(stream.finish());
    let ids: BTreeSet<String> = calls.into_iter().map(|call| call.id).collect();
    assert_eq!(ids.len(), 1_000);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_typed_stream_cut_anywhere_agrees_with_the_value_stream(
        search in prop::collection::btree_set(0..=SEARCH.len(), 0..12),
        forecast in prop::collection::btree_set(0..=FORECAST.len(), 0..12),
    ) {
        let on_boundaries = |cuts: BTreeSet<usize>, text: &str| -> Vec<usize> {
            cuts.into_iter().filter(|&i| text.is_char_boundary(i)).collect()
        };
        let cuts = vec![on_boundaries(search, SEARCH), on_boundaries(forecast, FORECAST)];
        prop_assert_eq!(calls_only(stream_both(&chat_chunks(&two_calls(), &cuts))), unstreamed());
    }

    /// Deltas in any order and shape async-openai reads: any index, id or
    /// not, name or not, any fragment, any finish.
    #[test]
    fn typed_and_value_streams_agree_on_any_deltas(
        deltas in prop::collection::vec(
            (
                0..4u32,
                prop::option::of(prop_oneof![Just(String::new()), "call_[a-c]"]),
                prop::option::of(a_name()),
                prop::option::of(prop_oneof![
                    Just(String::new()), Just("{".to_owned()), Just("}".to_owned()),
                    Just("\"a\\".to_owned()), "[{}\\[\\]\",:\\\\ a-z]{0,6}",
                ]),
                prop::option::of(prop_oneof![Just("stop"), Just("tool_calls"), Just("length")]),
            ),
            0..24,
        ),
    ) {
        let chunks: Vec<Value> = deltas
            .into_iter()
            .map(|(index, id, name, arguments, finish)| {
                let mut call = json!({"index": index});
                if let Some(id) = id {
                    call["id"] = json!(id);
                }
                if name.is_some() || arguments.is_some() {
                    call["function"] = json!({});
                    if let Some(name) = name {
                        call["function"]["name"] = json!(name);
                    }
                    if let Some(arguments) = arguments {
                        call["function"]["arguments"] = json!(arguments);
                    }
                }
                chat_chunk(json!({"tool_calls": [call]}), finish)
            })
            .collect();
        stream_both(&chunks);
    }
}

/// The recovery the module documentation gives: a chunk async-openai
/// refuses is pushed as the value of its text to the same stream, and the
/// calls are those of the Value path, no fragment lost.
#[test]
fn a_chunk_async_openai_refuses_is_pushed_as_a_value_to_the_same_stream() {
    let mut chunks = chat_chunks(&two_calls(), &[vec![10, 30], vec![5]]);
    // An older Ollama build sends one fragment without its `index`.
    let middle = 3;
    chunks[middle]["choices"][0]["delta"]["tool_calls"][0]
        .as_object_mut()
        .unwrap()
        .remove("index");
    let mut mixed = ChatStream::new();
    let mut value_stream = ChatStream::new();
    let mut calls = Vec::new();
    let mut refused = 0;
    for chunk in &chunks {
        let text = chunk.to_string();
        let from_mixed = match serde_json::from_str::<CreateChatCompletionStreamResponse>(&text) {
            Ok(chunk) => mixed.push_chunk(&chunk),
            Err(_) => {
                refused += 1;
                mixed.push(&serde_json::from_str(&text).unwrap())
            }
        };
        assert_eq!(from_mixed, value_stream.push(chunk));
        calls.extend(from_mixed);
    }
    calls.extend(mixed.finish());
    assert_eq!(refused, 1);
    assert_eq!(calls, unstreamed());
}

// ---------------------------------------------------------------------
// Responses API streams
// ---------------------------------------------------------------------

/// Each call returned with the number of its event, by the typed and the
/// Value path, on two streams.
fn stream_events_both(events: &[Value]) -> Vec<(usize, ToolCall)> {
    let mut typed_stream = ResponsesStream::new();
    let mut value_stream = ResponsesStream::new();
    let mut calls = Vec::new();
    for (n, event) in events.iter().enumerate() {
        let from_typed = typed_stream.push_event(&typed::<ResponseStreamEvent>(event));
        let from_value = value_stream.push(event);
        assert_eq!(from_typed, from_value, "event {n}: {event}");
        assert_eq!(typed_stream.pending(), value_stream.pending());
        calls.extend(from_typed.into_iter().map(|call| (n, call)));
    }
    let rest = typed_stream.finish();
    assert_eq!(rest, value_stream.finish());
    calls.extend(rest.into_iter().map(|call| (events.len(), call)));
    calls
}

#[test]
fn a_typed_responses_stream_returns_each_call_at_its_arguments_done() {
    let events = response_events(&responses_parallel(), &[vec![7, 40], vec![3]], true);
    let calls = stream_events_both(&events);
    let done_at: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["type"] == "response.function_call_arguments.done")
        .map(|(n, _)| n)
        .collect();
    assert_eq!(calls.iter().map(|(n, _)| *n).collect::<Vec<_>>(), done_at);
    assert_eq!(
        calls_only(calls),
        aoai::function_calls(&typed::<Response>(&responses_parallel()))
    );
}

#[test]
fn a_typed_responses_stream_split_at_every_boundary_gives_the_final_calls() {
    let expected = openai::function_calls(&responses_parallel());
    for (call, text) in [SEARCH, FORECAST].iter().enumerate() {
        for i in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let mut cuts = vec![Vec::new(), Vec::new()];
            cuts[call] = vec![i];
            for whole in [false, true] {
                let events = response_events(&responses_parallel(), &cuts, whole);
                assert_eq!(
                    calls_only(stream_events_both(&events)),
                    expected,
                    "{cuts:?} {whole}"
                );
            }
        }
    }
}

#[test]
fn typed_responses_events_match_by_output_index_and_end_with_the_response() {
    // A gateway rewriting item ids between events.
    let rewritten = [
        json!({"type": "response.output_item.added", "sequence_number": 1, "output_index": 2,
            "item": {"type": "function_call", "id": "fc_real", "call_id": "call_1", "name": "forecast", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 2, "item_id": "obf_91a", "output_index": 2, "delta": "{\"city\":"}),
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 3, "item_id": "obf_07c", "output_index": 2, "delta": "\"Rome\"}"}),
        json!({"type": "response.function_call_arguments.done", "sequence_number": 4, "item_id": "obf_33d", "output_index": 2, "arguments": ""}),
        json!({"type": "response.output_item.done", "sequence_number": 5, "output_index": 2,
            "item": {"type": "function_call", "id": "fc_real", "call_id": "call_1", "name": "forecast",
                     "arguments": "{\"city\":\"Rome\"}", "status": "completed"}}),
    ];
    assert_eq!(
        stream_events_both(&rewritten),
        [(3, ToolCall::new("call_1", "forecast", r#"{"city":"Rome"}"#))]
    );
    // An item done never announced; a call cut short by
    // `max_output_tokens`, returned by `response.incomplete`.
    let mut incomplete = responses_parallel();
    incomplete["status"] = json!("incomplete");
    incomplete["incomplete_details"] = json!({"reason": "max_output_tokens"});
    let events = [
        json!({"type": "response.output_item.done", "sequence_number": 1, "output_index": 0,
            "item": {"type": "function_call", "call_id": "call_1", "name": "ping", "arguments": "{}"}}),
        json!({"type": "response.output_item.added", "sequence_number": 2, "output_index": 1,
            "item": {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "forecast", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "sequence_number": 3, "item_id": "fc_2", "output_index": 1, "delta": "{\"city\": \"Li"}),
        json!({"type": "response.incomplete", "sequence_number": 4, "response": incomplete}),
    ];
    assert_eq!(
        stream_events_both(&events),
        [
            (0, ToolCall::new("call_1", "ping", "{}")),
            (3, ToolCall::new("call_2", "forecast", r#"{"city": "Li"#)),
        ]
    );
}

#[test]
fn a_typed_responses_stream_stays_within_the_bound() {
    let mut stream = ResponsesStream::new();
    let mut returned = Vec::new();
    for i in 0..1_000u32 {
        let added: ResponseStreamEvent = typed(
            &json!({"type": "response.output_item.added", "sequence_number": i, "output_index": i,
            "item": {"type": "function_call", "id": format!("fc_{i}"), "call_id": format!("call_{i}"),
                     "name": "ping", "arguments": ""}}),
        );
        returned.extend(stream.push_event(&added));
        assert!(stream.pending() <= MAX_PENDING_CALLS);
    }
    returned.extend(stream.finish());
    let ids: BTreeSet<String> = returned.into_iter().map(|call| call.id).collect();
    assert_eq!(ids.len(), 1_000);
}

/// The arguments the calls carry: text, as sent.
#[test]
fn typed_calls_carry_their_arguments_as_text() {
    let response: CreateChatCompletionResponse = typed(&openai_parallel());
    for call in aoai::tool_calls(&response) {
        assert!(matches!(call.arguments, Arguments::Text(_)));
    }
    let Some(ChatCompletionMessageToolCalls::Function(first)) = response.choices[0]
        .message
        .tool_calls
        .as_ref()
        .and_then(|calls| calls.first())
    else {
        panic!("no function call")
    };
    assert_eq!(
        aoai::tool_calls(&response)[0].arguments,
        Arguments::Text(first.function.arguments.clone())
    );
}

#[test]
fn calls_sent_with_empty_ids_are_carried_with_the_ids_their_answers_name() {
    let message = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "", "type": "function", "function": {"name": "ping", "arguments": "{}"}},
        {"id": "call_b", "type": "function", "function": {"name": "ping", "arguments": "{}"}},
        {"id": "", "type": "function", "function": {"name": "ping", "arguments": "{}"}}]});
    let message: ChatCompletionResponseMessage = typed(&message);
    let calls = aoai::tool_calls(&message);
    let ids: Vec<_> = calls.iter().map(|c| c.id.clone()).collect();
    assert_eq!(ids, ["call_0", "call_b", "call_2"]);
    let reply = to_json(&aoai::assistant_message(&message));
    let sent: Vec<_> = reply["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(sent, ids);
}
