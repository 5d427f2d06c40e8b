//! Binding speed, side by side in one run, on
//! `{data_source_names: [2 strings], query, limit}`:
//! - `strict`: plain `serde_json::from_str` into the same struct (the limit);
//! - `canon_valid`: canon binding the same valid text;
//! - `canon_near_miss`: canon binding the near miss (one bare string);
//! - `middleware`: parse to `Value`, walk the schema, rewrite, `from_value`.
//!
//! And from a parsed `Value`: `strict_value` (`Strict::deserialize(&value)`)
//! against `canon_value_valid` and `canon_value_near_miss`. And `bind_keys`:
//! a tool with a `HashMap` and a `serde_json::Value` parameter, whose every
//! key canon checks for repeats, against strict serde, from text and value.
//! And `bind_bounded`: a struct whose schema asserts bounds, lengths, an
//! item count and an enum, each checked by canon, against strict serde.
//!
//! Goals: valid ≤ 1.05× strict, near miss ≤ 1.0× strict, ≥ 2.5× faster than
//! middleware. Run: `cargo bench --bench bind`.

use std::hint::black_box;

use canon::Tool;
use criterion::{criterion_group, criterion_main, Criterion};
use serde::Deserialize;
use serde_json::Value;

mod common;

use common::{
    rewrite, tune_spec, SearchCode, Store, Strict, StrictStore, Tune, NEAR_MISS, STORE_VALID,
    TUNE_VALID, VALID,
};

/// The way to do it without canon: rewrite a `Value` tree, then bind it.
fn middleware(text: &str, schema: &Value) -> Result<Strict, serde_json::Error> {
    let mut value: Value = serde_json::from_str(text)?;
    let mut repairs = Vec::new();
    rewrite(schema, schema, &mut value, String::new(), &mut repairs);
    black_box(&repairs);
    serde_json::from_value(value)
}

fn bind(c: &mut Criterion) {
    let tool = SearchCode;
    let schema = tool.input_schema().clone();
    assert!(tool.bind_str(VALID).unwrap().repairs.is_empty());
    assert_eq!(tool.bind_str(NEAR_MISS).unwrap().repairs.len(), 1);
    assert_eq!(
        middleware(NEAR_MISS, &schema)
            .unwrap()
            .data_source_names
            .len(),
        1
    );

    let mut text = c.benchmark_group("bind_text");
    text.bench_function("strict", |b| {
        b.iter(|| serde_json::from_str::<Strict>(black_box(VALID)).unwrap())
    });
    text.bench_function("canon_valid", |b| {
        b.iter(|| tool.bind_str(black_box(VALID)).ok().unwrap())
    });
    text.bench_function("canon_near_miss", |b| {
        b.iter(|| tool.bind_str(black_box(NEAR_MISS)).ok().unwrap())
    });
    text.bench_function("middleware", |b| {
        b.iter(|| middleware(black_box(NEAR_MISS), &schema).unwrap())
    });
    text.finish();

    let valid: Value = serde_json::from_str(VALID).unwrap();
    let near_miss: Value = serde_json::from_str(NEAR_MISS).unwrap();
    let mut value = c.benchmark_group("bind_value");
    value.bench_function("strict_value", |b| {
        b.iter(|| Strict::deserialize(black_box(&valid)).unwrap())
    });
    value.bench_function("canon_value_valid", |b| {
        b.iter(|| tool.bind(black_box(&valid)).ok().unwrap())
    });
    value.bench_function("canon_value_near_miss", |b| {
        b.iter(|| tool.bind(black_box(&near_miss)).ok().unwrap())
    });
    value.finish();

    // A map and free JSON: every key checked for repeats, every level
    // counted against the depth bound.
    let store: Value = serde_json::from_str(STORE_VALID).unwrap();
    let mut keys = c.benchmark_group("bind_keys");
    keys.bench_function("strict_text", |b| {
        b.iter(|| serde_json::from_str::<StrictStore>(black_box(STORE_VALID)).unwrap())
    });
    keys.bench_function("canon_text", |b| {
        b.iter(|| Store.bind_str(black_box(STORE_VALID)).ok().unwrap())
    });
    keys.bench_function("strict_value", |b| {
        b.iter(|| StrictStore::deserialize(black_box(&store)).unwrap())
    });
    keys.bench_function("canon_value", |b| {
        b.iter(|| Store.bind(black_box(&store)).ok().unwrap())
    });
    keys.finish();

    // A schema that asserts more than types (bounds, lengths, an item
    // count, an enum): canon checks each in the single pass.
    let tune: Value = serde_json::from_str(TUNE_VALID).unwrap();
    let mut bounded = c.benchmark_group("bind_bounded");
    bounded.bench_function("strict_text", |b| {
        b.iter(|| serde_json::from_str::<Tune>(black_box(TUNE_VALID)).unwrap())
    });
    bounded.bench_function("canon_text", |b| {
        b.iter(|| {
            tune_spec()
                .bind_str::<Tune>(black_box(TUNE_VALID))
                .ok()
                .unwrap()
        })
    });
    bounded.bench_function("strict_value", |b| {
        b.iter(|| Tune::deserialize(black_box(&tune)).unwrap())
    });
    bounded.bench_function("canon_value", |b| {
        b.iter(|| tune_spec().bind::<Tune>(black_box(&tune)).ok().unwrap())
    });
    bounded.finish();
}

criterion_group!(benches, bind);
criterion_main!(benches);
