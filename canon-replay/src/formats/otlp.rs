//! OpenTelemetry traces in OTLP/JSON, read for the GenAI semantic
//! conventions' tool definitions and tool calls.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::call::{get, json_string, parameters_schema, Def, Located, Schema, SharedCall};

/// `gen_ai.tool.definitions`: the tools offered to the model (opt-in; on
/// chat and agent spans, or the inference-details event).
const DEFINITIONS: &str = "gen_ai.tool.definitions";
/// `gen_ai.output.messages`: what the model answered, `tool_call` parts
/// among it (opt-in).
const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
const OPERATION: &str = "gen_ai.operation.name";
const TOOL_NAME: &str = "gen_ai.tool.name";
const CALL_ID: &str = "gen_ai.tool.call.id";
/// `gen_ai.tool.call.arguments`: the arguments of an `execute_tool` span
/// (opt-in).
const CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";

/// How deep an attribute's `arrayValue`s and `kvlistValue`s are read.
const ANY_DEPTH: u32 = 64;
/// Traces whose definitions are kept at once; past this they are
/// forgotten and gathered anew.
const TRACES: usize = 16_384;
/// Bytes of the definitions kept (trace ids, names and schema texts);
/// past this they are forgotten and gathered anew.
pub(super) const DEFS_BYTES: usize = 64 << 20;
/// Calls held at most, waiting for their definition
/// ([`Extractor::HELD`](super::Extractor::HELD)).
pub(super) const HELD: usize = 65_536;
/// Bytes of held calls at most (their trace ids included).
const HELD_BYTES: usize = 64 << 20;
/// Call ids remembered for telling a call seen twice (on the chat span
/// and on its `execute_tool` span), each as a 128-bit hash of its trace
/// and id; past this they are forgotten.
const SEEN: usize = 1 << 20;
/// The longest trace id kept as it is: a real one is 32 hex digits; a
/// longer one is kept as a hash of it.
const TRACE_ID: usize = 64;

type Call = SharedCall;

/// Definitions and held calls across the documents of one input.
#[derive(Debug, Default)]
pub(super) struct State {
    /// The tools each trace defines, by trace id.
    traces: HashMap<String, HashMap<String, Def>>,
    /// The bytes of `traces`, roughly.
    traces_bytes: usize,
    /// Calls of traces that have no definition yet, by trace id, with
    /// the order they came in and their line.
    held: HashMap<String, VecDeque<(u64, u64, Call)>>,
    /// The held calls, oldest first: (order, trace).
    order: VecDeque<(u64, String)>,
    next: u64,
    held_bytes: usize,
    /// The bytes of the trace ids in `order`.
    order_bytes: usize,
    /// A hash of (trace id, call id) of the calls read, for the calls
    /// with a trace id (those without are told apart per document).
    seen: HashSet<u128>,
}

/// A span, its attributes read into JSON values.
struct Span {
    trace: String,
    id: String,
    name: String,
    attributes: HashMap<String, Value>,
    /// Its events' attributes.
    events: Vec<HashMap<String, Value>>,
}

