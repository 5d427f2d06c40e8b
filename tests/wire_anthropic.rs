//! The Anthropic Messages wire format: recorded response and stream shapes
//! become calls, results go back as one user message, a near miss is
//! repaired and a refused call answered with `is_error`, streams read the
//! same whatever their fragments, and hostile responses and streams never
//! panic and stay bounded (counted, never timed).
#![cfg(feature = "anthropic")]

use canon::anthropic::{
    self, MessageStream, MAX_ARGUMENT_BYTES, MAX_PENDING_CALLS, MISSING_ID_PREFIX,
};
use canon::export::Dialect;
use canon::toolbox::{Arguments, ToolMessage, ViolationKind};
use canon::{tool, Limits, RepairRule, ToolCall, ToolOutcome, Toolbox};
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
) -> Vec<String> {
    data_source_names
        .into_iter()
        .take(limit.unwrap_or(10) as usize)
        .map(|repo| format!("{repo}/src/{query}.cs"))
        .collect()
}

/// Get the current weather in a given location.
#[tool]
fn get_weather(
    /// The city and state, e.g. San Francisco, CA.
    location: String,
    /// `celsius` or `fahrenheit`.
    unit: Option<String>,
) -> String {
    format!(
        "{location}: 18 degrees {}",
        unit.as_deref().unwrap_or("celsius")
    )
}

/// Say whether the service is up.
#[tool]
fn ping() -> &'static str {
    "pong"
}

fn toolbox() -> Toolbox {
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox
        .add(SearchCode)
        .unwrap()
        .add(GetWeather)
        .unwrap()
        .add(Ping)
        .unwrap();
    toolbox
}

/// The toolbox's messages for `calls`, as the user message answering them.
async fn answer(toolbox: &Toolbox, calls: Vec<ToolCall>) -> Value {
    let results = toolbox.call_batch(calls).await;
    let messages: Vec<ToolMessage> = results.iter().map(|r| toolbox.message(r)).collect();
    anthropic::user_message(&messages)
}

/// A Messages response as the API returns it: thinking, text and two
/// parallel `tool_use` blocks.
fn recorded_response() -> Value {
    json!({
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "Weather in two cities.", "signature": "EqQBCgIYAhIM"},
            {"type": "text", "text": "I'll check the weather in both cities."},
            {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
             "input": {"location": "San Francisco, CA", "unit": "celsius"}},
            {"type": "tool_use", "id": "toolu_01B7ZPQnqvu3Dq4nR6wRjXEa", "name": "get_weather",
             "input": {"location": "New York, NY"}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {"input_tokens": 472, "output_tokens": 125}
    })
}

#[test]
fn parallel_tool_use_blocks_become_calls_in_order_beside_text_and_thinking() {
    let calls = anthropic::tool_calls(&recorded_response());
    assert_eq!(
        calls,
        [
            ToolCall::new(
                "toolu_01A09q90qw90lq917835lq9",
                "get_weather",
                json!({"location": "San Francisco, CA", "unit": "celsius"})
            ),
            ToolCall::new(
                "toolu_01B7ZPQnqvu3Dq4nR6wRjXEa",
                "get_weather",
                json!({"location": "New York, NY"})
            ),
        ]
    );
}

#[test]
fn a_response_a_message_and_a_content_array_give_the_same_calls() {
    let response = recorded_response();
    let message = json!({"role": "assistant", "content": response["content"].clone()});
    let expected = anthropic::tool_calls(&response);
    assert_eq!(anthropic::tool_calls(&message), expected);
    assert_eq!(anthropic::tool_calls(&response["content"]), expected);
}

#[test]
fn text_and_server_tool_blocks_are_not_calls() {
    let response = json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Searching the web."},
            {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
             "input": {"query": "weather"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []},
            {"type": "redacted_thinking", "data": "EmwKAhgB"}
        ]
    });
    assert_eq!(anthropic::tool_calls(&response), []);
    // A user message whose content is a string holds no call either.
    assert_eq!(
        anthropic::tool_calls(&json!({"role": "user", "content": "hi"})),
        []
    );
}

