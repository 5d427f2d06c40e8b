//! The trace formats `canon replay` reads: each on recorded-looking
//! payloads (the field names and nesting the providers, gateways and OTLP
//! exporters send, under tests/formats/), detection, compressed input,
//! and hostile records.

use std::io::{BufRead, Read, Write};

use canon::{Canonicalizer, Policy};
use canon_cli::formats::{
    calls, detect, open_input, sniff, Call, Compression, Extractor, Format, Located, Records,
    Schema,
};
use serde_json::{json, Value};

const CHAT: &str = include_str!("formats/openai-chat.jsonl");
const RESPONSES: &str = include_str!("formats/openai-responses.jsonl");
const ANTHROPIC: &str = include_str!("formats/anthropic.jsonl");
const OTLP: &str = include_str!("formats/otlp.json");
const OTLP_BATCHES: &str = include_str!("formats/otlp-batches.jsonl");
/// tests/formats/openai-chat.jsonl as zstd: a skippable frame, the first
/// two lines (`zstd -19`), a skippable frame, the other three lines
/// (`zstd`), as `pzstd` and `cat a.zst b.zst` lay frames out.
const CHAT_ZST: &[u8] = include_bytes!("formats/openai-chat.jsonl.zst");

/// The records of `text`, as (line, text).
fn records(text: &[u8]) -> Vec<(u64, String)> {
    Records::new(text)
        .map(|r| {
            let r = r.unwrap();
            (r.line, r.text.unwrap())
        })
        .collect()
}

/// The calls of each record of `text`.
fn calls_per_record(format: Format, text: &str) -> Vec<Vec<Call>> {
    records(text.as_bytes())
        .iter()
        .map(|(line, record)| calls(format, record).unwrap_or_else(|e| panic!("line {line}: {e}")))
        .collect()
}

/// What canon makes of a bindable call, as the engine does: the outcome
/// and the repairs as `pointer rule`.
fn bind(call: &Call, policy: Policy) -> (&'static str, Vec<String>) {
    let (schema, arguments) = call
        .bindable()
        .unwrap_or_else(|| panic!("{} is not bindable", call.tool));
    let schema: Value = serde_json::from_str(schema).unwrap();
    let canon = Canonicalizer::options()
        .tool(call.tool.clone())
        .policy(policy)
        .closed_objects(true)
        .compile(&schema)
        .unwrap();
    let mut args = match serde_json::from_str::<Value>(arguments).unwrap() {
        Value::String(text) => match canon.parse(&text) {
            Ok(args) => args,
            Err(_) => return ("rejected", Vec::new()),
        },
        args => args,
    };
    if canon.is_valid(&args) {
        return ("accepted", Vec::new());
    }
    match canon.canonicalize(&mut args) {
        Ok(repairs) => (
            "repaired",
            repairs
                .iter()
                .map(|r| format!("{} {}", r.pointer, r.rule))
                .collect(),
        ),
        Err(_) => ("rejected", Vec::new()),
    }
}

fn declared(call: &Call) -> bool {
    matches!(call.schema, Schema::Declared(_))
}

/// The arguments of a call, parsed (a JSON string's text parsed too).
fn arguments(call: &Call) -> Value {
    match serde_json::from_str::<Value>(call.arguments.as_deref().unwrap()).unwrap() {
        Value::String(text) => serde_json::from_str(&text).unwrap(),
        value => value,
    }
}

#[test]
fn format_names_read_back() {
    for format in Format::ALL {
        assert_eq!(format.to_string().parse::<Format>(), Ok(format));
    }
    assert_eq!("OpenAI-Chat".parse::<Format>(), Ok(Format::OpenAiChat));
    let error = "jaeger".parse::<Format>().unwrap_err().to_string();
    assert_eq!(
        error,
        "unknown format `jaeger`: expected one of canon, openai-chat, openai-responses, anthropic, otlp"
    );
}

