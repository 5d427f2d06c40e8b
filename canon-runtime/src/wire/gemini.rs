//! The Gemini `generateContent` wire format: the `functionCall` parts of a
//! response as [`ToolCall`]s, and each call's [`ToolMessage`] back as a
//! `functionResponse` part of the next user content.
//!
//! - [`tool_calls`] reads a response (its first candidate), a content
//!   (`{"role", "parts"}`) or a parts array. Every `functionCall` part
//!   becomes a call, in order, with its `args` as [`Arguments::Json`].
//! - Gemini often sends no `id`: such a call gets one made of
//!   [`SYNTHESIZED_ID_PREFIX`] and the part's position, and its
//!   [`function_response`] leaves the id out, as it came, so Gemini matches
//!   the response to the call by name and order.
//! - [`user_content`] answers every call of a turn in one content, with
//!   role `user`; [`function_response`] is one part of it.
//! - [`GenerateContentStream`] reads a `streamGenerateContent` response
//!   chunk by chunk, keeping made-up ids distinct across chunks.
//! - [`tools`] declares a toolbox's tools (the request's `tools`).
//!
//! Gemini sends every number as a double (`3.0` for `3`): binding reads an
//! integral double as the integer it is, so nothing is needed here.
//!
//! # Calls that cannot be read
//! No input makes these functions fail or panic, and no call is dropped: a
//! response is read part by part, and a part with a `functionCall` member
//! is always a call, so that binding it in a [`Toolbox`] gives the model an
//! answer for that call only:
//!
//! | what the server sent | the [`ToolCall`] | what a [`Toolbox`] does with it |
//! |---|---|---|
//! | `args` an object | [`Arguments::Json`] | binds it (repairing near misses) |
//! | `args` missing or `null` (a function without parameters) | `Arguments::Json({})` | binds it, with no repair |
//! | `args` a string, array, number or boolean | [`Arguments::Json`] as sent | `Rejected`: expected an object |
//! | no `id` (or an empty or non-string one) | id [`SYNTHESIZED_ID_PREFIX`] and the part's place in `parts` | (the response leaves the id out) |
//! | no `name` (or a non-string one), or a `functionCall` that is not an object | name `""` | `NoSuchTool`, listing the tools |
//!
//! A response Gemini itself refused (`finishReason`
//! `MALFORMED_FUNCTION_CALL`, with no content) holds no call to answer.
//! Vertex AI's streamed function call arguments (`partialArgs`,
//! `willContinue`; not in the Gemini API) are not assembled: the part that
//! begins such a call is a call whose arguments are cut short (the text
//! `{`), so binding refuses it and it never runs without its arguments,
//! and the parts that continue it (`partialArgs` without a `name`) are
//! passed over. Turn that option off to have calls bound.
//!
//! ```
//! use canon::{gemini, tool, Toolbox};
//! use serde_json::json;
//!
//! /// Search code in the given data sources.
//! #[tool]
//! fn search_code(data_source_names: Vec<String>, limit: Option<u32>) -> usize {
//!     data_source_names.len()
//! }
//!
//! let mut toolbox = Toolbox::new();
//! toolbox.add(SearchCode).unwrap();
//! let tools = gemini::tools(&toolbox).unwrap(); // the request's "tools"
//! assert_eq!(tools[0]["functionDeclarations"][0]["name"], "search_code");
//!
//! let response = json!({"candidates": [{"content": {"role": "model", "parts": [
//!     {"functionCall": {"name": "search_code",
//!                       "args": {"data_source_names": "dotnet/eshop", "limit": 3.0}}}
//! ]}}]});
//! let calls = gemini::tool_calls(&response);
//! assert_eq!(calls[0].id, "canon:call:0"); // Gemini gave none
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let results = toolbox.call_batch(calls).await;
//! let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
//! assert_eq!(
//!     gemini::user_content(&messages),
//!     json!({"role": "user", "parts": [
//!         {"functionResponse": {"name": "search_code", "response": {"output": "1"}}}
//!     ]})
//! );
//! # });
//! ```

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use crate::export::{Dialect, ExportError};
use crate::toolbox::{Arguments, ToolCall, ToolMessage, Toolbox};

