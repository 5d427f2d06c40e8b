//! Logs written to hurt: records whose size, names or numbers are meant
//! to exhaust memory, reach the terminal, or break the arithmetic. Memory
//! is proven by counting (copies held, entries kept), never by timing.

use std::sync::Arc;

use canon_cli::formats::{Extractor, Format, Located, Schema};
use serde_json::json;

/// A Chat Completions record whose one tool has a large schema and is
/// called `n` times.
fn many_calls(n: usize, schema_bytes: usize) -> String {
    let description = "x".repeat(schema_bytes);
    let calls: Vec<_> = (0..n)
        .map(|i| {
            json!({"id": format!("call_{i}"), "type": "function",
                "function": {"name": "t", "arguments": "{}"}})
        })
        .collect();
    json!({
        "request": {"tools": [{"type": "function", "function": {"name": "t",
            "parameters": {"type": "object", "description": description}}}]},
        "response": {"object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": calls}}]}
    })
    .to_string()
}

/// The `n` calls of [`many_calls`], as the extractor shares them.
fn many_shared_calls(n: usize, schema_bytes: usize) -> Vec<Located<Arc<str>>> {
    let found = Extractor::new(Format::OpenAiChat)
        .record_shared(1, &many_calls(n, schema_bytes))
        .unwrap();
    assert_eq!(found.len(), n);
    found
}

#[test]
fn the_calls_of_a_record_share_one_copy_of_the_schema() {
    let (n, bytes) = (1_500, 100_000);
    let found = many_shared_calls(n, bytes);
    let schemas: Vec<&Arc<str>> = found
        .iter()
        .map(|l| match &l.call.schema {
            Schema::Declared(schema) => schema,
            other => panic!("{other:?}"),
        })
        .collect();
    let first = schemas[0];
    assert!(first.len() > bytes);
    // One copy, held by the calls and nothing else.
    assert!(schemas.iter().all(|s| Arc::ptr_eq(s, first)));
    assert_eq!(Arc::strong_count(first), n);
}

/// An OTLP document of one span with `attributes`, in trace `trace`
/// (none when empty).
fn otlp(trace: &str, attributes: serde_json::Value) -> String {
    let mut span = json!({"spanId": "00f067aa0ba902b7", "name": "chat", "attributes": attributes});
    if !trace.is_empty() {
        span["traceId"] = json!(trace);
    }
    json!({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).to_string()
}

fn string(key: &str, value: &str) -> serde_json::Value {
    json!({"key": key, "value": {"stringValue": value}})
}

#[test]
fn otlp_documents_without_a_trace_id_do_not_share_call_ids() {
    let messages = json!([{"role": "assistant", "parts": [
        {"type": "tool_call", "id": "call_0", "name": "t", "arguments": {"a": 1}}]}])
    .to_string();
    let document = otlp("", json!([string("gen_ai.output.messages", &messages)]));
    let mut extractor = Extractor::new(Format::Otlp);
    let mut found = Vec::new();
    for line in 1..=3 {
        found.extend(extractor.record_shared(line, &document).unwrap());
    }
    found.extend(extractor.finish_shared());
    let lines: Vec<u64> = found.iter().map(|l| l.line).collect();
    assert_eq!(lines, [1, 2, 3]);
    // Within one document, the same id twice is one call.
    let twice = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"name": "chat", "attributes": [string("gen_ai.output.messages", &messages)]},
        {"name": "chat", "attributes": [string("gen_ai.output.messages", &messages)]}]}]}]})
    .to_string();
    assert_eq!(
        canon_cli::formats::calls(Format::Otlp, &twice)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn otlp_indices_are_read_only_in_their_canonical_form() {
    // `00` and `+0` would name index 0 too: which name won depended on the
    // order of a hash map.
    let document = otlp(
        "4bf92f3577b34da6a3ce929d0e0e4736",
        json!([
            string("llm.request.functions.0.name", "a"),
            string("llm.request.functions.00.name", "b"),
            string("llm.request.functions.+0.name", "c"),
            string(
                "llm.request.functions.0.parameters",
                r#"{"type": "object"}"#
            ),
            string("gen_ai.completion.0.tool_calls.0.name", "a"),
            string("gen_ai.completion.0.tool_calls.00.name", "b"),
            string("gen_ai.completion.0.tool_calls.0.arguments", "{}"),
            string("gen_ai.completion.0.tool_calls.+0.arguments", "[]"),
        ]),
    );
    for _ in 0..32 {
        let found = canon_cli::formats::calls(Format::Otlp, &document).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].tool, "a");
        assert_eq!(found[0].arguments.as_deref(), Some(r#""{}""#));
        assert!(matches!(found[0].schema, Schema::Declared(_)));
    }
}

/// Runs `canon replay` with `args` and `input` on standard input: (exit
/// success, stdout, stderr).
fn canon(args: &[&str], input: &str) -> (bool, String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_canon"))
        .arg("replay")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A temporary path for this test process.
fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("canon-hostile-{}-{name}", std::process::id()))
}

