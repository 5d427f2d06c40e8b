//! A logged exchange: the request and the response a proxy or gateway
//! logged, under the names each gives them.

use serde_json::{Map, Value};

use super::call::Format;

/// Where the request body is logged, in the order looked at: the plain
/// name (Helicone's stored bodies, Portkey's log object, most proxies),
/// Helicone's export, camelCase loggers, LiteLLM's spend logs.
const REQUEST: [&str; 4] = [
    "request",
    "request_body",
    "requestBody",
    "proxy_server_request",
];

/// Where the response body is logged.
const RESPONSE: [&str; 3] = ["response", "response_body", "responseBody"];

/// Members that say an object is a payload itself, not a wrapper with a
/// `body`.
const PAYLOAD: [&str; 9] = [
    "tools",
    "messages",
    "input",
    "model",
    "choices",
    "output",
    "content",
    "functions",
    "type",
];

/// How many times a body logged as JSON text (or a wrapper's `body`) is
/// unwrapped at most.
const UNWRAP: u32 = 4;

/// The request and response of a logged exchange, bodies unwrapped: a
/// body logged as JSON text is parsed, a wrapper's `body` taken, and a
/// streamed response logged as server-sent-events text becomes the array
/// of its events.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Exchange {
    pub request: Option<Value>,
    pub response: Option<Value>,
}

impl Exchange {
    pub fn of(record: &Value) -> Result<Exchange, String> {
        let obj = record.as_object().ok_or("not a JSON object")?;
        let mut request = REQUEST.iter().find_map(|k| present(obj, k));
        // LiteLLM's StandardLoggingPayload keeps the request's parameters,
        // tools among them, apart from its messages.
        if request.is_none() {
            request = obj
                .get("model_parameters")
                .filter(|p| p.get("tools").is_some() || p.get("functions").is_some());
        }
        let mut response = RESPONSE.iter().find_map(|k| present(obj, k));
        // Anthropic's Message Batches results: {"result": {"message": …}}.
        if response.is_none() {
            response = obj.get("result").and_then(|r| r.get("message"));
        }
        if request.is_none() && response.is_none() {
            // A bare body.
            if sniff_response(record).is_some() {
                response = Some(record);
            } else if obj.contains_key("tools") {
                request = Some(record);
            } else {
                return Err(
                    "no request or response (looked for request/response, request_body/\
                     response_body, proxy_server_request, model_parameters, result.message)"
                        .into(),
                );
            }
        }
        Ok(Exchange {
            request: request.map(|r| unwrap(r, UNWRAP)),
            response: response.map(|r| unwrap(r, UNWRAP)),
        })
    }
}

/// `obj[key]` unless absent or null.
fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// A logged body: parsed when it is JSON text, its `body` when it is a
/// wrapper (Portkey, OpenAI Batch), the events of a server-sent-events
/// text.
fn unwrap(body: &Value, depth: u32) -> Value {
    match body {
        Value::String(text) if depth > 0 => match serde_json::from_str::<Value>(text) {
            Ok(parsed) => unwrap(&parsed, depth - 1),
            Err(_) => match sse_events(text) {
                Some(events) => Value::Array(events),
                None => body.clone(),
            },
        },
        Value::Object(obj) if depth > 0 => match obj.get("body") {
            Some(inner) if !inner.is_null() && !PAYLOAD.iter().any(|k| obj.contains_key(*k)) => {
                unwrap(inner, depth - 1)
            }
            _ => body.clone(),
        },
        _ => body.clone(),
    }
}