#[test]
fn each_format_is_detected_from_its_first_record() {
    let first = |text: &str| records(text.as_bytes()).remove(0).1;
    assert_eq!(detect(&first(CHAT)), Some(Format::OpenAiChat));
    assert_eq!(detect(&first(RESPONSES)), Some(Format::OpenAiResponses));
    assert_eq!(detect(&first(ANTHROPIC)), Some(Format::Anthropic));
    assert_eq!(detect(&first(OTLP)), Some(Format::Otlp));
    assert_eq!(detect(&first(OTLP_BATCHES)), Some(Format::Otlp));
    assert_eq!(
        detect(canon_cli::SAMPLE_CALLS.lines().next().unwrap()),
        Some(Format::Canon)
    );
    // Every record of each log, not only the first: Helicone's export,
    // LiteLLM's payload, Portkey's log object, a stream as SSE text, the
    // Message Batches result.
    for (text, format) in [
        (CHAT, Format::OpenAiChat),
        (RESPONSES, Format::OpenAiResponses),
        (ANTHROPIC, Format::Anthropic),
    ] {
        for (line, record) in records(text.as_bytes()) {
            assert_eq!(detect(&record), Some(format), "{format} line {line}");
        }
    }
    // From the request alone when the response says nothing.
    assert_eq!(
        detect(
            r#"{"request": {"tools": [{"type": "function", "name": "t", "parameters": {}}]}, "response": null}"#
        ),
        Some(Format::OpenAiResponses)
    );
    for junk in [
        "",
        "not json",
        "[]",
        "42",
        r#"{"hello": "world"}"#,
        "{\"request\": ",
    ] {
        assert_eq!(detect(junk), None, "{junk:?}");
    }
}

