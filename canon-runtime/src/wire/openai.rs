//! The OpenAI wire formats (feature `openai`): Chat Completions and the
//! Responses API, on `serde_json` values, with no HTTP client.
//!
//! - Calls in: [`tool_calls`] reads a Chat Completions response (or its
//!   assistant message), [`function_calls`] a Responses API response (or
//!   its `output`); [`ChatStream`] and [`ResponsesStream`] read the same
//!   calls from a stream, each as soon as its arguments are complete.
//! - Results out: [`tool_message`] (`{"role": "tool", ...}`) and
//!   [`function_call_output`] (`{"type": "function_call_output", ...}`),
//!   from a [`ToolMessage`] ([`Toolbox::message`]).
//! - Tools declared: [`tools`] and [`response_tools`], the toolbox's own
//!   export ([`Toolbox::export`]), so binding matches what was declared.
//!
//! ```
//! use canon::{tool, Toolbox};
//! use canon::openai;
//! use serde_json::json;
//!
//! /// Search code in the given repositories.
//! #[tool]
//! fn search_code(repos: Vec<String>, query: String) -> usize {
//!     repos.len()
//! }
//!
//! let mut toolbox = Toolbox::new().with_repair_notes(true);
//! toolbox.add(SearchCode).unwrap();
//! let request_tools = openai::tools(&toolbox, true).unwrap();
//! assert_eq!(request_tools[0]["function"]["name"], "search_code");
//!
//! // A response with two calls: a near miss (one string for an array) and
//! // one cut short.
//! let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
//!     "role": "assistant",
//!     "content": null,
//!     "tool_calls": [
//!         {"id": "call_1", "type": "function",
//!          "function": {"name": "search_code", "arguments": "{\"repos\": \"dotnet/eshop\", \"query\": \"basket\"}"}},
//!         {"id": "call_2", "type": "function",
//!          "function": {"name": "search_code", "arguments": "{\"repos\": [\"a\"], \"qu"}}
//!     ]
//! }}]});
//! let calls = openai::tool_calls(&response);
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let results = toolbox.call_batch(calls).await;
//! let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
//! let replies = openai::tool_messages(&messages);
//! assert_eq!(replies[0]["tool_call_id"], "call_1");
//! // The near miss ran: its output as sent, then canon's note in a part
//! // of its own.
//! assert_eq!(replies[0]["content"][0], json!({"type": "text", "text": "1"}));
//! assert!(replies[0]["content"][1]["text"].as_str().unwrap().starts_with("(Note: /repos"));
//! // The cut call did not run; the model is told why, and this call only.
//! assert_eq!(replies[1]["role"], "tool");
//! assert!(replies[1]["content"].as_str().unwrap().contains("not valid JSON"));
//! # });
//! ```
//!
//! # Calls that cannot be read
//! No input makes these functions fail or panic, and no call is dropped:
//! a response is read call by call, and a call whose parts are missing or
//! malformed is still returned, so that binding it in a [`Toolbox`] gives
//! the model an answer for that call only:
//!
//! | what the server sent | the [`ToolCall`] | what a [`Toolbox`] does with it |
//! |---|---|---|
//! | `arguments` as JSON text | [`Arguments::Text`] | binds it (repairing near misses) |
//! | `arguments` as an object (Ollama's `/api/chat`, some OpenAI-compatible servers) | [`Arguments::Json`] | binds it |
//! | `arguments` cut short, or not JSON | [`Arguments::Text`] as sent | `Rejected`: "the arguments are not valid JSON (EOF while parsing ...); send one JSON object" |
//! | `arguments` empty text, blank text or `"null"` | [`Arguments::Text`] as sent | read as `{}`, recorded as an `empty_arguments` repair: a tool without required parameters runs, any other is `Rejected`, each required parameter listed as missing |
//! | `arguments` `null` | `Arguments::Json(Value::Null)` | as empty text |
//! | `arguments` missing | `Arguments::Text("")` | as empty text |
//! | `arguments` an array, number or boolean | [`Arguments::Json`] | `Rejected`: expected an object |
//! | no `id` (or an empty one) | id `call_{i}`, `i` the call's place in the list | (the reply carries that id) |
//! | no name, or an entry that is not an object | name `""` | `NoSuchTool`, listing the tools |
//!
//! # Streams
//! [`ChatStream`] and [`ResponsesStream`] return each call from
//! [`push`](ChatStream::push) as soon as its arguments are complete, so a
//! tool can start before the stream ends, and return what is left from
//! [`finish`](ChatStream::finish) (a call cut short is still a call, whose
//! binding then fails with feedback). Fragments are joined as text, so a
//! fragment may end anywhere, even inside a string or an escape
//! (`"\u00` then `e9"`).
//!
//! Memory is bounded, whatever the stream sends:
//! - at most [`MAX_ARGUMENT_BYTES`] (1 MiB, [`Limits::default`](crate::Limits)'s
//!   `max_text_bytes`) of argument text are kept per call. Past it, the
//!   text is cut a few bytes beyond the bound and the rest is not kept, so
//!   a [`Toolbox`] with default limits refuses the call with its "too
//!   large" violation (saying the arguments are `1048577` bytes or so: the
//!   bytes kept, not the bytes sent). Arguments sent as one JSON value are
//!   kept whole: the caller already holds them.
//! - at most [`MAX_PENDING_CALLS`] (128) calls are held at once. A call
//!   past that bound makes the first held call (the lowest index in a Chat
//!   stream, the earliest begun in a Responses stream) complete: it is
//!   returned as it stands, and anything sent for it later starts a new
//!   call.
//!
//! Both bounds can be changed per stream
//! ([`ChatStream::with_max_argument_bytes`],
//! [`ChatStream::with_max_pending`]). The work of a [`push`](ChatStream::push)
//! is linear in the size of the chunk, times at most the number of calls
//! held.