impl State {
    /// The calls of one OTLP/JSON document on `line`.
    pub fn document(
        &mut self,
        line: u64,
        document: &Value,
    ) -> Result<Vec<Located<Arc<str>>>, String> {
        let obj = document.as_object().ok_or("not a JSON object")?;
        let resource_spans = resource_spans(obj)
            .ok_or("no `resourceSpans` (not an OTLP/JSON traces document)")?
            .as_array()
            .ok_or("`resourceSpans` is not an array")?;
        let spans = spans(resource_spans);

        // The definitions first: a call may come before its definition in
        // the document.
        let mut document_defs: HashMap<String, Def> = HashMap::new();
        // The traces given definitions, in the order first seen.
        let mut defined: Vec<&str> = Vec::new();
        let mut seen_traces: HashSet<&str> = HashSet::new();
        for span in &spans {
            let defs = span_defs(span);
            if defs.is_empty() {
                continue;
            }
            if !span.trace.is_empty() {
                let adding = defs.iter().map(|(n, d)| def_size(n, d)).sum::<usize>();
                let new = !self.traces.contains_key(&span.trace);
                if (self.traces.len() >= TRACES && new) || self.traces_bytes + adding > DEFS_BYTES {
                    self.traces.clear();
                    self.traces_bytes = 0;
                }
                let known = self.traces.entry(span.trace.clone()).or_insert_with(|| {
                    self.traces_bytes += span.trace.len() + 64;
                    HashMap::new()
                });
                for (name, def) in &defs {
                    self.traces_bytes += def_size(name, def);
                    if let Some(old) = known.insert(name.clone(), def.clone()) {
                        self.traces_bytes = self.traces_bytes.saturating_sub(def_size(name, &old));
                    }
                }
                if seen_traces.insert(&span.trace) {
                    defined.push(&span.trace);
                }
            }
            document_defs.extend(defs);
        }

        let mut found = Vec::new();
        // Held calls the new definitions complete.
        for trace in defined {
            found.extend(self.release(trace));
        }
        // The call ids of spans without a trace id: one document is one
        // trace, so a repeated id in another document is another call.
        let mut seen_here: HashSet<u128> = HashSet::new();
        let calls: Vec<(&Span, Call, Option<u128>)> = spans
            .iter()
            .flat_map(|span| {
                span_calls(span).into_iter().map(move |(call, id)| {
                    let key = id.map(|id| seen_key(&span.trace, &id));
                    (span, call, key)
                })
            })
            .collect();
        // A call told twice (its tool span, its chat span) is read from the
        // copy that captured its arguments, wherever that copy comes.
        let captured: HashSet<u128> = calls
            .iter()
            .filter(|(_, call, _)| call.arguments.is_some())
            .filter_map(|(_, _, key)| *key)
            .collect();
        for (span, call, key) in calls {
            if let Some(key) = key {
                let seen = if span.trace.is_empty() {
                    &mut seen_here
                } else {
                    if self.seen.len() >= SEEN {
                        self.seen.clear();
                    }
                    &mut self.seen
                };
                // A copy without arguments is remembered apart, so that a
                // copy with them, in a later document, is still read; and
                // it is dropped once either copy was read.
                let new = match call.arguments {
                    Some(_) => seen.insert(key),
                    None if captured.contains(&key) || seen.contains(&key) => false,
                    None => seen.insert(key ^ UNCAPTURED),
                };
                if !new {
                    continue;
                }
            }
            let def = self
                .traces
                .get(&span.trace)
                .and_then(|defs| defs.get(&call.tool))
                .or_else(|| document_defs.get(&call.tool));
            match def {
                Some(def) => found.push(Located {
                    line,
                    call: resolved(call, def),
                }),
                // A trace's definitions come together (one agent, one
                // set of tools): a trace that has some and not this
                // one will not bring it later.
                None if span.trace.is_empty() || self.traces.contains_key(&span.trace) => {
                    found.push(Located { line, call })
                }
                None => found.extend(self.hold(line, span.trace.clone(), call)),
            }
        }
        Ok(found)
    }

    /// Holds `call` for a definition to come; gives back the oldest held
    /// calls when over the bounds.
    fn hold(&mut self, line: u64, trace: String, call: Call) -> Vec<Located<Arc<str>>> {
        let n = self.next;
        self.next += 1;
        // The trace id is held twice: as the key of its calls and in
        // `order`.
        self.held_bytes += size(&call) + trace.len();
        self.order_bytes += trace.len() + 40;
        self.order.push_back((n, trace.clone()));
        self.held
            .entry(trace)
            .or_default()
            .push_back((n, line, call));
        let mut evicted = Vec::new();
        while self.order.len() > HELD || self.held_bytes + self.order_bytes > HELD_BYTES {
            let Some((n, trace)) = self.order.pop_front() else {
                break;
            };
            self.order_bytes = self.order_bytes.saturating_sub(trace.len() + 40);
            if let Some(calls) = self.held.get_mut(&trace) {
                // A trace's calls are held in order; one already released
                // is no longer at the front.
                if calls.front().is_some_and(|(m, _, _)| *m == n) {
                    if let Some((_, line, call)) = calls.pop_front() {
                        self.held_bytes = self.held_bytes.saturating_sub(size(&call) + trace.len());
                        evicted.push(Located { line, call });
                    }
                }
                if calls.is_empty() {
                    self.held.remove(&trace);
                }
            }
        }
        evicted
    }

