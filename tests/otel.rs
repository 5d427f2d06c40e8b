//! Each call through a toolbox is exported to OpenTelemetry as an
//! `execute_tool` span after the GenAI semantic conventions, with canon's
//! repairs and rejections as its events and never an argument value:
//! through `tracing-opentelemetry` into the SDK's in-memory exporter, with
//! the simple (synchronous) span processor.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use canon::{tool, ToolCall, ToolOutcome, Toolbox};
use common::SearchCode;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use tracing::subscriber::DefaultGuard;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Registry;

/// Sent as an argument (and so in outputs, errors and panics); must never
/// reach the exported data.
const SENTINEL: &str = "SENTINEL-9c41e7";

/// Always panics, quoting its argument.
#[tool]
fn explode(reason: String) -> String {
    panic!("boom: {reason}")
}

/// Fails on demand, quoting its argument.
#[tool]
async fn flaky(note: String) -> Result<String, String> {
    Err(format!("the backend is down: {note}"))
}

/// Never answers in time.
#[tool(timeout = "1s")]
async fn stall(note: String) -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    note
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
        .add(Stall)
        .unwrap();
    toolbox
}

/// The in-memory exporter behind a `tracing` subscriber that is the default
/// while it lives.
struct Otel {
    exporter: InMemorySpanExporter,
    _provider: SdkTracerProvider,
    _guard: DefaultGuard,
}

fn otel() -> Otel {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("canon-test"));
    let guard = tracing::subscriber::set_default(Registry::default().with(layer));
    tracing::callsite::rebuild_interest_cache();
    Otel {
        exporter,
        _provider: provider,
        _guard: guard,
    }
}

impl Otel {
    /// The finished spans, checked to carry no argument value.
    fn spans(&self) -> Vec<SpanData> {
        let spans = self.exporter.get_finished_spans().unwrap();
        assert!(
            !format!("{spans:?}").contains(SENTINEL),
            "an argument value was exported: {spans:#?}"
        );
        spans
    }
}

fn attributes(pairs: &[opentelemetry::KeyValue]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|kv| (kv.key.as_str().to_owned(), kv.value.as_str().into_owned()))
        .collect()
}

/// The GenAI attributes of a tool-call span, and the error ones if any.
fn genai(span: &SpanData) -> BTreeMap<String, String> {
    attributes(&span.attributes)
        .into_iter()
        .filter(|(k, _)| k.starts_with("gen_ai.") || k == "error.type")
        .collect()
}

fn expected(tool: &str, id: &str, error: Option<&str>) -> BTreeMap<String, String> {
    let mut map: BTreeMap<String, String> = [
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", tool),
        ("gen_ai.tool.call.id", id),
        ("gen_ai.tool.type", "function"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    if let Some(error) = error {
        map.insert("error.type".to_owned(), error.to_owned());
    }
    map
}

#[tokio::test]
async fn a_repaired_call_is_one_span_with_the_repair_as_its_event() {
    let otel = otel();
    let result = toolbox()
        .call(ToolCall::new(
            "call_1",
            "search_code",
            json!({"data_source_names": SENTINEL, "query": SENTINEL}),
        ))
        .await;
    assert!(matches!(result.outcome, ToolOutcome::Ran { .. }));

    let spans = otel.spans();
    assert_eq!(spans.len(), 1);
    let span = &spans[0];
    assert_eq!(span.name, "execute_tool search_code");
    assert_eq!(span.span_kind, SpanKind::Internal);
    assert_eq!(span.status, Status::Unset);
    assert_eq!(genai(span), expected("search_code", "call_1", None));
    // The fields only for the exporter are not attributes.
    let all = attributes(&span.attributes);
    assert!(!all.contains_key("otel.name") && !all.contains_key("otel.status_code"));

    let events = &span.events.events;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].name, "repaired a tool call");
    let event = attributes(&events[0].attributes);
    assert_eq!(event["rule"], "scalar_to_array");
    assert_eq!(event["pointer"], "/data_source_names");
    assert_eq!(event["tool"], "search_code");
}

