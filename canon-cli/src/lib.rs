//! `canon replay`: what a strict binder rejects among captured tool calls,
//! and what canon repairs.
//!
//! The engine behind the `canon` command, usable on its own: read captured
//! calls as JSON Lines, bind each strictly and with a [`Policy`], and count.
//!
//! ```
//! use canon::Policy;
//! use canon_cli::{Replay, Tools};
//!
//! let calls = r#"{"tool": "t", "schema": {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}, "arguments": {"names": "a"}}"#;
//! let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
//! let report = replay.run(calls.as_bytes(), |_| {}, |_| Ok(())).unwrap();
//! assert_eq!(report.totals.calls, 1);
//! assert_eq!(report.totals.accepted_after_repair, 1);
//! assert_eq!(report.repairs_by_rule["scalar_to_array"], 1);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod formats;
mod report;

use report::{finish, tally};
pub use report::{merge, render, Example, KindCount, MergeError, Report, ToolCount, Totals};

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::sync::Arc;

use canon::{Canonicalizer, Policy, Repair, RepairRule};
use serde::Serialize;
use serde_json::{Map, Value};

/// The captured calls that ship with canon: near misses of small models on
/// four everyday tools, some that canon's rules repair and some that no rule
/// may touch.
pub const SAMPLE_CALLS: &str = include_str!("../data/sample-calls.jsonl");

/// The tools of [`SAMPLE_CALLS`], as an OpenAI `tools` array.
pub const SAMPLE_TOOLS: &str = include_str!("../data/sample-tools.json");

/// Compiled schemas kept at once; beyond this the cache starts over, so
/// memory stays bounded on inputs with endless distinct schemas.
const CACHE_LIMIT: usize = 1024;

/// Tool schemas looked up by name, for calls that carry no `schema`.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    schemas: HashMap<String, Value>,
}

impl Tools {
    /// Reads a tools file: an OpenAI `tools` array (Chat Completions or
    /// Responses form), an Anthropic `tools` array, an MCP `tools/list`
    /// result (or the whole JSON-RPC response), an object with a `tools`
    /// array of any of these, or JSON Lines with one tool per line (any of
    /// these forms, or `{"name": ..., "schema": ...}`).
    ///
    /// # Errors
    /// A message naming the entry (or line) that is not a tool.
    pub fn parse(text: &str) -> Result<Tools, String> {
        let mut tools = Tools::default();
        match serde_json::from_str::<Value>(text) {
            Ok(document) => {
                let entries: &[Value] = match &document {
                    Value::Array(entries) => entries,
                    Value::Object(obj) => match tool_list(obj) {
                        Some(entries) => entries,
                        None => std::slice::from_ref(&document),
                    },
                    _ => return Err("the tools file holds neither an array nor an object".into()),
                };
                for (i, entry) in entries.iter().enumerate() {
                    let (name, schema) = tool_entry(entry)
                        .ok_or_else(|| format!("tool #{} has no name and schema", i + 1))?;
                    tools.schemas.insert(name, schema);
                }
            }
            Err(_) => {
                for (i, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    let entry: Value = serde_json::from_str(line)
                        .map_err(|e| format!("line {}: not JSON ({e})", i + 1))?;
                    let (name, schema) = tool_entry(&entry)
                        .ok_or_else(|| format!("line {}: no tool name and schema", i + 1))?;
                    tools.schemas.insert(name, schema);
                }
            }
        }
        Ok(tools)
    }

    /// The schema of tool `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.schemas.get(name)
    }

    /// How many tools are known.
    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    /// True when no tool is known.
    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }
}

/// `tools` of an object, or `result.tools` of a JSON-RPC response.
fn tool_list(obj: &Map<String, Value>) -> Option<&Vec<Value>> {
    obj.get("tools")
        .or_else(|| obj.get("result").and_then(|r| r.get("tools")))
        .and_then(Value::as_array)
}

/// The name and input schema of one tool, in any of the forms providers
/// publish.
fn tool_entry(entry: &Value) -> Option<(String, Value)> {
    // OpenAI Chat Completions: {"type": "function", "function": {...}}.
    let entry = entry.get("function").unwrap_or(entry);
    let name = entry.get("name")?.as_str()?.to_owned();
    let schema = ["parameters", "input_schema", "inputSchema", "schema"]
        .iter()
        .find_map(|k| entry.get(*k))?
        .clone();
    Some((name, schema))
}

/// What became of one call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallOutcome {
    /// The input line.
    pub line: u64,
    /// The tool called.
    pub tool: String,
    /// `accepted`, `repaired`, `rejected` or `schema_error`.
    pub outcome: &'static str,
    /// The repairs canon made (for `repaired`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<Repair>,
    /// The violations that remain (for `rejected`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<canon::Violation>,
    /// The schema's error (for `schema_error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_error: Option<String>,
    /// The input's own label (`class` or `note`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// A malformed input line: its number and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub reason: String,
}

type Compiled = Result<Arc<Canonicalizer>, String>;

/// A replay in progress: the policy, the tools, and the compiled schemas.
#[derive(Debug)]
pub struct Replay {
    policy: Policy,
    closed: bool,
    tools: Tools,
    cache: HashMap<String, Compiled>,
}

impl Replay {
    /// A replay binding with `policy`, looking up schemas in `tools` when
    /// a call carries none; undeclared properties are refused.
    pub fn new(policy: Policy, tools: Tools) -> Replay {
        Replay {
            policy,
            closed: true,
            tools,
            cache: HashMap::new(),
        }
    }

