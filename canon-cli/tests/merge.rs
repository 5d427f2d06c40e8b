//! `canon replay merge`: the summaries of consecutive shards, merged in
//! order, are exactly the summary of one replay over the whole input, and
//! the table is sorted by what repairs win.

use std::process::Command;

use canon::Policy;
use canon_cli::{merge, render, Replay, Report, Tools, SAMPLE_CALLS, SAMPLE_TOOLS};

fn replay(policy: Policy, tools: &Tools, text: &str) -> Report {
    Replay::new(policy, tools.clone())
        .run(text.as_bytes(), |_| {}, |_| Ok(()))
        .unwrap()
}

/// `text` cut into shards at the given line numbers (each shard whole
/// lines, in order).
fn shards<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    let mut starts = vec![0];
    let mut offset = 0;
    let mut line = 0;
    for l in text.split_inclusive('\n') {
        line += 1;
        offset += l.len();
        if cuts.contains(&line) {
            starts.push(offset);
        }
    }
    starts.push(text.len());
    starts.windows(2).map(|w| &text[w[0]..w[1]]).collect()
}

#[test]
fn merged_shards_are_the_whole_on_the_sample_at_every_cut() {
    let tools = Tools::parse(SAMPLE_TOOLS).unwrap();
    let lines = SAMPLE_CALLS.lines().count();
    for policy in [Policy::DEFAULT, Policy::all(), Policy::STRICT] {
        let whole = replay(policy, &tools, SAMPLE_CALLS);
        assert_eq!(whole.totals.lines, lines as u64);
        for cut in 0..=lines {
            let parts: Vec<Report> = shards(SAMPLE_CALLS, &[cut])
                .into_iter()
                .map(|s| replay(policy, &tools, s))
                .collect();
            assert_eq!(
                merge(parts).unwrap(),
                whole,
                "{policy} cut after line {cut}"
            );
        }
        // Three shards, one of them empty.
        let parts: Vec<Report> = shards(SAMPLE_CALLS, &[3, 3, 11])
            .into_iter()
            .map(|s| replay(policy, &tools, s))
            .collect();
        assert_eq!(merge(parts).unwrap(), whole);
    }
}

#[test]
fn merged_shards_are_the_whole_on_the_corpus() {
    let Ok(path) = std::env::var("CANON_CORPUS") else {
        eprintln!("CANON_CORPUS unset: skipped");
        return;
    };
    let corpus = std::fs::read_to_string(path).unwrap();
    let tools = Tools::default();
    let lines = corpus.lines().count();
    let whole = replay(Policy::all(), &tools, &corpus);
    let cuts: Vec<usize> = (1..7).map(|k| k * lines / 7).collect();
    let parts: Vec<Report> = shards(&corpus, &cuts)
        .into_iter()
        .map(|s| replay(Policy::all(), &tools, s))
        .collect();
    assert_eq!(parts.len(), 7);
    assert_eq!(merge(parts).unwrap(), whole);
}

#[test]
fn summaries_of_another_policy_are_not_merged() {
    let tools = Tools::parse(SAMPLE_TOOLS).unwrap();
    let error = merge([
        replay(Policy::DEFAULT, &tools, SAMPLE_CALLS),
        replay(Policy::all(), &tools, SAMPLE_CALLS),
    ])
    .unwrap_err();
    assert_eq!(error.index, 1);
    assert!(error
        .to_string()
        .starts_with("summary #2: replayed with policy"));
    assert_eq!(merge(Vec::new()).unwrap(), Report::default());
}

#[test]
fn the_table_lists_rules_kinds_and_tools_by_what_repairs_win() {
    let tools = Tools::parse(SAMPLE_TOOLS).unwrap();
    let report = replay(Policy::all(), &tools, SAMPLE_CALLS);
    let table = render(&report, "the sample");
    let section = |title: &str| -> Vec<String> {
        table
            .split("\n\n")
            .find(|s| s.starts_with(title))
            .unwrap_or_else(|| panic!("no section {title:?} in\n{table}"))
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let counts = |rows: Vec<String>| -> Vec<u64> {
        rows.iter()
            .map(|r| r.split(' ').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    for title in [
        "repaired calls, by rule",
        "still rejected, by violation kind",
        "tools with calls a strict binder rejects",
    ] {
        let rows = section(title);
        assert!(!rows.is_empty(), "{title}");
        if !title.starts_with("tools") {
            let n = counts(rows);
            assert!(n.windows(2).all(|w| w[0] >= w[1]), "{title}: {n:?}");
        }
    }
    // Every rule's row names its first repair.
    for (rule, example) in &report.repair_examples {
        assert!(table.contains(&format!(
            "line {}, {} {}",
            example.line, example.tool, example.pointer
        )));
        assert_eq!(example.message, format!("repaired ({rule})"));
    }
    // Each tool counts its calls, and the totals are their sums.
    let sum = |f: fn(&canon_cli::ToolCount) -> u64| report.by_tool.values().map(f).sum::<u64>();
    assert_eq!(sum(|c| c.calls), report.totals.calls);
    assert_eq!(
        sum(|c| c.accepted_after_repair),
        report.totals.accepted_after_repair
    );
    assert_eq!(sum(|c| c.still_rejected), report.totals.still_rejected);
}

#[test]
fn the_merge_command_prints_the_whole_runs_summary() {
    let dir = std::env::temp_dir().join(format!("canon-merge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut summaries = Vec::new();
    for (i, shard) in shards(SAMPLE_CALLS, &[6, 12]).into_iter().enumerate() {
        let calls = dir.join(format!("shard{i}.jsonl"));
        std::fs::write(&calls, shard).unwrap();
        let tools = dir.join("tools.json");
        std::fs::write(&tools, SAMPLE_TOOLS).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_canon"))
            .args(["replay", "--json", "--jobs", "1", "--tools"])
            .arg(&tools)
            .arg(&calls)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let summary = dir.join(format!("shard{i}.json"));
        std::fs::write(&summary, &out.stdout).unwrap();
        summaries.push(summary);
    }
    let merged = Command::new(env!("CARGO_BIN_EXE_canon"))
        .args(["replay", "merge", "--json"])
        .args(&summaries)
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let whole = replay(
        Policy::DEFAULT,
        &Tools::parse(SAMPLE_TOOLS).unwrap(),
        SAMPLE_CALLS,
    );
    let merged: Report = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(merged, whole);
    let _ = std::fs::remove_dir_all(&dir);
}
