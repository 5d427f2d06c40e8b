//! What every format reads a record into: the format's name, the calls
//! found with what the record says of their schemas, and the small readers
//! the formats share.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde_json::{Map, Value};

/// A format `canon replay` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// canon's own JSON Lines: `{"tool", "schema", "arguments"}` a line.
    Canon,
    /// Logged OpenAI Chat Completions exchanges (and the servers that
    /// speak it: vLLM, llama.cpp, Ollama, OpenRouter, LiteLLM).
    OpenAiChat,
    /// Logged OpenAI Responses exchanges.
    OpenAiResponses,
    /// Logged Anthropic Messages exchanges.
    Anthropic,
    /// OpenTelemetry traces in OTLP/JSON, with GenAI spans.
    Otlp,
}

impl Format {
    /// Every format, in the order [`detect`](super::detect) prefers them.
    pub const ALL: [Format; 5] = [
        Format::Canon,
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Otlp,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canon => "canon",
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Otlp => "otlp",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--format` name that is none of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown format `{}`: expected one of ", self.0)?;
        for (i, format) in Format::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(format.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    /// ```
    /// use canon_replay::formats::Format;
    ///
    /// assert_eq!("openai-responses".parse(), Ok(Format::OpenAiResponses));
    /// assert!("openai".parse::<Format>().is_err());
    /// ```
    fn from_str(name: &str) -> Result<Format, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| UnknownFormat(name.to_owned()))
    }
}

/// What a record says of the schema of a called tool.
///
/// `T` holds the schema's text: a `String` of its own by default, or an
/// `Arc<str>` shared by the calls of a record to the same tool (what
/// [`Extractor::record_shared`](super::Extractor::record_shared) gives, so that a record of a thousand calls
/// to a tool with a megabyte schema holds one megabyte, not a gigabyte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schema<T = String> {
    /// The raw JSON text of the input schema the record declares for the
    /// tool (a function declared without parameters reads as
    /// `{"type":"object","properties":{}}`, as the providers take it).
    Declared(T),
    /// The record lists the tools the model was offered, and this one is
    /// not among them: the model called a tool it was not given. There is
    /// no schema to bind it with: `canon replay` counts it as skipped
    /// (reason `a tool the request did not declare`), never drops it.
    Undeclared,
    /// The record holds no schema for the tool: no request was logged, no
    /// `gen_ai.tool.definitions` was captured in the trace, or the tool is
    /// a provider-defined one (Anthropic's `bash_20250124`, say). Look it
    /// up in `--tools`; if it is not there, count the call as skipped.
    Unknown,
    /// A tool whose input is free-form text, not JSON (OpenAI's `custom`
    /// tools): there is nothing to bind; count the call as skipped.
    FreeForm,
}

/// A tool call found in a record: the owned counterpart of the engine's
/// `CallRef`. `T` holds the schema's text (see [`Schema`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call<T = String> {
    /// The tool called.
    pub tool: String,
    /// Its input schema, as far as the record tells.
    pub schema: Schema<T>,
    /// The raw JSON text of the arguments: an object, or a JSON string
    /// holding the arguments text as the model sent it (OpenAI's
    /// `arguments`, a streamed call's concatenated deltas, an OTLP
    /// attribute's string value). `None` when the record did not capture
    /// them (`gen_ai.tool.call.arguments` is opt-in).
    pub arguments: Option<String>,
    /// The call's id (`call_…`, `toolu_…`), for finding it again.
    pub label: Option<String>,
}

/// A call whose schema text is shared with the other calls of its record
/// to the same tool.
pub type SharedCall = Call<Arc<str>>;

impl<T: AsRef<str>> Call<T> {
    /// The schema and the arguments when both are known: the call can be
    /// bound.
    pub fn bindable(&self) -> Option<(&str, &str)> {
        match (&self.schema, &self.arguments) {
            (Schema::Declared(schema), Some(arguments)) => Some((schema.as_ref(), arguments)),
            _ => None,
        }
    }

    /// Why the call cannot be bound as it stands, in a few words; `None`
    /// when it can ([`bindable`](Self::bindable)). For
    /// [`Schema::Unknown`] the schema may still come from `--tools`.
    pub fn skip_reason(&self) -> Option<&'static str> {
        match (&self.schema, &self.arguments) {
            (_, None) => Some("arguments not captured"),
            (Schema::Declared(_), Some(_)) => None,
            (Schema::Undeclared, _) => Some("a tool the request did not declare"),
            (Schema::Unknown, _) => Some("no schema captured for the tool"),
            (Schema::FreeForm, _) => Some("a free-form (custom) tool"),
        }
    }
}

impl SharedCall {
    /// The call with a schema text of its own (a copy of the shared one).
    pub fn into_owned(self) -> Call {
        Call {
            tool: self.tool,
            schema: match self.schema {
                Schema::Declared(text) => Schema::Declared(text.as_ref().to_owned()),
                Schema::Undeclared => Schema::Undeclared,
                Schema::Unknown => Schema::Unknown,
                Schema::FreeForm => Schema::FreeForm,
            },
            arguments: self.arguments,
            label: self.label,
        }
    }
}

/// A call and the line of the record it was found in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T = String> {
    /// The 1-based line of the record ([`Record::line`](super::Record::line)).
    pub line: u64,
    /// The call.
    pub call: Call<T>,
}

impl Located<Arc<str>> {
    /// The call with a schema text of its own.
    pub fn into_owned(self) -> Located {
        Located {
            line: self.line,
            call: self.call.into_owned(),
        }
    }
}

/// A tool as a record declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Def {
    /// Its input schema, as JSON text, shared by the calls to the tool.
    Schema(Arc<str>),
    /// Free-form input (OpenAI `custom`).
    FreeForm,
    /// Declared without a schema (a provider-defined client tool).
    Builtin,
}

/// The tools a record declares, by name; `None` when it declares none
/// (no request logged, no definitions captured).
pub(super) type Defs = Option<HashMap<String, Def>>;

/// The schema of a call to `tool` given the declared tools.
pub(super) fn schema_of(defs: &Defs, tool: &str) -> Schema<Arc<str>> {
    match defs {
        None => Schema::Unknown,
        Some(defs) => match defs.get(tool) {
            Some(Def::Schema(schema)) => Schema::Declared(schema.clone()),
            Some(Def::FreeForm) => Schema::FreeForm,
            Some(Def::Builtin) => Schema::Unknown,
            None => Schema::Undeclared,
        },
    }
}

/// The schema of a function declared with `parameters` (absent or null:
/// no parameters).
pub(super) fn parameters_schema(parameters: Option<&Value>) -> Arc<str> {
    match parameters {
        None | Some(Value::Null) => r#"{"type":"object","properties":{}}"#.into(),
        Some(schema) => schema.to_string().into(),
    }
}

/// `text` as JSON, or why not.
pub(super) fn parse(text: &str) -> Result<Value, String> {
    serde_json::from_str(text.trim()).map_err(|e| format!("not JSON ({e})"))
}

/// A member under its lowerCamelCase name or its snake_case one.
pub(super) fn get<'a>(obj: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    obj.get(camel).or_else(|| obj.get(snake))
}

/// The raw JSON text of arguments as a record holds them: a string is
/// kept as a JSON string (the text the model sent), anything else (`null`
/// too: the model sent none) as its JSON; absent is `None`.
pub(super) fn arguments_text(arguments: Option<&Value>) -> Option<String> {
    arguments.map(Value::to_string)
}

/// A JSON string holding `text`.
pub(super) fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}
