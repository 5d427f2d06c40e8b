//! `canon::mcp` in process: a toolbox served as an rmcp handler (results
//! mapped the MCP way), and an rmcp `ToolRouter`'s strict binding made
//! tolerant. The same server is driven by real clients in `tests/mcp_e2e/`.
#![cfg(feature = "rmcp")]

use canon::mcp::{inline_refs, rejection, McpServer, Tolerant, TolerantRouter};
use canon::{tool, Context, JsonTool, ToolCall, Toolbox};
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

/// Count the words.
#[tool]
fn tally(words: Vec<String>) -> Report {
    Report {
        hits: words.len() as u32,
    }
}

/// The caller's tenant, from the call context.
#[derive(Clone)]
struct Tenant(String);

/// Count hits for the caller's tenant.
#[tool]
fn tenant_count(tenant: Context<Tenant>, query: String) -> Report {
    Report {
        hits: (tenant.0 .0.len() + query.len()) as u32,
    }
}

/// Count hits, or rather panic.
#[tool]
fn explode(query: String) -> Report {
    let _ = query;
    panic!("the index is corrupt")
}

fn server() -> McpServer {
    server_with(Toolbox::new())
}

fn server_with(mut toolbox: Toolbox) -> McpServer {
    toolbox.add(SearchCode).unwrap().add(Count).unwrap();
    toolbox
        .add(
            JsonTool::new("broken", "Fails.", json!({"type": "object"}), |_| async {
                Err("the index is offline".to_owned())
            })
            .unwrap(),
        )
        .unwrap();
    toolbox
        .add(Tally)
        .unwrap()
        .add(TenantCount)
        .unwrap()
        .add(Explode)
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
    assert_eq!(
        names,
        [
            "search_code",
            "count",
            "broken",
            "tally",
            "tenant_count",
            "explode"
        ]
    );
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
    assert_eq!(
        missing,
        json!({
            "content": [{"type": "text", "text": "The call to `search_code` was not run. /query: required, expected a string. Fix these and call `search_code` again."}],
            "isError": true
        })
    );

    let failed = wire(&server.call(request("broken", json!({}))).await.unwrap());
    assert_eq!(
        failed,
        json!({
            "content": [{"type": "text", "text": "The tool `broken` failed: the index is offline"}],
            "isError": true
        })
    );

    let unknown = server
        .call(request("serch_code", json!({})))
        .await
        .unwrap_err();
    assert_eq!(unknown.code.0, -32602);
    assert_eq!(unknown.message, "Unknown tool: serch_code");
}

/// MCP requires a result's `structuredContent` to match the tool's output
/// schema when it has one; the TypeScript SDK's `Client.callTool` and the
/// MCP Inspector throw when it does not, and the model never sees the
/// feedback. So an error result is text only, whatever went wrong.
#[tokio::test]
async fn an_error_result_of_a_tool_with_an_output_schema_is_text_only() {
    let server = server();
    for name in ["count", "tenant_count", "explode"] {
        let tool = server.tools().into_iter().find(|t| t.name == name).unwrap();
        assert_eq!(tool.output_schema.unwrap()["type"], "object", "{name}");
    }
    let error = |text: &str| json!({"content": [{"type": "text", "text": text}], "isError": true});

    // A call canon cannot bind.
    let rejected = server.call(request("count", json!({}))).await.unwrap();
    assert_eq!(
        wire(&rejected),
        error("The call to `count` was not run. /query: required, expected a string. Fix these and call `count` again.")
    );
    assert_eq!(rejected.structured_content, None);
    assert_eq!(rejected.is_error, Some(true));
    // A tool whose context the caller did not supply (MCP supplies none).
    let no_context = server
        .call(request("tenant_count", json!({"query": "abc"})))
        .await
        .unwrap();
    assert_eq!(
        wire(&no_context),
        error("The tool `tenant_count` failed: the caller supplied no `Tenant` in the call context, so the tool did not run")
    );
    // A tool that panics.
    let panicked = server
        .call(request("explode", json!({"query": "abc"})))
        .await
        .unwrap();
    assert_eq!(
        wire(&panicked),
        error("The tool `explode` failed unexpectedly.")
    );
    // The same tools still answer with structured content when they run.
    let ran = server
        .call(request("tally", json!({"words": ["a", "b"]})))
        .await
        .unwrap();
    assert_eq!(
        wire(&ran),
        json!({"content": [{"type": "text", "text": "{\"hits\":2}"}], "structuredContent": {"hits": 2}})
    );
}