#[test]
fn input_text_reaches_the_terminal_escaped_and_short() {
    let evil = format!("\u{1b}[2J\nrm -rf /\u{2028}{}", "x".repeat(500));
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let long_key = format!("k\u{1b}]0;{}", "y".repeat(300));
    let mut lines = String::new();
    // Rejected (a key no schema declares, with a control character in it),
    // repaired, and malformed (no schema for the tool).
    lines.push_str(
        &json!({"tool": evil, "schema": schema, "arguments": {(long_key.clone()): 1}}).to_string(),
    );
    lines.push('\n');
    lines.push_str(&json!({"tool": evil, "schema": schema, "arguments": {"n": "7"}}).to_string());
    lines.push('\n');
    lines.push_str(&json!({"tool": evil, "arguments": {}}).to_string());
    lines.push('\n');
    let out = temp("escaped.jsonl");
    let (ok, stdout, stderr) = canon(
        &["--policy", "all", "--out", out.to_str().unwrap(), "-"],
        &lines,
    );
    assert!(ok, "{stderr}");
    for text in [&stdout, &stderr] {
        assert!(!text.contains('\u{1b}'), "{text}");
        assert!(!text.contains('\u{2028}'), "{text}");
        assert!(!text.contains("\nrm -rf"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() < 400), "{text}");
    }
    assert!(
        stdout.contains("\\u{1b}[2J\\nrm -rf /\\u{2028}"),
        "{stdout}"
    );
    assert!(stderr.contains("line 3: skipped"), "{stderr}");
    // --out keeps the exact text.
    let written = std::fs::read_to_string(&out).unwrap();
    let first: serde_json::Value = serde_json::from_str(written.lines().next().unwrap()).unwrap();
    assert_eq!(first["tool"], evil.as_str());
    std::fs::remove_file(&out).unwrap();
    // The shown form is idempotent and bounded.
    let once = canon_cli::formats::shown(&evil, 64);
    assert_eq!(once.chars().count(), 64);
    assert_eq!(canon_cli::formats::shown(&once, 64), once);
}

/// `n` canon lines, each calling a distinct tool with a long name, every
/// third call repaired.
fn distinct_tools(n: usize, from: usize) -> String {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let mut text = String::new();
    for i in from..from + n {
        let tool = format!("{i:06}{}", "t".repeat(2_000));
        let arguments = if i % 3 == 0 {
            json!({"n": [1]})
        } else {
            json!({"n": 1})
        };
        text.push_str(&json!({"tool": tool, "schema": schema, "arguments": arguments}).to_string());
        text.push('\n');
    }
    text
}

fn replay_text(text: &str) -> canon_cli::Report {
    canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default())
        .run(text.as_bytes(), |_| {}, |_| Ok(()))
        .unwrap()
}

