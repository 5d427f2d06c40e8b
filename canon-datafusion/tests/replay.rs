//! `canon replay` over a Parquet table: the same calls as JSON Lines and
//! as Parquet give the same report; columns are renamable, and a column
//! that is missing or not text is named.

use std::sync::Arc;

use canon::Policy;
use canon_datafusion::{register_table, replay_table, table_format, Columns, TableFormat};
use canon_replay::{Replay, Report, Tools};
use datafusion::arrow::array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::ipc::writer::FileWriter;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

#[path = "common/corpus.rs"]
mod corpus;

/// `batch`'s rows as JSON Lines, one call a line.
fn json_lines(batch: &RecordBatch) -> String {
    let column = |i: usize| {
        batch
            .column(i)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap()
    };
    let (tools, schemas, arguments) = (column(0), column(1), column(2));
    let mut text = String::new();
    for i in 0..batch.num_rows() {
        if tools.is_null(i) || schemas.is_null(i) || arguments.is_null(i) {
            // A call without its arguments: a malformed line.
            text.push_str("{\"tool\": \"t\", \"schema\": {}}\n");
            continue;
        }
        let tool = serde_json::to_string(tools.value(i)).unwrap();
        text.push_str(&format!(
            "{{\"tool\": {tool}, \"schema\": {}, \"arguments\": {}}}\n",
            schemas.value(i),
            arguments.value(i)
        ));
    }
    text
}

/// `batch` written to a Parquet file in `dir`, in row groups of `group`
/// rows.
fn parquet(batch: &RecordBatch, dir: &std::path::Path, group: usize) -> String {
    parquet_at(batch, &dir.join("calls.parquet"), group)
}

/// `batch` written to the Parquet file `path`, in row groups of `group`
/// rows.
fn parquet_at(batch: &RecordBatch, path: &std::path::Path, group: usize) -> String {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    path.to_str().unwrap().to_owned()
}

/// The report of `canon replay` on `text`.
fn replayed(text: &str) -> Report {
    let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
    replay.run(text.as_bytes(), |_| {}, |_| Ok(())).unwrap()
}

/// The report of the Parquet file at `path`, read as the table `calls`.
async fn replayed_parquet(path: &str, columns: &Columns) -> datafusion::common::Result<Report> {
    // Partitions enough to interleave the rows, were they not read in
    // order, and files split however small.
    let mut config = SessionConfig::new().with_target_partitions(4);
    config.options_mut().optimizer.repartition_file_min_size = 0;
    let ctx = SessionContext::new_with_config(config);
    ctx.register_parquet("calls", path, ParquetReadOptions::default())
        .await?;
    let replay = Replay::new(Policy::DEFAULT, Tools::default());
    replay_table(&ctx, "calls", columns, Arc::new(replay)).await
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("canon-datafusion-{name}-{}", std::process::id()))
}