/// The text of every result is the toolbox's own message for the call, so
/// repair notes are there exactly when the toolbox was built with them.
#[tokio::test]
async fn repair_notes_follow_the_toolbox() {
    let off = server();
    let on = server_with(Toolbox::new().with_repair_notes(true));
    assert!(!off.toolbox().repair_notes());
    assert!(on.toolbox().repair_notes());
    let note = |pointer: &str| {
        format!("(Note: {pointer} was sent as a string and read as a one-element array; send an array.)")
    };

    let near = json!({"data_source_names": "dotnet/eshop", "query": "basket"});
    let plain = off
        .call(request("search_code", near.clone()))
        .await
        .unwrap();
    assert_eq!(
        wire(&plain),
        json!({"content": [{"type": "text", "text": "basket in dotnet/eshop"}]})
    );
    let noted = on.call(request("search_code", near.clone())).await.unwrap();
    assert_eq!(
        wire(&noted),
        json!({"content": [
            {"type": "text", "text": "basket in dotnet/eshop"},
            {"type": "text", "text": note("/data_source_names")}
        ]})
    );
    let direct = on
        .toolbox()
        .call(ToolCall::new("1", "search_code", near))
        .await;
    let message = on.toolbox().message(&direct);
    assert_eq!(noted.content[0].as_text().unwrap().text, message.text);
    assert_eq!(
        noted.content[1].as_text().unwrap().text,
        message.note.unwrap()
    );

    // With an output schema: the output's JSON is the first block, as
    // without a repair, the note a second, and the structured content is
    // the output alone.
    let near = json!({"words": "a"});
    let plain = off.call(request("tally", near.clone())).await.unwrap();
    assert_eq!(
        wire(&plain),
        json!({"content": [{"type": "text", "text": "{\"hits\":1}"}], "structuredContent": {"hits": 1}})
    );
    let noted = on.call(request("tally", near)).await.unwrap();
    assert_eq!(
        wire(&noted),
        json!({
            "content": [
                {"type": "text", "text": "{\"hits\":1}"},
                {"type": "text", "text": note("/words")}
            ],
            "structuredContent": {"hits": 1}
        })
    );

    // An error result has no note to carry, with notes on or off.
    for server in [&off, &on] {
        let rejected = server.call(request("count", json!({}))).await.unwrap();
        assert_eq!(
            wire(&rejected),
            json!({
                "content": [{"type": "text", "text": "The call to `count` was not run. /query: required, expected a string. Fix these and call `count` again."}],
                "isError": true
            })
        );
    }
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
    assert_eq!(
        wire(&rejection(&error)),
        json!({
            "content": [{"type": "text", "text": "The call to `search` was not run. /query: required, expected a string. Fix these and call `search` again."}],
            "isError": true
        })
    );
}

/// The rmcp server again, its calls routed through `Tolerant::call`, as
/// `Tolerant`'s documentation shows.
#[derive(Clone)]
struct Routed {
    tool_router: ToolRouter<Routed>,
    tolerant: std::sync::Arc<Tolerant>,
}

#[rmcp::tool_router]
impl Routed {
    #[rmcp::tool(description = "Search code.")]
    fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
        format!("{} in {}", args.query, args.data_source_names.join(", "))
    }
}

impl rmcp::ServerHandler for Routed {
    fn get_info(&self) -> rmcp::model::InitializeResult {
        rmcp::model::InitializeResult::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_tools()
                .build(),
        )
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let context = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tolerant.call(&self.tool_router, context).await
    }
}

#[derive(Clone)]
struct Client;

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::default()
    }
}

