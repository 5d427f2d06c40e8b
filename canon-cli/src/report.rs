//! What a replay found: the counts, per rule and per violation kind, and
//! the table `canon replay` prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::CallOutcome;

/// The counts of a replay.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Calls replayed (malformed lines excluded).
    pub calls: u64,
    /// Calls a strict binder accepts as sent.
    pub accepted_strictly: u64,
    /// Calls a strict binder rejects and canon accepts after repair.
    pub accepted_after_repair: u64,
    /// Calls canon rejects too.
    pub still_rejected: u64,
    /// Share of calls a strict binder rejects.
    pub failure_rate_before: f64,
    /// Share of calls canon rejects.
    pub failure_rate_after: f64,
    /// Calls whose schema is not a valid JSON Schema (not counted above).
    pub schema_errors: u64,
    /// Input lines that are not a call (not counted above).
    pub malformed_lines: u64,
}

/// One violation kind among the still-rejected calls.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KindCount {
    /// Still-rejected calls with at least one violation of this kind.
    pub calls: u64,
    /// Violations of this kind.
    pub violations: u64,
    /// The first one seen.
    pub example: Example,
}

/// One violation, as an example.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Example {
    /// The input line.
    pub line: u64,
    /// The tool called.
    pub tool: String,
    /// The violation's pointer.
    pub pointer: String,
    /// The message a model would read.
    pub message: String,
}

/// What a replay found.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// The policy canon bound with.
    pub policy: String,
    /// Whether undeclared properties were refused.
    pub closed_objects: bool,
    /// The totals.
    pub totals: Totals,
    /// Per rule: how many calls it repaired (among those accepted after
    /// repair).
    pub repairs_by_rule: BTreeMap<String, u64>,
    /// Per violation kind among the still-rejected calls.
    pub still_rejected_by_kind: BTreeMap<String, KindCount>,
}

pub(crate) fn tally(report: &mut Report, outcome: &CallOutcome) {
    let t = &mut report.totals;
    match outcome.outcome {
        "schema_error" => {
            t.schema_errors += 1;
            return;
        }
        "accepted" => t.accepted_strictly += 1,
        "repaired" => {
            t.accepted_after_repair += 1;
            let mut rules: Vec<&str> = outcome.repairs.iter().map(|r| r.rule.as_str()).collect();
            rules.sort_unstable();
            rules.dedup();
            for rule in rules {
                *report.repairs_by_rule.entry(rule.to_owned()).or_default() += 1;
            }
        }
        _ => {
            t.still_rejected += 1;
            let mut seen: Vec<String> = Vec::new();
            for violation in &outcome.violations {
                let kind = kind_name(violation);
                let entry = report
                    .still_rejected_by_kind
                    .entry(kind.clone())
                    .or_insert_with(|| KindCount {
                        calls: 0,
                        violations: 0,
                        example: Example {
                            line: outcome.line,
                            tool: outcome.tool.clone(),
                            pointer: violation.pointer.clone(),
                            message: violation.message.clone(),
                        },
                    });
                entry.violations += 1;
                if !seen.contains(&kind) {
                    entry.calls += 1;
                    seen.push(kind);
                }
            }
        }
    }
    report.totals.calls += 1;
}

/// The violation kind's snake_case name (`wrong_type`).
fn kind_name(violation: &canon::Violation) -> String {
    match serde_json::to_value(violation.kind) {
        Ok(Value::String(name)) => name,
        _ => "other".to_owned(),
    }
}

/// The report as the table `canon replay` prints.
pub fn render(report: &Report, source: &str) -> String {
    let t = &report.totals;
    let share = |n: u64| {
        if t.calls == 0 {
            0.0
        } else {
            100.0 * n as f64 / t.calls as f64
        }
    };
    let mut out = String::new();
    let objects = if report.closed_objects {
        "undeclared properties refused"
    } else {
        "schemas read as written"
    };
    let _ = writeln!(
        out,
        "canon replay: {} calls from {source}; policy {}; {objects}\n",
        t.calls, report.policy
    );
    let _ = writeln!(out, "  {:<24}{:>8}{:>9}", "", "calls", "share");
    for (label, n) in [
        ("accepted strictly", t.accepted_strictly),
        ("accepted after repair", t.accepted_after_repair),
        ("still rejected", t.still_rejected),
    ] {
        let _ = writeln!(out, "  {label:<24}{n:>8}{:>8.1}%", share(n));
    }
    let _ = writeln!(
        out,
        "\n  failure rate: {:.1}% with a strict binder, {:.1}% with canon",
        100.0 * t.failure_rate_before,
        100.0 * t.failure_rate_after
    );
    if t.schema_errors > 0 || t.malformed_lines > 0 {
        let _ = writeln!(
            out,
            "  not counted: {} calls with an invalid schema, {} malformed lines",
            t.schema_errors, t.malformed_lines
        );
    }
    if !report.repairs_by_rule.is_empty() {
        let _ = writeln!(out, "\nrepaired calls, by rule");
        for (rule, n) in &report.repairs_by_rule {
            let _ = writeln!(out, "  {rule:<24}{n:>8}");
        }
    }
    if !report.still_rejected_by_kind.is_empty() {
        let _ = writeln!(
            out,
            "\nstill rejected, by violation kind (calls, one example each)"
        );
        for (kind, count) in &report.still_rejected_by_kind {
            let e = &count.example;
            let pointer = if e.pointer.is_empty() {
                "(arguments)"
            } else {
                &e.pointer
            };
            let _ = writeln!(
                out,
                "  {kind:<16}{:>8}   line {}, {} {pointer}: {}",
                count.calls, e.line, e.tool, e.message
            );
        }
    }
    out
}