#[cfg(feature = "async-openai")]
pub mod async_openai;

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::export::{Dialect, ExportError};
use crate::toolbox::{Arguments, ToolCall, ToolMessage, Toolbox};

/// The most argument text a stream keeps for one call, in bytes: 1 MiB,
/// the default [`Limits::max_text_bytes`](crate::Limits::max_text_bytes),
/// the most a [`Toolbox`] with default limits reads. Text past it is not
/// kept (see the [module documentation](self#streams)).
pub const MAX_ARGUMENT_BYTES: usize = 1 << 20;

/// The most calls a stream holds at once before the first one held is
/// returned as it stands: 128, the most tools OpenAI lets one request
/// declare.
pub const MAX_PENDING_CALLS: usize = 128;

// ---------------------------------------------------------------------
// Chat Completions
// ---------------------------------------------------------------------

/// The tool calls of a Chat Completions response, in order.
///
/// `message` may be the whole response (`{"choices": [{"message": ...}]}`:
/// the first choice is read), the assistant message itself
/// (`{"role": "assistant", "tool_calls": [...]}`), an Ollama `/api/chat`
/// response (`{"message": ...}`), or the `tool_calls` array. Each
/// `{"id", "type": "function", "function": {"name", "arguments"}}` becomes
/// a [`ToolCall`]; a message without tool calls gives none.
///
/// Never fails and never drops a call: see the
/// [module documentation](self#calls-that-cannot-be-read) for what a call
/// with missing or unreadable parts becomes.
///
/// ```
/// use canon::openai;
/// use canon::toolbox::Arguments;
/// use serde_json::json;
///
/// let message = json!({"role": "assistant", "content": null, "tool_calls": [
///     {"id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}},
///     {"type": "function", "function": {"name": "search", "arguments": {"q": "y"}}},
/// ]});
/// let calls = openai::tool_calls(&message);
/// assert_eq!(calls[0].id, "call_a");
/// assert_eq!(calls[0].arguments, Arguments::Text("{\"q\": \"x\"}".into()));
/// assert_eq!(calls[1].id, "call_1"); // none was sent
/// assert_eq!(calls[1].arguments, Arguments::Json(json!({"q": "y"})));
/// ```
pub fn tool_calls(message: &Value) -> Vec<ToolCall> {
    let list = match message {
        Value::Array(_) => Some(message),
        Value::Object(object) => {
            let message = if let Some(choices) = object.get("choices") {
                choices.get(0).and_then(|choice| choice.get("message"))
            } else if object.contains_key("tool_calls") {
                Some(message)
            } else {
                object.get("message")
            };
            message.and_then(|m| m.get("tool_calls"))
        }
        _ => None,
    };
    entries(list)
        .iter()
        .enumerate()
        .map(|(position, entry)| chat_call(position as u64, entry))
        .collect()
}

/// The message answering one call in Chat Completions:
/// `{"role": "tool", "tool_call_id": id, "content": text}`.
///
/// Chat Completions has no error flag: a refused or failed call says so in
/// its text ([`Toolbox::message`] writes it), and
/// [`ToolMessage::is_error`] is not sent.
///
/// The content is the message's text as a string. A message with a
/// [`note`](ToolMessage::note) (a repair note, a truncation marker) sends
/// the content-part array the API takes for tool messages instead, two
/// `text` parts, the output and then the note, so the output reaches the
/// model exactly as the tool gave it.
///
/// ```
/// use canon::openai;
/// use canon::toolbox::ToolMessage;
/// use serde_json::json;
///
/// let message = ToolMessage { id: "call_1".into(), name: "search".into(), text: "3 hits".into(), note: None, is_error: false };
/// assert_eq!(
///     openai::tool_message(&message),
///     json!({"role": "tool", "tool_call_id": "call_1", "content": "3 hits"})
/// );
///
/// let noted = ToolMessage { note: Some("(Note: ...)".into()), ..message };
/// assert_eq!(
///     openai::tool_message(&noted)["content"],
///     json!([{"type": "text", "text": "3 hits"}, {"type": "text", "text": "(Note: ...)"}])
/// );
/// ```
pub fn tool_message(message: &ToolMessage) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": message.id,
        "content": super::content(message, "text"),
    })
}

/// [`tool_message`] for each message, in order: the messages to append to
/// the conversation after the assistant message that made the calls.
pub fn tool_messages(messages: &[ToolMessage]) -> Vec<Value> {
    messages.iter().map(tool_message).collect()
}