#[test]
fn openai_chat_logs() {
    let found = calls_per_record(Format::OpenAiChat, CHAT);
    assert_eq!(
        found.iter().map(Vec::len).collect::<Vec<_>>(),
        [2, 1, 1, 2, 0]
    );

    // {"request", "response"}: gpt-4o's parallel calls, the first a near
    // miss (one string where the schema asks for an array of strings),
    // its arguments kept as the JSON string OpenAI sends.
    let [search, weather] = &found[0][..] else {
        unreachable!()
    };
    assert_eq!(search.tool, "search_code");
    assert_eq!(
        search.arguments.as_deref(),
        Some(r#""{\"data_source_names\":\"dotnet/eshop\",\"query\":\"basket\"}""#)
    );
    assert_eq!(
        search.label.as_deref(),
        Some("call_8qty38WBCHIMvZl9lFmmhZSr")
    );
    assert_eq!(
        bind(search, Policy::DEFAULT),
        (
            "repaired",
            vec!["/data_source_names scalar_to_array".to_owned()]
        )
    );
    assert_eq!(weather.tool, "get_weather");
    assert_eq!(bind(weather, Policy::DEFAULT), ("accepted", vec![]));

    // Helicone's export: a tool the request did not declare.
    let undeclared = &found[1][0];
    assert_eq!(undeclared.tool, "create_issue");
    assert_eq!(undeclared.schema, Schema::Undeclared);
    assert_eq!(undeclared.bindable(), None);
    assert_eq!(
        undeclared.skip_reason(),
        Some("a tool the request did not declare")
    );

    // LiteLLM's StandardLoggingPayload (vLLM behind it): the tools in
    // `model_parameters`, a number sent as text.
    let litellm = &found[2][0];
    assert!(declared(litellm));
    assert_eq!(arguments(litellm), json!({"city": "Oslo", "days": "2"}));
    assert_eq!(bind(litellm, Policy::DEFAULT).0, "rejected");
    assert_eq!(
        bind(litellm, Policy::all()),
        ("repaired", vec!["/days number_text".to_owned()])
    );

    // Portkey's log object: the request body as JSON text, the response a
    // stream of chunks, the arguments put together from their pieces.
    let [streamed, lyon] = &found[3][..] else {
        unreachable!()
    };
    assert_eq!(
        streamed.arguments.as_deref(),
        Some(r#""{\"data_source_names\":[\"dotnet/eshop\"],\"query\":\"checkout\"}""#)
    );
    assert_eq!(
        streamed.label.as_deref(),
        Some("call_Vd1sQm8kR2tY6uW9xZ3aB5cE")
    );
    assert_eq!(bind(streamed, Policy::DEFAULT), ("accepted", vec![]));
    assert_eq!(lyon.tool, "get_weather");
    assert_eq!(arguments(lyon), json!({"city": "Lyon", "units": "Celsius"}));
    assert_eq!(bind(lyon, Policy::all()).0, "rejected");
}

#[test]
fn openai_responses_logs() {
    let found = calls_per_record(Format::OpenAiResponses, RESPONSES);
    assert_eq!(found.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2]);

    // Reasoning and a message around two function calls; the built-in
    // web_search_preview tool declares nothing.
    let [search, weather] = &found[0][..] else {
        unreachable!()
    };
    assert_eq!(
        search.label.as_deref(),
        Some("call_unLAR8MvFNptuiZK6K6HCy5k")
    );
    assert_eq!(
        arguments(search),
        json!({"data_source_names": "dotnet/eshop", "query": "caf\u{e9} \"basket\""})
    );
    assert_eq!(
        bind(search, Policy::DEFAULT),
        (
            "repaired",
            vec!["/data_source_names scalar_to_array".to_owned()]
        )
    );
    // `null` for an optional enum: refused unless null reads as absent.
    assert_eq!(bind(weather, Policy::DEFAULT).0, "rejected");
    assert_eq!(
        bind(weather, Policy::all()),
        ("repaired", vec!["/units null_as_absent".to_owned()])
    );

    // Streamed and logged as the server-sent-events text (Helicone's
    // `request_body`/`response_body`): the final `response.completed`
    // event holds the calls, an MCP call with the schema its server
    // listed in the same response.
    let [mcp, search] = &found[1][..] else {
        unreachable!()
    };
    assert_eq!(
        (mcp.tool.as_str(), mcp.label.as_deref()),
        ("ask_question", Some("mcp_68a0c1d3f5a6"))
    );
    assert!(declared(mcp));
    assert_eq!(bind(mcp, Policy::DEFAULT), ("accepted", vec![]));
    assert_eq!(
        search.label.as_deref(),
        Some("call_Q2w3E4r5T6y7U8i9O0pAsDfG")
    );
    assert_eq!(
        bind(search, Policy::all()),
        ("repaired", vec!["/limit number_text".to_owned()])
    );
}

#[test]
fn anthropic_logs() {
    let found = calls_per_record(Format::Anthropic, ANTHROPIC);
    assert_eq!(found.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 1]);

    // Parallel tool_use blocks after a text block; `input` is an object.
    let [search, weather] = &found[0][..] else {
        unreachable!()
    };
    assert_eq!(
        search.label.as_deref(),
        Some("toolu_01A09q90qw90lq917835lq9")
    );
    assert_eq!(
        arguments(search),
        json!({"data_source_names": "dotnet/eshop", "query": "basket"})
    );
    assert_eq!(
        bind(search, Policy::DEFAULT),
        (
            "repaired",
            vec!["/data_source_names scalar_to_array".to_owned()]
        )
    );
    assert_eq!(bind(weather, Policy::DEFAULT), ("accepted", vec![]));

    // A stream: the input_json_delta pieces, kept as the text sent; a
    // call of the provider-defined bash tool, which has no schema here.
    let [sf, bash] = &found[1][..] else {
        unreachable!()
    };
    assert_eq!(
        sf.arguments.as_deref(),
        Some(r#""{\"city\": \"San Francisco, CA\", \"days\": \"3\"}""#)
    );
    assert_eq!(
        bind(sf, Policy::all()),
        ("repaired", vec!["/days number_text".to_owned()])
    );
    assert_eq!(
        (bash.tool.as_str(), &bash.schema),
        ("bash", &Schema::Unknown)
    );
    assert_eq!(bash.skip_reason(), Some("no schema captured for the tool"));

    // A Message Batches result: the response alone, so no schema.
    let batch = &found[2][0];
    assert_eq!(batch.schema, Schema::Unknown);
    assert_eq!(arguments(batch), json!({"city": "Berlin"}));
}

#[test]
fn an_anthropic_stream_of_a_tool_without_input() {
    // The one delta of a tool with no input is empty: the SDKs keep the
    // block's `input`, and so does replay, streamed or not.
    let tools = json!([{"name": "get_time", "input_schema": {"type": "object", "properties": {}}}]);
    let block = json!({"type": "tool_use", "id": "toolu_1", "name": "get_time", "input": {}});
    let streamed = json!({"request": {"model": "claude", "tools": tools}, "response": [
        {"type": "message_start", "message": {"type": "message", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": block},
        {"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": ""}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"}]});
    let whole = json!({"request": {"model": "claude", "tools": tools},
        "response": {"type": "message", "role": "assistant", "content": [block]}});
    for record in [streamed, whole] {
        let found = calls(Format::Anthropic, &record.to_string()).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(arguments(&found[0]), json!({}));
        assert_eq!(bind(&found[0], Policy::STRICT), ("accepted", vec![]));
    }
}

#[test]
fn other_envelopes() {
    let weather =
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
    let tools =
        json!([{"type": "function", "function": {"name": "get_weather", "parameters": weather}}]);
    let completion = |name: &str, arguments: &str| {
        json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
                "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": name, "arguments": arguments}}]}}]})
    };
    let one = |record: Value| {
        let mut found = calls(Format::OpenAiChat, &record.to_string()).unwrap();
        assert_eq!(found.len(), 1, "{record}");
        found.remove(0)
    };
    // The OpenAI Batch output line: the response alone, under `body`.
    let batch = one(json!({"id": "batch_req_1", "custom_id": "request-1",
        "response": {"status_code": 200, "request_id": "req_1", "body": completion("get_weather", "{\"city\": \"Rome\"}")},
        "error": null}));
    assert_eq!(batch.schema, Schema::Unknown);
    // LiteLLM's spend log: the request under `proxy_server_request`.
    let spend = one(
        json!({"request_id": "chatcmpl-1", "call_type": "acompletion",
        "proxy_server_request": {"model": "gpt-4o-mini", "messages": [], "tools": tools},
        "response": completion("get_weather", "{\"city\": \"Rome\"}"), "messages": []}),
    );
    assert_eq!(spend.schema, Schema::Declared(weather.to_string()));
    // camelCase, bodies logged as their JSON text.
    let camel = one(json!({"requestBody": json!({"tools": tools}).to_string(),
        "responseBody": completion("get_weather", "{}").to_string()}));
    assert!(declared(&camel));
    // A bare response body.
    assert_eq!(one(completion("get_weather", "{}")).schema, Schema::Unknown);
    // The legacy `functions` and `function_call`.
    let legacy = one(
        json!({"request": {"functions": [{"name": "get_weather", "parameters": weather}]},
        "response": {"choices": [{"message": {"role": "assistant", "content": null,
            "function_call": {"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}}}]}}),
    );
    assert!(declared(&legacy));
    assert_eq!(bind(&legacy, Policy::DEFAULT), ("accepted", vec![]));
    // A function declared without parameters takes none.
    let bare = one(
        json!({"request": {"tools": [{"type": "function", "function": {"name": "ping"}}]},
        "response": completion("ping", "{}")}),
    );
    assert_eq!(
        bare.schema,
        Schema::Declared(r#"{"type":"object","properties":{}}"#.into())
    );
    assert_eq!(bind(&bare, Policy::DEFAULT), ("accepted", vec![]));
    // A custom (free-form) tool: nothing to bind.
    let custom = one(
        json!({"request": {"tools": [{"type": "custom", "custom": {"name": "code_exec", "description": "Runs Python."}}]},
        "response": {"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "call_2",
            "type": "custom", "custom": {"name": "code_exec", "input": "print(1)"}}]}}]}}),
    );
    assert_eq!(custom.schema, Schema::FreeForm);
    assert_eq!(custom.skip_reason(), Some("a free-form (custom) tool"));
    // An error response holds no call.
    let error = json!({"request": {"tools": tools}, "response": {"error": {"message": "overloaded", "type": "server_error"}}});
    assert_eq!(calls(Format::OpenAiChat, &error.to_string()).unwrap(), []);
    // A record of another format says so.
    let anthropic = ANTHROPIC.lines().next().unwrap();
    assert!(calls(Format::OpenAiChat, anthropic)
        .unwrap_err()
        .contains("choices"));
    assert!(calls(Format::Anthropic, CHAT.lines().next().unwrap())
        .unwrap_err()
        .contains("content"));
}

#[test]
fn an_otlp_document() {
    // One pretty-printed document: one record.
    let docs = records(OTLP.as_bytes());
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].0, 1);
    let found = calls(Format::Otlp, &docs[0].1).unwrap();
    let seen: Vec<_> = found
        .iter()
        .map(|c| (c.tool.as_str(), c.label.as_deref(), declared(c)))
        .collect();
    assert_eq!(
        seen,
        [
            // The chat span's gen_ai.output.messages, paired with its
            // gen_ai.tool.definitions; the execute_tool span of the first
            // call (same gen_ai.tool.call.id) is not counted again.
            ("search_code", Some("call_VSPygqKTWdrhaFErNvMV18Yl"), true),
            ("get_weather", Some("call_Zq6uB1bJRZtFz5ZbNwdOeLq4"), true),
            // Its trace defines no create_issue, and its arguments were
            // not captured: counted as skipped.
            ("create_issue", Some("call_yW3nP0qZ8vB2cX5mL1kJ7hG4"), false),
            // Another trace, without definitions: paired within the
            // document; its arguments a structured (kvlistValue) value.
            ("get_weather", Some("call_Oslo2"), true),
        ]
    );
    assert_eq!(
        bind(&found[0], Policy::DEFAULT),
        (
            "repaired",
            vec!["/data_source_names scalar_to_array".to_owned()]
        )
    );
    assert_eq!(bind(&found[1], Policy::DEFAULT), ("accepted", vec![]));
    assert_eq!(found[2].arguments, None);
    assert_eq!(found[2].skip_reason(), Some("arguments not captured"));
    assert_eq!(arguments(&found[3]), json!({"city": "Oslo", "days": 2}));
    assert_eq!(bind(&found[3], Policy::DEFAULT), ("accepted", vec![]));
}

