//! Captured calls as a table, for the tests and the benchmark: each JSON
//! Lines call's `tool`, `schema` and `arguments`, the last two as JSON
//! text (the line's own text, where it has them).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use serde_json::value::RawValue;

/// A line's tool, schema and arguments.
#[derive(serde::Deserialize)]
struct Line<'a> {
    tool: &'a str,
    #[serde(borrow, default)]
    schema: Option<&'a RawValue>,
    #[serde(borrow)]
    arguments: &'a RawValue,
}

/// The calls of the JSON Lines `text` as the columns `tool`, `schema` and
/// `arguments`. A line without a schema takes its tool's from `tools` (an
/// OpenAI `tools` array, as `canon replay --tools` takes); a line that
/// has neither is left out.
pub fn calls(text: &str, tools: &str) -> RecordBatch {
    let tools: Vec<serde_json::Value> = serde_json::from_str(tools).unwrap_or_default();
    let schemas: HashMap<&str, String> = tools
        .iter()
        .filter_map(|t| {
            let function = t.get("function")?;
            let name = function.get("name")?.as_str()?;
            Some((name, function.get("parameters")?.to_string()))
        })
        .collect();
    let mut rows: Vec<(&str, &str, &str)> = Vec::new();
    for line in text.lines() {
        let Ok(line) = serde_json::from_str::<Line<'_>>(line) else {
            continue;
        };
        let schema = match line.schema {
            Some(schema) => schema.get(),
            None => match schemas.get(line.tool) {
                Some(schema) => schema.as_str(),
                None => continue,
            },
        };
        rows.push((line.tool, schema, line.arguments.get()));
    }
    let tools: StringArray = rows.iter().map(|r| Some(r.0)).collect();
    let schemas: StringArray = rows.iter().map(|r| Some(r.1)).collect();
    let arguments: StringArray = rows.iter().map(|r| Some(r.2)).collect();
    RecordBatch::try_from_iter(vec![
        ("tool", Arc::new(tools) as ArrayRef),
        ("schema", Arc::new(schemas) as ArrayRef),
        ("arguments", Arc::new(arguments) as ArrayRef),
    ])
    .expect("three string columns of one length")
}