/// The toolbox's tools declared for Chat Completions: the `tools` array of
/// a request, `[{"type": "function", "function": {"name", "description",
/// "parameters", "strict"}}]`. This is
/// `toolbox.export(Dialect::OpenAi { strict })`.
///
/// With `strict`, every optional parameter is declared required and
/// nullable, so a model following the declaration sends `null` for a
/// parameter it leaves out. A successful strict export also changes how
/// this toolbox binds, although it takes `&self` (the toolbox keeps the
/// fact in an atomic flag): from then on, for every tool in it, a `null`
/// at an optional parameter (an `Option`, or one with a default) binds as
/// the parameter left out, with no repair recorded. The change is for good: a later
/// export without `strict` does not undo it. A failed export
/// changes nothing. Without `strict` nothing changes, and such a `null`
/// is refused where the parameter's type does not take `null`.
///
/// # Errors
/// The first tool the dialect cannot express (a name OpenAI does not
/// allow; in strict mode, an any-value parameter, a map, a tuple...); use
/// [`Toolbox::export_or_relax`] to declare such tools without strict mode
/// instead (it marks the toolbox as a strict export does, whichever tools
/// it relaxed).
///
/// ```
/// use canon::{tool, Toolbox};
/// use canon::openai;
/// use serde_json::json;
///
/// /// Forecast the weather.
/// #[tool]
/// fn forecast(city: String, #[arg(default = 3)] days: u32) -> String {
///     format!("{city}: {days} days")
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Forecast).unwrap();
/// let declared = openai::tools(&toolbox, true).unwrap();
/// assert_eq!(declared[0]["function"]["strict"], true);
/// assert_eq!(declared[0]["function"]["parameters"]["required"], json!(["city", "days"]));
/// // The toolbox now binds `"days": null` as the default.
/// assert!(toolbox.policy().nulls_declared());
/// ```
pub fn tools(toolbox: &Toolbox, strict: bool) -> Result<Value, ExportError> {
    toolbox.export(Dialect::OpenAi { strict })
}

// ---------------------------------------------------------------------
// Responses API
// ---------------------------------------------------------------------

/// The function calls of a Responses API response, in order.
///
/// `response` may be the whole response (`{"output": [...]}`), the
/// `output` array itself, a `response.completed` event
/// (`{"response": {"output": [...]}}`), or one `function_call` item. Each
/// item of `"type": "function_call"`
/// (`{"type", "id", "call_id", "name", "arguments", "status"}`) becomes a
/// [`ToolCall`] whose id is the `call_id` (the item's `id` when there is
/// none, else `call_{i}`, `i` the item's place in `output`); other items
/// (messages, reasoning, built-in tool calls) are not function calls and
/// are passed over. Arguments are read as in [`tool_calls`].
///
/// ```
/// use canon::openai;
/// use serde_json::json;
///
/// let response = json!({"object": "response", "status": "completed", "output": [
///     {"type": "reasoning", "id": "rs_1", "summary": []},
///     {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
///      "arguments": "{\"q\": \"x\"}", "status": "completed"},
/// ]});
/// let calls = openai::function_calls(&response);
/// assert_eq!(calls.len(), 1);
/// assert_eq!(calls[0].id, "call_1");
/// ```
pub fn function_calls(response: &Value) -> Vec<ToolCall> {
    let is_call = |item: &Value| item.get("type").and_then(Value::as_str) == Some("function_call");
    let items: &[Value] = match response {
        Value::Array(items) => items,
        object if is_call(object) => std::slice::from_ref(object),
        Value::Object(object) => {
            let output = object.get("output").or_else(|| {
                object
                    .get("response")
                    .and_then(|response| response.get("output"))
            });
            match output {
                Some(Value::Array(items)) => items,
                _ => &[],
            }
        }
        _ => &[],
    };
    items
        .iter()
        .enumerate()
        .filter(|(_, item)| is_call(item))
        .map(|(position, item)| response_call(position as u64, item))
        .collect()
}

/// The input item answering one call in the Responses API:
/// `{"type": "function_call_output", "call_id": id, "output": text}`.
///
/// Like Chat Completions, the Responses API has no error flag: the text
/// says what went wrong. A message with a [`note`](ToolMessage::note)
/// sends `output` as the list the API takes instead of a string: two
/// `input_text` items, the output and then the note.
///
/// ```
/// use canon::openai;
/// use canon::toolbox::ToolMessage;
/// use serde_json::json;
///
/// let message = ToolMessage { id: "call_1".into(), name: "search".into(), text: "3 hits".into(), note: None, is_error: false };
/// assert_eq!(
///     openai::function_call_output(&message),
///     json!({"type": "function_call_output", "call_id": "call_1", "output": "3 hits"})
/// );
///
/// let noted = ToolMessage { note: Some("(Note: ...)".into()), ..message };
/// assert_eq!(
///     openai::function_call_output(&noted)["output"],
///     json!([{"type": "input_text", "text": "3 hits"}, {"type": "input_text", "text": "(Note: ...)"}])
/// );
/// ```
pub fn function_call_output(message: &ToolMessage) -> Value {
    json!({
        "type": "function_call_output",
        "call_id": message.id,
        "output": super::content(message, "input_text"),
    })
}

/// [`function_call_output`] for each message, in order: the `input` items
/// of the next request.
pub fn function_call_outputs(messages: &[ToolMessage]) -> Vec<Value> {
    messages.iter().map(function_call_output).collect()
}

/// The toolbox's tools declared for the Responses API: the `tools` array
/// of a request, `[{"type": "function", "name", "description",
/// "parameters", "strict"}]`. This is
/// `toolbox.export(Dialect::OpenAiResponses { strict })`, and a strict
/// export changes the toolbox's binding of `null` exactly as [`tools`]
/// says.
///
/// # Errors
/// As [`tools`].
///
/// ```
/// use canon::{tool, Toolbox};
/// use canon::openai;
///
/// /// Ping.
/// #[tool]
/// fn ping() -> &'static str {
///     "pong"
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Ping).unwrap();
/// let declared = openai::response_tools(&toolbox, false).unwrap();
/// assert_eq!(declared[0]["type"], "function");
/// assert_eq!(declared[0]["name"], "ping");
/// ```
pub fn response_tools(toolbox: &Toolbox, strict: bool) -> Result<Value, ExportError> {
    toolbox.export(Dialect::OpenAiResponses { strict })
}