#[test]
fn otlp_batches_pair_calls_with_definitions_that_come_later() {
    let mut extractor = Extractor::new(Format::Otlp);
    let batches = records(OTLP_BATCHES.as_bytes());
    // The first batch holds a call whose trace has no definition yet.
    assert_eq!(extractor.record(batches[0].0, &batches[0].1).unwrap(), []);
    // The second brings the definitions (structured, on the invoke_agent
    // span that ended last) and an OpenLLMetry span with its own.
    let found = extractor.record(batches[1].0, &batches[1].1).unwrap();
    let seen: Vec<_> = found
        .iter()
        .map(|l| {
            (
                l.line,
                l.call.tool.as_str(),
                l.call.label.as_deref(),
                declared(&l.call),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (1, "search_code", Some("call_cart1"), true),
            (2, "get_weather", Some("call_rome"), true),
        ]
    );
    assert_eq!(
        bind(&found[0].call, Policy::DEFAULT),
        (
            "repaired",
            vec!["/data_source_names scalar_to_array".to_owned()]
        )
    );
    // "two" for an integer: no rule reads it.
    assert_eq!(bind(&found[1].call, Policy::all()).0, "rejected");
    assert_eq!(extractor.finish(), []);

    // Read alone, the first batch's call has no schema: given back at the
    // end rather than lost.
    let alone = calls(Format::Otlp, &batches[0].1).unwrap();
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].schema, Schema::Unknown);
}