#[test]
fn tools_counted_apart_are_capped() {
    let (cap, over) = (10_000, 50);
    let report = replay_text(&distinct_tools(cap + over, 0));
    assert_eq!(report.totals.calls, (cap + over) as u64);
    // The first 10,000 tools apart, the 50 after them together.
    assert_eq!(report.by_tool.len(), cap + 1);
    assert_eq!(report.by_tool["(other tools)"].calls, over as u64);
    let sum: u64 = report.by_tool.values().map(|c| c.calls).sum();
    assert_eq!(sum, report.totals.calls);
    // Names kept short: 64 characters at most, whatever the input.
    let held: usize = report.by_tool.keys().map(String::len).sum();
    assert!(held <= (cap + 1) * 64 * 3, "{held}");
    assert!(report.by_tool.keys().all(|k| k.chars().count() <= 64));

    // Under the cap, shards merge to exactly the whole.
    let whole = replay_text(&distinct_tools(300, 0));
    let merged = canon_cli::merge([
        replay_text(&distinct_tools(150, 0)),
        replay_text(&distinct_tools(150, 150)),
    ])
    .unwrap();
    assert_eq!(merged, whole);

    // Over it, the totals and the per-tool sum stay exact, and the cap holds.
    let a = replay_text(&distinct_tools(6_000, 0));
    let b = replay_text(&distinct_tools(6_000, 6_000));
    let merged = canon_cli::merge([a, b]).unwrap();
    assert_eq!(merged.totals.calls, 12_000);
    assert_eq!(merged.by_tool.len(), cap + 1);
    let sum: u64 = merged.by_tool.values().map(|c| c.calls).sum();
    assert_eq!(sum, 12_000);
}

#[test]
fn merge_refuses_crafted_summaries_without_panicking() {
    let line = r#"{"tool": "t", "schema": {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}, "arguments": {"names": "a"}}"#;
    let real = replay_text(&format!("{line}\n"));
    // Counts that overflow when added.
    let mut huge = real.clone();
    huge.totals.calls = u64::MAX;
    huge.totals.accepted_strictly = u64::MAX - 1;
    huge.totals.accepted_after_repair = 1;
    let error = canon_cli::merge([real.clone(), huge.clone()]).unwrap_err();
    assert_eq!((error.index, error.reason.as_str()), (1, "totals overflow"));
    assert_eq!(error.to_string(), "summary #2: totals overflow");
    // Line numbers that overflow when shifted.
    let mut long = real.clone();
    long.totals.lines = u64::MAX;
    let error = canon_cli::merge([long, real.clone()]).unwrap_err();
    assert_eq!(error.reason, "totals overflow");
    // A per-tool count that overflows.
    let mut tool = real.clone();
    tool.by_tool.get_mut("t").unwrap().calls = u64::MAX;
    assert!(canon_cli::merge([tool.clone(), tool]).is_err());
    // Totals that do not add up: more rejected than called, say.
    for bad in [
        |t: &mut canon_cli::Totals| t.accepted_strictly = 5,
        |t: &mut canon_cli::Totals| t.calls = 0,
        |t: &mut canon_cli::Totals| t.still_rejected = u64::MAX,
    ] {
        let mut inconsistent = real.clone();
        bad(&mut inconsistent.totals);
        let error = canon_cli::merge([real.clone(), inconsistent.clone()]).unwrap_err();
        assert_eq!(error.index, 1);
        assert!(
            error.to_string().starts_with("summary #2: inconsistent"),
            "{error}"
        );
        let error = canon_cli::merge([inconsistent]).unwrap_err();
        assert_eq!(error.index, 0);
    }
    // A real summary alone merges to itself.
    assert_eq!(canon_cli::merge([real.clone()]).unwrap(), real);
}

