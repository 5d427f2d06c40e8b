//! Allocations at the limit: binding a valid call allocates what strict
//! `serde_json` allocates for the same struct, on the five workloads of
//! `benches/limit.rs` (W1 flat, W2 nested structs and lists, W3 many small
//! fields, W4 long strings, W5 a map of lists), from text and from a
//! `Value`. Counted here because this crate's test binary has a counting
//! allocator (`allocation-counter`); the bench's copies of the workloads
//! are the same calls. Run with `--nocapture` to see the table.

use std::collections::HashMap;

use canon::{Canonicalizer, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Search code in the given data sources.
#[canon::tool]
fn search_code(data_source_names: Vec<String>, query: String, limit: Option<u32>) -> usize {
    data_source_names.len() + query.len() + limit.unwrap_or(0) as usize
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Strict {
    data_source_names: Vec<String>,
    query: String,
    limit: Option<u32>,
}

const W1: &str =
    r#"{"data_source_names": ["dotnet/eshop", "dotnet/runtime"], "query": "basket", "limit": 10}"#;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Filter {
    field: String,
    op: Op,
    values: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Op {
    Eq,
    Ne,
    In,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Page {
    size: u32,
    after: Option<String>,
}

/// Query the issues of a repository.
#[canon::tool]
fn query_issues(repo: String, filters: Vec<Filter>, sort: Vec<String>, page: Page) -> usize {
    repo.len() + filters.len() + sort.len() + page.size as usize
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct StrictQuery {
    repo: String,
    filters: Vec<Filter>,
    sort: Vec<String>,
    page: Page,
}

const W2: &str = r#"{"repo": "dotnet/eshop", "filters": [{"field": "label", "op": "in", "values": ["bug", "p1"]}, {"field": "state", "op": "eq", "values": ["open"]}, {"field": "author", "op": "ne", "values": ["bot", "ci"]}], "sort": ["updated", "created"], "page": {"size": 50, "after": "c2Vjb25k"}}"#;

/// Create a calendar event.
#[canon::tool]
#[allow(clippy::too_many_arguments)]
fn create_event(
    title: String,
    all_day: bool,
    start_hour: u8,
    start_minute: u8,
    duration_minutes: u16,
    remind: bool,
    remind_minutes: Option<u16>,
    private: bool,
    color: Option<String>,
    priority: u8,
    repeat: bool,
    repeat_days: Vec<String>,
    location: Option<String>,
    max_attendees: u32,
    tentative: bool,
    notes: Option<String>,
) -> usize {
    let _ = (all_day, start_hour, start_minute, duration_minutes, remind);
    let _ = (remind_minutes, private, color, priority, repeat, location);
    let _ = (max_attendees, tentative, notes);
    title.len() + repeat_days.len()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct StrictEvent {
    title: String,
    all_day: bool,
    start_hour: u8,
    start_minute: u8,
    duration_minutes: u16,
    remind: bool,
    remind_minutes: Option<u16>,
    private: bool,
    color: Option<String>,
    priority: u8,
    repeat: bool,
    repeat_days: Vec<String>,
    location: Option<String>,
    max_attendees: u32,
    tentative: bool,
    notes: Option<String>,
}

const W3: &str = r#"{"title": "standup", "all_day": false, "start_hour": 9, "start_minute": 30, "duration_minutes": 15, "remind": true, "remind_minutes": 5, "private": false, "color": "teal", "priority": 2, "repeat": true, "repeat_days": ["mon", "wed", "fri"], "location": "room 4", "max_attendees": 12, "tentative": false, "notes": null}"#;

/// Write a file and commit it.
#[canon::tool]
fn write_file(path: String, content: String, message: String, reviewers: Vec<String>) -> usize {
    path.len() + content.len() + message.len() + reviewers.len()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct StrictWrite {
    path: String,
    content: String,
    message: String,
    reviewers: Vec<String>,
}

fn w4() -> String {
    let line =
        r#"    let total = items.iter().map(|i| i.price * i.count).sum::<u64>(); // \"sum\"\n"#;
    let content = line.repeat(4096 / line.len() + 1);
    let message = "Compute the basket total once, in the service, instead of in every caller; \
                   the callers read it from the basket. "
        .repeat(3);
    format!(
        r#"{{"path": "src/Basket/BasketService.cs", "content": "{content}", "message": "{message}", "reviewers": ["ana", "ben"]}}"#
    )
}

/// Set the label groups of a project.
#[canon::tool]
fn label_groups(groups: HashMap<String, Vec<String>>, dry_run: bool) -> usize {
    groups.len() + usize::from(dry_run)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct StrictGroups {
    groups: HashMap<String, Vec<String>>,
    dry_run: bool,
}

const W5: &str = r#"{"groups": {"backend": ["api", "db", "queue"], "frontend": ["web", "mobile"], "infra": ["k8s", "terraform", "ci"], "docs": ["guides", "reference"], "qa": ["e2e", "load"], "design": ["figma", "tokens"]}, "dry_run": false}"#;

/// (allocations, bytes) of `f`.
fn allocations(f: impl FnOnce()) -> (u64, u64) {
    let info = allocation_counter::measure(f);
    (info.count_total, info.bytes_total)
}

/// The allocations of strict serde and canon on one valid call: text, then
/// `Value`, then the foreign-schema path against `from_str::<Value>`.
fn measure<T, S>(tool: &T, text: &str) -> [((u64, u64), (u64, u64)); 3]
where
    T: Tool,
    S: serde::de::DeserializeOwned,
{
    let value: Value = serde_json::from_str(text).unwrap();
    let canon = Canonicalizer::new(tool.input_schema()).unwrap();
    // Warm the spec (compiled once, on first use) and the thread's key
    // stack outside the count.
    assert!(tool.bind_str(text).unwrap().repairs.is_empty());
    assert!(tool.bind(&value).unwrap().repairs.is_empty());
    let text_strict = allocations(|| {
        serde_json::from_str::<S>(text).unwrap();
    });
    let text_canon = allocations(|| {
        tool.bind_str(text).unwrap();
    });
    let value_strict = allocations(|| {
        S::deserialize(&value).unwrap();
    });
    let value_canon = allocations(|| {
        tool.bind(&value).unwrap();
    });
    let parse = allocations(|| {
        serde_json::from_str::<Value>(text).unwrap();
    });
    let foreign = allocations(|| {
        let mut args = canon.parse(text).unwrap();
        assert!(canon.canonicalize(&mut args).unwrap().is_empty());
    });
    [
        (text_strict, text_canon),
        (value_strict, value_canon),
        (parse, foreign),
    ]
}

#[test]
fn a_valid_call_allocates_what_strict_serde_allocates_on_every_workload() {
    let w4 = w4();
    let rows = [
        ("W1 flat", measure::<_, Strict>(&SearchCode, W1)),
        ("W2 nested", measure::<_, StrictQuery>(&QueryIssues, W2)),
        (
            "W3 many fields",
            measure::<_, StrictEvent>(&CreateEvent, W3),
        ),
        (
            "W4 long strings",
            measure::<_, StrictWrite>(&WriteFile, &w4),
        ),
        (
            "W5 map of lists",
            measure::<_, StrictGroups>(&LabelGroups, W5),
        ),
    ];
    println!("| workload | text: strict, canon | Value: strict, canon | foreign: Value, canon |");
    println!("|---|---|---|---|");
    for (name, [text, value, foreign]) in &rows {
        println!(
            "| {name} | {} ({} B), {} ({} B) | {} ({} B), {} ({} B) | {} ({} B), {} ({} B) |",
            text.0 .0,
            text.0 .1,
            text.1 .0,
            text.1 .1,
            value.0 .0,
            value.0 .1,
            value.1 .0,
            value.1 .1,
            foreign.0 .0,
            foreign.0 .1,
            foreign.1 .0,
            foreign.1 .1,
        );
    }
    for (name, [text, value, _]) in &rows {
        assert_eq!(
            text.1, text.0,
            "{name}, text: (allocations, bytes) canon vs strict"
        );
        assert_eq!(value.1, value.0, "{name}, Value: canon vs strict");
        assert!(text.0 .0 > 0, "the counter counts");
    }
}

/// Checks what canon allocates to bind `near`, a near miss of `tool` with
/// one repair, against strict serde reading the call as canon repairs it
/// (`repaired`), from a `Value` and from text: exactly as much from a
/// `Value`, and as often from text (serde_json's text reader gives no
/// length, so strict serde's list has room for more than its one item),
/// but for the pointer canon writes, of `pointer` bytes (0: borrowed).
fn near_miss<T, S>(name: &str, tool: &T, near: &str, repaired: &str, pointer: u64)
where
    T: Tool,
    S: serde::de::DeserializeOwned,
{
    let written = u64::from(pointer > 0);
    // What is compiled once per tool, on its first call, is not counted.
    assert_eq!(tool.bind_str(near).unwrap().repairs.len(), 1);
    let strict = allocations(|| {
        serde_json::from_str::<S>(repaired).unwrap();
    });
    let canon = allocations(|| {
        tool.bind_str(near).unwrap();
    });
    assert!(
        canon.0 == strict.0 + written && canon.1 <= strict.1 + pointer,
        "{name}, text: (allocations, bytes) of canon's near miss {canon:?} vs strict on the \
         repaired call {strict:?}"
    );
    let near: Value = serde_json::from_str(near).unwrap();
    let repaired: Value = serde_json::from_str(repaired).unwrap();
    assert_eq!(tool.bind(&near).unwrap().repairs.len(), 1);
    let strict = allocations(|| {
        S::deserialize(&repaired).unwrap();
    });
    let canon = allocations(|| {
        tool.bind(&near).unwrap();
    });
    assert_eq!(
        canon,
        (strict.0 + written, strict.1 + pointer),
        "{name}, Value: (allocations, bytes) of canon's near miss vs strict on the repaired call"
    );
}

#[test]
fn a_near_miss_costs_what_strict_serde_costs_on_the_repaired_call_but_a_written_pointer() {
    // The one repair is held in place, not in a list of its own, and the
    // pointer of a parameter is borrowed: nothing more than strict serde.
    near_miss::<_, Strict>(
        "W1 flat",
        &SearchCode,
        &W1.replace(r#"["dotnet/eshop", "dotnet/runtime"]"#, r#""dotnet/eshop""#),
        &W1.replace(
            r#"["dotnet/eshop", "dotnet/runtime"]"#,
            r#"["dotnet/eshop"]"#,
        ),
        0,
    );
    near_miss::<_, StrictEvent>(
        "W3 many fields",
        &CreateEvent,
        &W3.replace(r#"["mon", "wed", "fri"]"#, r#""mon""#),
        &W3.replace(r#"["mon", "wed", "fri"]"#, r#"["mon"]"#),
        0,
    );
    let w4_repaired = w4().replace(r#"["ana", "ben"]"#, r#"["ana"]"#);
    let w4_near = w4().replace(r#"["ana", "ben"]"#, r#""ana""#);
    near_miss::<_, StrictWrite>("W4 long strings", &WriteFile, &w4_near, &w4_repaired, 0);
    // Below a parameter, the pointer is written, in one allocation with room
    // for every token escaped ("/groups/docs": 13 + 9 bytes), and the
    // string's position is searched for without allocating.
    near_miss::<_, StrictGroups>(
        "W5 map of lists",
        &LabelGroups,
        &W5.replace(r#"["guides", "reference"]"#, r#""guides""#),
        &W5.replace(r#"["guides", "reference"]"#, r#"["guides"]"#),
        22,
    );
}
