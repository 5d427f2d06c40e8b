//! canon in one page: declare tools, publish their exact schema, bind a
//! model's near miss, and tell the model exactly what to fix when a call
//! cannot be bound.
//!
//! Run: `cargo run --example quickstart`

use canon::{tool, Tool};
use serde::Serialize;
use serde_json::json;

/// One search result.
#[derive(Debug, Serialize)]
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
    /// At most this many hits.
    limit: Option<u32>,
) -> Vec<Hit> {
    data_source_names
        .into_iter()
        .take(limit.unwrap_or(10) as usize)
        .map(|repo| Hit {
            path: format!("src/{query}.cs"),
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
    if number == 0 {
        return Err("issue numbers start at 1".into());
    }
    Ok(format!("#{number}: added {}", labels.join(", ")))
}

fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("JSON values serialize")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    println!("== The schema published to the model (exact: array of strings, no unions)");
    println!("{}: {}", SearchCode.name(), SearchCode.description());
    println!("{}\n", pretty(SearchCode.input_schema()));

    println!("== A small model's near miss, from a production trace");
    let near_miss = r#"{"data_source_names": "dotnet/eshop", "query": "basket"}"#;
    println!("arguments: {near_miss}");
    let strict = serde_json::from_str::<SearchCodeArgs>(near_miss).err();
    println!(
        "a strict binder: {}",
        strict.map_or("accepted".into(), |e| e.to_string())
    );
    let bound = SearchCode.bind_str(near_miss).expect("the near miss binds");
    println!(
        "canon bound data_source_names = {:?}",
        bound.args.data_source_names
    );
    for repair in &bound.repairs {
        println!("canon repaired {} ({})", repair.pointer, repair.rule);
    }
    let output = SearchCode
        .call(serde_json::from_str(near_miss).expect("valid JSON"))
        .await
        .expect("the tool runs");
    println!("the tool ran: {output}\n");

    println!("== Calls canon will not guess at");
    let broken = json!({"data_source_names": "[\"dotnet/eshop\"]", "limt": "ten"});
    println!("arguments: {broken}");
    let error = SearchCode.bind(&broken).expect_err("rejected");
    println!("feedback for the model:\n{error}\n");
    println!("the same, as JSON:\n{}\n", pretty(&error.to_json()));

    println!("== A second tool: async, with its own errors");
    let labelled = LabelIssue
        .call(json!({"number": 42, "labels": "needs-triage"}))
        .await
        .expect("the tool runs");
    println!("label_issue repaired and ran: {labelled}");
    match LabelIssue
        .call(json!({"number": 0, "labels": ["bug"]}))
        .await
    {
        Ok(out) => println!("unexpected success: {out}"),
        Err(e) => println!("label_issue failed on its own terms: {e}"),
    }
}
