//! One turn of Gemini's `generateContent`, offline: the `functionCall` parts
//! of a recorded response (without ids, as Gemini often sends them) are run
//! by a toolbox (one near miss repaired, one call refused), and the results
//! are printed as the `functionResponse` parts of the next request's user
//! content.
//!
//! Run: `cargo run --example gemini --features gemini`

use canon::toolbox::ToolOutcome;
use canon::{gemini, tool, Toolbox};
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
    // The request's `tools` would be `gemini::tools(&toolbox)?`.

    // A recorded response with two calls and no ids.
    let response = json!({
        "candidates": [{
            "content": {"role": "model", "parts": [
                {"functionCall": {"name": "search_code",
                                  "args": {"data_source_names": "dotnet/eshop", "query": "basket"}}},
                {"functionCall": {"name": "label_issue",
                                  "args": {"number": "42", "labels": ["bug"]}}}
            ]},
            "finishReason": "STOP"
        }]
    });

    // Each call gets an id made up by canon (`canon:call:N`), which keeps
    // its result with it through the batch.
    let calls = gemini::tool_calls(&response);
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

    // The next request's contents: the model's content as it came, then
    // this one. Made-up ids are left out: Gemini matches each
    // `functionResponse` to its call by name and order.
    let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
    let reply = gemini::user_content(&messages);
    println!(
        "\nnext user content:\n{}",
        serde_json::to_string_pretty(&reply)?
    );
    Ok(())
}
