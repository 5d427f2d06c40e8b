//! The Gemini `generateContent` wire format: recorded response shapes
//! become calls, with and without ids; results go back as one user content
//! whose responses carry an id only when Gemini gave one; a near miss is
//! repaired and a refused call answered with an error; whole numbers sent
//! as doubles bind; hostile responses never panic and stay bounded.
#![cfg(feature = "gemini")]

use std::collections::HashSet;

use canon::export::Dialect;
use canon::gemini::{self, GenerateContentStream, SYNTHESIZED_ID_PREFIX};
use canon::toolbox::{Arguments, ToolMessage, ViolationKind};
use canon::{tool, RepairRule, ToolCall, ToolOutcome, Toolbox};
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
    /// The city, e.g. Paris.
    location: String,
) -> serde_json::Value {
    json!({"location": location, "celsius": 18, "sky": "clear"})
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

/// The toolbox's messages for `calls`, as the content answering them.
async fn answer(toolbox: &Toolbox, calls: Vec<ToolCall>) -> Value {
    let results = toolbox.call_batch(calls).await;
    let messages: Vec<ToolMessage> = results.iter().map(|r| toolbox.message(r)).collect();
    gemini::user_content(&messages)
}

/// A `generateContent` response as the Gemini API returns it: text, then
/// two parallel calls without ids (the first carrying a thought
/// signature), numbers as doubles.
fn recorded_response() -> Value {
    json!({
        "candidates": [{
            "content": {
                "role": "model",
                "parts": [
                    {"text": "I'll look at both."},
                    {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}},
                     "thoughtSignature": "CiQBVKhc7vB+vaaq6rA"},
                    {"functionCall": {"name": "search_code",
                                      "args": {"data_source_names": ["dotnet/eshop"], "query": "basket", "limit": 3.0}}}
                ]
            },
            "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 40, "totalTokenCount": 160},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "bXvCaKq3Ls2Dz7IPpbqW8QE"
    })
}

#[test]
fn parallel_calls_without_ids_get_made_up_ids_by_position() {
    let calls = gemini::tool_calls(&recorded_response());
    assert_eq!(
        calls,
        [
            ToolCall::new("canon:call:1", "get_weather", json!({"location": "Paris"})),
            ToolCall::new(
                "canon:call:2",
                "search_code",
                json!({"data_source_names": ["dotnet/eshop"], "query": "basket", "limit": 3.0})
            ),
        ]
    );
    assert!(calls.iter().all(|c| gemini::is_synthesized_id(&c.id)));
}

#[test]
fn a_response_a_content_and_a_parts_array_give_the_same_calls() {
    let response = recorded_response();
    let content = &response["candidates"][0]["content"];
    let expected = gemini::tool_calls(&response);
    assert_eq!(gemini::tool_calls(content), expected);
    assert_eq!(gemini::tool_calls(&content["parts"]), expected);
}

#[tokio::test]
async fn calls_with_ids_are_answered_with_them_and_calls_without_without() {
    // Gemini 3 and Vertex AI give ids; older models do not.
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "r7k2vq1m", "name": "get_weather", "args": {"location": "Paris"}}},
        {"functionCall": {"name": "get_weather", "args": {"location": "Lyon"}}},
        {"functionCall": {"id": "p3x9w0ze", "name": "ping"}}
    ]}, "finishReason": "STOP"}]});
    let calls = gemini::tool_calls(&response);
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["r7k2vq1m", "canon:call:1", "p3x9w0ze"]);
    let toolbox = toolbox();
    let content = answer(&toolbox, calls).await;
    insta::assert_json_snapshot!("parallel_answer", content);
    assert_eq!(content["role"], "user");
    let ids: Vec<Option<&str>> = content["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["functionResponse"].get("id").and_then(Value::as_str))
        .collect();
    assert_eq!(ids, [Some("r7k2vq1m"), None, Some("p3x9w0ze")]);
    // Each response names its call's tool, in the calls' order.
    assert_eq!(
        content["parts"][1]["functionResponse"]["name"],
        "get_weather"
    );
    assert_eq!(
        content["parts"][1]["functionResponse"]["response"]["output"]["location"],
        "Lyon"
    );
}

