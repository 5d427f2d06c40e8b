//! What a replay found: the counts, per rule and per violation kind, and
//! the table `canon replay` prints.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::formats::{shown, SHOWN_CHARS};
use crate::outcome::CallOutcome;

/// The counts of a replay.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Calls found in a trace that could not be replayed (no schema or no
    /// arguments captured, a tool the request did not declare): not
    /// counted above; `skipped_by_reason` tells why.
    #[serde(default)]
    pub skipped_calls: u64,
    /// Input lines read, blank ones included: what `merge` adds to the
    /// line numbers of the summaries that follow.
    pub lines: u64,
}

/// One violation kind among the still-rejected calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindCount {
    /// Still-rejected calls with at least one violation of this kind.
    pub calls: u64,
    /// Violations of this kind.
    pub violations: u64,
    /// The first one seen.
    pub example: Example,
}

/// One violation, as an example. The tool name and the pointer are kept
/// as [`shown`](crate::formats::shown) gives them (escaped, cut to 64
/// characters): a report stays small, and safe to print, whatever the
/// input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// The input line.
    pub line: u64,
    /// The tool called (escaped, and cut to 64 characters).
    pub tool: String,
    /// The violation's pointer (escaped, and cut to 64 characters).
    pub pointer: String,
    /// The message a model would read.
    pub message: String,
}

/// One tool's calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCount {
    /// Calls of this tool (schema errors excluded).
    pub calls: u64,
    /// Accepted strictly.
    pub accepted_strictly: u64,
    /// Rejected strictly, accepted after repair: what canon wins.
    pub accepted_after_repair: u64,
    /// Rejected by canon too.
    pub still_rejected: u64,
    /// The first call not accepted strictly: its first repair, or its first
    /// violation.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub example: Option<Example>,
}

/// Distinct tools [`Report::by_tool`] counts apart at most: the calls of
/// any further tool are counted under [`OTHER_TOOLS`], so that a report
/// stays small whatever the input (50,000 distinct 2 KB names would
/// otherwise take hundreds of megabytes).
pub const TOOLS_TRACKED: usize = 10_000;

/// The [`Report::by_tool`] entry that counts the calls of the tools past
/// [`TOOLS_TRACKED`] (and of a tool of this very name).
pub const OTHER_TOOLS: &str = "(other tools)";

/// What a replay found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The policy canon bound with.
    pub policy: String,
    /// Whether undeclared properties were refused.
    pub closed_objects: bool,
    /// The version of canon-cli that replayed: summaries of different
    /// versions are not merged (empty in a summary written before it was
    /// recorded).
    #[serde(default)]
    pub canon_version: String,
    /// A digest of the tool declarations the calls were checked against
    /// (`--tools`, or the bundled sample's), empty when none were given:
    /// summaries replayed against different declarations are not merged.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tools: String,
    /// The totals.
    pub totals: Totals,
    /// Per rule: how many calls it repaired (among those accepted after
    /// repair).
    pub repairs_by_rule: BTreeMap<String, u64>,
    /// Per rule: the first repair it made.
    #[serde(default)]
    pub repair_examples: BTreeMap<String, Example>,
    /// Per violation kind among the still-rejected calls.
    pub still_rejected_by_kind: BTreeMap<String, KindCount>,
    /// Per tool, by name as [`shown`](crate::formats::shown) gives it
    /// (escaped, cut to 64 characters: two names alike in their first 63
    /// characters are counted together). The first 10,000 (`TOOLS_TRACKED`)
    /// distinct tools in input order are counted apart; the calls of any
    /// other are counted under `"(other tools)"`.
    #[serde(default)]
    pub by_tool: BTreeMap<String, ToolCount>,
    /// Calls of a trace not replayed, per reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_by_reason: BTreeMap<String, u64>,
}

