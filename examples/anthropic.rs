//! One turn of the Anthropic Messages API, offline: the `tool_use` blocks of
//! a recorded response are run by a toolbox (one near miss repaired, one
//! call refused), and the results are printed as the `tool_result` blocks
//! of the next request's user message.
//!
//! Run: `cargo run --example anthropic --features anthropic`

use canon::toolbox::ToolOutcome;
use canon::{anthropic, tool, Toolbox};
use serde_json::json;

/// Search code in the given data sources.
#[tool]
fn search_code(
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
) -> Vec<String> {
    data_source_names
        .into_iter()
        .map(|repo| format!("{repo}: src/{query}.cs"))
        .collect()
}

/// Add labels to an issue.
#[tool]
fn label_issue(
    /// The issue number.
    number: u64,
    /// Labels to add, like ["bug"].
    labels: Vec<String>,
) -> String {
    format!("#{number}: added {}", labels.join(", "))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Repair notes: a repaired call's result tells the model what to send.
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(SearchCode)?.add(LabelIssue)?;
    // The request's `tools` would be `anthropic::tools(&toolbox, false)?`.

    // A recorded response (`stop_reason: tool_use`) with two calls.
    let response = json!({
        "id": "msg_01", "type": "message", "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll search the repository and label the issue."},
            {"type": "tool_use", "id": "toolu_01", "name": "search_code",
             "input": {"data_source_names": "dotnet/eshop", "query": "basket"}},
            {"type": "tool_use", "id": "toolu_02", "name": "label_issue",
             "input": {"number": 42, "labels": "bug, checkout"}}
        ],
        "stop_reason": "tool_use"
    });

    let calls = anthropic::tool_calls(&response);
    let results = toolbox.call_batch(calls).await;
    for result in &results {
        let head = format!("{} {}", result.id, result.name);
        match &result.outcome {
            ToolOutcome::Ran { repairs, .. } if repairs.is_empty() => println!("{head}: ran"),
            ToolOutcome::Ran { repairs, .. } => {
                for repair in repairs {
                    println!("{head}: ran, repaired {} ({})", repair.pointer, repair.rule);
                }
            }
            ToolOutcome::Rejected(error) => println!("{head}: refused: {error}"),
            _ => println!("{head}: did not run"),
        }
    }

    // The next request's messages: the assistant message as it came, then
    // this user message answering every call of the turn.
    let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
    let reply = anthropic::user_message(&messages);
    println!(
        "\nnext user message:\n{}",
        serde_json::to_string_pretty(&reply)?
    );
    Ok(())
}