    /// The held calls of `trace`, now that it has definitions: paired
    /// with them, or [`Schema::Unknown`] for a name they lack.
    fn release(&mut self, trace: &str) -> Vec<Located<Arc<str>>> {
        let (Some(defs), Some(calls)) = (self.traces.get(trace), self.held.remove(trace)) else {
            return Vec::new();
        };
        // `order` keeps entries of released calls; eviction skips them.
        calls
            .into_iter()
            .map(|(_, line, call)| {
                self.held_bytes = self.held_bytes.saturating_sub(size(&call) + trace.len());
                let call = match defs.get(&call.tool) {
                    Some(def) => resolved(call, def),
                    None => call,
                };
                Located { line, call }
            })
            .collect()
    }

    /// Every held call, oldest first, as [`Schema::Unknown`].
    pub fn finish(&mut self) -> Vec<Located<Arc<str>>> {
        let mut calls: Vec<(u64, u64, Call)> = self.held.drain().flat_map(|(_, c)| c).collect();
        calls.sort_by_key(|(n, _, _)| *n);
        self.order.clear();
        self.held_bytes = 0;
        self.order_bytes = 0;
        calls
            .into_iter()
            .map(|(_, line, call)| Located { line, call })
            .collect()
    }
}

/// The `resourceSpans` of an `ExportTraceServiceRequest`, or of a trace
/// as Grafana Tempo's API returns it (`batches`; `trace.resourceSpans`).
pub(super) fn resource_spans(document: &Map<String, Value>) -> Option<&Value> {
    get(document, "resourceSpans", "resource_spans")
        .or_else(|| {
            document.get("batches").filter(|b| {
                b.get(0).and_then(Value::as_object).is_some_and(|rs| {
                    get(rs, "scopeSpans", "scope_spans").is_some()
                        || rs.contains_key("instrumentationLibrarySpans")
                })
            })
        })
        .or_else(|| {
            document
                .get("trace")
                .and_then(Value::as_object)
                .and_then(|trace| get(trace, "resourceSpans", "resource_spans"))
        })
}

/// Roughly the bytes a held call takes.
fn size(call: &Call) -> usize {
    call.tool.len()
        + call.arguments.as_ref().map_or(0, String::len)
        + call.label.as_ref().map_or(0, String::len)
        + 64
}

/// Roughly the bytes a definition takes.
fn def_size(name: &str, def: &Def) -> usize {
    name.len()
        + match def {
            Def::Schema(schema) => schema.len(),
            Def::FreeForm | Def::Builtin => 0,
        }
        + 64
}

/// Told apart from [`seen_key`] of the same call: the key of a copy of a
/// call whose arguments were not captured.
const UNCAPTURED: u128 = 1;