#[tokio::test]
async fn tolerant_routes_the_calls_of_a_running_rmcp_server() {
    use rmcp::ServiceExt;

    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = Routed {
        tool_router: Routed::tool_router(),
        tolerant: std::sync::Arc::new(Tolerant::new()),
    };
    let running = tokio::spawn(async move {
        let service = server.serve(server_io).await.unwrap();
        let _ = service.waiting().await;
    });
    let client = Client.serve(client_io).await.unwrap();
    let call = |arguments: Value| {
        CallToolRequestParams::new("search").with_arguments(arguments.as_object().unwrap().clone())
    };
    let text =
        |result: &CallToolResult| result.content[0].as_text().map(|t| t.text.clone()).unwrap();

    // The near miss runs, repaired before the router's strict binder.
    let near = client
        .call_tool(call(
            json!({"data_source_names": "dotnet/eshop", "query": "q"}),
        ))
        .await
        .unwrap();
    assert_ne!(near.is_error, Some(true));
    assert_eq!(text(&near), "q in dotnet/eshop");
    // A missing parameter gets canon's feedback, with its pointer.
    let missing = client
        .call_tool(call(json!({"data_source_names": ["a"]})))
        .await
        .unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert!(
        text(&missing).contains("/query: required"),
        "{}",
        text(&missing)
    );
    assert_eq!(missing.structured_content, None);
    // An unknown tool is the router's answer.
    let unknown = client.call_tool(CallToolRequestParams::new("serch")).await;
    assert!(unknown.is_err());

    client.cancel().await.unwrap();
    running.await.unwrap();
}

/// An rmcp server written with rmcp's macros, twice: with the router
/// attribute rmcp's way, and switched to canon (the only line that
/// differs).
macro_rules! macro_server {
    ($name:ident, $wrap:path) => {
        #[derive(Clone)]
        struct $name {
            tool_router: ToolRouter<$name>,
        }

        #[rmcp::tool_router]
        impl $name {
            #[rmcp::tool(description = "Search code.")]
            fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
                format!("{} in {}", args.query, args.data_source_names.join(", "))
            }

            #[rmcp::tool(description = "Count the words.")]
            fn words(&self, Parameters(args): Parameters<SearchArgs>) -> String {
                args.query.split_whitespace().count().to_string()
            }
        }

        #[rmcp::tool_handler(router = $wrap(self.tool_router.clone()))]
        impl rmcp::ServerHandler for $name {}
    };
}

fn as_rmcp_has_it<S>(router: ToolRouter<S>) -> ToolRouter<S> {
    router
}

macro_server!(Unadopted, as_rmcp_has_it);
macro_server!(Adopted, TolerantRouter::new);

#[tokio::test]
async fn a_tool_handler_server_adopts_tolerant_router() {
    use rmcp::ServiceExt;

    let router = TolerantRouter::new(Adopted::tool_router());
    assert_eq!(router.list_all(), Adopted::tool_router().list_all());
    assert_eq!(router.get("search"), Adopted::tool_router().get("search"));
    assert!(router.get("serch").is_none());

    async fn serve<S: rmcp::ServerHandler>(
        server: S,
    ) -> rmcp::service::RunningService<rmcp::RoleClient, Client> {
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            let service = server.serve(server_io).await.unwrap();
            let _ = service.waiting().await;
        });
        Client.serve(client_io).await.unwrap()
    }
    let adopted = serve(Adopted {
        tool_router: Adopted::tool_router(),
    })
    .await;
    let strict = serve(Unadopted {
        tool_router: Unadopted::tool_router(),
    })
    .await;

    // tools/list is unchanged.
    let listed = adopted.list_all_tools().await.unwrap();
    assert_eq!(listed, strict.list_all_tools().await.unwrap());
    assert_eq!(listed.len(), 2);

    let call = |arguments: Value| {
        CallToolRequestParams::new("search").with_arguments(arguments.as_object().unwrap().clone())
    };
    let text =
        |result: &CallToolResult| result.content[0].as_text().map(|t| t.text.clone()).unwrap();
    let near = json!({"data_source_names": "dotnet/eshop", "query": "q"});
    // rmcp alone refuses the near miss; the adopted server runs it.
    let refused = strict.call_tool(call(near.clone())).await;
    assert!(
        refused.as_ref().is_err() || refused.as_ref().unwrap().is_error == Some(true),
        "{refused:?}"
    );
    let bound = adopted.call_tool(call(near.clone())).await.unwrap();
    assert_ne!(bound.is_error, Some(true));
    assert_eq!(text(&bound), "q in dotnet/eshop");
    // Many calls, one compilation each: the cache answers the same.
    for _ in 0..3 {
        let again = adopted.call_tool(call(near.clone())).await.unwrap();
        assert_eq!(again, bound);
    }
    // Every other bad call gets canon's feedback as an error result.
    let missing = adopted
        .call_tool(call(json!({"data_source_names": ["a"]})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&missing).unwrap(),
        json!({
            "content": [{"type": "text", "text": "The call to `search` was not run. /query: required, expected a string. Fix these and call `search` again."}],
            "isError": true
        })
    );
    // An unknown tool is still the router's answer.
    assert!(adopted
        .call_tool(CallToolRequestParams::new("serch"))
        .await
        .is_err());

    adopted.cancel().await.unwrap();
    strict.cancel().await.unwrap();
}