/// The start of the id made up for a `functionCall` that came without one
/// (or with an empty or non-string `id`), followed by the part's position:
/// `canon:call:2` for the third part of a response's content. An id with
/// this start is taken for a made-up one by [`function_response`], which
/// leaves it out (so would be an id Gemini itself sent with this start,
/// which costs only the id: Gemini still matches the response by name and
/// order). Within one response read by [`tool_calls`], a made-up id is
/// kept distinct from every id the response does give.
pub const SYNTHESIZED_ID_PREFIX: &str = "canon:call:";

/// Whether `id` was made up by this module for a call Gemini sent without
/// one (it starts with [`SYNTHESIZED_ID_PREFIX`]).
///
/// ```
/// use canon::gemini;
/// use serde_json::json;
///
/// let calls = gemini::tool_calls(&json!([
///     {"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
///     {"functionCall": {"name": "weather", "args": {"city": "Lyon"}, "id": "fc-7"}},
/// ]));
/// assert!(gemini::is_synthesized_id(&calls[0].id));
/// assert!(!gemini::is_synthesized_id(&calls[1].id));
/// ```
pub fn is_synthesized_id(id: &str) -> bool {
    id.starts_with(SYNTHESIZED_ID_PREFIX)
}

/// Every `functionCall` part of `response`, in order, as a [`ToolCall`]
/// with its `args` as [`Arguments::Json`].
///
/// `response` is a `generateContent` response (the parts of
/// `candidates[0].content`; pass `candidates[i].content` for another
/// candidate), a content (`{"role", "parts": [...]}`) or a parts array;
/// anything else holds no call. A part with a `functionCall` member is
/// always a call:
///
/// - without an `id` (or with an empty or non-string one), it gets
///   [`SYNTHESIZED_ID_PREFIX`] and the part's position;
/// - without a string `name`, its name is empty, which no tool has, so a
///   [`Toolbox`] answers that the tool does not exist;
/// - without `args` (or with `null`), its arguments are `{}`: Gemini leaves
///   `args` out for a function without parameters. Other `args` are passed
///   as they are: ones that are not an object are refused when bound, with
///   feedback for the model.
///
/// ```
/// use canon::gemini;
/// use canon::toolbox::Arguments;
/// use serde_json::json;
///
/// let calls = gemini::tool_calls(&json!({"role": "model", "parts": [
///     {"text": "Checking both."},
///     {"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
///     {"functionCall": {"name": "time"}},
/// ]}));
/// assert_eq!(calls[0].id, "canon:call:1");
/// assert_eq!(calls[0].arguments, Arguments::Json(json!({"city": "Paris"})));
/// assert_eq!(calls[1].arguments, Arguments::Json(json!({})));
/// ```
pub fn tool_calls(response: &Value) -> Vec<ToolCall> {
    calls(parts(response), 0)
}

/// The calls among `parts`, the first of which is at `offset` in the
/// response.
fn calls(parts: &[Value], offset: usize) -> Vec<ToolCall> {
    let calls: Vec<(usize, &Value)> = parts
        .iter()
        .enumerate()
        .filter_map(|(position, part)| {
            part.get("functionCall")
                .filter(|call| !continues(call))
                .map(|call| (offset.saturating_add(position), call))
        })
        .collect();
    let given: HashSet<&str> = calls.iter().filter_map(|(_, call)| id_of(call)).collect();
    calls
        .into_iter()
        .map(|(position, call)| {
            let id = match id_of(call) {
                Some(id) => id.to_owned(),
                None => synthesized_id(position, &given),
            };
            to_call(id, call)
        })
        .collect()
}

/// The parts of a response's first candidate, of a content, or of a parts
/// array.
fn parts(response: &Value) -> &[Value] {
    let content = match response {
        Value::Array(parts) => return parts,
        Value::Object(members) => match members.get("candidates") {
            Some(candidates) => candidates.get(0).and_then(|c| c.get("content")),
            None => Some(response),
        },
        _ => None,
    };
    match content.and_then(|c| c.get("parts")) {
        Some(Value::Array(parts)) => parts,
        _ => &[],
    }
}