#[test]
fn the_format_is_told_from_the_first_records_or_said_not_to_be() {
    use canon_cli::formats::sniff;
    use std::io::Read;
    // A first line that is no record of any format does not decide.
    let text = format!("garbage\n{}\n", json!({"resourceSpans": []}));
    let (format, mut input) = sniff(text.as_bytes()).unwrap();
    assert_eq!(format, Some(Format::Otlp));
    let mut again = String::new();
    input.read_to_string(&mut again).unwrap();
    assert_eq!(again, text);
    // None told: the command says so once, and reads canon.
    let (ok, _, stderr) = canon(&["-"], "garbage\nmore garbage\n");
    assert!(ok, "{stderr}");
    assert_eq!(
        stderr.matches("could not tell the format from the first records; reading canon JSON Lines (name it with --format)").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_first_record_over_the_limit_tells_the_fix() {
    use canon_cli::formats::{sniff, MAX_RECORD};
    let text = format!("{}\n{{}}\n", "x".repeat(MAX_RECORD + (2 << 20)));
    let error = match sniff(text.as_bytes()) {
        Err(error) => error.to_string(),
        Ok((format, _)) => panic!("told {format:?}"),
    };
    assert_eq!(
        error,
        "the first record is over 64 MiB: name the format with --format"
    );
}

#[test]
fn out_errors_are_writing_errors() {
    let line = json!({"tool": "t", "schema": {"type": "object"}, "arguments": {}}).to_string();
    // /dev/full takes nothing: a write error, told as one.
    if std::path::Path::new("/dev/full").exists() {
        let many = format!("{line}\n").repeat(2_000);
        let (ok, _, stderr) = canon(&["--format", "canon", "--out", "/dev/full", "-"], &many);
        assert!(!ok);
        assert!(stderr.contains("writing --out /dev/full:"), "{stderr}");
        assert!(!stderr.contains("reading"), "{stderr}");
    }
}

#[test]
fn out_may_not_be_the_input() {
    let line = json!({"tool": "t", "schema": {"type": "object"}, "arguments": {}}).to_string();
    let input = temp("input.jsonl");
    std::fs::write(&input, format!("{line}\n")).unwrap();
    let path = input.to_str().unwrap();
    let (ok, _, stderr) = canon(&["--out", path, path], "");
    assert!(!ok);
    assert!(stderr.contains("--out is the input file"), "{stderr}");
    // Nor the file standard input reads (`--out x - < x`).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_canon"))
        .args(["replay", "--out", path, "-"])
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("--out is the input file"), "{stderr}");
    // The input is left whole.
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        format!("{line}\n")
    );
    std::fs::remove_file(&input).unwrap();
}

#[test]
fn a_cut_off_document_does_not_swallow_the_next() {
    use canon_cli::formats::Records;
    let text = "{\n  \"resourceSpans\": [\n    {\"scopeSpans\": []\n{\n  \"resourceSpans\": []\n}\n{\n  \"resourceSpans\": []\n}\n";
    let records: Vec<_> = Records::new(text.as_bytes()).map(Result::unwrap).collect();
    assert_eq!(records.len(), 3);
    assert_eq!(
        records.iter().map(|r| r.line).collect::<Vec<_>>(),
        [1, 4, 7]
    );
    let error = records[0].text.clone().unwrap_err();
    assert!(
        error.contains("cut off") && error.contains("line 4"),
        "{error}"
    );
    assert!(records[1].text.is_ok() && records[2].text.is_ok());
}

