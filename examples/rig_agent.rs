//! canon's tools in rig, offline: a scripted model makes the calls a small
//! model makes (a near miss, a broken call, the corrected retry), rig runs
//! each through its tool dispatch, and canon binds it: the near miss is
//! repaired and runs, the broken call is refused and the model reads why.
//!
//! Run: `cargo run --features rig --example rig_agent`

use std::fmt::Write;

use canon::{tool, Toolbox};
use serde_json::{json, Value};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Search code in the given data sources.
#[tool]
fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u32>,
) -> String {
    let repos = data_source_names.join(", ");
    format!("{} hits for {query} in {repos}", limit.unwrap_or(10))
}

/// One turn of the scripted model.
enum Turn {
    Call(&'static str, Value),
    Answer(&'static str),
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // canon records every repair and refusal as a `tracing` event.
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(CanonEvents))?;

    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode)?;

    // The glue: the toolbox as rig tools. In rig's agent runtime (rig-agent):
    //     AgentBuilder::new(model).dynamic_tools(canon::rig::tools(toolbox)?).build()
    let tools = canon::rig::tools(toolbox)?;

    let script = [
        // A bare string where the schema says array of strings.
        Turn::Call(
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "BasketService"}),
        ),
        // A number as text, and no query.
        Turn::Call(
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "limit": "five"}),
        ),
        Turn::Call(
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "query": "OrderService", "limit": 5}),
        ),
        Turn::Answer("BasketService and OrderService are in dotnet/eshop."),
    ];
    for turn in script {
        match turn {
            Turn::Call(name, arguments) => {
                println!("model calls {name}({arguments})");
                let tool = tools
                    .iter()
                    .find(|tool| tool.name().as_str() == name)
                    .ok_or("the model called a tool the agent does not have")?;
                // What rig's agent does with the call: dispatch it to the tool.
                match tool.execute(arguments).await {
                    Ok(output) => println!("  ran; the model reads: {}", output.render()),
                    Err(error) => println!(
                        "  not run ({}); the model reads: {}",
                        error.kind(),
                        error.model_output().render()
                    ),
                }
            }
            Turn::Answer(text) => println!("final answer: {text}"),
        }
    }
    Ok(())
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
