//! What hostile calls cost, each beside a linear baseline in the same run:
//!
//! - `long_key`: JSON text with one 8 KiB key over 40,000 items, read as a
//!   tool known only by its schema reads it (`Canonicalizer::parse`, which
//!   looks for keys given twice), against `serde_json::from_str` into a
//!   `Value`. A pointer built per item would copy the key 40,000 times.
//! - `blank_strings`: 40,000 blank strings where arrays of strings belong,
//!   refused (each reported once, 20 listed), against parsing the call.
//! - `missing`: 1,000 missing required properties beside 512 KiB of data,
//!   refused, against `jsonschema` validating the call.
//! - `wrong_items`: 520,000 numbers where strings belong (1 MiB of text),
//!   refused, against parsing the call.
//!
//! Each figure grows with the input as its baseline does; the ratios are
//! in docs/limits.md. Run: `cargo bench --bench hostile`.

use std::hint::black_box;
use std::time::Duration;

use canon::{Canonicalizer, Tool};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};

/// Lists of names.
#[canon::tool]
fn name_lists(lists: Vec<Vec<String>>) -> usize {
    lists.len()
}

/// Names.
#[canon::tool]
fn names(list: Vec<String>) -> usize {
    list.len()
}

fn long_key(c: &mut Criterion) {
    let key = "k".repeat(8 << 10);
    let text = format!(r#"{{"{key}": [{}]}}"#, vec!["1"; 40_000].join(","));
    let open = Canonicalizer::new(&json!({"type": "object"})).unwrap();
    let mut group = c.benchmark_group("long_key");
    group.bench_function("canon_parse", |b| {
        b.iter(|| black_box(open.parse(black_box(&text)).unwrap()))
    });
    group.bench_function("serde_json", |b| {
        b.iter(|| black_box(serde_json::from_str::<Value>(black_box(&text)).unwrap()))
    });
    group.finish();
}

fn blank_strings(c: &mut Criterion) {
    let args = json!({ "lists": vec![""; 40_000] });
    let text = args.to_string();
    let mut group = c.benchmark_group("blank_strings");
    group.bench_function("canon_refuse", |b| {
        b.iter(|| black_box(NameLists.bind(black_box(&args)).is_err()))
    });
    group.bench_function("serde_json_parse", |b| {
        b.iter(|| black_box(serde_json::from_str::<Value>(black_box(&text)).unwrap()))
    });
    group.finish();
}

fn missing(c: &mut Criterion) {
    let names: Vec<String> = (0..1000).map(|i| format!("p{i:04}")).collect();
    let properties: serde_json::Map<String, Value> = names
        .iter()
        .map(|n| (n.clone(), json!({"type": "string"})))
        .chain([("data".to_owned(), json!({"type": "string"}))])
        .collect();
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let canon = Canonicalizer::options()
        .tool("wide")
        .compile(&schema)
        .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let args = json!({ "data": "d".repeat(512 << 10) });
    let mut group = c.benchmark_group("missing");
    group.bench_function("canon_refuse", |b| {
        b.iter(|| black_box(canon.canonicalize(&mut args.clone()).is_err()))
    });
    group.bench_function("jsonschema_validate", |b| {
        b.iter(|| black_box(validator.iter_errors(black_box(&args)).count()))
    });
    group.finish();
}

fn wrong_items(c: &mut Criterion) {
    let text = format!(r#"{{"list": [{}]}}"#, vec!["1"; 520_000].join(","));
    let mut group = c.benchmark_group("wrong_items");
    group.bench_function("canon_refuse", |b| {
        b.iter(|| black_box(Names.bind_str(black_box(&text)).is_err()))
    });
    group.bench_function("serde_json_parse", |b| {
        b.iter(|| black_box(serde_json::from_str::<Value>(black_box(&text)).unwrap()))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = long_key, blank_strings, missing, wrong_items
}
criterion_main!(benches);
