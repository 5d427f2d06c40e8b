//! [`canon::openai`](super) on async-openai's types (feature
//! `async-openai`): the tool calls of a typed response or stream, and each
//! call's answer as a typed request message, one call each.
//!
//! | | calls in | results out | stream | tools declared |
//! |---|---|---|---|---|
//! | Chat Completions | [`tool_calls`] (a [`CreateChatCompletionResponse`], its message, ...) | [`tool_message(s)`](tool_messages) ([`ChatCompletionRequestMessage`]); [`assistant_message`] | [`ChatStream::push_chunk`] | [`tools`] ([`ChatCompletionTools`]) |
//! | Responses API | [`function_calls`] (a [`Response`], its `output`, ...) | [`function_call_output(s)`](function_call_outputs) ([`InputItem`]) | [`ResponsesStream::push_event`] | [`response_tools`] ([`Tool`]) |
//!
//! Each reads and writes exactly what its namesake in
//! [`canon::openai`](super) does: for any payload async-openai reads, the
//! calls here are the calls the `serde_json::Value` functions give for the
//! same JSON (same ids, names and arguments, near misses repaired by the
//! same toolbox, the same id `call_{i}` for a call sent with an empty one),
//! and everything built here serializes to the JSON they build. Nothing
//! here fails or panics: the results and tools are built field by field,
//! never by deserializing.
//!
//! ```
//! use async_openai::types::chat::{
//!     ChatCompletionRequestUserMessage, CreateChatCompletionRequest, CreateChatCompletionResponse,
//! };
//! use canon::openai::async_openai as aoai;
//! use canon::{tool, Toolbox};
//!
//! /// Search code in the given repositories.
//! #[tool]
//! fn search_code(repos: Vec<String>, query: String) -> usize {
//!     repos.len()
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let mut toolbox = Toolbox::new().with_repair_notes(true);
//! toolbox.add(SearchCode)?;
//! let mut request = CreateChatCompletionRequest {
//!     model: "gpt-4.1-mini".into(),
//!     messages: vec![ChatCompletionRequestUserMessage::from("Where is the basket?").into()],
//!     tools: Some(aoai::tools(&toolbox, true)?),
//!     ..Default::default()
//! };
//!
//! // What `client.chat().create(request.clone()).await?` returns: a near
//! // miss (one string for an array of strings) and a call cut short.
//! let response: CreateChatCompletionResponse = serde_json::from_str(r#"{
//!     "id": "chatcmpl-1", "object": "chat.completion", "created": 1764750000, "model": "gpt-4.1-mini",
//!     "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
//!         "role": "assistant", "content": null, "tool_calls": [
//!             {"id": "call_1", "type": "function", "function": {"name": "search_code",
//!              "arguments": "{\"repos\": \"dotnet/eshop\", \"query\": \"basket\"}"}},
//!             {"id": "call_2", "type": "function", "function": {"name": "search_code",
//!              "arguments": "{\"repos\": [\"a\"], \"qu"}}
//!         ]}}]
//! }"#)?;
//!
//! let calls = aoai::tool_calls(&response);
//! let results = toolbox.call_batch(calls).await;
//! let messages: Vec<_> = results.iter().map(|r| toolbox.message(r)).collect();
//! request.messages.push(aoai::assistant_message(&response.choices[0].message));
//! request.messages.extend(aoai::tool_messages(&messages));
//!
//! // The next request carries the calls and their answers: the near miss
//! // ran, the cut call did not, and the model is told why.
//! let sent = serde_json::to_value(&request)?;
//! assert_eq!(sent["messages"][2]["role"], "tool");
//! assert_eq!(sent["messages"][2]["tool_call_id"], "call_1");
//! // The near miss's output, then canon's note in a part of its own.
//! assert_eq!(sent["messages"][2]["content"][0]["text"], "1");
//! assert!(sent["messages"][2]["content"][1]["text"].as_str().unwrap().starts_with("(Note: /repos"));
//! assert!(sent["messages"][3]["content"].as_str().unwrap().contains("not valid JSON"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The Responses API reads the same way: [`function_calls`] on a
//! [`Response`], then [`function_call_outputs`] as the `input` of the next
//! [`CreateResponse`](::async_openai::types::responses::CreateResponse)
//! (with `previous_response_id` set to the response's id), and
//! [`response_tools`] as its `tools`.
//!
//! # Streams
//! [`ChatStream::push_chunk`] and [`ResponsesStream::push_event`] feed
//! async-openai's stream items to canon's [`ChatStream`] and
//! [`ResponsesStream`]: each call is returned as soon as its arguments are
//! complete, fragments may split a string or an escape anywhere, and memory
//! is bounded, exactly as the [stream documentation](super#streams) says.
//!
//! ```
//! use async_openai::types::chat::CreateChatCompletionStreamResponse;
//! use canon::openai::ChatStream;
//!
//! let chunk = |tool_calls: &str, finish: &str| -> CreateChatCompletionStreamResponse {
//!     serde_json::from_str(&format!(r#"{{"id": "chatcmpl-2", "object": "chat.completion.chunk",
//!         "created": 1764750001, "model": "gpt-4.1-mini",
//!         "choices": [{{"index": 0, "delta": {{"tool_calls": {tool_calls}}}, "finish_reason": {finish}}}]}}"#))
//!     .unwrap()
//! };
//! let mut stream = ChatStream::new();
//! stream.push_chunk(&chunk(r#"[{"index": 0, "id": "call_a", "type": "function",
//!     "function": {"name": "search", "arguments": "{\"q\": \"caf\\u00"}}]"#, "null"));
//! stream.push_chunk(&chunk(r#"[{"index": 0, "function": {"arguments": "e9\"}"}}]"#, "null"));
//! // The second call starts: the first is complete, and can run now.
//! let ready = stream.push_chunk(&chunk(r#"[{"index": 1, "id": "call_b", "type": "function",
//!     "function": {"name": "search", "arguments": "{}"}}]"#, "null"));
//! assert_eq!(ready[0].arguments, "{\"q\": \"caf\\u00e9\"}".into());
//! let rest = stream.push_chunk(&chunk("null", "\"tool_calls\""));
//! assert_eq!(rest[0].id, "call_b");
//! ```
//!
//! # What async-openai refuses before canon sees it
//! async-openai deserializes a whole response (or chunk, or event) into its
//! types, and refuses all of it when one part does not fit them. canon's
//! promise that a malformed call is answered on its own (see
//! [`canon::openai`](super#calls-that-cannot-be-read)) holds here for what
//! async-openai lets through: text arguments cut short or not JSON, empty
//! arguments, empty ids or names. async-openai refuses the whole response
//! when it holds any of these, before canon sees a call of it:
//!
//! - `arguments` sent as an object (Ollama, some OpenAI-compatible
//!   servers), `null` or missing, or `function.name` missing;
//! - a call without `type` or `id` (Ollama), and a streamed delta without
//!   an `index` (older Ollama builds);
//! - a custom tool call as OpenAI sends it (`"custom": {...}`:
//!   async-openai 0.43 expects `custom_tool`);
//! - a `function_call` item without `call_id`, `name` or `arguments`, and
//!   a Responses `usage` without `input_tokens_details` and
//!   `output_tokens_details` (OpenAI sends them; not every compatible
//!   server does);
//! - a `finish_reason`, `role` or stream event type async-openai does not
//!   know.
//!
//! Nothing is lost: async-openai's error for such a body,
//! `OpenAIError::JSONDeserialize(error, text)`, carries its text. Read it
//! as a `serde_json::Value` and give it to the functions of
//! [`canon::openai`](super), which read every call of it
//! ([`canon::openai::tool_calls`](super::tool_calls),
//! [`canon::openai::function_calls`](super::function_calls)). A stream goes
//! on after such an item: push its value to the same stream with
//! [`ChatStream::push`] (or [`ResponsesStream::push`]), so that no fragment
//! is skipped, and go on with `push_chunk`. A server that sends such bodies
//! all the time is read as values throughout (async-openai's `byot`
//! feature: `client.chat().create_byot::<_, serde_json::Value>(request)`).
//!
//! Calls canon reads from what async-openai accepts:
//! - a custom tool call (`"type": "custom"`) is not a function call canon
//!   declared: it is returned with an empty name and empty arguments (as
//!   [`canon::openai::tool_calls`](super::tool_calls) reads it), so a
//!   toolbox answers it "no tool named";
//! - the arguments are always
//!   [`Arguments::Text`](crate::toolbox::Arguments::Text), as sent.

