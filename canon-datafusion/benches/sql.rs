//! The open corpus ten times over, in one run, through:
//!
//! - `canon replay` on a Parquet copy (`register_table` and `replay_table`,
//!   as the command runs them), on one and on two partitions;
//! - `SELECT canon_bind(schema, arguments) ...` over the same copy, on one
//!   and on two partitions;
//! - `canon replay` on the same calls as JSON Lines, `--jobs 1` and `2`;
//! - Python's `jsonschema` over `pyarrow`'s reading of the same copy (the
//!   pinned environment `benches/python/install.sh` installs; skipped,
//!   said so, when it cannot be installed).
//!
//! Calls a second for each, and the peak memory of a process that replays
//! or queries the input once, ten and thirty times (each run in a process
//! of its own, so that one's peak is not another's).
//!
//! Run: `CANON_CORPUS=../shared/corpus/bfcl-open.jsonl cargo bench -p
//! canon-datafusion` (without it, the replay engine's sample calls stand in).

use std::time::Instant;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use canon::Policy;
use canon_datafusion::{register_table, replay_table, Columns};
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

/// Rounds of the paths.
const ROUNDS: usize = 5;

/// The median of `values`.
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// The environment variable that makes this harness run one path over a
/// Parquet file (`sql` or `replay`, the file, then the partitions,
/// comma-separated) and print its best time of three and its process's
/// peak memory.
const ONE_QUERY: &str = "CANON_DATAFUSION_BENCH_QUERY";

/// What a process of this harness runs over the Parquet copy.
#[derive(Clone, Copy)]
enum Kind {
    /// The SQL query with `canon_bind`.
    Sql,
    /// `canon replay`: `register_table`, then `replay_table`.
    Replay,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Sql => "sql",
            Kind::Replay => "replay",
        }
    }
}

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

/// Seconds for `canon replay` on the Parquet file at `path`, on
/// `partitions` partitions, configured as the command configures it.
async fn replay_parquet(path: &Path, partitions: usize) -> f64 {
    let mut config = SessionConfig::new().with_target_partitions(partitions);
    config.options_mut().optimizer.repartition_file_min_size = 1 << 20;
    let ctx = SessionContext::new_with_config(config);
    let start = Instant::now();
    register_table(&ctx, "calls", path.to_str().unwrap())
        .await
        .unwrap();
    let replay = Arc::new(Replay::new(Policy::DEFAULT, Tools::default()).jobs(partitions));
    let report = replay_table(&ctx, "calls", &Columns::default(), replay.clone())
        .await
        .unwrap();
    let seconds = start.elapsed().as_secs_f64();
    std::hint::black_box(report);
    // As the command does: the compiled schemas are left to the exit.
    std::mem::forget(replay);
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

/// The best of three runs of `kind` over `path` with `partitions`, in
/// a process of its own (this harness again, told by [`ONE_QUERY`]): its
/// seconds, and that process's peak memory in MiB.
fn query_alone(kind: Kind, path: &Path, partitions: usize) -> (f64, f64) {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .arg("--bench")
        .env(
            ONE_QUERY,
            format!("{},{},{partitions}", kind.name(), path.display()),
        )
        .output()
        .unwrap();
    figures(out)
}

/// The two figures a process of a path printed: its seconds and its
/// peak memory in MiB.
fn figures(out: std::process::Output) -> (f64, f64) {
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
    let (kind, rest) = spec.split_once(',').unwrap();
    let (path, partitions) = rest.rsplit_once(',').unwrap();
    let path = Path::new(path);
    let partitions = partitions.parse().unwrap();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let seconds = match kind {
            "sql" => sql(path, partitions).await,
            _ => replay_parquet(path, partitions).await,
        };
        best = best.min(seconds);
    }
    println!("{best} {}", peak_mib());
}