    /// Read schemas as written: an object without `additionalProperties:
    /// false` accepts undeclared properties (default: refused, as a model
    /// is told the only parameters a tool takes).
    #[must_use]
    pub fn open_objects(mut self, open: bool) -> Replay {
        self.closed = !open;
        self
    }

    /// Replays every call of `input` (JSON Lines, read one line at a time),
    /// calling `on_progress` with the bytes of each line read and `on_call`
    /// with each call's outcome (for `--out`). Malformed lines are counted
    /// in the report; [`run_with`](Self::run_with) also tells of each.
    ///
    /// # Errors
    /// An I/O error reading `input`, or the first error of `on_call`.
    pub fn run(
        &mut self,
        input: impl BufRead,
        on_progress: impl FnMut(u64),
        on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
    ) -> io::Result<Report> {
        self.run_with(input, on_progress, on_call, |_| {})
    }

    /// [`run`](Self::run), with `on_malformed` told of each malformed line.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_with(
        &mut self,
        mut input: impl BufRead,
        mut on_progress: impl FnMut(u64),
        mut on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
        mut on_malformed: impl FnMut(&LineError),
    ) -> io::Result<Report> {
        let mut report = Report {
            policy: self.policy.to_string(),
            closed_objects: self.closed,
            ..Report::default()
        };
        let mut buffer = String::new();
        let mut line = 0u64;
        loop {
            buffer.clear();
            let read = input.read_line(&mut buffer)?;
            if read == 0 {
                break;
            }
            line += 1;
            on_progress(read as u64);
            if buffer.trim().is_empty() {
                continue;
            }
            match self.replay_line(line, &buffer) {
                Ok(outcome) => {
                    tally(&mut report, &outcome);
                    on_call(&outcome)?;
                }
                Err(reason) => {
                    report.totals.malformed_lines += 1;
                    on_malformed(&LineError { line, reason });
                }
            }
        }
        finish(&mut report, line);
        Ok(report)
    }

    /// Replays one line: a call, or why it is not one.
    pub fn replay_line(&mut self, line: u64, text: &str) -> Result<CallOutcome, String> {
        let call: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        let tool = ["tool", "name"]
            .iter()
            .find_map(|k| call.get(*k).and_then(Value::as_str))
            .ok_or("no `tool` (or `name`) string")?
            .to_owned();
        let label = ["class", "note"]
            .iter()
            .find_map(|k| call.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        let schema = match call.get("schema") {
            Some(schema) => schema,
            None => self
                .tools
                .get(&tool)
                .ok_or_else(|| format!("no `schema`, and no tool `{tool}` in the tools file"))?,
        };
        let key = schema.to_string();
        let arguments = call.get("arguments").ok_or("no `arguments`")?;
        let mut outcome = CallOutcome {
            line,
            tool: tool.clone(),
            outcome: "accepted",
            repairs: Vec::new(),
            violations: Vec::new(),
            schema_error: None,
            label,
        };
        let canon = match compiled(
            &mut self.cache,
            self.policy,
            self.closed,
            key,
            schema,
            &tool,
        ) {
            Ok(canon) => canon,
            Err(message) => {
                outcome.outcome = "schema_error";
                outcome.schema_error = Some(message);
                return Ok(outcome);
            }
        };
        let empty = match arguments {
            Value::Null => true,
            Value::String(text) => text.trim().is_empty() || text.trim() == "null",
            _ => false,
        };
        if empty {
            // A strict binder refuses them; canon reads them as `{}`, as
            // its toolbox does, unless the policy is strict.
            let mut nothing = Value::Object(Map::new());
            let read = match self.policy {
                Policy::STRICT => canon.canonicalize(&mut Value::Null),
                _ => canon.canonicalize(&mut nothing),
            };
            match read {
                Ok(mut repairs) => {
                    repairs.insert(0, Repair::new("", RepairRule::EmptyArguments));
                    outcome.outcome = "repaired";
                    outcome.repairs = repairs;
                }
                Err(error) => {
                    outcome.outcome = "rejected";
                    outcome.violations = error.violations().to_vec();
                }
            }
            return Ok(outcome);
        }
        let mut args = match arguments {
            Value::String(text) => match canon.parse(text) {
                Ok(value) => value,
                Err(error) => {
                    outcome.outcome = "rejected";
                    outcome.violations = error.violations().to_vec();
                    return Ok(outcome);
                }
            },
            other => other.clone(),
        };
        if canon.is_valid(&args) {
            return Ok(outcome);
        }
        match canon.canonicalize(&mut args) {
            Ok(repairs) => {
                outcome.outcome = "repaired";
                outcome.repairs = repairs;
            }
            Err(error) => {
                outcome.outcome = "rejected";
                outcome.violations = error.violations().to_vec();
            }
        }
        Ok(outcome)
    }
}

/// The canonicalizer of `schema` (whose text is `key`), from `cache` or
/// compiled into it.
fn compiled(
    cache: &mut HashMap<String, Compiled>,
    policy: Policy,
    closed: bool,
    key: String,
    schema: &Value,
    tool: &str,
) -> Compiled {
    if let Some(compiled) = cache.get(&key) {
        return compiled.clone();
    }
    if cache.len() >= CACHE_LIMIT {
        cache.clear();
    }
    let compiled = Canonicalizer::options()
        .tool(tool.to_owned())
        .policy(policy)
        .closed_objects(closed)
        .compile(schema)
        .map(Arc::new)
        .map_err(|e| e.to_string());
    cache.insert(key, compiled.clone());
    compiled
}