#[tokio::test]
async fn whole_numbers_sent_as_doubles_bind_as_integers() {
    let calls = gemini::tool_calls(&recorded_response());
    let results = toolbox().call_batch(calls).await;
    assert_eq!(
        results[1].outcome,
        ToolOutcome::Ran {
            output: json!(["dotnet/eshop/src/basket.cs"]),
            repairs: canon::Repairs::new()
        }
    );
    // A fraction is no integer, and is refused.
    let call = ToolCall::new(
        "canon:call:0",
        "search_code",
        json!({"data_source_names": ["a"], "query": "q", "limit": 2.5}),
    );
    let result = toolbox().call(call).await;
    assert!(matches!(result.outcome, ToolOutcome::Rejected(_)));
}

#[tokio::test]
async fn a_near_miss_is_repaired_and_answered() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "search_code",
                          "args": {"data_source_names": "dotnet/eshop", "query": "basket"}}}
    ]}}]});
    let toolbox = toolbox();
    let calls = gemini::tool_calls(&response);
    let results = toolbox.call_batch(calls.clone()).await;
    let ToolOutcome::Ran { repairs, .. } = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert_eq!(repairs[0].pointer, "/data_source_names");
    assert_eq!(repairs[0].rule, RepairRule::ScalarToArray);
    // With a repair note after the output, the output stays text.
    insta::assert_json_snapshot!("near_miss_answer", answer(&toolbox, calls).await);
}

#[tokio::test]
async fn a_refused_call_is_answered_with_an_error_and_the_feedback() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"id": "fc-1", "name": "search_code",
                          "args": {"data_source_names": "points, assists, minutes", "limt": 5.0}}},
        {"functionCall": {"name": "serach_code", "args": {}}}
    ]}}]});
    let content = answer(&toolbox(), gemini::tool_calls(&response)).await;
    let error = content["parts"][0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap();
    assert!(error.starts_with("The call to `search_code` was not run."));
    assert!(content["parts"][0]["functionResponse"]["response"]
        .get("output")
        .is_none());
    insta::assert_json_snapshot!("refused_answer", content);
}

