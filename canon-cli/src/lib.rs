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

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
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

/// The counts of a replay.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Calls replayed (malformed lines excluded).
    pub calls: u64,
    /// Calls a strict binder accepts as sent.
    pub accepted_strictly: u64,
    /// Calls a strict binder rejects and canon accepts after repair.
    pub accepted_after_repair: u64,
    /// Calls canon rejects too.
    pub still_rejected: u64,
    /// Share of calls a strict binder rejects.
    pub failure_rate_before: f64,
    /// Share of calls canon rejects.
    pub failure_rate_after: f64,
    /// Calls whose schema is not a valid JSON Schema (not counted above).
    pub schema_errors: u64,
    /// Input lines that are not a call (not counted above).
    pub malformed_lines: u64,
}

/// One violation kind among the still-rejected calls.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindCount {
    /// Still-rejected calls with at least one violation of this kind.
    pub calls: u64,
    /// Violations of this kind.
    pub violations: u64,
    /// The first one seen.
    pub example: Example,
}

/// One violation, as an example.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    /// The input line.
    pub line: u64,
    /// The tool called.
    pub tool: String,
    /// The violation's pointer.
    pub pointer: String,
    /// The message a model would read.
    pub message: String,
}

/// What a replay found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// The policy canon bound with.
    pub policy: String,
    /// Whether undeclared properties were refused.
    pub closed_objects: bool,
    /// The totals.
    pub totals: Totals,
    /// Per rule: how many calls it repaired (among those accepted after
    /// repair).
    pub repairs_by_rule: BTreeMap<String, u64>,
    /// Per violation kind among the still-rejected calls.
    pub still_rejected_by_kind: BTreeMap<String, KindCount>,
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
        let t = &mut report.totals;
        if t.calls > 0 {
            t.failure_rate_before = (t.calls - t.accepted_strictly) as f64 / t.calls as f64;
            t.failure_rate_after = t.still_rejected as f64 / t.calls as f64;
        }
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

fn tally(report: &mut Report, outcome: &CallOutcome) {
    let t = &mut report.totals;
    match outcome.outcome {
        "schema_error" => {
            t.schema_errors += 1;
            return;
        }
        "accepted" => t.accepted_strictly += 1,
        "repaired" => {
            t.accepted_after_repair += 1;
            let mut rules: Vec<&str> = outcome.repairs.iter().map(|r| r.rule.as_str()).collect();
            rules.sort_unstable();
            rules.dedup();
            for rule in rules {
                *report.repairs_by_rule.entry(rule.to_owned()).or_default() += 1;
            }
        }
        _ => {
            t.still_rejected += 1;
            let mut seen: Vec<String> = Vec::new();
            for violation in &outcome.violations {
                let kind = kind_name(violation);
                let entry = report
                    .still_rejected_by_kind
                    .entry(kind.clone())
                    .or_insert_with(|| KindCount {
                        calls: 0,
                        violations: 0,
                        example: Example {
                            line: outcome.line,
                            tool: outcome.tool.clone(),
                            pointer: violation.pointer.clone(),
                            message: violation.message.clone(),
                        },
                    });
                entry.violations += 1;
                if !seen.contains(&kind) {
                    entry.calls += 1;
                    seen.push(kind);
                }
            }
        }
    }
    report.totals.calls += 1;
}

/// The violation kind's snake_case name (`wrong_type`).
fn kind_name(violation: &canon::Violation) -> String {
    match serde_json::to_value(violation.kind) {
        Ok(Value::String(name)) => name,
        _ => "other".to_owned(),
    }
}

/// The report as the table `canon replay` prints.
pub fn render(report: &Report, source: &str) -> String {
    let t = &report.totals;
    let share = |n: u64| {
        if t.calls == 0 {
            0.0
        } else {
            100.0 * n as f64 / t.calls as f64
        }
    };
    let mut out = String::new();
    let objects = if report.closed_objects {
        "undeclared properties refused"
    } else {
        "schemas read as written"
    };
    let _ = writeln!(
        out,
        "canon replay: {} calls from {source}; policy {}; {objects}\n",
        t.calls, report.policy
    );
    let _ = writeln!(out, "  {:<24}{:>8}{:>9}", "", "calls", "share");
    for (label, n) in [
        ("accepted strictly", t.accepted_strictly),
        ("accepted after repair", t.accepted_after_repair),
        ("still rejected", t.still_rejected),
    ] {
        let _ = writeln!(out, "  {label:<24}{n:>8}{:>8.1}%", share(n));
    }
    let _ = writeln!(
        out,
        "\n  failure rate: {:.1}% with a strict binder, {:.1}% with canon",
        100.0 * t.failure_rate_before,
        100.0 * t.failure_rate_after
    );
    if t.schema_errors > 0 || t.malformed_lines > 0 {
        let _ = writeln!(
            out,
            "  not counted: {} calls with an invalid schema, {} malformed lines",
            t.schema_errors, t.malformed_lines
        );
    }
    if !report.repairs_by_rule.is_empty() {
        let _ = writeln!(out, "\nrepaired calls, by rule");
        for (rule, n) in &report.repairs_by_rule {
            let _ = writeln!(out, "  {rule:<24}{n:>8}");
        }
    }
    if !report.still_rejected_by_kind.is_empty() {
        let _ = writeln!(
            out,
            "\nstill rejected, by violation kind (calls, one example each)"
        );
        for (kind, count) in &report.still_rejected_by_kind {
            let e = &count.example;
            let pointer = if e.pointer.is_empty() {
                "(arguments)"
            } else {
                &e.pointer
            };
            let _ = writeln!(
                out,
                "  {kind:<16}{:>8}   line {}, {} {pointer}: {}",
                count.calls, e.line, e.tool, e.message
            );
        }
    }
    out
}