pub(crate) fn tally(report: &mut Report, by_tool: &mut ByTool, outcome: &CallOutcome) {
    let t = &mut report.totals;
    if outcome.outcome == "schema_error" {
        t.schema_errors += 1;
        return;
    }
    t.calls += 1;
    let tool = by_tool.entry(&outcome.tool);
    tool.calls += 1;
    match outcome.outcome {
        "accepted" => {
            t.accepted_strictly += 1;
            tool.accepted_strictly += 1;
        }
        "repaired" => {
            t.accepted_after_repair += 1;
            tool.accepted_after_repair += 1;
            if let (None, Some(first)) = (&tool.example, outcome.repairs.first()) {
                tool.example = Some(repair_example(outcome, first));
            }
            let mut rules: Vec<&canon::Repair> = outcome.repairs.iter().collect();
            rules.sort_by_key(|r| r.rule.as_str());
            rules.dedup_by_key(|r| r.rule.as_str());
            for repair in rules {
                let rule = repair.rule.as_str();
                *report.repairs_by_rule.entry(rule.to_owned()).or_default() += 1;
                if !report.repair_examples.contains_key(rule) {
                    // The first repair of this rule in the call, not the
                    // first kept by the dedup above.
                    let first = outcome
                        .repairs
                        .iter()
                        .find(|r| r.rule == repair.rule)
                        .unwrap_or(repair);
                    report
                        .repair_examples
                        .insert(rule.to_owned(), repair_example(outcome, first));
                }
            }
        }
        _ => {
            t.still_rejected += 1;
            tool.still_rejected += 1;
            if let (None, Some(first)) = (&tool.example, outcome.violations.first()) {
                tool.example = Some(violation_example(outcome, first));
            }
            let mut seen: Vec<String> = Vec::new();
            for violation in &outcome.violations {
                let kind = kind_name(violation);
                let entry = report
                    .still_rejected_by_kind
                    .entry(kind.clone())
                    .or_insert_with(|| KindCount {
                        calls: 0,
                        violations: 0,
                        example: violation_example(outcome, violation),
                    });
                entry.violations += 1;
                if !seen.contains(&kind) {
                    entry.calls += 1;
                    seen.push(kind);
                }
            }
        }
    }
}

/// The per-tool counts of a replay in progress: found by a hash of the
/// name (one lookup a call), put in name order by [`ByTool::finish`].
#[derive(Debug, Clone, Default)]
pub(crate) struct ByTool {
    /// Each name counted, as [`shown`] gives it, and its place in `counts`.
    index: HashMap<String, usize, lru::DefaultHasher>,
    counts: Vec<ToolCount>,
}

impl ByTool {
    /// The counts, by name.
    pub(crate) fn finish(self, by_tool: &mut BTreeMap<String, ToolCount>) {
        let mut counts: Vec<Option<ToolCount>> = self.counts.into_iter().map(Some).collect();
        for (name, i) in self.index {
            if let Some(count) = counts.get_mut(i).and_then(Option::take) {
                by_tool.insert(name, count);
            }
        }
    }

    /// The entry that counts the calls of `tool`: its own while fewer than
    /// 10,000 (`TOOLS_TRACKED`) tools are counted apart (or it is one of
    /// them), else `"(other tools)"`.
    fn entry(&mut self, tool: &str) -> &mut ToolCount {
        let name = shown(tool, SHOWN_CHARS);
        let i = match self.index.get(&*name) {
            Some(&i) => i,
            None => {
                let index = &self.index;
                let name = counted_under(&name, index.len(), index.contains_key(OTHER_TOOLS));
                match self.index.get(name) {
                    Some(&i) => i,
                    None => {
                        self.index.insert(name.to_owned(), self.counts.len());
                        self.counts.push(ToolCount::default());
                        self.counts.len() - 1
                    }
                }
            }
        };
        &mut self.counts[i]
    }
}

/// The [`Report::by_tool`] entry that counts the calls of `tool`, by the
/// rule [`ByTool::entry`] follows: for merging reports.
fn tool_entry<'a>(by_tool: &'a mut BTreeMap<String, ToolCount>, tool: &str) -> &'a mut ToolCount {
    let name = shown(tool, SHOWN_CHARS);
    if !by_tool.contains_key(&*name) {
        let name = counted_under(&name, by_tool.len(), by_tool.contains_key(OTHER_TOOLS));
        if name == OTHER_TOOLS {
            return by_tool.entry(OTHER_TOOLS.to_owned()).or_default();
        }
    }
    by_tool.entry(name.into_owned()).or_default()
}