/// The sample calls, with a row whose arguments are NULL.
fn sample() -> RecordBatch {
    let calls = corpus::calls(canon_replay::SAMPLE_CALLS, canon_replay::SAMPLE_TOOLS);
    let column = |i: usize| -> Vec<Option<String>> {
        let array = calls
            .column(i)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        (0..array.len())
            .map(|r| Some(array.value(r).to_owned()))
            .collect()
    };
    let (mut tools, mut schemas, mut arguments) = (column(0), column(1), column(2));
    tools.insert(3, Some("search_code".into()));
    schemas.insert(3, schemas[0].clone());
    arguments.insert(3, None);
    // Then the same near miss to two tools in turn, a hundred times each:
    // the report's example of the rule is the first, which the order of
    // the rows decides.
    let names = r#"{"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}"#;
    for tool in ["first", "second"] {
        for _ in 0..100 {
            tools.push(Some(tool.into()));
            schemas.push(Some(names.into()));
            arguments.push(Some(format!(r#"{{"names": "{tool}"}}"#)));
        }
    }
    let array = |values: Vec<Option<String>>| Arc::new(StringArray::from(values)) as ArrayRef;
    RecordBatch::try_from_iter(vec![
        ("tool", array(tools)),
        ("schema", array(schemas)),
        ("arguments", array(arguments)),
    ])
    .unwrap()
}

#[tokio::test]
async fn the_same_calls_as_json_lines_and_parquet_give_the_same_report() {
    let batch = sample();
    let lines = json_lines(&batch);
    let expected = replayed(&lines);
    assert_eq!(expected.totals.malformed_lines, 1);
    assert!(expected.totals.accepted_after_repair > 0, "{expected:?}");
    let dir = temp("replay");
    // Row groups of two rows: the lines' numbers go on across them.
    let path = parquet(&batch, &dir, 2);
    let report = replayed_parquet(&path, &Columns::default()).await.unwrap();
    assert_eq!(report, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn columns_are_renamable_and_a_missing_or_numeric_one_is_named() {
    let batch = sample();
    let renamed = RecordBatch::try_from_iter(vec![
        ("name", batch.column(0).clone()),
        ("input_schema", batch.column(1).clone()),
        ("input", batch.column(2).clone()),
        (
            "tokens",
            Arc::new(Int64Array::from(vec![1; batch.num_rows()])) as ArrayRef,
        ),
    ])
    .unwrap();
    let dir = temp("columns");
    let path = parquet(&renamed, &dir, 1024);
    let columns = Columns {
        tool: "name".into(),
        schema: "input_schema".into(),
        arguments: "input".into(),
        label: None,
    };
    let report = replayed_parquet(&path, &columns).await.unwrap();
    assert_eq!(report, replayed(&json_lines(&batch)));
    let missing = replayed_parquet(&path, &Columns::default())
        .await
        .unwrap_err();
    assert!(
        missing.to_string().contains("`calls` has no column `tool`"),
        "{missing}"
    );
    let numeric = Columns {
        arguments: "tokens".into(),
        ..columns
    };
    let error = replayed_parquet(&path, &numeric).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the column `tokens` of `calls` is Int64, not text"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_corpus_as_parquet_gives_the_report_of_its_json_lines() {
    let Ok(path) = std::env::var("CANON_CORPUS") else {
        eprintln!("CANON_CORPUS is not set: the corpus is not replayed");
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let batch = corpus::calls(&text, "[]");
    let expected = replayed(&json_lines(&batch));
    assert_eq!(expected.totals.calls as usize, batch.num_rows());
    let dir = temp("corpus");
    let path = parquet(&batch, &dir, 4096);
    let report = replayed_parquet(&path, &Columns::default()).await.unwrap();
    assert_eq!(report, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The report of `input` registered by [`register_table`] as `calls`, on
/// a session of four partitions, and the session.
async fn replayed_input(input: &str) -> (Report, SessionContext) {
    let mut config = SessionConfig::new().with_target_partitions(4);
    config.options_mut().optimizer.repartition_file_min_size = 0;
    let ctx = SessionContext::new_with_config(config);
    register_table(&ctx, "calls", input).await.unwrap();
    let replay = Replay::new(Policy::DEFAULT, Tools::default());
    let report = replay_table(&ctx, "calls", &Columns::default(), Arc::new(replay))
        .await
        .unwrap();
    (report, ctx)
}

async fn count(ctx: &SessionContext, sql: &str) -> i64 {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap()
        .value(0)
}

#[tokio::test]
async fn a_hive_partitioned_directory_reads_as_one_table_in_path_order() {
    let batch = sample();
    let expected = replayed(&json_lines(&batch));
    let dir = temp("hive");
    // Three files, written out of order; read in path order, they hold
    // the rows in turn.
    let n = batch.num_rows();
    parquet_at(
        &batch.slice(60, n - 60),
        &dir.join("year=2026/month=12/part-1.parquet"),
        16,
    );
    parquet_at(
        &batch.slice(0, 5),
        &dir.join("year=2026/month=11/part-0.parquet"),
        2,
    );
    parquet_at(
        &batch.slice(5, 55),
        &dir.join("year=2026/month=12/part-0.parquet"),
        8,
    );
    // Not read: hidden, and of another format.
    std::fs::write(dir.join("year=2026/_SUCCESS"), "").unwrap();
    std::fs::write(dir.join("year=2026/month=12/notes.txt"), "{}").unwrap();
    let input = dir.to_str().unwrap();
    assert_eq!(table_format(input).unwrap(), Some(TableFormat::Parquet));
    let (report, ctx) = replayed_input(input).await;
    assert_eq!(report, expected);
    // The partitions are columns.
    let december = count(&ctx, "SELECT count(*) FROM calls WHERE month = '12'").await;
    assert_eq!(december as usize, n - 5);
    // A glob reads the files it matches.
    let glob = format!("{input}/year=2026/month=12/*.parquet");
    assert_eq!(table_format(&glob).unwrap(), Some(TableFormat::Parquet));
    let ctx = SessionContext::new();
    register_table(&ctx, "december", &glob).await.unwrap();
    assert_eq!(
        count(&ctx, "SELECT count(*) FROM december").await as usize,
        n - 5
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn an_arrow_ipc_file_gives_the_report_of_the_same_calls() {
    let batch = sample();
    let expected = replayed(&json_lines(&batch));
    let dir = temp("ipc");
    std::fs::create_dir_all(&dir).unwrap();
    // Named as such, and told by its magic bytes alone.
    for name in ["calls.arrow", "calls.bin"] {
        let path = dir.join(name);
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = FileWriter::try_new(file, &batch.schema()).unwrap();
        writer.write(&batch.slice(0, 10)).unwrap();
        writer
            .write(&batch.slice(10, batch.num_rows() - 10))
            .unwrap();
        writer.finish().unwrap();
        let input = path.to_str().unwrap();
        assert_eq!(table_format(input).unwrap(), Some(TableFormat::Arrow));
        assert_eq!(replayed_input(input).await.0, expected, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn what_is_no_table_is_said_so() {
    let dir = temp("none");
    std::fs::create_dir_all(&dir).unwrap();
    let lines = dir.join("calls.jsonl");
    std::fs::write(&lines, "{\"tool\": \"t\", \"arguments\": {}}\n").unwrap();
    assert_eq!(table_format(lines.to_str().unwrap()).unwrap(), None);
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let error = table_format(empty.to_str().unwrap()).unwrap_err();
    assert!(error.to_string().contains("holds no .parquet"), "{error}");
    let ctx = SessionContext::new();
    for input in [lines.to_str().unwrap(), empty.to_str().unwrap()] {
        let error = register_table(&ctx, "calls", input).await.unwrap_err();
        assert!(error.to_string().contains(input), "{error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
