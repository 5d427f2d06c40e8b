//! `canon replay`: the engine on the bundled sample and on every tools-file
//! form, and the command itself.

use std::collections::BTreeMap;
use std::process::Command;

use canon::Policy;
use canon_cli::{
    CallRef, LineError, Recent, Replay, Tools, MAX_ARGUMENTS_TEXT, SAMPLE_CALLS, SAMPLE_TOOLS,
};
use serde_json::{json, Value};

/// A call's line, outcome, and repairs as `pointer rule`.
type Seen = (u64, &'static str, Vec<String>);

fn sample(policy: Policy) -> (canon_cli::Report, Vec<Seen>) {
    let mut outcomes = Vec::new();
    let report = Replay::new(policy, Tools::parse(SAMPLE_TOOLS).unwrap())
        .run(
            SAMPLE_CALLS.as_bytes(),
            |_| {},
            |o| {
                let rules = o
                    .repairs
                    .iter()
                    .map(|r| format!("{} {}", r.pointer, r.rule))
                    .collect();
                outcomes.push((o.line, o.outcome, rules));
                Ok(())
            },
        )
        .unwrap();
    (report, outcomes)
}

#[test]
fn the_bundled_sample_under_each_policy() {
    let (report, outcomes) = sample(Policy::DEFAULT);
    let t = &report.totals;
    assert_eq!(
        (
            t.calls,
            t.accepted_strictly,
            t.accepted_after_repair,
            t.still_rejected
        ),
        (17, 2, 4, 11)
    );
    let repaired: Vec<_> = outcomes.iter().filter(|o| o.1 == "repaired").collect();
    assert_eq!(
        repaired,
        [
            &(
                2,
                "repaired",
                vec!["/data_source_names scalar_to_array".to_owned()]
            ),
            &(
                3,
                "repaired",
                vec!["/data_source_names scalar_to_array".to_owned()]
            ),
            &(4, "repaired", vec!["/labels scalar_to_array".to_owned()]),
            &(5, "repaired", vec!["/to scalar_to_array".to_owned()]),
        ]
    );

    let (report, outcomes) = sample(Policy::all());
    let t = &report.totals;
    assert_eq!(
        (
            t.accepted_strictly,
            t.accepted_after_repair,
            t.still_rejected
        ),
        (2, 8, 7)
    );
    let rules: BTreeMap<&str, u64> = report
        .repairs_by_rule
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        rules,
        BTreeMap::from([
            ("bool_text", 1),
            ("json_text", 1),
            ("null_as_absent", 1),
            ("number_text", 1),
            ("scalar_to_array", 4)
        ])
    );
    // Lines 11 to 17 are the calls no rule may touch.
    assert!(outcomes
        .iter()
        .filter(|o| o.0 >= 11)
        .all(|o| o.1 == "rejected"));
    let kinds: Vec<&str> = report
        .still_rejected_by_kind
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        kinds,
        [
            "blank_string",
            "constraint",
            "json_text",
            "missing",
            "not_allowed",
            "unknown",
            "wrong_type"
        ]
    );
    let example = &report.still_rejected_by_kind["unknown"].example;
    assert_eq!(
        (
            example.line,
            example.tool.as_str(),
            example.pointer.as_str(),
            example.message.as_str()
        ),
        (
            14,
            "search_code",
            "/qeury",
            "unknown parameter; did you mean `query`?"
        )
    );
}