#[test]
fn the_output_is_the_json_the_text_is_or_else_the_text() {
    let output = |text: &str| {
        gemini::function_response(&ToolMessage {
            id: "fc-1".into(),
            name: "t".into(),
            text: text.into(),
            note: None,
            is_error: false,
        })["functionResponse"]["response"]["output"]
            .clone()
    };
    assert_eq!(output(r#"{"a":1}"#), json!({"a": 1}));
    assert_eq!(output(r#" [1, "b"] "#), json!([1, "b"]));
    assert_eq!(output("pong"), json!("pong"));
    // Scalars stay the text they were (a tool's string "42" is not 42).
    assert_eq!(output("42"), json!("42"));
    assert_eq!(output("true"), json!("true"));
    assert_eq!(output(r#""quoted""#), json!("\"quoted\""));
    assert_eq!(output(""), json!(""));
    // Text that only looks like JSON, or has more after it.
    assert_eq!(output("{not json}"), json!("{not json}"));
    assert_eq!(output("[draft] notes"), json!("[draft] notes"));
    assert_eq!(
        output("{\"a\":1}\n(Note: ...)"),
        json!("{\"a\":1}\n(Note: ...)")
    );
    // Nested past serde_json's own bound: text, not a failure.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(output(&deep), json!(deep));
}

#[test]
fn a_function_response_is_the_part_the_api_takes() {
    let message = ToolMessage {
        id: "fc-1".into(),
        name: "ping".into(),
        text: "pong".into(),
        note: None,
        is_error: false,
    };
    assert_eq!(
        gemini::function_response(&message),
        json!({"functionResponse": {"name": "ping", "response": {"output": "pong"}, "id": "fc-1"}})
    );
    let error = ToolMessage {
        id: "canon:call:0".into(),
        note: None,
        is_error: true,
        ..message.clone()
    };
    assert_eq!(
        gemini::function_response(&error),
        json!({"functionResponse": {"name": "ping", "response": {"error": "pong"}}})
    );
    let no_id = ToolMessage {
        id: String::new(),
        ..message.clone()
    };
    assert_eq!(
        gemini::function_response(&no_id),
        json!({"functionResponse": {"name": "ping", "response": {"output": "pong"}}})
    );
    assert_eq!(
        gemini::user_content(&[]),
        json!({"role": "user", "parts": []})
    );
}

#[test]
fn tools_are_one_tool_holding_every_declaration() {
    let toolbox = toolbox();
    let tools = gemini::tools(&toolbox).unwrap();
    assert_eq!(tools, json!([toolbox.export(Dialect::Gemini).unwrap()]));
    let declarations = tools[0]["functionDeclarations"].as_array().unwrap();
    assert_eq!(declarations.len(), 3);
    assert_eq!(declarations[0]["name"], "search_code");
    // A tool without parameters declares none.
    assert!(declarations[2].get("parameters").is_none());
}

#[tokio::test]
async fn malformed_calls_are_still_calls_each_answered_for_itself() {
    let parts = json!([
        {"functionCall": {"name": "get_weather", "args": "Paris"}},
        {"functionCall": {"args": {"location": "Paris"}}},
        {"functionCall": {"name": "ping", "args": null}},
        {"functionCall": "ping"},
        {"functionCall": {"name": ["ping"], "id": 7}},
        {"functionCall": {"name": "ping", "id": ""}},
        {"functionCall": {"name": "get_weather", "args": [{"location": "Paris"}]}}
    ]);
    let calls = gemini::tool_calls(&parts);
    assert_eq!(calls.len(), 7);
    let ids: HashSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 7);
    assert_eq!(calls[0].arguments, Arguments::Json(json!("Paris")));
    assert_eq!(calls[1].name, "");
    assert_eq!(calls[2].arguments, Arguments::Json(json!({})));
    assert_eq!(calls[3].name, "");

    let results = toolbox().call_batch(calls).await;
    let ToolOutcome::Rejected(error) = &results[0].outcome else {
        panic!("{:?}", results[0].outcome)
    };
    assert_eq!(error.violations()[0].kind, ViolationKind::WrongType);
    assert!(matches!(results[1].outcome, ToolOutcome::NoSuchTool { .. }));
    // Missing args are `{}` as Gemini means them: no repair.
    assert_eq!(
        results[2].outcome,
        ToolOutcome::Ran {
            output: json!("pong"),
            repairs: canon::Repairs::new()
        }
    );
    assert!(matches!(results[3].outcome, ToolOutcome::NoSuchTool { .. }));
    assert!(matches!(results[4].outcome, ToolOutcome::NoSuchTool { .. }));
    assert!(matches!(results[5].outcome, ToolOutcome::Ran { .. }));
    assert!(matches!(results[6].outcome, ToolOutcome::Rejected(_)));
}

#[test]
fn a_made_up_id_never_takes_an_id_the_response_gives() {
    let calls = gemini::tool_calls(&json!([
        {"functionCall": {"name": "ping"}},
        {"functionCall": {"name": "ping", "id": "canon:call:0"}},
        {"functionCall": {"name": "ping", "id": "canon:call:0-1"}},
    ]));
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["canon:call:0-2", "canon:call:0", "canon:call:0-1"]);
    assert!(ids[0].starts_with(SYNTHESIZED_ID_PREFIX));
}

#[test]
fn a_stream_keeps_made_up_ids_apart_across_chunks() {
    let chunks = [
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Checking."}]}}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}}}]}}]}),
        json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"location": "Lyon"}}},
            {"functionCall": {"id": "fc-9", "name": "ping"}}]}, "finishReason": "STOP"}]}),
        json!({"usageMetadata": {"totalTokenCount": 9}}),
    ];
    let mut stream = GenerateContentStream::new();
    let calls: Vec<ToolCall> = chunks.iter().flat_map(|c| stream.push(c)).collect();
    let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["canon:call:1", "canon:call:2", "fc-9"]);
    assert!(stream.finish().is_empty());
    // The next response starts over.
    assert_eq!(stream.push(&chunks[1])[0].id, "canon:call:0");
}

#[test]
fn responses_that_are_not_responses_hold_no_call() {
    for response in [
        json!(null),
        json!("functionCall"),
        json!(1.5),
        json!({}),
        json!({"candidates": []}),
        json!({"candidates": {"content": {"parts": [{"functionCall": {"name": "ping"}}]}}}),
        json!({"candidates": [null]}),
        json!({"candidates": [{"content": null}]}),
        json!({"candidates": [{"content": {"parts": {"functionCall": {"name": "ping"}}}}]}),
        json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL",
                               "finishMessage": "Malformed function call: print(default_api.ping("}]}),
        json!({"parts": "functionCall"}),
        json!([null, 1, "functionCall", [], {"function_call": {"name": "ping"}}]),
    ] {
        assert_eq!(gemini::tool_calls(&response), [], "{response}");
    }
}