/// A call's own id, when it has a usable one.
fn id_of(call: &Value) -> Option<&str> {
    call.get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// True for a part that continues a call whose arguments are streamed
/// (Vertex AI's `partialArgs`, with no `name`): not a call of its own.
fn continues(call: &Value) -> bool {
    call.get("partialArgs").is_some() && call.get("name").is_none()
}

/// True for a call whose arguments are streamed in later parts: what it
/// holds is not the whole call.
fn streamed(call: &Value) -> bool {
    call.get("willContinue") == Some(&Value::Bool(true)) || call.get("partialArgs").is_some()
}

/// The call of a `functionCall` member, with `id`.
fn to_call(id: String, call: &Value) -> ToolCall {
    let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
    if streamed(call) {
        // Cut short, as a stream ended early is: refused, never run.
        return ToolCall::new(id, name, Arguments::Text("{".to_owned()));
    }
    let args = match call.get("args") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(args) => args.clone(),
    };
    ToolCall::new(id, name, Arguments::Json(args))
}

/// The id of the call at `position` that came without one: distinct from
/// every id in `given`. Each id tried in vain is one of `given` (the tries
/// of all positions are distinct), so the tries are bounded by the ids.
fn synthesized_id(position: usize, given: &HashSet<&str>) -> String {
    let mut id = format!("{SYNTHESIZED_ID_PREFIX}{position}");
    let mut again = 0usize;
    while given.contains(id.as_str()) {
        again += 1;
        id = format!("{SYNTHESIZED_ID_PREFIX}{position}-{again}");
    }
    id
}

/// One call's result as a `functionResponse` part:
/// `{"functionResponse": {"name", "response", "id"?}}`.
///
/// - `response` is the object Gemini documents: `{"output": ...}` when the
///   call ran, `{"error": text}` when it did not (canon's feedback for a
///   refused call, or the tool's failure).
/// - The output is the message's text, as a string; but text that is a
///   JSON object or array (a tool's structured output, as a [`Toolbox`]
///   renders it) is sent as that value, so Gemini reads its structure.
///   An output cut at the toolbox's limit is no longer JSON and stays a
///   string.
/// - The message's [`note`](ToolMessage::note) (a repair note, a
///   truncation marker), when there is one, is a field of its own beside
///   the output, `{"output": ..., "note": text}`, never part of it.
/// - `id` is the call's id, left out when it was made up
///   ([`is_synthesized_id`]): Gemini sent none, and matches the response by
///   name and order.
///
/// ```
/// use canon::gemini;
/// use canon::toolbox::ToolMessage;
/// use serde_json::json;
///
/// let ran = ToolMessage {
///     id: "fc-1".into(),
///     name: "weather".into(),
///     text: r#"{"sky":"clear","celsius":21}"#.into(),
///     note: None,
///     is_error: false,
/// };
/// assert_eq!(
///     gemini::function_response(&ran),
///     json!({"functionResponse": {"name": "weather",
///            "response": {"output": {"sky": "clear", "celsius": 21}}, "id": "fc-1"}})
/// );
///
/// let repaired = ToolMessage {
///     note: Some("(Note: /cities was sent as a string and read as a one-element array; send an array.)".into()),
///     ..ran
/// };
/// assert_eq!(
///     gemini::function_response(&repaired)["functionResponse"]["response"],
///     json!({"output": {"sky": "clear", "celsius": 21},
///            "note": "(Note: /cities was sent as a string and read as a one-element array; send an array.)"})
/// );
///
/// let refused = ToolMessage {
///     id: "canon:call:0".into(),
///     name: "weather".into(),
///     text: "The call to `weather` was not run. ...".into(),
///     note: None,
///     is_error: true,
/// };
/// assert_eq!(
///     gemini::function_response(&refused),
///     json!({"functionResponse": {"name": "weather",
///            "response": {"error": "The call to `weather` was not run. ..."}}})
/// );
/// ```
pub fn function_response(message: &ToolMessage) -> Value {
    let response = if message.is_error {
        json!({ "error": message.text })
    } else {
        let mut response = Map::new();
        response.insert("output".into(), output(&message.text));
        if let Some(note) = &message.note {
            response.insert("note".into(), note.clone().into());
        }
        Value::Object(response)
    };
    let mut inner = Map::new();
    inner.insert("name".into(), message.name.clone().into());
    inner.insert("response".into(), response);
    if !message.id.is_empty() && !is_synthesized_id(&message.id) {
        inner.insert("id".into(), message.id.clone().into());
    }
    json!({ "functionResponse": inner })
}

