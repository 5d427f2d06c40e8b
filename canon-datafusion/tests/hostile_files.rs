//! Hostile tables of calls: a corrupt footer, a truncated file, a 64 MiB
//! value, a row group over the bound, bytes that are not UTF-8 in a
//! binary column. Each is a clear error naming the file (and the row group
//! and column where one is at fault), or a row's outcome; nothing panics,
//! and the memory a replay takes is bounded by the row groups it reads,
//! not by the file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use canon::Policy;
use canon_datafusion::{check_files, register_table, replay_table, Columns, MAX_ROW_GROUP_TEXT};
use canon_replay::{Replay, Report, Tools};
use datafusion::arrow::array::{ArrayRef, BinaryArray, RecordBatch, StringArray};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{SessionConfig, SessionContext};

const NAMES: &str = r#"{"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}"#;

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("canon-hostile-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Calls with the arguments `arguments`, one a row, to a tool whose
/// schema takes `names`.
fn calls(arguments: ArrayRef) -> RecordBatch {
    let rows = arguments.len();
    RecordBatch::try_from_iter(vec![
        (
            "tool",
            Arc::new(StringArray::from(vec!["t"; rows])) as ArrayRef,
        ),
        (
            "schema",
            Arc::new(StringArray::from(vec![NAMES; rows])) as ArrayRef,
        ),
        ("arguments", arguments),
    ])
    .unwrap()
}

/// `batches` written to `path`, each batch its own row group.
fn write(path: &Path, batches: &[RecordBatch]) {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(usize::MAX))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batches[0].schema(), Some(props)).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
        writer.flush().unwrap();
    }
    writer.close().unwrap();
}

