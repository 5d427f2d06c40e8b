//! The loop canon's feedback is for: a scripted "model" sends the tool calls
//! a small model sends (a near miss, then a call missing a parameter, then
//! the corrected retry), a toolbox runs them, and each result goes back as
//! the message the model reads.
//!
//! Run: `cargo run --example agent_loop`

use canon::{tool, ToolCall, Toolbox};
use serde::Serialize;
use serde_json::json;

/// One search result.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Hit {
    repo: String,
    path: String,
}

/// Search code in the given data sources.
#[tool]
pub fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
) -> Vec<Hit> {
    data_source_names
        .into_iter()
        .map(|repo| Hit {
            path: format!("src/Basket/{query}.cs"),
            repo,
        })
        .collect()
}

/// Add labels to an issue.
#[tool]
pub async fn label_issue(
    /// The issue number.
    number: u64,
    /// Labels to add.
    labels: Vec<String>,
) -> Result<String, String> {
    Ok(format!("#{number} now has {}", labels.join(", ")))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox
        .add(SearchCode)
        .expect("unique name")
        .add(LabelIssue)
        .expect("unique name");

    // What a small model sent, turn by turn (OpenAI-style JSON text).
    let turns = [
        vec![ToolCall::new(
            "call_1",
            "search_code",
            r#"{"data_source_names": "dotnet/eshop", "query": "BasketService"}"#,
        )],
        vec![ToolCall::new(
            "call_2",
            "label_issue",
            r#"{"labels": "needs-triage"}"#,
        )],
        vec![
            ToolCall::new(
                "call_3",
                "label_issue",
                r#"{"number": 42, "labels": ["needs-triage"]}"#,
            ),
            ToolCall::new("call_4", "search_issues", json!({"query": "basket"})),
        ],
    ];
    for (turn, calls) in turns.into_iter().enumerate() {
        println!("== turn {}", turn + 1);
        for call in &calls {
            println!("model  -> {}({:?})", call.name, call.arguments);
        }
        for result in toolbox.call_batch(calls).await {
            let message = toolbox.message(&result);
            let flag = if message.is_error { "error" } else { "ok" };
            println!("canon  <- [{} {flag}] {}", message.id, message.text);
            if let Some(note) = &message.note {
                // A block of its own beside the output, never inside it.
                println!("canon  <- [{} note] {note}", message.id);
            }
        }
        println!();
    }

    println!("== stats");
    for (tool, stats) in toolbox.stats() {
        println!(
            "{tool}: {} calls, {} ran, {} rejected, {} failed, repairs {:?}",
            stats.calls, stats.ran, stats.rejected, stats.failed, stats.repairs
        );
    }
}