#[tokio::test]
async fn malformed_blocks_are_still_calls_each_answered_for_itself() {
    let response = json!({"content": [
        {"type": "tool_use", "name": "get_weather", "input": {"location": "Paris"}},
        {"type": "tool_use", "id": "toolu_02", "input": {"location": "Paris"}},
        {"type": "tool_use", "id": "toolu_03", "name": "get_weather", "input": "Paris"},
        {"type": "tool_use", "id": "toolu_04", "name": "ping"},
        {"type": "tool_use", "id": 5, "name": 6, "input": [1]},
        {"type": "tool_use", "id": "", "name": "ping", "input": {}}
    ]});
    let calls = anthropic::tool_calls(&response);
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "canon:tool_use:0",
            "toolu_02",
            "toolu_03",
            "toolu_04",
            "canon:tool_use:4",
            "canon:tool_use:5"
        ]
    );
    assert_eq!(calls[1].name, "");
    assert_eq!(calls[3].arguments, Arguments::Json(Value::Null));

    let toolbox = toolbox();
    let results = toolbox.call_batch(calls).await;
    assert!(matches!(results[0].outcome, ToolOutcome::Ran { .. }));
    assert!(matches!(results[1].outcome, ToolOutcome::NoSuchTool { .. }));
    let ToolOutcome::Rejected(error) = &results[2].outcome else {
        panic!("{:?}", results[2].outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::WrongType);
    // A missing input is read as `{}`, and that is recorded.
    let ToolOutcome::Ran { repairs, .. } = &results[3].outcome else {
        panic!("{:?}", results[3].outcome)
    };
    assert_eq!(repairs[0].rule, RepairRule::EmptyArguments);
    assert!(matches!(results[4].outcome, ToolOutcome::NoSuchTool { .. }));
    assert!(matches!(results[5].outcome, ToolOutcome::Ran { .. }));
}

#[test]
fn a_made_up_id_never_takes_an_id_the_response_gives() {
    let calls = anthropic::tool_calls(&json!([
        {"type": "tool_use", "name": "ping", "input": {}},
        {"type": "tool_use", "id": "canon:tool_use:0", "name": "ping", "input": {}},
        {"type": "tool_use", "id": "canon:tool_use:0-1", "name": "ping", "input": {}},
    ]));
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "canon:tool_use:0-2",
            "canon:tool_use:0",
            "canon:tool_use:0-1"
        ]
    );
    assert!(ids[0].starts_with(MISSING_ID_PREFIX));
}

#[tokio::test]
async fn a_near_miss_is_repaired_and_answered() {
    // The real trace: an array of strings declared, one string sent.
    let response = json!({"role": "assistant", "content": [
        {"type": "text", "text": "Let me search the repository."},
        {"type": "tool_use", "id": "toolu_01D7FLrfh4GYq7yT1ULFeyMV", "name": "search_code",
         "input": {"data_source_names": "dotnet/eshop", "query": "basket"}}
    ]});
    let toolbox = toolbox();
    let calls = anthropic::tool_calls(&response);
    let results = toolbox.call_batch(calls.clone()).await;
    let ToolOutcome::Ran { repairs, .. } = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert_eq!(repairs[0].pointer, "/data_source_names");
    assert_eq!(repairs[0].rule, RepairRule::ScalarToArray);
    insta::assert_json_snapshot!("near_miss_answer", answer(&toolbox, calls).await);
}

#[tokio::test]
async fn a_refused_call_is_answered_with_is_error_and_the_feedback() {
    let response = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_01", "name": "search_code",
         "input": {"data_source_names": "points, assists, minutes", "limt": 5}},
        {"type": "tool_use", "id": "toolu_02", "name": "serach_code", "input": {}},
        {"type": "tool_use", "id": "toolu_03", "name": "ping", "input": {}}
    ]});
    let toolbox = toolbox();
    let message = answer(&toolbox, anthropic::tool_calls(&response)).await;
    assert_eq!(message["content"][0]["is_error"], true);
    assert!(message["content"][0]["content"]
        .as_str()
        .unwrap()
        .starts_with("The call to `search_code` was not run."));
    assert_eq!(message["content"][1]["is_error"], true);
    // A call that ran says nothing of errors.
    assert!(message["content"][2].get("is_error").is_none());
    insta::assert_json_snapshot!("refused_answer", message);
}