/// The name the calls of a tool shown as `name`, not yet counted, are
/// counted under, where `counted` names are (`OTHER_TOOLS` among them
/// when `other`): its own while fewer than `TOOLS_TRACKED` tools are
/// counted apart, else `OTHER_TOOLS`.
fn counted_under(name: &str, counted: usize, other: bool) -> &str {
    let apart = counted - usize::from(other);
    if name == OTHER_TOOLS || apart >= TOOLS_TRACKED {
        OTHER_TOOLS
    } else {
        name
    }
}

fn repair_example(outcome: &CallOutcome, repair: &canon::Repair) -> Example {
    Example {
        line: outcome.line,
        tool: shown(&outcome.tool, SHOWN_CHARS).into_owned(),
        pointer: shown(&repair.pointer, SHOWN_CHARS).into_owned(),
        message: format!("repaired ({})", repair.rule.as_str()),
    }
}

fn violation_example(outcome: &CallOutcome, violation: &canon::Violation) -> Example {
    Example {
        line: outcome.line,
        tool: shown(&outcome.tool, SHOWN_CHARS).into_owned(),
        pointer: shown(&violation.pointer, SHOWN_CHARS).into_owned(),
        message: violation.message.clone(),
    }
}

/// Sets what only the whole input tells: the lines read and the failure
/// rates.
pub(crate) fn finish(report: &mut Report, lines: u64) {
    let t = &mut report.totals;
    t.lines = lines;
    t.failure_rate_before = 0.0;
    t.failure_rate_after = 0.0;
    if t.calls > 0 {
        t.failure_rate_before = t.calls.saturating_sub(t.accepted_strictly) as f64 / t.calls as f64;
        t.failure_rate_after = t.still_rejected as f64 / t.calls as f64;
    }
}

/// Why summaries cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError {
    /// Which summary (0-based, in the order given).
    pub index: usize,
    /// What differs.
    pub reason: String,
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "summary #{}: {}", self.index + 1, self.reason)
    }
}

impl std::error::Error for MergeError {}

/// The summary of consecutive shards of one input, given in input order:
/// exactly the report one replay over the whole input gives (its examples
/// are the first in input order, their line numbers counted from the start
/// of the whole). The shards must have been replayed with the same policy
/// and object reading; no summary at all gives an empty report.
///
/// When the whole input calls more than 10,000 (`TOOLS_TRACKED`) distinct tools,
/// the totals and the per-tool counts' sum stay exact, but which tools are
/// counted apart may differ from one replay of the whole: a summary keeps
/// its tools by name, not in input order, so the tools a shard adds past
/// the cap are taken in name order, the rest counted under
/// `"(other tools)"`.
///
/// # Errors
/// A shard replayed with another policy or object reading than the first;
/// a summary whose totals do not add up (calls accepted strictly, after
/// repair and still rejected are not its calls: not one `canon replay`
/// wrote); counts or line numbers whose sum overflows 64 bits (`totals
/// overflow`).
///
/// ```
/// use canon::Policy;
/// use canon_replay::{merge, Replay, Tools};
///
/// let line = r#"{"tool": "t", "schema": {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}, "arguments": {"names": "a"}}"#;
/// let run = |text: &str| Replay::new(Policy::DEFAULT, Tools::default()).run(text.as_bytes(), |_| {}, |_| Ok(())).unwrap();
/// let whole = run(&format!("{line}\n{line}\n"));
/// let shards = merge([run(&format!("{line}\n")), run(&format!("{line}\n"))]).unwrap();
/// assert_eq!(shards, whole);
/// ```
pub fn merge(reports: impl IntoIterator<Item = Report>) -> Result<Report, MergeError> {
    let mut merged: Option<Report> = None;
    for (index, next) in reports.into_iter().enumerate() {
        let error = |reason: &str| MergeError {
            index,
            reason: reason.to_owned(),
        };
        consistent(&next.totals).map_err(error)?;
        // The first too is added to an empty report, so that it is held
        // to the same bounds as the others.
        let whole = merged.get_or_insert_with(|| Report {
            policy: next.policy.clone(),
            closed_objects: next.closed_objects,
            canon_version: next.canon_version.clone(),
            tools: next.tools.clone(),
            ..Report::default()
        });
        if next.canon_version != whole.canon_version {
            let version = |v: &str| match v {
                "" => "an unrecorded version".to_owned(),
                v => format!("canon-cli {}", shown(v, SHOWN_CHARS)),
            };
            return Err(error(&format!(
                "written by {}, the first by {}: replay every shard with one build",
                version(&next.canon_version),
                version(&whole.canon_version)
            )));
        }
        if next.tools != whole.tools {
            return Err(error(
                "replayed against other tool declarations (--tools) than the first: \
                 replay every shard with the same tools file",
            ));
        }
        if next.policy != whole.policy || next.closed_objects != whole.closed_objects {
            return Err(MergeError {
                index,
                reason: format!(
                    "replayed with policy {} ({}), the first with policy {} ({})",
                    shown(&next.policy, SHOWN_CHARS),
                    objects(next.closed_objects),
                    shown(&whole.policy, SHOWN_CHARS),
                    objects(whole.closed_objects)
                ),
            });
        }
        add(whole, next).ok_or_else(|| error("totals overflow"))?;
    }
    Ok(merged.unwrap_or_default())
}

