//! Serving canon tools over MCP with `rmcp` (feature `rmcp`).
//!
//! [`McpServer`] serves a [`Toolbox`] as an rmcp `ServerHandler`:
//! `tools/list` is the toolbox's MCP export, `tools/call` goes through the
//! toolbox, so near misses bind and every other call gets canon's feedback.
//! [`TolerantRouter`] makes the tools of an existing rmcp server (its
//! `#[tool_router]` and `#[tool_handler]`) bind the same way by changing one
//! attribute; [`Tolerant`] is the same binding for a `call_tool` written by
//! hand.
//!
//! [`McpServer::with_inlined_refs`] and [`inline_refs`] declare schemas
//! without `$ref`/`$defs`, for MCP clients that cannot resolve them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, Weak};

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
use crate::toolbox::{ToolCall, ToolMessage, ToolOutcome, Toolbox};

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
    /// The tools as the MCP export declares them.
    declared: Arc<Vec<Tool>>,
    /// The tools as `tools/list` lists them (`declared`, or its schemas
    /// inlined).
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
        let tools = Arc::new(tools);
        Ok(McpServer {
            toolbox: Arc::new(toolbox),
            declared: Arc::clone(&tools),
            tools,
            structured: Arc::new(structured),
            info: Implementation::new(name, version),
        })
    }

    /// The tools, as `tools/list` lists them.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.as_ref().clone()
    }

    /// With `true`, `tools/list` declares every schema (input and output)
    /// with each local `$ref` replaced by what it points to and no
    /// `$defs`, for MCP clients that cannot resolve references; with
    /// `false` (the default), the schemas are the MCP export's. Calls bind
    /// the same either way. See [`inline_refs`].
    ///
    /// ```
    /// use canon::mcp::McpServer;
    /// use canon::{JsonTool, Toolbox};
    /// use serde_json::json;
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"issue": {"$ref": "#/$defs/Issue"}},
    ///     "$defs": {"Issue": {"type": "object", "properties": {"title": {"type": "string"}}}}
    /// });
    /// let mut toolbox = Toolbox::new();
    /// toolbox
    ///     .add(JsonTool::new("open", "Open an issue.", schema, |args| async move { Ok(args) }).unwrap())
    ///     .unwrap();
    /// let server = McpServer::new(toolbox, "my-tools", "1.0.0")
    ///     .unwrap()
    ///     .with_inlined_refs(true)
    ///     .unwrap();
    /// let schema = &server.tools()[0].input_schema;
    /// assert_eq!(schema["properties"]["issue"]["properties"]["title"], json!({"type": "string"}));
    /// assert!(schema.get("$defs").is_none());
    /// ```
    ///
    /// # Errors
    /// An [`ExportError`] naming the tool and the pointer of a `$ref` that
    /// cannot be inlined: a recursive type (its schema would be infinite),
    /// a reference that is not local or points nowhere.
    pub fn with_inlined_refs(mut self, inline: bool) -> Result<McpServer, ExportError> {
        self.tools = if inline {
            Arc::new(
                self.declared
                    .iter()
                    .map(inline_refs)
                    .collect::<Result<Vec<Tool>, ExportError>>()?,
            )
        } else {
            Arc::clone(&self.declared)
        };
        Ok(self)
    }

    /// The toolbox served.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Answers a `tools/call`. The first text content block is the tool's
    /// output, exactly as [`Toolbox::message`] renders it (a string as
    /// returned, any other value as JSON); canon's note, when there is one
    /// (a repair note, with [`with_repair_notes(true)`], or a truncation
    /// marker), is a second text block, never appended to the output. A
    /// tool whose output is an object also gets its output as
    /// `structuredContent`, unchanged.
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
                success(&message, structured)
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