#[test]
fn a_tool_result_is_the_block_the_api_takes() {
    let ran = ToolMessage {
        id: "toolu_01".into(),
        name: "ping".into(),
        text: "pong".into(),
        note: None,
        is_error: false,
    };
    assert_eq!(
        anthropic::tool_result(&ran),
        json!({"type": "tool_result", "tool_use_id": "toolu_01", "content": "pong"})
    );
    let failed = ToolMessage {
        note: None,
        is_error: true,
        ..ran.clone()
    };
    assert_eq!(
        anthropic::tool_result(&failed),
        json!({"type": "tool_result", "tool_use_id": "toolu_01", "content": "pong", "is_error": true})
    );
    assert_eq!(
        anthropic::user_message(&[ran, failed]),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "pong"},
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "pong", "is_error": true}
        ]})
    );
    assert_eq!(
        anthropic::user_message(&[]),
        json!({"role": "user", "content": []})
    );
}

#[test]
fn tools_are_the_toolbox_in_the_anthropic_dialect() {
    let toolbox = toolbox();
    for strict in [false, true] {
        let tools = anthropic::tools(&toolbox, strict).unwrap();
        assert_eq!(
            tools,
            toolbox.export(Dialect::Anthropic { strict }).unwrap()
        );
        assert_eq!(tools.as_array().unwrap().len(), 3);
        assert_eq!(tools[0]["name"], "search_code");
        assert_eq!(
            tools[0]["input_schema"]["properties"]["data_source_names"]["type"],
            "array"
        );
        assert_eq!(tools[0].get("strict"), strict.then_some(&json!(true)));
    }
}

// ---- Streams ------------------------------------------------------------

/// The events of a streamed response as the API sends them: a thinking
/// block, a text block, then one `tool_use` block per call, each call's
/// arguments text cut into `fragments` (after the empty fragment the API
/// sends first); a call with no fragment gets no delta at all.
fn stream_events(calls: &[(&str, &str, Vec<&str>)]) -> Vec<Value> {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_014p7gG3wDgGV9EUtLvnow3U",
            "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 472, "output_tokens": 2}}}),
        json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Two cities."}}),
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "ping"}),
        json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "text_delta", "text": "Okay, let me check."}}),
        json!({"type": "content_block_stop", "index": 1}),
    ];
    for (n, (id, name, fragments)) in calls.iter().enumerate() {
        let index = n + 2;
        events.push(json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}));
        if !fragments.is_empty() {
            events.push(json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": ""}}));
        }
        for fragment in fragments {
            events.push(json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": fragment}}));
        }
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.extend([
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
            "usage": {"output_tokens": 89}}),
        json!({"type": "message_stop"}),
    ]);
    events
}

/// Every call `events` give, pushed one by one and then finished.
fn read(events: &[Value]) -> Vec<ToolCall> {
    let mut stream = MessageStream::new();
    let mut calls = Vec::new();
    for event in events {
        calls.extend(stream.push(event));
    }
    calls.extend(stream.finish());
    calls
}

/// The arguments as a JSON value, however they came.
fn value_of(arguments: &Arguments) -> Value {
    match arguments {
        Arguments::Json(value) => value.clone(),
        Arguments::Text(text) => serde_json::from_str(text).unwrap(),
    }
}

#[test]
fn a_stream_gives_the_calls_of_the_same_response() {
    let events = stream_events(&[
        (
            "toolu_01A09q90qw90lq917835lq9",
            "get_weather",
            vec![
                "{\"location\":",
                " \"San",
                " Francisc",
                "o, CA\"",
                ", ",
                "\"unit\": \"cel",
                "sius\"}",
            ],
        ),
        (
            "toolu_01B7ZPQnqvu3Dq4nR6wRjXEa",
            "get_weather",
            vec!["{\"location\": \"New York, NY\"}"],
        ),
    ]);
    let streamed = read(&events);
    let whole = anthropic::tool_calls(&recorded_response());
    assert_eq!(streamed.len(), whole.len());
    for (streamed, whole) in streamed.iter().zip(&whole) {
        assert_eq!((&streamed.id, &streamed.name), (&whole.id, &whole.name));
        assert_eq!(value_of(&streamed.arguments), value_of(&whole.arguments));
    }
    assert!(matches!(streamed[0].arguments, Arguments::Text(_)));
}

