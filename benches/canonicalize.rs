//! Canonicalizing a call against a foreign JSON Schema, side by side with a
//! `jsonschema` validation of the same call, in one run.
//!
//! The call: a typical 5-argument call that needs no repair (an array of
//! strings, a string, an integer with bounds, an enum, a boolean), against
//! a closed object schema.
//! - `jsonschema_is_valid`: `Validator::is_valid` (the cheapest question
//!   jsonschema answers);
//! - `jsonschema_validate`: `Validator::validate` (first error or `Ok`);
//! - `canon_canonicalize`: `Canonicalizer::canonicalize`, the default
//!   policy, and with every rule (`canon_canonicalize_all`).
//!
//! Goal: canonicalizing costs less than the validation. Run:
//! `cargo bench --bench canonicalize`.

use std::hint::black_box;

use canon::{Canonicalizer, Policy};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "data_source_names": {"type": "array", "items": {"type": "string"}},
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "order": {"type": "string", "enum": ["relevance", "recent"]},
            "exact": {"type": "boolean"}
        },
        "required": ["data_source_names", "query"],
        "additionalProperties": false
    })
}

fn call() -> Value {
    json!({
        "data_source_names": ["dotnet/eshop", "dotnet/runtime"],
        "query": "basket",
        "limit": 10,
        "order": "recent",
        "exact": false
    })
}

fn bench(c: &mut Criterion) {
    let schema = schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let default = Canonicalizer::new(&schema).unwrap();
    let all = Canonicalizer::options()
        .policy(Policy::all())
        .compile(&schema)
        .unwrap();
    let mut value = call();
    assert!(validator.is_valid(&value));
    assert_eq!(default.canonicalize(&mut value).unwrap(), vec![]);

    let mut group = c.benchmark_group("valid_5_arguments");
    group.bench_function("jsonschema_is_valid", |b| {
        b.iter(|| validator.is_valid(black_box(&value)))
    });
    group.bench_function("jsonschema_validate", |b| {
        b.iter(|| validator.validate(black_box(&value)).is_ok())
    });
    group.bench_function("canon_canonicalize", |b| {
        b.iter(|| default.canonicalize(black_box(&mut value)).is_ok())
    });
    group.bench_function("canon_canonicalize_all", |b| {
        b.iter(|| all.canonicalize(black_box(&mut value)).is_ok())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