#[test]
fn a_call_with_no_schema_anywhere_says_so() {
    let record = json!({"response": {"object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "t", "arguments": "{}"}}]}}]}})
    .to_string();
    let (ok, stdout, stderr) = canon(&["--json", "--format", "openai-chat", "-"], &record);
    assert!(ok, "{stderr}");
    let report: canon_cli::Report = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        report.skipped_by_reason.keys().collect::<Vec<_>>(),
        ["no schema in the trace or --tools"]
    );
}

/// A call line that is accepted as it stands.
fn good_line() -> String {
    json!({"tool": "t", "schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "arguments": {"n": 1}})
    .to_string()
}

/// Replays `input` on `jobs` jobs, holding no line over `max_line` bytes:
/// the report, the malformed lines, the outcomes, and the peak of bytes
/// allocated and not yet freed on this thread while it ran.
fn replay_bounded(
    input: impl std::io::BufRead,
    jobs: usize,
    max_line: usize,
) -> (
    canon_cli::Report,
    Vec<canon_cli::LineError>,
    Vec<canon_cli::CallOutcome>,
    u64,
) {
    let mut replay = canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default())
        .jobs(jobs)
        .max_line(max_line);
    let (mut errors, mut outcomes, mut report) = (Vec::new(), Vec::new(), None);
    let counted = allocation_counter::measure(|| {
        report = Some(
            replay
                .run_with(
                    input,
                    |_| {},
                    |o| {
                        outcomes.push(o.clone());
                        Ok(())
                    },
                    |e| errors.push(e.clone()),
                )
                .unwrap(),
        );
    });
    (report.unwrap(), errors, outcomes, counted.bytes_max)
}

#[test]
fn a_line_over_the_limit_is_told_by_number_and_the_next_replayed() {
    use std::io::{BufReader, Cursor, Read};
    let (max, long) = (1 << 20, 16 << 20);
    for jobs in [1, 2] {
        // A good line, 16 MiB of one line never held whole (not even by
        // the test), and a good line.
        let first = format!("{}\n{{\"tool\": \"", good_line());
        let rest = format!("\"}}\n{}\n", good_line());
        let input = Cursor::new(first)
            .chain(std::io::repeat(b'x').take(long))
            .chain(Cursor::new(rest));
        let input = BufReader::with_capacity(1 << 16, input);
        let (report, errors, outcomes, peak) = replay_bounded(input, jobs, max);
        assert_eq!(report.totals.lines, 3);
        assert_eq!(report.totals.calls, 2);
        assert_eq!(report.totals.malformed_lines, 1);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, 2);
        assert_eq!(
            errors[0].reason,
            "line over 1 MiB, the most a line may hold"
        );
        assert_eq!(outcomes.iter().map(|o| o.line).collect::<Vec<_>>(), [1, 3]);
        // At most the limit held for the line, not its 16 MiB.
        assert!(peak < 3 * max as u64, "peak {peak} bytes, jobs {jobs}");
    }
}

#[test]
fn the_line_limit_is_64_mib_and_holds_lines_up_to_it() {
    use canon_cli::formats::MAX_RECORD;
    // The default is the trace formats' limit.
    assert!(format!(
        "{:?}",
        canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default())
    )
    .contains(&format!("max_line: {MAX_RECORD}")));
    // A line of exactly the limit is read; one byte more is not.
    let line = good_line();
    for (max, malformed) in [(line.len(), 0), (line.len() - 1, 1)] {
        for jobs in [1, 2] {
            let text = format!("{line}\n{line}");
            let (report, errors, _, _) = replay_bounded(text.as_bytes(), jobs, max);
            assert_eq!(report.totals.malformed_lines, malformed * 2, "{errors:?}");
            assert_eq!(report.totals.calls, 2 - malformed * 2);
        }
    }
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_dropped() {
    let text = format!("\u{feff}{}\n{}\n", good_line(), good_line());
    for jobs in [1, 2] {
        let (report, errors, _, _) = replay_bounded(text.as_bytes(), jobs, 1 << 20);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(report.totals.accepted_strictly, 2);
    }
    // Elsewhere it is no JSON.
    let text = format!("{}\n\u{feff}{}\n", good_line(), good_line());
    let (_, errors, _, _) = replay_bounded(text.as_bytes(), 1, 1 << 20);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].line, 2);
}

/// `n` canon lines, each with a distinct schema of about `bytes` bytes.
fn distinct_schemas(n: usize, bytes: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        let schema = json!({"type": "object", "description": format!("{i}{}", "d".repeat(bytes)),
            "properties": {"n": {"type": "integer"}}});
        text.push_str(&json!({"tool": "t", "schema": schema, "arguments": {"n": 1}}).to_string());
        text.push('\n');
    }
    text
}

