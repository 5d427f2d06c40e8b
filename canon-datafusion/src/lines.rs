//! canon's JSON Lines as a table: one row a call, in the plain layout
//! (`tool`, `schema`, `arguments` as JSON text) with the line's number and
//! its other members, read a bounded batch at a time.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use canon_replay::formats::{open_input, Records, MAX_RECORD};
use canon_replay::Tools;
use datafusion::arrow::array::{ArrayRef, Int64Builder, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::streaming::StreamingTable;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::streaming::PartitionStream;
use datafusion::prelude::SessionContext;
use serde_json::value::RawValue;

/// The lines [`register_json_lines`] reads at its start for the names of
/// the table's other columns.
pub const SNIFFED_LINES: usize = 1000;

/// The most columns [`register_json_lines`] makes of the lines' other
/// members (the first met): a line of a million members makes no table of
/// a million columns.
pub const MAX_OTHER_COLUMNS: usize = 64;

/// The most rows a batch holds.
const BATCH_ROWS: usize = 8192;

/// The text a batch holds at most, besides one line: a batch of long
/// lines is cut short of [`BATCH_ROWS`].
const BATCH_BYTES: usize = 16 << 20;

/// The plain layout's columns, which the lines' other members never name.
const PLAIN: [&str; 4] = ["line", "tool", "schema", "arguments"];

/// Registers the JSON Lines file at `path` (canon's calls, one a line:
/// `{"tool", "schema", "arguments", ...}`; gzip and zstd are read as such)
/// as the table `name`, read a batch at a time when a query scans it:
///
/// - `line` (`Int64`): the line the call is on;
/// - `tool` (`Utf8`): the tool's name (its `tool`, or its `name`);
/// - `schema` (`Utf8`): the tool's input schema as JSON text, or the
///   schema `tools` gives the tool when the line has none;
/// - `arguments` (`Utf8`): the arguments as JSON text (an object, or a
///   string holding JSON text, as OpenAI sends them);
/// - one `Utf8` column for each other member the first [`SNIFFED_LINES`]
///   lines have (at most [`MAX_OTHER_COLUMNS`], in the order met): a
///   string's value, or any other value's JSON text (`CAST` it).
///
/// A line that is not a JSON object, is longer than
/// [`MAX_RECORD`](canon_replay::formats::MAX_RECORD) or gives `schema`
/// twice, is a row of NULLs
/// but for its `line`: what `canon replay` counts as malformed, as
/// [`replay_table`](crate::replay_table) does. Blank lines are no rows.
///
/// # Errors
/// When the file cannot be opened or read; the error names it.
pub fn register_json_lines(
    ctx: &SessionContext,
    name: &str,
    path: &Path,
    tools: &Tools,
) -> Result<()> {
    let others = sniff_columns(path)?;
    let mut fields = vec![
        Field::new("line", DataType::Int64, false),
        Field::new("tool", DataType::Utf8, true),
        Field::new("schema", DataType::Utf8, true),
        Field::new("arguments", DataType::Utf8, true),
    ];
    fields.extend(
        others
            .iter()
            .map(|column| Field::new(column, DataType::Utf8, true)),
    );
    let schema = Arc::new(Schema::new(fields));
    let schemas = tools
        .iter()
        .map(|(tool, schema)| (tool.to_owned(), schema.to_string()))
        .collect();
    let lines = Lines {
        path: path.to_path_buf(),
        schema: schema.clone(),
        others: Arc::new(others),
        schemas: Arc::new(schemas),
    };
    let table = StreamingTable::try_new(schema, vec![Arc::new(lines)])?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

/// Opens `path`, decompressed.
fn open(path: &Path) -> Result<Records<Box<dyn std::io::BufRead>>> {
    let named = |e: std::io::Error| DataFusionError::Execution(format!("{}: {e}", path.display()));
    let file = File::open(path).map_err(named)?;
    let input = open_input(BufReader::with_capacity(1 << 16, file)).map_err(named)?;
    Ok(Records::new(input).max_record(MAX_RECORD))
}

/// The names of the members other than the plain layout's that the first
/// lines of `path` have, in the order met.
fn sniff_columns(path: &Path) -> Result<Vec<String>> {
    let mut records = open(path)?;
    let mut others: Vec<String> = Vec::new();
    for record in records.by_ref().take(SNIFFED_LINES) {
        let record = record
            .map_err(|e| DataFusionError::Execution(format!("reading {}: {e}", path.display())))?;
        let Ok(text) = record.text else { continue };
        let Ok(Members(members)) = serde_json::from_str::<Members<'_>>(&text) else {
            continue;
        };
        for (key, _) in members {
            if others.len() >= MAX_OTHER_COLUMNS {
                break;
            }
            if !PLAIN.contains(&key.as_ref()) && !others.iter().any(|o| *o == key) {
                others.push(key.into_owned());
            }
        }
    }
    Ok(others)
}

/// The members of a line's object, in the line's order, each value its
/// JSON text.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members<'de>, A::Error> {
                let mut members = Vec::new();
                while let Some(Key(key)) = map.next_key()? {
                    members.push((key, map.next_value()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// A member's name: borrowed from the line unless it holds an escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member's name")
            }
            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(key)))
            }
            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(key.to_owned())))
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

