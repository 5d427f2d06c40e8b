//! The replay engine: the tools file, the compiled schemas and their
//! caches, and one call bound strictly and with the policy, then counted
//! ([`Tally`]). Reading an input (JSON Lines in `parallel`, other formats
//! in `trace`) is above it.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError};

use canon::{Canonicalizer, Policy, Repair, RepairRule};
use lru::LruCache;
use memchr::memmem;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::borrowed::{self, Line};
use crate::formats;
use crate::outcome::{CallOutcome, LineError};
use crate::report::{finish, tally, ByTool, Report};

/// The captured calls that ship with canon: near misses of small models on
/// four everyday tools, some that canon's rules repair and some that no rule
/// may touch.
pub const SAMPLE_CALLS: &str = include_str!("../data/sample-calls.jsonl");

/// The tools of [`SAMPLE_CALLS`], as an OpenAI `tools` array.
pub const SAMPLE_TOOLS: &str = include_str!("../data/sample-tools.json");

/// Tool schemas looked up by name, for calls that carry no `schema`.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    schemas: HashMap<String, Value>,
}

/// `value` as JSON text with every object's keys in order, so that one
/// schema written with its keys in another order reads the same.
fn sorted_json(value: &Value, out: &mut String) {
    match value {
        Value::Object(members) => {
            let mut keys: Vec<&String> = members.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                sorted_json(&members[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                sorted_json(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

impl Tools {
    /// A digest of the declarations (names and schemas, in name order):
    /// 16 hexadecimal digits of FNV-1a, the same for the same declarations
    /// whatever their order in the file or the order of their schemas'
    /// keys; empty when there are none.
    pub fn digest(&self) -> String {
        if self.schemas.is_empty() {
            return String::new();
        }
        let mut names: Vec<&String> = self.schemas.keys().collect();
        names.sort();
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut add = |bytes: &[u8]| {
            for &byte in bytes {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
        };
        for name in names {
            add(name.as_bytes());
            add(&[0]);
            let mut text = String::new();
            sorted_json(&self.schemas[name], &mut text);
            add(text.as_bytes());
            add(&[0]);
        }
        format!("{hash:016x}")
    }

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
                    match tool_entry(entry) {
                        Some((name, schema)) => _ = tools.schemas.insert(name, schema),
                        None if provider_tool(entry) => {}
                        None => return Err(format!("tool #{} has no name and schema", i + 1)),
                    }
                }
            }
            Err(_) => {
                for (i, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    let entry: Value = serde_json::from_str(line)
                        .map_err(|e| format!("line {}: not JSON ({e})", i + 1))?;
                    match tool_entry(&entry) {
                        Some((name, schema)) => _ = tools.schemas.insert(name, schema),
                        None if provider_tool(&entry) => {}
                        None => return Err(format!("line {}: no tool name and schema", i + 1)),
                    }
                }
            }
        }
        Ok(tools)
    }

    /// The schema of tool `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.schemas.get(name)
    }

    /// Each tool's name and schema, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.schemas
            .iter()
            .map(|(name, schema)| (name.as_str(), schema))
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

/// A tool the provider defines and runs or declares itself, without an
/// input schema (Anthropic's `web_search_20250305`, OpenAI's
/// `web_search`, a free-form `custom` tool): its calls have no schema to
/// replay against, so a tools file may list it among the others.
fn provider_tool(entry: &Value) -> bool {
    entry
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|kind| kind != "function")
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

type Compiled = Result<Arc<Canonicalizer>, String>;

/// The most worker threads a replay starts ([`Replay::jobs`]): each holds
/// batches in flight and the output is the same whatever their number, so
/// a larger request (`--jobs 1000000000`) is read as this rather than
/// exhausting threads or memory.
pub const MAX_JOBS: usize = 256;

/// Compiled schemas a replay keeps by default: all 1,491 distinct schemas
/// of the real corpus fit, with a third to spare. Past it the least
/// recently used is evicted, so memory stays bounded on inputs with
/// endless distinct schemas.
pub const CACHE_CAPACITY: usize = 2048;

/// The bytes of schema text whose compiled schemas a replay keeps by
/// default: 4 MiB. A schema compiles to some fifty times its text, so the
/// cache holds a few hundred megabytes at most, whatever the input; the
/// real corpus's 1,491 schemas (765 KB of text, 4 KB at most each) all
/// fit. Past it the least recently used are evicted.
pub const CACHE_BYTES: usize = 4 << 20;

/// The longest arguments' text a call bound by [`Replay::bind_call`] or
/// [`Replay::replay_call`] is read from: 1 MiB, canon's default bound on a
/// call's text ([`canon::Limits::max_text_bytes`]). Longer text is refused as too
/// large (a `too_large` violation) without being read, as canon's
/// toolbox refuses it.
pub const MAX_ARGUMENTS_TEXT: usize = 1 << 20;

/// The longest schema text that is cached: 256 KiB. A longer schema is
/// compiled for the call that needs it and kept only until another such
/// schema comes (one at a time), so that a run of calls with the same
/// large schema compiles it once, and a run of distinct ones holds one.
pub const CACHED_SCHEMA_MAX: usize = 256 << 10;

/// The compiled schemas of schema texts: the least recently used evicted
/// past a number of entries or of bytes of text, and beside them the last
/// schema too long to cache.
struct SchemaCache {
    entries: LruCache<Arc<str>, Compiled>,
    /// The bytes of the texts in `entries`.
    bytes: usize,
    /// The most `bytes` may be.
    budget: usize,
    /// The last schema over [`CACHED_SCHEMA_MAX`] (or the budget).
    large: Option<(Arc<str>, Compiled)>,
    /// Texts hashed to look up or keep an entry.
    hashes: u64,
}

impl SchemaCache {
    fn new() -> SchemaCache {
        SchemaCache {
            entries: LruCache::new(nonzero(CACHE_CAPACITY)),
            bytes: 0,
            budget: CACHE_BYTES,
            large: None,
            hashes: 0,
        }
    }

    /// Whether a text of `len` bytes is cached among the entries.
    fn cacheable(&self, len: usize) -> bool {
        len <= CACHED_SCHEMA_MAX && len <= self.budget
    }

    /// The text and compiled schema for `key`, if kept.
    fn get(&mut self, key: &str) -> Option<(Arc<str>, Compiled)> {
        if !self.cacheable(key.len()) {
            return match &self.large {
                Some((text, compiled)) if **text == *key => {
                    Some((Arc::clone(text), compiled.clone()))
                }
                _ => None,
            };
        }
        self.hashes += 1;
        self.entries
            .get_key_value(key)
            .map(|(text, compiled)| (Arc::clone(text), compiled.clone()))
    }

    /// The compiled schema for `key`, if kept (its text not taken).
    fn compiled(&mut self, key: &str) -> Option<Compiled> {
        if !self.cacheable(key.len()) {
            return match &self.large {
                Some((text, compiled)) if **text == *key => Some(compiled.clone()),
                _ => None,
            };
        }
        self.hashes += 1;
        self.entries.get(key).cloned()
    }

    /// Keeps `compiled` under its schema's text `key` (a copy of `key` made
    /// unless `shared` holds it), evicting the least recently used past
    /// the entries or the bytes allowed: the text kept.
    fn keep(&mut self, key: &str, shared: Option<&Arc<str>>, compiled: &Compiled) -> Arc<str> {
        let text = match shared {
            Some(shared) if **shared == *key => Arc::clone(shared),
            _ => Arc::from(key),
        };
        if !self.cacheable(key.len()) {
            self.large = Some((Arc::clone(&text), compiled.clone()));
            return text;
        }
        self.hashes += 1;
        self.bytes += key.len();
        if let Some((old, _)) = self.entries.push(Arc::clone(&text), compiled.clone()) {
            self.bytes -= old.len();
        }
        self.shrink();
        text
    }

    /// Evicts the least recently used until within the entries and bytes
    /// allowed.
    fn shrink(&mut self) {
        self.shrink_to(self.entries.cap().get());
    }

    /// Evicts the least recently used until within `entries` entries and
    /// the bytes allowed, counting the evicted texts out.
    fn shrink_to(&mut self, entries: usize) {
        while self.bytes > self.budget || self.entries.len() > entries {
            match self.entries.pop_lru() {
                Some((old, _)) => self.bytes -= old.len(),
                None => break,
            }
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
        self.large = None;
    }
}

/// One call, borrowed from a trace: what [`Replay::replay_call`] binds.
///
/// A reader of another trace format (OpenAI or Anthropic logs, OTLP spans)
/// hands over the texts as they stand in the document it read, without
/// building a `Value` for them: the schema is compiled once per distinct
/// text, found again by a hash of that text.
///
/// ```
/// use canon::Policy;
/// use canon_replay::{CallRef, Replay, Tally, Tools};
///
/// let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
/// let mut tally = Tally::new(&replay);
/// let outcome = replay.replay_call(1, CallRef {
///     tool: "tag",
///     schema: r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}"#,
///     // OpenAI's `arguments`: a JSON string holding the JSON text.
///     arguments: r#""{\"tags\": \"urgent\"}""#,
///     label: None,
/// });
/// assert_eq!(outcome.outcome, "repaired");
/// tally.call(&outcome);
/// assert_eq!(tally.finish(1).totals.accepted_after_repair, 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallRef<'a> {
    /// The tool called.
    pub tool: &'a str,
    /// The tool's input schema: raw JSON text.
    pub schema: &'a str,
    /// The arguments: raw JSON text of an object (Anthropic's `input`), of
    /// a string holding JSON text (OpenAI's `arguments`), or `null`. Text
    /// that is not JSON is bound as the text a model sent: rejected as
    /// malformed.
    pub arguments: &'a str,
    /// The call's own label, if the trace gives one (`--out` and the
    /// corpus tests show it).
    pub label: Option<&'a str>,
}

/// The schemas a caller bound calls with lately, and what they compiled
/// to ([`Replay::bind_call_after`]): the last call's, and a cache of the
/// caller's own, bounded as the engine's shared cache is
/// ([`CACHE_CAPACITY`] entries, [`CACHE_BYTES`] of text), consulted before
/// it. Keep one for each engine and each thread: a thread that finds its
/// schemas in its own cache does not wait on the others for the shared
/// one's lock (two threads binding at once were each about half as fast
/// with only the shared cache). Made on first use, so a `Recent` for one
/// call costs nothing.
#[derive(Default)]
pub struct Recent {
    last: Last,
    own: Option<SchemaCache>,
}

impl fmt::Debug for Recent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recent")
            .field(
                "schema_bytes",
                &self.last.as_ref().map(|(text, _)| text.len()),
            )
            .field(
                "own_schemas",
                &self.own.as_ref().map_or(0, |own| own.entries.len()),
            )
            .finish()
    }
}

/// A call bound by [`Replay::bind_call`]: its outcome, as `canon replay`
/// counts it, and its arguments as bound.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Binding {
    /// What became of the call.
    pub outcome: CallOutcome,
    /// The arguments as bound: as sent (`accepted`) or as repaired
    /// (`repaired`); `None` when the call was refused or its schema did
    /// not compile.
    pub arguments: Option<Value>,
}

