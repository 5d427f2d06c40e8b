//! The trace formats `canon replay` reads besides its own JSON Lines.
//!
//! A captured tool call is only worth replaying with the schema the model
//! was given. Teams already keep both, in one of these forms:
//!
//! | [`Format`] | `--format` | a record is | tools from | calls from |
//! |---|---|---|---|---|
//! | [`Canon`](Format::Canon) | `canon` | `{"tool", "schema", "arguments"}` | `schema` | `arguments` |
//! | [`OpenAiChat`](Format::OpenAiChat) | `openai-chat` | a logged exchange | `tools[].function.{name, parameters}` (and legacy `functions[]`) | `choices[].message.tool_calls[].function.{name, arguments}` (and legacy `function_call`), or the chunks of a stream |
//! | [`OpenAiResponses`](Format::OpenAiResponses) | `openai-responses` | a logged exchange | `tools[]` of `type: "function"` (`name`, `parameters`); `mcp_list_tools` output items | `output[]` items of type `function_call` (`name`, `arguments`, `call_id`) and `mcp_call`, or the events of a stream |
//! | [`Anthropic`](Format::Anthropic) | `anthropic` | a logged exchange | `tools[].{name, input_schema}` | `content[]` blocks of type `tool_use` (`name`, `input`), or the events of a stream |
//! | [`Otlp`](Format::Otlp) | `otlp` | an OTLP/JSON `ExportTraceServiceRequest` (or a trace as Grafana Tempo's API returns it) | `gen_ai.tool.definitions` | `execute_tool` spans (`gen_ai.tool.name`, `gen_ai.tool.call.arguments`) and `tool_call` parts of `gen_ai.output.messages` |
//!
//! A logged exchange is one JSON object holding the request and the
//! response, as proxies and gateways log them; [`calls`] reads
//!
//! - `{"request": …, "response": …}` (Helicone's stored bodies, and any
//!   proxy that logs the two bodies side by side);
//! - `{"request_body": …, "response_body": …}` (Helicone's export), and
//!   `requestBody`/`responseBody`;
//! - Portkey's log object, `{"request": {"body": …}, "response": {"body": …}}`,
//!   and the OpenAI Batch output line, `{"response": {"body": …}}`;
//! - LiteLLM's `StandardLoggingPayload` (`model_parameters.tools` and
//!   `response`) and its spend logs (`proxy_server_request` and
//!   `response`);
//! - the Anthropic Message Batches result line, `{"result": {"message": …}}`;
//! - a bare response body (then no schema is known: see [`Schema::Unknown`]).
//!
//! A body may be logged as the JSON object or as its text (a JSON string),
//! and a streamed response as the array of its chunks or events, or as
//! the server-sent-events text. A JSON array of records is not read: make
//! it JSON Lines first (`jq -c '.[]'`).
//!
//! Reading is bounded and never panics: a record that is not what its
//! format says is an `Err` with a short reason; each JSON text parsed (the
//! record, and a body or attribute logged as JSON text inside it, a body
//! unwrapped at most four times) is bounded in nesting by `serde_json`'s
//! limit (128), and an OTLP attribute's `arrayValue`s and `kvlistValue`s
//! are read 64 deep at most; the compressed input is decoded as it is
//! read ([`open_input`]).

mod anthropic;
mod call;
mod decompress;
mod envelope;
mod openai;
mod otlp;
mod records;

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use serde_json::Value;

use call::parse;
pub use call::{Call, Format, Located, Schema, SharedCall, UnknownFormat};
pub use decompress::{decompress, open_input, Compression};
pub use records::{Record, Records, MAX_RECORD};

/// The characters of input text (a tool name, a pointer) shown on a
/// terminal at most, by [`shown`].
pub const SHOWN_CHARS: usize = 64;

