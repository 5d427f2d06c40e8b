//! `SELECT canon_bind(schema, arguments) ...` over a Parquet copy of the
//! open corpus, beside `canon replay` on the same calls as JSON Lines, in
//! one run: calls a second with one and with two partitions (threads),
//! and the process's peak memory after the input once and ten times.
//!
//! Run: `CANON_CORPUS=../shared/corpus/bfcl-open.jsonl cargo bench -p
//! canon-datafusion` (without it, canon-cli's sample calls stand in).

use std::sync::Arc;
use std::time::Instant;

use canon::Policy;
use canon_cli::{Replay, Tools};
use datafusion::arrow::array::{ArrayRef, RecordBatch, StringArray};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

/// A corpus line's tool, schema and arguments, as their raw JSON text.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    schema: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    arguments: &'a serde_json::value::RawValue,
}

/// The peak resident set of this process so far, in MiB (Linux).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The calls of `text` written `copies` times into one Parquet file, in
/// row groups of 64 Ki rows.
fn parquet(text: &str, copies: usize, path: &std::path::Path) -> usize {
    let lines: Vec<Line<'_>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let schemas: StringArray = lines.iter().map(|l| Some(l.schema.get())).collect();
    let arguments: StringArray = lines.iter().map(|l| Some(l.arguments.get())).collect();
    let batch = RecordBatch::try_from_iter(vec![
        ("schema", Arc::new(schemas) as ArrayRef),
        ("arguments", Arc::new(arguments) as ArrayRef),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1 << 16))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    for _ in 0..copies {
        writer.write(&batch).unwrap();
    }
    writer.close().unwrap();
    lines.len() * copies
}

/// Seconds to bind every call of the Parquet file at `path` in SQL, with
/// `partitions` target partitions.
async fn sql(path: &std::path::Path, partitions: usize) -> f64 {
    let config = SessionConfig::new().with_target_partitions(partitions);
    let ctx = SessionContext::new_with_config(config);
    canon_datafusion::register(&ctx);
    ctx.register_parquet(
        "calls",
        path.to_str().unwrap(),
        ParquetReadOptions::default(),
    )
    .await
    .unwrap();
    let start = Instant::now();
    let out = ctx
        .sql(
            "SELECT b['outcome'] AS outcome, count(*) FROM \
             (SELECT canon_bind(schema, arguments) AS b FROM calls) GROUP BY outcome",
        )
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(out);
    seconds
}

/// Seconds for `canon replay` on `text` repeated `copies` times, on
/// `jobs` threads.
fn replay(text: &str, copies: usize, jobs: usize) -> f64 {
    let input = text.repeat(copies);
    let mut replay = Replay::new(Policy::DEFAULT, Tools::default()).jobs(jobs);
    let start = Instant::now();
    let report = replay.run(input.as_bytes(), |_| {}, |_| Ok(())).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(report);
    seconds
}

#[tokio::main]
async fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run
    // this harness's work.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let text = match std::env::var("CANON_CORPUS") {
        Ok(path) => std::fs::read_to_string(path).unwrap(),
        Err(_) => canon_cli::SAMPLE_CALLS.to_owned(),
    };
    let dir = std::env::temp_dir().join(format!("canon-datafusion-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let once = dir.join("once.parquet");
    let ten = dir.join("ten.parquet");
    let calls_once = parquet(&text, 1, &once);
    let calls_ten = parquet(&text, 10, &ten);
    let best = |times: &mut dyn FnMut() -> f64| (0..3).map(|_| times()).fold(f64::MAX, f64::min);
    let rate = |calls: usize, seconds: f64| calls as f64 / seconds;

    let before = peak_mib();
    let _ = sql(&once, 1).await;
    let peak_once = peak_mib();
    let mut rows = Vec::new();
    for partitions in [1, 2] {
        let mut times = Vec::new();
        for _ in 0..3 {
            times.push(sql(&ten, partitions).await);
        }
        let seconds = times.into_iter().fold(f64::MAX, f64::min);
        rows.push((
            format!("SQL, Parquet, {partitions} partition(s)"),
            rate(calls_ten, seconds),
        ));
    }
    let peak_ten = peak_mib();
    for jobs in [1, 2] {
        let seconds = best(&mut || replay(&text, 10, jobs));
        rows.push((
            format!("canon replay, JSON Lines, --jobs {jobs}"),
            rate(calls_ten, seconds),
        ));
    }
    println!();
    println!("{calls_ten} calls ({calls_once} ten times), best of 3:");
    println!("| path | calls/s |");
    println!("|---|---|");
    for (name, calls_per_second) in &rows {
        println!("| {name} | {calls_per_second:.0} |");
    }
    println!(
        "two partitions over one: {:.2}x; canon replay --jobs 2 over --jobs 1: {:.2}x",
        rows[1].1 / rows[0].1,
        rows[3].1 / rows[2].1
    );
    println!(
        "peak RSS: {before:.0} MiB before, {peak_once:.0} MiB after SQL over the input once, \
         {peak_ten:.0} MiB after ten times (with both partition counts)"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