/// A successful `CallToolResult`: the output as the first text block, the
/// note (if any) as a second, and the structured content when the tool
/// declares an output schema (built through its serde form, which is the
/// protocol's and stays stable across rmcp's constructors).
fn success(message: &ToolMessage, structured: Option<Value>) -> CallToolResult {
    let content: Vec<Value> = message
        .blocks()
        .map(|text| json!({"type": "text", "text": text}))
        .collect();
    let mut result = json!({ "content": content });
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
/// A server with one tool (its router written out as `#[tool_router]`
/// generates it), whose `call_tool` goes through `Tolerant`; the call is
/// driven here through the router, without a transport:
///
/// ```
/// use canon::mcp::{rejection, Tolerant};
/// use rmcp::handler::server::tool::{parse_json_object, schema_for_type, ToolCallContext, ToolRouter};
/// use rmcp::handler::server::wrapper::Parameters;
/// use rmcp::model::{CallToolRequestParams, CallToolResponse, InitializeResult, JsonObject, ServerCapabilities, Tool};
/// use rmcp::service::RequestContext;
/// use rmcp::{ErrorData, RoleServer, ServerHandler};
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct SearchArgs {
///     data_source_names: Vec<String>,
///     query: String,
/// }
///
/// struct Server {
///     tool_router: ToolRouter<Server>,
///     tolerant: Tolerant,
/// }
///
/// impl Server {
///     fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
///         format!("{} in {}", args.query, args.data_source_names.join(", "))
///     }
///
///     /// What `#[tool_router]` generates.
///     fn tool_router() -> ToolRouter<Server> {
///         let tool = Tool::new("search", "Search code.", schema_for_type::<SearchArgs>());
///         ToolRouter::new().with_route((tool, Server::search))
///     }
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
///
/// let server = Server { tool_router: Server::tool_router(), tolerant: Tolerant::new() };
/// let tool = server.tool_router.get("search").unwrap();
/// // The near miss binds ...
/// let mut arguments: Option<JsonObject> =
///     Some(serde_json::from_value(json!({"data_source_names": "dotnet/eshop", "query": "q"})).unwrap());
/// server.tolerant.repair(tool, &mut arguments).unwrap();
/// let args: SearchArgs = parse_json_object(arguments.unwrap()).unwrap();
/// assert_eq!(server.search(Parameters(args)), "q in dotnet/eshop");
/// // ... and a call missing `query` gets canon's feedback.
/// let mut arguments = Some(serde_json::from_value(json!({"data_source_names": ["a"]})).unwrap());
/// let error = server.tolerant.repair(tool, &mut arguments).unwrap_err();
/// assert_eq!(rejection(&error).is_error, Some(true));
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
        // A panic elsewhere while the lock was held inserted nothing: the
        // cache is whole, and every call is still checked.
        let mut compiled = self
            .compiled
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
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

/// An rmcp `ToolRouter` whose calls bind tolerantly: what
/// `#[tool_handler(router = ...)]` takes, so that an existing rmcp server
/// adopts canon by changing that one attribute.
///
/// `call` canonicalizes each call's arguments against the tool's own input
/// schema (a string where the schema has an array of strings becomes a
/// one-element array, and so on), then routes the call to the tool, whose
/// `Parameters<T>` bind as before; a call no rule may repair is answered
/// with canon's feedback as an `isError: true` result ([`rejection`]),
/// and the tool does not run. `list_all` and `get` are the router's own:
/// `tools/list` is unchanged. Each tool's schema is compiled once, on its
/// first call, and kept for as long as the router's schema lives (the cache
/// is shared by every `TolerantRouter`, so building one per request, as
/// the attribute below does, costs a clone of the router and no
/// compilation).
///
/// In an rmcp server written with its macros, the one change is the
/// `router` of `#[tool_handler]`:
///
/// ```
/// use canon::mcp::TolerantRouter;
/// use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
/// use rmcp::{tool, tool_handler, tool_router, ServerHandler};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct SearchArgs {
///     data_source_names: Vec<String>,
///     query: String,
/// }
///
/// #[derive(Clone)]
/// struct Server {
///     tool_router: ToolRouter<Server>,
/// }
///
/// #[tool_router]
/// impl Server {
///     #[tool(description = "Search code.")]
///     fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
///         format!("{} in {}", args.query, args.data_source_names.join(", "))
///     }
/// }
///
/// // Was `#[tool_handler]` (or `router = self.tool_router`).
/// #[tool_handler(router = TolerantRouter::new(self.tool_router.clone()))]
/// impl ServerHandler for Server {}
///
/// let server = Server { tool_router: Server::tool_router() };
/// // The server's own tools, listed as before.
/// assert_eq!(TolerantRouter::new(server.tool_router.clone()).list_all().len(), 1);
/// ```
///
/// The router below is the one `#[tool_router]` generates for a tool
/// `search` taking `Parameters<SearchArgs>`:
///
/// ```
/// use canon::mcp::TolerantRouter;
/// use rmcp::handler::server::tool::{parse_json_object, schema_for_type, ToolRouter};
/// use rmcp::handler::server::wrapper::Parameters;
/// use rmcp::model::{JsonObject, Tool};
/// use serde_json::json;
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct SearchArgs {
///     data_source_names: Vec<String>,
///     query: String,
/// }
///
/// struct Server;
///
/// impl Server {
///     fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
///         format!("{} in {}", args.query, args.data_source_names.join(", "))
///     }
///
///     fn tool_router() -> ToolRouter<Server> {
///         let tool = Tool::new("search", "Search code.", schema_for_type::<SearchArgs>());
///         ToolRouter::new().with_route((tool, Server::search))
///     }
/// }
///
/// let router = TolerantRouter::new(Server::tool_router());
/// // tools/list is the router's own.
/// assert_eq!(router.list_all(), Server::tool_router().list_all());
/// // A near miss binds: what `call` does before routing.
/// let mut arguments: Option<JsonObject> =
///     Some(serde_json::from_value(json!({"data_source_names": "dotnet/eshop", "query": "q"})).unwrap());
/// let repairs = router.repair("search", &mut arguments).unwrap();
/// assert_eq!(repairs[0].pointer, "/data_source_names");
/// let args: SearchArgs = parse_json_object(arguments.unwrap()).unwrap();
/// assert_eq!(Server.search(Parameters(args)), "q in dotnet/eshop");
/// // Any other bad call is answered with canon's feedback.
/// let mut arguments = Some(serde_json::from_value(json!({"data_source_names": ["a"]})).unwrap());
/// let error = router.repair("search", &mut arguments).unwrap_err();
/// assert_eq!(error.pointers(), ["/query"]);
/// ```
///
/// `tests/mcp.rs` serves such a server and calls it through rmcp's client.
pub struct TolerantRouter<S> {
    router: ToolRouter<S>,
    policy: Policy,
}

impl<S> TolerantRouter<S> {
    /// Tolerant binding for `router`'s tools, with the default policy (the
    /// core rule).
    pub fn new(router: ToolRouter<S>) -> TolerantRouter<S> {
        TolerantRouter {
            router,
            policy: Policy::default(),
        }
    }

    /// The same router, repairing by the rules of `policy`.
    pub fn with_policy(mut self, policy: Policy) -> TolerantRouter<S> {
        self.policy = policy;
        self
    }

    /// The router whose tools are served.
    pub fn router(&self) -> &ToolRouter<S> {
        &self.router
    }

    /// The router, without tolerance.
    pub fn into_inner(self) -> ToolRouter<S> {
        self.router
    }
}

impl<S: Send + Sync + 'static> TolerantRouter<S> {
    /// Routes a call after canonicalizing its arguments against the tool's
    /// input schema. A call that cannot be bound is answered with
    /// [`rejection`] (`isError: true`, canon's feedback) without running
    /// the tool; a tool whose schema canon cannot compile gets its
    /// arguments as sent.
    ///
    /// # Errors
    /// What the router answers (`tool not found` for an unknown or
    /// disabled tool).
    pub async fn call(
        &self,
        mut context: ToolCallContext<'_, S>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(tool) = self.router.get(context.name()) {
            if let Some(canonicalizer) = shared_canonicalizer(tool, self.policy) {
                if let Err(error) = canonicalize(&canonicalizer, &mut context.arguments) {
                    return Ok(rejection(&error).into());
                }
            }
        }
        self.router.call(context).await
    }

    /// Canonicalizes `arguments` for the tool `name` in place, as
    /// [`call`](TolerantRouter::call) does, and returns the repairs. An
    /// unknown tool, or one whose schema canon cannot compile, is left
    /// alone.
    ///
    /// # Errors
    /// A [`BindError`] with every violation when the call cannot be bound.
    pub fn repair(
        &self,
        name: &str,
        arguments: &mut Option<JsonObject>,
    ) -> Result<Vec<Repair>, BindError> {
        match self
            .router
            .get(name)
            .and_then(|tool| shared_canonicalizer(tool, self.policy))
        {
            Some(canonicalizer) => canonicalize(&canonicalizer, arguments),
            None => Ok(Vec::new()),
        }
    }

    /// Every enabled tool, as the router lists it.
    pub fn list_all(&self) -> Vec<Tool> {
        self.router.list_all()
    }

    /// The tool named `name`, as the router has it (`None` when unknown or
    /// disabled).
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.router.get(name)
    }
}