/// A member's value as a column holds it: a string's value, NULL for
/// `null`, any other value's JSON text.
fn text_of(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<Cow<'_, str>>(text).ok(),
        Some(b'n') if text == "null" => None,
        _ => Some(Cow::Borrowed(text)),
    }
}

/// The one partition of a JSON Lines table: the file, read on a blocking
/// thread of the runtime, two batches ahead at most.
#[derive(Debug)]
struct Lines {
    path: PathBuf,
    schema: SchemaRef,
    others: Arc<Vec<String>>,
    /// Each tool's schema as JSON text, for lines without one.
    schemas: Arc<HashMap<String, String>>,
}

impl PartitionStream for Lines {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let mut builder = RecordBatchReceiverStream::builder(self.schema.clone(), 2);
        let tx = builder.tx();
        let (path, schema, others, schemas) = (
            self.path.clone(),
            self.schema.clone(),
            self.others.clone(),
            self.schemas.clone(),
        );
        builder.spawn_blocking(move || {
            let mut batch = Batch::new(&others);
            for record in open(&path)? {
                let record = record.map_err(|e| {
                    DataFusionError::Execution(format!("reading {}: {e}", path.display()))
                })?;
                batch.push(record.line, record.text.ok().as_deref(), &others, &schemas);
                if batch.rows >= BATCH_ROWS || batch.bytes >= BATCH_BYTES {
                    let full = std::mem::replace(&mut batch, Batch::new(&others));
                    if tx.blocking_send(full.finish(&schema)).is_err() {
                        // The query needs no more rows (a LIMIT).
                        return Ok(());
                    }
                }
            }
            if batch.rows > 0 {
                let _ = tx.blocking_send(batch.finish(&schema));
            }
            Ok(())
        });
        builder.build()
    }
}

/// The columns of a batch being filled.
struct Batch {
    rows: usize,
    bytes: usize,
    line: Int64Builder,
    tool: StringBuilder,
    schema: StringBuilder,
    arguments: StringBuilder,
    others: Vec<StringBuilder>,
}

impl Batch {
    fn new(others: &[String]) -> Batch {
        Batch {
            rows: 0,
            bytes: 0,
            line: Int64Builder::new(),
            tool: StringBuilder::new(),
            schema: StringBuilder::new(),
            arguments: StringBuilder::new(),
            others: others.iter().map(|_| StringBuilder::new()).collect(),
        }
    }

    /// Appends the row of the line `line`, whose text is `text` (`None`
    /// when it could not be read).
    fn push(
        &mut self,
        line: u64,
        text: Option<&str>,
        others: &[String],
        schemas: &HashMap<String, String>,
    ) {
        self.rows += 1;
        self.line
            .append_value(i64::try_from(line).unwrap_or(i64::MAX));
        let members = text
            .and_then(|text| serde_json::from_str::<Members<'_>>(text).ok())
            // A schema given twice is a malformed line, as `canon replay`
            // reads it.
            .filter(|Members(members)| {
                members.iter().filter(|(key, _)| key == "schema").count() < 2
            });
        let Some(Members(members)) = members else {
            self.tool.append_null();
            self.schema.append_null();
            self.arguments.append_null();
            for column in &mut self.others {
                column.append_null();
            }
            return;
        };
        self.bytes += text.map_or(0, str::len);
        // The last of a name given twice, as serde_json reads it.
        let find = |name: &str| members.iter().rev().find(|(key, _)| key == name);
        let tool = find("tool")
            .and_then(|(_, raw)| raw.get().starts_with('"').then(|| text_of(raw)).flatten());
        let schema = match find("schema") {
            Some((_, raw)) => Some(Cow::Borrowed(raw.get())),
            None => tool
                .as_deref()
                .and_then(|tool| schemas.get(tool))
                .map(|schema| Cow::Borrowed(schema.as_str())),
        };
        let arguments = find("arguments").map(|(_, raw)| raw.get());
        self.tool.append_option(tool.as_deref());
        self.schema.append_option(schema.as_deref());
        self.arguments.append_option(arguments);
        for (column, name) in self.others.iter_mut().zip(others) {
            column.append_option(find(name).and_then(|(_, raw)| text_of(raw)).as_deref());
        }
    }

    fn finish(mut self, schema: &SchemaRef) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.line.finish()),
            Arc::new(self.tool.finish()),
            Arc::new(self.schema.finish()),
            Arc::new(self.arguments.finish()),
        ];
        columns.extend(
            self.others
                .iter_mut()
                .map(|column| Arc::new(column.finish()) as ArrayRef),
        );
        Ok(RecordBatch::try_new(schema.clone(), columns)?)
    }
}