#[test]
fn the_schema_cache_is_bounded_in_bytes() {
    use canon_cli::{CACHED_SCHEMA_MAX, CACHE_BYTES, CACHE_CAPACITY};
    // 24 schemas of 200 KB: 4.8 MB of text, more than the budget.
    let text = distinct_schemas(24, 200_000);
    for jobs in [1, 2] {
        let mut replay =
            canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default()).jobs(jobs);
        let report = replay.run(text.as_bytes(), |_| {}, |_| Ok(())).unwrap();
        assert_eq!(report.totals.accepted_strictly, 24);
        let (held, bytes) = (replay.cached_schemas(), replay.cached_schema_bytes());
        assert!(bytes <= CACHE_BYTES, "{bytes}");
        assert!((CACHE_BYTES / 200_100 - 1..24).contains(&held), "{held}");
        assert!(bytes > held * 200_000, "{bytes} for {held}");
    }
    // A schema over the size cached is compiled, not cached.
    let large = distinct_schemas(3, CACHED_SCHEMA_MAX);
    let mut replay = canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default());
    let report = replay.run(large.as_bytes(), |_| {}, |_| Ok(())).unwrap();
    assert_eq!(report.totals.accepted_strictly, 3);
    assert_eq!(
        (replay.cached_schemas(), replay.cached_schema_bytes()),
        (0, 0)
    );
    // A budget set lower holds: the least recently used go first.
    let small = distinct_schemas(40, 1_000);
    let mut replay = canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default())
        .cache_bytes(10_000);
    replay.run(small.as_bytes(), |_| {}, |_| Ok(())).unwrap();
    assert!(replay.cached_schema_bytes() <= 10_000);
    assert!((5..10).contains(&replay.cached_schemas()));
    // Small schemas are bounded by number, as before.
    let many = distinct_schemas(CACHE_CAPACITY + 100, 0);
    let mut replay = canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default());
    replay.run(many.as_bytes(), |_| {}, |_| Ok(())).unwrap();
    assert_eq!(replay.cached_schemas(), CACHE_CAPACITY);
    let per = replay.cached_schema_bytes() / CACHE_CAPACITY;
    assert!((50..200).contains(&per), "{per}");
    // Shrinking the capacity counts the evicted bytes out.
    let replay = replay.cache_capacity(10);
    assert_eq!(replay.cached_schemas(), 10);
    assert!(replay.cached_schema_bytes() <= 10 * 200);
}

#[test]
fn a_record_of_many_calls_hashes_its_schema_once() {
    let (n, bytes) = (1_500, 100_000);
    let found = many_shared_calls(n, bytes);
    // The calls as the record shares them.
    let mut replay = canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default());
    let first = replay.replay_shared(1, &found[0].call).unwrap();
    let once = replay.schema_hashes();
    assert!(once <= 2, "{once}");
    let mut shared = vec![first];
    for l in &found[1..] {
        shared.push(replay.replay_shared(l.line, &l.call).unwrap());
    }
    assert_eq!(replay.schema_hashes(), once);
    // The same calls borrowed, as `canon replay` hands them over.
    let mut replay = canon_cli::Replay::new(canon::Policy::DEFAULT, canon_cli::Tools::default());
    let mut borrowed = Vec::new();
    for l in &found {
        let (schema, arguments) = l.call.bindable().unwrap();
        borrowed.push(replay.replay_call(
            l.line,
            canon_cli::CallRef {
                tool: &l.call.tool,
                schema,
                arguments,
                label: l.call.label.as_deref(),
            },
        ));
        assert_eq!(replay.schema_hashes(), once);
    }
    assert_eq!(shared, borrowed);
    assert!(shared.iter().all(|o| o.outcome == "accepted"));
    // Another schema between two calls is looked up, and the first found
    // again in the cache.
    let other = many_calls(1, 10);
    let other = Extractor::new(Format::OpenAiChat)
        .record_shared(2, &other)
        .unwrap();
    replay.replay_shared(2, &other[0].call).unwrap();
    replay.replay_shared(1, &found[0].call).unwrap();
    assert_eq!(replay.schema_hashes(), 2 * once + 1);
    // A call that cannot be bound as it stands is not replayed.
    let mut unknown = found[0].call.clone();
    unknown.schema = Schema::Unknown;
    assert_eq!(replay.replay_shared(1, &unknown), None);
}