/// Whether a summary's totals add up (calls accepted strictly, after
/// repair, and still rejected are its calls), or why not.
fn consistent(t: &Totals) -> Result<(), &'static str> {
    let sum = t
        .accepted_strictly
        .checked_add(t.accepted_after_repair)
        .and_then(|n| n.checked_add(t.still_rejected));
    match sum {
        Some(sum) if sum == t.calls => Ok(()),
        _ => Err("inconsistent: its calls accepted strictly, accepted after repair and still rejected do not add up to its calls"),
    }
}

/// `n` added to `*to`; `None` when the sum overflows.
fn sum(to: &mut u64, n: u64) -> Option<()> {
    *to = to.checked_add(n)?;
    Some(())
}

/// Adds `next`, the summary of the shard after `whole`'s, to `whole`;
/// `None` when a count overflows (then `whole` is left half added).
fn add(whole: &mut Report, next: Report) -> Option<()> {
    let offset = whole.totals.lines;
    let shift = |mut e: Example| -> Option<Example> {
        e.line = e.line.checked_add(offset)?;
        Some(e)
    };
    let (t, n) = (&mut whole.totals, &next.totals);
    sum(&mut t.calls, n.calls)?;
    sum(&mut t.accepted_strictly, n.accepted_strictly)?;
    sum(&mut t.accepted_after_repair, n.accepted_after_repair)?;
    sum(&mut t.still_rejected, n.still_rejected)?;
    sum(&mut t.schema_errors, n.schema_errors)?;
    sum(&mut t.malformed_lines, n.malformed_lines)?;
    sum(&mut t.skipped_calls, n.skipped_calls)?;
    let lines = t.lines.checked_add(n.lines)?;
    for (reason, n) in next.skipped_by_reason {
        sum(whole.skipped_by_reason.entry(reason).or_default(), n)?;
    }
    for (rule, n) in next.repairs_by_rule {
        sum(whole.repairs_by_rule.entry(rule).or_default(), n)?;
    }
    for (rule, e) in next.repair_examples {
        if let std::collections::btree_map::Entry::Vacant(entry) = whole.repair_examples.entry(rule)
        {
            entry.insert(shift(e)?);
        }
    }
    for (kind, n) in next.still_rejected_by_kind {
        match whole.still_rejected_by_kind.get_mut(&kind) {
            Some(k) => {
                sum(&mut k.calls, n.calls)?;
                sum(&mut k.violations, n.violations)?;
            }
            None => {
                let example = shift(n.example)?;
                whole
                    .still_rejected_by_kind
                    .insert(kind, KindCount { example, ..n });
            }
        }
    }
    for (name, n) in next.by_tool {
        let tool = tool_entry(&mut whole.by_tool, &name);
        sum(&mut tool.calls, n.calls)?;
        sum(&mut tool.accepted_strictly, n.accepted_strictly)?;
        sum(&mut tool.accepted_after_repair, n.accepted_after_repair)?;
        sum(&mut tool.still_rejected, n.still_rejected)?;
        if let (None, Some(e)) = (&tool.example, n.example) {
            tool.example = Some(shift(e)?);
        }
    }
    finish(whole, lines);
    Some(())
}

