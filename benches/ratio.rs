//! The same comparison as `benches/bind.rs`, measured interleaved in one
//! process: each round times every binding in turn, and the fastest round of
//! each is kept. On a shared machine this cancels the drift that separates
//! criterion's consecutive measurements, so the ratios are stable to about
//! ±2%. Run: `cargo bench --bench ratio`.

use std::hint::black_box;
use std::time::Instant;

use canon::Tool;
use serde::Deserialize;
use serde_json::Value;

mod common;

use common::{
    tune_spec, SearchCode, Store, Strict, StrictStore, Tune, NEAR_MISS, STORE_VALID, TUNE_VALID,
    VALID,
};

const ROUNDS: usize = 40;
const CALLS: usize = 20_000;

fn main() {
    let valid: Value = serde_json::from_str(VALID).unwrap();
    let near_miss: Value = serde_json::from_str(NEAR_MISS).unwrap();
    let store: Value = serde_json::from_str(STORE_VALID).unwrap();
    let tune: Value = serde_json::from_str(TUNE_VALID).unwrap();
    // Each case, and the case it is compared with.
    let cases: [(&str, usize, &dyn Fn()); 14] = [
        ("text/strict", 0, &|| {
            black_box(serde_json::from_str::<Strict>(black_box(VALID)).unwrap());
        }),
        ("text/canon_valid", 0, &|| {
            black_box(SearchCode.bind_str(black_box(VALID)).ok().unwrap());
        }),
        ("text/canon_near_miss", 0, &|| {
            black_box(SearchCode.bind_str(black_box(NEAR_MISS)).ok().unwrap());
        }),
        ("value/strict", 3, &|| {
            black_box(Strict::deserialize(black_box(&valid)).unwrap());
        }),
        ("value/canon_valid", 3, &|| {
            black_box(SearchCode.bind(black_box(&valid)).ok().unwrap());
        }),
        ("value/canon_near_miss", 3, &|| {
            black_box(SearchCode.bind(black_box(&near_miss)).ok().unwrap());
        }),
        ("text/store_strict", 6, &|| {
            black_box(serde_json::from_str::<StrictStore>(black_box(STORE_VALID)).unwrap());
        }),
        ("text/store_canon", 6, &|| {
            black_box(Store.bind_str(black_box(STORE_VALID)).ok().unwrap());
        }),
        ("value/store_strict", 8, &|| {
            black_box(StrictStore::deserialize(black_box(&store)).unwrap());
        }),
        ("value/store_canon", 8, &|| {
            black_box(Store.bind(black_box(&store)).ok().unwrap());
        }),
        ("text/bounded_strict", 10, &|| {
            black_box(serde_json::from_str::<Tune>(black_box(TUNE_VALID)).unwrap());
        }),
        ("text/bounded_canon", 10, &|| {
            black_box(
                tune_spec()
                    .bind_str::<Tune>(black_box(TUNE_VALID))
                    .ok()
                    .unwrap(),
            );
        }),
        ("value/bounded_strict", 12, &|| {
            black_box(Tune::deserialize(black_box(&tune)).unwrap());
        }),
        ("value/bounded_canon", 12, &|| {
            black_box(tune_spec().bind::<Tune>(black_box(&tune)).ok().unwrap());
        }),
    ];
    let mut best = [f64::MAX; 14];
    for _ in 0..ROUNDS {
        for (i, (_, _, case)) in cases.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..CALLS {
                case();
            }
            best[i] = best[i].min(start.elapsed().as_nanos() as f64 / CALLS as f64);
        }
    }
    for (i, (name, baseline, _)) in cases.iter().enumerate() {
        println!(
            "{name:24} {:7.1} ns  {:.3}x strict",
            best[i],
            best[i] / best[*baseline]
        );
    }
}
