//! Logged Anthropic Messages exchanges.

use std::collections::HashMap;

use serde_json::Value;

use super::call::{arguments_text, json_string, schema_of, Def, Defs, SharedCall};
use super::envelope::Exchange;

/// The calls of a logged Messages exchange: the response's `tool_use`
/// blocks (server tools' `server_tool_use` blocks run at Anthropic, not
/// in the application, and are not read).
pub(super) fn messages(record: &Value) -> Result<Vec<SharedCall>, String> {
    let exchange = Exchange::of(record)?;
    let defs = exchange.request.as_ref().and_then(defs);
    let Some(response) = exchange.response.as_ref() else {
        return Ok(Vec::new());
    };
    match response {
        Value::Array(events) => Ok(stream(events, &defs)),
        Value::Object(obj) => match obj.get("content").and_then(Value::as_array) {
            Some(content) => Ok(content
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                .map(|block| {
                    let tool = name_of(block);
                    SharedCall {
                        schema: schema_of(&defs, &tool),
                        tool,
                        arguments: arguments_text(block.get("input")),
                        label: label_of(block),
                    }
                })
                .collect()),
            None if obj.get("type").and_then(Value::as_str) == Some("error") => Ok(Vec::new()),
            None => Err("the response has no `content` (not a Messages response)".into()),
        },
        _ => Err("the response is neither an object nor a stream of events".into()),
    }
}

/// The tools a Messages request declares: `tools[].{name, input_schema}`;
/// a tool of a provider-defined `type` (`bash_20250124`,
/// `text_editor_…`, `web_search_…`) is declared without a schema.
fn defs(request: &Value) -> Defs {
    let tools = request.get("tools").and_then(Value::as_array)?;
    let mut defs = HashMap::new();
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let custom = matches!(
            tool.get("type").and_then(Value::as_str),
            None | Some("custom")
        );
        let def = match tool.get("input_schema") {
            Some(schema) if custom && !schema.is_null() => Def::Schema(schema.to_string().into()),
            _ => Def::Builtin,
        };
        defs.insert(name.to_owned(), def);
    }
    Some(defs)
}

/// A streamed block being put together.
struct Partial<'a> {
    block: &'a Value,
    json: String,
    deltas: bool,
}

/// The calls of a streamed response: each `content_block_start` of a
/// `tool_use` block, its input the concatenated `input_json_delta`
/// pieces (the text the model sent, kept as a JSON string), or the
/// block's own `input` when no delta came.
fn stream(events: &[Value], defs: &Defs) -> Vec<SharedCall> {
    let mut blocks: Vec<Partial> = Vec::new();
    let mut index: HashMap<u64, usize> = HashMap::new();
    for event in events {
        match event.get("type").and_then(Value::as_str) {
            Some("content_block_start") => {
                let Some(block) = event.get("content_block") else {
                    continue;
                };
                if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                    continue;
                }
                let i = event.get("index").and_then(Value::as_u64).unwrap_or(0);
                index.insert(i, blocks.len());
                blocks.push(Partial {
                    block,
                    json: String::new(),
                    deltas: false,
                });
            }
            Some("content_block_delta") => {
                let i = event.get("index").and_then(Value::as_u64).unwrap_or(0);
                let Some(&at) = index.get(&i) else {
                    continue;
                };
                if let Some(piece) = event
                    .get("delta")
                    .filter(|d| d.get("type").and_then(Value::as_str) == Some("input_json_delta"))
                    .and_then(|d| d.get("partial_json"))
                    .and_then(Value::as_str)
                {
                    blocks[at].json.push_str(piece);
                    blocks[at].deltas = true;
                }
            }
            _ => {}
        }
    }
    blocks
        .into_iter()
        .map(|p| {
            let tool = name_of(p.block);
            SharedCall {
                schema: schema_of(defs, &tool),
                // A tool with no input streams one empty delta; the SDKs
                // then keep the block's own `input` (`{}`).
                arguments: if p.deltas && !p.json.trim().is_empty() {
                    Some(json_string(&p.json))
                } else {
                    arguments_text(p.block.get("input"))
                },
                tool,
                label: label_of(p.block),
            }
        })
        .collect()
}

fn name_of(block: &Value) -> String {
    block
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn label_of(block: &Value) -> Option<String> {
    block.get("id").and_then(Value::as_str).map(str::to_owned)
}