// ---------------------------------------------------------------------
// Reading calls
// ---------------------------------------------------------------------

/// The entries of a list of calls: an array's items, a lone object as one
/// entry (no call is dropped because the list was not a list), else none.
fn entries(list: Option<&Value>) -> &[Value] {
    match list {
        Some(Value::Array(items)) => items,
        Some(object @ Value::Object(_)) => std::slice::from_ref(object),
        _ => &[],
    }
}

/// A call's id as sent: a non-empty string, or a number's text.
fn id_of(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(id) if !id.is_empty() => Some(id.clone()),
        Value::Number(id) => Some(id.to_string()),
        _ => None,
    }
}

/// A non-empty name, as sent.
fn name_of(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// The id given to a call sent without one.
fn synthesized_id(position: u64) -> String {
    format!("call_{position}")
}

/// Arguments as sent: text as text, any other value as a value, none as
/// empty text.
fn arguments_of(value: Option<&Value>) -> Arguments {
    match value {
        None => Arguments::Text(String::new()),
        Some(Value::String(text)) => Arguments::Text(text.clone()),
        Some(value) => Arguments::Json(value.clone()),
    }
}

/// One entry of a Chat Completions `tool_calls` list.
fn chat_call(position: u64, entry: &Value) -> ToolCall {
    let function = entry.get("function");
    ToolCall {
        id: id_of(entry.get("id")).unwrap_or_else(|| synthesized_id(position)),
        name: name_of(function.and_then(|f| f.get("name"))).unwrap_or_default(),
        arguments: arguments_of(function.and_then(|f| f.get("arguments"))),
    }
}

/// One `function_call` item of a Responses API `output`.
fn response_call(position: u64, item: &Value) -> ToolCall {
    ToolCall {
        id: id_of(item.get("call_id"))
            .or_else(|| id_of(item.get("id")))
            .unwrap_or_else(|| synthesized_id(position)),
        name: name_of(item.get("name")).unwrap_or_default(),
        arguments: arguments_of(item.get("arguments")),
    }
}

// ---------------------------------------------------------------------
// Accumulating streamed arguments
// ---------------------------------------------------------------------

/// How far argument text has come, read byte by byte as it arrives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Shape {
    /// Nothing but white space yet.
    #[default]
    Empty,
    /// Inside the object (or array) the text opened.
    Open,
    /// The object the text opened is closed: nothing valid can follow.
    Closed,
    /// Anything else: a scalar, or text after the closed object. Only the
    /// end of the stream completes it.
    Other,
}

/// A scan of JSON text that says when it holds a whole object: one pass
/// over the bytes as they arrive, strings and escapes followed across
/// fragments, nothing kept but these few fields.
#[derive(Debug, Clone, Copy, Default)]
struct Scan {
    shape: Shape,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Scan {
    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            let blank = matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
            match self.shape {
                Shape::Other => return,
                Shape::Empty if blank => {}
                Shape::Empty if byte == b'{' || byte == b'[' => {
                    self.shape = Shape::Open;
                    self.depth = 1;
                }
                Shape::Closed if blank => {}
                Shape::Empty | Shape::Closed => self.shape = Shape::Other,
                Shape::Open if self.in_string => {
                    if self.escaped {
                        self.escaped = false;
                    } else if byte == b'\\' {
                        self.escaped = true;
                    } else if byte == b'"' {
                        self.in_string = false;
                    }
                }
                Shape::Open => match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth = self.depth.saturating_add(1),
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.shape = Shape::Closed;
                        }
                    }
                    _ => {}
                },
            }
        }
    }
}

/// One call's arguments, gathered from fragments: text (bounded), or one
/// JSON value when that is all that was sent.
#[derive(Debug, Clone)]
struct Gathered {
    text: String,
    value: Option<Value>,
    scan: Scan,
    max_bytes: usize,
}

impl Gathered {
    fn new(max_bytes: usize) -> Self {
        Gathered {
            text: String::new(),
            value: None,
            scan: Scan::default(),
            max_bytes,
        }
    }

    /// Adds a fragment: text is appended; a value is kept as the arguments
    /// when nothing else came, else appended as its JSON text; `null` and
    /// no fragment add nothing.
    fn push(&mut self, fragment: Option<&Value>) {
        match fragment {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => {
                self.spill();
                self.append(text);
            }
            Some(value) => {
                if self.text.is_empty() && self.value.is_none() {
                    self.value = Some(value.clone());
                } else {
                    self.spill();
                    self.append(&value.to_string());
                }
            }
        }
    }

    /// Replaces what was gathered with the whole arguments, unless they are
    /// empty text or `null` (then the fragments stand).
    fn replace(&mut self, whole: Option<&Value>) {
        let blank = match whole {
            None | Some(Value::Null) => true,
            Some(Value::String(text)) => text.is_empty(),
            Some(_) => false,
        };
        if !blank {
            *self = Gathered::new(self.max_bytes);
            self.push(whole);
        }
    }

    /// A value kept whole becomes text when more comes.
    fn spill(&mut self) {
        if let Some(value) = self.value.take() {
            self.append(&value.to_string());
        }
    }

