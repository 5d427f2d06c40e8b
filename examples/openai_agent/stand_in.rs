//! The stand-in for a model server that `openai_agent` starts when no
//! `OPENAI_BASE_URL` is set: a minimal HTTP/1.1 server on 127.0.0.1 that
//! answers `POST /v1/chat/completions` with a recorded OpenAI stream
//! (`turn{1,2,3}.sse`: real chunk shapes, arguments split mid-string and
//! mid-escape), chunk by chunk. It picks the turn from the assistant
//! messages in the request, and answers HTTP 400 unless the request
//! declares the tools called and carries a tool result for every call of
//! the previous turn, so the example proves the whole loop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use serde_json::{json, Value};

/// What the "model" answers, turn by turn.
const TURNS: [&str; 3] = [
    include_str!("turn1.sse"),
    include_str!("turn2.sse"),
    include_str!("turn3.sse"),
];

/// The refused call's result must carry canon's feedback (the pointer it
/// names) for the model to retry it correctly in turn 2.
const MUST_READ: &[(&str, &str)] = &[("call_Jp5uH3zYf6RgN0aV2kB9xCt4", "/number")];

/// Starts the server on a free port; returns its base URL.
pub fn start() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    std::thread::spawn(move || {
        for connection in listener.incoming().flatten() {
            if let Err(error) = serve(connection) {
                eprintln!("stand-in server: {error}");
            }
        }
    });
    Ok(format!("http://{address}/v1"))
}

/// Reads one request and answers it, then closes the connection.
fn serve(mut connection: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(connection.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length.min(1 << 24)];
    reader.read_exact(&mut body)?;
    match answer(&request_line, &body) {
        Ok(events) => {
            connection.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n")?;
            for event in events.split_inclusive("\n\n") {
                connection.write_all(event.as_bytes())?;
                connection.flush()?;
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Err(message) => {
            let body = json!({"error": {"message": message, "type": "invalid_request_error"}});
            let body = body.to_string();
            write!(connection, "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len())?;
        }
    }
    Ok(())
}

/// The recorded stream answering this request, or why it is refused.
fn answer(request_line: &str, body: &[u8]) -> Result<&'static str, String> {
    if !request_line.starts_with("POST /v1/chat/completions ") {
        return Err(format!("no route for {}", request_line.trim()));
    }
    let request: Value = serde_json::from_slice(body).map_err(|e| format!("body: {e}"))?;
    let messages = request["messages"].as_array().ok_or("no messages")?;
    let turn = messages.iter().filter(|m| m["role"] == "assistant").count();
    let events = *TURNS.get(turn).ok_or("the recorded conversation is over")?;
    if request["stream"] != true {
        return Err("this stand-in only streams: send \"stream\": true".into());
    }
    let declared = request["tools"].as_array().into_iter().flatten();
    let declared: Vec<&Value> = declared.map(|tool| &tool["function"]["name"]).collect();
    if let Some((_, name)) = calls(events)
        .iter()
        .find(|(_, n)| !declared.contains(&&json!(n)))
    {
        return Err(format!("the tool `{name}` is not declared in `tools`"));
    }
    let previous = turn.checked_sub(1).map_or("", |t| TURNS[t]);
    for (id, _) in calls(previous) {
        let has_call = |m: &Value| {
            let calls = m["tool_calls"].as_array();
            calls.is_some_and(|calls| calls.iter().any(|call| call["id"] == id))
        };
        let asked = messages
            .iter()
            .position(|m| m["role"] == "assistant" && has_call(m));
        let answered = messages
            .iter()
            .position(|m| m["role"] == "tool" && m["tool_call_id"] == id);
        let (Some(asked), Some(answered)) = (asked, answered) else {
            return Err(format!("no assistant message and tool result for {id}"));
        };
        if asked > answered {
            return Err(format!("the tool result for {id} comes before its call"));
        }
        let content = messages[answered]["content"].as_str().unwrap_or("");
        if let Some((_, needle)) = MUST_READ
            .iter()
            .find(|(i, n)| *i == id && !content.contains(n))
        {
            return Err(format!(
                "the tool result for {id} lacks canon's feedback (`{needle}`)"
            ));
        }
    }
    Ok(events)
}

/// The `(id, name)` of each call begun in a recorded stream.
fn calls(events: &str) -> Vec<(String, String)> {
    let mut calls = Vec::new();
    for data in events
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
    {
        let chunk: Value = serde_json::from_str(data).unwrap_or_default();
        let deltas = chunk["choices"][0]["delta"]["tool_calls"].as_array();
        for call in deltas.into_iter().flatten() {
            if let (Some(id), Some(name)) = (call["id"].as_str(), call["function"]["name"].as_str())
            {
                calls.push((id.to_owned(), name.to_owned()));
            }
        }
    }
    calls
}
