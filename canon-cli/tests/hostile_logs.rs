//! Logs written to hurt: records whose size, names or numbers are meant
//! to exhaust memory, reach the terminal, or break the arithmetic. Memory
//! is proven by counting (copies held, entries kept), never by timing.

use std::sync::Arc;

use canon_cli::formats::{Extractor, Format, Schema};
use serde_json::json;

/// A Chat Completions record whose one tool has a large schema and is
/// called `n` times.
fn many_calls(n: usize, schema_bytes: usize) -> String {
    let description = "x".repeat(schema_bytes);
    let calls: Vec<_> = (0..n)
        .map(|i| {
            json!({"id": format!("call_{i}"), "type": "function",
                "function": {"name": "t", "arguments": "{}"}})
        })
        .collect();
    json!({
        "request": {"tools": [{"type": "function", "function": {"name": "t",
            "parameters": {"type": "object", "description": description}}}]},
        "response": {"object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": calls}}]}
    })
    .to_string()
}

#[test]
fn the_calls_of_a_record_share_one_copy_of_the_schema() {
    let (n, bytes) = (1_500, 100_000);
    let record = many_calls(n, bytes);
    let found = Extractor::new(Format::OpenAiChat)
        .record_shared(1, &record)
        .unwrap();
    assert_eq!(found.len(), n);
    let schemas: Vec<&Arc<str>> = found
        .iter()
        .map(|l| match &l.call.schema {
            Schema::Declared(schema) => schema,
            other => panic!("{other:?}"),
        })
        .collect();
    let first = schemas[0];
    assert!(first.len() > bytes);
    // One copy, held by the calls and nothing else.
    assert!(schemas.iter().all(|s| Arc::ptr_eq(s, first)));
    assert_eq!(Arc::strong_count(first), n);
}
