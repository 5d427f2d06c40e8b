//! An rmcp server written the usual rmcp way (`#[tool_router]`, `#[tool]`
//! methods taking `Parameters<T>`, `#[tool_handler]`), made tolerant by
//! changing one line: its `#[tool_handler(router = ...)]` attribute.
//!
//! Its tools, their schemas and `tools/list` stay rmcp's own. A string sent
//! where a tool's schema says array of strings is bound as a one-element
//! array before `Parameters<T>` sees it (rmcp alone answers "failed to
//! deserialize parameters"); any other bad call is answered with canon's
//! feedback as an `isError` result, and the tool does not run.
//!
//! Run: `cargo run --example tolerant_router --features rmcp` (it speaks MCP
//! on stdin/stdout; repairs and rejections are logged on stderr). The
//! end-to-end tests in `tests/mcp_e2e/` drive it with the official
//! TypeScript and Python MCP clients.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// Repositories to search, like "dotnet/eshop".
    data_source_names: Vec<String>,
    /// What to look for.
    query: String,
}

#[derive(Deserialize, JsonSchema)]
struct StarArgs {
    /// The repository, like "dotnet/eshop".
    repo: String,
}

#[derive(Clone)]
struct CodeSearch {
    tool_router: ToolRouter<CodeSearch>,
}

#[tool_router]
impl CodeSearch {
    /// Search code in the given data sources.
    #[tool]
    fn search_code(&self, Parameters(args): Parameters<SearchArgs>) -> String {
        let hits: Vec<String> = args
            .data_source_names
            .iter()
            .map(|repo| format!("{repo}: src/{}.cs", args.query))
            .collect();
        hits.join("\n")
    }

    /// Star a repository.
    #[tool]
    fn star(&self, Parameters(args): Parameters<StarArgs>) -> String {
        format!("starred {}", args.repo)
    }
}

// The one line changed to adopt canon; it was
// `#[tool_handler(router = self.tool_router)]`.
#[tool_handler(router = canon::mcp::TolerantRouter::new(self.tool_router.clone()))]
impl ServerHandler for CodeSearch {
    fn get_info(&self) -> ServerConfig {
        let server = Implementation::new("tolerant-router-demo", env!("CARGO_PKG_VERSION"));
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(server)
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let server = CodeSearch {
        tool_router: CodeSearch::tool_router(),
    };
    server
        .serve(rmcp::transport::stdio())
        .await?
        .waiting()
        .await?;
    Ok(())
}
