//! `canon::mcp` in process: a toolbox served as an rmcp handler (results
//! mapped the MCP way), and an rmcp `ToolRouter`'s strict binding made
//! tolerant. The same server is driven by real clients in `tests/mcp_e2e/`.
#![cfg(feature = "rmcp")]

use canon::mcp::{rejection, McpServer, Tolerant};
use canon::{tool, JsonTool, Toolbox};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::parse_json_object;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use serde_json::{json, Value};

/// Search code in the given data sources.
#[tool]
fn search_code(data_source_names: Vec<String>, query: String) -> String {
    format!("{query} in {}", data_source_names.join(", "))
}

/// A report.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Report {
    hits: u32,
}

/// Count hits.
#[tool]
fn count(query: String) -> Report {
    Report {
        hits: query.len() as u32,
    }
}

fn server() -> McpServer {
    let mut toolbox = Toolbox::new();
    toolbox.add(SearchCode).unwrap().add(Count).unwrap();
    toolbox
        .add(JsonTool::new(
            "broken",
            "Fails.",
            json!({"type": "object"}),
            |_| async { Err("the index is offline".to_owned()) },
        ))
        .unwrap();
    McpServer::new(toolbox, "test", "0.0.0").unwrap()
}

fn request(name: &str, arguments: Value) -> CallToolRequestParams {
    serde_json::from_value(json!({"name": name, "arguments": arguments})).unwrap()
}

fn wire(result: &CallToolResult) -> Value {
    serde_json::to_value(result).unwrap()
}

#[tokio::test]
async fn a_toolbox_is_served_the_mcp_way() {
    let server = server();
    let names: Vec<String> = server.tools().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["search_code", "count", "broken"]);
    assert!(server.tools()[1].output_schema.is_some());

    let exact = server
        .call(request(
            "search_code",
            json!({"data_source_names": ["dotnet/eshop"], "query": "basket"}),
        ))
        .await
        .unwrap();
    let near = server
        .call(request(
            "search_code",
            json!({"data_source_names": "dotnet/eshop", "query": "basket"}),
        ))
        .await
        .unwrap();
    assert_eq!(near, exact);
    assert_eq!(
        wire(&near)["content"],
        json!([{"type": "text", "text": "basket in dotnet/eshop"}])
    );
    assert!(wire(&near).get("isError").is_none());

    let structured = server
        .call(request("count", json!({"query": "abc"})))
        .await
        .unwrap();
    assert_eq!(wire(&structured)["structuredContent"], json!({"hits": 3}));

    let missing = wire(
        &server
            .call(request("search_code", json!({"data_source_names": []})))
            .await
            .unwrap(),
    );
    assert_eq!(missing["isError"], true);
    assert_eq!(
        missing["content"][0]["text"],
        "The call to `search_code` was not run. /query: required, expected a string. Fix these and call `search_code` again."
    );
    assert_eq!(
        missing["structuredContent"]["violations"][0]["pointer"],
        "/query"
    );

    let failed = wire(&server.call(request("broken", json!({}))).await.unwrap());
    assert_eq!(failed["isError"], true);
    assert_eq!(
        failed["content"][0]["text"],
        "The tool `broken` failed: the index is offline"
    );

    let unknown = server
        .call(request("serch_code", json!({})))
        .await
        .unwrap_err();
    assert_eq!(unknown.code.0, -32602);
    assert_eq!(unknown.message, "Unknown tool: serch_code");
}

/// An rmcp server written the rmcp way, with its own strict `Parameters`.
struct Strict;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    data_source_names: Vec<String>,
    query: String,
}

#[rmcp::tool_router]
impl Strict {
    #[rmcp::tool(description = "Search code.")]
    fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
        format!("{} in {}", args.query, args.data_source_names.join(", "))
    }
}

#[test]
fn a_tool_router_binds_tolerantly() {
    let router: ToolRouter<Strict> = Strict::tool_router();
    let tool = router.get("search").unwrap();
    let near: JsonObject =
        serde_json::from_value(json!({"data_source_names": "dotnet/eshop", "query": "q"})).unwrap();
    // rmcp alone refuses the near miss ...
    let strict = parse_json_object::<SearchArgs>(near.clone()).err().unwrap();
    assert!(strict.message.starts_with("failed to deserialize parameters: invalid type: string \"dotnet/eshop\", expected a sequence"));
    // ... canon repairs the arguments against the tool's own schema first.
    let tolerant = Tolerant::new();
    let mut arguments = Some(near);
    let repairs = tolerant.repair(tool, &mut arguments).unwrap();
    assert_eq!(repairs[0].pointer, "/data_source_names");
    let args: SearchArgs = parse_json_object(arguments.unwrap()).unwrap();
    assert_eq!(args.data_source_names, ["dotnet/eshop"]);
    // What no rule may touch gets canon's feedback instead of rmcp's error.
    let mut arguments = Some(serde_json::from_value(json!({"data_source_names": ["a"]})).unwrap());
    let error = tolerant.repair(tool, &mut arguments).unwrap_err();
    assert_eq!(error.pointers(), ["/query"]);
    let result = wire(&rejection(&error));
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["structuredContent"]["violations"][0]["pointer"],
        "/query"
    );
}
