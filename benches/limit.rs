//! Binding at the limit: canon against strict `serde_json` into the same
//! struct (the limit), on five workloads, measured side by side in one
//! process.
//!
//! - W1 flat: `search_code`, the seed's call (`benches/common`);
//! - W2 nested structs and lists: `query_issues`, a list of filter structs
//!   (each with a list), a list, and a struct;
//! - W3 many small fields: `create_event`, sixteen scalars and a list;
//! - W4 long strings: `write_file`, 4 KiB of escaped file content;
//! - W5 a map of lists: `label_groups`, six keys, each a list of names.
//!
//! For each, the ratios (canon's time over its baseline's):
//! - text, valid: `bind_str` of the valid call against
//!   `serde_json::from_str::<Strict>` of the same text;
//! - text, near miss: `bind_str` of the near miss (one list sent as a bare
//!   string) against strict serde on the valid text;
//! - from a `Value`, valid and near miss: `bind(&value)` of the valid
//!   call and of the near miss, against `Strict::deserialize(&value)` of
//!   the valid call; and the seed's middleware on the near miss (clone the
//!   `Value`, rewrite each string where the schema says array of strings,
//!   then `Strict::deserialize`), which canon must beat by 2.5× on W1;
//! - foreign schema, valid and near miss: a `Canonicalizer` compiled from
//!   the tool's published schema (as JSON, as a client holds it) parsing
//!   and canonicalizing the text, against `serde_json::from_str::<Value>`
//!   of the same text.
//!
//! Goals: text ≤ 1.10 (valid and near miss), from a `Value` ≤ 1.20 (valid
//! and near miss),
//! foreign valid ≤ 1.3, foreign near miss ≤ 2. Allocations (equal to
//! strict serde on every workload) are counted by a test of the runtime
//! (`bind::limit`), whose binary has a counting allocator.
//!
//! The table comes from interleaved rounds (as `benches/ratio.rs`): each
//! round times every case in turn, and the fastest round of each case is
//! kept, which cancels most of the drift of a shared machine. Criterion
//! then measures each case on its own (skip it with a filter that matches
//! nothing: `cargo bench --bench limit -- table-only`).
//! Run: `cargo bench --bench limit`; `LIMIT_PROFILE="W2 nested/value: canon"`
//! runs one case alone for five seconds, for a profiler.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use canon::{Canonicalizer, Tool};
use criterion::{criterion_group, criterion_main, Criterion};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[allow(dead_code)]
mod common;
mod interleave;

use common::{rewrite, SearchCode, Strict, NEAR_MISS, VALID};

// W2: nested structs and lists.

/// One condition on issues.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct Filter {
    pub field: String,
    pub op: Op,
    pub values: Vec<String>,
}

/// How a filter compares.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum Op {
    Eq,
    Ne,
    In,
}

/// Which page of results.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct Page {
    pub size: u32,
    pub after: Option<String>,
}

