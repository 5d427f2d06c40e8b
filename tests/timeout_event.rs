//! The event a timeout emits, in a test binary of its own: tracing caches
//! each callsite's interest process-wide, and a test reaching the same
//! callsite without a subscriber, on another thread of the same binary, can
//! leave it switched off for this one (seen under load in the runtime
//! tests).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use canon::{tool, ToolCall, ToolOutcome, Toolbox};
use serde_json::json;

const SECOND: Duration = Duration::from_secs(1);

/// An event's fields, in order, as text.
type EventFields = Vec<(String, String)>;

/// Events of target `canon::timeout`, each as its fields.
#[derive(Clone, Default)]
struct Timeouts(Arc<Mutex<Vec<EventFields>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Timeouts {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Fields(Vec<(String, String)>);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push((field.name().to_owned(), format!("{value:?}")));
            }
        }
        if event.metadata().target() != "canon::timeout" {
            return;
        }
        assert_eq!(*event.metadata().level(), tracing::Level::WARN);
        let mut fields = Fields(Vec::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

/// Looks something up, slowly.
#[tool]
async fn lookup(query: String) -> String {
    tokio::time::sleep(10 * SECOND).await;
    query
}

#[tokio::test(start_paused = true)]
async fn a_timeout_emits_one_event_with_the_tool_and_the_timeout_and_no_value() {
    use tracing_subscriber::layer::SubscriberExt;

    let events = Timeouts::default();
    let _default = tracing::subscriber::set_default(
        tracing_subscriber::Registry::default().with(events.clone()),
    );
    tracing::callsite::rebuild_interest_cache();
    let mut toolbox = Toolbox::new().with_timeout(Duration::from_millis(1500));
    toolbox.add(Lookup).unwrap();
    let result = toolbox
        .call(ToolCall::new(
            "1",
            "lookup",
            json!({"query": "SECRET-7f3a"}),
        ))
        .await;
    assert_eq!(
        result.outcome,
        ToolOutcome::TimedOut {
            after: Duration::from_millis(1500)
        }
    );
    let events = events.0.lock().unwrap().clone();
    let expected: EventFields = [
        ("message", "a tool call did not finish within its timeout"),
        ("tool", "lookup"),
        ("timeout_ms", "1500"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(events, [expected]);
}
