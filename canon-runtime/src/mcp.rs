//! Serving canon tools over MCP with `rmcp` (feature `rmcp`).
//!
//! [`McpServer`] serves a [`Toolbox`] as an rmcp `ServerHandler`:
//! `tools/list` is the toolbox's MCP export, `tools/call` goes through the
//! toolbox, so near misses bind and every other call gets canon's feedback.
//! [`Tolerant`] makes the tools of an existing rmcp `ToolRouter` bind the
//! same way, without touching their code.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, InitializeResult,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

use crate::bind::canonical::Canonicalizer;
use crate::bind::policy::Policy;
use crate::export::{Dialect, ExportError};
use crate::feedback::BindError;
use crate::repair::Repair;
use crate::toolbox::{ToolCall, ToolOutcome, Toolbox};

/// A [`Toolbox`] served over MCP.
///
/// ```
/// use canon_runtime::mcp::McpServer;
/// use canon_runtime::{JsonTool, Toolbox};
/// use serde_json::json;
///
/// let mut toolbox = Toolbox::new();
/// toolbox
///     .add(JsonTool::new("echo", "Echo.", json!({"type": "object"}), |args| async move { Ok(args) }).unwrap())
///     .unwrap();
/// let server = McpServer::new(toolbox, "my-tools", "1.0.0").unwrap();
/// assert_eq!(server.tools()[0].name, "echo");
/// // Then, with rmcp's `transport-io` feature:
/// // server.serve(rmcp::transport::stdio()).await?.waiting().await?;
/// ```
///
/// To merge canon's tools into a server with other handlers, call
/// [`tools`](McpServer::tools) and [`call`](McpServer::call) from your own
/// `ServerHandler`.
#[derive(Clone)]
pub struct McpServer {
    toolbox: Arc<Toolbox>,
    tools: Arc<Vec<Tool>>,
    /// Tools whose output is an object, sent as `structuredContent`.
    structured: Arc<HashSet<String>>,
    info: Implementation,
}

impl McpServer {
    /// Serves `toolbox` under the server name and version given.
    ///
    /// # Errors
    /// An [`ExportError`] for a tool MCP cannot declare (a name MCP does not
    /// allow, an input schema that is not an object).
    pub fn new(
        toolbox: Toolbox,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Result<McpServer, ExportError> {
        let export = toolbox.export(Dialect::Mcp)?;
        let entries = match export.get("tools") {
            Some(Value::Array(entries)) => entries.as_slice(),
            _ => &[],
        };
        let tools = entries
            .iter()
            .map(|entry| {
                serde_json::from_value::<Tool>(entry.clone()).map_err(|e| ExportError {
                    tool: entry["name"].as_str().unwrap_or_default().to_owned(),
                    dialect: Dialect::Mcp,
                    pointer: String::new(),
                    reason: format!("rmcp cannot read its declaration: {e}"),
                })
            })
            .collect::<Result<Vec<Tool>, ExportError>>()?;
        let structured = tools
            .iter()
            .filter(|t| t.output_schema.is_some())
            .map(|t| t.name.to_string())
            .collect();
        Ok(McpServer {
            toolbox: Arc::new(toolbox),
            tools: Arc::new(tools),
            structured: Arc::new(structured),
            info: Implementation::new(name, version),
        })
    }

    /// The tools, as `tools/list` lists them.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.as_ref().clone()
    }

    /// The toolbox served.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Answers a `tools/call`. The text content is the toolbox's message
    /// for the call ([`Toolbox::message`]), so it ends with a repair note
    /// when the toolbox was built with [`with_repair_notes(true)`]; a tool whose
    /// output is an object also gets its output as `structuredContent`.
    /// Every other outcome (a call canon cannot bind, a tool that failed,
    /// panicked, timed out or lacked its context) is a result with `isError: true`
    /// whose only content is canon's feedback as text: no
    /// `structuredContent`, which would have to match the tool's output
    /// schema.
    ///
    /// [`with_repair_notes(true)`]: Toolbox::with_repair_notes
    ///
    /// # Errors
    /// The protocol error for an unknown tool (`-32602`).
    pub async fn call(&self, request: CallToolRequestParams) -> Result<CallToolResult, ErrorData> {
        let name = request.name.to_string();
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let result = self
            .toolbox
            .call(ToolCall::new("mcp", name, arguments))
            .await;
        if let ToolOutcome::NoSuchTool { name, .. } = &result.outcome {
            return Err(ErrorData::invalid_params(
                crate::feedback::messages::mcp_unknown_tool(name),
                None,
            ));
        }
        let message = self.toolbox.message(&result);
        Ok(match result.outcome {
            ToolOutcome::Ran { output, .. } => {
                let structured = self.structured.contains(&result.name).then_some(output);
                success(message.text, structured)
            }
            _ => error_result(message.text),
        })
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("server", &self.info.name)
            .field("toolbox", &self.toolbox)
            .finish()
    }
}

