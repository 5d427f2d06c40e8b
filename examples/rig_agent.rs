//! canon's tools in rig's own agent loop, offline: rig-agent's scripted
//! completion model makes the calls a small model makes (a near miss, a
//! broken call, the corrected retry), `agent.prompt(..)` runs them, and
//! canon binds each: the near miss is repaired and runs, the broken call is
//! refused and the model reads why, then calls again.
//!
//! Run: `cargo run --features rig --example rig_agent`

use std::fmt::Write;

use canon::{tool, Toolbox};
use rig_agent::agent::{AgentHook, DispatchAction, DispatchEvent, HookContext};
use rig_agent::agent::{OutcomeAction, OutcomeEvent};
use rig_agent::test_utils::{MockCompletionModel, MockTurn};
use rig_agent::AgentBuilder;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Search code in the given repositories (like "dotnet/eshop").
#[tool]
fn search_code(data_source_names: Vec<String>, query: String, limit: Option<u32>) -> String {
    let repos = data_source_names.join(", ");
    format!("{} hits for {query} in {repos}", limit.unwrap_or(10))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // canon records every repair and refusal as a `tracing` event.
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(CanonEvents))?;

    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode)?;

    // What a small model sends, scripted.
    let model = MockCompletionModel::from_turns([
        // A bare string where the schema says array of strings.
        MockTurn::tool_call(
            "call_1",
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "BasketService"}),
        ),
        // A number as text, and no query.
        MockTurn::tool_call(
            "call_2",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "limit": "five"}),
        ),
        MockTurn::tool_call(
            "call_3",
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "query": "OrderService", "limit": 5}),
        ),
        MockTurn::text("BasketService and OrderService are in dotnet/eshop."),
    ]);

    // The glue: the toolbox as the agent's tools. With a real model
    // (`OpenAI::from_env()?.chat("gpt-4o-mini")`), only `model` changes.
    let agent = AgentBuilder::new(model)
        .dynamic_tools(canon::rig::tools(toolbox)?)
        .add_hook(PrintCalls)
        .build();

    let response = agent
        .prompt("Where is the basket code?")
        .max_turns(5)
        .await?;
    println!("final answer: {}", response.output());
    Ok(())
}

/// Prints each tool call rig's loop dispatches, and what the model reads.
struct PrintCalls;

impl AgentHook for PrintCalls {
    async fn on_dispatch(&self, _: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        if let (Some(name), Some(arguments)) = (event.tool_name(), event.tool_args()) {
            println!("model calls {name}({arguments})");
        }
        DispatchAction::proceed()
    }

    async fn on_outcome(&self, _: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if let Some(result) = event.tool_result() {
            let reads = result.output().render();
            match result.error() {
                None => println!("  ran; the model reads: {reads}"),
                Some(error) => println!("  not run ({}); the model reads: {reads}", error.kind()),
            }
        }
        OutcomeAction::proceed()
    }
}

/// Prints canon's events (`canon::repair`, `canon::reject`) with their
/// fields: for a repair, the pointer and the rule.
struct CanonEvents;

impl<S: tracing::Subscriber> Layer<S> for CanonEvents {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let target = event.metadata().target();
        if target == "canon::repair" || target == "canon::reject" {
            let mut fields = Fields(String::new());
            event.record(&mut fields);
            println!("  {target}:{}", fields.0);
        }
    }
}

/// An event's fields as ` name=value`, without its message or tool.
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() != "message" && field.name() != "tool" {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.record_debug(field, &format_args!("{value}"));
    }
}