impl Binding {
    fn bound(outcome: CallOutcome, arguments: Value) -> Binding {
        Binding {
            outcome,
            arguments: Some(arguments),
        }
    }

    fn refused(outcome: CallOutcome) -> Binding {
        Binding {
            outcome,
            arguments: None,
        }
    }
}

/// Counts outcomes into a [`Report`], in input order, as
/// [`Replay::run`] does: for a reader that replays calls one at a time
/// with [`Replay::replay_call`].
#[derive(Debug, Clone)]
pub struct Tally {
    report: Report,
    /// The per-tool counts, put into the report by [`finish`](Self::finish).
    by_tool: ByTool,
}

impl Tally {
    /// An empty report for `replay`'s policy and object reading.
    pub fn new(replay: &Replay) -> Tally {
        Tally {
            report: Report {
                policy: replay.policy.to_string(),
                closed_objects: replay.closed,
                canon_version: env!("CARGO_PKG_VERSION").to_owned(),
                tools: replay.tools.digest(),
                ..Report::default()
            },
            by_tool: ByTool::default(),
        }
    }

    /// Counts one call.
    pub fn call(&mut self, outcome: &CallOutcome) {
        tally(&mut self.report, &mut self.by_tool, outcome);
    }

    /// Counts one malformed line.
    pub fn malformed(&mut self) {
        self.report.totals.malformed_lines += 1;
    }