#[test]
fn each_call_is_given_out_at_its_stop() {
    let events = stream_events(&[("toolu_01", "ping", vec![])]);
    let mut stream = MessageStream::new();
    let mut at = Vec::new();
    for (n, event) in events.iter().enumerate() {
        if !stream.push(event).is_empty() {
            at.push(n);
        }
    }
    assert_eq!(at.len(), 1);
    assert_eq!(events[at[0]]["type"], "content_block_stop");
    assert!(stream.finish().is_empty());
}

#[tokio::test]
async fn a_tool_without_input_binds_without_a_repair() {
    // The API sends no fragment for a tool without input.
    let calls = read(&stream_events(&[("toolu_01", "ping", vec![])]));
    assert_eq!(
        calls,
        [ToolCall::new(
            "toolu_01",
            "ping",
            Arguments::Json(json!({}))
        )]
    );
    let result = toolbox().call(calls[0].clone()).await;
    assert_eq!(
        result.outcome,
        ToolOutcome::Ran {
            output: json!("pong"),
            repairs: canon::Repairs::new()
        }
    );
}

/// Arguments text with escapes of every kind and characters of 2, 3 and 4
/// bytes, so that cuts fall inside strings, escapes and `\u` sequences.
const TRICKY: &str = r#"{"data_source_names": ["dotnet/eshop", "a\"b\\c\/d\n\t\u00e9\ud83d\ude00"], "query": "caf\u00e9 ünï €uro 😀 \"q\"", "limit": 2}"#;

#[test]
fn fragments_cut_anywhere_give_the_same_call() {
    let whole = read(&stream_events(&[("toolu_01", "search_code", vec![TRICKY])]));
    assert_eq!(whole[0].arguments, Arguments::Text(TRICKY.into()));
    // `partial_json` is a JSON string, so a fragment holds whole
    // characters: every byte where a character starts is a cut.
    let cuts: Vec<usize> = (0..=TRICKY.len())
        .filter(|&at| TRICKY.is_char_boundary(at))
        .collect();
    let mut streams = 0;
    for &first in &cuts {
        let calls = read(&stream_events(&[(
            "toolu_01",
            "search_code",
            vec![&TRICKY[..first], &TRICKY[first..]],
        )]));
        assert_eq!(calls, whole, "cut at {first}");
        streams += 1;
        // And every second cut after it.
        for &second in cuts.iter().filter(|&&at| at >= first) {
            let calls = read(&stream_events(&[(
                "toolu_01",
                "search_code",
                vec![&TRICKY[..first], &TRICKY[first..second], &TRICKY[second..]],
            )]));
            assert_eq!(calls, whole, "cut at {first} and {second}");
            streams += 1;
        }
    }
    // One character per fragment.
    let characters: Vec<String> = TRICKY.chars().map(String::from).collect();
    let calls = read(&stream_events(&[(
        "toolu_01",
        "search_code",
        characters.iter().map(String::as_str).collect(),
    )]));
    assert_eq!(calls, whole);
    assert!(streams > TRICKY.chars().count());
}

#[tokio::test]
async fn a_streamed_call_binds_as_the_whole_call_does() {
    let toolbox = toolbox();
    let characters: Vec<char> = TRICKY.chars().collect();
    let pieces: Vec<String> = characters.chunks(7).map(|c| c.iter().collect()).collect();
    let calls = read(&stream_events(&[(
        "toolu_01",
        "search_code",
        pieces.iter().map(String::as_str).collect(),
    )]));
    let streamed = toolbox.call(calls[0].clone()).await;
    let whole = toolbox
        .call(ToolCall::new(
            "toolu_01",
            "search_code",
            serde_json::from_str::<Value>(TRICKY).unwrap(),
        ))
        .await;
    assert_eq!(streamed, whole);
    assert!(matches!(streamed.outcome, ToolOutcome::Ran { .. }));
}

