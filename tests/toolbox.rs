//! The toolbox: dispatch by name, batches, outcomes, messages, stats.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use canon::toolbox::{ToolStats, ViolationKind};
use canon::{tool, JsonTool, RepairRule, Tool, ToolCall, ToolOutcome, Toolbox};
use common::SearchCode;
use serde_json::json;

/// Always panics.
#[tool]
fn explode(reason: String) -> String {
    panic!("boom: {reason}")
}

/// Fails on demand.
#[tool]
async fn flaky(fail: bool) -> Result<String, String> {
    if fail {
        Err("the backend is down".into())
    } else {
        Ok("fine".into())
    }
}

/// Takes no arguments.
#[tool]
fn ping() -> &'static str {
    "pong"
}

fn toolbox() -> Toolbox {
    let mut toolbox = Toolbox::new();
    toolbox
        .add(SearchCode)
        .unwrap()
        .add(Explode)
        .unwrap()
        .add(Flaky)
        .unwrap()
        .add(Ping)
        .unwrap();
    toolbox
}

#[test]
fn specs_come_in_registration_order_and_names_are_unique() {
    let mut toolbox = toolbox();
    let names: Vec<&str> = toolbox.specs().map(|s| s.name()).collect();
    assert_eq!(names, ["search_code", "explode", "flaky", "ping"]);
    let error = toolbox.add(Ping).err().unwrap();
    assert_eq!(
        error.to_string(),
        "a tool named `ping` is already in the toolbox; tool names must be unique"
    );
    assert_eq!(toolbox.specs().count(), 4);
}