    /// Counts one call of a trace that could not be replayed, and why
    /// (a short reason, the same for every such call).
    pub fn skipped(&mut self, reason: &str) {
        self.report.totals.skipped_calls += 1;
        *self
            .report
            .skipped_by_reason
            .entry(reason.to_owned())
            .or_default() += 1;
    }

    /// The report, once `lines` lines (blank ones included) were read.
    pub fn finish(mut self, lines: u64) -> Report {
        self.by_tool.finish(&mut self.report.by_tool);
        finish(&mut self.report, lines);
        self.report
    }

    /// Counts one line's result and tells the callback of it.
    pub(crate) fn emit(
        &mut self,
        line: u64,
        result: Result<CallOutcome, String>,
        on_call: &mut impl FnMut(&CallOutcome) -> io::Result<()>,
        on_malformed: &mut impl FnMut(&LineError),
    ) -> io::Result<()> {
        match result {
            Ok(outcome) => {
                self.call(&outcome);
                on_call(&outcome)
            }
            Err(reason) => {
                self.malformed();
                on_malformed(&LineError { line, reason });
                Ok(())
            }
        }
    }
}

/// A replay in progress: the policy, the tools, and the compiled schemas.
///
/// Schemas given in a line (or a [`CallRef`]) are compiled once per
/// distinct text and kept in a least-recently-used cache of
/// [`CACHE_CAPACITY`] entries and [`CACHE_BYTES`] bytes of schema text
/// (see [`cache_capacity`](Self::cache_capacity) and
/// [`cache_bytes`](Self::cache_bytes)), found by a hash of their text; a
/// text over [`CACHED_SCHEMA_MAX`] is not cached (the last one is kept
/// aside). The schemas of the tools file are compiled once each.
pub struct Replay {
    policy: Policy,
    closed: bool,
    pub(crate) jobs: usize,
    pub(crate) max_line: usize,
    tools: Tools,
    cache: Mutex<SchemaCache>,
    tool_cache: Mutex<HashMap<String, Compiled>>,
    /// The schema of the last call of a trace replayed, and what it
    /// compiled to: the next call of the same record most often has the
    /// same, found again without hashing its text.
    pub(crate) last: Last,
    /// Schemas compiled (a count of work, for tests).
    compiled: AtomicU64,
}

/// The schema text of the last call of a trace replayed, and what it
/// compiled to.
pub(crate) type Last = Option<(Arc<str>, Compiled)>;

impl fmt::Debug for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cache = lock(&self.cache);
        f.debug_struct("Replay")
            .field("policy", &self.policy)
            .field("closed_objects", &self.closed)
            .field("jobs", &self.jobs)
            .field("max_line", &self.max_line)
            .field("tools", &self.tools.len())
            .field("cached_schemas", &cache.entries.len())
            .field("cached_schema_bytes", &cache.bytes)
            .field("cache_capacity", &cache.entries.cap())
            .field("cache_bytes", &cache.budget)
            .finish()
    }
}

