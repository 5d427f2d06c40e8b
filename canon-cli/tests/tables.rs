//! `canon replay` on tables of calls and `canon sql`: the same calls as
//! JSON Lines and as Parquet give the same report and the same per-call
//! output; a single input is also the table `calls`; results print or are
//! written as Parquet or CSV.
#![cfg(feature = "datafusion")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use canon_cli::{Report, Tools, SAMPLE_CALLS, SAMPLE_TOOLS};
use serde_json::Value;

fn canon(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_canon"))
        .args(args)
        .output()
        .unwrap()
}

/// Standard output of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let out = canon(args);
    assert!(
        out.status.success(),
        "canon {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Standard error of a run that must fail.
fn fails(args: &[&str]) -> String {
    let out = canon(args);
    assert!(!out.status.success(), "canon {args:?} succeeded");
    String::from_utf8(out.stderr).unwrap()
}

fn report(args: &[&str]) -> Report {
    let mut all = vec!["replay", "--json"];
    all.extend(args);
    serde_json::from_str(&ok(&all)).unwrap()
}

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!("canon-tables-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The sample calls, each line with its tool's schema, and a line that
/// is not JSON.
fn sample_with_schemas() -> String {
    let tools = Tools::parse(SAMPLE_TOOLS).unwrap();
    let mut text = String::new();
    for (i, line) in SAMPLE_CALLS.lines().enumerate() {
        let mut call: Value = serde_json::from_str(line).unwrap();
        let tool = call["tool"].as_str().unwrap().to_owned();
        call["schema"] = tools.get(&tool).unwrap().clone();
        text.push_str(&call.to_string());
        text.push('\n');
        if i == 2 {
            text.push_str("not a call\n");
        }
    }
    text
}

/// `input` written as Parquet by `canon sql`, in the order of its lines,
/// with the column `label`.
fn to_parquet(input: &str, out: &str, label: &str) {
    ok(&[
        "sql",
        &format!("SELECT tool, schema, arguments, {label} AS label FROM calls ORDER BY line"),
        input,
        "--out",
        out,
    ]);
}

#[test]
fn the_same_calls_as_json_lines_and_parquet_give_the_same_report_and_outcomes() {
    let dir = Dir::new("same");
    let lines = dir.path("calls.jsonl");
    std::fs::write(&lines, sample_with_schemas()).unwrap();
    let parquet = dir.path("calls.parquet");
    to_parquet(&lines, &parquet, "note");
    let expected = report(&[&lines]);
    assert_eq!(expected.totals.malformed_lines, 1);
    assert!(expected.totals.accepted_after_repair > 0);
    assert_eq!(report(&[&parquet]), expected);
    assert_eq!(report(&[&parquet, "--jobs", "1"]), expected);
    // The per-call output too.
    let (a, b) = (dir.path("a.out"), dir.path("b.out"));
    ok(&["replay", &lines, "--out", &a]);
    ok(&["replay", &parquet, "--out", &b, "--label-column", "label"]);
    let (a, b) = (
        std::fs::read_to_string(a).unwrap(),
        std::fs::read_to_string(b).unwrap(),
    );
    assert_eq!(a.lines().count(), 17);
    assert_eq!(a, b);
    // And the printed summary, but for the source it names.
    let summary = ok(&["replay", &parquet]);
    assert!(
        summary.contains(&format!("17 calls from {parquet}")),
        "{summary}"
    );
    assert_eq!(
        summary.replace(&parquet, "X"),
        ok(&["replay", &lines]).replace(&lines, "X")
    );
}

#[test]
fn arguments_past_the_bound_give_the_same_outcome_in_json_lines_and_parquet() {
    let dir = Dir::new("bound");
    let schema = r#"{"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}"#;
    let long = "x".repeat(canon_cli::MAX_ARGUMENTS_TEXT);
    // Valid, but past the bound: as an object, and as OpenAI's JSON text.
    let text = format!(
        "{{\"tool\": \"t\", \"schema\": {schema}, \"arguments\": {{\"names\": [\"{long}\"]}}, \"note\": \"object\"}}\n\
         {{\"tool\": \"t\", \"schema\": {schema}, \"arguments\": \"{{\\\"names\\\": \\\"{long}\\\"}}\"}}\n\
         {{\"tool\": \"t\", \"schema\": {schema}, \"arguments\": {{\"names\": \"short\"}}}}\n"
    );
    let lines = dir.path("calls.jsonl");
    std::fs::write(&lines, text).unwrap();
    let parquet = dir.path("calls.parquet");
    to_parquet(&lines, &parquet, "note");
    let expected = report(&[&lines]);
    assert_eq!(expected.totals.still_rejected, 2, "{expected:?}");
    assert_eq!(expected.still_rejected_by_kind["too_large"].calls, 2);
    assert_eq!(expected.totals.accepted_after_repair, 1);
    assert_eq!(report(&[&parquet]), expected);
    assert_eq!(report(&[&lines, "--jobs", "1"]), expected);
}

#[test]
fn columns_are_renamed_by_flags_and_a_missing_one_is_named() {
    let dir = Dir::new("columns");
    let lines = dir.path("calls.jsonl");
    std::fs::write(&lines, sample_with_schemas()).unwrap();
    let parquet = dir.path("renamed.parquet");
    ok(&[
        "sql",
        "SELECT tool AS name, schema AS input_schema, arguments AS input FROM calls ORDER BY line",
        &lines,
        "--out",
        &parquet,
    ]);
    let renamed = report(&[
        &parquet,
        "--tool-column",
        "name",
        "--schema-column",
        "input_schema",
        "--arguments-column",
        "input",
    ]);
    assert_eq!(renamed, report(&[&lines]));
    let error = fails(&["replay", &parquet]);
    assert_eq!(
        error,
        format!(
            "canon replay: {parquet} has no column `tool` (its columns: `name`, \
             `input_schema`, `input`): name the column with --tool-column\n"
        )
    );
}

#[test]
fn hostile_files_are_refused_with_the_file_named() {
    let dir = Dir::new("hostile");
    let lines = dir.path("calls.jsonl");
    std::fs::write(&lines, sample_with_schemas()).unwrap();
    let parquet = dir.path("calls.parquet");
    to_parquet(&lines, &parquet, "note");
    // Cut short: the footer is gone.
    let bytes = std::fs::read(&parquet).unwrap();
    let cut = dir.path("cut.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    for command in ["replay", "sql"] {
        let mut args = vec![command];
        if command == "sql" {
            args.push("SELECT count(*) FROM calls");
        }
        args.push(&cut);
        let error = fails(&args);
        assert!(
            error.starts_with(&format!(
                "canon {command}: {cut}: not a readable Parquet file"
            )),
            "{error}"
        );
    }
    // A row group over the bound on its arguments' text.
    let error = fails(&["replay", &parquet, "--max-row-group", "0"]);
    assert!(
        error.contains(&format!("{parquet}: row group 0 (of 1, 18 rows) holds ")),
        "{error}"
    );
    assert!(error.contains("(--max-row-group)"), "{error}");
    assert_eq!(report(&[&parquet, "--max-row-group", "1"]).totals.calls, 17);
    // /dev/full takes nothing: a write error, told as one.
    if Path::new("/dev/full").exists() {
        let error = fails(&["replay", &parquet, "--out", "/dev/full"]);
        assert!(
            error.starts_with("canon replay: writing --out /dev/full:"),
            "{error}"
        );
    }
}

#[test]
fn a_hive_partitioned_directory_replays_as_one_table() {
    let dir = Dir::new("hive");
    let lines = dir.path("calls.jsonl");
    let text = sample_with_schemas();
    let (first, rest) = text.split_at(text.match_indices('\n').nth(4).unwrap().0 + 1);
    std::fs::write(&lines, &text).unwrap();
    for (part, (month, text)) in [("11", first), ("12", rest)].into_iter().enumerate() {
        let piece = dir.path(&format!("piece{part}.jsonl"));
        std::fs::write(&piece, text).unwrap();
        let folder = dir.0.join(format!("table/year=2026/month={month}"));
        std::fs::create_dir_all(&folder).unwrap();
        to_parquet(
            &piece,
            folder.join("part-0.parquet").to_str().unwrap(),
            "note",
        );
    }
    let table = dir.path("table");
    assert_eq!(report(&[&table]), report(&[&lines]));
    // In SQL, the partitions are columns.
    let counts = ok(&[
        "sql",
        "SELECT month, count(*) AS calls FROM \"table\" GROUP BY month ORDER BY month",
        &table,
    ]);
    assert_eq!(
        counts,
        "+-------+-------+\n\
         | month | calls |\n\
         +-------+-------+\n\
         | 11    | 5     |\n\
         | 12    | 13    |\n\
         +-------+-------+\n"
    );
}

#[test]
fn sql_names_tables_after_files_and_writes_csv() {
    let dir = Dir::new("sql");
    let lines = dir.path("sample.jsonl");
    std::fs::write(&lines, SAMPLE_CALLS).unwrap();
    let tools = dir.path("tools.json");
    std::fs::write(&tools, SAMPLE_TOOLS).unwrap();
    let parquet = dir.path("twice.parquet");
    ok(&[
        "sql",
        "SELECT tool, schema, arguments FROM calls UNION ALL SELECT tool, schema, arguments FROM sample",
        &lines,
        "--tools",
        &tools,
        "--out",
        &parquet,
    ]);
    // Two inputs: each its own table, no `calls`.
    let counts = ok(&[
        "sql",
        "SELECT (SELECT count(*) FROM sample) AS lines, (SELECT count(*) FROM twice) AS rows",
        &lines,
        &parquet,
    ]);
    assert!(counts.contains("| 17    | 34   |"), "{counts}");
    let error = fails(&["sql", "SELECT count(*) FROM calls", &lines, &parquet]);
    assert!(error.contains("canon sql:"), "{error}");
    assert!(error.contains("calls"), "{error}");
    // canon_bind over the table, written as CSV.
    let csv = dir.path("outcomes.csv");
    ok(&[
        "sql",
        "SELECT canon_bind(schema, arguments)['outcome'] AS outcome, count(*) AS calls \
         FROM calls GROUP BY 1 ORDER BY 1",
        &parquet,
        "--out",
        &csv,
    ]);
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "outcome,calls\nrejected,22\nrepaired,8\nstrict,4\n"
    );
    // Standard error is no terminal here: no progress is drawn on it.
    for args in [
        vec!["sql", "SELECT count(*) FROM calls", &parquet],
        vec!["replay", &parquet],
        vec!["replay", &parquet, "--out", &dir.path("quiet.out")],
    ] {
        let out = canon(&args);
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{args:?}");
    }
    // Printed rows are bounded; the rest are counted.
    let few = ok(&[
        "sql",
        "SELECT line FROM calls ORDER BY line",
        &lines,
        "--max-rows",
        "2",
    ]);
    assert!(few.contains("| 2    |"), "{few}");
    assert!(!few.contains("| 3    |"), "{few}");
    assert!(
        few.ends_with("(15 more rows: --max-rows to print more, --out to write them all)\n"),
        "{few}"
    );
    // Two inputs of one name are refused, named.
    let other = dir.0.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let same = other.join("sample.jsonl");
    std::fs::write(&same, SAMPLE_CALLS).unwrap();
    let error = fails(&["sql", "SELECT 1", &lines, same.to_str().unwrap()]);
    assert!(
        error.contains("would both be the table `sample`"),
        "{error}"
    );
    let error = fails(&["sql", "SELECT 1", &lines, "--out", &dir.path("x.txt")]);
    assert!(
        error.contains("name a `.parquet` or `.csv` file"),
        "{error}"
    );
}

#[test]
fn the_corpus_as_parquet_gives_the_report_of_its_json_lines() {
    let Ok(corpus) = std::env::var("CANON_CORPUS") else {
        eprintln!("CANON_CORPUS is not set: the corpus is not replayed");
        return;
    };
    assert!(Path::new(&corpus).exists());
    let dir = Dir::new("corpus");
    let parquet = dir.path("corpus.parquet");
    to_parquet(&corpus, &parquet, "class");
    let expected = report(&[&corpus]);
    assert_eq!(expected.totals.calls, 19_747);
    assert_eq!(report(&[&parquet]), expected);
    let counted = ok(&["sql", "SELECT count(*) AS n FROM corpus", &parquet]);
    assert!(counted.contains("| 19747 |"), "{counted}");
}