impl<S> From<ToolRouter<S>> for TolerantRouter<S> {
    fn from(router: ToolRouter<S>) -> TolerantRouter<S> {
        TolerantRouter::new(router)
    }
}

impl<S> Clone for TolerantRouter<S> {
    fn clone(&self) -> TolerantRouter<S> {
        TolerantRouter {
            router: self.router.clone(),
            policy: self.policy,
        }
    }
}

impl<S> std::fmt::Debug for TolerantRouter<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TolerantRouter")
            .field("router", &self.router)
            .field("policy", &self.policy)
            .finish()
    }
}

fn canonicalize(
    canonicalizer: &Canonicalizer,
    arguments: &mut Option<JsonObject>,
) -> Result<Vec<Repair>, BindError> {
    let mut value = Value::Object(arguments.take().unwrap_or_default());
    let outcome = canonicalizer.canonicalize(&mut value);
    if let Value::Object(object) = value {
        *arguments = Some(object);
    }
    outcome
}

/// A compiled schema, for the tool and policy it was compiled for, while
/// the schema it was compiled from lives.
struct Compiled {
    schema: Weak<JsonObject>,
    tool: String,
    policy: Policy,
    canonicalizer: Option<Arc<Canonicalizer>>,
}

/// Compiled schemas by the address of the tool's `Arc`'d input schema.
/// rmcp builds a tool's schema once per type (and thread) and shares it
/// between the router's clones, so the address finds it again; the weak
/// reference tells a reused address from the schema it was compiled from.
type Compilations = HashMap<usize, Vec<Compiled>>;