/// A 128-bit hash of a call's trace id and call id, for telling a call
/// seen twice without keeping either.
fn seen_key(trace: &str, id: &str) -> u128 {
    let half = |seed: u8| {
        let mut hasher = DefaultHasher::new();
        seed.hash(&mut hasher);
        trace.hash(&mut hasher);
        id.hash(&mut hasher);
        hasher.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

/// A span's trace id as kept: lowercased, or a hash of it (`~` and 16 hex
/// digits, which no hex id is) when it is over [`TRACE_ID`] bytes.
fn trace_id(text: &str) -> String {
    if text.len() <= TRACE_ID {
        return text.to_ascii_lowercase();
    }
    let mut hasher = DefaultHasher::new();
    text.to_ascii_lowercase().hash(&mut hasher);
    format!("~{:016x}", hasher.finish())
}

/// A decimal index as a key holds it: only its canonical form (`0`, `12`;
/// not `00` or `+0`), so that two keys never name the same index.
fn index(text: &str) -> Option<usize> {
    let i: usize = text.parse().ok()?;
    (i.to_string() == text).then_some(i)
}

/// `call` with the schema of `def`.
fn resolved(mut call: Call, def: &Def) -> Call {
    call.schema = match def {
        Def::Schema(schema) => Schema::Declared(schema.clone()),
        Def::FreeForm => Schema::FreeForm,
        Def::Builtin => Schema::Unknown,
    };
    call
}

/// Every span of a document (`resourceSpans[].scopeSpans[].spans[]`, and
/// the older `instrumentationLibrarySpans`).
fn spans(resource_spans: &[Value]) -> Vec<Span> {
    let mut spans = Vec::new();
    for resource in resource_spans.iter().filter_map(Value::as_object) {
        let scopes = get(resource, "scopeSpans", "scope_spans")
            .or_else(|| {
                get(
                    resource,
                    "instrumentationLibrarySpans",
                    "instrumentation_library_spans",
                )
            })
            .and_then(Value::as_array);
        for scope in scopes.into_iter().flatten().filter_map(Value::as_object) {
            for span in scope
                .get("spans")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_object)
            {
                let text = |camel, snake| {
                    get(span, camel, snake)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                };
                spans.push(Span {
                    trace: trace_id(text("traceId", "trace_id")),
                    id: trace_id(text("spanId", "span_id")),
                    name: span
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    attributes: attributes(span.get("attributes")),
                    events: span
                        .get("events")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(|e| attributes(e.get("attributes")))
                        .collect(),
                });
            }
        }
    }
    spans
}

/// OTLP attributes (`[{"key", "value": {"stringValue": …}}]`) as JSON
/// values by key.
fn attributes(list: Option<&Value>) -> HashMap<String, Value> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|kv| {
            let key = kv.get("key")?.as_str()?;
            Some((key.to_owned(), any_value(kv.get("value")?, ANY_DEPTH)))
        })
        .collect()
}

/// An OTLP `AnyValue` as a JSON value: `stringValue` a string,
/// `intValue` a number (int64 travels as a JSON string), `arrayValue` an
/// array, `kvlistValue` an object.
fn any_value(value: &Value, depth: u32) -> Value {
    let Some(obj) = value.as_object() else {
        return value.clone();
    };
    if depth == 0 {
        return Value::Null;
    }
    if let Some(v) = get(obj, "stringValue", "string_value")
        .or_else(|| get(obj, "boolValue", "bool_value"))
        .or_else(|| get(obj, "doubleValue", "double_value"))
        .or_else(|| get(obj, "bytesValue", "bytes_value"))
    {
        return v.clone();
    }
    if let Some(v) = get(obj, "intValue", "int_value") {
        return match v.as_str().and_then(|s| s.parse::<i64>().ok()) {
            Some(n) => Value::from(n),
            None => v.clone(),
        };
    }
    if let Some(values) = get(obj, "arrayValue", "array_value").and_then(|a| a.get("values")) {
        return Value::Array(
            values
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| any_value(v, depth - 1))
                .collect(),
        );
    }
    if let Some(values) = get(obj, "kvlistValue", "kvlist_value").and_then(|a| a.get("values")) {
        let mut map = Map::new();
        for kv in values.as_array().into_iter().flatten() {
            if let (Some(key), Some(v)) = (kv.get("key").and_then(Value::as_str), kv.get("value")) {
                map.insert(key.to_owned(), any_value(v, depth - 1));
            }
        }
        return Value::Object(map);
    }
    Value::Null
}

/// A structured attribute, which a span may record as its JSON text.
fn structured(value: &Value) -> Option<Value> {
    match value {
        Value::String(text) => serde_json::from_str(text).ok(),
        other => Some(other.clone()),
    }
}

/// The attribute maps of a span: its own, then its events'.
fn all_attributes(span: &Span) -> impl Iterator<Item = &HashMap<String, Value>> {
    std::iter::once(&span.attributes).chain(span.events.iter())
}

