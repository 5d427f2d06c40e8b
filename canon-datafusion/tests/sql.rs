//! `canon_bind` and `canon_feedback` in SQL, over in-memory tables and a
//! Parquet file: every outcome, NULLs, a bad schema, each string type, the
//! cache, and `canon replay`'s verdicts on the open corpus.

use std::collections::BTreeMap;
use std::sync::Arc;

use canon::Policy;
use canon_datafusion::{register, schemas_compiled};
use canon_replay::{Replay, Tools};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, LargeStringArray, RecordBatch, StringArray, StringViewArray,
};
use datafusion::arrow::datatypes::DataType;
use datafusion::datasource::MemTable;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};

#[path = "common/corpus.rs"]
mod corpus;

const NAMES: &str = r#"{"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}, "n": {"type": "integer"}}, "required": ["names"], "additionalProperties": false}"#;

/// A session with canon's functions and the table `calls(schema,
/// arguments, tool)` of `rows`.
fn session(rows: &[(Option<&str>, Option<&str>)], view: bool) -> SessionContext {
    let schemas: Vec<Option<&str>> = rows.iter().map(|r| r.0).collect();
    let arguments: Vec<Option<&str>> = rows.iter().map(|r| r.1).collect();
    let column = |values: Vec<Option<&str>>| -> ArrayRef {
        match view {
            true => Arc::new(StringViewArray::from(values)),
            false => Arc::new(StringArray::from(values)),
        }
    };
    let tools = vec![Some("search"); rows.len()];
    let batch = RecordBatch::try_from_iter(vec![
        ("schema", column(schemas)),
        ("arguments", column(arguments)),
        ("tool", column(tools)),
    ])
    .unwrap();
    let ctx = SessionContext::new();
    register(&ctx);
    ctx.register_batch("calls", batch).unwrap();
    ctx
}

/// The first column of `sql`'s result, each row as text (`NULL` for NULL).
async fn column(ctx: &SessionContext, sql: &str) -> Vec<String> {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let mut out = Vec::new();
    for batch in batches {
        let array = batch.column(0);
        let text = datafusion::arrow::compute::cast(array, &DataType::Utf8).unwrap();
        let text = text.as_string::<i32>();
        for i in 0..text.len() {
            out.push(match text.is_valid(i) {
                true => text.value(i).to_owned(),
                false => "NULL".to_owned(),
            });
        }
    }
    out
}

/// What `canon_bind` says of each of [`ROWS`].
const OUTCOMES: [&str; 7] = [
    "strict",
    "repaired",
    "rejected",
    "schema_error",
    "rejected",
    "NULL",
    "NULL",
];