use ::async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestAssistantMessage,
    ChatCompletionRequestAssistantMessageAudio, ChatCompletionRequestMessage,
    ChatCompletionRequestToolMessage, ChatCompletionRequestToolMessageContent,
    ChatCompletionRequestToolMessageContentPart, ChatCompletionResponseMessage,
    ChatCompletionStreamResponseDelta, ChatCompletionTool, ChatCompletionTools,
    CreateChatCompletionResponse, CreateChatCompletionStreamResponse, FunctionObject,
};
use ::async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, FunctionTool, FunctionToolCall, InputContent,
    InputItem, Item, OutputItem, Response, ResponseStreamEvent, Tool,
};
use serde_json::{json, Map, Value};

use super::{synthesized_id, ChatStream, ResponsesStream};
use crate::export::ExportError;
use crate::toolbox::{ToolCall, ToolMessage, Toolbox};

// ---------------------------------------------------------------------
// Chat Completions
// ---------------------------------------------------------------------

/// A Chat Completions value holding tool calls, read by [`tool_calls`]: a
/// [`CreateChatCompletionResponse`] (its first choice's message), a
/// [`ChatCompletionResponseMessage`], a
/// [`ChatCompletionRequestAssistantMessage`] (a message of the
/// conversation), or a list of [`ChatCompletionMessageToolCalls`].
pub trait ChatToolCalls {
    /// The tool calls held, in order; none when there are none.
    fn tool_call_entries(&self) -> &[ChatCompletionMessageToolCalls];
}