/// One trace: the tool's own span (its arguments not captured, as
/// `gen_ai.tool.call.arguments` is opt-in) and the chat span that asked
/// for the call, with its arguments; `chat_first` orders them.
fn told_twice(chat_first: bool) -> [Value; 2] {
    let attribute = |key: &str, value: &str| json!({"key": key, "value": {"stringValue": value}});
    let tools = json!([{"type": "function", "name": "search", "parameters":
        {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]);
    let parts = json!([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_1", "name": "search", "arguments": {"q": "x"}}]}]);
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let tool = json!({"traceId": trace, "spanId": "00f067aa0ba902b7", "name": "execute_tool search",
        "attributes": [attribute("gen_ai.operation.name", "execute_tool"),
            attribute("gen_ai.tool.name", "search"), attribute("gen_ai.tool.call.id", "call_1")]});
    let chat = json!({"traceId": trace, "spanId": "00f067aa0ba902b8", "name": "chat gpt-4o",
        "attributes": [attribute("gen_ai.operation.name", "chat"),
            attribute("gen_ai.tool.definitions", &tools.to_string()),
            attribute("gen_ai.output.messages", &parts.to_string())]});
    match chat_first {
        true => [chat, tool],
        false => [tool, chat],
    }
}

fn otlp_document(spans: &[Value]) -> String {
    json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
}

#[test]
fn a_call_told_twice_is_read_from_the_copy_with_its_arguments() {
    for chat_first in [true, false] {
        // In one document, in either order.
        let found = calls(Format::Otlp, &otlp_document(&told_twice(chat_first))).unwrap();
        assert_eq!(found.len(), 1, "chat span first: {chat_first}");
        assert_eq!(arguments(&found[0]), json!({"q": "x"}));
        assert_eq!(bind(&found[0], Policy::DEFAULT), ("accepted", vec![]));

        // In two documents, in either order: the call is read once with
        // its arguments; a copy without them that came first is told as
        // not captured.
        let [first, second] = told_twice(chat_first);
        let mut extractor = Extractor::new(Format::Otlp);
        let mut found = extractor.record(1, &otlp_document(&[first])).unwrap();
        found.extend(extractor.record(2, &otlp_document(&[second])).unwrap());
        found.extend(extractor.finish());
        let with_arguments: Vec<_> = found
            .iter()
            .filter(|l| l.call.arguments.is_some())
            .collect();
        assert_eq!(with_arguments.len(), 1, "chat span first: {chat_first}");
        assert_eq!(found.len(), if chat_first { 1 } else { 2 });
    }
}

#[test]
fn a_trace_from_tempo() {
    // Grafana Tempo's trace by id: `batches` (v1) or `trace.resourceSpans`
    // (v2).
    let batch: Value = serde_json::from_str(OTLP_BATCHES.lines().nth(1).unwrap()).unwrap();
    for document in [
        json!({"batches": batch["resourceSpans"]}),
        json!({"trace": {"resourceSpans": batch["resourceSpans"]}}),
    ] {
        let text = document.to_string();
        assert_eq!(detect(&text), Some(Format::Otlp));
        let found = calls(Format::Otlp, &text).unwrap();
        let tools: Vec<_> = found.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, ["get_weather"]);
        assert!(declared(&found[0]));
    }
}

#[test]
fn canon_lines() {
    let line =
        r#"{"tool": "t", "schema": {"type": "object"}, "arguments": "{}", "class": "valid"}"#;
    assert_eq!(
        calls(Format::Canon, line).unwrap(),
        [Call {
            tool: "t".into(),
            schema: Schema::Declared(r#"{"type":"object"}"#.into()),
            arguments: Some(r#""{}""#.into()),
            label: Some("valid".into()),
        }]
    );
    let found = calls(Format::Canon, r#"{"name": "t", "arguments": {"a": 1}}"#).unwrap();
    assert_eq!(found[0].schema, Schema::Unknown);
    assert!(calls(Format::Canon, r#"{"tool": "t"}"#).is_err());
}

/// Plain text read through [`open_input`], as records.
fn decoded(bytes: &[u8]) -> Vec<(u64, String)> {
    let mut input = open_input(bytes).unwrap();
    let mut text = Vec::new();
    input.read_to_end(&mut text).unwrap();
    records(&text)
}

#[test]
fn gzip_members_are_read_through() {
    use flate2::write::GzEncoder;
    // Two members, as `cat a.gz b.gz` or pigz make.
    let mut gz = Vec::new();
    let (head, tail) = CHAT.split_at(CHAT.find('\n').unwrap() + 1);
    for part in [head, tail] {
        let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(part.as_bytes()).unwrap();
        gz.extend(encoder.finish().unwrap());
    }
    assert_eq!(Compression::sniff(&gz), Compression::Gzip);
    assert_eq!(decoded(&gz), records(CHAT.as_bytes()));
    // Read through BufRead too, a line at a time.
    let lines = open_input(&gz[..]).unwrap().lines().count();
    assert_eq!(lines, CHAT.lines().count());
}

#[test]
fn zstd_frames_are_read_through() {
    assert_eq!(Compression::sniff(CHAT_ZST), Compression::Zstd);
    assert_eq!(decoded(CHAT_ZST), records(CHAT.as_bytes()));
    // ruzstd's own encoder, one frame.
    let zst = ruzstd::encoding::compress_to_vec(
        OTLP_BATCHES.as_bytes(),
        ruzstd::encoding::CompressionLevel::Fastest,
    );
    assert_eq!(decoded(&zst), records(OTLP_BATCHES.as_bytes()));
    // A reader that hands out a byte at a time.
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buf.first_mut()) {
                (Some((b, rest)), Some(slot)) => {
                    *slot = *b;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }
    let mut text = String::new();
    open_input(Trickle(CHAT_ZST))
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, CHAT);
}

#[test]
fn sniffing_reads_from_the_start_again() {
    use flate2::write::GzEncoder;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(format!("\n\n{OTLP}").as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let (format, input) = sniff(open_input(&gz[..]).unwrap()).unwrap();
    assert_eq!(format, Some(Format::Otlp));
    let again: Vec<_> = Records::new(input).map(|r| r.unwrap()).collect();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].line, 3);
    assert_eq!(again[0].text.as_deref(), Ok(OTLP.trim_end()));
    for (text, format) in [
        (CHAT, Some(Format::OpenAiChat)),
        (RESPONSES, Some(Format::OpenAiResponses)),
        (ANTHROPIC, Some(Format::Anthropic)),
        (canon_cli::SAMPLE_CALLS, Some(Format::Canon)),
        ("", None),
        ("\n\n", None),
        ("hello\n", None),
    ] {
        let (found, mut input) = sniff(text.as_bytes()).unwrap();
        assert_eq!(found, format);
        let mut again = String::new();
        input.read_to_string(&mut again).unwrap();
        assert_eq!(again, text);
    }
}

#[test]
fn plain_text_passes_through() {
    assert_eq!(decoded(CHAT.as_bytes()), records(CHAT.as_bytes()));
    assert_eq!(decoded(b""), []);
    assert_eq!(decoded(b"{}"), [(1, "{}".to_owned())]);
}

#[test]
fn corrupt_compressed_input_is_an_error() {
    let read = |bytes: &[u8]| {
        let mut sink = Vec::new();
        open_input(bytes).unwrap().read_to_end(&mut sink)
    };
    // Truncated.
    assert!(read(&CHAT_ZST[..CHAT_ZST.len() - 2]).is_err());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(CHAT.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    assert!(read(&gz[..gz.len() / 2]).is_err());
    // Garbage after the magic bytes.
    assert!(read(&[0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff, 0xff]).is_err());
    assert!(read(&[0x1f, 0x8b, 0x00, 0x00, 0x00]).is_err());
    // A frame asking for a 2 TiB window: refused, not allocated.
    let bomb = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8, 0x01, 0x00, 0x00];
    assert!(read(&bomb).is_err());
    // A skippable frame that claims more bytes than there are.
    assert!(read(&[0x50, 0x2a, 0x4d, 0x18, 0xff, 0x00, 0x00, 0x00, 1, 2]).is_err());
}

#[test]
fn record_layouts() {
    // CRLF, a byte order mark, blank lines.
    let text = "\u{feff}{\"a\": 1}\r\n\r\n  \n{\"b\": 2}\r\n";
    assert_eq!(
        records(text.as_bytes()),
        [(1, "{\"a\": 1}".to_owned()), (4, "{\"b\": 2}".to_owned())]
    );
    // Pretty-printed documents one after another, with strings holding
    // braces and escaped quotes.
    let text = "{\n  \"s\": \"}{\\\"]\",\n  \"t\": [\n    1\n  ]\n}\n\n{\n}\n";
    let docs = records(text.as_bytes());
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0].0, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&docs[0].1).unwrap(),
        json!({"s": "}{\"]", "t": [1]})
    );
    assert_eq!(docs[1], (8, "{\n}".to_owned()));
    // A document cut off by the end of the input.
    let cut: Vec<_> = Records::new("{\n  \"a\": [\n".as_bytes())
        .map(|r| r.unwrap().text)
        .collect();
    assert_eq!(
        cut,
        [Err("the input ends inside this JSON document".to_owned())]
    );
    // A record over the limit is reported and read through; the next is
    // read as usual.
    let text = format!("{{\"big\": \"{}\"}}\n{{\"small\": 1}}\n", "x".repeat(1000));
    let got: Vec<_> = Records::new(text.as_bytes())
        .max_record(100)
        .map(|r| r.unwrap())
        .map(|r| (r.line, r.text))
        .collect();
    assert_eq!(
        got,
        [
            (1, Err("record over 100 bytes".to_owned())),
            (2, Ok("{\"small\": 1}".to_owned())),
        ]
    );
    // Likewise inside a pretty-printed document: its brackets are still
    // followed past the limit.
    let text = format!(
        "{{\n  \"a\": \"{}]]\",\n  \"b\": [1]\n}}\n{{\n}}\n",
        "y".repeat(500)
    );
    let got: Vec<_> = Records::new(text.as_bytes())
        .max_record(100)
        .map(|r| r.unwrap())
        .map(|r| (r.line, r.text))
        .collect();
    assert_eq!(
        got,
        [
            (1, Err("record over 100 bytes".to_owned())),
            (5, Ok("{\n}".to_owned())),
        ]
    );
    // Not UTF-8.
    let got: Vec<_> = Records::new(&b"{\"a\": \"\xff\"}\n"[..])
        .map(|r| r.unwrap().text)
        .collect();
    assert_eq!(got, [Err("not UTF-8".to_owned())]);
    // Lines for the report: every line, blank ones and a document's.
    let mut read = Records::new(OTLP.as_bytes());
    while read.next().is_some() {}
    assert_eq!(read.lines(), OTLP.lines().count() as u64);
    // Bytes for a progress bar add up to the input.
    let total: u64 = Records::new(CHAT.as_bytes())
        .map(|r| r.unwrap().bytes)
        .sum();
    assert_eq!(total, CHAT.len() as u64);
}

#[test]
fn hostile_records_are_errors_not_panics() {
    let deep_array = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let deep_request = format!(
        "{{\"request\": {}, \"response\": {{\"choices\": []}}}}",
        "[".repeat(500) + &"]".repeat(500)
    );
    // A body logged as JSON text holding JSON text holding …
    let mut nested = json!({"choices": []});
    for _ in 0..10 {
        nested = Value::String(nested.to_string());
    }
    let nested = json!({"response": nested}).to_string();
    // An OTLP attribute nested as deep as the parser allows.
    let mut any = json!({"stringValue": "x"});
    for _ in 0..35 {
        any = json!({"arrayValue": {"values": [any]}});
    }
    let deep_otlp = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "t", "name": "execute_tool x",
        "attributes": [{"key": "gen_ai.tool.call.arguments", "value": any}]}]}]}]})
    .to_string();
    let wrong_types = [
        r#"{"request": {"tools": "none"}, "response": {"choices": "none"}}"#,
        r#"{"request": {"tools": [1, null, {"function": 3}]}, "response": {"choices": [{"message": {"tool_calls": [1, {"function": []}, {"type": "custom", "custom": 7}]}}]}}"#,
        r#"{"response": {"output": [{"type": "function_call"}, {"type": "mcp_list_tools", "tools": 3}]}}"#,
        r#"{"response": {"type": "message", "content": [{"type": "tool_use"}, 5]}}"#,
        r#"{"response": [{"type": "content_block_delta", "index": 9, "delta": {"type": "input_json_delta", "partial_json": 1}}]}"#,
        r#"{"response": [{"choices": [{"delta": {"tool_calls": [{"index": -1, "function": {"arguments": 5}}]}}]}]}"#,
        r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "gen_ai.tool.definitions", "value": {"stringValue": "[{\"name\": 5}, 7]"}}, {"key": 3}]}]}]}]}"#,
        r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "gen_ai.output.messages", "value": {"stringValue": "[{\"parts\": [{\"type\": \"tool_call\"}]}]"}}]}]}]}]}"#,
        r#"{"resourceSpans": "nope"}"#,
        "data: {\"choices\": []}",
        "null",
        "\"just a string\"",
    ];
    let mut inputs: Vec<String> = vec![
        deep_array,
        deep_object,
        deep_request,
        nested,
        deep_otlp,
        String::new(),
        "{".into(),
        "{\"request\": {\"tools\": [".into(),
        "\u{0}\u{1}".into(),
    ];
    inputs.extend(wrong_types.iter().map(|s| (*s).to_owned()));
    for format in Format::ALL {
        for input in &inputs {
            // Either way, no panic; every Err has a short reason.
            if let Err(reason) = calls(format, input) {
                assert!(!reason.is_empty() && reason.len() < 200, "{reason}");
            }
            let _ = detect(input);
        }
    }
    // A call without a name is still counted.
    let found = calls(
        Format::OpenAiChat,
        r#"{"response": {"choices": [{"message": {"tool_calls": [{"function": {"arguments": "{}"}}]}}]}}"#,
    )
    .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].tool, "");
}

