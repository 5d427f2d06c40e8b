//! The Anthropic Messages wire format: the `tool_use` blocks of a response
//! (or of its stream) as [`ToolCall`]s, and each call's [`ToolMessage`] back
//! as a `tool_result` block of the next user message.
//!
//! - [`tool_calls`] reads a Messages response, an assistant message or its
//!   `content` array. Every `tool_use` block becomes a call, in order, with
//!   its `input` as [`Arguments::Json`]; text, thinking and server tool
//!   blocks (`server_tool_use`, run by Anthropic) are not calls.
//! - [`user_message`] answers every call of a turn in one user message, as
//!   the API requires; [`tool_result`] is one block of it.
//! - [`MessageStream`] accumulates a streamed response's events into the
//!   same calls.
//! - [`tools`] declares a toolbox's tools (the request's `tools`).
//!
//! # Calls that cannot be read
//! No input makes these functions fail or panic, and no call is dropped: a
//! response is read block by block, and a `tool_use` block with missing or
//! malformed parts is still a call, so that binding it in a [`Toolbox`]
//! gives the model an answer for that call only:
//!
//! | what the server sent | the [`ToolCall`] | what a [`Toolbox`] does with it |
//! |---|---|---|
//! | `input` an object | [`Arguments::Json`] | binds it (repairing near misses) |
//! | `input` a string, array, number or boolean | [`Arguments::Json`] as sent | `Rejected`: expected an object |
//! | `input` missing | `Arguments::Json(Value::Null)` | read as `{}`, recorded as an `empty_arguments` repair |
//! | no `id` (or an empty or non-string one) | id [`MISSING_ID_PREFIX`] and the block's place in `content` | (the result carries that id) |
//! | no `name` (or a non-string one) | name `""` | `NoSuchTool`, listing the tools |
//! | streamed arguments cut short | [`Arguments::Text`] as received | `Rejected`: "the arguments are not valid JSON (EOF while parsing ...); send one JSON object" |
//! | streamed arguments over [`MAX_ARGUMENT_BYTES`] | [`Arguments::Text`], cut just past the bound | `Rejected`: too large |
//! | a streamed call with no fragment (a tool without input) | [`Arguments::Json`] of the block's `input`, `{}` | binds it, with no repair |
//! | a streamed call cut before its first fragment | `Arguments::Text("{")` | `Rejected`: not valid JSON (never run without its arguments) |
//! | a streamed fragment that is not text | [`Arguments::Text`], made unreadable | `Rejected`: not valid JSON |
//!
//! # Streams
//! [`MessageStream`] gives each call out at its `content_block_stop`, so a
//! tool can start before the response ends. Fragments are joined as text,
//! so one may end anywhere, even inside a string or an escape (`"\u00`
//! then `e9"`). Memory is bounded, whatever the stream sends: at most
//! [`MAX_ARGUMENT_BYTES`] (1 MiB, the default
//! [`Limits::max_text_bytes`](crate::Limits::max_text_bytes)) of argument
//! text per call, and at most [`MAX_PENDING_CALLS`] calls open at once;
//! both can be changed per stream
//! ([`MessageStream::with_max_argument_bytes`],
//! [`MessageStream::with_max_pending`]).
//!
//! ```
//! use canon::{anthropic, tool, Toolbox};
//! use serde_json::json;
//!
//! /// Search code in the given data sources.
//! #[tool]
//! fn search_code(data_source_names: Vec<String>, query: String) -> usize {
//!     data_source_names.len()
//! }
//!
//! let mut toolbox = Toolbox::new();
//! toolbox.add(SearchCode).unwrap();
//! let tools = anthropic::tools(&toolbox, false).unwrap(); // the request's "tools"
//! assert_eq!(tools[0]["name"], "search_code");
//!
//! let response = json!({
//!     "id": "msg_01",
//!     "type": "message",
//!     "role": "assistant",
//!     "content": [
//!         {"type": "text", "text": "Let me search."},
//!         {"type": "tool_use", "id": "toolu_01", "name": "search_code",
//!          "input": {"data_source_names": "dotnet/eshop", "query": "basket"}}
//!     ],
//!     "stop_reason": "tool_use"
//! });
//! let calls = anthropic::tool_calls(&response);
//! assert_eq!(calls[0].id, "toolu_01");
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let results = toolbox.call_batch(calls).await;
//! let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
//! assert_eq!(
//!     anthropic::user_message(&messages),
//!     json!({"role": "user", "content": [
//!         {"type": "tool_result", "tool_use_id": "toolu_01", "content": "1"}
//!     ]})
//! );
//! # });
//! ```

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Map, Value};