/// A nested struct and a recursive one, for the inlining.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Draft {
    /// The title.
    title: String,
    labels: Vec<String>,
}

/// Open an issue.
#[tool]
fn open_issue(repo: String, issue: Draft, related: Option<Draft>) -> String {
    let _ = (related, issue.labels);
    format!("{repo}: {}", issue.title)
}

fn contains_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key(key) || object.values().any(|v| contains_key(v, key))
        }
        Value::Array(items) => items.iter().any(|v| contains_key(v, key)),
        _ => false,
    }
}

#[tokio::test]
async fn inlined_schemas_have_no_refs() {
    let mut toolbox = Toolbox::new();
    toolbox.add(OpenIssue).unwrap();
    let plain = McpServer::new(toolbox, "test", "0.0.0").unwrap();
    let declared = serde_json::to_value(plain.tools()).unwrap();
    assert!(contains_key(&declared, "$ref"), "{declared:#}");
    let inlined = plain.clone().with_inlined_refs(true).unwrap();
    let schemas = serde_json::to_value(inlined.tools()).unwrap();
    assert!(!contains_key(&schemas, "$ref"), "{schemas:#}");
    assert!(!contains_key(&schemas, "$defs"), "{schemas:#}");
    let issue = &inlined.tools()[0].input_schema["properties"]["issue"];
    assert_eq!(issue["properties"]["title"]["type"], "string");
    assert_eq!(issue["required"], json!(["title", "labels"]));
    // Off again: the export's schemas.
    assert_eq!(
        plain
            .clone()
            .with_inlined_refs(true)
            .unwrap()
            .with_inlined_refs(false)
            .unwrap()
            .tools(),
        plain.tools()
    );
    // Calls bind the same: a near miss, nested.
    let result = inlined
        .call(request(
            "open_issue",
            json!({"repo": "r", "issue": {"title": "t", "labels": "bug"}}),
        ))
        .await
        .unwrap();
    assert_eq!(wire(&result)["content"][0]["text"], "r: t");

    // Siblings of a `$ref`: annotations merge, constraints stay beside.
    let tool: rmcp::model::Tool = serde_json::from_value(json!({
        "name": "t",
        "inputSchema": {
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/S", "description": "A."},
                "b": {"$ref": "#/$defs/S", "maxLength": 3},
                "c": {"$ref": "#/definitions/x~1y"}
            },
            "$defs": {"S": {"type": "string", "minLength": 1}},
            "definitions": {"x/y": {"type": "integer"}}
        }
    }))
    .unwrap();
    let inlined = inline_refs(&tool).unwrap();
    assert_eq!(
        Value::Object(inlined.input_schema.as_ref().clone()),
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "minLength": 1, "description": "A."},
                "b": {"type": "string", "minLength": 1, "maxLength": 3},
                "c": {"type": "integer"}
            }
        })
    );
}

/// A recursive type.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Walk a tree.
#[tool]
fn walk(root: Node) -> String {
    root.name
}

#[test]
fn a_recursive_type_cannot_be_inlined() {
    let mut toolbox = Toolbox::new();
    toolbox.add(Walk).unwrap();
    let server = McpServer::new(toolbox, "test", "0.0.0").unwrap();
    let error = server.with_inlined_refs(true).unwrap_err();
    assert_eq!(error.tool, "walk");
    assert_eq!(
        error.pointer,
        "/properties/root/properties/children/items/$ref"
    );
    assert_eq!(
        error.to_string(),
        "the tool `walk` cannot be declared for mcp at /properties/root/properties/children/items/$ref: in its input schema, `#/$defs/Node` refers to itself (a recursive type), so it cannot be inlined"
    );

    let bad = |schema: Value| {
        let tool: rmcp::model::Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": schema})).unwrap();
        inline_refs(&tool).unwrap_err()
    };
    let remote = bad(json!({"type": "object", "properties": {"a": {"$ref": "https://x/s.json"}}}));
    assert_eq!(remote.pointer, "/properties/a/$ref");
    assert!(remote.reason.contains("not a local reference"), "{remote}");
    let dangling = bad(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nope"}}}));
    assert!(dangling.reason.contains("points nowhere"), "{dangling}");
    let root = bad(json!({"$ref": "#"}));
    assert_eq!(root.pointer, "/$ref");
}
