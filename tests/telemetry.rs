//! Every repair and every rejection emits one `tracing` event, with the tool
//! name and pointers and never an argument value.

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use canon::Tool;
use common::{SearchCode, Survey};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::Registry;

#[derive(Debug, Clone, PartialEq)]
struct Captured {
    target: String,
    level: Level,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

impl<S: Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        struct Fields(BTreeMap<String, String>);
        impl Visit for Fields {
            fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }
            fn record_str(&mut self, field: &Field, value: &str) {
                self.0.insert(field.name().to_owned(), value.to_owned());
            }
        }
        let mut fields = Fields(BTreeMap::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(Captured {
            target: event.metadata().target().to_owned(),
            level: *event.metadata().level(),
            fields: fields.0,
        });
    }
}

fn capture(f: impl FnOnce()) -> Vec<Captured> {
    let capture = Capture::default();
    let subscriber = Registry::default().with(capture.clone());
    tracing::subscriber::with_default(subscriber, f);
    let events = capture.0.lock().unwrap().clone();
    events
}

fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const SECRET: &str = "SECRET-7f3a";

#[test]
fn each_repair_emits_one_event_without_values() {
    let events = capture(|| {
        SearchCode
            .bind(&json!({"data_source_names": SECRET, "query": SECRET}))
            .unwrap();
        SearchCode
            .bind_str(&json!({"data_source_names": SECRET, "query": "q"}).to_string())
            .unwrap();
    });
    let expected = Captured {
        target: "canon::repair".into(),
        level: Level::INFO,
        fields: fields(&[
            ("message", "repaired a tool call"),
            ("tool", "search_code"),
            ("pointer", "/data_source_names"),
            ("rule", "scalar_to_array"),
        ]),
    };
    assert_eq!(events, [expected.clone(), expected]);
    assert!(!format!("{events:?}").contains(SECRET));
}

#[test]
fn several_repairs_give_several_events() {
    let events = capture(|| {
        Survey
            .bind(&json!({
                "names": SECRET, "set": SECRET, "ordered": [], "langs": [], "filter": {"labels": []},
                "filters": [], "groups": {}, "query": {"text": "t", "fields": []},
                "either": ["x"], "count": 1
            }))
            .unwrap();
    });
    let pointers: Vec<&str> = events
        .iter()
        .map(|e| e.fields["pointer"].as_str())
        .collect();
    assert_eq!(pointers, ["/names", "/set"]);
    assert!(events.iter().all(|e| e.target == "canon::repair"));
}

#[test]
fn a_rejection_emits_one_event_with_the_pointers() {
    let events = capture(|| {
        let _ = SearchCode.bind(&json!({"data_source_names": [SECRET], "limit": SECRET}));
    });
    assert_eq!(
        events,
        [Captured {
            target: "canon::reject".into(),
            level: Level::WARN,
            fields: fields(&[
                ("message", "rejected a tool call"),
                ("tool", "search_code"),
                ("pointers", "[\"/limit\", \"/query\"]"),
                ("violations", "2"),
            ]),
        }]
    );
    // A repaired-then-rejected call reports only the rejection.
    let events = capture(|| {
        let _ = SearchCode.bind_str(&json!({"data_source_names": SECRET}).to_string());
    });
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].target, "canon::reject");
    assert!(!format!("{events:?}").contains(SECRET));
}

#[test]
fn a_valid_call_emits_nothing() {
    let events = capture(|| {
        SearchCode
            .bind(&json!({"data_source_names": ["a"], "query": "q"}))
            .unwrap();
    });
    assert_eq!(events, []);
}

#[test]
fn opt_in_repairs_are_recorded_under_their_own_rule() {
    let schema = json!({
        "type": "object",
        "properties": {
            "days": {"type": "integer"},
            "hourly": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"type": "string"}
        }
    });
    let canon = canon::Canonicalizer::options()
        .tool("forecast")
        .policy(canon::Policy::all())
        .compile(&schema)
        .unwrap();
    let events = capture(|| {
        let mut args =
            json!({"days": "7", "hourly": "true", "tags": format!("[\"{SECRET}\"]"), "note": null});
        canon.canonicalize(&mut args).unwrap();
        // Repaired and still rejected: only the rejection.
        let mut args = json!({"days": "7", "hourly": SECRET});
        canon.canonicalize(&mut args).unwrap_err();
    });
    let seen: Vec<(&str, &str, &str, &str)> = events
        .iter()
        .map(|e| {
            (
                e.target.as_str(),
                e.fields["tool"].as_str(),
                e.fields.get("pointer").map_or("", String::as_str),
                e.fields.get("rule").map_or("", String::as_str),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("canon::repair", "forecast", "/days", "number_text"),
            ("canon::repair", "forecast", "/hourly", "bool_text"),
            ("canon::repair", "forecast", "/tags", "json_text"),
            ("canon::repair", "forecast", "/note", "null_as_absent"),
            ("canon::reject", "forecast", "", ""),
        ]
    );
    assert_eq!(events[4].fields["pointers"], "[\"/hourly\"]");
    assert!(!format!("{events:?}").contains(SECRET));
}