#[test]
fn every_tools_file_form_is_read() {
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}});
    let forms = [
        // OpenAI Chat Completions, Responses, Anthropic, MCP result, MCP
        // JSON-RPC response, an object with `tools`.
        json!([{"type": "function", "function": {"name": "tag", "parameters": schema}}]),
        json!([{"type": "function", "name": "tag", "parameters": schema}]),
        json!([{"name": "tag", "description": "d", "input_schema": schema}]),
        json!({"tools": [{"name": "tag", "inputSchema": schema}]}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "tag", "inputSchema": schema}]}}),
        // Beside the provider's own tools, which have no schema.
        json!([{"name": "tag", "input_schema": schema},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
            {"type": "bash_20250124", "name": "bash"}]),
        json!([{"type": "function", "name": "tag", "parameters": schema}, {"type": "web_search"},
            {"type": "custom", "name": "sql", "description": "free-form"}]),
    ];
    let mut texts: Vec<String> = forms.iter().map(Value::to_string).collect();
    // One tool per line.
    texts.push(format!(
        "{}\n\n{}\n",
        json!({"name": "tag", "schema": schema}),
        json!({"name": "other", "parameters": {"type": "object"}})
    ));
    for text in texts {
        let tools = Tools::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tools.get("tag"), Some(&schema), "{text}");
        let calls = r#"{"tool": "tag", "arguments": "{\"tags\": \"urgent\"}"}"#;
        let report = Replay::new(Policy::DEFAULT, tools)
            .run(calls.as_bytes(), |_| {}, |_| Ok(()))
            .unwrap();
        assert_eq!(report.totals.accepted_after_repair, 1);
    }
    assert_eq!(
        Tools::parse(r#"[{"name": "x"}]"#).unwrap_err(),
        "tool #1 has no name and schema"
    );
    assert_eq!(
        Tools::parse(r#"[{"type": "function", "function": {"name": "x"}}]"#).unwrap_err(),
        "tool #1 has no name and schema"
    );
    assert_eq!(
        Tools::parse(r#"[{"type": "web_search"}]"#).unwrap().len(),
        0
    );
    assert_eq!(
        Tools::parse("{\"name\": \"a\", \"schema\": {}}\nnope\n")
            .unwrap_err()
            .split(" (")
            .next(),
        Some("line 2: not JSON")
    );
}

#[test]
fn malformed_lines_are_reported_by_number_and_skipped() {
    let input = concat!(
        "{\"tool\": \"t\", \"schema\": {\"type\": \"object\"}, \"arguments\": {}}\n",
        "not json\n",
        "\n",
        "{\"tool\": \"t\", \"arguments\": {}}\n",
        "{\"schema\": {}, \"arguments\": {}}\n",
        "{\"tool\": \"t\", \"schema\": {}}\n",
        "{\"tool\": \"t\", \"schema\": {\"type\": 5}, \"arguments\": {}}\n",
        "{\"tool\": \"t\", \"schema\": {\"type\": \"object\"}, \"arguments\": \"{oops\"}\n",
        "{\"tool\": \"t\", \"schema\": {\"type\": \"object\"}, \"arguments\": null}\n",
    );
    let mut errors: Vec<LineError> = Vec::new();
    let mut seen = Vec::new();
    let report = Replay::new(Policy::DEFAULT, Tools::default())
        .run_with(
            input.as_bytes(),
            |_| {},
            |o| {
                seen.push((o.line, o.outcome));
                Ok(())
            },
            |e| errors.push(e.clone()),
        )
        .unwrap();
    let lines: Vec<(u64, &str)> = errors
        .iter()
        .map(|e| (e.line, e.reason.split(" (").next().unwrap()))
        .collect();
    assert_eq!(
        lines,
        [
            (2, "not JSON"),
            (4, "no `schema`, and no tool `t` in the tools file"),
            (5, "no `tool`"),
            (6, "no `arguments`"),
        ]
    );
    assert_eq!(
        seen,
        [
            (1, "accepted"),
            (7, "schema_error"),
            (8, "rejected"),
            (9, "repaired")
        ]
    );
    let t = &report.totals;
    assert_eq!((t.calls, t.malformed_lines, t.schema_errors), (3, 4, 1));
    assert_eq!(report.still_rejected_by_kind["malformed"].calls, 1);
    assert_eq!(report.repairs_by_rule["empty_arguments"], 1);
}

#[test]
fn empty_arguments_are_repaired_only_where_a_strict_binder_refuses_them() {
    let line = |schema: &str, arguments: &str| {
        format!("{{\"tool\": \"t\", \"schema\": {schema}, \"arguments\": {arguments}}}\n")
    };
    let object = r#"{"type": "object"}"#;
    let input = [
        line(object, "null"),
        line(object, r#""""#),
        line(object, r#"" null ""#),
        // Schemas that take `null` as it came.
        line("{}", "null"),
        line(r#"{"type": ["object", "null"]}"#, "null"),
        line("{}", r#""null""#),
        // Blank text is not JSON, whatever the schema takes.
        line("{}", r#""  ""#),
    ]
    .concat();
    let outcomes = |policy: Policy| {
        let mut seen = Vec::new();
        Replay::new(policy, Tools::default())
            .run(
                input.as_bytes(),
                |_| {},
                |o| {
                    let rules: Vec<String> = o.repairs.iter().map(|r| r.rule.to_string()).collect();
                    seen.push((o.outcome, rules.join(",")));
                    Ok(())
                },
            )
            .unwrap();
        seen
    };
    let repaired = ("repaired", "empty_arguments".to_owned());
    let accepted = ("accepted", String::new());
    let rejected = ("rejected", String::new());
    assert_eq!(
        outcomes(Policy::DEFAULT),
        [
            repaired.clone(),
            repaired.clone(),
            repaired.clone(),
            accepted.clone(),
            accepted.clone(),
            accepted.clone(),
            repaired
        ]
    );
    assert_eq!(
        outcomes(Policy::STRICT),
        [
            rejected.clone(),
            rejected.clone(),
            rejected.clone(),
            accepted.clone(),
            accepted.clone(),
            accepted,
            rejected
        ]
    );
}

fn canon(args: &[&str]) -> (String, String, bool) {
    let output = Command::new(env!("CARGO_BIN_EXE_canon"))
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.success(),
    )
}

#[test]
fn the_command_with_no_arguments_replays_the_sample() {
    let (stdout, stderr, ok) = canon(&[]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.starts_with("canon replay: 17 calls from the bundled sample"),
        "{stdout}"
    );
    assert!(
        stdout.contains("failure rate: 88.2% with a strict binder, 64.7% with canon"),
        "{stdout}"
    );
    // No progress bar when standard error is not a terminal.
    assert_eq!(stderr, "");
    assert_eq!(canon(&["replay"]).0, stdout);
}

#[test]
fn the_command_writes_json_and_one_line_per_call() {
    let dir = std::env::temp_dir().join(format!("canon-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("calls.jsonl");
    let (stdout, stderr, ok) = canon(&[
        "replay",
        "--policy",
        "number_text,bool_text",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["policy"], "scalar_to_array,number_text,bool_text");
    assert_eq!(report["totals"]["accepted_after_repair"], 6);
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 17);
    assert_eq!(
        lines[6],
        json!({"line": 7, "tool": "get_weather", "outcome": "repaired",
               "repairs": [{"pointer": "/days", "rule": "number_text"}],
               "label": "number_text: a number sent as a string"})
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_command_explains_bad_options() {
    let (_, stderr, ok) = canon(&["replay", "--policy", "comma_split"]);
    assert!(!ok);
    assert!(
        stderr.contains("`comma_split` is not a repair rule"),
        "{stderr}"
    );
    let (_, stderr, ok) = canon(&["replay", "/nonexistent/calls.jsonl"]);
    assert!(!ok);
    assert!(
        stderr.starts_with("canon replay: cannot open /nonexistent/calls.jsonl"),
        "{stderr}"
    );
}

#[test]
fn a_call_bound_after_one_with_the_same_schema_skips_the_cache() {
    let replay = Replay::new(Policy::DEFAULT, Tools::default());
    let schema = r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}"#;
    let call = |arguments| CallRef {
        tool: "tag",
        schema,
        arguments,
        label: None,
    };
    let mut recent = Recent::default();
    let first = replay.bind_call_after(&mut recent, 1, call(r#"{"tags": "a"}"#));
    assert_eq!(first.outcome.outcome, "repaired");
    assert_eq!(first.arguments, Some(json!({"tags": ["a"]})));
    let hashed = replay.schema_hashes();
    assert!(hashed > 0);
    // The same schema again: no lookup in the shared cache, and the same
    // verdicts as a call bound on its own.
    for arguments in [r#"{"tags": ["b"]}"#, r#"{"tags": 1}"#] {
        let after = replay.bind_call_after(&mut recent, 2, call(arguments));
        let alone = Replay::new(Policy::DEFAULT, Tools::default()).bind_call(2, call(arguments));
        assert_eq!(after, alone);
    }
    assert_eq!(replay.schema_hashes(), hashed);
    assert_eq!(replay.schemas_compiled(), 1);
    // Without it, each call looks the schema up.
    replay.bind_call(3, call("{}"));
    assert!(replay.schema_hashes() > hashed);
}

#[test]
fn a_caller_finds_the_schemas_it_bound_with_in_its_own_cache() {
    let replay = Replay::new(Policy::DEFAULT, Tools::default());
    let schemas: Vec<String> = (0..3)
        .map(|i| {
            format!(r#"{{"type": "object", "properties": {{"t{i}": {{"type": "array", "items": {{"type": "string"}}}}}}}}"#)
        })
        .collect();
    let mut recent = Recent::default();
    // Three schemas in turn, a hundred times: each differs from the call
    // before's, and only the first of each looks in the shared cache.
    for round in 0..100u64 {
        for (i, schema) in schemas.iter().enumerate() {
            let arguments = format!(r#"{{"t{i}": "x"}}"#);
            let call = CallRef {
                tool: "t",
                schema,
                arguments: &arguments,
                label: None,
            };
            let bound = replay.bind_call_after(&mut recent, round, call);
            assert_eq!(bound.outcome.outcome, "repaired");
        }
    }
    assert_eq!(replay.schemas_compiled(), 3);
    // One lookup and one keep for each schema.
    assert_eq!(replay.schema_hashes(), 6);
    // Another caller's cache starts empty.
    let call = CallRef {
        tool: "t",
        schema: &schemas[0],
        arguments: "{}",
        label: None,
    };
    replay.bind_call_after(&mut Recent::default(), 1, call);
    assert_eq!(replay.schema_hashes(), 7);
}

#[test]
fn arguments_past_the_bound_on_text_are_refused_unread() {
    assert_eq!(MAX_ARGUMENTS_TEXT, canon::Limits::default().max_text_bytes);
    let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
    let schema = r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}"#;
    let call = |arguments| CallRef {
        tool: "tag",
        schema,
        arguments,
        label: Some("big"),
    };
    // Valid JSON one byte past the bound, and text that is not JSON: both
    // refused as too large (the second would be malformed, were it read).
    let padding = "a".repeat(MAX_ARGUMENTS_TEXT);
    let valid = format!(r#"{{"tags": ["{}"]}}"#, &padding[..MAX_ARGUMENTS_TEXT - 13]);
    assert_eq!(valid.len(), MAX_ARGUMENTS_TEXT + 1);
    let unclosed = format!(r#"{{"tags": ["{padding}"#);
    for arguments in [valid.as_str(), unclosed.as_str()] {
        let binding = replay.bind_call(1, call(arguments));
        let outcome = &binding.outcome;
        assert_eq!(outcome.outcome, "rejected");
        assert_eq!(binding.arguments, None);
        assert_eq!(outcome.label.as_deref(), Some("big"));
        let kinds: Vec<_> = outcome.violations.iter().map(|v| v.kind).collect();
        assert_eq!(
            kinds,
            [canon::toolbox::ViolationKind::TooLarge],
            "{outcome:?}"
        );
        assert_eq!(outcome.violations[0].pointer, "");
        // What the model would be told stays short.
        assert!(outcome.violations[0].message.len() < 200);
        assert_eq!(replay.replay_call(1, call(arguments)).outcome, "rejected");
    }
    // At the bound, the call is read and binds.
    let at = format!(r#"{{"tags": ["{}"]}}"#, &padding[..MAX_ARGUMENTS_TEXT - 14]);
    assert_eq!(at.len(), MAX_ARGUMENTS_TEXT);
    assert_eq!(replay.bind_call(2, call(&at)).outcome.outcome, "accepted");
    // A schema that does not compile is said first.
    let broken = CallRef {
        schema: "{not a schema",
        ..call(&unclosed)
    };
    assert_eq!(replay.bind_call(3, broken).outcome.outcome, "schema_error");
}
