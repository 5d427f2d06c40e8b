//! The replay engine as it was before calls were read borrowing (canon-cli
//! at e5fc1a4): every line parsed whole into a `Value`, the schema turned
//! back into text to find its compiled form, and a cache of 1,024 entries
//! cleared when full. Kept for the tests (the new engine must give the very
//! same outcomes) and the benchmark (how much faster it is). Its reading
//! of empty arguments follows the engine's since: `null` that the schema
//! takes is accepted as it came, and blank text is not JSON to the strict
//! policy; and arguments whose text in the line is past
//! [`MAX_ARGUMENTS_TEXT`](canon_cli::MAX_ARGUMENTS_TEXT) are refused as
//! too large without being read.
//!
//! Only the counting goes through the new [`Tally`], which is the report's
//! own code.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::sync::Arc;

use canon::{Canonicalizer, Policy, Repair, RepairRule};
use canon_cli::{CallOutcome, LineError, Replay, Report, Tally, Tools};
use serde_json::{Map, Value};

/// Compiled schemas kept at once; beyond this the cache starts over.
const CACHE_LIMIT: usize = 1024;

type Compiled = Result<Arc<Canonicalizer>, String>;

/// The old engine.
pub struct OldReplay {
    policy: Policy,
    closed: bool,
    tools: Tools,
    cache: HashMap<String, Compiled>,
}

impl OldReplay {
    pub fn new(policy: Policy, tools: Tools) -> OldReplay {
        OldReplay {
            policy,
            closed: true,
            tools,
            cache: HashMap::new(),
        }
    }

    pub fn open_objects(mut self, open: bool) -> OldReplay {
        self.closed = !open;
        self
    }

    pub fn run_with(
        &mut self,
        mut input: impl BufRead,
        mut on_progress: impl FnMut(u64),
        mut on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
        mut on_malformed: impl FnMut(&LineError),
    ) -> io::Result<Report> {
        // The tally of a replay with the same policy, tools and object
        // reading.
        let mut tally =
            Tally::new(&Replay::new(self.policy, self.tools.clone()).open_objects(!self.closed));
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
                    tally.call(&outcome);
                    on_call(&outcome)?;
                }
                Err(reason) => {
                    tally.malformed();
                    on_malformed(&LineError { line, reason });
                }
            }
        }
        Ok(tally.finish(line))
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
        if let Some(raw) =
            raw_arguments(text).filter(|raw| raw.len() > canon_cli::MAX_ARGUMENTS_TEXT)
        {
            outcome.outcome = "rejected";
            if let Err(error) = canon.parse(raw) {
                outcome.violations = error.violations().to_vec();
            }
            return Ok(outcome);
        }
        let empty = match arguments {
            Value::Null => true,
            Value::String(text) => text.trim().is_empty() || text.trim() == "null",
            _ => false,
        };
        if empty {
            let blank = matches!(arguments, Value::String(text) if text.trim().is_empty());
            if !blank && canon.is_valid(&Value::Null) {
                return Ok(outcome);
            }
            let read = match (self.policy, arguments) {
                (Policy::STRICT, Value::String(text)) if blank => canon.parse(text).map(|_| None),
                (Policy::STRICT, _) => canon.canonicalize(&mut Value::Null).map(|_| None),
                _ => canon.canonicalize(&mut Value::Object(Map::new())).map(Some),
            };
            match read {
                Ok(Some(mut repairs)) => {
                    repairs.insert(0, Repair::new("", RepairRule::EmptyArguments));
                    outcome.outcome = "repaired";
                    outcome.repairs = repairs;
                }
                Ok(None) => {}
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

/// The text of the line's `arguments`, as the line gives it.
fn raw_arguments(line: &str) -> Option<&str> {
    let members: HashMap<String, &serde_json::value::RawValue> = serde_json::from_str(line).ok()?;
    members.get("arguments").map(|raw| raw.get())
}