#[tokio::test]
async fn a_cut_stream_refuses_the_cut_call_only() {
    let mut events = stream_events(&[
        ("toolu_01", "ping", vec!["{}"]),
        (
            "toolu_02",
            "get_weather",
            vec!["{\"location\": \"Par", "is\"}"],
        ),
    ]);
    // The connection drops inside the second call's arguments.
    let at = events
        .iter()
        .position(|e| e["delta"]["partial_json"] == "is\"}")
        .unwrap();
    events.truncate(at);
    let mut stream = MessageStream::new();
    let mut calls: Vec<ToolCall> = events.iter().flat_map(|e| stream.push(e)).collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(stream.pending(), 1);
    calls.extend(stream.finish());
    assert_eq!(stream.pending(), 0);
    assert_eq!(
        calls[1],
        ToolCall::new("toolu_02", "get_weather", "{\"location\": \"Par")
    );
    let toolbox = toolbox();
    let results = toolbox.call_batch(calls).await;
    assert!(matches!(results[0].outcome, ToolOutcome::Ran { .. }));
    let ToolOutcome::Rejected(error) = &results[1].outcome else {
        panic!("{:?}", results[1].outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::Malformed);
    let message = toolbox.message(&results[1]);
    assert!(message.is_error);
    assert!(message.text.contains("not valid JSON"), "{}", message.text);
}

#[tokio::test]
async fn a_call_cut_before_its_arguments_is_refused_not_run_without_them() {
    let mut stream = MessageStream::new();
    stream.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "ping", "input": {}}}));
    let calls = stream.finish();
    let result = toolbox().call(calls[0].clone()).await;
    let ToolOutcome::Rejected(error) = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::Malformed);
}

#[test]
fn a_block_started_with_its_input_keeps_it() {
    // Some Anthropic-compatible servers send the whole input at the start.
    let mut stream = MessageStream::new();
    let start = json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_weather",
                          "input": {"location": "Paris"}}});
    stream.push(&start);
    let stop = stream.push(&json!({"type": "content_block_stop", "index": 0}));
    assert_eq!(
        stop,
        [ToolCall::new(
            "toolu_01",
            "get_weather",
            json!({"location": "Paris"})
        )]
    );
    // Cut before its stop, it is whole all the same.
    stream.push(&start);
    assert_eq!(stream.finish(), stop);
}

// ---- Hostile streams and responses ----------------------------------------

#[test]
fn events_that_are_not_events_are_ignored() {
    let mut stream = MessageStream::new();
    stream.push(&json!({"type": "content_block_start", "index": 3,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "ping", "input": {}}}));
    let noise = [
        json!(null),
        json!(1),
        json!("content_block_stop"),
        json!([{"type": "content_block_stop", "index": 3}]),
        json!({}),
        json!({"type": 7, "index": 3}),
        json!({"type": "content_block_stop"}),
        json!({"type": "content_block_stop", "index": "3"}),
        json!({"type": "content_block_stop", "index": 3.0}),
        json!({"type": "content_block_stop", "index": -3}),
        json!({"type": "content_block_stop", "index": u64::MAX}),
        json!({"type": "content_block_stop", "index": 1e300}),
        json!({"type": "content_block_delta", "index": 4,
               "delta": {"type": "input_json_delta", "partial_json": "{"}}),
        json!({"type": "content_block_delta", "index": 3}),
        json!({"type": "content_block_delta", "index": 3, "delta": "x"}),
        json!({"type": "content_block_delta", "index": 3,
               "delta": {"type": "text_delta", "text": "{\"a\": 1}"}}),
        json!({"type": "content_block_start", "index": 5}),
        json!({"type": "content_block_start", "index": 6, "content_block": "tool_use"}),
        json!({"type": "content_block_start", "index": 7, "content_block": {"type": "text"}}),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        json!({"type": "message_stop"}),
    ];
    for event in &noise {
        assert_eq!(stream.push(event), [], "{event}");
    }
    assert_eq!(stream.pending(), 1);
    assert_eq!(
        stream.push(&json!({"type": "content_block_stop", "index": 3})),
        [ToolCall::new(
            "toolu_01",
            "ping",
            Arguments::Json(json!({}))
        )]
    );
}