#[tokio::test]
async fn a_batch_keeps_order_ids_and_every_outcome() {
    let toolbox = toolbox();
    let results = toolbox
        .call_batch([
            ToolCall::new(
                "a",
                "search_code",
                json!({"data_source_names": ["x"], "query": "q"}),
            ),
            ToolCall::new(
                "b",
                "search_code",
                r#"{"data_source_names": "dotnet/eshop", "query": "q"}"#,
            ),
            ToolCall::new("c", "search_code", json!({"query": 5})),
            ToolCall::new("d", "serach_code", json!({})),
            ToolCall::new("e", "explode", json!({"reason": "test"})),
            ToolCall::new("f", "flaky", json!({"fail": true})),
        ])
        .await;
    let ids: Vec<&str> = results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);

    assert_eq!(
        results[0].outcome,
        ToolOutcome::Ran {
            output: json!([{"repo": "x", "path": "src/q.cs"}]),
            repairs: canon::Repairs::new()
        }
    );
    match &results[1].outcome {
        ToolOutcome::Ran { output, repairs } => {
            assert_eq!(
                output,
                &json!([{"repo": "dotnet/eshop", "path": "src/q.cs"}])
            );
            assert_eq!(repairs.len(), 1);
            assert_eq!(repairs[0].pointer, "/data_source_names");
        }
        other => panic!("{other:?}"),
    }
    match &results[2].outcome {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.pointers(), ["/data_source_names", "/query"]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        results[3].outcome,
        ToolOutcome::NoSuchTool {
            name: "serach_code".into(),
            closest: Some("search_code".into()),
            available: vec![
                "search_code".into(),
                "explode".into(),
                "flaky".into(),
                "ping".into()
            ],
        }
    );
    assert_eq!(
        results[4].outcome,
        ToolOutcome::Failed {
            message: "the tool panicked: boom: test".into()
        }
    );
    assert_eq!(
        results[5].outcome,
        ToolOutcome::Failed {
            message: "the backend is down".into()
        }
    );

    let messages: Vec<(String, bool)> = results
        .iter()
        .map(|r| {
            let m = toolbox.message(r);
            (m.text, m.is_error)
        })
        .collect();
    assert_eq!(
        messages,
        [
            (r#"[{"repo":"x","path":"src/q.cs"}]"#.to_owned(), false),
            (
                r#"[{"repo":"dotnet/eshop","path":"src/q.cs"}]"#.to_owned(),
                false
            ),
            (
                "The call to `search_code` was not run. \
                 /data_source_names: required, expected an array of strings. \
                 /query: expected a string, got the number 5. \
                 Fix these and call `search_code` again."
                    .to_owned(),
                true
            ),
            (
                "There is no tool named `serach_code`. Did you mean `search_code`? \
                 The tools are `search_code`, `explode`, `flaky`, `ping`."
                    .to_owned(),
                true
            ),
            ("The tool `explode` failed unexpectedly.".to_owned(), true),
            (
                "The tool `flaky` failed: the backend is down".to_owned(),
                true
            ),
        ]
    );

    let stats = toolbox.stats();
    let expected: BTreeMap<String, ToolStats> = [
        (
            "search_code",
            ToolStats {
                calls: 3,
                ran: 2,
                rejected: 1,
                failed: 0,
                timed_out: 0,
                repairs: [(RepairRule::ScalarToArray, 1)].into(),
            },
        ),
        (
            Toolbox::UNKNOWN_TOOLS,
            ToolStats {
                calls: 1,
                rejected: 1,
                ..Default::default()
            },
        ),
        (
            "explode",
            ToolStats {
                calls: 1,
                failed: 1,
                ..Default::default()
            },
        ),
        (
            "flaky",
            ToolStats {
                calls: 1,
                failed: 1,
                ..Default::default()
            },
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(stats, expected);
}

#[tokio::test]
async fn empty_and_null_arguments_are_an_empty_object_and_a_repair() {
    let toolbox = toolbox();
    for arguments in [
        json!(null).into(),
        "".into(),
        " null ".into(),
        "null".into(),
    ] {
        let result = toolbox
            .call(ToolCall {
                id: "1".into(),
                name: "ping".into(),
                arguments,
            })
            .await;
        match &result.outcome {
            ToolOutcome::Ran { output, repairs } => {
                assert_eq!(output, &json!("pong"));
                assert_eq!(repairs.len(), 1);
                assert_eq!(repairs[0].pointer, "");
                assert_eq!(repairs[0].rule, RepairRule::EmptyArguments);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        toolbox.stats()["ping"].repairs[&RepairRule::EmptyArguments],
        4
    );
    // Malformed text is a rejection with the model-facing wording.
    let result = toolbox.call(ToolCall::new("2", "ping", "{")).await;
    match &result.outcome {
        ToolOutcome::Rejected(error) => {
            assert_eq!(error.violations()[0].kind, ViolationKind::Malformed);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn repair_notes_teach_the_model_the_shape() {
    let toolbox = toolbox().with_repair_notes(true);
    let result = toolbox
        .call(ToolCall::new(
            "1",
            "search_code",
            json!({"data_source_names": "r", "query": "q"}),
        ))
        .await;
    // The output as the tool gave it, parseable; the note beside it.
    let message = toolbox.message(&result);
    assert_eq!(message.text, "[{\"repo\":\"r\",\"path\":\"src/q.cs\"}]");
    assert_eq!(
        message.note.as_deref(),
        Some("(Note: /data_source_names was sent as a string and read as a one-element array; send an array.)")
    );
    assert_eq!(message.blocks().count(), 2);
    let plain = crate::toolbox().message(&result);
    assert_eq!((plain.text, plain.note), (message.text, None));
}

// On the paused clock: the timeout fires only if the two calls wait on
// each other forever, never because the machine is slow.
#[tokio::test(start_paused = true)]
async fn batches_run_concurrently() {
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let mut toolbox = Toolbox::new();
    for name in ["left", "right"] {
        let barrier = barrier.clone();
        toolbox
            .add(
                JsonTool::new(
                    name,
                    "Wait for the other one.",
                    json!({"type": "object"}),
                    move |_| {
                        let barrier = barrier.clone();
                        async move {
                            barrier.wait().await;
                            Ok(json!("met"))
                        }
                    },
                )
                .unwrap(),
            )
            .unwrap();
    }
    // Run one after the other, each would wait for the other forever.
    let results = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        toolbox.call_batch([
            ToolCall::new("1", "left", json!({})),
            ToolCall::new("2", "right", json!({})),
        ]),
    )
    .await
    .expect("the calls ran concurrently");
    assert!(results.iter().all(|r| !r.outcome.is_error()));
}

#[tokio::test]
async fn foreign_tools_are_bound_by_their_schema() {
    let mut toolbox = Toolbox::new();
    toolbox
        .add(
            JsonTool::new(
                "tag",
                "Tag a document.",
                json!({
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "tags": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["id", "tags"],
                    "additionalProperties": false
                }),
                |args| async move {
                    if args["id"] == 0 {
                        Err("no document 0".to_owned())
                    } else {
                        Ok(args)
                    }
                },
            )
            .unwrap(),
        )
        .unwrap();
    let ran = toolbox
        .call(ToolCall::new(
            "1",
            "tag",
            json!({"id": 7, "tags": "urgent"}),
        ))
        .await;
    match &ran.outcome {
        ToolOutcome::Ran { output, repairs } => {
            assert_eq!(output, &json!({"id": 7, "tags": ["urgent"]}));
            assert_eq!(repairs[0].pointer, "/tags");
        }
        other => panic!("{other:?}"),
    }
    let rejected = toolbox
        .call(ToolCall::new("2", "tag", json!({"id": "7", "tags": []})))
        .await;
    match &rejected.outcome {
        ToolOutcome::Rejected(error) => assert_eq!(error.pointers(), ["/id"]),
        other => panic!("{other:?}"),
    }
    let failed = toolbox
        .call(ToolCall::new("3", "tag", json!({"id": 0, "tags": []})))
        .await;
    assert_eq!(
        failed.outcome,
        ToolOutcome::Failed {
            message: "no document 0".into()
        }
    );
}

// Gemini sends every number as a double. `1.0` is an integer to JSON
// Schema, so the call is valid; a handler reading a Rust integer must get
// one, from text and from a `Value` alike, with no repair.
#[tokio::test]
async fn a_typed_handler_reads_a_whole_double_at_an_integer_position() {
    #[derive(serde::Deserialize)]
    struct Page {
        n: u16,
        at: Vec<i64>,
        scale: f64,
    }
    let mut toolbox = Toolbox::new();
    toolbox
        .add(
            JsonTool::new(
                "page",
                "Read a page.",
                json!({
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer"},
                        "at": {"type": "array", "items": {"type": "integer"}},
                        "scale": {"type": "number"}
                    },
                    "required": ["n", "at", "scale"]
                }),
                |args| async move {
                    let page: Page =
                        serde_json::from_value(args.clone()).map_err(|e| e.to_string())?;
                    Ok(json!({"n": page.n, "at": page.at, "scale": page.scale, "sent": args}))
                },
            )
            .unwrap(),
        )
        .unwrap();
    let from_value = json!({"n": 1.0, "at": [2.0, -0.0], "scale": 2.0});
    let from_text = r#"{"n": 1.0, "at": [2.0, -0.0], "scale": 2.0}"#;
    for arguments in [
        canon::toolbox::Arguments::Json(from_value),
        from_text.into(),
    ] {
        let result = toolbox.call(ToolCall::new("1", "page", arguments)).await;
        match &result.outcome {
            ToolOutcome::Ran { output, repairs } => {
                assert!(repairs.is_empty(), "{repairs:?}");
                assert_eq!(output["n"], json!(1));
                assert_eq!(output["at"], json!([2, 0]));
                // The handler got integers where the schema says integer,
                // and the double as sent where it says number.
                assert_eq!(
                    output["sent"].to_string(),
                    r#"{"n":1,"at":[2,0],"scale":2.0}"#
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

#[derive(serde::Serialize)]
struct Unschematic;

/// Returns a type without a schema.
#[tool]
fn opaque() -> Unschematic {
    Unschematic
}

#[test]
fn output_schemas_come_from_the_return_type() {
    assert_eq!(
        SearchCode.output_schema(),
        Some(&json!({
            "type": "array",
            "items": {"$ref": "#/$defs/Hit"},
            "$defs": {
                "Hit": {
                    "type": "object",
                    "properties": {"repo": {"type": "string"}, "path": {"type": "string"}},
                    "required": ["repo", "path"]
                }
            }
        }))
    );
    assert_eq!(Flaky.output_schema(), Some(&json!({"type": "string"})));
    assert_eq!(Opaque.output_schema(), None);
}

#[tokio::test]
async fn invented_tool_names_share_one_stats_entry() {
    let toolbox = toolbox();
    let calls = (0..10_000).map(|i| ToolCall::new(i.to_string(), format!("made_up_{i}"), "{}"));
    for result in toolbox.call_batch(calls).await {
        assert!(matches!(result.outcome, ToolOutcome::NoSuchTool { .. }));
    }
    toolbox.call(ToolCall::new("p", "ping", "")).await;
    let stats = toolbox.stats();
    assert!(
        stats.len() <= toolbox.specs().count() + 1,
        "{}",
        stats.len()
    );
    assert_eq!(
        stats.keys().collect::<Vec<_>>(),
        [Toolbox::UNKNOWN_TOOLS, "ping"]
    );
    assert_eq!(
        stats[Toolbox::UNKNOWN_TOOLS],
        ToolStats {
            calls: 10_000,
            rejected: 10_000,
            ..Default::default()
        }
    );
    assert_eq!(stats["ping"].calls, 1);
}

#[tokio::test]
async fn a_panic_text_reaches_the_model_only_when_allowed() {
    /// Panics with a secret.
    #[tool]
    fn leak() -> String {
        panic!("secret token sk-123 leaked")
    }

    let mut quiet = Toolbox::new();
    quiet.add(Leak).unwrap();
    assert!(!quiet.panic_messages());
    let result = quiet.call(ToolCall::new("1", "leak", "{}")).await;
    // The caller gets the full text.
    assert_eq!(
        result.outcome,
        ToolOutcome::Failed {
            message: "the tool panicked: secret token sk-123 leaked".into()
        }
    );
    assert_eq!(quiet.stats()["leak"].failed, 1);
    // The model does not, by default, by either path.
    for message in [quiet.message(&result), result.to_message(true)] {
        assert_eq!(message.text, "The tool `leak` failed unexpectedly.");
        assert!(message.is_error);
    }
    // Showing it is an explicit opt-in.
    let mut open = Toolbox::new().with_panic_messages(true);
    open.add(Leak).unwrap();
    assert!(open.panic_messages());
    let result = open.call(ToolCall::new("2", "leak", "{}")).await;
    assert_eq!(
        open.message(&result).text,
        "The tool `leak` failed: the tool panicked: secret token sk-123 leaked"
    );
    // A tool's own error is still shown as it was.
    let flaky = toolbox()
        .call(ToolCall::new("3", "flaky", json!({"fail": true})))
        .await;
    assert_eq!(
        quiet.message(&flaky).text,
        "The tool `flaky` failed: the backend is down"
    );
}