/// The tools a span defines: `gen_ai.tool.definitions` (on the span or
/// an event), and OpenLLMetry's `llm.request.functions.N.{name,
/// parameters}`.
fn span_defs(span: &Span) -> HashMap<String, Def> {
    let mut defs = HashMap::new();
    for attributes in all_attributes(span) {
        if let Some(Value::Array(tools)) = attributes.get(DEFINITIONS).and_then(structured) {
            for tool in &tools {
                if let Some((name, def)) = definition(tool) {
                    defs.insert(name, def);
                }
            }
        }
        let mut legacy: BTreeMap<usize, (Option<&str>, Option<&Value>)> = BTreeMap::new();
        for (key, value) in attributes {
            let Some(rest) = key.strip_prefix("llm.request.functions.") else {
                continue;
            };
            let Some((i, field)) = rest.split_once('.') else {
                continue;
            };
            let Some(i) = index(i) else {
                continue;
            };
            let entry = legacy.entry(i).or_default();
            match field {
                "name" => entry.0 = value.as_str(),
                "parameters" => entry.1 = Some(value),
                _ => {}
            }
        }
        for (name, parameters) in legacy.into_values() {
            if let Some(name) = name {
                let parameters = parameters.and_then(structured);
                defs.insert(
                    name.to_owned(),
                    Def::Schema(parameters_schema(parameters.as_ref())),
                );
            }
        }
    }
    defs
}

/// One entry of `gen_ai.tool.definitions`: `{"type": "function", "name",
/// "parameters"}` as the convention has it, or the provider's own form
/// (OpenAI's `function` wrapper, Anthropic's `input_schema`, MCP's
/// `inputSchema`); a provider built-in tool is declared without a schema.
fn definition(tool: &Value) -> Option<(String, Def)> {
    let kind = tool.get("type").and_then(Value::as_str);
    let entry = tool
        .get("function")
        .filter(|f| f.is_object())
        .unwrap_or(tool);
    let name = entry.get("name")?.as_str()?.to_owned();
    let schema = ["parameters", "input_schema", "inputSchema"]
        .iter()
        .find_map(|k| entry.get(*k));
    let def = match (kind, schema) {
        (Some("custom"), None) => Def::FreeForm,
        (Some(kind), None) if kind != "function" => Def::Builtin,
        (_, schema) => Def::Schema(parameters_schema(schema.and_then(structured).as_ref())),
    };
    Some((name, def))
}

/// The tool calls a span records: an `execute_tool` span
/// (`gen_ai.tool.name`, `gen_ai.tool.call.arguments`,
/// `gen_ai.tool.call.id`), the `tool_call` parts of
/// `gen_ai.output.messages` (on the span or an event), and OpenLLMetry's
/// `gen_ai.completion.N.tool_calls.M.{name, arguments, id}`; each with
/// its call id, when it has one.
fn span_calls(span: &Span) -> Vec<(Call, Option<String>)> {
    let mut calls = Vec::new();
    let a = &span.attributes;
    let operation = a.get(OPERATION).and_then(Value::as_str);
    let execute = operation == Some("execute_tool")
        || (operation.is_none() && span.name.starts_with("execute_tool"));
    if execute {
        let tool = a
            .get(TOOL_NAME)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| {
                span.name
                    .strip_prefix("execute_tool")
                    .map(|rest| rest.trim().to_owned())
            })
            .unwrap_or_default();
        calls.push(call(tool, a.get(CALL_ARGUMENTS), a.get(CALL_ID), &span.id));
    }
    for attributes in all_attributes(span) {
        if let Some(Value::Array(messages)) = attributes.get(OUTPUT_MESSAGES).and_then(structured) {
            for part in messages
                .iter()
                .filter_map(|m| m.get("parts").and_then(Value::as_array))
                .flatten()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("tool_call"))
            {
                let tool = part.get("name").and_then(Value::as_str).unwrap_or_default();
                calls.push(call(
                    tool.to_owned(),
                    part.get("arguments"),
                    part.get("id"),
                    &span.id,
                ));
            }
        }
    }
    // OpenLLMetry's flattened completions.
    let mut legacy: BTreeMap<(usize, usize), [Option<&Value>; 3]> = BTreeMap::new();
    for (key, value) in a {
        let Some(rest) = key.strip_prefix("gen_ai.completion.") else {
            continue;
        };
        let mut parts = rest.splitn(4, '.');
        let (Some(i), Some("tool_calls"), Some(j), Some(field)) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (Some(i), Some(j)) = (index(i), index(j)) else {
            continue;
        };
        let slot = match field {
            "name" => 0,
            "arguments" => 1,
            "id" => 2,
            _ => continue,
        };
        legacy.entry((i, j)).or_default()[slot] = Some(value);
    }
    for [name, arguments, id] in legacy.into_values() {
        let tool = name.and_then(Value::as_str).unwrap_or_default();
        calls.push(call(tool.to_owned(), arguments, id, &span.id));
    }
    calls
}