/// Query the issues of a repository.
#[canon::tool]
pub fn query_issues(repo: String, filters: Vec<Filter>, sort: Vec<String>, page: Page) -> usize {
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

const W2_VALID: &str = r#"{"repo": "dotnet/eshop", "filters": [{"field": "label", "op": "in", "values": ["bug", "p1"]}, {"field": "state", "op": "eq", "values": ["open"]}, {"field": "author", "op": "ne", "values": ["bot", "ci"]}], "sort": ["updated", "created"], "page": {"size": 50, "after": "c2Vjb25k"}}"#;
const W2_NEAR: &str = r#"{"repo": "dotnet/eshop", "filters": [{"field": "label", "op": "in", "values": ["bug", "p1"]}, {"field": "state", "op": "eq", "values": "open"}, {"field": "author", "op": "ne", "values": ["bot", "ci"]}], "sort": ["updated", "created"], "page": {"size": 50, "after": "c2Vjb25k"}}"#;

// W3: many small fields.

/// Create a calendar event.
#[canon::tool]
#[allow(clippy::too_many_arguments)]
pub fn create_event(
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

const W3_VALID: &str = r#"{"title": "standup", "all_day": false, "start_hour": 9, "start_minute": 30, "duration_minutes": 15, "remind": true, "remind_minutes": 5, "private": false, "color": "teal", "priority": 2, "repeat": true, "repeat_days": ["mon", "wed", "fri"], "location": "room 4", "max_attendees": 12, "tentative": false, "notes": null}"#;
const W3_NEAR: &str = r#"{"title": "standup", "all_day": false, "start_hour": 9, "start_minute": 30, "duration_minutes": 15, "remind": true, "remind_minutes": 5, "private": false, "color": "teal", "priority": 2, "repeat": true, "repeat_days": "mon", "location": "room 4", "max_attendees": 12, "tentative": false, "notes": null}"#;

// W4: long strings.

/// Write a file and commit it.
#[canon::tool]
pub fn write_file(path: String, content: String, message: String, reviewers: Vec<String>) -> usize {
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

/// A `write_file` call with 4 KiB of source text (newlines and quotes
/// escaped, as models send code); `near` sends the reviewers as one string.
fn w4(near: bool) -> String {
    let line =
        r#"    let total = items.iter().map(|i| i.price * i.count).sum::<u64>(); // \"sum\"\n"#;
    let content = line.repeat(4096 / line.len() + 1);
    let message = "Compute the basket total once, in the service, instead of in every caller; \
                   the callers read it from the basket. "
        .repeat(3);
    let reviewers = if near {
        r#""ana""#
    } else {
        r#"["ana", "ben"]"#
    };
    format!(
        r#"{{"path": "src/Basket/BasketService.cs", "content": "{content}", "message": "{message}", "reviewers": {reviewers}}}"#
    )
}

// W5: a map of lists.

/// Set the label groups of a project.
#[canon::tool]
pub fn label_groups(groups: HashMap<String, Vec<String>>, dry_run: bool) -> usize {
    groups.len() + usize::from(dry_run)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct StrictGroups {
    groups: HashMap<String, Vec<String>>,
    dry_run: bool,
}

const W5_VALID: &str = r#"{"groups": {"backend": ["api", "db", "queue"], "frontend": ["web", "mobile"], "infra": ["k8s", "terraform", "ci"], "docs": ["guides", "reference"], "qa": ["e2e", "load"], "design": ["figma", "tokens"]}, "dry_run": false}"#;
const W5_NEAR: &str = r#"{"groups": {"backend": ["api", "db", "queue"], "frontend": ["web", "mobile"], "infra": ["k8s", "terraform", "ci"], "docs": "guides", "qa": ["e2e", "load"], "design": ["figma", "tokens"]}, "dry_run": false}"#;

/// The measured cases of one workload, each with the index (in the same
/// list) of the case it is compared with.
type Case<'a> = (&'static str, usize, Box<dyn Fn() + 'a>);

/// A case, boxed.
fn case<'a>(name: &'static str, baseline: usize, f: impl Fn() + 'a) -> Case<'a> {
    (name, baseline, Box::new(f))
}

/// The cases of a workload: `T` is the tool, `S` its strict twin.
fn cases<'a, T, S>(
    tool: &'a T,
    valid: &'a str,
    near: &'a str,
    canon: &'a Canonicalizer,
) -> Vec<Case<'a>>
where
    T: Tool,
    S: for<'de> Deserialize<'de> + 'a,
{
    let value: Value = serde_json::from_str(valid).unwrap();
    let near_value: Value = serde_json::from_str(near).unwrap();
    assert!(tool.bind_str(valid).unwrap().repairs.is_empty());
    assert_eq!(tool.bind_str(near).unwrap().repairs.len(), 1);
    assert!(tool.bind(&value).unwrap().repairs.is_empty());
    assert_eq!(tool.bind(&near_value).unwrap().repairs.len(), 1);
    let schema = tool.input_schema();
    let near_middleware = near_value.clone();
    let mut parsed = canon.parse(valid).unwrap();
    assert!(canon.canonicalize(&mut parsed).unwrap().is_empty());
    let mut parsed = canon.parse(near).unwrap();
    assert_eq!(canon.canonicalize(&mut parsed).unwrap().len(), 1);
    let strict_value = value.clone();
    vec![
        case("text: strict", 0, move || {
            black_box(serde_json::from_str::<S>(black_box(valid)).unwrap());
        }),
        case("text: canon, valid", 0, move || {
            black_box(tool.bind_str(black_box(valid)).ok().unwrap());
        }),
        case("text: canon, near miss", 0, move || {
            black_box(tool.bind_str(black_box(near)).ok().unwrap());
        }),
        case("value: strict", 3, move || {
            black_box(S::deserialize(black_box(&strict_value)).unwrap());
        }),
        case("value: canon", 3, move || {
            black_box(tool.bind(black_box(&value)).ok().unwrap());
        }),
        case("value: canon, near miss", 3, move || {
            black_box(tool.bind(black_box(&near_value)).ok().unwrap());
        }),
        case("value: middleware, near", 3, move || {
            let mut args = black_box(&near_middleware).clone();
            let mut repairs = Vec::new();
            rewrite(schema, schema, &mut args, String::new(), &mut repairs);
            black_box(&repairs);
            black_box(S::deserialize(args).ok());
        }),
        case("foreign: Value, valid", 7, move || {
            black_box(serde_json::from_str::<Value>(black_box(valid)).unwrap());
        }),
        case("foreign: canon, valid", 7, move || {
            let mut args = canon.parse(black_box(valid)).ok().unwrap();
            black_box(canon.canonicalize(&mut args).ok().unwrap());
            black_box(args);
        }),
        case("foreign: Value, near", 9, move || {
            black_box(serde_json::from_str::<Value>(black_box(near)).unwrap());
        }),
        case("foreign: canon, near", 9, move || {
            let mut args = canon.parse(black_box(near)).ok().unwrap();
            black_box(canon.canonicalize(&mut args).ok().unwrap());
            black_box(args);
        }),
    ]
}

const ROUNDS: usize = 60;
/// Each case runs this long in a round.
const ROUND: Duration = Duration::from_millis(2);

struct Workloads {
    canon: [Canonicalizer; 5],
    w4_valid: String,
    w4_near: String,
}

impl Workloads {
    fn new() -> Self {
        let foreign = |schema: &Value| Canonicalizer::new(schema).unwrap();
        Workloads {
            canon: [
                foreign(SearchCode.input_schema()),
                foreign(QueryIssues.input_schema()),
                foreign(CreateEvent.input_schema()),
                foreign(WriteFile.input_schema()),
                foreign(LabelGroups.input_schema()),
            ],
            w4_valid: w4(false),
            w4_near: w4(true),
        }
    }

    fn all(&self) -> Vec<(&'static str, Vec<Case<'_>>)> {
        let c = &self.canon;
        vec![
            (
                "W1 flat",
                cases::<_, Strict>(&SearchCode, VALID, NEAR_MISS, &c[0]),
            ),
            (
                "W2 nested",
                cases::<_, StrictQuery>(&QueryIssues, W2_VALID, W2_NEAR, &c[1]),
            ),
            (
                "W3 many fields",
                cases::<_, StrictEvent>(&CreateEvent, W3_VALID, W3_NEAR, &c[2]),
            ),
            (
                "W4 long strings",
                cases::<_, StrictWrite>(&WriteFile, &self.w4_valid, &self.w4_near, &c[3]),
            ),
            (
                "W5 map of lists",
                cases::<_, StrictGroups>(&LabelGroups, W5_VALID, W5_NEAR, &c[4]),
            ),
        ]
    }
}

/// The interleaved table: every case of every workload in each round.
fn table(workloads: &[(&'static str, Vec<Case<'_>>)]) {
    let flat: Vec<&dyn Fn()> = workloads
        .iter()
        .flat_map(|(_, cases)| cases.iter().map(|(_, _, case)| &**case))
        .collect();
    let best = interleave::interleaved(&flat, ROUNDS, ROUND);
    println!();
    println!(
        "Interleaved, {ROUNDS} rounds, fastest round of each (ns a call, ratio to its baseline):"
    );
    let mut ratios = Vec::new();
    let mut i = 0;
    for (workload, cases) in workloads {
        let base = i;
        let mut row = Vec::new();
        for (name, baseline, _) in cases {
            let ratio = best[i] / best[base + baseline];
            println!("  {workload:16} {name:24} {:9.1} ns  {ratio:.3}x", best[i]);
            row.push(ratio);
            i += 1;
        }
        ratios.push(row);
    }
    println!();
    println!("| workload | text, valid | text, near miss | from Value, valid | from Value, near miss | foreign, valid | foreign, near miss |");
    println!("|---|---|---|---|---|---|---|");
    for ((workload, _), row) in workloads.iter().zip(&ratios) {
        println!(
            "| {workload} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            row[1], row[2], row[4], row[5], row[8], row[10],
        );
    }
    println!(
        "goals: text <= 1.10, from Value <= 1.20, foreign valid <= 1.3, foreign near miss <= 2"
    );
    // The seed's middleware only knows `properties` and `items`: W1 is
    // the call it was written for.
    let w1 = &ratios[0];
    println!(
        "W1 near miss from a Value: the seed's middleware takes {:.2}x canon's time (goal >= 2.5)",
        w1[6] / w1[5]
    );
    println!();
}

fn limit(c: &mut Criterion) {
    let workloads = Workloads::new();
    let all = workloads.all();
    // `LIMIT_PROFILE="W2 nested/value: canon"` runs that one case for five
    // seconds and nothing else, for a profiler.
    if let Ok(wanted) = std::env::var("LIMIT_PROFILE") {
        for (workload, cases) in &all {
            for (name, _, case) in cases {
                if format!("{workload}/{name}") == wanted {
                    let start = Instant::now();
                    let mut calls = 0u64;
                    while start.elapsed() < Duration::from_secs(5) {
                        for _ in 0..1000 {
                            case();
                        }
                        calls += 1000;
                    }
                    // For counters read outside (`perf stat`): per call.
                    eprintln!("{wanted}: {calls} calls");
                }
            }
        }
        return;
    }
    table(&all);
    for (workload, cases) in &all {
        let mut group = c.benchmark_group(*workload);
        for (name, _, case) in cases {
            group.bench_function(*name, |b| b.iter(case));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(500));
    targets = limit
}
criterion_main!(benches);