#[test]
fn huge_indices_are_indices_like_any_other() {
    let mut stream = MessageStream::new();
    for index in [u64::MAX, u64::MAX - 1, 1 << 53] {
        stream.push(&json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "name": "ping", "input": {}}}));
        stream.push(&json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": "{}"}}));
    }
    assert_eq!(stream.pending(), 3);
    let calls = stream.push(&json!({"type": "content_block_stop", "index": u64::MAX}));
    assert_eq!(
        calls,
        [ToolCall::new(
            format!("{MISSING_ID_PREFIX}{}", u64::MAX),
            "ping",
            "{}"
        )]
    );
    // The rest come out in index order.
    let ids: Vec<String> = stream.finish().into_iter().map(|c| c.id).collect();
    assert_eq!(
        ids,
        [
            format!("{MISSING_ID_PREFIX}{}", 1u64 << 53),
            format!("{MISSING_ID_PREFIX}{}", u64::MAX - 1)
        ]
    );
}

#[test]
fn a_start_over_an_open_block_gives_that_call_out_first() {
    let mut stream = MessageStream::new();
    stream.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "ping", "input": {}}}));
    stream.push(&json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": "{\"a\""}}));
    let out = stream.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "text", "text": ""}}));
    assert_eq!(out, [ToolCall::new("toolu_01", "ping", "{\"a\"")]);
    assert_eq!(stream.pending(), 0);
    // A tool_use start without an index cannot be continued: it is given
    // out at once, refused as cut short.
    let out = stream.push(&json!({"type": "content_block_start",
        "content_block": {"type": "tool_use", "id": "toolu_02", "name": "ping", "input": {}}}));
    assert_eq!(out, [ToolCall::new("toolu_02", "ping", "{")]);
}

#[tokio::test]
async fn a_fragment_that_is_not_text_spoils_its_call_rather_than_vanish() {
    let mut stream = MessageStream::new();
    stream.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}}));
    for fragment in [json!("{\"location\": \"Par"), json!(7), json!("is\"}")] {
        stream.push(&json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": fragment}}));
    }
    let calls = stream.push(&json!({"type": "content_block_stop", "index": 0}));
    // Without the fragment the text would read `{"location": "Paris"}`.
    let result = toolbox().call(calls[0].clone()).await;
    let ToolOutcome::Rejected(error) = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::Malformed);
}

#[test]
fn ten_thousand_blocks_give_ten_thousand_calls() {
    let blocks: Vec<Value> = (0..10_000)
        .map(|n| json!({"type": "tool_use", "id": format!("toolu_{n}"), "name": "ping", "input": {}}))
        .collect();
    let calls = anthropic::tool_calls(&json!({"content": blocks}));
    assert_eq!(calls.len(), 10_000);
    assert_eq!(calls[9_999].id, "toolu_9999");

    // Streamed one after another, at most one is open at a time.
    let mut stream = MessageStream::new();
    let mut count = 0;
    let mut most_open = 0;
    for index in 0..10_000u64 {
        for event in [
            json!({"type": "content_block_start", "index": index,
                "content_block": {"type": "tool_use", "id": format!("toolu_{index}"), "name": "ping", "input": {}}}),
            json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
            json!({"type": "content_block_stop", "index": index}),
        ] {
            count += stream.push(&event).len();
            most_open = most_open.max(stream.pending());
        }
    }
    assert_eq!((count, most_open), (10_000, 1));
}

#[test]
fn ten_thousand_blocks_never_stopped_stay_bounded_and_none_is_lost() {
    let mut stream = MessageStream::new();
    let mut given = Vec::new();
    for index in 0..10_000u64 {
        given.extend(stream.push(&json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": format!("toolu_{index}"), "name": "ping", "input": {}}})));
        stream.push(&json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": "{\"a\": "}}));
        assert!(stream.pending() <= MAX_PENDING_CALLS);
        assert!(stream.buffered_bytes() <= MAX_PENDING_CALLS * 6);
    }
    assert_eq!(given.len(), 10_000 - MAX_PENDING_CALLS);
    // The lowest index went first.
    assert_eq!(given[0].id, "toolu_0");
    given.extend(stream.finish());
    assert_eq!(given.len(), 10_000);
    let ids: std::collections::HashSet<&str> = given.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 10_000);
}