/// The data behind `mutex`, even if a thread panicked holding it (the
/// caches stay consistent: an entry is whole or absent).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why a call without a `schema` cannot be replayed: its tool, as the
/// input names it, escaped and cut short ([`formats::shown`]).
fn no_tool(tool: &str) -> String {
    format!(
        "no `schema`, and no tool `{}` in the tools file",
        formats::shown(tool, formats::SHOWN_CHARS)
    )
}

fn nonzero(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN)
}

impl Replay {
    /// A replay binding with `policy`, looking up schemas in `tools` when
    /// a call carries none; undeclared properties are refused. It runs on
    /// the calling thread (see [`jobs`](Self::jobs)).
    pub fn new(policy: Policy, tools: Tools) -> Replay {
        Replay {
            policy,
            closed: true,
            jobs: 1,
            max_line: formats::MAX_RECORD,
            tools,
            cache: Mutex::new(SchemaCache::new()),
            tool_cache: Mutex::new(HashMap::new()),
            last: None,
            compiled: AtomicU64::new(0),
        }
    }

    /// The tools file's schemas, for calls that carry none.
    pub fn tools(&self) -> &Tools {
        &self.tools
    }

    /// Read schemas as written: an object without `additionalProperties:
    /// false` accepts undeclared properties (default: refused, as a model
    /// is told the only parameters a tool takes).
    #[must_use]
    pub fn open_objects(mut self, open: bool) -> Replay {
        self.closed = !open;
        self.clear();
        self.last = None;
        self
    }

    /// Replay on `jobs` threads (default 1, the calling thread; 0 reads as
    /// 1, more than [`MAX_JOBS`] as `MAX_JOBS`): [`run`](Self::run) reads
    /// batches of lines (and
    /// [`run_trace`](Self::run_trace) batches of records) and binds them
    /// on `jobs` worker threads, a bounded number of batches in flight,
    /// and tells of the results in input order, so the report and every
    /// callback are exactly those of one job. The workers share the
    /// schema cache.
    #[must_use]
    pub fn jobs(mut self, jobs: usize) -> Replay {
        self.jobs = jobs.clamp(1, MAX_JOBS);
        self
    }

    /// Keep at most `capacity` compiled schemas (default
    /// [`CACHE_CAPACITY`]; 0 reads as 1), evicting the least recently
    /// used.
    #[must_use]
    pub fn cache_capacity(self, capacity: usize) -> Replay {
        {
            let mut cache = lock(&self.cache);
            let capacity = nonzero(capacity);
            // Evicted here, so that the bytes are counted out.
            cache.shrink_to(capacity.get());
            cache.entries.resize(capacity);
        }
        self
    }

    /// Keep the compiled schemas of at most `bytes` bytes of schema text
    /// (default [`CACHE_BYTES`]), evicting the least recently used; a
    /// text longer than `bytes` (or than [`CACHED_SCHEMA_MAX`]) is not
    /// cached.
    #[must_use]
    pub fn cache_bytes(self, bytes: usize) -> Replay {
        {
            let mut cache = lock(&self.cache);
            cache.budget = bytes;
            cache.shrink();
        }
        self
    }

    /// Hold no line of canon's JSON Lines longer than `bytes` (default
    /// [`MAX_RECORD`](formats::MAX_RECORD), as the trace formats' records;
    /// the newline not counted): a longer line is read through to its
    /// newline without being kept, told as a malformed line ("line over
    /// 64 MiB"), and the lines after it are replayed as usual.
    #[must_use]
    pub fn max_line(mut self, bytes: usize) -> Replay {
        self.max_line = bytes;
        self
    }

    /// How many compiled schemas the cache holds now (never more than its
    /// capacity; the tools file's schemas and the one schema too long to
    /// cache are not counted).
    pub fn cached_schemas(&self) -> usize {
        lock(&self.cache).entries.len()
    }

    /// The bytes of schema text the cache holds now (never more than
    /// [`cache_bytes`](Self::cache_bytes) allows).
    pub fn cached_schema_bytes(&self) -> usize {
        lock(&self.cache).bytes
    }

    /// How many times a schema text was hashed to look it up in the cache
    /// or to keep it there: a count of work, for tests.
    #[doc(hidden)]
    pub fn schema_hashes(&self) -> u64 {
        lock(&self.cache).hashes
    }

    /// How many schemas were compiled: a count of work, for tests.
    #[doc(hidden)]
    pub fn schemas_compiled(&self) -> u64 {
        self.compiled.load(Ordering::Relaxed)
    }

    /// Forgets every compiled schema.
    fn clear(&self) {
        lock(&self.cache).clear();
        lock(&self.tool_cache).clear();
    }

    /// Replays one line: a call, or why it is not one.
    pub fn replay_line(&mut self, line: u64, text: &str) -> Result<CallOutcome, String> {
        self.line_outcome(line, text)
    }

    /// Replays one call of a trace (see [`CallRef`]), numbered `line`.
    ///
    /// A schema that is not JSON is a `schema_error`; arguments are bound
    /// as the same call would be in a JSON Lines file, but for text past
    /// [`MAX_ARGUMENTS_TEXT`], refused as too large without being read.
    ///
    /// A call with the same schema text as the call before it (the calls of
    /// one record to one tool) takes its compiled schema without hashing
    /// the text again.
    pub fn replay_call(&mut self, line: u64, call: CallRef<'_>) -> CallOutcome {
        let mut last = self.last.take();
        let compiled = self.call_schema(&mut last, call.tool, call.schema, None);
        self.last = last;
        self.call_outcome(line, call, &compiled)
    }

