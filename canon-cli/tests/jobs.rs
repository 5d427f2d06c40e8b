//! The replay engine that reads lines borrowing gives exactly the outcomes
//! of the engine that parsed every line into a `Value` (kept in
//! `old_replay`), on the sample, on hostile lines and on the real corpus;
//! `--jobs N` gives exactly the output of one job, for canon's JSON Lines
//! and for each trace format; the schema cache never holds more than its
//! capacity.

mod old_replay;

use std::fs::File;
use std::io::BufReader;
use std::process::Command;

use canon::toolbox::ViolationKind;
use canon::Policy;
use canon_cli::formats::Format;
use canon_cli::{
    CallOutcome, CallRef, LineError, Replay, Report, Tally, Tools, SAMPLE_CALLS, SAMPLE_TOOLS,
};
use old_replay::OldReplay;

/// Everything a run tells: the report, each call's outcome, each malformed
/// line, in order.
#[derive(Debug, PartialEq)]
struct Run {
    report: Report,
    outcomes: Vec<CallOutcome>,
    malformed: Vec<LineError>,
    progress: u64,
}

/// The callbacks a replay tells of what it finds.
type Callbacks<'a> = (
    &'a mut dyn FnMut(u64),
    &'a mut dyn FnMut(&CallOutcome) -> std::io::Result<()>,
    &'a mut dyn FnMut(&LineError),
);