#[tokio::test]
async fn a_call_past_its_text_limit_is_held_bounded_and_refused_as_too_large() {
    let limits = Limits {
        max_text_bytes: 1000,
        ..Limits::default()
    };
    let mut stream = MessageStream::new().with_max_argument_bytes(limits.max_text_bytes);
    stream.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "search_code", "input": {}}}));
    let fragments = std::iter::once("{\"query\": \"".to_owned())
        .chain(std::iter::repeat_n("é😀x".repeat(10), 1_000));
    for fragment in fragments {
        stream.push(&json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": fragment}}));
        assert!(
            stream.buffered_bytes() <= 1004,
            "{}",
            stream.buffered_bytes()
        );
    }
    let calls = stream.push(&json!({"type": "content_block_stop", "index": 0}));
    let Arguments::Text(text) = &calls[0].arguments else {
        panic!("{:?}", calls[0].arguments)
    };
    assert!(text.len() > 1000 && text.len() <= 1004, "{}", text.len());

    let mut toolbox = Toolbox::new().with_limits(limits);
    toolbox.add(SearchCode).unwrap();
    let result = toolbox.call(calls[0].clone()).await;
    let ToolOutcome::Rejected(error) = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge);
}

#[tokio::test]
async fn the_default_limit_is_the_toolbox_default() {
    let mut stream = MessageStream::new();
    stream.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "search_code", "input": {}}}));
    let fragment = "x".repeat(64 << 10);
    for _ in 0..40 {
        stream.push(&json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": fragment}}));
    }
    assert_eq!(MAX_ARGUMENT_BYTES, Limits::default().max_text_bytes);
    assert_eq!(stream.buffered_bytes(), MAX_ARGUMENT_BYTES + 1);
    let calls = stream.finish();
    let result = toolbox().call(calls[0].clone()).await;
    let ToolOutcome::Rejected(error) = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge);
}

#[test]
fn responses_that_are_not_responses_hold_no_call() {
    for response in [
        json!(null),
        json!("tool_use"),
        json!(42),
        json!({}),
        json!({"content": {"type": "tool_use"}}),
        json!({"content": null}),
        json!([null, 1, "tool_use", [], {"type": ["tool_use"]}, {"type": "TOOL_USE"}]),
    ] {
        assert_eq!(anthropic::tool_calls(&response), [], "{response}");
    }
}

#[test]
fn the_open_calls_bound_can_be_set() {
    let mut stream = MessageStream::new().with_max_pending(2);
    let mut given = Vec::new();
    for index in [5u64, 3, 9] {
        given.extend(stream.push(&json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": format!("toolu_{index}"), "name": "ping", "input": {}}})));
    }
    assert_eq!(stream.pending(), 2);
    // The lowest index is given out, refused as cut short.
    assert_eq!(given, [ToolCall::new("toolu_3", "ping", "{")]);
    // What comes for it later is ignored.
    assert_eq!(
        stream.push(&json!({"type": "content_block_stop", "index": 3})),
        []
    );
    let rest: Vec<String> = stream.finish().into_iter().map(|c| c.id).collect();
    assert_eq!(rest, ["toolu_5", "toolu_9"]);
    // At least one.
    let mut one = MessageStream::new().with_max_pending(0);
    one.push(&json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_0", "name": "ping", "input": {}}}));
    assert_eq!(one.pending(), 1);
}

// ---- Generated hostile input ----------------------------------------------

/// A small deterministic generator (xorshift): the runs repeat exactly and
/// read no clock.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}

/// Any JSON value, leaning to the names and values events use.
fn any_value(rng: &mut Rng, depth: usize) -> Value {
    const WORDS: &[&str] = &[
        "tool_use",
        "text",
        "input_json_delta",
        "text_delta",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
        "{",
        "}",
        "\"",
        "\\",
        "é",
        "",
        "{\"a\": 1}",
        "canon:tool_use:0",
    ];
    const KEYS: &[&str] = &[
        "type",
        "index",
        "id",
        "name",
        "input",
        "content",
        "content_block",
        "delta",
        "partial_json",
    ];
    match rng.below(if depth == 0 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => rng.pick(&[
            json!(0),
            json!(1),
            json!(-1),
            json!(u64::MAX),
            json!(1.5),
            json!(1e300),
        ]),
        3 => json!(rng.pick(WORDS)),
        4 => Value::Array(
            (0..rng.below(4))
                .map(|_| any_value(rng, depth - 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(5))
                .map(|_| (rng.pick(KEYS).to_owned(), any_value(rng, depth - 1)))
                .collect(),
        ),
    }
}

/// An event: mostly well-shaped, with any part of it replaced by noise.
fn any_event(rng: &mut Rng) -> Value {
    let index = rng.pick(&[
        json!(0),
        json!(1),
        json!(2),
        json!(u64::MAX),
        json!(-1),
        json!("1"),
    ]);
    let mut event = match rng.below(5) {
        0 => json!({"type": "content_block_start", "index": index,
            "content_block": {"type": rng.pick(&["tool_use", "text"]), "id": rng.pick(&["toolu_1", ""]),
                              "name": "ping", "input": {}}}),
        1 | 2 => json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": rng.pick(&["{\"a\"", ": 1}", "\\u00", "e9", "é", ""])}}),
        3 => json!({"type": "content_block_stop", "index": index}),
        _ => any_value(rng, 3),
    };
    if rng.below(4) == 0 {
        if let Some(members) = event.as_object_mut() {
            let key = rng.pick(&["type", "index", "content_block", "delta"]);
            members.insert(key.to_owned(), any_value(rng, 2));
        }
    }
    event
}