impl ChatToolCalls for CreateChatCompletionResponse {
    /// The calls of the first choice, as
    /// [`canon::openai::tool_calls`](super::tool_calls) reads a response.
    fn tool_call_entries(&self) -> &[ChatCompletionMessageToolCalls] {
        self.choices
            .first()
            .map_or(&[], |choice| choice.message.tool_call_entries())
    }
}

impl ChatToolCalls for ChatCompletionResponseMessage {
    fn tool_call_entries(&self) -> &[ChatCompletionMessageToolCalls] {
        self.tool_calls.as_deref().unwrap_or_default()
    }
}

impl ChatToolCalls for ChatCompletionRequestAssistantMessage {
    fn tool_call_entries(&self) -> &[ChatCompletionMessageToolCalls] {
        self.tool_calls.as_deref().unwrap_or_default()
    }
}

impl ChatToolCalls for [ChatCompletionMessageToolCalls] {
    fn tool_call_entries(&self) -> &[ChatCompletionMessageToolCalls] {
        self
    }
}

impl ChatToolCalls for Vec<ChatCompletionMessageToolCalls> {
    fn tool_call_entries(&self) -> &[ChatCompletionMessageToolCalls] {
        self
    }
}

/// The tool calls of a Chat Completions response, in order: what
/// [`canon::openai::tool_calls`](super::tool_calls) reads from the same
/// JSON.
///
/// `source` is a [`CreateChatCompletionResponse`] (its first choice is
/// read), its message, an assistant message of a request, or the
/// `tool_calls` list (see [`ChatToolCalls`]). Each function call becomes a
/// [`ToolCall`] with its id (`call_{i}` when it is empty, `i` the call's
/// place in the list), its name and its arguments as text; a custom tool
/// call is kept, with an empty name and empty arguments, so a toolbox
/// answers it. Never fails and never drops a call.
///
/// ```
/// use async_openai::types::chat::ChatCompletionResponseMessage;
/// use canon::openai::async_openai as aoai;
/// use canon::ToolCall;
///
/// let message: ChatCompletionResponseMessage = serde_json::from_str(r#"{"role": "assistant", "tool_calls": [
///     {"id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}},
///     {"id": "", "type": "function", "function": {"name": "search", "arguments": ""}}
/// ]}"#).unwrap();
/// assert_eq!(
///     aoai::tool_calls(&message),
///     [ToolCall::new("call_a", "search", r#"{"q": "x"}"#), ToolCall::new("call_1", "search", "")]
/// );
/// ```
pub fn tool_calls<T: ChatToolCalls + ?Sized>(source: &T) -> Vec<ToolCall> {
    source
        .tool_call_entries()
        .iter()
        .enumerate()
        .map(|(position, entry)| chat_call(position as u64, entry))
        .collect()
}