use crate::export::{Dialect, ExportError};
use crate::toolbox::{Arguments, ToolCall, ToolMessage, Toolbox};

/// The start of the id given to a `tool_use` block that came without one
/// (or with an empty or non-string `id`), followed by the block's position:
/// `canon:tool_use:3` for the fourth block of a response's content (for a
/// stream, its `index`; `unindexed-n` for the `n`th block of a stream that
/// came without one). The API's own ids (`toolu_...`) never contain a
/// `:`, so a made-up id cannot be mistaken for one of them; within one
/// response read by [`tool_calls`] it is also kept distinct from every id
/// the response does give.
pub const MISSING_ID_PREFIX: &str = "canon:tool_use:";

/// The most argument text a [`MessageStream`] keeps for one call, in
/// bytes: 1 MiB, the default
/// [`Limits::max_text_bytes`](crate::Limits::max_text_bytes), the most a
/// [`Toolbox`] with default limits reads. Text past it is not kept: the
/// call keeps a few bytes more than the bound, made unreadable, so that a
/// [`Toolbox`] with default limits refuses it as too large (saying the
/// arguments are `1048577` bytes or so: the bytes kept, not the bytes
/// sent), and any other binder as not JSON; it is never bound cut short.
pub const MAX_ARGUMENT_BYTES: usize = 1 << 20;

/// The most `tool_use` blocks a [`MessageStream`] holds open at once: 32.
/// The API streams one content block at a time, so one is open at a time;
/// a stream that opens more makes the open block with the lowest index
/// complete as it stands (unterminated, see [`MessageStream::finish`]), and
/// anything sent for it later is ignored.
pub const MAX_PENDING_CALLS: usize = 32;

