//! The command reads each trace format (told from its first record, or
//! named by `--format`), compressed or not, and counts the calls it cannot
//! replay by reason.

use std::process::Command;

use canon_cli::Report;

fn replay(args: &[&str]) -> Report {
    let out = Command::new(env!("CARGO_BIN_EXE_canon"))
        .arg("replay")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn fixture(name: &str) -> String {
    format!("{}/tests/formats/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn each_format_is_told_from_its_first_record() {
    // (file, calls, repaired, skipped)
    for (file, calls, repaired, skipped) in [
        ("openai-chat.jsonl.zst", 5, 1, 1),
        ("openai-responses.jsonl", 4, 1, 0),
        ("anthropic.jsonl", 3, 1, 2),
        ("otlp.json", 3, 1, 1),
    ] {
        let report = replay(&[&fixture(file)]);
        let t = &report.totals;
        assert_eq!(
            (t.calls, t.accepted_after_repair, t.skipped_calls),
            (calls, repaired, skipped),
            "{file}"
        );
        assert_eq!(
            report.skipped_by_reason.values().sum::<u64>(),
            skipped,
            "{file}"
        );
    }
}

#[test]
fn a_named_format_reads_the_same_and_compression_is_transparent() {
    let told = replay(&[&fixture("openai-chat.jsonl.zst")]);
    let named = replay(&["--format", "openai-chat", &fixture("openai-chat.jsonl.zst")]);
    assert_eq!(told, named);
    assert_eq!(
        told.skipped_by_reason.keys().collect::<Vec<_>>(),
        ["a tool the request did not declare"]
    );
}

#[test]
fn an_unknown_format_is_refused_with_the_names() {
    let out = Command::new(env!("CARGO_BIN_EXE_canon"))
        .args(["replay", "--format", "langfuse", "x.jsonl"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("openai-chat"), "{stderr}");
}