/// The message answering one call in Chat Completions, as async-openai
/// sends it: [`ChatCompletionRequestMessage::Tool`], which serializes to
/// [`canon::openai::tool_message`](super::tool_message)'s
/// `{"role": "tool", "tool_call_id": id, "content": text}`.
///
/// Chat Completions has no error flag: a refused or failed call says so in
/// its text ([`Toolbox::message`] writes it). For the
/// [`ChatCompletionRequestToolMessage`] alone, use
/// `ChatCompletionRequestToolMessage::from(&message)`.
///
/// ```
/// use async_openai::types::chat::ChatCompletionRequestMessage;
/// use canon::openai::async_openai as aoai;
/// use canon::toolbox::ToolMessage;
///
/// let message = ToolMessage { id: "call_1".into(), name: "search".into(), text: "3 hits".into(), note: None, is_error: false };
/// let reply = aoai::tool_message(&message);
/// assert!(matches!(&reply, ChatCompletionRequestMessage::Tool(tool) if tool.tool_call_id == "call_1"));
/// assert_eq!(serde_json::to_value(&reply).unwrap(), canon::openai::tool_message(&message));
/// ```
pub fn tool_message(message: &ToolMessage) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Tool(message.into())
}

/// [`tool_message`] for each message, in order: the messages to append to
/// the request after the assistant message that made the calls (see
/// [`assistant_message`]).
pub fn tool_messages(messages: &[ToolMessage]) -> Vec<ChatCompletionRequestMessage> {
    messages.iter().map(tool_message).collect()
}

/// For a message with a note, its blocks (the output, then the note) as
/// content parts; `None` for one without, which is sent as one string.
fn noted<T>(message: &ToolMessage, part: impl Fn(&str) -> T) -> Option<Vec<T>> {
    message.note.as_ref()?;
    Some(message.blocks().map(part).collect())
}

impl From<&ToolMessage> for ChatCompletionRequestToolMessage {
    /// `{"tool_call_id": id, "content": text}`, or the output and the note
    /// as two text parts: see [`tool_message`].
    fn from(message: &ToolMessage) -> Self {
        let content = match noted(message, |text| {
            ChatCompletionRequestToolMessageContentPart::Text(text.into())
        }) {
            Some(parts) => ChatCompletionRequestToolMessageContent::Array(parts),
            None => ChatCompletionRequestToolMessageContent::Text(message.text.clone()),
        };
        ChatCompletionRequestToolMessage {
            content,
            tool_call_id: message.id.clone(),
        }
    }
}

impl From<&ToolMessage> for ChatCompletionRequestMessage {
    /// [`tool_message`].
    fn from(message: &ToolMessage) -> Self {
        tool_message(message)
    }
}

/// The assistant message of a response, as the next request carries it
/// before the answers to its calls: its content, refusal, tool calls (as
/// sent, custom ones too), audio (by id) and deprecated `function_call`.
/// async-openai has no conversion of its own from the response's message
/// to the request's. A call sent with an empty id gets the one
/// [`tool_calls`] gives it (`call_{n}`), which its answer names.
///
/// Its JSON is the response message's, without `annotations` (a request
/// does not take them) and with `audio` reduced to its `id`.
pub fn assistant_message(message: &ChatCompletionResponseMessage) -> ChatCompletionRequestMessage {
    #[allow(deprecated)] // `function_call` is echoed as the model sent it.
    let assistant = ChatCompletionRequestAssistantMessage {
        content: message.content.clone().map(Into::into),
        refusal: message.refusal.clone(),
        name: None,
        audio: message
            .audio
            .as_ref()
            .map(|audio| ChatCompletionRequestAssistantMessageAudio {
                id: audio.id.clone(),
            }),
        tool_calls: message.tool_calls.clone().map(with_ids),
        function_call: message.function_call.clone(),
    };
    ChatCompletionRequestMessage::Assistant(assistant)
}

/// The calls with the ids [`tool_calls`] gives them: `call_{n}` for one
/// sent with an empty id, so that each answer names its call.
fn with_ids(mut calls: Vec<ChatCompletionMessageToolCalls>) -> Vec<ChatCompletionMessageToolCalls> {
    for (position, call) in calls.iter_mut().enumerate() {
        let id = match call {
            ChatCompletionMessageToolCalls::Function(call) => &mut call.id,
            ChatCompletionMessageToolCalls::Custom(call) => &mut call.id,
        };
        *id = id_or(id, position as u64);
    }
    calls
}