fn shared_canonicalizer(tool: &Tool, policy: Policy) -> Option<Arc<Canonicalizer>> {
    static COMPILED: OnceLock<Mutex<Compilations>> = OnceLock::new();
    let address = Arc::as_ptr(&tool.input_schema) as usize;
    let mut compiled = COMPILED
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(entry) = compiled.get(&address).and_then(|entries| {
        entries.iter().find(|e| {
            e.policy == policy
                && e.tool == tool.name
                && e.schema
                    .upgrade()
                    .is_some_and(|schema| Arc::ptr_eq(&schema, &tool.input_schema))
        })
    }) {
        return entry.canonicalizer.clone();
    }
    let canonicalizer = Canonicalizer::options()
        .tool(tool.name.to_string())
        .policy(policy)
        .compile(&Value::Object(tool.input_schema.as_ref().clone()))
        .ok()
        .map(Arc::new);
    // Forget the schemas dropped since (and this address's old schema).
    compiled.retain(|_, entries| {
        entries.retain(|e| e.schema.strong_count() > 0);
        !entries.is_empty()
    });
    compiled.entry(address).or_default().push(Compiled {
        schema: Arc::downgrade(&tool.input_schema),
        tool: tool.name.to_string(),
        policy,
        canonicalizer: canonicalizer.clone(),
    });
    canonicalizer
}