    /// Appends text, keeping at most a few bytes past the bound (up to the
    /// next character boundary), so binding refuses it as too large; every
    /// byte is scanned all the same.
    fn append(&mut self, fragment: &str) {
        self.scan.feed(fragment.as_bytes());
        if self.text.len() > self.max_bytes {
            return;
        }
        if self.text.len().saturating_add(fragment.len()) <= self.max_bytes {
            self.text.push_str(fragment);
            return;
        }
        // Here `text.len() <= max_bytes < text.len() + fragment.len()`.
        let mut end = self.max_bytes - self.text.len() + 1;
        while end < fragment.len() && !fragment.is_char_boundary(end) {
            end += 1;
        }
        self.text.push_str(fragment.get(..end).unwrap_or(fragment));
    }

    /// True when the arguments are whole: a value, or text holding a whole
    /// object (or array).
    fn complete(&self) -> bool {
        (self.value.is_some() && self.text.is_empty()) || self.scan.shape == Shape::Closed
    }

    fn into_arguments(self) -> Arguments {
        match self.value {
            Some(value) if self.text.is_empty() => Arguments::Json(value),
            _ => Arguments::Text(self.text),
        }
    }
}

/// True when a fragment of arguments carries something: a value other
/// than `null`, or text that is not blank.
fn carries_arguments(fragment: Option<&Value>) -> bool {
    match fragment {
        None | Some(Value::Null) => false,
        Some(Value::String(text)) => !text.trim().is_empty(),
        Some(_) => true,
    }
}

/// A call begun in a stream and not yet returned.
#[derive(Debug, Clone)]
struct Pending {
    /// What synthesizes an id when none came.
    position: u64,
    id: Option<String>,
    name: Option<String>,
    arguments: Gathered,
    /// A name that came, with no arguments, after this call's whole
    /// object: the next call's, if arguments follow.
    next_name: Option<String>,
}

impl Pending {
    fn new(position: u64, max_bytes: usize) -> Self {
        Pending {
            position,
            id: None,
            name: None,
            arguments: Gathered::new(max_bytes),
            next_name: None,
        }
    }

    fn into_call(self) -> ToolCall {
        ToolCall {
            id: self.id.unwrap_or_else(|| synthesized_id(self.position)),
            name: self.name.unwrap_or_default(),
            arguments: self.arguments.into_arguments(),
        }
    }
}

// ---------------------------------------------------------------------
// Chat Completions streams
// ---------------------------------------------------------------------

/// The tool calls of a streamed Chat Completions response, each returned as
/// soon as it is complete.
///
/// Push each `chat.completion.chunk` in order. Deltas are read from the
/// first choice (`index` 0): `choices[0].delta.tool_calls[]`, each with
/// its `index`, the call's `id` and `function.name` on its first delta
/// and `function.arguments` fragments after. A call is returned by the
/// [`push`](Self::push) that completes it:
/// - when a delta for a higher index has started and the call's arguments
///   hold a whole JSON object. A call whose text is not yet a whole object
///   is held, so calls streamed in parallel, their fragments interleaved
///   by index, are each returned when their own object closes; one whose
///   text never makes an object (cut short, not JSON, empty) is held until
///   the end;
/// - when a delta at the same index carries a new `id`, or a name and more
///   arguments (in that delta or the next) after a whole object: a new
///   call has begun there (Ollama and some proxies give every parallel
///   call index 0, or none);
/// - when the choice's `finish_reason` arrives (`tool_calls`, `stop`,
///   `length`...): every call held is returned, in index order.
///
/// [`finish`](Self::finish) returns what is left when the stream ends
/// without a `finish_reason`. An entry without an integer `index` takes
/// its place in the delta's list; a delta carrying no id, name or
/// arguments starts nothing. A call sent without an id is given
/// `call_{n}`, the `n`th call of the response (counting from 0), as
/// [`tool_calls`] does for the same response unstreamed. A chunk of
/// Ollama's `/api/chat` stream (`{"message": {"tool_calls": [...]}}`, each
/// call whole) gives its calls at once, as [`tool_calls`] reads them,
/// numbered across the response; `"done": true` ends it. A delta for an
/// index whose call was returned early that repeats its id (or, without
/// an id, its name) and carries no arguments starts nothing: servers that repeat the id and
/// name on every delta run each call once. Memory is bounded as the
/// [module documentation](self#streams) says.
///
/// ```
/// use canon::openai::ChatStream;
/// use serde_json::json;
///
/// let chunk = |delta: serde_json::Value, finish: Option<&str>| {
///     json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
/// };
/// let mut stream = ChatStream::new();
/// assert!(stream.push(&chunk(json!({"role": "assistant", "content": null}), None)).is_empty());
/// stream.push(&chunk(json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function",
///     "function": {"name": "search", "arguments": ""}}]}), None));
/// stream.push(&chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"q\": \"caf\\u00"}}]}), None));
/// stream.push(&chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "e9\"}"}}]}), None));
/// // The second call starts: the first is complete, and can run now.
/// let ready = stream.push(&chunk(json!({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
///     "function": {"name": "search", "arguments": "{\"q\": \"tea\"}"}}]}), None));
/// assert_eq!(ready.len(), 1);
/// assert_eq!(ready[0].arguments, "{\"q\": \"caf\\u00e9\"}".into());
/// let rest = stream.push(&chunk(json!({}), Some("tool_calls")));
/// assert_eq!(rest[0].id, "call_b");
/// assert!(stream.finish().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct ChatStream {
    /// Calls begun and not yet returned, by index.
    open: BTreeMap<u64, Pending>,
    /// The highest index started since the last finish.
    highest: Option<u64>,
    /// The ids and names of the calls returned before the finish, by index
    /// (the highest [`MAX_PENDING_CALLS`] indexes).
    returned: BTreeMap<u64, (Option<String>, Option<String>)>,
    /// Calls begun since the last finish: what synthesizes an id when none
    /// came (`call_0`, `call_1`... as in [`tool_calls`], and unique even
    /// when a server gives every call index 0).
    begun: u64,
    max_argument_bytes: usize,
    max_pending: usize,
}