#[test]
fn many_held_calls_stay_bounded() {
    // More calls than are held, none ever defined: all are given back,
    // in order, none lost.
    let mut extractor = Extractor::new(Format::Otlp);
    let total = Extractor::HELD + 10;
    let mut given: Vec<Located> = Vec::new();
    for batch in 0..total / 1000 + 1 {
        let spans: Vec<Value> = (batch * 1000..((batch + 1) * 1000).min(total))
            .map(|i| {
                json!({"traceId": format!("{i:032x}"), "spanId": format!("{i:016x}"),
                "name": "execute_tool t", "attributes": [
                    {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                    {"key": "gen_ai.tool.name", "value": {"stringValue": "t"}},
                    {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{}"}}]})
            })
            .collect();
        let document = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
        given.extend(
            extractor
                .record(batch as u64 + 1, &document.to_string())
                .unwrap(),
        );
    }
    assert_eq!(given.len(), 10);
    given.extend(extractor.finish());
    assert_eq!(given.len(), total);
    assert!(given.iter().all(|l| l.call.schema == Schema::Unknown));
    let labels: Vec<String> = given
        .iter()
        .map(|l| l.call.label.clone().unwrap())
        .collect();
    let expected: Vec<String> = (0..total).map(|i| format!("span {i:016x}")).collect();
    assert_eq!(labels, expected);
}