/// The toolbox's tools declared for Chat Completions, as async-openai's
/// `tools` of a [`CreateChatCompletionRequest`](::async_openai::types::chat::CreateChatCompletionRequest):
/// [`canon::openai::tools`](super::tools), which they serialize to, with
/// the same effect on the toolbox (a strict export makes it bind the
/// `null` a model sends for an optional parameter as left out).
///
/// # Errors
/// As [`canon::openai::tools`](super::tools): the first tool the dialect
/// cannot express.
///
/// ```
/// use canon::openai::async_openai as aoai;
/// use canon::{tool, Toolbox};
///
/// /// Forecast the weather.
/// #[tool]
/// fn forecast(city: String, days: Option<u32>) -> String {
///     city
/// }
///
/// let mut toolbox = Toolbox::new();
/// toolbox.add(Forecast).unwrap();
/// let tools = aoai::tools(&toolbox, true).unwrap();
/// assert_eq!(serde_json::to_value(&tools).unwrap(), canon::openai::tools(&toolbox, true).unwrap());
/// ```
pub fn tools(toolbox: &Toolbox, strict: bool) -> Result<Vec<ChatCompletionTools>, ExportError> {
    Ok(into_objects(super::tools(toolbox, strict)?)
        .into_iter()
        .map(|mut tool| {
            let mut function = match tool.remove("function") {
                Some(Value::Object(function)) => function,
                _ => Map::new(),
            };
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: take_string(&mut function, "name").unwrap_or_default(),
                    description: take_string(&mut function, "description"),
                    parameters: function.remove("parameters"),
                    strict: function.get("strict").and_then(Value::as_bool),
                },
            })
        })
        .collect())
}

/// One entry of a `tool_calls` list, read as
/// [`canon::openai::tool_calls`](super::tool_calls) reads its JSON.
fn chat_call(position: u64, entry: &ChatCompletionMessageToolCalls) -> ToolCall {
    match entry {
        ChatCompletionMessageToolCalls::Function(call) => ToolCall {
            id: id_or(&call.id, position),
            name: call.function.name.clone(),
            arguments: call.function.arguments.clone().into(),
        },
        // No `function`: no name, no arguments.
        ChatCompletionMessageToolCalls::Custom(call) => ToolCall {
            id: id_or(&call.id, position),
            name: String::new(),
            arguments: String::new().into(),
        },
    }
}

impl ChatStream {
    /// Reads one chunk of async-openai's Chat Completions stream (an item
    /// of `client.chat().create_stream(..)`); returns the calls it
    /// completes, in the order they complete. This is
    /// [`push`](Self::push) on the chunk's JSON: the deltas of the choice
    /// of index 0, and its `finish_reason` returning every call held.
    ///
    /// Feature `async-openai`; see
    /// [`canon::openai::async_openai`](crate::openai::async_openai).
    pub fn push_chunk(&mut self, chunk: &CreateChatCompletionStreamResponse) -> Vec<ToolCall> {
        match chunk.choices.iter().find(|choice| choice.index == 0) {
            Some(choice) => {
                let finish_reason = match &choice.finish_reason {
                    Some(reason) => serde_json::to_value(reason).unwrap_or(Value::Bool(true)),
                    None => Value::Null,
                };
                self.push(&json!({"choices": [{
                    "index": 0,
                    "delta": delta_json(&choice.delta),
                    "finish_reason": finish_reason,
                }]}))
            }
            None => Vec::new(),
        }
    }
}

/// What [`ChatStream::push`] reads of a delta, as JSON: its tool calls'
/// `index`, `id`, `function.name` and `function.arguments`.
fn delta_json(delta: &ChatCompletionStreamResponseDelta) -> Value {
    let tool_calls: Vec<Value> = delta
        .tool_calls
        .iter()
        .flatten()
        .map(|call| {
            let function = call.function.as_ref();
            json!({
                "index": call.index,
                "id": call.id,
                "function": {
                    "name": function.and_then(|f| f.name.as_deref()),
                    "arguments": function.and_then(|f| f.arguments.as_deref()),
                },
            })
        })
        .collect();
    json!({ "tool_calls": tool_calls })
}

// ---------------------------------------------------------------------
// Responses API
// ---------------------------------------------------------------------

/// A Responses API value holding output items, read by
/// [`function_calls`]: a [`Response`], its `output` (a list of
/// [`OutputItem`]s), or one item.
pub trait ResponseOutput {
    /// The output items held, in order.
    fn output_items(&self) -> &[OutputItem];
}