impl Default for ChatStream {
    fn default() -> Self {
        ChatStream {
            open: BTreeMap::new(),
            highest: None,
            returned: BTreeMap::new(),
            begun: 0,
            max_argument_bytes: MAX_ARGUMENT_BYTES,
            max_pending: MAX_PENDING_CALLS,
        }
    }
}

impl ChatStream {
    /// A stream with no call begun, keeping at most [`MAX_ARGUMENT_BYTES`]
    /// per call and [`MAX_PENDING_CALLS`] calls.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps at most `bytes` of argument text per call (a few bytes more
    /// for a call over it, so that binding refuses it as too large). Set
    /// it to a toolbox's own
    /// [`Limits::max_text_bytes`](crate::Limits::max_text_bytes) when they differ
    /// from the default.
    #[must_use]
    pub fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        for call in self.open.values_mut() {
            call.arguments.max_bytes = bytes;
        }
        self
    }

    /// Holds at most `calls` calls at once (at least one): past it, the
    /// call with the lowest index is returned as it stands.
    #[must_use]
    pub fn with_max_pending(mut self, calls: usize) -> Self {
        self.max_pending = calls.max(1);
        self
    }

    /// How many calls are begun and not yet returned (at most the bound of
    /// [`with_max_pending`](Self::with_max_pending)).
    pub fn pending(&self) -> usize {
        self.open.len()
    }

    /// Reads one chunk; returns the calls it completes, in the order they
    /// complete. A chunk that is not one (not an object, no choices, a
    /// usage-only chunk) completes nothing.
    pub fn push(&mut self, chunk: &Value) -> Vec<ToolCall> {
        let mut done = Vec::new();
        if chunk.get("choices").is_none() {
            // Ollama's /api/chat stream: each call whole, in one chunk,
            // numbered across the response.
            if let Some(message) = chunk.get("message").filter(|m| m.is_object()) {
                let held = std::mem::take(&mut self.open);
                done.extend(held.into_values().map(Pending::into_call));
                for entry in entries(message.get("tool_calls")).iter() {
                    done.push(chat_call(self.begun, entry));
                    self.begun = self.begun.saturating_add(1);
                }
            }
            if chunk.get("done") == Some(&Value::Bool(true)) {
                done.extend(self.finish());
            }
            return done;
        }
        let Some(choice) = first_choice(chunk) else {
            return done;
        };
        let deltas = entries(
            choice
                .get("delta")
                .and_then(|delta| delta.get("tool_calls")),
        );
        for (position, delta) in deltas.iter().enumerate() {
            self.delta(position as u64, delta, &mut done);
        }
        if choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
            done.extend(self.finish());
        }
        done
    }

    /// Returns every call still held, in index order, and starts afresh:
    /// call it when the stream ends. A call cut short is returned as it
    /// stands; binding it gives the model feedback.
    pub fn finish(&mut self) -> Vec<ToolCall> {
        self.highest = None;
        self.begun = 0;
        self.returned.clear();
        std::mem::take(&mut self.open)
            .into_values()
            .map(Pending::into_call)
            .collect()
    }

    fn delta(&mut self, position: u64, delta: &Value, done: &mut Vec<ToolCall>) {
        let index = delta
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position);
        let function = delta.get("function");
        let id = id_of(delta.get("id"));
        let name = name_of(function.and_then(|f| f.get("name")));
        let arguments = function.and_then(|f| f.get("arguments"));
        let carries = carries_arguments(arguments);
        let mut name = name;
        // A new call at an index still held: the one held is over.
        let mut begins = false;
        if let Some(held) = self.open.get_mut(&index) {
            let new_id = id.is_some() && held.id.is_some() && id != held.id;
            let after_object = held.name.is_some() && held.arguments.complete();
            if !new_id && after_object && name.is_some() && !carries {
                // The next call's name, or the held one's repeated: which,
                // the next delta tells.
                held.next_name = name;
                return;
            }
            if !new_id && after_object && carries && name.is_none() {
                name = held.next_name.take();
            }
            begins = new_id || (after_object && name.is_some() && carries);
        }
        if begins {
            if let Some(held) = self.open.remove(&index) {
                self.note_returned(index, &held);
                done.push(held.into_call());
            }
        }
        if !self.open.contains_key(&index) {
            if id.is_none() && name.is_none() && !carries {
                return;
            }
            // The call returned from this index, repeated with nothing new:
            // its id again, or, without an id, its name.
            let repeated = self
                .returned
                .get(&index)
                .is_some_and(|(returned_id, returned_name)| match &id {
                    Some(_) => id == *returned_id,
                    None => name.is_none() || name == *returned_name,
                });
            if repeated && !carries {
                return;
            }
            self.start(index, done);
        }
        let Some(call) = self.open.get_mut(&index) else {
            return;
        };
        if call.id.is_none() {
            call.id = id;
        }
        if call.name.is_none() {
            call.name = name;
        }
        call.arguments.push(arguments);
        if self.highest.is_some_and(|highest| highest > index) && call.arguments.complete() {
            if let Some(call) = self.open.remove(&index) {
                self.note_returned(index, &call);
                done.push(call.into_call());
            }
        }
    }

    /// Notes the id of a call returned before the finish, keeping the
    /// highest indexes only.
    fn note_returned(&mut self, index: u64, call: &Pending) {
        self.returned
            .insert(index, (call.id.clone(), call.name.clone()));
        while self.returned.len() > MAX_PENDING_CALLS {
            self.returned.pop_first();
        }
    }

    /// Begins a call at `index`: the complete calls below it are returned,
    /// and the lowest held call too when the stream holds its most.
    fn start(&mut self, index: u64, done: &mut Vec<ToolCall>) {
        if self.highest.is_none_or(|highest| index > highest) {
            self.highest = Some(index);
            let complete: Vec<u64> = self
                .open
                .range(..index)
                .filter(|(_, call)| call.arguments.complete())
                .map(|(&i, _)| i)
                .collect();
            for i in complete {
                if let Some(call) = self.open.remove(&i) {
                    self.note_returned(i, &call);
                    done.push(call.into_call());
                }
            }
        }
        while self.open.len() >= self.max_pending {
            match self.open.pop_first() {
                Some((_, call)) => done.push(call.into_call()),
                None => break,
            }
        }
        let call = Pending::new(self.begun, self.max_argument_bytes);
        self.begun = self.begun.saturating_add(1);
        self.open.insert(index, call);
    }
}