const ROWS: &[(Option<&str>, Option<&str>)] = &[
    (Some(NAMES), Some(r#"{"names": ["a", "b"]}"#)),
    (Some(NAMES), Some(r#"{"names": "a"}"#)),
    (Some(NAMES), Some(r#"{"names": 1, "extra": true}"#)),
    (Some("{not a schema"), Some("{}")),
    (Some(NAMES), Some("not json")),
    (None, Some("{}")),
    (Some(NAMES), None),
];

#[tokio::test]
async fn every_outcome_and_null_in_null_out() {
    for view in [false, true] {
        let ctx = session(ROWS, view);
        let outcomes = column(
            &ctx,
            "SELECT canon_bind(schema, arguments)['outcome'] FROM calls",
        )
        .await;
        assert_eq!(outcomes, OUTCOMES, "string views: {view}");
        let bound = column(
            &ctx,
            "SELECT canon_bind(schema, arguments)['arguments'] FROM calls",
        )
        .await;
        assert_eq!(
            bound,
            [
                r#"{"names":["a","b"]}"#,
                r#"{"names":["a"]}"#,
                "NULL",
                "NULL",
                "NULL",
                "NULL",
                "NULL"
            ]
        );
        // The whole result is NULL for a NULL input, not a struct of NULLs.
        let nulls = column(
            &ctx,
            "SELECT canon_bind(schema, arguments) IS NULL FROM calls",
        )
        .await;
        assert_eq!(
            nulls,
            ["false", "false", "false", "false", "false", "true", "true"]
        );
    }
}

#[tokio::test]
async fn large_strings_and_mixed_string_types_bind() {
    // The schema as a string view, the arguments as large strings.
    let schemas: Vec<Option<&str>> = ROWS.iter().map(|r| r.0).collect();
    let arguments: Vec<Option<&str>> = ROWS.iter().map(|r| r.1).collect();
    let batch = RecordBatch::try_from_iter(vec![
        (
            "schema",
            Arc::new(StringViewArray::from(schemas)) as ArrayRef,
        ),
        ("arguments", Arc::new(LargeStringArray::from(arguments))),
    ])
    .unwrap();
    let ctx = SessionContext::new();
    register(&ctx);
    ctx.register_batch("calls", batch).unwrap();
    let outcomes = column(
        &ctx,
        "SELECT canon_bind(schema, arguments)['outcome'] FROM calls",
    )
    .await;
    assert_eq!(outcomes, OUTCOMES);
    let feedback = column(
        &ctx,
        "SELECT canon_feedback(schema, arguments, arguments) IS NULL FROM calls",
    )
    .await;
    assert_eq!(
        feedback,
        ["true", "true", "false", "true", "false", "true", "true"]
    );
}

#[tokio::test]
async fn repairs_and_violations_are_listed_with_their_pointers() {
    let ctx = session(ROWS, false);
    let repairs = column(
        &ctx,
        "SELECT r['pointer'] || ' ' || r['rule'] FROM \
         (SELECT unnest(canon_bind(schema, arguments)['repairs']) AS r FROM calls)",
    )
    .await;
    assert_eq!(repairs, ["/names scalar_to_array"]);
    let violations = column(
        &ctx,
        "SELECT v['pointer'] || ' ' || v['kind'] FROM \
         (SELECT unnest(canon_bind(schema, arguments)['violations']) AS v FROM calls) \
         ORDER BY 1",
    )
    .await;
    // Arguments that are not JSON, and a schema that does not compile, at
    // the root.
    assert_eq!(
        violations,
        [
            " malformed",
            " schema_error",
            "/extra unknown",
            "/names wrong_type"
        ]
    );
}

#[tokio::test]
async fn feedback_is_the_models_text_and_null_when_the_call_binds() {
    let ctx = session(ROWS, true);
    let feedback = column(
        &ctx,
        "SELECT canon_feedback(schema, arguments, tool) FROM calls",
    )
    .await;
    assert_eq!(feedback[0], "NULL");
    assert_eq!(feedback[1], "NULL");
    assert!(
        feedback[2].starts_with("The call to `search` was not run. "),
        "{}",
        feedback[2]
    );
    assert!(
        feedback[2].contains(" /names: expected an array of strings, got the number 1. "),
        "{}",
        feedback[2]
    );
    assert!(feedback[2].ends_with("Fix these and call `search` again."));
    assert_eq!(feedback[3], "NULL", "a schema that does not compile");
    assert!(feedback[4].starts_with("The call to `search` was not run."));
    assert_eq!(&feedback[5..], ["NULL", "NULL"]);
}

#[tokio::test]
async fn hostile_arguments_are_bounded_rows() {
    // Past the bound on text, and not JSON either: were it read, it would
    // be malformed.
    let huge = format!(
        r#"{{"names": ["{}"#,
        "a".repeat(canon_replay::MAX_ARGUMENTS_TEXT)
    );
    // Deeper than any bound, in a few hundred kilobytes.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    // More violations than are listed.
    let many = format!(
        "{{{}}}",
        (0..100)
            .map(|i| format!(r#""extra{i}": 1"#))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let expected = [
        (&huge, vec!["too_large"]),
        (&deep, vec!["too_large"]),
        // The first listed, the rest counted in the model's text.
        (&many, vec!["unknown"]),
    ];
    for (arguments, kinds) in expected {
        let ctx = session(&[(Some(NAMES), Some(arguments))], true);
        let mut listed = column(
            &ctx,
            "SELECT v['kind'] FROM \
             (SELECT unnest(canon_bind(schema, arguments)['violations']) AS v FROM calls)",
        )
        .await;
        assert!(listed.len() <= canon_datafusion::LISTED, "{listed:?}");
        if arguments == &many {
            assert_eq!(listed.len(), canon_datafusion::LISTED);
        }
        listed.dedup();
        assert_eq!(listed, kinds);
        let feedback = column(
            &ctx,
            "SELECT canon_feedback(schema, arguments, tool) FROM calls",
        )
        .await;
        for text in &feedback {
            assert!(text.starts_with("The call to `search` was not run."));
            // What the model is told does not echo the text.
            assert!(text.len() < 2_000, "{text}");
        }
    }
}

#[tokio::test]
async fn a_policy_names_the_opt_in_rules() {
    let ctx = session(
        &[(Some(NAMES), Some(r#"{"names": ["a"], "n": "3"}"#))],
        false,
    );
    let outcomes = column(
        &ctx,
        "SELECT canon_bind(schema, arguments)['outcome'], \
                canon_bind(schema, arguments, 'all')['outcome'] FROM calls",
    )
    .await;
    assert_eq!(outcomes, ["rejected"]);
    let all = column(
        &ctx,
        "SELECT canon_bind(schema, arguments, 'all')['arguments'] FROM calls",
    )
    .await;
    assert_eq!(all, [r#"{"names":["a"],"n":3}"#]);
    let unknown = ctx
        .sql("SELECT canon_bind(schema, arguments, 'no_such_rule') FROM calls")
        .await
        .unwrap()
        .collect()
        .await;
    let error = unknown.unwrap_err().to_string();
    assert!(error.contains("no_such_rule"), "{error}");
}

#[tokio::test]
async fn a_schema_shared_by_ten_thousand_rows_is_compiled_once() {
    // Two partitions of two batches each, bound on two threads.
    let batch = |n: usize| {
        let schemas: StringArray = (0..n).map(|_| Some(NAMES)).collect();
        let arguments: StringArray = (0..n)
            .map(|i| {
                Some(if i % 2 == 0 {
                    r#"{"names": "a"}"#
                } else {
                    r#"{"names": []}"#
                })
            })
            .collect();
        RecordBatch::try_from_iter(vec![
            ("schema", Arc::new(schemas) as ArrayRef),
            ("arguments", Arc::new(arguments) as ArrayRef),
        ])
        .unwrap()
    };
    let partitions = vec![
        vec![batch(2500), batch(2500)],
        vec![batch(2500), batch(2500)],
    ];
    let table = MemTable::try_new(partitions[0][0].schema(), partitions).unwrap();
    let config = SessionConfig::new().with_target_partitions(2);
    let ctx = SessionContext::new_with_config(config);
    register(&ctx);
    ctx.register_table("calls", Arc::new(table)).unwrap();
    let counts = column(
        &ctx,
        "SELECT count(*) FROM calls WHERE canon_bind(schema, arguments)['outcome'] = 'repaired'",
    )
    .await;
    assert_eq!(counts, ["5000"]);
    assert_eq!(schemas_compiled(&ctx), 1);
}

#[tokio::test]
async fn a_parquet_file_reads_as_string_views_and_binds() {
    let dir = std::env::temp_dir().join(format!("canon-datafusion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("calls.parquet");
    let ctx = session(ROWS, false);
    let batches = ctx
        .sql("SELECT * FROM calls")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer =
        datafusion::parquet::arrow::ArrowWriter::try_new(file, batches[0].schema(), None).unwrap();
    for batch in &batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
    let ctx = SessionContext::new();
    register(&ctx);
    ctx.register_parquet(
        "traces",
        path.to_str().unwrap(),
        ParquetReadOptions::default(),
    )
    .await
    .unwrap();
    let types = column(&ctx, "SELECT arrow_typeof(schema) FROM traces LIMIT 1").await;
    assert_eq!(types, ["Utf8View"]);
    let outcomes = column(
        &ctx,
        "SELECT canon_bind(schema, arguments)['outcome'] FROM traces",
    )
    .await;
    assert_eq!(outcomes, OUTCOMES);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_corpus_gives_the_verdicts_of_canon_replay() {
    let Ok(path) = std::env::var("CANON_CORPUS") else {
        eprintln!("CANON_CORPUS is not set: the corpus is not replayed");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap();
    let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
    let report = replay.run(text.as_bytes(), |_| {}, |_| Ok(())).unwrap();
    let batch = corpus::calls(&text, "[]");
    let calls = text.lines().filter(|l| !l.trim().is_empty()).count();
    assert_eq!(
        batch.num_rows(),
        calls,
        "every corpus line gives its schema"
    );
    let ctx = SessionContext::new();
    register(&ctx);
    ctx.register_batch("calls", batch).unwrap();
    let counts = |sql: &'static str| {
        let ctx = &ctx;
        async move {
            let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
            let mut out = BTreeMap::new();
            for batch in batches {
                let keys =
                    datafusion::arrow::compute::cast(batch.column(0), &DataType::Utf8).unwrap();
                let keys = keys.as_string::<i32>();
                let n = batch
                    .column(1)
                    .as_primitive::<datafusion::arrow::datatypes::Int64Type>();
                for i in 0..batch.num_rows() {
                    out.insert(keys.value(i).to_owned(), n.value(i) as u64);
                }
            }
            out
        }
    };
    let outcomes = counts(
        "SELECT canon_bind(schema, arguments)['outcome'] AS o, count(*) FROM calls GROUP BY o",
    )
    .await;
    let t = &report.totals;
    let get = |k: &str| outcomes.get(k).copied().unwrap_or(0);
    assert_eq!(get("strict"), t.accepted_strictly, "{outcomes:?}");
    assert_eq!(get("repaired"), t.accepted_after_repair, "{outcomes:?}");
    assert_eq!(get("rejected"), t.still_rejected, "{outcomes:?}");
    assert_eq!(get("schema_error"), t.schema_errors, "{outcomes:?}");
    let rules = counts(
        "SELECT r['rule'] AS rule, count(*) FROM \
         (SELECT unnest(canon_bind(schema, arguments)['repairs']) AS r FROM calls) GROUP BY rule",
    )
    .await;
    let replayed: BTreeMap<String, u64> = report
        .repairs_by_rule
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    assert_eq!(rules, replayed);
}