/// `rows` near misses, each `{"names": "<about `bytes` bytes, its own>"}`.
fn near_misses(rows: usize, bytes: usize) -> ArrayRef {
    let filler = "x".repeat(bytes.saturating_sub(32));
    Arc::new(StringArray::from(
        (0..rows)
            .map(|i| format!(r#"{{"names": "{i} {filler}"}}"#))
            .collect::<Vec<_>>(),
    ))
}

async fn replayed(input: &Path, partitions: usize) -> datafusion::common::Result<Report> {
    let mut config = SessionConfig::new().with_target_partitions(partitions);
    config.options_mut().optimizer.repartition_file_min_size = 0;
    let ctx = SessionContext::new_with_config(config);
    let input = input.to_str().unwrap();
    check_files(&ctx, input, "arguments", MAX_ROW_GROUP_TEXT).await?;
    register_table(&ctx, "calls", input).await?;
    let replay = Arc::new(Replay::new(Policy::DEFAULT, Tools::default()));
    replay_table(&ctx, "calls", &Columns::default(), replay).await
}

#[tokio::test]
async fn a_corrupt_footer_and_a_truncated_file_are_named() {
    let dir = Dir::new("footer");
    let good = dir.path("a-good.parquet");
    write(&good, &[calls(near_misses(10, 100))]);
    let bytes = std::fs::read(&good).unwrap();
    // The footer's magic overwritten; the file cut in two.
    let mut corrupt = bytes.clone();
    let n = corrupt.len();
    corrupt[n - 4..].copy_from_slice(b"XXXX");
    let cases = [
        ("b-corrupt.parquet", corrupt),
        ("b-truncated.parquet", bytes[..bytes.len() / 2].to_vec()),
        ("b-empty.parquet", Vec::new()),
    ];
    for (name, bytes) in cases {
        let folder = dir.path(name.trim_end_matches(".parquet"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(&good, folder.join("a-good.parquet")).unwrap();
        let bad = folder.join(name);
        std::fs::write(&bad, &bytes).unwrap();
        // Alone, and among good files in a directory: the bad one named.
        for input in [&bad, &folder] {
            let error = replayed(input, 2).await.unwrap_err().to_string();
            assert!(
                error.contains(&format!("{}: not a readable Parquet file", bad.display())),
                "{name}: {error}"
            );
        }
    }
}

#[tokio::test]
async fn a_64_mib_value_is_a_row_refused_unread() {
    let dir = Dir::new("huge");
    let path = dir.path("huge.parquet");
    let huge = format!(r#"{{"names": "{}"}}"#, "x".repeat(64 << 20));
    let arguments: ArrayRef = Arc::new(StringArray::from(vec![
        r#"{"names": "a"}"#.to_owned(),
        huge,
        r#"{"names": ["b"]}"#.to_owned(),
    ]));
    write(&path, &[calls(arguments)]);
    let report = replayed(&path, 1).await.unwrap();
    assert_eq!(report.totals.calls, 3);
    assert_eq!(report.totals.accepted_after_repair, 1);
    assert_eq!(report.totals.accepted_strictly, 1);
    assert_eq!(report.totals.still_rejected, 1);
    assert_eq!(report.still_rejected_by_kind["too_large"].calls, 1);
}

#[tokio::test]
async fn a_row_group_over_the_bound_is_named_with_its_file_and_column() {
    let dir = Dir::new("group");
    let path = dir.path("groups.parquet");
    // Two row groups of about 100 KiB of arguments, then one of about 2 MiB.
    write(
        &path,
        &[
            calls(near_misses(100, 1 << 10)),
            calls(near_misses(100, 1 << 10)),
            calls(near_misses(2 << 10, 1 << 10)),
        ],
    );
    let ctx = SessionContext::new();
    let input = path.to_str().unwrap();
    let error = check_files(&ctx, input, "arguments", 1 << 20)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains(&format!(
            "{input}: row group 2 (of 3, 2048 rows) holds 2.0 MiB of `arguments`, over the 1.0 MiB a row group may hold"
        )),
        "{error}"
    );
    // Within the bound, the file replays.
    check_files(&ctx, input, "arguments", 4 << 20)
        .await
        .unwrap();
}

#[tokio::test]
async fn bytes_that_are_not_utf8_in_a_binary_column_make_a_malformed_row() {
    let dir = Dir::new("binary");
    let path = dir.path("binary.parquet");
    let arguments: ArrayRef = Arc::new(BinaryArray::from(vec![
        br#"{"names": "a"}"#.as_slice(),
        b"{\"names\": \"\xff\xfe\"}".as_slice(),
        br#"{"names": ["b"]}"#.as_slice(),
    ]));
    write(&path, &[calls(arguments)]);
    let report = replayed(&path, 1).await.unwrap();
    assert_eq!(report.totals.calls, 2);
    assert_eq!(report.totals.malformed_lines, 1);
    assert_eq!(report.totals.accepted_after_repair, 1);
}

/// The peak resident set of this process, in MiB (Linux; `None`
/// elsewhere).
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

/// Set in the process [`memory_is_bounded_by_the_row_groups_read`] runs
/// the replay in: the file to replay.
const CHILD: &str = "CANON_HOSTILE_FILES_RSS_CHILD";

/// The bound the row groups are held to in the memory test: 8 MiB.
const LIMIT: u64 = 8 << 20;

/// Of what a replay may hold besides the row groups it reads: the
/// process, DataFusion's runtime and the compiled schemas.
const BASE_MIB: f64 = 100.0;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_is_bounded_by_the_row_groups_read() {
    if let Ok(input) = std::env::var(CHILD) {
        // The child: replay the file on two partitions, print the peak.
        let report = replayed(Path::new(&input), 2).await.unwrap();
        println!(
            "calls={} peak_mib={}",
            report.totals.calls,
            peak_mib().unwrap()
        );
        return;
    }
    if peak_mib().is_none() {
        eprintln!("no /proc/self/status: the peak memory is not measured here");
        return;
    }
    let dir = Dir::new("rss");
    let path = dir.path("groups.parquet");
    // Sixteen row groups of about 7 MiB of arguments each (112 MiB in
    // all, each row its own text), within the 8 MiB bound: read whole,
    // the file would take about twice the bound.
    let groups: Vec<RecordBatch> = (0..16)
        .map(|_| calls(near_misses(7 << 10, 1 << 10)))
        .collect();
    write(&path, &groups);
    let input = path.to_str().unwrap();
    check_files(&SessionContext::new(), input, "arguments", LIMIT)
        .await
        .unwrap();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "memory_is_bounded_by_the_row_groups_read",
            "--nocapture",
        ])
        .env(CHILD, input)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("calls="))
        .unwrap_or_else(|| panic!("{stdout}"));
    let (replayed, peak) = line.split_once(' ').unwrap();
    assert_eq!(replayed, format!("calls={}", 16 * (7 << 10)));
    let peak: f64 = peak.trim_start_matches("peak_mib=").parse().unwrap();
    // Two partitions, each holding a row group's text about three times
    // over (the column chunk read, its pages decoded, the batch): the
    // whole file's text held once would already pass the bound.
    let bound = BASE_MIB + 2.0 * 3.0 * (LIMIT >> 20) as f64;
    eprintln!("peak RSS {peak:.0} MiB, bound {bound:.0} MiB");
    assert!(peak <= bound, "peak RSS {peak:.0} MiB over {bound:.0} MiB");
    // One row group over the bound: refused, before a row is read.
    let over = dir.path("over.parquet");
    let mut groups = groups;
    groups.push(calls(near_misses(9 << 10, 1 << 10)));
    write(&over, &groups);
    let error = check_files(
        &SessionContext::new(),
        over.to_str().unwrap(),
        "arguments",
        LIMIT,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(error.contains("row group 16 (of 17"), "{error}");
}