/// The choice of index 0 in a chunk (or the first without an index).
fn first_choice(chunk: &Value) -> Option<&Value> {
    chunk
        .get("choices")?
        .as_array()?
        .iter()
        .find(|choice| match choice.get("index") {
            None | Some(Value::Null) => true,
            Some(index) => index.as_u64() == Some(0),
        })
}

// ---------------------------------------------------------------------
// Responses API streams
// ---------------------------------------------------------------------

/// A function call item begun in a Responses stream.
#[derive(Debug, Clone)]
struct Item {
    output_index: Option<u64>,
    item_id: Option<String>,
    call: Pending,
    /// Already returned: kept until its `response.output_item.done`, so
    /// that event does not return it twice.
    returned: bool,
}

/// The function calls of a streamed Responses API response, each returned
/// as soon as it is complete.
///
/// Push each event in order (the parsed `data` of each server-sent event):
/// - `response.output_item.added` with a `function_call` item begins a
///   call (its `call_id`, `name`, and any `arguments` already there);
/// - `response.function_call_arguments.delta` (`item_id`, `output_index`,
///   `delta`) adds a fragment;
/// - `response.function_call_arguments.done` gives the whole `arguments`,
///   which replace the fragments (unless empty), and returns the call when
///   its name is known;
/// - `response.output_item.done` returns the call if it was not returned
///   yet, its item filling in what is missing (its non-empty `arguments`
///   replace the fragments); an item never announced is returned from the
///   item itself;
/// - `response.completed`, `response.incomplete` and `response.failed`
///   end the response: every call held is returned.
///
/// Events are matched to their call by `output_index`, else by item id
/// (some gateways rewrite item ids between events). A fragment for an item
/// never announced begins a call (its id the item's id, its name empty).
/// Other events are passed over. [`finish`](Self::finish) returns what is
/// left when the stream ends early. Memory is bounded as the
/// [module documentation](self#streams) says; a call returned and still
/// awaiting its `response.output_item.done` counts as held, and when the
/// oldest such record makes room for a new call, that event (if it comes)
/// returns the call a second time.
///
/// ```
/// use canon::openai::ResponsesStream;
/// use serde_json::json;
///
/// let mut stream = ResponsesStream::new();
/// stream.push(&json!({"type": "response.output_item.added", "output_index": 0,
///     "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search", "arguments": ""}}));
/// stream.push(&json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{\"q\":"}));
/// let ready = stream.push(&json!({"type": "response.function_call_arguments.done", "item_id": "fc_1",
///     "output_index": 0, "arguments": "{\"q\": \"x\"}"}));
/// assert_eq!(ready[0].id, "call_1");
/// assert_eq!(ready[0].arguments, "{\"q\": \"x\"}".into());
/// // Its item's own `done` does not return it again.
/// assert!(stream.push(&json!({"type": "response.output_item.done", "output_index": 0,
///     "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
///              "arguments": "{\"q\": \"x\"}", "status": "completed"}})).is_empty());
/// assert!(stream.finish().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct ResponsesStream {
    items: Vec<Item>,
    /// Items begun so far: what synthesizes an id when neither a call id,
    /// an item id nor an output index came.
    begun: u64,
    max_argument_bytes: usize,
    max_pending: usize,
}

impl Default for ResponsesStream {
    fn default() -> Self {
        ResponsesStream {
            items: Vec::new(),
            begun: 0,
            max_argument_bytes: MAX_ARGUMENT_BYTES,
            max_pending: MAX_PENDING_CALLS,
        }
    }
}

