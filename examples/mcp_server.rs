//! A stdio MCP server whose tools bind tolerantly: canon's toolbox served
//! through rmcp with one line (`McpServer::new(...)`).
//!
//! Run: `cargo run --example mcp_server --features rmcp` (it speaks MCP on
//! stdin/stdout; repairs and rejections are logged on stderr). A repaired
//! call's result is the tool's output, unaltered, followed by a second text
//! block, the repair note (`Toolbox::repair_notes`); a rejected
//! call, to `repo_stats` (which has an output schema) too, is an error
//! result whose text is canon's feedback. The end-to-end tests in
//! `tests/mcp_e2e/` drive it with the official TypeScript and Python MCP
//! clients.

use canon::mcp::McpServer;
use canon::{tool, Toolbox};
use rmcp::ServiceExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A search hit.
#[derive(Serialize, JsonSchema)]
pub struct Hit {
    /// The repository.
    pub repo: String,
    /// The file.
    pub path: String,
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

/// An issue to open.
#[derive(Deserialize, JsonSchema)]
pub struct IssueDraft {
    /// The title.
    pub title: String,
    /// Labels to put on it.
    pub labels: Vec<String>,
}

/// Open an issue in a repository.
#[tool]
pub fn create_issue(
    /// The repository, like "dotnet/eshop".
    repo: String,
    /// The issue.
    issue: IssueDraft,
) -> String {
    format!(
        "opened {:?} in {repo} with labels [{}]",
        issue.title,
        issue.labels.join(", ")
    )
}

/// What a repository looks like.
#[derive(Serialize, JsonSchema)]
pub struct Stats {
    /// The repository.
    pub repo: String,
    /// Stars.
    pub stars: u32,
    /// Its languages.
    pub languages: Vec<String>,
}

// An object: the tool declares an output schema and answers with
// `structuredContent`.
/// Statistics of a repository.
#[tool]
pub fn repo_stats(
    /// The repository, like "dotnet/eshop".
    repo: String,
) -> Stats {
    let stars = repo.len() as u32 * 100;
    Stats {
        repo,
        stars,
        languages: vec!["C#".into(), "TypeScript".into()],
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(SearchCode)?.add(CreateIssue)?.add(RepoStats)?;
    let server = McpServer::new(toolbox, "canon-demo", env!("CARGO_PKG_VERSION"))?;
    server
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