/// `tool` with every local `$ref` in its input and output schemas replaced
/// by the schema it points to, and the `$defs` (or `definitions`) they
/// pointed into removed: for MCP clients that cannot resolve references.
/// Keywords beside a `$ref` are kept: merged into the definition when they
/// are annotations (`description`, `title`, ...) or absent from it, and
/// otherwise kept beside it as `{"allOf": [definition], ...}`.
///
/// ```
/// use canon::mcp::inline_refs;
/// use rmcp::model::Tool;
/// use serde_json::json;
///
/// let tool: Tool = serde_json::from_value(json!({
///     "name": "tree",
///     "inputSchema": {
///         "type": "object",
///         "properties": {"root": {"$ref": "#/$defs/Node"}},
///         "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
///     }
/// }))
/// .unwrap();
/// let error = inline_refs(&tool).unwrap_err();
/// assert_eq!(error.tool, "tree");
/// assert_eq!(error.pointer, "/properties/root/properties/children/items/$ref");
/// ```
///
/// # Errors
/// An [`ExportError`] naming the tool and the pointer (into the schema
/// inlined: the input schema, or the output schema as the reason says) of
/// the first `$ref` that cannot be inlined: a recursive type, whose schema
/// would be infinite (canon refuses rather than keep a `$ref` the client
/// cannot read); a reference that is not local (`#/...`) or points
/// nowhere; more than 64 references nested; or a schema that would grow
/// past a million nodes.
pub fn inline_refs(tool: &Tool) -> Result<Tool, ExportError> {
    let refuse = |which: &str, refusal: Refusal| ExportError {
        tool: tool.name.to_string(),
        dialect: Dialect::Mcp,
        pointer: refusal.pointer,
        reason: format!("in its {which} schema, {}", refusal.reason),
    };
    let mut inlined = tool.clone();
    inlined.input_schema =
        Arc::new(inline_schema(&tool.input_schema).map_err(|refusal| refuse("input", refusal))?);
    if let Some(output) = &tool.output_schema {
        inlined.output_schema = Some(Arc::new(
            inline_schema(output).map_err(|refusal| refuse("output", refusal))?,
        ));
    }
    Ok(inlined)
}

/// Where inlining stopped, and why.
struct Refusal {
    pointer: String,
    reason: String,
}

/// At most this many nodes in an inlined schema: shared definitions are
/// copied at each use, which a schema can make exponential.
const MAX_INLINED_NODES: usize = 1_000_000;

/// At most this many references expanded one inside another (each is a
/// level of recursion here).
const MAX_NESTED_REFS: usize = 64;

fn inline_schema(schema: &JsonObject) -> Result<JsonObject, Refusal> {
    let root = Value::Object(schema.clone());
    let mut inliner = Inliner {
        root: &root,
        expanding: Vec::new(),
        nodes: 0,
    };
    let mut stripped = schema.clone();
    for keyword in ["$defs", "definitions"] {
        if stripped.get(keyword).is_some_and(Value::is_object) {
            stripped.remove(keyword);
        }
    }
    match inliner.inline(&Value::Object(stripped), &mut String::new())? {
        Value::Object(out) => Ok(out),
        _ => Err(Refusal {
            pointer: "/$ref".into(),
            reason: "the schema refers to one that is not an object".into(),
        }),
    }
}

struct Inliner<'a> {
    root: &'a Value,
    /// The references being expanded, outermost first.
    expanding: Vec<String>,
    nodes: usize,
}

/// Keywords that describe a schema without constraining it: a `$ref`'s
/// sibling wins over its definition's.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