/// `text`, taken from the input, as it may be printed on a terminal: one
/// line of at most `max` characters (at least 1), control characters (ESC
/// among them), the line and paragraph separators U+2028 and U+2029, the
/// bidirectional controls and the byte order mark escaped (`\n`,
/// `\u{1b}`; an escape is never cut), and an ellipsis where it is cut.
/// Reads at most `max + 1` characters of `text`, and what it gives is
/// shown as it is again (`shown(shown(t, m), m) == shown(t, m)`). `--out`
/// and `--json` keep the exact text, JSON-escaped; only what is printed
/// for a person to read goes through here.
///
/// ```
/// use canon_replay::formats::shown;
///
/// assert_eq!(shown("search_code", 64), "search_code");
/// assert_eq!(shown("\u{1b}[2J\nx", 64), "\\u{1b}[2J\\nx");
/// assert_eq!(shown(&"a".repeat(100), 8), "aaaaaaa…");
/// ```
pub fn shown(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let max = max.max(1);
    // Printable ASCII within `max` bytes is shown as it is: the common
    // case (a tool name), told without decoding characters.
    if text.len() <= max && text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let hidden = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{2028}'
                    | '\u{2029}'
                    | '\u{200e}'
                    | '\u{200f}'
                    | '\u{202a}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}'
                    | '\u{feff}'
            )
    };
    let mut plain = true;
    let mut count = 0;
    for c in text.chars() {
        count += 1;
        if count > max || hidden(c) {
            plain = false;
            break;
        }
    }
    if plain {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::new();
    // The length of `out` when it last held at most `max - 1` characters.
    let mut cut = 0;
    let mut count = 0;
    for c in text.chars() {
        let escape = match c {
            '\n' => Some("\\n".to_owned()),
            '\r' => Some("\\r".to_owned()),
            '\t' => Some("\\t".to_owned()),
            c if hidden(c) => Some(format!("\\u{{{:x}}}", u32::from(c))),
            _ => None,
        };
        let (piece, n) = match &escape {
            Some(escape) => (escape.as_str(), escape.len()),
            None => ("", 1),
        };
        if count + n > max {
            out.truncate(cut);
            out.push('…');
            return std::borrow::Cow::Owned(out);
        }
        if escape.is_some() {
            out.push_str(piece);
        } else {
            out.push(c);
        }
        count += n;
        if count < max {
            cut = out.len();
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The format of an input, from its first record (the first non-blank
/// line of JSON Lines, or the first document: see [`Records`]); `None`
/// when it is none of them (or not JSON).
///
/// An OTLP document has `resourceSpans`; a canon line has `tool` (or
/// `name`) and `arguments`; a logged exchange is told by its response
/// (`choices` or a `chat.completion` chunk: Chat Completions; `output` or
/// `response.*` events: Responses; a `message` with `content`, or
/// `message_start`: Anthropic), or failing that by its request's tools
/// (`function` wrapper: Chat; `type: "function"` with `name`: Responses;
/// `input_schema`: Anthropic).
///
/// ```
/// use canon_replay::formats::{detect, Format};
///
/// let line = r#"{"request": {"model": "claude-sonnet-4-5", "tools": [{"name": "t", "input_schema": {"type": "object"}}]}, "response": {"type": "message", "role": "assistant", "content": []}}"#;
/// assert_eq!(detect(line), Some(Format::Anthropic));
/// assert_eq!(detect(r#"{"resourceSpans": []}"#), Some(Format::Otlp));
/// assert_eq!(detect("not json"), None);
/// ```
pub fn detect(first_record: &str) -> Option<Format> {
    let value: Value = serde_json::from_str(first_record.trim()).ok()?;
    let record = value.as_object()?;
    if otlp::resource_spans(record).is_some() {
        return Some(Format::Otlp);
    }
    if ["tool", "name"]
        .iter()
        .any(|k| record.get(*k).is_some_and(Value::is_string))
        && record.contains_key("arguments")
    {
        return Some(Format::Canon);
    }
    let exchange = envelope::Exchange::of(&value).ok()?;
    exchange
        .response
        .as_ref()
        .and_then(envelope::sniff_response)
        .or_else(|| exchange.request.as_ref().and_then(envelope::sniff_request))
}

/// Records [`sniff`] reads at most to tell the format.
pub const SNIFF_RECORDS: usize = 16;

/// The format of `input`, told by [`detect`] from its first records (the
/// first that tells, among the first [`SNIFF_RECORDS`], and no further
/// once a mebibyte is read: a blank or truncated first line does not
/// decide), and the input to read from its start again (the bytes read to
/// tell are kept, so lines and byte counts are as if nothing had been
/// read). For `--format` left out:
///
/// ```
/// use std::io::Read;
///
/// use canon_replay::formats::{sniff, Format};
///
/// let text = "\nnot json\n{\"resourceSpans\": []}\n";
/// let (format, mut input) = sniff(text.as_bytes()).unwrap();
/// assert_eq!(format, Some(Format::Otlp));
/// let mut again = String::new();
/// input.read_to_string(&mut again).unwrap();
/// assert_eq!(again, text);
/// ```
///
/// # Errors
/// An I/O error reading the first records, or a first record (blank lines
/// before it included) over [`MAX_RECORD`] bytes: then name the format
/// with `--format`.
pub fn sniff<'a>(input: impl BufRead + 'a) -> io::Result<(Option<Format>, Box<dyn BufRead + 'a>)> {
    let tee = Tee {
        inner: input,
        kept: Vec::new(),
        over: false,
    };
    let mut records = Records::new(tee);
    let mut format = None;
    for i in 0..SNIFF_RECORDS {
        if i > 0 && records.get_ref().kept.len() > 1 << 20 {
            break;
        }
        let Some(record) = records.next().transpose()? else {
            break;
        };
        if records.get_ref().over {
            if i == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the first record is over {} MiB: name the format with --format",
                        MAX_RECORD >> 20
                    ),
                ));
            }
            // A record cut short by the Tee's bound tells nothing.
            break;
        }
        format = record.text.ok().and_then(|text| detect(&text));
        if format.is_some() {
            break;
        }
    }
    let Tee { inner, kept, .. } = records.into_inner();
    Ok((format, Box::new(io::Cursor::new(kept).chain(inner))))
}