impl ResponseOutput for Response {
    fn output_items(&self) -> &[OutputItem] {
        &self.output
    }
}

impl ResponseOutput for [OutputItem] {
    fn output_items(&self) -> &[OutputItem] {
        self
    }
}

impl ResponseOutput for Vec<OutputItem> {
    fn output_items(&self) -> &[OutputItem] {
        self
    }
}

impl ResponseOutput for OutputItem {
    fn output_items(&self) -> &[OutputItem] {
        std::slice::from_ref(self)
    }
}

/// The function calls of a Responses API response, in order: what
/// [`canon::openai::function_calls`](super::function_calls) reads from the
/// same JSON.
///
/// Each [`OutputItem::FunctionCall`] becomes a [`ToolCall`] whose id is its
/// `call_id` (its item `id` when that is empty, else `call_{i}`, `i` the
/// item's place in `output`); other items (messages, reasoning, built-in
/// and custom tool calls) are passed over.
///
/// ```
/// use async_openai::types::responses::OutputItem;
/// use canon::openai::async_openai as aoai;
/// use canon::ToolCall;
///
/// let output: Vec<OutputItem> = serde_json::from_str(r#"[
///     {"type": "reasoning", "id": "rs_1", "summary": []},
///     {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
///      "arguments": "{\"q\": \"x\"}", "status": "completed"}
/// ]"#).unwrap();
/// assert_eq!(aoai::function_calls(&output), [ToolCall::new("call_1", "search", r#"{"q": "x"}"#)]);
/// ```
pub fn function_calls<T: ResponseOutput + ?Sized>(response: &T) -> Vec<ToolCall> {
    response
        .output_items()
        .iter()
        .enumerate()
        .filter_map(|(position, item)| match item {
            OutputItem::FunctionCall(call) => Some(response_call(position as u64, call)),
            _ => None,
        })
        .collect()
}

/// The input item answering one call in the Responses API, as
/// async-openai sends it: [`InputItem`] holding an
/// [`Item::FunctionCallOutput`], which serializes to
/// [`canon::openai::function_call_output`](super::function_call_output)'s
/// `{"type": "function_call_output", "call_id": id, "output": text}`.
///
/// The Responses API has no error flag: the text says what went wrong.
/// For the [`FunctionCallOutputItemParam`] alone, use
/// `FunctionCallOutputItemParam::from(&message)`.
///
/// ```
/// use canon::openai::async_openai as aoai;
/// use canon::toolbox::ToolMessage;
///
/// let message = ToolMessage { id: "call_1".into(), name: "search".into(), text: "3 hits".into(), note: None, is_error: false };
/// assert_eq!(
///     serde_json::to_value(aoai::function_call_output(&message)).unwrap(),
///     canon::openai::function_call_output(&message)
/// );
/// ```
pub fn function_call_output(message: &ToolMessage) -> InputItem {
    InputItem::Item(Item::FunctionCallOutput(message.into()))
}

/// [`function_call_output`] for each message, in order: the `input` of
/// the next request (`InputParam::Items`, or `.into()`), with
/// `previous_response_id` set to the response's id.
pub fn function_call_outputs(messages: &[ToolMessage]) -> Vec<InputItem> {
    messages.iter().map(function_call_output).collect()
}

impl From<&ToolMessage> for FunctionCallOutputItemParam {
    /// `{"call_id": id, "output": text}`, or the output and the note as
    /// two `input_text` items: see [`function_call_output`].
    fn from(message: &ToolMessage) -> Self {
        FunctionCallOutputItemParam {
            call_id: Some(message.id.clone()),
            output: match noted(message, |text| InputContent::InputText(text.into())) {
                Some(parts) => FunctionCallOutput::Content(parts),
                None => FunctionCallOutput::Text(message.text.clone()),
            },
            id: None,
            status: None,
            name: None,
            namespace: None,
            caller: None,
        }
    }
}

impl From<&ToolMessage> for InputItem {
    /// [`function_call_output`].
    fn from(message: &ToolMessage) -> Self {
        function_call_output(message)
    }
}