#[test]
fn a_missing_tool_is_named_escaped_and_short() {
    let evil = format!("\u{1b}[2J\n\u{2028}\u{202e}{}", "x".repeat(500));
    let line = json!({"tool": evil, "arguments": {}}).to_string();
    for jobs in [1, 2] {
        let (_, errors, _, _) = replay_bounded(line.as_bytes(), jobs, 1 << 20);
        assert_eq!(errors.len(), 1);
        let reason = &errors[0].reason;
        assert!(
            reason.starts_with("no `schema`, and no tool `\\u{1b}[2J\\n\\u{2028}\\u{202e}xx"),
            "{reason}"
        );
        assert!(reason.chars().count() < 120, "{reason}");
        assert!(!reason
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{202e}'));
    }
}

/// Standard error and standard output closed by their readers (`| head`):
/// no panic, and a closed output is no failure.
#[test]
fn closed_output_streams_neither_panic_nor_fail() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let input = "x\n".repeat(20_000);
    for json in [false, true] {
        let mut args = vec!["replay", "--format", "canon", "-"];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_canon"))
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Both readers gone before a byte is written.
        drop(child.stdout.take());
        drop(child.stderr.take());
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(input.as_bytes());
        drop(stdin);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "json: {json}");
    }
}

#[test]
fn summaries_of_other_versions_or_tools_are_not_merged() {
    let line = json!({"tool": "t", "schema": {"type": "object"}, "arguments": {}}).to_string();
    let real = replay_text(&format!("{line}\n"));
    assert_eq!(real.canon_version, env!("CARGO_PKG_VERSION"));
    let mut older = real.clone();
    older.canon_version = String::new();
    let error = canon_cli::merge([real.clone(), older]).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "summary #2: written by an unrecorded version, the first by canon-cli {}: \
             replay every shard with one build",
            env!("CARGO_PKG_VERSION")
        )
    );
    let mut other_tools = real.clone();
    other_tools.tools = "0123456789abcdef".into();
    let error = canon_cli::merge([real.clone(), other_tools]).unwrap_err();
    assert!(error.reason.contains("other tool declarations"), "{error}");
    // The digest is the declarations', whatever their order in the file.
    let a = canon_cli::Tools::parse(
        r#"[{"name": "a", "input_schema": {"type": "object"}}, {"name": "b", "input_schema": {"type": "object"}}]"#,
    )
    .unwrap();
    let b = canon_cli::Tools::parse(
        r#"[{"name": "b", "input_schema": {"type": "object"}}, {"name": "a", "input_schema": {"type": "object"}}]"#,
    )
    .unwrap();
    assert_eq!(a.digest(), b.digest());
    assert_eq!(a.digest().len(), 16);
    // ... and whatever the order of each schema's keys.
    let c = canon_cli::Tools::parse(
        r#"[{"name": "a", "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}]"#,
    )
    .unwrap();
    let d = canon_cli::Tools::parse(
        r#"[{"name": "a", "input_schema": {"required": ["n"], "properties": {"n": {"type": "integer"}}, "type": "object"}}]"#,
    )
    .unwrap();
    assert_eq!(c.digest(), d.digest());
    assert_ne!(a.digest(), c.digest());
    assert_eq!(canon_cli::Tools::default().digest(), "");
}
