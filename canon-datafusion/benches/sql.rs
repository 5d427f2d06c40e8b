//! `SELECT canon_bind(schema, arguments) ...` over a Parquet copy of the
//! open corpus, beside `canon replay` on the same calls as JSON Lines, in
//! one run: calls a second with one and with two partitions (threads),
//! and the peak memory of a process that runs the query over the input
//! once, ten and thirty times (each query runs in a process of its own, so
//! that one's peak is not another's).
//!
//! Run: `CANON_CORPUS=../shared/corpus/bfcl-open.jsonl cargo bench -p
//! canon-datafusion` (without it, the replay engine's sample calls stand in).

use std::time::Instant;

use canon::Policy;
use canon_replay::{Replay, Tools};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

#[path = "../tests/common/corpus.rs"]
mod corpus;

/// The peak resident set of this process so far, in MiB (Linux).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Rows in a row group of the Parquet copy. A partition reads whole row
/// groups, so the groups are small enough for two partitions to get even
/// shares of the copy: with 64 Ki rows, the ten copies made three full
/// groups and a small one, and two partitions could not be more than 1.5
/// times as fast as one; with 8 Ki, 13 groups of 25 fell to one partition
/// (at most 1.85 times).
const ROW_GROUP: usize = 4 << 10;

/// Rounds of the four paths.
const ROUNDS: usize = 5;

/// The median of `values`.
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// The environment variable that makes this harness run one query (the
/// Parquet file, then the partitions, comma-separated) and print its best
/// time of three and its process's peak memory.
const ONE_QUERY: &str = "CANON_DATAFUSION_BENCH_QUERY";

/// The calls of `text` written `copies` times into one Parquet file, in
/// row groups of [`ROW_GROUP`] rows.
fn parquet(text: &str, copies: usize, path: &std::path::Path) -> usize {
    let batch = corpus::calls(text, canon_replay::SAMPLE_TOOLS);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    for _ in 0..copies {
        writer.write(&batch).unwrap();
    }
    writer.close().unwrap();
    batch.num_rows() * copies
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
    let tools = Tools::parse(canon_replay::SAMPLE_TOOLS).unwrap();
    let mut replay = Replay::new(Policy::DEFAULT, tools).jobs(jobs);
    let start = Instant::now();
    let report = replay.run(input.as_bytes(), |_| {}, |_| Ok(())).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(report);
    seconds
}

/// The best of three runs of the query over `path` with `partitions`, in
/// a process of its own (this harness again, told by [`ONE_QUERY`]): its
/// seconds, and that process's peak memory in MiB.
fn query_alone(path: &std::path::Path, partitions: usize) -> (f64, f64) {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .arg("--bench")
        .env(ONE_QUERY, format!("{},{partitions}", path.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut figures = text.split_whitespace().map(|f| f.parse::<f64>().unwrap());
    (figures.next().unwrap(), figures.next().unwrap())
}

/// [`ONE_QUERY`]'s work: the best of three runs, and the peak memory.
async fn one_query(spec: &str) {
    let (path, partitions) = spec.rsplit_once(',').unwrap();
    let path = std::path::Path::new(path);
    let partitions = partitions.parse().unwrap();
    let mut best = f64::MAX;
    for _ in 0..3 {
        best = best.min(sql(path, partitions).await);
    }
    println!("{best} {}", peak_mib());
}

#[tokio::main]
async fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run
    // this harness's work.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    if let Ok(spec) = std::env::var(ONE_QUERY) {
        one_query(&spec).await;
        return;
    }
    let text = match std::env::var("CANON_CORPUS") {
        Ok(path) => std::fs::read_to_string(path).unwrap(),
        Err(_) => canon_replay::SAMPLE_CALLS.to_owned(),
    };
    let dir = std::env::temp_dir().join(format!("canon-datafusion-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let once = dir.join("once.parquet");
    let ten = dir.join("ten.parquet");
    let calls_once = parquet(&text, 1, &once);
    let calls_ten = parquet(&text, 10, &ten);
    let thirty = dir.join("thirty.parquet");
    parquet(&text, 30, &thirty);
    let best = |times: &mut dyn FnMut() -> f64| (0..3).map(|_| times()).fold(f64::MAX, f64::min);
    let rate = |calls: usize, seconds: f64| calls as f64 / seconds;

    // Peak memory: a process for each input size and partition count.
    let mut peaks = Vec::new();
    for partitions in [1, 2] {
        let (_, once_mib) = query_alone(&once, partitions);
        let (_, ten_mib) = query_alone(&ten, partitions);
        let (_, thirty_mib) = query_alone(&thirty, partitions);
        peaks.push((partitions, once_mib, ten_mib, thirty_mib));
    }
    // Speed: rounds that alternate the four paths, so that a slower
    // spell of the machine falls on all of them; each a best of three.
    let rounds: Vec<[f64; 4]> = (0..ROUNDS)
        .map(|_| {
            [
                query_alone(&ten, 1).0,
                query_alone(&ten, 2).0,
                best(&mut || replay(&text, 10, 1)),
                best(&mut || replay(&text, 10, 2)),
            ]
        })
        .collect();
    let times: [[f64; ROUNDS]; 4] =
        std::array::from_fn(|path| std::array::from_fn(|round| rounds[round][path]));
    let names = [
        "SQL, Parquet, 1 partition",
        "SQL, Parquet, 2 partitions",
        "canon replay, JSON Lines, --jobs 1",
        "canon replay, JSON Lines, --jobs 2",
    ];
    println!();
    println!("{calls_ten} calls ({calls_once} ten times), {ROUNDS} rounds, each a best of 3:");
    println!("| path | calls/s, best round | calls/s, median round |");
    println!("|---|---|---|");
    for (name, seconds) in names.iter().zip(&times) {
        let fastest = seconds.iter().copied().fold(f64::MAX, f64::min);
        println!(
            "| {name} | {:.0} | {:.0} |",
            rate(calls_ten, fastest),
            rate(calls_ten, median(seconds))
        );
    }
    // Two over one within each round, where both ran under the same load.
    let scaling = |one: &[f64; ROUNDS], two: &[f64; ROUNDS]| {
        let ratios: Vec<f64> = one.iter().zip(two).map(|(a, b)| a / b).collect();
        let low = ratios.iter().copied().fold(f64::MAX, f64::min);
        let high = ratios.iter().copied().fold(0.0, f64::max);
        format!("median {:.2}x ({low:.2}-{high:.2}x)", median(&ratios))
    };
    println!(
        "two partitions over one, a round at a time: {}; canon replay --jobs 2 over --jobs 1: {}",
        scaling(&times[0], &times[1]),
        scaling(&times[2], &times[3])
    );
    for (partitions, once, ten, thirty) in peaks {
        println!(
            "peak RSS of a process running the query with {partitions} partition(s): \
             {once:.0} MiB over the input once, {ten:.0} MiB ten times, {thirty:.0} MiB thirty times"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