/// The bytes a [`Tee`] keeps at most: a first record of [`MAX_RECORD`]
/// bytes and a mebibyte of blank lines before it.
const TEE_BYTES: usize = MAX_RECORD + (1 << 20);

/// A reader that keeps what is read from it, and reads no further than
/// [`TEE_BYTES`]: past them it reads as the end of the input (`over` set),
/// the rest left unread in `inner`, so that nothing is lost.
struct Tee<R> {
    inner: R,
    kept: Vec<u8>,
    over: bool,
}

impl<R: BufRead> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tee<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let room = TEE_BYTES.saturating_sub(self.kept.len());
        let buffered = self.inner.fill_buf()?;
        if room == 0 && !buffered.is_empty() {
            self.over = true;
        }
        Ok(&buffered[..room.min(buffered.len())])
    }

    fn consume(&mut self, amount: usize) {
        let room = TEE_BYTES.saturating_sub(self.kept.len());
        let amount = amount.min(room);
        if let Ok(buffered) = self.inner.fill_buf() {
            let taken = &buffered[..amount.min(buffered.len())];
            self.kept.extend_from_slice(taken);
            let n = taken.len();
            self.inner.consume(n);
        }
    }
}

/// The tool calls of one record (one JSON Lines line, or one OTLP
/// document), in the order the record holds them: parallel calls are
/// each a [`Call`]; a call to a tool the request did not declare is a
/// [`Schema::Undeclared`] call, and one whose arguments were not captured
/// has `arguments: None`, so that nothing found is lost. For OTLP, a call
/// is paired with the definition of its name in the same trace (spans
/// without a trace id: the same document), else any of the document;
/// [`Extractor`] pairs across the documents of a stream.
///
/// # Errors
/// A short reason when the record is not of `format` (not JSON, or none
/// of the shapes the format reads).
///
/// ```
/// use canon_replay::formats::{calls, Format, Schema};
///
/// let record = r#"{
///   "request": {"model": "gpt-4o", "tools": [{"type": "function", "function": {
///     "name": "search_code",
///     "parameters": {"type": "object", "properties": {
///       "data_source_names": {"type": "array", "items": {"type": "string"}}}}}}]},
///   "response": {"object": "chat.completion", "choices": [{"index": 0, "message": {
///     "role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
///       "function": {"name": "search_code", "arguments": "{\"data_source_names\":\"dotnet/eshop\"}"}}]},
///     "finish_reason": "tool_calls"}]}
/// }"#;
/// let found = calls(Format::OpenAiChat, record).unwrap();
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].tool, "search_code");
/// assert!(matches!(found[0].schema, Schema::Declared(_)));
/// // The arguments as OpenAI sent them: a JSON string holding the text.
/// assert_eq!(
///     found[0].arguments.as_deref(),
///     Some(r#""{\"data_source_names\":\"dotnet/eshop\"}""#)
/// );
/// assert_eq!(found[0].label.as_deref(), Some("call_1"));
/// ```
pub fn calls(format: Format, record: &str) -> Result<Vec<Call>, String> {
    let mut extractor = Extractor::new(format);
    let mut found: Vec<Call> = extractor
        .record_shared(0, record)?
        .into_iter()
        .map(|l| l.call.into_owned())
        .collect();
    found.extend(extractor.finish().into_iter().map(|l| l.call));
    Ok(found)
}

