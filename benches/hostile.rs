//! What hostile calls cost, and how that cost grows with the call: each is
//! measured at two sizes, n and 4n, beside a linear baseline at both.
//!
//! - `long_key`: JSON text with one 8 KiB key over 10,000 and 40,000
//!   items, read as a tool known only by its schema reads it
//!   (`Canonicalizer::parse`, which looks for keys given twice), against
//!   `serde_json::from_str` into a `Value`. A pointer built per item would
//!   copy the key once per item.
//! - `blank_strings`: 10,000 and 40,000 blank strings where arrays of
//!   strings belong, refused (each reported once, 20 listed), against
//!   parsing the call.
//! - `missing`: 250 and 1,000 missing required properties beside 128 and
//!   512 KiB of data, refused, against `jsonschema` validating the call.
//! - `wrong_items`: 130,000 and 520,000 numbers where strings belong (1 MiB
//!   of text at 4n), refused, against parsing the call.
//!
//! A cost linear in the call grows about 4 times from n to 4n, as its
//! baseline does; a quadratic one about 16 times. The table printed first
//! gives both growths (the figures are in docs/limits.md); it comes from
//! interleaved rounds (as `benches/limit.rs`): each round times every case
//! in turn, and the fastest round of each case is kept, which cancels most
//! of the drift of a shared machine. Criterion then measures each case on
//! its own (skip it with a filter that matches nothing:
//! `cargo bench --bench hostile -- table-only`).
//! Run: `cargo bench --bench hostile`.

use std::hint::black_box;
use std::time::Duration;

use canon::{Canonicalizer, Tool};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use serde_json::{json, Value};

mod interleave;

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

/// One measured call.
type Case = Box<dyn Fn()>;