/// The output of a call that ran: its text, or the JSON object or array
/// the text is.
fn output(text: &str) -> Value {
    if text.trim_start().starts_with(['{', '[']) {
        if let Ok(value @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str(text) {
            return value;
        }
    }
    Value::String(text.to_owned())
}

/// The content answering a turn's calls: `{"role": "user", "parts":
/// [functionResponse, ...]}`, one [`function_response`] per message, in
/// order (the order of the calls, which Gemini uses to match responses
/// without ids).
///
/// The role is `user`: Gemini's `Content.role` is `user` or `model`, and
/// the google-genai SDK's own automatic function calling sends function
/// responses as `user` content.
///
/// ```
/// use canon::gemini;
/// use canon::toolbox::ToolMessage;
///
/// let answer = |id: &str| ToolMessage {
///     id: id.into(),
///     name: "weather".into(),
///     text: "sunny".into(),
///     note: None,
///     is_error: false,
/// };
/// let content = gemini::user_content(&[answer("canon:call:0"), answer("canon:call:1")]);
/// assert_eq!(content["role"], "user");
/// assert_eq!(content["parts"][1]["functionResponse"]["response"]["output"], "sunny");
/// ```
pub fn user_content(messages: &[ToolMessage]) -> Value {
    json!({
        "role": "user",
        "parts": messages.iter().map(function_response).collect::<Vec<_>>(),
    })
}

/// The toolbox's tools as the request's `tools` array:
/// `[{"functionDeclarations": [{"name", "description", "parameters"?}]}]`,
/// from [`Toolbox::export`] in [`Dialect::Gemini`] (an OpenAPI 3.0
/// `parameters`, left out for a tool without any).
///
/// # Errors
/// The first tool the dialect cannot express (a recursive type, a map),
/// naming the tool, the pointer and the reason.
///
/// ```
/// use canon::{gemini, tool, Toolbox};
///
/// /// Look up the weather.
/// #[tool]
/// fn weather(city: String) -> String {
///     city
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Weather).unwrap();
/// let tools = gemini::tools(&toolbox).unwrap();
/// assert_eq!(tools[0]["functionDeclarations"][0]["parameters"]["properties"]["city"]["type"], "string");
/// ```
pub fn tools(toolbox: &Toolbox) -> Result<Value, ExportError> {
    Ok(Value::Array(vec![toolbox.export(Dialect::Gemini)?]))
}

/// The calls of a `streamGenerateContent` response, read chunk by chunk.
///
/// Gemini streams each `functionCall` whole, inside one chunk, so each
/// chunk's calls are given out as soon as it is pushed. What this adds to
/// [`tool_calls`] on each chunk is the position: a made-up id counts the
/// parts of every chunk before, so two calls without ids in two chunks
/// never share one. Nothing is held but that count.
///
/// ```
/// use canon::gemini::GenerateContentStream;
/// use serde_json::json;
///
/// let mut stream = GenerateContentStream::new();
/// let chunk = |city: &str| json!({"candidates": [{"content": {"role": "model", "parts": [
///     {"functionCall": {"name": "weather", "args": {"city": city}}}
/// ]}}]});
/// let first = stream.push(&chunk("Paris"));
/// let second = stream.push(&chunk("Lyon"));
/// assert_eq!(first[0].id, "canon:call:0");
/// assert_eq!(second[0].id, "canon:call:1");
/// assert!(stream.finish().is_empty());
/// ```
#[derive(Debug, Clone, Default)]
pub struct GenerateContentStream {
    /// The parts of the chunks pushed so far.
    parts: usize,
}

impl GenerateContentStream {
    /// A stream at its start.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one chunk (a response, a content or a parts array, as
    /// [`tool_calls`] takes); returns its calls. A made-up id is
    /// [`SYNTHESIZED_ID_PREFIX`] and the part's position in the whole
    /// stream.
    pub fn push(&mut self, chunk: &Value) -> Vec<ToolCall> {
        let parts = parts(chunk);
        let offset = self.parts;
        self.parts = self.parts.saturating_add(parts.len());
        calls(parts, offset)
    }

    /// Ends the stream and starts the next one at position 0. Gemini sends
    /// no call in pieces, so none is left open: always empty (kept for the
    /// same shape as the other providers' streams).
    pub fn finish(&mut self) -> Vec<ToolCall> {
        self.parts = 0;
        Vec::new()
    }
}