/// Everything `replay` tells through the callbacks it is given, and how
/// it ended (the report is the default one when it failed).
fn told(
    replay: impl FnOnce(Callbacks<'_>) -> std::io::Result<Report>,
) -> (Run, std::io::Result<()>) {
    let (mut outcomes, mut malformed, mut progress) = (Vec::new(), Vec::new(), 0);
    let ended = replay((
        &mut |bytes| progress += bytes,
        &mut |o| {
            outcomes.push(o.clone());
            Ok(())
        },
        &mut |e| malformed.push(e.clone()),
    ));
    let (report, ended) = match ended {
        Ok(report) => (report, Ok(())),
        Err(error) => (Report::default(), Err(error)),
    };
    let run = Run {
        report,
        outcomes,
        malformed,
        progress,
    };
    (run, ended)
}

fn new_run(replay: &mut Replay, input: impl std::io::BufRead) -> Run {
    let (run, ended) = told(|(p, c, m)| replay.run_with(input, p, c, m));
    ended.unwrap();
    run
}

fn old_run(mut replay: OldReplay, input: impl std::io::BufRead) -> Run {
    let (run, ended) = told(|(p, c, m)| replay.run_with(input, p, c, m));
    ended.unwrap();
    run
}

/// The policies the corpus and sample are replayed with.
fn policies() -> [Policy; 3] {
    [Policy::DEFAULT, Policy::all(), Policy::STRICT]
}

/// `input` replayed by the old engine and by the new one with 1 and 3
/// jobs, with closed and open objects: all the same.
fn same_as_old(input: &str, tools: &Tools) {
    for policy in policies() {
        for open in [false, true] {
            let old = old_run(
                OldReplay::new(policy, tools.clone()).open_objects(open),
                input.as_bytes(),
            );
            for jobs in [1, 3] {
                let mut replay = Replay::new(policy, tools.clone())
                    .open_objects(open)
                    .jobs(jobs);
                let new = new_run(&mut replay, input.as_bytes());
                assert_eq!(new, old, "policy {policy}, open {open}, {jobs} jobs");
            }
        }
    }
}

#[test]
fn the_sample_replays_as_before() {
    same_as_old(SAMPLE_CALLS, &Tools::parse(SAMPLE_TOOLS).unwrap());
}

/// `[[[…]]]`, `n` deep.
fn nest(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

/// Lines that a borrowing reader could read otherwise than a `Value`
/// parse: each must come out exactly as before.
fn hostile_lines() -> Vec<String> {
    let schema = r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}, "n": {"type": "integer"}}}"#;
    let call = |rest: &str| format!(r#"{{"tool": "t", "schema": {schema}, {rest}}}"#);
    let mut lines = vec![
        call(r#""arguments": {"tags": "a"}"#),
        call(r#""arguments": {"tags": "a", "tags": ["b"]}"#),
        call(r#""arguments": "{\"tags\": \"a\", \"tags\": 1}""#),
        call(r#""arguments": {"n": 1e400}"#),
        call(r#""arguments": {"n": 1e-400}"#),
        call(r#""arguments": {"n": 12345678901234567890123}"#),
        call(r#""arguments": {"n": 1}, "extra": 1e400"#),
        call(r#""arguments": {"n": 1}, "extra": "\ud800""#),
        call(r#""arguments": {"n": 1}, "extra": "\ud83d\ude00""#),
        call(r#""arguments": {"n": 1}, "extra": "a\u0000b""#),
        call(r#""arguments": {"n": 1}, "extra": {"a": [1, {"b": null}], "a": true}"#),
        call(r#""arguments": {"n": 1}, "class": 5, "note": "the note""#),
        call(r#""arguments": {"n": 1}, "class": "first", "class": "second""#),
        call(r#""arguments": {"n": 1}, "cl\u0061ss": "escaped key""#),
        call(r#""arguments": {"n": 1}} trailing"#),
        call(r#""arguments": {"n": 1}}   "#),
        call(r#""arguments": {"n": 1}"#).replace(' ', "\t"),
        call(r#""arguments": {"n": 1}"#) + "\r",
        call(r#""arguments": null"#),
        call(r#""arguments": "  null ""#),
        call(r#""arguments": """#),
        call(r#""arguments": 5"#),
        call(r#""arguments": [1]"#),
        call(r#""arguments": "not json""#),
        call(r#""arguments": "{\"n\": 1e400}""#),
        call(r#""arguments": {"n": 1}, "arguments": {"n": "x"}"#),
        call(r#""arguments": {"n": 1}, "schema": {"type": "object"}"#),
        call(r#""arguments": {"n": 1}, "schema": {"type": 5}"#),
        call(r#""arguments": {"n": 1}, "schema": {"type": "object", "x": 1e400}"#),
        call(r#""arguments": {"n": 1}, "schema": {"type": "object", "x": "\udc00"}"#),
        call(r#""arguments": {"n": 1}, "tool": 5"#),
        call(r#""arguments": {"n": 1}, "tool": 5, "name": "named""#),
        call(r#""arguments": {"n": 1}, "tool": "t\u00e9\"q""#),
        call(r#""arguments": {"n": 1}, "schema": null"#),
        call(r#""arguments": {"n": 1}, "schema": "text""#),
        call(r#""arguments": {"n": 1}, "schema": true"#),
        call(r#""arguments": {"n": 1}, "schema": false"#),
        call(r#""arguments": {"n": 1}, "schema": {"type": "object"}, "schema": {"type": 5}"#),
        call(&format!(
            r#""arguments": {{"n": 1}}, "huge": "{}""#,
            "x".repeat(1 << 20)
        )),
        call(&format!(
            r#""arguments": {{"tags": "{}"}}"#,
            "y".repeat(1 << 20)
        )),
        format!(r#"{{"tool": "t", "schema": {schema}}}"#),
        format!(r#"{{"schema": {schema}, "arguments": {{}}}}"#),
        r#"{"tool": "nowhere", "arguments": {}}"#.to_owned(),
        r#"{"tool": "get_weather", "arguments": {"days": "3"}}"#.to_owned(),
        r#"{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}"#.to_owned(),
        r#"{"tool": "get_weather"}"#.to_owned(),
        "[1, 2]".to_owned(),
        "5".to_owned(),
        "\"text\"".to_owned(),
        "null".to_owned(),
        "{".to_owned(),
        "{}".to_owned(),
        "{\"tool\": \"t\",}".to_owned(),
        "\u{a0}".to_owned(),
        "\u{2028}".to_owned(),
    ];
    // Nesting at serde_json's limit (128 levels in all, the line's object
    // the first), in every member.
    for depth in [120, 125, 126, 127, 128, 200, 5000] {
        lines.push(format!(
            r#"{{"tool": "t", "schema": {{"type": "object", "x": {}}}, "arguments": {{}}}}"#,
            nest(depth - 1)
        ));
        lines.push(call(&format!(
            r#""arguments": {{"n": {}}}"#,
            nest(depth - 1)
        )));
        lines.push(call(&format!(
            r#""arguments": {{"n": 1}}, "issues": {}"#,
            nest(depth)
        )));
        lines.push(call(&format!(
            r#""arguments": {{"n": 1}}, "class": {}"#,
            nest(depth)
        )));
        lines.push(call(&format!(
            r#""arguments": "{{\"n\": {}}}""#,
            nest(depth - 1)
        )));
    }
    // The same deep schema again: a hit must not skip the depth check.
    let deep = format!(
        r#"{{"tool": "t", "schema": {{"type": "object", "x": {}}}, "arguments": {{}}}}"#,
        nest(126)
    );
    lines.push(deep.clone());
    lines.push(deep);
    // A schema whose text is cached is found before the line is read (at
    // its first `"schema":`, written without a space): each line again so,
    // and lines where that first `"schema":` is not the line's schema.
    // The schema's end is first looked for before `,"arguments":`: each
    // line again with that written without a space too.
    let compact: Vec<String> = lines
        .iter()
        .map(|line| line.replace("\"schema\": ", "\"schema\":"))
        .collect();
    let tight: Vec<String> = compact
        .iter()
        .map(|line| line.replace(", \"arguments\": ", ",\"arguments\":"))
        .collect();
    lines.extend(compact);
    lines.extend(tight);
    let s = schema;
    lines.extend([
        format!(r#"{{"tool":"t","arguments":{{"schema":{s}}},"schema":{s}}}"#),
        format!(
            r#"{{"tool":"t","arguments":{{"schema":{s},"n":"1"}},"schema":{{"type":"object"}}}}"#
        ),
        format!(r#"{{"tool":"t","x\"schema":{s},"schema":{{"type":"object"}},"arguments":{{}}}}"#),
        format!(r#"{{"tool":"t","x\\":"schema":{s},"arguments":{{}}}}"#),
        format!(r#"{{"tool":"t","x":"a\\","schema":{s},"arguments":{{"tags":"a"}}}}"#),
        format!(r#"{{"tool":"t","schema":{s},"schema":{s},"arguments":{{}}}}"#),
        format!(r#"{{"tool":"t","sch\u0065ma":{s},"schema":{s},"arguments":{{}}}}"#),
        format!(r#"{{"tool":"t","schema":{s}x,"arguments":{{}}}}"#),
        format!(r#"{{"tool":"t","schema":{s}0,"arguments":{{}}}}"#),
        format!(r#"{{"tool":"t","schema":{s} ,"arguments":{{"tags":"a"}}}}"#),
        format!(r#"{{"tool":"t","schema":{s}}}"#),
        format!(r#"{{"tool":"t","schema":{s},"arguments":{{}}"#),
        format!(r#"["schema":{s}]"#),
        format!(r#"{{"tool":"t","note":"\"schema\":{s}","schema":{s},"arguments":{{}}}}"#),
        r#"{"tool":"t","schema":{"type":"object","properties":{}},"arguments":{}}"#.to_owned(),
        // `,"arguments":` within the schema, after a `}`.
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1},"arguments":{"n":{}}},"arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1},"arguments":{"n":{}}},"arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1}},"arguments":{"n":{}}},"arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1}},"arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1}},"arguments":{"n":{}}},"arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1}},"note":"x","arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1}},"arguments":{},"schema":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","x":{"a":1}},"arguments":}"#.to_owned(),
        r#"{"tool":"t","schema":{"type":"object","properties":{}},"arguments":{"a":1}}"#.to_owned(),
        r#"{"tool":"t","schema":{"a":"}{\"\\"},"arguments":{}}"#.to_owned(),
        r#"{"tool":"t","schema":{"a":"}{\"\\"},"arguments":{}}"#.to_owned(),
    ]);
    lines
}

#[test]
fn hostile_lines_replay_as_before() {
    let lines = hostile_lines();
    let tools = Tools::parse(SAMPLE_TOOLS).unwrap();
    // Each alone (its own cache), then all in one input (a shared cache).
    for line in &lines {
        same_as_old(&format!("{line}\n"), &tools);
    }
    same_as_old(&(lines.join("\n") + "\n"), &tools);
}

#[test]
fn invalid_utf8_is_a_malformed_line_and_the_rest_replays() {
    let schema = r#"{"type": "object"}"#;
    let mut input = Vec::new();
    input.extend_from_slice(
        format!("{{\"tool\": \"t\", \"schema\": {schema}, \"arguments\": {{}}}}\n").as_bytes(),
    );
    input.extend_from_slice(b"{\"tool\": \"t\xff\", \"arguments\": {}}\n");
    input.extend_from_slice(b"\xc3\n");
    input.extend_from_slice(
        format!("{{\"tool\": \"t\", \"schema\": {schema}, \"arguments\": {{}}}}").as_bytes(),
    );
    for jobs in [1, 2] {
        let mut replay = Replay::new(Policy::DEFAULT, Tools::default()).jobs(jobs);
        let run = new_run(&mut replay, &input[..]);
        assert_eq!(run.report.totals.calls, 2);
        assert_eq!(run.report.totals.malformed_lines, 2);
        assert_eq!(
            run.malformed,
            [
                LineError {
                    line: 2,
                    reason: "not UTF-8 (invalid byte at column 12)".to_owned()
                },
                LineError {
                    line: 3,
                    reason: "not UTF-8 (invalid byte at column 1)".to_owned()
                }
            ]
        );
        assert_eq!(run.progress, input.len() as u64);
    }
}

/// `n` calls, each of its own schema (`distinct` schemas in turn), with a
/// malformed line every 97th and a blank one every 89th.
fn generated(n: usize, distinct: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        if i % 97 == 50 {
            text.push_str("{\"tool\": \"broken\"\n");
            continue;
        }
        if i % 89 == 40 {
            text.push_str("   \n");
            continue;
        }
        let k = i % distinct;
        let arguments = match i % 4 {
            0 => format!(r#"{{"p{k}": ["x"]}}"#),
            1 => format!(r#"{{"p{k}": "x"}}"#),
            2 => format!(r#""{{\"p{k}\": \"{i}\"}}""#),
            _ => format!(r#"{{"p{k}": 1, "q": true}}"#),
        };
        text.push_str(&format!(
            r#"{{"tool": "tool_{k}", "schema": {{"type": "object", "properties": {{"p{k}": {{"type": "array", "items": {{"type": "string"}}}}}}}}, "arguments": {arguments}, "class": "c{}"}}"#,
            i % 7
        ));
        text.push('\n');
    }
    text
}

#[test]
fn many_jobs_tell_exactly_what_one_job_tells() {
    // More lines than a few batches, so batches finish out of order.
    let input = generated(3000, 40);
    let one = new_run(
        &mut Replay::new(Policy::all(), Tools::default()),
        input.as_bytes(),
    );
    assert!(one.report.totals.malformed_lines > 20);
    assert!(one.report.totals.accepted_after_repair > 100);
    for jobs in [2, 3, 8] {
        let mut replay = Replay::new(Policy::all(), Tools::default()).jobs(jobs);
        assert_eq!(new_run(&mut replay, input.as_bytes()), one, "{jobs} jobs");
    }
    let old = old_run(
        OldReplay::new(Policy::all(), Tools::default()),
        input.as_bytes(),
    );
    assert_eq!(one, old);
}

#[test]
fn the_first_error_of_a_callback_stops_every_job() {
    let input = generated(2000, 10);
    for jobs in [1, 3] {
        let mut seen = 0;
        let error = Replay::new(Policy::DEFAULT, Tools::default())
            .jobs(jobs)
            .run(
                input.as_bytes(),
                |_| {},
                |o| {
                    seen += 1;
                    match o.line {
                        1000 => Err(std::io::Error::other("full disk")),
                        _ => Ok(()),
                    }
                },
            )
            .unwrap_err();
        assert_eq!(error.to_string(), "full disk");
        // Every call up to line 1000, none after.
        let before = generated(1000, 10)
            .lines()
            .filter(|l| l.contains("\"arguments\""))
            .count();
        assert_eq!(seen, before, "{jobs} jobs");
    }
}

#[test]
fn the_cache_evicts_and_never_holds_more_than_its_capacity() {
    // 100 distinct schemas, each seen many times, through a cache of 8.
    let input = generated(2000, 100);
    let mut replay = Replay::new(Policy::all(), Tools::default()).cache_capacity(8);
    let mut outcomes = Vec::new();
    for (i, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        outcomes.push(replay.replay_line(i as u64 + 1, line));
        assert!(replay.cached_schemas() <= 8);
    }
    assert_eq!(replay.cached_schemas(), 8);
    // Evicted schemas compile again to the same outcomes.
    let mut roomy = Replay::new(Policy::all(), Tools::default());
    let mut old = OldReplay::new(Policy::all(), Tools::default());
    for (i, line) in input.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = i as u64 + 1;
        assert_eq!(roomy.replay_line(n, line), old.replay_line(n, line));
    }
    assert_eq!(roomy.cached_schemas(), 100);
    let again: Vec<_> = input
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| old.replay_line(i as u64 + 1, l))
        .collect();
    assert_eq!(outcomes, again);
    // And with several jobs sharing the small cache.
    let mut small = Replay::new(Policy::all(), Tools::default())
        .cache_capacity(8)
        .jobs(3);
    let run = new_run(&mut small, input.as_bytes());
    assert!(small.cached_schemas() <= 8);
    let one = new_run(
        &mut Replay::new(Policy::all(), Tools::default()),
        input.as_bytes(),
    );
    assert_eq!(run, one);
}

#[test]
fn calls_of_other_traces_bind_as_lines_do() {
    let schema = r#"{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}, "n": {"type": "integer"}}, "required": ["tags"]}"#;
    let cases: [(&str, &str); 9] = [
        (r#"{"tags": "a"}"#, "repaired"),
        (r#"{"tags": ["a"], "n": 2}"#, "accepted"),
        (r#""{\"tags\": \"a\"}""#, "repaired"),
        (r#""{\"tags\": \"a\", \"tags\": [\"b\"]}""#, "rejected"),
        ("null", "rejected"),
        (r#""""#, "rejected"),
        ("{\"tags\": [\"a\"], \"n\": \"2\"}", "repaired"),
        ("not json at all", "rejected"),
        (r#"{"tags": "#, "rejected"),
    ];
    for policy in policies() {
        let mut replay = Replay::new(policy, Tools::default());
        let mut old = OldReplay::new(policy, Tools::default());
        let mut tally = Tally::new(&replay);
        for (i, (arguments, _)) in cases.iter().enumerate() {
            let line = i as u64 + 1;
            let outcome = replay.replay_call(
                line,
                CallRef {
                    tool: "tag",
                    schema,
                    arguments,
                    label: Some("label"),
                },
            );
            // The same call as a line, when its arguments are JSON.
            if serde_json::from_str::<serde_json::Value>(arguments).is_ok() {
                let text = format!(
                    r#"{{"tool": "tag", "schema": {schema}, "arguments": {arguments}, "note": "label"}}"#
                );
                assert_eq!(Ok(outcome.clone()), old.replay_line(line, &text));
            } else {
                assert_eq!(outcome.violations[0].kind, ViolationKind::Malformed);
            }
            tally.call(&outcome);
        }
        let report = tally.finish(cases.len() as u64);
        assert_eq!(report.totals.calls, cases.len() as u64);
        if policy == Policy::all() {
            let outcomes: Vec<&str> = cases
                .iter()
                .enumerate()
                .map(|(i, (arguments, _))| {
                    replay
                        .replay_call(
                            i as u64 + 1,
                            CallRef {
                                tool: "tag",
                                schema,
                                arguments,
                                label: None,
                            },
                        )
                        .outcome
                })
                .collect();
            let expected: Vec<&str> = cases.iter().map(|c| c.1).collect();
            assert_eq!(outcomes, expected);
        }
    }
    let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
    let outcome = replay.replay_call(
        7,
        CallRef {
            tool: "t",
            schema: "{not json",
            arguments: "{}",
            label: None,
        },
    );
    assert_eq!(outcome.outcome, "schema_error");
    assert!(outcome
        .schema_error
        .unwrap()
        .starts_with("the schema is not JSON"));
}

fn canon(args: &[&str]) -> (Vec<u8>, String, bool) {
    let output = Command::new(env!("CARGO_BIN_EXE_canon"))
        .args(args)
        .output()
        .unwrap();
    (
        output.stdout,
        String::from_utf8(output.stderr).unwrap(),
        output.status.success(),
    )
}

/// `canon` with `args`, `--jobs jobs` and `--out out`, which must succeed:
/// its stdout, its stderr and what it wrote to `out`.
fn canon_jobs<'a>(
    mut args: Vec<&'a str>,
    jobs: &'a str,
    out: &'a std::path::Path,
) -> (Vec<u8>, String, Vec<u8>) {
    let out_arg = out.to_str().unwrap();
    args.extend(["--jobs", jobs, "--out", out_arg]);
    let (stdout, stderr, ok) = canon(&args);
    assert!(ok, "{stderr}");
    (stdout, stderr, std::fs::read(out).unwrap())
}

#[test]
fn the_command_prints_the_same_with_any_number_of_jobs() {
    let dir = std::env::temp_dir().join(format!("canon-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let calls = dir.join("calls.jsonl");
    let mut input = generated(2500, 30);
    for line in hostile_lines().iter().filter(|l| l.len() < 4096) {
        input.push_str(line);
        input.push('\n');
    }
    input.push_str(SAMPLE_CALLS);
    std::fs::write(&calls, input).unwrap();
    let calls = calls.to_str().unwrap();
    let tools = dir.join("tools.json");
    std::fs::write(&tools, SAMPLE_TOOLS).unwrap();
    let tools = tools.to_str().unwrap();
    let run = |jobs: &str, json: bool| {
        let out = dir.join(format!("out-{jobs}-{json}.jsonl"));
        let mut args = vec!["replay", calls, "--tools", tools, "--policy", "all"];
        if json {
            args.push("--json");
        }
        canon_jobs(args, jobs, &out)
    };
    for json in [false, true] {
        let one = run("1", json);
        assert!(one.1.contains("skipped"), "{}", one.1);
        assert!(one.2.len() > 50_000);
        assert_eq!(run("3", json), one, "--json {json}");
    }
    // No --jobs: all cores, the same output.
    let (stdout, _, ok) = canon(&["replay", calls, "--tools", tools]);
    assert!(ok);
    assert_eq!(
        stdout,
        canon(&["replay", calls, "--tools", tools, "-j", "1"]).0
    );
    let (_, stderr, ok) = canon(&["replay", calls, "--jobs", "0"]);
    assert!(!ok);
    assert!(stderr.contains("--jobs"), "{stderr}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_corpus_replays_as_before() {
    let Some(path) = std::env::var_os("CANON_CORPUS") else {
        eprintln!("SKIPPED: set CANON_CORPUS to the path of bfcl-open.jsonl to replay it");
        return;
    };
    let open = || BufReader::new(File::open(&path).unwrap());
    for policy in [Policy::DEFAULT, Policy::all()] {
        let old = old_run(OldReplay::new(policy, Tools::default()), open());
        assert_eq!(old.report.totals.calls, 19_747);
        for jobs in [1, 2] {
            let new = new_run(
                &mut Replay::new(policy, Tools::default()).jobs(jobs),
                open(),
            );
            assert_eq!(new, old, "policy {policy}, {jobs} jobs");
        }
    }
}

/// The trace fixtures: (file, format).
const TRACES: [(&str, Format); 6] = [
    ("anthropic.jsonl", Format::Anthropic),
    ("openai-chat.jsonl", Format::OpenAiChat),
    ("openai-chat.jsonl.zst", Format::OpenAiChat),
    ("openai-responses.jsonl", Format::OpenAiResponses),
    ("otlp-batches.jsonl", Format::Otlp),
    ("otlp.json", Format::Otlp),
];

fn trace_fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/formats/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The tools the fixtures' requests leave undeclared, and some they
/// declare, one per line.
const TRACE_TOOLS: &str = r#"{"name": "bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}
{"name": "web_search", "input_schema": {"type": "object", "properties": {"query": {"type": "string"}, "max_uses": {"type": "integer"}}}}
{"name": "search_code", "input_schema": {"type": "object", "properties": {"data_source_names": {"type": "array", "items": {"type": "string"}}, "query": {"type": "string"}}}}
{"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}
"#;

/// Records no format reads, or reads only in part, and some a format
/// reads as calls that cannot be replayed: one a line.
fn hostile_records() -> Vec<String> {
    let mut records: Vec<String> = [
        "{",
        "null",
        "[1, 2]",
        "\"just a string\"",
        "not json at all",
        "\u{1b}[2J\u{202e}{\"evil\": \"\u{2028}\"}",
        "{\"request\": {\"tools\": [",
        r#"{"request": {"tools": "none"}, "response": {"choices": "none"}}"#,
        r#"{"request": {"tools": [1, null, {"function": 3}]}, "response": {"choices": [{"message": {"tool_calls": [1, {"function": []}, {"type": "custom", "custom": 7}]}}]}}"#,
        r#"{"response": {"output": [{"type": "function_call"}, {"type": "mcp_list_tools", "tools": 3}]}}"#,
        r#"{"response": {"type": "message", "content": [{"type": "tool_use"}, 5]}}"#,
        r#"{"response": [{"type": "content_block_delta", "index": 9, "delta": {"type": "input_json_delta", "partial_json": 1}}]}"#,
        r#"{"response": [{"choices": [{"delta": {"tool_calls": [{"index": -1, "function": {"arguments": 5}}]}}]}]}"#,
        r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "gen_ai.tool.definitions", "value": {"stringValue": "[{\"name\": 5}, 7]"}}, {"key": 3}]}]}]}]}"#,
        r#"{"resourceSpans": "nope"}"#,
        r#"{"response": {"choices": [{"message": {"tool_calls": [{"function": {"name": "get_weather", "arguments": "{\"city\": 5}"}}]}}]}}"#,
        r#"{"response": {"type": "message", "content": [{"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {"command": ["ls"]}}]}}"#,
        r#"{"response": {"output": [{"type": "function_call", "call_id": "c", "name": "search_code", "arguments": "{\"data_source_names\": \"x\"}"}]}}"#,
    ]
    .iter()
    .map(|r| (*r).to_owned())
    .collect();
    // OTLP calls whose trace never defines its tools: held, and given back
    // at the end.
    records.push(
        serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": "ffffffffffffffffffffffffffffffff", "spanId": "0000000000000001",
            "name": "execute_tool get_weather", "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
                {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\"days\": \"3\"}"}}]}]}]}]})
        .to_string(),
    );
    // A record over a batch's bytes.
    records.push(format!(
        r#"{{"request": {{"tools": []}}, "response": {{"choices": [], "pad": "{}"}}}}"#,
        "x".repeat(1_500_000)
    ));
    records
}

/// A trace fixture many times over (more records than a batch holds),
/// with hostile records between its copies (when it is not compressed).
fn long_trace(file: &str) -> Vec<u8> {
    let fixture = trace_fixture(file);
    let hostile = hostile_records();
    let mut input = Vec::new();
    for i in 0..150 {
        match file.starts_with("otlp") {
            // Each copy its own traces, spans and calls: not told as
            // the same again.
            true => {
                let copy = String::from_utf8(fixture.clone()).unwrap();
                let copy = ["\"traceId\": \"", "\"spanId\": \"", "\"call_"]
                    .iter()
                    .fold(copy, |copy, key| copy.replace(key, &format!("{key}{i:03}")));
                input.extend_from_slice(copy.as_bytes());
            }
            false => input.extend_from_slice(&fixture),
        }
        if file.ends_with(".zst") {
            // zstd frames one after another: read through.
            continue;
        }
        if !input.ends_with(b"\n") {
            input.push(b'\n');
        }
        if i % 5 == 2 {
            input.extend_from_slice(hostile[(i / 5) % hostile.len()].as_bytes());
            input.push(b'\n');
        }
    }
    if !file.ends_with(".zst") {
        for record in &hostile {
            input.extend_from_slice(record.as_bytes());
            input.push(b'\n');
        }
        // A document cut short by the next.
        input.extend_from_slice(b"{\n  \"resourceSpans\": [\n");
        input.extend_from_slice(&fixture);
    }
    input
}

/// Everything a trace replay tells, `jobs` jobs.
fn trace_run(format: Format, tools: &Tools, input: &[u8], jobs: usize) -> Run {
    let input = canon_cli::formats::decompress(input).unwrap().1;
    let mut replay = Replay::new(Policy::all(), tools.clone()).jobs(jobs);
    let (run, ended) = told(|(p, c, m)| replay.run_trace(format, input, p, c, m));
    ended.unwrap();
    run
}

#[test]
fn trace_formats_tell_exactly_what_one_job_tells() {
    for tools in [Tools::default(), Tools::parse(TRACE_TOOLS).unwrap()] {
        for (file, format) in TRACES {
            let input = long_trace(file);
            let one = trace_run(format, &tools, &input, 1);
            let t = &one.report.totals;
            assert!(t.calls >= 300, "{file}: {t:?}");
            if !file.ends_with(".zst") {
                assert!(t.malformed_lines > 0 && !one.malformed.is_empty(), "{file}");
            }
            for jobs in [2, 3, 4] {
                let many = trace_run(format, &tools, &input, jobs);
                assert_eq!(many, one, "{file}, {jobs} jobs");
            }
        }
    }
}

#[test]
fn the_first_error_of_a_callback_stops_every_trace_job() {
    let input = long_trace("anthropic.jsonl");
    for jobs in [1, 3] {
        let mut seen = 0;
        let error = Replay::new(Policy::DEFAULT, Tools::default())
            .jobs(jobs)
            .run_trace(
                Format::Anthropic,
                &input[..],
                |_| {},
                |_| {
                    seen += 1;
                    match seen {
                        100 => Err(std::io::Error::other("full disk")),
                        _ => Ok(()),
                    }
                },
                |_| {},
            )
            .unwrap_err();
        assert_eq!(error.to_string(), "full disk");
        assert_eq!(seen, 100, "{jobs} jobs");
    }
}

#[test]
fn the_command_prints_the_same_for_traces_with_any_number_of_jobs() {
    let dir = std::env::temp_dir().join(format!("canon-trace-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tools = dir.join("tools.jsonl");
    std::fs::write(&tools, TRACE_TOOLS).unwrap();
    let tools = tools.to_str().unwrap();
    for (file, format) in TRACES {
        let input = dir.join(file);
        std::fs::write(&input, long_trace(file)).unwrap();
        let input = input.to_str().unwrap();
        for with_tools in [false, true] {
            for json in [false, true] {
                let run = |jobs: &str| {
                    let out = dir.join(format!("out-{jobs}.jsonl"));
                    let mut args = vec!["replay", input, "--policy", "all"];
                    if with_tools {
                        args.extend(["--tools", tools]);
                    }
                    if json {
                        args.push("--json");
                    }
                    // Named once, told from the first records once.
                    if file.starts_with("openai-chat") {
                        args.extend(["--format", format.name()]);
                    }
                    canon_jobs(args, jobs, &out)
                };
                let one = run("1");
                if !file.ends_with(".zst") {
                    // The malformed records are told, by line.
                    assert!(one.1.contains(": skipped: "), "{file}: {}", one.1);
                }
                assert!(one.2.len() > 10_000, "{file}");
                for jobs in ["2", "4"] {
                    let many = run(jobs);
                    assert_eq!(
                        many.0, one.0,
                        "stdout, {file}, {jobs} jobs, tools {with_tools}, json {json}"
                    );
                    assert_eq!(many.1, one.1, "stderr, {file}, {jobs} jobs");
                    assert!(many.2 == one.2, "--out, {file}, {jobs} jobs");
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Reads `text`, then fails where `at` bytes have been read (a truncated
/// or corrupt compressed file), a few bytes at a time.
struct FailingAt<'a> {
    text: &'a [u8],
    at: usize,
}

impl std::io::Read for FailingAt<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == 0 {
            return Err(std::io::Error::other("corrupt input"));
        }
        let n = out.len().min(self.at).min(self.text.len()).min(4096);
        out[..n].copy_from_slice(&self.text[..n]);
        self.text = &self.text[n..];
        self.at -= n;
        Ok(n)
    }
}

/// What a run tells before the input fails, and the error.
fn failing_run(jobs: usize, input: &[u8], at: usize, format: Option<Format>) -> (Run, String) {
    let reader = BufReader::with_capacity(1000, FailingAt { text: input, at });
    let mut replay = Replay::new(Policy::all(), Tools::default()).jobs(jobs);
    let (run, ended) = told(|(p, c, m)| match format {
        None => replay.run_with(reader, p, c, m),
        Some(format) => replay.run_trace(format, reader, p, c, m),
    });
    (run, ended.unwrap_err().to_string())
}

#[test]
fn an_input_that_fails_midway_tells_with_many_jobs_what_it_tells_with_one() {
    let lines = generated(3000, 40);
    let anthropic = long_trace("anthropic.jsonl");
    let inputs = [
        (lines.as_bytes(), None),
        (&anthropic[..], Some(Format::Anthropic)),
    ];
    for (input, format) in inputs {
        // Mid-line, past several batches, and before the first line ends.
        for at in [input.len() * 2 / 3 + 17, 300] {
            let (one, error) = failing_run(1, input, at, format);
            assert_eq!(error, "corrupt input");
            if at > 300 {
                assert!(one.outcomes.len() > 100, "{format:?}");
            }
            for jobs in [2, 3] {
                let (many, error) = failing_run(jobs, input, at, format);
                assert_eq!(error, "corrupt input");
                assert_eq!(many, one, "{format:?}, {jobs} jobs, failing at {at}");
            }
        }
    }
}

#[test]
fn jobs_past_the_most_are_read_as_the_most() {
    let input = generated(300, 5);
    let one = new_run(
        &mut Replay::new(Policy::all(), Tools::default()),
        input.as_bytes(),
    );
    let mut replay = Replay::new(Policy::all(), Tools::default()).jobs(usize::MAX);
    assert_eq!(new_run(&mut replay, input.as_bytes()), one);
}

#[test]
fn a_record_of_thousands_of_calls_tells_with_many_jobs_what_it_tells_with_one() {
    // Records of 3,000 and of 10 calls in turn: the large ones are bound
    // as they are told of, the small ones by the workers.
    let record = |calls: usize, at: usize| {
        let uses: Vec<String> = (0..calls)
            .map(|i| match (i + at) % 3 {
                0 => format!(r#"{{"type": "tool_use", "id": "t{i}", "name": "search_code", "input": {{"data_source_names": "r{i}", "query": "q"}}}}"#),
                1 => format!(r#"{{"type": "tool_use", "id": "t{i}", "name": "get_weather", "input": {{"city": "c", "days": "{i}"}}}}"#),
                _ => format!(r#"{{"type": "tool_use", "id": "t{i}", "name": "nope", "input": {{}}}}"#),
            })
            .collect();
        format!(
            r#"{{"request": {{"tools": [{{"name": "search_code", "input_schema": {{"type": "object", "properties": {{"data_source_names": {{"type": "array", "items": {{"type": "string"}}}}, "query": {{"type": "string"}}}}, "required": ["query"]}}}}, {{"name": "get_weather", "input_schema": {{"type": "object", "properties": {{"city": {{"type": "string"}}, "days": {{"type": "integer"}}}}}}}}], "messages": []}}, "response": {{"content": [{}]}}}}"#,
            uses.join(", ")
        )
    };
    let mut input = String::new();
    for at in 0..12 {
        input.push_str(&record(if at % 3 == 0 { 3000 } else { 10 }, at));
        input.push('\n');
    }
    let one = trace_run(Format::Anthropic, &Tools::default(), input.as_bytes(), 1);
    // Two of three calls bound, the third of an unknown tool skipped.
    let totals = &one.report.totals;
    assert!(
        totals.calls > 8_000 && totals.skipped_calls > 4_000,
        "{totals:?}"
    );
    for jobs in [2, 3] {
        let many = trace_run(Format::Anthropic, &Tools::default(), input.as_bytes(), jobs);
        assert_eq!(many, one, "{jobs} jobs");
    }
}