/// The pinned Python of the baseline, installed by its script; `None`
/// (said why) when it cannot be.
fn python() -> Option<PathBuf> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/python/install.sh");
    match std::process::Command::new("bash").arg(script).output() {
        Ok(out) if out.status.success() => {
            Some(PathBuf::from(String::from_utf8(out.stdout).ok()?.trim()))
        }
        Ok(out) => {
            eprintln!(
                "the Python baseline is skipped: {script} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("the Python baseline is skipped: cannot run {script}: {e}");
            None
        }
    }
}

/// One run of the Python baseline over `path`: its seconds (from opening
/// the file to its last row) and its process's peak memory in MiB.
fn python_alone(python: &Path, path: &Path) -> (f64, f64) {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/python/jsonschema_replay.py"
    );
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(path)
        .output()
        .unwrap();
    figures(out)
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

    let python = python();

    // Peak memory: a process for each path, input size and partition count.
    let mut peaks = Vec::new();
    for kind in [Kind::Replay, Kind::Sql] {
        for partitions in [1, 2] {
            let [once, ten, thirty] =
                [&once, &ten, &thirty].map(|path| query_alone(kind, path, partitions).1);
            let name = match kind {
                Kind::Replay => "canon replay on Parquet",
                Kind::Sql => "the SQL query",
            };
            peaks.push((
                format!("{name}, {partitions} partition(s)"),
                once,
                ten,
                thirty,
            ));
        }
    }
    if let Some(python) = &python {
        let [once, ten, thirty] = [&once, &ten, &thirty].map(|path| python_alone(python, path).1);
        peaks.push((
            "Python jsonschema over pyarrow".to_owned(),
            once,
            ten,
            thirty,
        ));
    }
    // Speed: rounds that alternate the paths, so that a slower spell of
    // the machine falls on all of them; each a best of three (Python's, one
    // run).
    let mut names = vec![
        "canon replay, Parquet, 1 partition",
        "canon replay, Parquet, 2 partitions",
        "SQL canon_bind, Parquet, 1 partition",
        "SQL canon_bind, Parquet, 2 partitions",
        "canon replay, JSON Lines, --jobs 1",
        "canon replay, JSON Lines, --jobs 2",
    ];
    if python.is_some() {
        names.push("Python jsonschema over pyarrow, Parquet");
    }
    let rounds: Vec<Vec<f64>> = (0..ROUNDS)
        .map(|_| {
            let mut round = vec![
                query_alone(Kind::Replay, &ten, 1).0,
                query_alone(Kind::Replay, &ten, 2).0,
                query_alone(Kind::Sql, &ten, 1).0,
                query_alone(Kind::Sql, &ten, 2).0,
                best(&mut || replay(&text, 10, 1)),
                best(&mut || replay(&text, 10, 2)),
            ];
            if let Some(python) = &python {
                round.push(python_alone(python, &ten).0);
            }
            round
        })
        .collect();
    let times: Vec<[f64; ROUNDS]> = (0..names.len())
        .map(|path| std::array::from_fn(|round| rounds[round][path]))
        .collect();
    println!();
    println!("{calls_ten} calls ({calls_once} ten times), {ROUNDS} rounds, each a best of 3:");
    println!("| path | calls/s, best round | calls/s, median round | median time over canon replay on Parquet, 1 partition |");
    println!("|---|---|---|---|");
    for (name, seconds) in names.iter().zip(&times) {
        let fastest = seconds.iter().copied().fold(f64::MAX, f64::min);
        println!(
            "| {name} | {:.0} | {:.0} | {:.2}x |",
            rate(calls_ten, fastest),
            rate(calls_ten, median(seconds)),
            median(seconds) / median(&times[0])
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
        "two partitions over one, a round at a time: canon replay on Parquet {}; SQL {}; \
         canon replay --jobs 2 over --jobs 1 on JSON Lines: {}",
        scaling(&times[0], &times[1]),
        scaling(&times[2], &times[3]),
        scaling(&times[4], &times[5])
    );
    for (name, once, ten, thirty) in peaks {
        println!(
            "peak RSS, {name}: {once:.0} MiB over the input once, {ten:.0} MiB ten times, \
             {thirty:.0} MiB thirty times"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