/// A hostile call at sizes n and 4n, canon's case and its baseline's at
/// each.
struct Scenario {
    /// The criterion group.
    group: &'static str,
    /// What the table calls it.
    call: &'static str,
    /// The names of canon's case and of the baseline's.
    names: [&'static str; 2],
    /// n and 4n.
    sizes: [usize; 2],
    /// At n, then at 4n: canon's case, then the baseline's.
    cases: [[Case; 2]; 2],
}

/// The four hostile calls.
fn scenarios() -> Vec<Scenario> {
    vec![
        scenario(
            "long_key",
            "one 8 KiB key over n items, read as text (n = 10,000)",
            ["canon_parse", "serde_json"],
            10_000,
            long_key,
        ),
        scenario(
            "blank_strings",
            "n blank strings, refused (n = 10,000)",
            ["canon_refuse", "serde_json_parse"],
            10_000,
            blank_strings,
        ),
        scenario(
            "missing",
            "n missing properties beside n/2 KiB, refused (n = 250)",
            ["canon_refuse", "jsonschema_validate"],
            250,
            missing,
        ),
        scenario(
            "wrong_items",
            "n wrong items, refused (n = 130,000)",
            ["canon_refuse", "serde_json_parse"],
            130_000,
            wrong_items,
        ),
    ]
}

/// A scenario at `n` and `4 * n`, its cases made by `cases`.
fn scenario(
    group: &'static str,
    call: &'static str,
    names: [&'static str; 2],
    n: usize,
    cases: fn(usize) -> [Case; 2],
) -> Scenario {
    Scenario {
        group,
        call,
        names,
        sizes: [n, 4 * n],
        cases: [cases(n), cases(4 * n)],
    }
}

fn long_key(n: usize) -> [Case; 2] {
    let key = "k".repeat(8 << 10);
    let text = format!(r#"{{"{key}": [{}]}}"#, vec!["1"; n].join(","));
    let open = Canonicalizer::new(&json!({"type": "object"})).unwrap();
    assert!(open.parse(&text).is_ok());
    let parsed = text.clone();
    [
        Box::new(move || {
            black_box(open.parse(black_box(&text)).unwrap());
        }),
        Box::new(move || {
            black_box(serde_json::from_str::<Value>(black_box(&parsed)).unwrap());
        }),
    ]
}

fn blank_strings(n: usize) -> [Case; 2] {
    let args = json!({ "lists": vec![""; n] });
    let text = args.to_string();
    assert!(NameLists.bind(&args).is_err());
    [
        Box::new(move || {
            black_box(NameLists.bind(black_box(&args)).is_err());
        }),
        Box::new(move || {
            black_box(serde_json::from_str::<Value>(black_box(&text)).unwrap());
        }),
    ]
}

fn missing(n: usize) -> [Case; 2] {
    let names: Vec<String> = (0..n).map(|i| format!("p{i:04}")).collect();
    let properties: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| (name.clone(), json!({"type": "string"})))
        .chain([("data".to_owned(), json!({"type": "string"}))])
        .collect();
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let canon = Canonicalizer::options()
        .tool("wide")
        .compile(&schema)
        .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let args = json!({ "data": "d".repeat(n * 512) });
    assert!(canon.canonicalize(&mut args.clone()).is_err());
    assert_eq!(validator.iter_errors(&args).count(), n);
    let validated = args.clone();
    [
        Box::new(move || {
            black_box(canon.canonicalize(&mut args.clone()).is_err());
        }),
        Box::new(move || {
            black_box(validator.iter_errors(black_box(&validated)).count());
        }),
    ]
}

fn wrong_items(n: usize) -> [Case; 2] {
    let text = format!(r#"{{"list": [{}]}}"#, vec!["1"; n].join(","));
    assert!(Names.bind_str(&text).is_err());
    let parsed = text.clone();
    [
        Box::new(move || {
            black_box(Names.bind_str(black_box(&text)).is_err());
        }),
        Box::new(move || {
            black_box(serde_json::from_str::<Value>(black_box(&parsed)).unwrap());
        }),
    ]
}

const ROUNDS: usize = 15;
/// Each case runs at least this long in a round (and at least once).
const ROUND: Duration = Duration::from_millis(20);

/// A time in ns, in ms (or µs below 0.1 ms).
fn shown(ns: f64) -> String {
    if ns < 100_000.0 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

/// The interleaved table: every case of every scenario in each round.
fn table(scenarios: &[Scenario]) {
    // By scenario, size, then canon before baseline.
    let flat: Vec<&dyn Fn()> = scenarios
        .iter()
        .flat_map(|s| s.cases.iter().flatten().map(|case| &**case))
        .collect();
    let best = interleave::interleaved(&flat, ROUNDS, ROUND);
    println!();
    println!("Interleaved, {ROUNDS} rounds, fastest round of each (ns a call):");
    for (s, best) in scenarios.iter().zip(best.chunks(4)) {
        for (at, size) in s.sizes.iter().enumerate() {
            for (which, name) in s.names.iter().enumerate() {
                let ns = best[2 * at + which];
                println!("  {:14} {name:20} {size:>8} {ns:>14.0} ns", s.group);
            }
        }
    }
    println!();
    println!("| call | canon at n | canon at 4n | growth | baseline at n | baseline at 4n | baseline growth |");
    println!("|---|---|---|---|---|---|---|");
    for (s, best) in scenarios.iter().zip(best.chunks(4)) {
        println!(
            "| {} | {} | {} | {:.1} | {} | {} | {:.1} |",
            s.call,
            shown(best[0]),
            shown(best[2]),
            best[2] / best[0],
            shown(best[1]),
            shown(best[3]),
            best[3] / best[1],
        );
    }
    println!("linear: about 4 for both; quadratic: about 16");
    println!();
}

fn hostile(c: &mut Criterion) {
    let scenarios = scenarios();
    table(&scenarios);
    for s in &scenarios {
        let mut group = c.benchmark_group(s.group);
        // One call a sample: the slowest cases take a tenth of a second.
        group.sampling_mode(SamplingMode::Flat);
        for (size, cases) in s.sizes.iter().zip(&s.cases) {
            for (name, case) in s.names.iter().zip(cases) {
                group.bench_function(BenchmarkId::new(*name, size), |b| b.iter(case));
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    targets = hostile
}
criterion_main!(benches);
