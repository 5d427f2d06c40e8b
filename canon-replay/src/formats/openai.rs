//! Logged OpenAI Chat Completions and Responses exchanges.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::call::{
    arguments_text, json_string, parameters_schema, schema_of, Def, Defs, Schema, SharedCall,
};
use super::envelope::Exchange;

/// The calls of a logged Chat Completions exchange.
pub(super) fn chat(record: &Value) -> Result<Vec<SharedCall>, String> {
    let exchange = Exchange::of(record)?;
    let defs = exchange.request.as_ref().and_then(chat_defs);
    let Some(response) = exchange.response.as_ref() else {
        // A request logged without its response (a failed call).
        return Ok(Vec::new());
    };
    match response {
        Value::Array(chunks) => Ok(chat_stream(chunks, &defs)),
        Value::Object(obj) => match obj.get("choices").and_then(Value::as_array) {
            Some(choices) => Ok(choices
                .iter()
                .filter_map(|choice| choice.get("message"))
                .flat_map(|message| message_calls(message, &defs))
                .collect()),
            None if obj.get("error").is_some_and(|e| !e.is_null()) => Ok(Vec::new()),
            None => Err("the response has no `choices` (not a Chat Completions response)".into()),
        },
        _ => Err("the response is neither an object nor a stream of chunks".into()),
    }
}

/// The tools a Chat Completions request declares: `tools[]` of type
/// `function` (`function.{name, parameters}`) or `custom`, and the legacy
/// `functions[]`.
fn chat_defs(request: &Value) -> Defs {
    let tools = request.get("tools").and_then(Value::as_array);
    let functions = request.get("functions").and_then(Value::as_array);
    if tools.is_none() && functions.is_none() {
        return None;
    }
    let mut defs = HashMap::new();
    for tool in tools.into_iter().flatten() {
        if tool.get("type").and_then(Value::as_str) == Some("custom") {
            if let Some(name) = tool
                .get("custom")
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
            {
                defs.insert(name.to_owned(), Def::FreeForm);
            }
            continue;
        }
        let function = tool.get("function").unwrap_or(tool);
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            let schema = parameters_schema(function.get("parameters"));
            defs.insert(name.to_owned(), Def::Schema(schema));
        }
    }
    for function in functions.into_iter().flatten() {
        if let Some(name) = function.get("name").and_then(Value::as_str) {
            let schema = parameters_schema(function.get("parameters"));
            defs.insert(name.to_owned(), Def::Schema(schema));
        }
    }
    Some(defs)
}

/// The calls of one assistant message: `tool_calls[]` (function and
/// custom), and the legacy `function_call`.
fn message_calls(message: &Value, defs: &Defs) -> Vec<SharedCall> {
    let mut calls = Vec::new();
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let label = call.get("id").and_then(Value::as_str).map(str::to_owned);
        if let Some(custom) = call
            .get("custom")
            .filter(|_| call.get("type").and_then(Value::as_str) == Some("custom"))
        {
            let tool = name_of(custom);
            let schema = match schema_of(defs, &tool) {
                Schema::Undeclared => Schema::Undeclared,
                _ => Schema::FreeForm,
            };
            calls.push(SharedCall {
                tool,
                schema,
                arguments: arguments_text(custom.get("input")),
                label,
            });
            continue;
        }
        let function = call.get("function").unwrap_or(&Value::Null);
        let tool = name_of(function);
        calls.push(SharedCall {
            schema: schema_of(defs, &tool),
            tool,
            arguments: arguments_text(function.get("arguments")),
            label,
        });
    }
    if let Some(function) = message.get("function_call").filter(|f| f.is_object()) {
        let tool = name_of(function);
        calls.push(SharedCall {
            schema: schema_of(defs, &tool),
            tool,
            arguments: arguments_text(function.get("arguments")),
            label: None,
        });
    }
    calls
}

/// A streamed call being put together.
struct Partial {
    tool: String,
    arguments: String,
    label: Option<String>,
}

/// The calls of a streamed Chat Completions response: each
/// `choices[].delta.tool_calls[]` fragment added to the call of its
/// `index` (the name and id come once, the arguments text in pieces).
fn chat_stream(chunks: &[Value], defs: &Defs) -> Vec<SharedCall> {
    let mut partials: Vec<Partial> = Vec::new();
    let mut index: HashMap<(u64, u64), usize> = HashMap::new();
    for choice in chunks
        .iter()
        .filter_map(|c| c.get("choices").and_then(Value::as_array))
        .flatten()
    {
        let n = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
        let Some(delta) = choice.get("delta") else {
            continue;
        };
        let fragments = delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|tc| {
                (
                    tc.get("index").and_then(Value::as_u64).unwrap_or(0),
                    tc.get("id").and_then(Value::as_str),
                    tc.get("function").unwrap_or(&Value::Null),
                )
            })
            // The legacy `function_call`, as the call of index u64::MAX.
            .chain(
                delta
                    .get("function_call")
                    .filter(|f| f.is_object())
                    .map(|f| (u64::MAX, None, f)),
            );
        for (i, id, function) in fragments {
            let key = (n, i);
            let at = *index.entry(key).or_insert_with(|| {
                partials.push(Partial {
                    tool: String::new(),
                    arguments: String::new(),
                    label: None,
                });
                partials.len() - 1
            });
            let partial = &mut partials[at];
            if let Some(id) = id.filter(|_| partial.label.is_none()) {
                partial.label = Some(id.to_owned());
            }
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                if partial.tool.is_empty() {
                    partial.tool = name.to_owned();
                }
            }
            if let Some(piece) = function.get("arguments").and_then(Value::as_str) {
                partial.arguments.push_str(piece);
            }
        }
    }
    partials
        .into_iter()
        .map(|p| SharedCall {
            schema: schema_of(defs, &p.tool),
            arguments: Some(json_string(&p.arguments)),
            tool: p.tool,
            label: p.label,
        })
        .collect()
}

