//! canon's JSON Lines as a table: the plain layout with each line's number
//! and other members, the same report as the lines replayed, malformed
//! lines as rows of NULLs, and the other columns bounded.

use std::sync::Arc;

use canon::Policy;
use canon_datafusion::{register_json_lines, replay_table, Columns, MAX_OTHER_COLUMNS};
use canon_replay::{Replay, Report, Tools, SAMPLE_CALLS, SAMPLE_TOOLS};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::SessionContext;

fn temp(name: &str, text: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "canon-datafusion-lines-{name}-{}.jsonl",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

async fn shown(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

#[tokio::test]
async fn the_sample_as_a_table_gives_the_report_of_its_lines() {
    let tools = Tools::parse(SAMPLE_TOOLS).unwrap();
    let path = temp("sample", SAMPLE_CALLS);
    let ctx = SessionContext::new();
    register_json_lines(&ctx, "calls", &path, &tools).unwrap();
    let mut replay = Replay::new(Policy::DEFAULT, tools.clone());
    let expected: Report = replay
        .run(SAMPLE_CALLS.as_bytes(), |_| {}, |_| Ok(()))
        .unwrap();
    let replay = Replay::new(Policy::DEFAULT, tools);
    let report = replay_table(&ctx, "calls", &Columns::default(), Arc::new(replay))
        .await
        .unwrap();
    assert_eq!(report, expected);
    // The line's other members are columns; the schema came from the tools.
    let table = shown(
        &ctx,
        "SELECT line, tool, note, length(schema) > 0 AS has_schema, arguments FROM calls WHERE line <= 2",
    )
    .await;
    assert_eq!(
        table,
        "\
+------+-------------+--------------------------------------------------------------+------------+------------------------------------------------------------------+
| line | tool        | note                                                         | has_schema | arguments                                                        |
+------+-------------+--------------------------------------------------------------+------------+------------------------------------------------------------------+
| 1    | search_code | valid                                                        | true       | {\"data_source_names\": [\"dotnet/eshop\"], \"query\": \"OrderService\"} |
| 2    | search_code | the production near miss: one string for an array of strings | true       | {\"data_source_names\": \"dotnet/eshop\", \"query\": \"OrderService\"}   |
+------+-------------+--------------------------------------------------------------+------------+------------------------------------------------------------------+"
    );
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn malformed_lines_are_rows_of_nulls_and_values_keep_their_text() {
    let text = "{\"tool\": \"t\", \"schema\": {\"type\": \"object\"}, \"arguments\": \"{\\\"a\\\": 1}\", \"model\": \"m\\u00e9\", \"tokens\": 12, \"meta\": {\"k\": [1, 2]}, \"gone\": null}\n\
                not json\n\
                \n\
                [1, 2]\n\
                {\"tool\": 7, \"arguments\": {}, \"tok\\u0065ns\": 3}\n";
    let path = temp("malformed", text);
    let ctx = SessionContext::new();
    register_json_lines(&ctx, "calls", &path, &Tools::default()).unwrap();
    let table = shown(
        &ctx,
        "SELECT line, tool, schema, arguments, model, CAST(tokens AS BIGINT) + 1 AS more, meta, gone FROM calls",
    )
    .await;
    assert_eq!(
        table,
        "\
+------+------+--------------------+--------------+-------+------+---------------+------+
| line | tool | schema             | arguments    | model | more | meta          | gone |
+------+------+--------------------+--------------+-------+------+---------------+------+
| 1    | t    | {\"type\": \"object\"} | \"{\\\"a\\\": 1}\" | mé    | 13   | {\"k\": [1, 2]} |      |
| 2    |      |                    |              |       |      |               |      |
| 4    |      |                    |              |       |      |               |      |
| 5    |      |                    | {}           |       | 4    |               |      |
+------+------+--------------------+--------------+-------+------+---------------+------+"
    );
    // Replayed, the rows without a tool, schema or arguments are
    // malformed, as the lines are.
    let replay = Replay::new(Policy::DEFAULT, Tools::default());
    let report = replay_table(&ctx, "calls", &Columns::default(), Arc::new(replay))
        .await
        .unwrap();
    assert_eq!(report.totals.calls, 1);
    assert_eq!(report.totals.malformed_lines, 3);
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn a_line_of_many_members_makes_a_bounded_number_of_columns() {
    let members: Vec<String> = (0..1000).map(|i| format!("\"m{i}\": {i}")).collect();
    let text = format!(
        "{{\"tool\": \"t\", \"arguments\": {{}}, {}}}\n",
        members.join(", ")
    );
    let path = temp("wide", &text);
    let ctx = SessionContext::new();
    register_json_lines(&ctx, "calls", &path, &Tools::default()).unwrap();
    let schema = ctx.table("calls").await.unwrap().schema().clone();
    assert_eq!(schema.fields().len(), 4 + MAX_OTHER_COLUMNS);
    std::fs::remove_file(&path).unwrap();
    let missing = register_json_lines(&ctx, "none", &path, &Tools::default()).unwrap_err();
    assert!(
        missing.to_string().contains(path.to_str().unwrap()),
        "{missing}"
    );
}