/// A successful `CallToolResult`: the text, and the structured content when
/// the tool declares an output schema (built through its serde form, which
/// is the protocol's and stays stable across rmcp's constructors).
fn success(text: String, structured: Option<Value>) -> CallToolResult {
    let mut result = json!({"content": [{"type": "text", "text": text}]});
    if let Some(structured) = structured {
        result["structuredContent"] = structured;
    }
    from_wire(result)
}

/// An error result: `isError: true` and the text, nothing else. MCP
/// requires `structuredContent` to conform to the tool's output schema
/// when there is one, which canon's feedback cannot; clients that check it
/// (the TypeScript SDK's `Client.callTool`, the MCP Inspector) would throw
/// instead of showing the model the feedback.
fn error_result(text: String) -> CallToolResult {
    from_wire(json!({"content": [{"type": "text", "text": text}], "isError": true}))
}

fn from_wire(result: Value) -> CallToolResult {
    serde_json::from_value(result).unwrap_or_else(|_| CallToolResult::success(Vec::new()))
}

/// The MCP result of a call canon cannot bind: `isError: true` and canon's
/// model-facing text (every violation, with its pointer), as text content
/// only, so that it never fails the tool's output schema.
pub fn rejection(error: &BindError) -> CallToolResult {
    error_result(error.to_string())
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.info.clone())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        serde_json::from_value(json!({ "tools": self.tools.as_ref() }))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request).await.map(Into::into)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }
}

/// Tolerant binding for the tools of an rmcp `ToolRouter`: each call's
/// arguments are canonicalized against the tool's own input schema before
/// the router binds them with its `Parameters<T>`.
///
/// rmcp's routes bind with `serde_json::from_value` inside closures canon
/// cannot reach, so canon works one step earlier, on the arguments: it
/// repairs them (and records the repairs through `tracing`), or answers
/// with its feedback before the tool's binder would have refused.
///
/// ```
/// use canon::mcp::Tolerant;
/// use rmcp::handler::server::router::tool::ToolRouter;
/// use rmcp::handler::server::tool::ToolCallContext;
/// use rmcp::model::{CallToolRequestParams, CallToolResponse, InitializeResult, ServerCapabilities};
/// use rmcp::service::RequestContext;
/// use rmcp::{ErrorData, RoleServer, ServerHandler};
///
/// struct Server {
///     /// Made by `#[rmcp::tool_router]` on the server's tools.
///     tool_router: ToolRouter<Server>,
///     tolerant: Tolerant,
/// }
///
/// impl ServerHandler for Server {
///     fn get_info(&self) -> InitializeResult {
///         InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
///     }
///
///     async fn call_tool(
///         &self,
///         request: CallToolRequestParams,
///         context: RequestContext<RoleServer>,
///     ) -> Result<CallToolResponse, ErrorData> {
///         let context = ToolCallContext::new(self, request, context);
///         self.tolerant.call(&self.tool_router, context).await
///     }
/// }
/// ```
///
/// `tests/mcp.rs` runs such a server and calls it through rmcp's client.
#[derive(Debug, Default)]
pub struct Tolerant {
    policy: Policy,
    compiled: Mutex<HashMap<String, Option<Arc<Canonicalizer>>>>,
}

impl Tolerant {
    /// Tolerance with the default policy (the core rule).
    pub fn new() -> Tolerant {
        Tolerant::default()
    }

    /// Tolerance with the rules of `policy`.
    pub fn with_policy(policy: Policy) -> Tolerant {
        Tolerant {
            policy,
            ..Tolerant::default()
        }
    }

    /// Canonicalizes `arguments` for `tool` in place and returns the
    /// repairs. A tool whose schema canon cannot compile is left alone.
    ///
    /// # Errors
    /// A [`BindError`] with every violation when the call cannot be bound;
    /// [`rejection`] turns it into the result to send instead of calling
    /// the tool.
    pub fn repair(
        &self,
        tool: &Tool,
        arguments: &mut Option<JsonObject>,
    ) -> Result<Vec<Repair>, BindError> {
        let Some(canonicalizer) = self.canonicalizer(tool) else {
            return Ok(Vec::new());
        };
        let mut value = Value::Object(arguments.take().unwrap_or_default());
        let outcome = canonicalizer.canonicalize(&mut value);
        if let Value::Object(object) = value {
            *arguments = Some(object);
        }
        outcome
    }

    /// Routes a call through `router` after canonicalizing its arguments.
    ///
    /// # Errors
    /// What the router answers (`tool not found` for an unknown tool).
    pub async fn call<S: Send + Sync + 'static>(
        &self,
        router: &ToolRouter<S>,
        mut context: ToolCallContext<'_, S>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(tool) = router.get(context.name()) {
            if let Err(error) = self.repair(tool, &mut context.arguments) {
                return Ok(rejection(&error).into());
            }
        }
        router.call(context).await
    }

    fn canonicalizer(&self, tool: &Tool) -> Option<Arc<Canonicalizer>> {
        let mut compiled = self.compiled.lock().ok()?;
        compiled
            .entry(tool.name.to_string())
            .or_insert_with(|| {
                Canonicalizer::options()
                    .tool(tool.name.to_string())
                    .policy(self.policy)
                    .compile(&Value::Object(tool.input_schema.as_ref().clone()))
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }
}