#[test]
fn ten_thousand_calls_give_ten_thousand_distinct_calls() {
    let parts: Vec<Value> = (0..10_000)
        .map(|n| {
            if n % 2 == 0 {
                json!({"functionCall": {"name": "ping"}})
            } else {
                // Ids that would take the made-up ones, were they not kept apart.
                json!({"functionCall": {"name": "ping", "id": format!("canon:call:{}", n - 1)}})
            }
        })
        .collect();
    let calls = gemini::tool_calls(&json!({"role": "model", "parts": parts}));
    assert_eq!(calls.len(), 10_000);
    let ids: HashSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 10_000);
    assert_eq!(calls[0].id, "canon:call:0-1");
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

/// Any JSON value, leaning to the names and values responses use.
fn any_value(rng: &mut Rng, depth: usize) -> Value {
    const WORDS: &[&str] = &[
        "ping",
        "",
        "canon:call:0",
        "canon:call:1",
        "fc-1",
        "{}",
        "é",
    ];
    const KEYS: &[&str] = &[
        "functionCall",
        "name",
        "args",
        "id",
        "text",
        "parts",
        "candidates",
        "content",
    ];
    match rng.below(if depth == 0 { 4 } else { 6 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => rng.pick(&[
            json!(0),
            json!(-1),
            json!(u64::MAX),
            json!(3.0),
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

#[test]
fn generated_responses_never_panic_and_every_function_call_part_is_a_call() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut stream = GenerateContentStream::new();
    let mut total = 0;
    for _ in 0..5_000 {
        let mut parts: Vec<Value> = (0..rng.below(6)).map(|_| any_value(&mut rng, 3)).collect();
        for _ in 0..rng.below(3) {
            let mut call = json!({});
            for key in ["id", "name", "args"] {
                if rng.below(3) > 0 {
                    call[key] = any_value(&mut rng, 2);
                }
            }
            let at = rng.below(parts.len() + 1);
            parts.insert(at, json!({"functionCall": call}));
        }
        let expected: Vec<&Value> = parts.iter().filter_map(|p| p.get("functionCall")).collect();
        let response = json!({"candidates": [{"content": {"role": "model", "parts": parts}}]});
        let calls = gemini::tool_calls(&response);
        assert_eq!(calls.len(), expected.len());
        assert_eq!(stream.push(&response).len(), expected.len());
        // The ids made up are distinct from each other and from those given.
        let given: Vec<&str> = expected.iter().filter_map(|c| usable(c)).collect();
        let made: Vec<&str> = expected
            .iter()
            .zip(&calls)
            .filter(|(call, _)| usable(call).is_none())
            .map(|(_, call)| call.id.as_str())
            .collect();
        assert!(made.iter().all(|id| !given.contains(id)));
        assert!(made.iter().all(|id| gemini::is_synthesized_id(id)));
        let distinct: HashSet<&&str> = made.iter().collect();
        assert_eq!(distinct.len(), made.len());
        // Whatever came, the answer is a well-formed part.
        for call in &calls {
            let part = gemini::function_response(&ToolMessage {
                id: call.id.clone(),
                name: call.name.clone(),
                text: "ok".into(),
                note: None,
                is_error: false,
            });
            assert!(part["functionResponse"]["response"].is_object());
        }
        total += calls.len();
    }
    assert!(total > 2_000, "{total}");
}

/// A call's id, when it has a usable one.
fn usable(call: &Value) -> Option<&str> {
    call.get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// Vertex AI's streamed arguments: the call is refused as cut short, never
/// run with `{}`, and the parts continuing it are not calls.
#[tokio::test]
async fn a_call_whose_arguments_are_streamed_in_parts_never_runs_without_them() {
    let part = |call: Value| json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]});
    let mut stream = gemini::GenerateContentStream::new();
    let mut calls = Vec::new();
    for call in [
        json!({"name": "ping", "willContinue": true}),
        json!({"partialArgs": [{"jsonPath": "$.query", "stringValue": "bask", "willContinue": true}],
               "willContinue": true}),
        json!({"partialArgs": [{"jsonPath": "$.query", "stringValue": "et"}], "willContinue": false}),
    ] {
        calls.extend(stream.push(&part(call)));
    }
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "ping");
    let results = toolbox().call_batch(calls).await;
    assert!(
        matches!(results[0].outcome, ToolOutcome::Rejected(_)),
        "{:?}",
        results[0].outcome
    );
}