    /// [`replay_call`](Self::replay_call) from any thread (the caches are
    /// shared, behind their locks), with the arguments as bound: what an
    /// engine that binds calls in parallel (a SQL function over a column,
    /// say) calls for each.
    ///
    /// ```
    /// use canon::Policy;
    /// use canon_replay::{CallRef, Replay, Tools};
    ///
    /// let replay = Replay::new(Policy::DEFAULT, Tools::default());
    /// let schema = r#"{"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}"#;
    /// let call = CallRef { tool: "t", schema, arguments: r#"{"names": "a"}"#, label: None };
    /// let binding = replay.bind_call(1, call);
    /// assert_eq!(binding.outcome.outcome, "repaired");
    /// assert_eq!(binding.arguments, Some(serde_json::json!({"names": ["a"]})));
    /// ```
    pub fn bind_call(&self, line: u64, call: CallRef<'_>) -> Binding {
        self.bind_call_after(&mut Recent::default(), line, call)
    }

    /// [`bind_call`](Self::bind_call) for a caller that binds calls in
    /// turn and keeps `recent` between them: a call whose schema text is
    /// the one of the call before takes its compiled schema at once,
    /// without the shared cache's lock (threads binding at once do not
    /// wait on each other for it).
    pub fn bind_call_after(&self, recent: &mut Recent, line: u64, call: CallRef<'_>) -> Binding {
        match self.recent_schema(recent, call.tool, call.schema) {
            Some(compiled) => self.call_binding(line, call, &compiled),
            None => match &recent.last {
                Some((_, compiled)) => self.call_binding(line, call, compiled),
                None => self.call_binding(line, call, &self.compile_text(call.tool, call.schema)),
            },
        }
    }

    /// The compiled schema whose text is `text`: `None` when it is
    /// `recent`'s last (the last call's, or found in the caller's own
    /// cache), else the shared cache's or compiled (and kept in both, and
    /// made the last, when the text may be kept). Borrowed from `recent`
    /// where it can be, so that threads binding at once do not write to
    /// one reference count on every call.
    fn recent_schema(&self, recent: &mut Recent, tool: &str, text: &str) -> Option<Compiled> {
        if let Some((before, _)) = &recent.last {
            if **before == *text {
                return None;
            }
        }
        if let Some(found) = recent.own.as_mut().and_then(|own| own.get(text)) {
            recent.last = Some(found);
            return None;
        }
        let compiled = self.call_schema(&mut recent.last, tool, text, None);
        if recent.last.is_some() {
            // A copy of the text of the caller's own, for the same reason.
            let own = recent.own.get_or_insert_with(SchemaCache::new);
            let text = own.keep(text, None, &compiled);
            recent.last = Some((text, compiled));
            return None;
        }
        Some(compiled)
    }

    /// The schema text `text` parsed and compiled, not cached.
    fn compile_text(&self, tool: &str, text: &str) -> Compiled {
        match serde_json::from_str::<Value>(text) {
            Ok(schema) => self.compile(tool, &schema),
            Err(e) => Err(format!("the schema is not JSON ({e})")),
        }
    }

    /// Replays one call of a record as
    /// [`Extractor::record_shared`](formats::Extractor::record_shared)
    /// gives it: `None` when it cannot be bound as it stands (see
    /// [`Call::skip_reason`](formats::Call::skip_reason)). A call whose
    /// schema text is the very one of the call before it (shared, as the
    /// calls of a record to one tool share it) takes its compiled schema
    /// at once, however long the text.
    ///
    /// ```
    /// use canon::Policy;
    /// use canon_replay::formats::{Extractor, Format};
    /// use canon_replay::{Replay, Tools};
    ///
    /// let record = r#"{"request": {"tools": [{"name": "t", "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]}, "response": {"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"n": 1}}, {"type": "tool_use", "id": "toolu_2", "name": "t", "input": {"n": "x"}}]}}"#;
    /// let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
    /// let found = Extractor::new(Format::Anthropic).record_shared(1, record).unwrap();
    /// let outcomes: Vec<_> = found
    ///     .iter()
    ///     .filter_map(|l| replay.replay_shared(l.line, &l.call))
    ///     .map(|o| o.outcome)
    ///     .collect();
    /// assert_eq!(outcomes, ["accepted", "rejected"]);
    /// ```
    pub fn replay_shared(&mut self, line: u64, call: &formats::SharedCall) -> Option<CallOutcome> {
        let mut last = self.last.take();
        let outcome = self.shared_outcome(&mut last, line, call);
        self.last = last;
        outcome
    }

    /// [`replay_shared`](Self::replay_shared), shared between threads:
    /// `last` is the caller's own last schema.
    pub(crate) fn shared_outcome(
        &self,
        last: &mut Last,
        line: u64,
        call: &formats::SharedCall,
    ) -> Option<CallOutcome> {
        let (formats::Schema::Declared(schema), Some(arguments)) = (&call.schema, &call.arguments)
        else {
            return None;
        };
        let compiled = self.call_schema(last, &call.tool, schema, Some(schema));
        let call = CallRef {
            tool: &call.tool,
            schema,
            arguments,
            label: call.label.as_deref(),
        };
        Some(self.call_outcome(line, call, &compiled))
    }