/// The JSON events of a server-sent-events text (`data: {…}` lines; the
/// `[DONE]` sentinel and `event:` lines are dropped); `None` when it holds
/// none. An event's `data` may span lines, joined by newlines as the
/// standard says; a log that dropped the blank lines between events still
/// reads, each line as an event.
fn sse_events(text: &str) -> Option<Vec<Value>> {
    fn event(lines: &[&str], events: &mut Vec<Value>) {
        let parse = |data: &str| {
            let data = data.trim();
            match data {
                "" | "[DONE]" => Some(None),
                _ => serde_json::from_str::<Value>(data).ok().map(Some),
            }
        };
        match parse(&lines.join("\n")) {
            Some(value) => events.extend(value),
            None if lines.len() > 1 => {
                events.extend(lines.iter().filter_map(|l| parse(l)).flatten())
            }
            None => {}
        }
    }
    let mut events = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            event(&lines, &mut events);
            lines.clear();
        } else if let Some(data) = line.strip_prefix("data:") {
            lines.push(data.strip_prefix(' ').unwrap_or(data));
        }
    }
    event(&lines, &mut events);
    (!events.is_empty()).then_some(events)
}

/// The format of a response body (or of the chunks or events of a
/// stream).
pub(super) fn sniff_response(response: &Value) -> Option<Format> {
    match response {
        Value::Array(events) => events.iter().take(8).find_map(sniff_event),
        Value::Object(obj) => {
            let object = obj.get("object").and_then(Value::as_str);
            let kind = obj.get("type").and_then(Value::as_str);
            if obj.get("choices").is_some_and(Value::is_array) || object == Some("chat.completion")
            {
                Some(Format::OpenAiChat)
            } else if object == Some("response") || obj.get("output").is_some_and(Value::is_array) {
                Some(Format::OpenAiResponses)
            } else if kind == Some("message")
                || (obj.get("content").is_some_and(Value::is_array)
                    && obj.contains_key("stop_reason"))
            {
                Some(Format::Anthropic)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The format of one streamed chunk or event.
fn sniff_event(event: &Value) -> Option<Format> {
    let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
    if event.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
        || event.get("choices").is_some_and(Value::is_array)
    {
        Some(Format::OpenAiChat)
    } else if kind.starts_with("response.") {
        Some(Format::OpenAiResponses)
    } else if matches!(
        kind,
        "message_start" | "content_block_start" | "content_block_delta" | "message_delta"
    ) {
        Some(Format::Anthropic)
    } else {
        None
    }
}

/// The format of a request body, from its tools.
pub(super) fn sniff_request(request: &Value) -> Option<Format> {
    if request.get("functions").is_some_and(Value::is_array) {
        return Some(Format::OpenAiChat);
    }
    if request.get("anthropic_version").is_some() {
        return Some(Format::Anthropic);
    }
    let tools = request.get("tools").and_then(Value::as_array)?;
    tools.iter().find_map(|tool| {
        if tool.get("function").is_some_and(Value::is_object) {
            Some(Format::OpenAiChat)
        } else if tool.get("input_schema").is_some() {
            Some(Format::Anthropic)
        } else if tool.get("type").and_then(Value::as_str) == Some("function")
            && tool.get("name").is_some()
        {
            Some(Format::OpenAiResponses)
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::sse_events;

    #[test]
    fn server_sent_events() {
        // One event per `data` line, the sentinel and other fields dropped.
        let text = "event: a\ndata: {\"n\": 1}\n\nevent: b\ndata:{\"n\": 2}\n\ndata: [DONE]\n\n";
        assert_eq!(
            sse_events(text),
            Some(vec![json!({"n": 1}), json!({"n": 2})])
        );
        // An event's data over several lines, joined by newlines.
        let text = "data: {\"n\":\ndata: 3}\n\r\ndata: {\"n\": 4}\r\n";
        assert_eq!(
            sse_events(text),
            Some(vec![json!({"n": 3}), json!({"n": 4})])
        );
        // A log that dropped the blank lines: each line an event.
        let text = "data: {\"n\": 5}\ndata: {\"n\": 6}\ndata: [DONE]\n";
        assert_eq!(
            sse_events(text),
            Some(vec![json!({"n": 5}), json!({"n": 6})])
        );
        assert_eq!(sse_events("event: ping\n\ndata: not json\n"), None);
    }
}