/// The calls of a logged Responses exchange.
pub(super) fn responses(record: &Value) -> Result<Vec<SharedCall>, String> {
    let exchange = Exchange::of(record)?;
    let defs = exchange.request.as_ref().and_then(responses_defs);
    let Some(response) = exchange.response.as_ref() else {
        return Ok(Vec::new());
    };
    let output: Vec<&Value> = match response {
        Value::Array(events) => stream_output(events),
        Value::Object(obj) => match obj.get("output").and_then(Value::as_array) {
            Some(output) => output.iter().collect(),
            None if obj.get("error").is_some_and(|e| !e.is_null()) => Vec::new(),
            None => return Err("the response has no `output` (not a Responses response)".into()),
        },
        _ => return Err("the response is neither an object nor a stream of events".into()),
    };
    // Tools an MCP server listed in this response, by server and name.
    let mut mcp: HashMap<(&str, &str), Arc<str>> = HashMap::new();
    for item in &output {
        if item.get("type").and_then(Value::as_str) != Some("mcp_list_tools") {
            continue;
        }
        let server = item
            .get("server_label")
            .and_then(Value::as_str)
            .unwrap_or("");
        for tool in item
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = tool.get("name").and_then(Value::as_str) {
                mcp.insert((server, name), parameters_schema(tool.get("input_schema")));
            }
        }
    }
    let mut calls = Vec::new();
    for item in output {
        let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
        let label = item
            .get("call_id")
            .or_else(|| item.get("id"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        match kind {
            "function_call" => {
                let tool = name_of(item);
                calls.push(SharedCall {
                    schema: schema_of(&defs, &tool),
                    tool,
                    arguments: arguments_text(item.get("arguments")),
                    label,
                });
            }
            "custom_tool_call" => {
                let tool = name_of(item);
                let schema = match schema_of(&defs, &tool) {
                    Schema::Undeclared => Schema::Undeclared,
                    _ => Schema::FreeForm,
                };
                calls.push(SharedCall {
                    tool,
                    schema,
                    arguments: arguments_text(item.get("input")),
                    label,
                });
            }
            "mcp_call" => {
                let tool = name_of(item);
                let server = item
                    .get("server_label")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let schema = mcp
                    .get(&(server, tool.as_str()))
                    .map_or(Schema::Unknown, |s| Schema::Declared(s.clone()));
                calls.push(SharedCall {
                    tool,
                    schema,
                    arguments: arguments_text(item.get("arguments")),
                    label,
                });
            }
            _ => {}
        }
    }
    Ok(calls)
}

/// The tools a Responses request declares: `tools[]` of type `function`
/// (`name`, `parameters`) or `custom`; built-in tools (`web_search`,
/// `file_search`, `mcp`, …) are left out, their calls being other item
/// types.
fn responses_defs(request: &Value) -> Defs {
    let tools = request.get("tools").and_then(Value::as_array)?;
    let mut defs = HashMap::new();
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        match tool.get("type").and_then(Value::as_str) {
            Some("function") => {
                defs.insert(
                    name.to_owned(),
                    Def::Schema(parameters_schema(tool.get("parameters"))),
                );
            }
            Some("custom") => {
                defs.insert(name.to_owned(), Def::FreeForm);
            }
            _ => {}
        }
    }
    Some(defs)
}

/// The output items of a streamed Responses response: those of its final
/// `response.completed` (or `.incomplete`, `.failed`) event, else each
/// `response.output_item.done` item.
fn stream_output(events: &[Value]) -> Vec<&Value> {
    let last = events.iter().rev().find_map(|event| {
        let kind = event.get("type").and_then(Value::as_str)?;
        matches!(
            kind,
            "response.completed" | "response.incomplete" | "response.failed" | "response.done"
        )
        .then(|| event.get("response")?.get("output")?.as_array())
        .flatten()
    });
    match last {
        Some(output) => output.iter().collect(),
        None => events
            .iter()
            .filter(|e| e.get("type").and_then(Value::as_str) == Some("response.output_item.done"))
            .filter_map(|e| e.get("item"))
            .collect(),
    }
}

/// The `name` of a call object, or empty.
fn name_of(call: &Value) -> String {
    call.get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