    /// The compiled schema of a call of a trace, whose schema text is
    /// `text` (held by `shared`, when given): the last call's (`last`) if
    /// the text is the same, else the cache's, else compiled (and cached).
    fn call_schema(
        &self,
        last: &mut Last,
        tool: &str,
        text: &str,
        shared: Option<&Arc<str>>,
    ) -> Compiled {
        if let Some((text_before, compiled)) = &*last {
            if shared.is_some_and(|shared| Arc::ptr_eq(shared, text_before))
                || **text_before == *text
            {
                return compiled.clone();
            }
        }
        let cached = lock(&self.cache).get(text);
        let (kept, compiled) = match cached {
            Some((kept, compiled)) => (Some(kept), compiled),
            None => match serde_json::from_str::<Value>(text) {
                Ok(schema) => {
                    let compiled = self.compile(tool, &schema);
                    // Kept only as a line could hold it, so that a line
                    // with the same text finds it exactly as it would
                    // compile it.
                    let kept = (borrowed::depth(&schema) <= borrowed::MEMBER_DEPTH)
                        .then(|| lock(&self.cache).keep(text, shared, &compiled));
                    (kept, compiled)
                }
                Err(e) => (None, Err(format!("the schema is not JSON ({e})"))),
            },
        };
        // The caller's own text when shared, so that the next call of its
        // record is told by a pointer.
        *last = shared
            .cloned()
            .or(kept)
            .map(|text| (text, compiled.clone()));
        compiled
    }

    /// A call of a trace bound with `compiled`.
    fn call_outcome(&self, line: u64, call: CallRef<'_>, compiled: &Compiled) -> CallOutcome {
        self.call_binding(line, call, compiled).outcome
    }

    /// [`call_outcome`](Self::call_outcome), with the arguments as bound.
    fn call_binding(&self, line: u64, call: CallRef<'_>, compiled: &Compiled) -> Binding {
        if call.arguments.len() > MAX_ARGUMENTS_TEXT {
            return self.too_large(line, call, compiled);
        }
        let arguments = serde_json::from_str::<Value>(call.arguments)
            .unwrap_or_else(|_| Value::String(call.arguments.to_owned()));
        self.bind_with(
            line,
            call.tool,
            call.label.map(str::to_owned),
            compiled,
            arguments,
        )
    }

    /// A call whose arguments' text is past [`MAX_ARGUMENTS_TEXT`]: refused
    /// as too large, as canon refuses such text, without reading it (its
    /// schema's error first, if it has one).
    #[cold]
    fn too_large(&self, line: u64, call: CallRef<'_>, compiled: &Compiled) -> Binding {
        let canon = match compiled {
            Ok(canon) => canon,
            // Said before the arguments are looked at.
            Err(_) => {
                return self.bind_with(line, call.tool, None, compiled, Value::Null);
            }
        };
        let label = call.label.map(str::to_owned);
        let mut outcome = CallOutcome::new(line, call.tool, "rejected", label);
        // Text past the bound is refused before it is read.
        if let Err(error) = canon.parse(call.arguments) {
            outcome.violations = error.violations().to_vec();
        }
        Binding::refused(outcome)
    }