fn objects(closed: bool) -> &'static str {
    if closed {
        "undeclared properties refused"
    } else {
        "schemas read as written"
    }
}

/// The violation kind's snake_case name (`wrong_type`).
fn kind_name(violation: &canon::Violation) -> String {
    match serde_json::to_value(violation.kind) {
        Ok(Value::String(name)) => name,
        _ => "other".to_owned(),
    }
}

/// Tools listed in the table; `--json` has them all.
const TOOL_ROWS: usize = 12;

/// Characters of a message (or a source's name) printed at most.
const MESSAGE_CHARS: usize = 240;

/// The report as the table `canon replay` prints: the totals, then the
/// repaired calls per rule, the still-rejected calls per violation kind and
/// the tools, each sorted by what repairs win (most calls first), with the
/// first example of each. Every text of the report (tool names, pointers,
/// messages, reasons: a summary read back may hold anything) is printed as
/// [`shown`](crate::formats::shown) gives it: escaped, and cut short.
pub fn render(report: &Report, source: &str) -> String {
    let name = |text: &str| shown(text, SHOWN_CHARS).into_owned();
    let source = shown(source, MESSAGE_CHARS);
    let policy = name(&report.policy);
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
        "canon replay: {} calls from {source}; policy {policy}; {objects}\n",
        t.calls
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
    if t.skipped_calls > 0 {
        let _ = writeln!(
            out,
            "  not replayed: {} calls of the trace",
            t.skipped_calls
        );
        for (reason, n) in &report.skipped_by_reason {
            let _ = writeln!(out, "    {n:>8}  {}", name(reason));
        }
    }
    let at = |e: &Example| {
        let pointer = if e.pointer.is_empty() {
            "(arguments)".to_owned()
        } else {
            name(&e.pointer)
        };
        format!("line {}, {} {pointer}", e.line, name(&e.tool))
    };
    if !report.repairs_by_rule.is_empty() {
        let _ = writeln!(out, "\nrepaired calls, by rule (calls, first repair)");
        let mut rules: Vec<_> = report.repairs_by_rule.iter().collect();
        rules.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (rule, n) in rules {
            let rule_name = name(rule);
            match report.repair_examples.get(rule) {
                Some(e) => {
                    let _ = writeln!(out, "  {rule_name:<24}{n:>8}   {}", at(e));
                }
                None => {
                    let _ = writeln!(out, "  {rule_name:<24}{n:>8}");
                }
            }
        }
    }
    if !report.still_rejected_by_kind.is_empty() {
        let _ = writeln!(
            out,
            "\nstill rejected, by violation kind (calls, one example each)"
        );
        let mut kinds: Vec<_> = report.still_rejected_by_kind.iter().collect();
        kinds.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
        for (kind, count) in kinds {
            let e = &count.example;
            let _ = writeln!(
                out,
                "  {:<16}{:>8}   {}: {}",
                name(kind),
                count.calls,
                at(e),
                shown(&e.message, MESSAGE_CHARS)
            );
        }
    }
    let mut tools: Vec<_> = report
        .by_tool
        .iter()
        .filter(|(_, c)| c.accepted_strictly < c.calls)
        .collect();
    if !tools.is_empty() {
        // What canon wins first, then what a rule could still win.
        tools.sort_by(|a, b| {
            (b.1.accepted_after_repair, b.1.still_rejected)
                .cmp(&(a.1.accepted_after_repair, a.1.still_rejected))
                .then(a.0.cmp(b.0))
        });
        let _ = writeln!(
            out,
            "\ntools with calls a strict binder rejects (calls, repaired, still rejected, first)"
        );
        for (tool, c) in tools.iter().take(TOOL_ROWS) {
            let first = c.example.as_ref().map(at).unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<32}{:>8}{:>10}{:>10}   {first}",
                name(tool),
                c.calls,
                c.accepted_after_repair,
                c.still_rejected
            );
        }
        if tools.len() > TOOL_ROWS {
            let _ = writeln!(
                out,
                "  and {} more tools (--json lists every one)",
                tools.len() - TOOL_ROWS
            );
        }
    }
    out
}