impl Inliner<'_> {
    /// `value` with its references inlined; `pointer` is where it sits in
    /// the inlined schema.
    fn inline(&mut self, value: &Value, pointer: &mut String) -> Result<Value, Refusal> {
        self.nodes += 1;
        if self.nodes > MAX_INLINED_NODES {
            return Err(Refusal {
                pointer: pointer.clone(),
                reason: format!(
                    "inlining its references makes more than {MAX_INLINED_NODES} nodes"
                ),
            });
        }
        match value {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{i}"));
                    out.push(self.inline(item, pointer)?);
                    pointer.truncate(len);
                }
                Ok(Value::Array(out))
            }
            Value::Object(object) => match object.get("$ref") {
                Some(Value::String(reference)) => self.expand(object, reference, pointer),
                _ => {
                    let mut out = JsonObject::new();
                    for (key, item) in object {
                        let len = pointer.len();
                        pointer.push('/');
                        pointer.push_str(&escape(key));
                        out.insert(key.clone(), self.inline(item, pointer)?);
                        pointer.truncate(len);
                    }
                    Ok(Value::Object(out))
                }
            },
            other => Ok(other.clone()),
        }
    }

    fn expand(
        &mut self,
        object: &JsonObject,
        reference: &str,
        pointer: &mut String,
    ) -> Result<Value, Refusal> {
        let len = pointer.len();
        pointer.push_str("/$ref");
        let refuse = |pointer: &str, reason: String| Refusal {
            pointer: pointer.to_owned(),
            reason,
        };
        let Some(target) = reference.strip_prefix('#') else {
            return Err(refuse(
                pointer,
                format!("`{reference}` is not a local reference (`#/...`)"),
            ));
        };
        if self.expanding.iter().any(|r| r == reference) {
            return Err(refuse(
                pointer,
                format!(
                    "`{reference}` refers to itself (a recursive type), so it cannot be inlined"
                ),
            ));
        }
        if self.expanding.len() >= MAX_NESTED_REFS {
            return Err(refuse(
                pointer,
                format!("more than {MAX_NESTED_REFS} references are nested there"),
            ));
        }
        let Some(definition) = self.root.pointer(target) else {
            return Err(refuse(pointer, format!("`{reference}` points nowhere")));
        };
        pointer.truncate(len);
        self.expanding.push(reference.to_owned());
        let definition = self.inline(definition, pointer);
        self.expanding.pop();
        let definition = definition?;
        let mut siblings = JsonObject::new();
        for (key, item) in object {
            if key != "$ref" {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape(key));
                siblings.insert(key.clone(), self.inline(item, pointer)?);
                pointer.truncate(len);
            }
        }
        if siblings.is_empty() {
            return Ok(definition);
        }
        let Value::Object(mut merged) = definition.clone() else {
            // A boolean schema: `true` adds nothing, `false` stays beside.
            if definition == Value::Bool(true) {
                return Ok(Value::Object(siblings));
            }
            siblings.insert("allOf".into(), Value::Array(vec![definition]));
            return Ok(Value::Object(siblings));
        };
        let mergeable = siblings.iter().all(|(key, item)| {
            ANNOTATIONS.contains(&key.as_str()) || merged.get(key).is_none_or(|own| own == item)
        });
        if mergeable {
            merged.extend(siblings);
            return Ok(Value::Object(merged));
        }
        match siblings.get_mut("allOf") {
            Some(Value::Array(all)) => all.push(definition),
            _ => {
                siblings.insert("allOf".into(), Value::Array(vec![definition]));
            }
        }
        Ok(Value::Object(siblings))
    }
}

/// RFC 6901 escaping of one reference token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_poisoned_cache_still_checks_every_call() {
        let tolerant = Tolerant::new();
        // A panic while the cache is locked poisons it.
        std::thread::scope(|s| {
            let _ = s
                .spawn(|| {
                    let _held = tolerant.compiled.lock().unwrap();
                    panic!("poison the cache");
                })
                .join();
        });
        assert!(tolerant.compiled.is_poisoned());
        let schema = json!({"type": "object", "properties": {"tags": {"type": "array",
            "items": {"type": "string"}}}, "required": ["tags"]});
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        let tool = Tool::new("tag", "Tag.", schema);
        let mut arguments =
            Some(serde_json::from_value::<JsonObject>(json!({"tags": "a"})).unwrap());
        assert_eq!(tolerant.repair(&tool, &mut arguments).unwrap().len(), 1);
        let mut arguments = Some(JsonObject::new());
        assert!(tolerant.repair(&tool, &mut arguments).is_err());
    }
}