    /// One line's bytes: nothing for a blank line, else the call or why
    /// the line is not one.
    pub(crate) fn replay_bytes(
        &self,
        line: u64,
        bytes: &[u8],
    ) -> Option<Result<CallOutcome, String>> {
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                return Some(Err(format!(
                    "not UTF-8 (invalid byte at column {})",
                    e.valid_up_to() + 1
                )))
            }
        };
        if text.trim().is_empty() {
            return None;
        }
        Some(self.line_outcome(line, text))
    }

    /// [`replay_line`](Self::replay_line), shared between threads: read
    /// borrowing, or the slow way when that reading is in doubt.
    fn line_outcome(&self, line: u64, text: &str) -> Result<CallOutcome, String> {
        // Only a line that long can hold arguments past the bound.
        if text.len() > MAX_ARGUMENTS_TEXT {
            if let Some(outcome) = self.oversized(line, text) {
                return Ok(outcome);
            }
        }
        match self.fast(line, text) {
            Some(result) => result,
            None => self.slow(line, text),
        }
    }

    /// A call whose arguments' text is past [`MAX_ARGUMENTS_TEXT`], refused
    /// unread as [`bind_call`](Self::bind_call) refuses it, so that the
    /// same call gives the same outcome in JSON Lines and in a table; `None`
    /// for any other line (or one the usual reading is to say is
    /// malformed).
    #[cold]
    fn oversized(&self, line: u64, text: &str) -> Option<CallOutcome> {
        /// The members of a call line, as their raw text.
        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(borrow)]
            tool: Option<&'a RawValue>,
            #[serde(borrow)]
            name: Option<&'a RawValue>,
            #[serde(borrow)]
            class: Option<&'a RawValue>,
            #[serde(borrow)]
            note: Option<&'a RawValue>,
            #[serde(borrow)]
            schema: Option<&'a RawValue>,
            #[serde(borrow)]
            arguments: Option<&'a RawValue>,
        }
        let raw: Raw<'_> = serde_json::from_str(text).ok()?;
        let arguments = raw.arguments?.get();
        if arguments.len() <= MAX_ARGUMENTS_TEXT {
            return None;
        }
        let string = |raw: Option<&RawValue>| {
            raw.and_then(|raw| serde_json::from_str::<std::borrow::Cow<'_, str>>(raw.get()).ok())
        };
        let tool = string(raw.tool).or_else(|| string(raw.name))?;
        let label = string(raw.class).or_else(|| string(raw.note));
        let compiled = match raw.schema {
            Some(schema) => self.line_schema(&tool, schema.get())?,
            None => self.tool_schema(&tool, self.tools.get(&tool)?),
        };
        let call = CallRef {
            tool: &tool,
            schema: raw.schema.map_or("", RawValue::get),
            arguments,
            label: label.as_deref(),
        };
        Some(self.too_large(line, call, &compiled).outcome)
    }

    /// The line read in one pass with no `Value` but the arguments, the
    /// schema found by its text; `None` when the slow way must decide
    /// (the line is not an object a `Value` parse accepts, or the schema
    /// is new and does not parse within a line).
    fn fast(&self, line: u64, text: &str) -> Option<Result<CallOutcome, String>> {
        if let Some(result) = self.known(line, text) {
            return Some(result);
        }
        let call = Line::read(text)?;
        self.fast_call(line, call, |tool, schema| {
            self.line_schema(tool, schema.get())
        })
    }

    /// The line read as [`fast`](Self::fast) reads it when its schema's
    /// text is cached, without the schema's text being read as JSON again:
    /// the object after the line's first `"schema":` (its end guessed first
    /// where the line's `,"arguments":` begins, else told by its brackets
    /// and strings alone) is looked up in the cache, and the rest of the
    /// line is read with `0` in its place. That reading is exact: a cached
    /// text is one whole JSON object (it was parsed alone, and nests no
    /// deeper than a line's member may), so when the `0` is what the line
    /// gives as its `schema` (told by where it lies), the line with the
    /// text there reads the same, with the text as its schema. `None`
    /// when any of this does not hold: then [`fast`](Self::fast) reads the
    /// line whole.
    fn known(&self, line: u64, text: &str) -> Option<Result<CallOutcome, String>> {
        static KEY: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(b"\"schema\":"));
        static NEXT: LazyLock<memmem::Finder<'static>> =
            LazyLock::new(|| memmem::Finder::new(b",\"arguments\":"));
        let start = KEY.find(text.as_bytes())? + KEY.needle().len();
        let (before, rest) = text.split_at_checked(start)?;
        // Where the schema most often ends, as canon's JSON Lines are
        // written: before `,"arguments":`. Any end found is only a guess
        // that the cache confirms (or not), so the schema is told by its
        // brackets and strings when that guess is not cached.
        let guess = NEXT
            .find(rest.as_bytes())
            .filter(|&end| rest.as_bytes().get(end.wrapping_sub(1)) == Some(&b'}'))
            .and_then(|end| Some((end, self.cached(rest.get(..end)?)?)));
        let (len, compiled) = match guess {
            Some(found) => found,
            None => {
                let len = borrowed::object_len(rest.as_bytes())?;
                (len, self.cached(rest.get(..len)?)?)
            }
        };
        let (schema, after) = rest.split_at_checked(len)?;
        if !schema.starts_with('{') {
            return None;
        }
        let mut without = String::with_capacity(before.len() + 1 + after.len());
        without.push_str(before);
        without.push('0');
        without.push_str(after);
        let call = Line::read(&without)?;
        let placeholder = call.schema?.get();
        if placeholder.len() != 1
            || placeholder.as_ptr() as usize != without.as_ptr() as usize + before.len()
        {
            return None;
        }
        self.fast_call(line, call, |_, _| Some(compiled))
    }

    /// A call line read borrowing, bound: `schema` gives the compiled
    /// schema of the line's raw schema text (`None`: the slow way
    /// decides).
    fn fast_call(
        &self,
        line: u64,
        call: Line<'_>,
        schema: impl FnOnce(&str, &RawValue) -> Option<Compiled>,
    ) -> Option<Result<CallOutcome, String>> {
        let Some(tool) = call.tool.text().or_else(|| call.name.text()) else {
            return Some(Err("no `tool` (or `name`) string".to_owned()));
        };
        let label = call.class.text().or_else(|| call.note.text());
        let compiled = match call.schema {
            Some(raw) => {
                if call.arguments.is_none() {
                    return Some(Err("no `arguments`".to_owned()));
                }
                schema(tool, raw)?
            }
            None => {
                let Some(schema) = self.tools.get(tool) else {
                    return Some(Err(no_tool(tool)));
                };
                if call.arguments.is_none() {
                    return Some(Err("no `arguments`".to_owned()));
                }
                self.tool_schema(tool, schema)
            }
        };
        let arguments = call.arguments?;
        let label = label.map(str::to_owned);
        Some(Ok(self
            .bind_with(line, tool, label, &compiled, arguments)
            .outcome))
    }

    /// The compiled schema whose raw text in a line is `text`: cached, or
    /// parsed and compiled; `None` when a `Value` parse of the whole line
    /// would not accept it.
    fn line_schema(&self, tool: &str, text: &str) -> Option<Compiled> {
        if let Some(compiled) = self.cached(text) {
            return Some(compiled);
        }
        let schema: Value = serde_json::from_str(text).ok()?;
        if borrowed::depth(&schema) > borrowed::MEMBER_DEPTH {
            return None;
        }
        let compiled = self.compile(tool, &schema);
        self.keep(text, &compiled);
        Some(compiled)
    }

    /// The compiled schema of tool `tool` of the tools file.
    fn tool_schema(&self, tool: &str, schema: &Value) -> Compiled {
        if let Some(compiled) = lock(&self.tool_cache).get(tool) {
            return compiled.clone();
        }
        let compiled = self.compile(tool, schema);
        lock(&self.tool_cache).insert(tool.to_owned(), compiled.clone());
        compiled
    }

    /// The compiled schema whose text is `key`, if cached.
    fn cached(&self, key: &str) -> Option<Compiled> {
        lock(&self.cache).compiled(key)
    }

    /// Caches `compiled` under its schema's text `key`, evicting the least
    /// recently used past the entries or bytes allowed.
    fn keep(&self, key: &str, compiled: &Compiled) {
        lock(&self.cache).keep(key, None, compiled);
    }

    fn compile(&self, tool: &str, schema: &Value) -> Compiled {
        self.compiled.fetch_add(1, Ordering::Relaxed);
        Canonicalizer::options()
            .tool(tool.to_owned())
            .policy(self.policy)
            .closed_objects(self.closed)
            .compile(schema)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }

    /// The line parsed whole into a `Value`: the reference reading, which
    /// says why a line is malformed.
    #[cold]
    fn slow(&self, line: u64, text: &str) -> Result<CallOutcome, String> {
        let call: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        let tool = ["tool", "name"]
            .iter()
            .find_map(|k| call.get(*k).and_then(Value::as_str))
            .ok_or("no `tool` (or `name`) string")?;
        let label = ["class", "note"]
            .iter()
            .find_map(|k| call.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        let (schema, from_tools) = match call.get("schema") {
            Some(schema) => (schema, false),
            None => (self.tools.get(tool).ok_or_else(|| no_tool(tool))?, true),
        };
        let arguments = call.get("arguments").ok_or("no `arguments`")?;
        let compiled = match from_tools {
            true => self.tool_schema(tool, schema),
            false => self.compile(tool, schema),
        };
        Ok(self
            .bind_with(line, tool, label, &compiled, arguments.clone())
            .outcome)
    }

    /// Binds `arguments` strictly and with canon: the call's outcome, and
    /// the arguments as bound.
    fn bind_with(
        &self,
        line: u64,
        tool: &str,
        label: Option<String>,
        compiled: &Compiled,
        arguments: Value,
    ) -> Binding {
        let mut outcome = CallOutcome::new(line, tool, "accepted", label);
        let canon = match compiled {
            Ok(canon) => canon,
            Err(message) => {
                outcome.outcome = "schema_error";
                outcome.schema_error = Some(message.clone());
                return Binding::refused(outcome);
            }
        };
        let empty = match &arguments {
            Value::Null => true,
            Value::String(text) => text.trim().is_empty() || text.trim() == "null",
            _ => false,
        };
        if empty {
            let blank = matches!(&arguments, Value::String(text) if text.trim().is_empty());
            // `null` where the schema takes it: a strict binder accepts it.
            if !blank && canon.is_valid(&Value::Null) {
                return Binding::bound(outcome, Value::Null);
            }
            // Otherwise a strict binder refuses them; canon reads them as
            // `{}`, as its toolbox does, unless the policy is strict.
            let mut empty = Value::Object(Map::new());
            let read = match (self.policy, &arguments) {
                (Policy::STRICT, Value::String(text)) if blank => canon.parse(text).map(|_| None),
                (Policy::STRICT, _) => canon.canonicalize(&mut Value::Null).map(|_| None),
                _ => canon.canonicalize(&mut empty).map(Some),
            };
            match read {
                Ok(Some(mut repairs)) => {
                    repairs.insert(0, Repair::new("", RepairRule::EmptyArguments));
                    outcome.outcome = "repaired";
                    outcome.repairs = repairs;
                    return Binding::bound(outcome, empty);
                }
                // Not reached: blank text is not JSON, and `null` was
                // found invalid above.
                Ok(None) => {}
                Err(error) => {
                    outcome.outcome = "rejected";
                    outcome.violations = error.violations().to_vec();
                }
            }
            return Binding::refused(outcome);
        }
        let mut args = match arguments {
            Value::String(text) => match canon.parse(&text) {
                Ok(value) => value,
                Err(error) => {
                    outcome.outcome = "rejected";
                    outcome.violations = error.violations().to_vec();
                    return Binding::refused(outcome);
                }
            },
            other => other,
        };
        if canon.is_valid(&args) {
            return Binding::bound(outcome, args);
        }
        match canon.canonicalize(&mut args) {
            Ok(repairs) => {
                outcome.outcome = "repaired";
                outcome.repairs = repairs;
                Binding::bound(outcome, args)
            }
            Err(error) => {
                outcome.outcome = "rejected";
                outcome.violations = error.violations().to_vec();
                Binding::refused(outcome)
            }
        }
    }
}