/// The toolbox's tools declared for the Responses API, as async-openai's
/// `tools` of a
/// [`CreateResponse`](::async_openai::types::responses::CreateResponse):
/// [`canon::openai::response_tools`](super::response_tools), which they
/// serialize to, with the same effect on the toolbox as [`tools`].
///
/// # Errors
/// As [`canon::openai::response_tools`](super::response_tools).
pub fn response_tools(toolbox: &Toolbox, strict: bool) -> Result<Vec<Tool>, ExportError> {
    Ok(into_objects(super::response_tools(toolbox, strict)?)
        .into_iter()
        .map(|mut tool| {
            Tool::Function(FunctionTool {
                name: take_string(&mut tool, "name").unwrap_or_default(),
                description: take_string(&mut tool, "description"),
                parameters: tool.remove("parameters"),
                strict: tool.get("strict").and_then(Value::as_bool),
                ..FunctionTool::default()
            })
        })
        .collect())
}

/// One `function_call` item, read as
/// [`canon::openai::function_calls`](super::function_calls) reads its
/// JSON.
fn response_call(position: u64, call: &FunctionToolCall) -> ToolCall {
    let id = match (call.call_id.as_str(), call.id.as_deref()) {
        ("", Some(id)) if !id.is_empty() => id.to_owned(),
        (call_id, _) => id_or(call_id, position),
    };
    ToolCall {
        id,
        name: call.name.clone(),
        arguments: call.arguments.clone().into(),
    }
}

impl ResponsesStream {
    /// Reads one event of async-openai's Responses API stream (an item of
    /// `client.responses().create_stream(..)`); returns the calls it
    /// completes. This is [`push`](Self::push) on the event's JSON: the
    /// `function_call` items added and done, their arguments' `delta` and
    /// `done`, and `response.completed`, `response.incomplete` and
    /// `response.failed` returning every call held; other events complete
    /// nothing.
    ///
    /// Feature `async-openai`; see
    /// [`canon::openai::async_openai`](crate::openai::async_openai).
    pub fn push_event(&mut self, event: &ResponseStreamEvent) -> Vec<ToolCall> {
        match event_json(event) {
            Some(event) => self.push(&event),
            None => Vec::new(),
        }
    }
}

/// What [`ResponsesStream::push`] reads of an event, as JSON; `None` for
/// an event it passes over.
fn event_json(event: &ResponseStreamEvent) -> Option<Value> {
    Some(match event {
        ResponseStreamEvent::ResponseOutputItemAdded(added) => json!({
            "type": "response.output_item.added",
            "output_index": added.output_index,
            "item": item_json(&added.item)?,
        }),
        ResponseStreamEvent::ResponseOutputItemDone(done) => json!({
            "type": "response.output_item.done",
            "output_index": done.output_index,
            "item": item_json(&done.item)?,
        }),
        ResponseStreamEvent::ResponseFunctionCallArgumentsDelta(delta) => json!({
            "type": "response.function_call_arguments.delta",
            "output_index": delta.output_index,
            "item_id": delta.item_id,
            "delta": delta.delta,
        }),
        ResponseStreamEvent::ResponseFunctionCallArgumentsDone(done) => json!({
            "type": "response.function_call_arguments.done",
            "output_index": done.output_index,
            "item_id": done.item_id,
            "name": done.name,
            "arguments": done.arguments,
        }),
        ResponseStreamEvent::ResponseCompleted(_) => json!({"type": "response.completed"}),
        ResponseStreamEvent::ResponseIncomplete(_) => json!({"type": "response.incomplete"}),
        ResponseStreamEvent::ResponseFailed(_) => json!({"type": "response.failed"}),
        _ => return None,
    })
}

/// A `function_call` item as JSON; `None` for any other item.
fn item_json(item: &OutputItem) -> Option<Value> {
    match item {
        OutputItem::FunctionCall(call) => Some(json!({
            "type": "function_call",
            "id": call.id,
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
        })),
        _ => None,
    }
}

// ---------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------

/// A call's id as sent, or the one given a call sent with an empty id.
fn id_or(id: &str, position: u64) -> String {
    if id.is_empty() {
        synthesized_id(position)
    } else {
        id.to_owned()
    }
}

/// The tools of an export (an array of objects).
fn into_objects(export: Value) -> Vec<Map<String, Value>> {
    match export {
        Value::Array(entries) => entries
            .into_iter()
            .map(|entry| match entry {
                Value::Object(object) => object,
                _ => Map::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The string at `key`, taken out of `object`, if it is one.
fn take_string(object: &mut Map<String, Value>, key: &str) -> Option<String> {
    match object.remove(key) {
        Some(Value::String(text)) => Some(text),
        _ => None,
    }
}
