//! The HTTP side of `openai_agent`, with no canon in it: a streaming POST
//! with `ureq` (blocking, so it runs on a thread of its own) and the
//! server-sent events of the answer, read line by line.

use std::io::{BufRead, BufReader};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::short;

/// POSTs the request and sends each chunk of the answer's stream (the data
/// of each server-sent event, up to `[DONE]`) to `chunks`.
pub fn post_stream(
    url: &str,
    key: Option<String>,
    body: String,
    chunks: &UnboundedSender<Result<Value, String>>,
) -> Result<(), String> {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(10)))
        .timeout_global(Some(Duration::from_secs(600)))
        .build();
    let mut request = ureq::Agent::new_with_config(config)
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "text/event-stream");
    if let Some(key) = key {
        request = request.header("authorization", format!("Bearer {key}"));
    }
    let response = request.send(body).map_err(|e| format!("POST {url}: {e}"))?;
    let (status, mut body) = (response.status(), response.into_body());
    let json = body
        .mime_type()
        .is_some_and(|m| m.eq_ignore_ascii_case("application/json"));
    if !status.is_success() || json {
        let text = body
            .with_config()
            .limit(1 << 16)
            .lossy_utf8(true)
            .read_to_string();
        let text = short(&text.unwrap_or_default());
        return Err(format!(
            "{url} answered HTTP {status}, not a stream: {text}"
        ));
    }
    let mut data = String::new();
    let lines = BufReader::new(body.into_reader()).lines();
    for line in lines.chain([Ok(String::new())]) {
        let line = line.map_err(|e| format!("reading the stream: {e}"))?;
        let line = line.trim_end_matches('\r');
        if let Some(field) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(field.strip_prefix(' ').unwrap_or(field));
        } else if line.is_empty() && !data.is_empty() {
            let event = std::mem::take(&mut data);
            if event.trim() == "[DONE]" {
                break;
            }
            let chunk = serde_json::from_str(&event);
            let chunk = chunk.map_err(|e| format!("bad stream event ({e}): {}", short(&event)))?;
            if chunks.send(Ok(chunk)).is_err() {
                break;
            }
        }
    }
    Ok(())
}