#[tokio::test]
async fn a_rejected_call_is_an_error_span_with_the_rejection_as_its_event() {
    let otel = otel();
    let result = toolbox()
        .call(ToolCall::new(
            "call_2",
            "search_code",
            json!({"data_source_names": [SENTINEL], "limit": SENTINEL}).to_string(),
        ))
        .await;
    assert!(matches!(result.outcome, ToolOutcome::Rejected(_)));
    // The model is shown the value; the exporter is not (checked in `spans`).
    assert!(result.to_message(false).text.contains(SENTINEL));

    let spans = otel.spans();
    assert_eq!(spans.len(), 1);
    let span = &spans[0];
    assert_eq!(span.name, "execute_tool search_code");
    assert!(matches!(span.status, Status::Error { .. }));
    assert_eq!(
        genai(span),
        expected("search_code", "call_2", Some("rejected"))
    );
    let events = &span.events.events;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].name, "rejected a tool call");
    let event = attributes(&events[0].attributes);
    assert_eq!(event["violations"], "2");
    assert_eq!(event["pointers"], "[\"/limit\", \"/query\"]");
}

#[tokio::test]
async fn every_kind_of_failure_has_its_error_type() {
    let otel = otel();
    let toolbox = toolbox();
    let calls = [
        ("a", "serach_code", json!({"query": SENTINEL})),
        ("b", "explode", json!({"reason": SENTINEL})),
        ("c", "flaky", json!({"note": SENTINEL})),
    ];
    for (id, name, args) in calls {
        let result = toolbox.call(ToolCall::new(id, name, args)).await;
        assert!(result.outcome.is_error());
    }
    let spans = otel.spans();
    let seen: Vec<(String, BTreeMap<String, String>, bool)> = spans
        .iter()
        .map(|s| {
            (
                s.name.to_string(),
                genai(s),
                matches!(s.status, Status::Error { .. }),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "execute_tool serach_code".to_owned(),
                expected("serach_code", "a", Some("no_such_tool")),
                true
            ),
            (
                "execute_tool explode".to_owned(),
                expected("explode", "b", Some("panicked")),
                true
            ),
            (
                "execute_tool flaky".to_owned(),
                expected("flaky", "c", Some("failed")),
                true
            ),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_call_ends_its_span_as_timed_out() {
    let otel = otel();
    let result = toolbox()
        .call(ToolCall::new("t", "stall", json!({"note": SENTINEL})))
        .await;
    assert!(matches!(result.outcome, ToolOutcome::TimedOut { .. }));
    let spans = otel.spans();
    assert_eq!(spans.len(), 1);
    assert_eq!(genai(&spans[0]), expected("stall", "t", Some("timed_out")));
    let events = &spans[0].events.events;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].name,
        "a tool call did not finish within its timeout"
    );
}

#[tokio::test]
async fn the_calls_of_a_batch_are_sibling_spans_under_the_callers() {
    let otel = otel();
    let toolbox = toolbox();
    let results = toolbox
        .call_batch([
            ToolCall::new(
                "1",
                "search_code",
                json!({"data_source_names": SENTINEL, "query": "q"}),
            ),
            ToolCall::new("2", "explode", json!({"reason": SENTINEL})),
            ToolCall::new(
                "3",
                "search_code",
                json!({"data_source_names": ["a"], "query": "q"}),
            ),
        ])
        .instrument(tracing::info_span!("agent_turn"))
        .await;
    assert_eq!(results.len(), 3);

    let spans = otel.spans();
    let turn = spans.iter().find(|s| s.name == "agent_turn").unwrap();
    let mut calls: Vec<(String, usize)> = spans
        .iter()
        .filter(|s| s.name != "agent_turn")
        .map(|s| {
            assert_eq!(s.parent_span_id, turn.span_context.span_id());
            assert_eq!(s.span_context.trace_id(), turn.span_context.trace_id());
            (
                attributes(&s.attributes)["gen_ai.tool.call.id"].clone(),
                s.events.events.len(),
            )
        })
        .collect();
    calls.sort();
    // Each repair is an event of its own call's span only.
    assert_eq!(
        calls,
        [
            ("1".to_owned(), 1),
            ("2".to_owned(), 0),
            ("3".to_owned(), 0)
        ]
    );
}