#[test]
fn generated_streams_never_panic_never_lose_a_call_and_stay_bounded() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut total = 0;
    for _ in 0..2_000 {
        let mut stream = MessageStream::new()
            .with_max_pending(3)
            .with_max_argument_bytes(16);
        let (mut starts, mut calls) = (0, 0);
        for _ in 0..40 {
            let event = any_event(&mut rng);
            if event["type"] == "content_block_start"
                && event["content_block"]["type"] == "tool_use"
            {
                starts += 1;
            }
            calls += stream.push(&event).len();
            assert!(stream.pending() <= 3);
            assert!(stream.buffered_bytes() <= 3 * (16 + 4));
        }
        calls += stream.finish().len();
        // Every tool_use block begun is given out once: stopped, cut short
        // by another at its index or past the bound, or at the end.
        assert_eq!(calls, starts);
        total += calls;
    }
    // The generator does make calls: the property is not empty.
    assert!(total > 5_000, "{total}");
}

/// A block's id, when it has a usable one.
fn usable(block: &Value) -> Option<&str> {
    block
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

#[test]
fn generated_responses_never_panic_and_every_tool_use_block_is_a_call() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..5_000 {
        let mut blocks: Vec<Value> = (0..rng.below(6)).map(|_| any_value(&mut rng, 3)).collect();
        for _ in 0..rng.below(3) {
            let mut block = json!({"type": "tool_use"});
            for key in ["id", "name", "input"] {
                if rng.below(3) > 0 {
                    block[key] = any_value(&mut rng, 2);
                }
            }
            let at = rng.below(blocks.len() + 1);
            blocks.insert(at, block);
        }
        let expected = blocks
            .iter()
            .filter(|b| b.get("type") == Some(&json!("tool_use")))
            .count();
        let calls = anthropic::tool_calls(&json!({"role": "assistant", "content": blocks}));
        assert_eq!(calls.len(), expected);
        // The ids made up are distinct from each other and from those given.
        let uses: Vec<&Value> = blocks
            .iter()
            .filter(|b| b.get("type") == Some(&json!("tool_use")))
            .collect();
        let given: Vec<&str> = uses.iter().filter_map(|b| usable(b)).collect();
        let made: Vec<&str> = uses
            .iter()
            .zip(&calls)
            .filter(|(block, _)| usable(block).is_none())
            .map(|(_, call)| call.id.as_str())
            .collect();
        assert!(made.iter().all(|id| !given.contains(id)));
        let distinct: std::collections::HashSet<&&str> = made.iter().collect();
        assert_eq!(distinct.len(), made.len());
    }
}