/// Arguments as an attribute holds them: a string is the text the model
/// sent (kept as a JSON string), a structured value its JSON.
fn attribute_arguments(value: &Value) -> String {
    match value {
        Value::String(text) => json_string(text),
        other => other.to_string(),
    }
}

/// A call of a span, and its id: labelled with the id, else `span <span
/// id>`; its schema is not known yet.
fn call(
    tool: String,
    arguments: Option<&Value>,
    id: Option<&Value>,
    span: &str,
) -> (Call, Option<String>) {
    let id = id
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    let label = match &id {
        Some(id) => Some(id.clone()),
        None if !span.is_empty() => Some(format!("span {span}")),
        None => None,
    };
    let call = Call {
        tool,
        schema: Schema::Unknown,
        arguments: arguments.map(attribute_arguments),
        label,
    };
    (call, id)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn document(trace: &str, attributes: Value) -> Value {
        json!({"resourceSpans": [{"scopeSpans": [{"spans": [
            {"traceId": trace, "spanId": "00f067aa0ba902b7", "name": "chat", "attributes": attributes}]}]}]})
    }

    fn definitions(schema_bytes: usize) -> Value {
        let description = "x".repeat(schema_bytes);
        let tools = json!([{"type": "function", "name": "t",
            "parameters": {"type": "object", "description": description}}]);
        json!([{"key": DEFINITIONS, "value": {"stringValue": tools.to_string()}}])
    }

    fn execute(id: &str) -> Value {
        json!([
            {"key": OPERATION, "value": {"stringValue": "execute_tool"}},
            {"key": TOOL_NAME, "value": {"stringValue": "u"}},
            {"key": CALL_ID, "value": {"stringValue": id}},
            {"key": CALL_ARGUMENTS, "value": {"stringValue": "{}"}}
        ])
    }

    #[test]
    fn long_trace_ids_are_kept_as_hashes_and_counted() {
        let mut state = State::default();
        let long = "a".repeat(100_000);
        for i in 0..20 {
            let trace = format!("{long}{i}");
            // A call held for a definition that never comes.
            let found = state
                .document(i, &document(&trace, execute(&"c".repeat(50_000))))
                .unwrap();
            assert!(found.is_empty());
        }
        assert_eq!(state.held.len(), 20);
        assert!(state.held.keys().all(|t| t.len() <= TRACE_ID));
        assert!(state.order.iter().all(|(_, t)| t.len() <= TRACE_ID));
        assert!(state.order_bytes >= 20 * 17);
        // The seen call ids are hashes: 16 bytes each, whatever their length.
        assert_eq!(state.seen.len(), 20);
        assert_eq!(state.finish().len(), 20);
    }

    #[test]
    fn definitions_are_bounded_in_bytes() {
        let mut state = State::default();
        let schema = 1 << 20;
        for i in 0..80u64 {
            let trace = format!("{i:032x}");
            state
                .document(i, &document(&trace, definitions(schema)))
                .unwrap();
            let held: usize = state
                .traces
                .iter()
                .map(|(t, defs)| t.len() + defs.iter().map(|(n, d)| def_size(n, d)).sum::<usize>())
                .sum();
            assert!(
                held <= state.traces_bytes,
                "{held} > {}",
                state.traces_bytes
            );
            assert!(state.traces_bytes <= DEFS_BYTES, "{}", state.traces_bytes);
        }
        // 80 MiB of definitions came; 64 MiB at most were kept.
        assert!(state.traces.len() < 64);
    }
}