/// Reads the records of one input in turn, keeping what pairs calls with
/// definitions across records: an OTLP exporter sends a trace's spans in
/// several batches, and the span that carries `gen_ai.tool.definitions`
/// (an `invoke_agent` span ends last) may come after the tool calls. The
/// calls of a trace that has no definition yet are held (at most
/// [`Extractor::HELD`], and 64 MiB with their trace ids) until definitions
/// of their trace arrive, or until [`finish`](Self::finish) gives them back
/// as [`Schema::Unknown`]; a trace's definitions are taken to come
/// together, so a call to a name its trace does not define is given back at
/// once. The definitions of at most 16,384 traces and 64 MiB (names and
/// schema texts; past either they are forgotten and gathered anew) and the
/// ids of at most 2^20 calls (each as a 16-byte hash, for telling a call
/// recorded twice) are kept; a trace id over 64 bytes (a real one is 32 hex
/// digits) is kept as a hash of it. The other formats hold nothing.
#[derive(Debug)]
pub struct Extractor {
    format: Format,
    otlp: otlp::State,
}

impl Extractor {
    /// Calls held at most, waiting for their definition; past this the
    /// oldest are given back as [`Schema::Unknown`].
    pub const HELD: usize = otlp::HELD;

    /// An extractor for `format`.
    pub fn new(format: Format) -> Extractor {
        Extractor {
            format,
            otlp: otlp::State::default(),
        }
    }

    /// The calls of the record on `line` that are ready, and the held ones
    /// it completes (with the lines they were found on), each with a copy
    /// of its schema text of its own: [`record_shared`](Self::record_shared)
    /// shares them, as a record of many calls needs.
    ///
    /// # Errors
    /// As [`calls`].
    pub fn record(&mut self, line: u64, record: &str) -> Result<Vec<Located>, String> {
        Ok(self
            .record_shared(line, record)?
            .into_iter()
            .map(Located::into_owned)
            .collect())
    }

    /// [`record`](Self::record), each schema text held once per record
    /// (or per OTLP trace) and shared by the calls to its tool.
    ///
    /// # Errors
    /// As [`calls`].
    pub fn record_shared(
        &mut self,
        line: u64,
        record: &str,
    ) -> Result<Vec<Located<Arc<str>>>, String> {
        let value = parse(record)?;
        let here = |calls: Vec<SharedCall>| -> Vec<Located<Arc<str>>> {
            calls
                .into_iter()
                .map(|call| Located { line, call })
                .collect()
        };
        match self.format {
            Format::Canon => canon_line(&value).map(|call| here(vec![call])),
            Format::OpenAiChat => openai::chat(&value).map(here),
            Format::OpenAiResponses => openai::responses(&value).map(here),
            Format::Anthropic => anthropic::messages(&value).map(here),
            Format::Otlp => self.otlp.document(line, &value),
        }
    }

    /// Whether the calls of `format` are paired with definitions across
    /// records (OTLP), so that its records must be extracted in order by
    /// one extractor; the other formats' records are extracted each
    /// alone, in any order, by any extractor of the format.
    pub(crate) fn pairs_across_records(format: Format) -> bool {
        matches!(format, Format::Otlp)
    }

    /// The calls still held at the end of the input, as
    /// [`Schema::Unknown`].
    pub fn finish(&mut self) -> Vec<Located> {
        self.finish_shared()
            .into_iter()
            .map(Located::into_owned)
            .collect()
    }

    /// [`finish`](Self::finish), as [`record_shared`](Self::record_shared)
    /// gives calls.
    pub fn finish_shared(&mut self) -> Vec<Located<Arc<str>>> {
        self.otlp.finish()
    }
}

/// A line of canon's own JSON Lines.
fn canon_line(value: &Value) -> Result<SharedCall, String> {
    let tool = ["tool", "name"]
        .iter()
        .find_map(|k| value.get(*k).and_then(Value::as_str))
        .ok_or("no `tool` (or `name`) string")?;
    let arguments = value.get("arguments").ok_or("no `arguments`")?;
    let label = ["class", "note"]
        .iter()
        .find_map(|k| value.get(*k).and_then(Value::as_str))
        .map(str::to_owned);
    Ok(Call {
        tool: tool.to_owned(),
        schema: value
            .get("schema")
            .map_or(Schema::Unknown, |s| Schema::Declared(s.to_string().into())),
        arguments: Some(arguments.to_string()),
        label,
    })
}