impl ResponsesStream {
    /// A stream with no call begun, keeping at most [`MAX_ARGUMENT_BYTES`]
    /// per call and [`MAX_PENDING_CALLS`] calls.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps at most `bytes` of argument text per call, as
    /// [`ChatStream::with_max_argument_bytes`].
    #[must_use]
    pub fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        for item in &mut self.items {
            item.call.arguments.max_bytes = bytes;
        }
        self
    }

    /// Holds at most `calls` calls at once (at least one), counting those
    /// returned and awaiting their `response.output_item.done`: past it,
    /// the oldest is let go (returned first if it was not).
    #[must_use]
    pub fn with_max_pending(mut self, calls: usize) -> Self {
        self.max_pending = calls.max(1);
        self
    }

    /// How many calls are begun and not yet returned.
    pub fn pending(&self) -> usize {
        self.items.iter().filter(|item| !item.returned).count()
    }

    /// Reads one event; returns the calls it completes. An event that is
    /// not one, or not about function calls, completes nothing.
    pub fn push(&mut self, event: &Value) -> Vec<ToolCall> {
        let mut done = Vec::new();
        let output_index = event.get("output_index").and_then(Value::as_u64);
        match event.get("type").and_then(Value::as_str) {
            Some("response.output_item.added") => {
                let Some(item) = event.get("item").filter(|item| is_function_call(item)) else {
                    return done;
                };
                let item_id = id_of(item.get("id"));
                let at = match self.find(output_index, item_id.as_deref()) {
                    Some(at) => at,
                    None => self.begin(output_index, item_id, &mut done),
                };
                let entry = &mut self.items[at];
                if !entry.returned {
                    fill(&mut entry.call, item);
                    entry.call.arguments.push(item.get("arguments"));
                }
            }
            Some("response.function_call_arguments.delta") => {
                let fragment = event.get("delta");
                let item_id = id_of(event.get("item_id"));
                let at = match self.find(output_index, item_id.as_deref()) {
                    Some(at) => at,
                    None if carries_arguments(fragment) => {
                        self.begin(output_index, item_id, &mut done)
                    }
                    None => return done,
                };
                let entry = &mut self.items[at];
                if !entry.returned {
                    entry.call.arguments.push(fragment);
                }
            }
            Some("response.function_call_arguments.done") => {
                let item_id = id_of(event.get("item_id"));
                let at = match self.find(output_index, item_id.as_deref()) {
                    Some(at) => at,
                    None => self.begin(output_index, item_id, &mut done),
                };
                let entry = &mut self.items[at];
                if !entry.returned {
                    if entry.call.name.is_none() {
                        entry.call.name = name_of(event.get("name"));
                    }
                    entry.call.arguments.replace(event.get("arguments"));
                    if entry.call.name.is_some() {
                        entry.returned = true;
                        // Only the record stays, without the arguments.
                        let record = Pending::new(entry.call.position, 0);
                        done.push(std::mem::replace(&mut entry.call, record).into_call());
                    }
                }
            }
            Some("response.output_item.done") => {
                let Some(item) = event.get("item").filter(|item| is_function_call(item)) else {
                    return done;
                };
                let item_id = id_of(item.get("id"));
                match self.find(output_index, item_id.as_deref()) {
                    Some(at) => {
                        let mut entry = self.items.remove(at);
                        if !entry.returned {
                            fill(&mut entry.call, item);
                            entry.call.arguments.replace(item.get("arguments"));
                            done.push(entry.call.into_call());
                        }
                    }
                    None => {
                        let position = output_index.unwrap_or(self.begun);
                        self.begun = self.begun.saturating_add(1);
                        let mut call = Pending::new(position, self.max_argument_bytes);
                        fill(&mut call, item);
                        call.arguments.push(item.get("arguments"));
                        done.push(call.into_call());
                    }
                }
            }
            Some("response.completed" | "response.incomplete" | "response.failed") => {
                done.extend(self.finish());
            }
            _ => {}
        }
        done
    }

    /// Returns every call not yet returned, in the order they began, and
    /// starts afresh: call it when the stream ends. A call cut short is
    /// returned as it stands; binding it gives the model feedback.
    pub fn finish(&mut self) -> Vec<ToolCall> {
        std::mem::take(&mut self.items)
            .into_iter()
            .filter(|item| !item.returned)
            .map(|item| item.call.into_call())
            .collect()
    }

    /// The call an event is about: by output index, else by item id.
    fn find(&self, output_index: Option<u64>, item_id: Option<&str>) -> Option<usize> {
        output_index
            .and_then(|index| {
                self.items
                    .iter()
                    .position(|item| item.output_index == Some(index))
            })
            .or_else(|| {
                let id = item_id?;
                self.items
                    .iter()
                    .position(|item| item.item_id.as_deref() == Some(id))
            })
    }

    /// Begins a call, making room first; returns its place.
    fn begin(
        &mut self,
        output_index: Option<u64>,
        item_id: Option<String>,
        done: &mut Vec<ToolCall>,
    ) -> usize {
        while self.items.len() >= self.max_pending {
            // A record of a call returned goes first, else the oldest call.
            let at = self
                .items
                .iter()
                .position(|item| item.returned)
                .unwrap_or(0);
            let item = self.items.remove(at);
            if !item.returned {
                done.push(item.call.into_call());
            }
        }
        let position = output_index.unwrap_or(self.begun);
        self.begun = self.begun.saturating_add(1);
        let mut call = Pending::new(position, self.max_argument_bytes);
        call.id = item_id.clone();
        self.items.push(Item {
            output_index,
            item_id,
            call,
            returned: false,
        });
        self.items.len() - 1
    }
}

fn is_function_call(item: &Value) -> bool {
    item.get("type").and_then(Value::as_str) == Some("function_call")
}

/// Fills in a call's id (its `call_id` wins over an item id) and name from
/// a `function_call` item.
fn fill(call: &mut Pending, item: &Value) {
    if let Some(call_id) = id_of(item.get("call_id")) {
        call.id = Some(call_id);
    } else if call.id.is_none() {
        call.id = id_of(item.get("id"));
    }
    if call.name.is_none() {
        call.name = name_of(item.get("name"));
    }
}