/// Every `tool_use` block of `message`, in order, as a [`ToolCall`] with
/// its `input` as [`Arguments::Json`].
///
/// `message` is a Messages response, an assistant message
/// (`{"role", "content": [...]}`) or its `content` array; anything else
/// holds no call. A block whose `type` is `tool_use` is always a call:
///
/// - without an `id` (or with an empty or non-string one), it is given
///   [`MISSING_ID_PREFIX`] and its position;
/// - without a string `name`, its name is empty, which no tool has, so a
///   [`Toolbox`] answers that the tool does not exist;
/// - its `input` is passed as it is: one that is not an object is refused
///   when bound, with feedback for the model; a missing one is `null`,
///   which a toolbox reads as `{}` and records as an `empty_arguments`
///   repair.
///
/// ```
/// use canon::anthropic;
/// use canon::toolbox::Arguments;
/// use serde_json::json;
///
/// let calls = anthropic::tool_calls(&json!([
///     {"type": "tool_use", "id": "toolu_01", "name": "weather", "input": {"city": "Paris"}},
///     {"type": "tool_use", "name": "weather", "input": {"city": "Lyon"}},
/// ]));
/// assert_eq!(calls[0].arguments, Arguments::Json(json!({"city": "Paris"})));
/// assert_eq!(calls[1].id, "canon:tool_use:1");
/// ```
pub fn tool_calls(message: &Value) -> Vec<ToolCall> {
    let uses: Vec<(usize, &Value)> = content(message)
        .iter()
        .enumerate()
        .filter(|(_, block)| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .collect();
    let given: HashSet<&str> = uses.iter().filter_map(|(_, block)| id_of(block)).collect();
    uses.into_iter()
        .map(|(position, block)| {
            let id = match id_of(block) {
                Some(id) => id.to_owned(),
                None => missing_id(position, &given),
            };
            let input = block.get("input").cloned().unwrap_or(Value::Null);
            ToolCall::new(id, name_of(block), Arguments::Json(input))
        })
        .collect()
}

/// The content blocks of a response, a message or a content array.
fn content(message: &Value) -> &[Value] {
    match message {
        Value::Array(blocks) => blocks,
        Value::Object(members) => match members.get("content") {
            Some(Value::Array(blocks)) => blocks,
            _ => &[],
        },
        _ => &[],
    }
}

/// A block's own id, when it has a usable one.
fn id_of(block: &Value) -> Option<&str> {
    block
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// A block's tool name; empty when it has none.
fn name_of(block: &Value) -> String {
    block
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The id of the block at `position` that came without one: distinct from
/// every id in `given`. Each id tried in vain is one of `given` (the tries
/// of all positions are distinct), so the tries are bounded by the ids.
fn missing_id(position: usize, given: &HashSet<&str>) -> String {
    let mut id = format!("{MISSING_ID_PREFIX}{position}");
    let mut again = 0usize;
    while given.contains(id.as_str()) {
        again += 1;
        id = format!("{MISSING_ID_PREFIX}{position}-{again}");
    }
    id
}

/// One call's result as a `tool_result` block:
/// `{"type": "tool_result", "tool_use_id", "content", "is_error"}`, with
/// `is_error: true` when the call did not run successfully, left out
/// otherwise (the API reads a missing `is_error` as `false`).
///
/// The content is the message's text as a string: the tool's output, or
/// canon's feedback for a call it refused. A message with a
/// [`note`](ToolMessage::note) (a repair note, a truncation marker) has
/// two text blocks instead, the output and then the note, so the output
/// reaches the model exactly as the tool gave it.
///
/// ```
/// use canon::anthropic;
/// use canon::toolbox::ToolMessage;
/// use serde_json::json;
///
/// let message = ToolMessage {
///     id: "toolu_01".into(),
///     name: "weather".into(),
///     text: "The tool `weather` failed: the service is down".into(),
///     note: None,
///     is_error: true,
/// };
/// assert_eq!(
///     anthropic::tool_result(&message),
///     json!({"type": "tool_result", "tool_use_id": "toolu_01",
///            "content": "The tool `weather` failed: the service is down", "is_error": true})
/// );
///
/// let repaired = ToolMessage {
///     id: "toolu_02".into(),
///     name: "weather".into(),
///     text: r#"{"sky":"clear"}"#.into(),
///     note: Some("(Note: /cities was sent as a string and read as a one-element array; send an array.)".into()),
///     is_error: false,
/// };
/// assert_eq!(
///     anthropic::tool_result(&repaired)["content"],
///     json!([{"type": "text", "text": r#"{"sky":"clear"}"#},
///            {"type": "text", "text": repaired.note.as_deref().unwrap()}])
/// );
/// ```
pub fn tool_result(message: &ToolMessage) -> Value {
    let mut block = Map::new();
    block.insert("type".into(), "tool_result".into());
    block.insert("tool_use_id".into(), message.id.clone().into());
    block.insert("content".into(), super::content(message, "text"));
    if message.is_error {
        block.insert("is_error".into(), true.into());
    }
    Value::Object(block)
}

/// The user message answering a turn's calls: `{"role": "user", "content":
/// [tool_result, ...]}`, one [`tool_result`] per message, in order. The API
/// wants every result of a turn in this one message, right after the
/// assistant message that made the calls.
///
/// ```
/// use canon::anthropic;
/// use canon::toolbox::ToolMessage;
///
/// let answer = |id: &str| ToolMessage {
///     id: id.into(),
///     name: "weather".into(),
///     text: "sunny".into(),
///     note: None,
///     is_error: false,
/// };
/// let message = anthropic::user_message(&[answer("toolu_01"), answer("toolu_02")]);
/// assert_eq!(message["role"], "user");
/// assert_eq!(message["content"][1]["tool_use_id"], "toolu_02");
/// ```
pub fn user_message(messages: &[ToolMessage]) -> Value {
    json!({
        "role": "user",
        "content": messages.iter().map(tool_result).collect::<Vec<_>>(),
    })
}

/// The toolbox's tools as the request's `tools` array:
/// `[{"name", "description", "input_schema", "strict"?}]`, from
/// [`Toolbox::export`] in [`Dialect::Anthropic`]. With `strict`, strict
/// tool use: each tool says `"strict": true` and keeps only the keywords
/// the API enforces (canon still checks the others when it binds).
///
/// # Errors
/// The first tool the dialect cannot express, naming the tool, the pointer
/// and the reason.
///
/// ```
/// use canon::{anthropic, tool, Toolbox};
///
/// /// Look up the weather.
/// #[tool]
/// fn weather(city: String) -> String {
///     city
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Weather).unwrap();
/// let tools = anthropic::tools(&toolbox, true).unwrap();
/// assert_eq!(tools[0]["input_schema"]["properties"]["city"]["type"], "string");
/// assert_eq!(tools[0]["strict"], true);
/// ```
pub fn tools(toolbox: &Toolbox, strict: bool) -> Result<Value, ExportError> {
    toolbox.export(Dialect::Anthropic { strict })
}

/// The calls of a streamed Messages response, accumulated from its events
/// (the JSON of each server-sent event's `data`).
///
/// - `content_block_start` with a `tool_use` block opens a call at the
///   event's `index`, with the block's `id` and `name`;
/// - `content_block_delta` with an `input_json_delta` appends its
///   `partial_json` to that call's arguments text (fragments may end
///   anywhere, inside a string or an escape: only the whole text is read);
/// - `content_block_stop` gives out the complete call, its arguments as
///   [`Arguments::Text`]. A call that received no fragment (the API sends
///   none for a tool without input) gets its block's `input` (normally
///   `{}`) as [`Arguments::Json`], so it is not recorded as an
///   `empty_arguments` repair.
///
/// Text, thinking and server tool blocks, `ping`, `message_start`,
/// `message_delta`, `message_stop`, `error` and anything that is not such
/// an event are ignored. A `content_block_start` at an index already open
/// gives out the call open there first, unterminated.
///
/// Memory is bounded: a call keeps at most [`MAX_ARGUMENT_BYTES`] of
/// argument text (a few bytes more once over it, made unreadable, so that
/// it is refused as too large, never bound cut short), and at most
/// [`MAX_PENDING_CALLS`] calls are open at once; see
/// [`with_max_argument_bytes`](Self::with_max_argument_bytes) and
/// [`with_max_pending`](Self::with_max_pending). The work of a
/// [`push`](Self::push) is linear in the size of the event, plus a look at
/// the open calls.
///
/// ```
/// use canon::anthropic::MessageStream;
/// use canon::toolbox::Arguments;
/// use serde_json::json;
///
/// let mut stream = MessageStream::new();
/// let events = [
///     json!({"type": "message_start", "message": {"role": "assistant", "content": []}}),
///     json!({"type": "content_block_start", "index": 0,
///            "content_block": {"type": "tool_use", "id": "toolu_01", "name": "weather", "input": {}}}),
///     json!({"type": "content_block_delta", "index": 0,
///            "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Pa"}}),
///     json!({"type": "content_block_delta", "index": 0,
///            "delta": {"type": "input_json_delta", "partial_json": "ris\"}"}}),
///     json!({"type": "content_block_stop", "index": 0}),
///     json!({"type": "message_stop"}),
/// ];
/// let mut calls = Vec::new();
/// for event in &events {
///     calls.extend(stream.push(event));
/// }
/// calls.extend(stream.finish());
/// assert_eq!(calls.len(), 1);
/// assert_eq!(calls[0].name, "weather");
/// assert_eq!(calls[0].arguments, Arguments::Text(r#"{"city": "Paris"}"#.into()));
/// ```
#[derive(Debug, Clone)]
pub struct MessageStream {
    /// The open `tool_use` blocks, by index.
    open: BTreeMap<u64, Open>,
    /// `tool_use` blocks begun since the last finish: names a block that
    /// came with neither id nor index (`canon:tool_use:unindexed-4`).
    begun: u64,
    max_argument_bytes: usize,
    max_pending: usize,
}

/// A `tool_use` block being streamed.
#[derive(Debug, Clone)]
struct Open {
    id: String,
    name: String,
    /// The block's `input` at its start (`{}` from the API).
    input: Value,
    /// The arguments text received so far.
    text: String,
    /// Past the bound, or given a fragment that is not text: the text is
    /// unreadable on purpose.
    spoiled: bool,
}

impl Open {
    /// The call of a block whose `content_block_stop` came.
    fn complete(self) -> ToolCall {
        let arguments = if self.text.is_empty() {
            Arguments::Json(match self.input {
                Value::Null => Value::Object(Map::new()),
                input => input,
            })
        } else {
            Arguments::Text(self.text)
        };
        ToolCall::new(self.id, self.name, arguments)
    }

    /// The call of a block whose stop never came: its text as it stands,
    /// which binds only if it is already complete JSON. With no text at
    /// all, the block's own `input` if it holds any argument; otherwise the
    /// text `{`, so the call is refused as cut short (the arguments ended
    /// before their object did) rather than run without arguments.
    fn unterminated(self) -> ToolCall {
        if !self.text.is_empty() {
            return ToolCall::new(self.id, self.name, Arguments::Text(self.text));
        }
        let arguments = match self.input {
            Value::Object(members) if !members.is_empty() => {
                Arguments::Json(Value::Object(members))
            }
            _ => Arguments::Text("{".into()),
        };
        ToolCall::new(self.id, self.name, arguments)
    }

    /// Appends a fragment, keeping the text within `max` bytes: past it,
    /// the text is cut at a character boundary and filled with NUL
    /// characters to just over `max` bytes. A NUL is never valid in JSON
    /// text, inside a string or out, so the cut text is never read.
    fn append(&mut self, fragment: &str, max: usize) {
        if self.spoiled {
            return;
        }
        let room = max.saturating_sub(self.text.len());
        if fragment.len() <= room {
            self.text.push_str(fragment);
            return;
        }
        let mut end = room;
        while !fragment.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(fragment.get(..end).unwrap_or_default());
        while self.text.len() <= max {
            self.text.push('\0');
        }
        self.spoiled = true;
    }

    /// A fragment that is not text: the call cannot be read, and must not
    /// be bound without it.
    fn spoil(&mut self) {
        if !self.spoiled {
            self.text.push('\0');
            self.spoiled = true;
        }
    }
}

impl Default for MessageStream {
    fn default() -> Self {
        MessageStream {
            open: BTreeMap::new(),
            begun: 0,
            max_argument_bytes: MAX_ARGUMENT_BYTES,
            max_pending: MAX_PENDING_CALLS,
        }
    }
}

impl MessageStream {
    /// A stream with nothing open, keeping at most [`MAX_ARGUMENT_BYTES`]
    /// per call and [`MAX_PENDING_CALLS`] calls.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps at most `bytes` of argument text per call (a few bytes more
    /// for a call over it, so that binding refuses it as too large). Set
    /// it to a toolbox's own
    /// [`Limits::max_text_bytes`](crate::Limits::max_text_bytes) when they
    /// differ from the default ([`Toolbox::with_limits`]).
    #[must_use]
    pub fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.max_argument_bytes = bytes;
        self
    }

    /// Holds at most `calls` calls open at once (at least one): past it,
    /// the open call with the lowest index is given out as it stands.
    #[must_use]
    pub fn with_max_pending(mut self, calls: usize) -> Self {
        self.max_pending = calls.max(1);
        self
    }

    /// Reads one event; returns the calls it completes (at most a few: the
    /// call its `content_block_stop` ends, or calls cut short by a block
    /// opened over them). Never fails: an event that is not one of those
    /// above is ignored.
    pub fn push(&mut self, event: &Value) -> Vec<ToolCall> {
        let index = event.get("index").and_then(Value::as_u64);
        match event.get("type").and_then(Value::as_str) {
            Some("content_block_start") => self.start(index, event.get("content_block")),
            Some("content_block_delta") => {
                if let Some(open) = index.and_then(|index| self.open.get_mut(&index)) {
                    let delta = event.get("delta");
                    if delta.and_then(|d| d.get("type")).and_then(Value::as_str)
                        == Some("input_json_delta")
                    {
                        match delta.and_then(|d| d.get("partial_json")) {
                            Some(Value::String(fragment)) => {
                                open.append(fragment, self.max_argument_bytes)
                            }
                            _ => open.spoil(),
                        }
                    }
                }
                Vec::new()
            }
            Some("content_block_stop") => index
                .and_then(|index| self.open.remove(&index))
                .map(Open::complete)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Gives out every call still open, unterminated, in index order, and
    /// leaves the stream empty for the next response. Call it when the
    /// stream ends; after a complete response it returns nothing.
    ///
    /// An unterminated call's arguments are the text received so far: a
    /// stream cut inside the arguments gives text that is not JSON, so
    /// binding refuses that call, with feedback saying so, and only that
    /// call. (Text that is already complete JSON binds: nothing can follow
    /// a JSON object's last brace.) A call cut before its first fragment is
    /// refused the same way, never run without its arguments.
    ///
    /// ```
    /// use canon::anthropic::MessageStream;
    /// use canon::toolbox::Arguments;
    /// use serde_json::json;
    ///
    /// let mut stream = MessageStream::new();
    /// stream.push(&json!({"type": "content_block_start", "index": 1,
    ///     "content_block": {"type": "tool_use", "id": "toolu_02", "name": "weather", "input": {}}}));
    /// stream.push(&json!({"type": "content_block_delta", "index": 1,
    ///     "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Ly"}}));
    /// let cut = stream.finish();
    /// assert_eq!(cut[0].arguments, Arguments::Text("{\"city\": \"Ly".into()));
    /// assert_eq!(stream.pending(), 0);
    /// ```
    pub fn finish(&mut self) -> Vec<ToolCall> {
        self.begun = 0;
        std::mem::take(&mut self.open)
            .into_values()
            .map(Open::unterminated)
            .collect()
    }

    /// How many calls are open (started, not yet stopped): at most the
    /// bound of [`with_max_pending`](Self::with_max_pending).
    pub fn pending(&self) -> usize {
        self.open.len()
    }

    /// The bytes of argument text held for the open calls: at most a few
    /// bytes over [`with_max_argument_bytes`](Self::with_max_argument_bytes)
    /// per open call.
    pub fn buffered_bytes(&self) -> usize {
        self.open.values().map(|open| open.text.len()).sum()
    }

    /// A `content_block_start` at `index`.
    fn start(&mut self, index: Option<u64>, block: Option<&Value>) -> Vec<ToolCall> {
        let mut done = Vec::new();
        if let Some(previous) = index.and_then(|index| self.open.remove(&index)) {
            done.push(previous.unterminated());
        }
        let Some(block) =
            block.filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        else {
            return done;
        };
        let id = match (id_of(block), index) {
            (Some(id), _) => id.to_owned(),
            (None, Some(index)) => format!("{MISSING_ID_PREFIX}{index}"),
            (None, None) => format!("{MISSING_ID_PREFIX}unindexed-{}", self.begun),
        };
        self.begun = self.begun.saturating_add(1);
        let open = Open {
            id,
            name: name_of(block),
            input: block.get("input").cloned().unwrap_or(Value::Null),
            text: String::new(),
            spoiled: false,
        };
        let Some(index) = index else {
            // No delta or stop can name it: it is given out as it stands.
            done.push(open.unterminated());
            return done;
        };
        if self.open.len() >= self.max_pending {
            if let Some((_, first)) = self.open.pop_first() {
                done.push(first.unterminated());
            }
        }
        self.open.insert(index, open);
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_argument_bound_is_the_default_text_limit() {
        assert_eq!(MAX_ARGUMENT_BYTES, crate::Limits::default().max_text_bytes);
    }

    #[test]
    fn a_fragment_past_the_limit_is_cut_at_a_character_and_spoiled() {
        let mut open = Open {
            id: "a".into(),
            name: "t".into(),
            input: Value::Null,
            text: String::new(),
            spoiled: false,
        };
        open.append("{\"é", 3);
        assert_eq!(open.text, "{\"\0\0");
        assert!(open.spoiled);
        open.append("x", 3);
        assert_eq!(open.text, "{\"\0\0");
    }
}
