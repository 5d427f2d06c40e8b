//! The sentences canon writes to the model around a call: what a tool's
//! outcome says ("failed", "did not finish", "no tool named"), the note on
//! repairs, the limits' sentences and the bounds on echoed text. The
//! envelope of a refused call and its violations are in the parent module.

use std::time::Duration;

use serde_json::Value;

use super::{name_preview, Violation, ViolationKind};
use crate::repair::{Repair, RepairRule};

/// How the message of a [`ToolOutcome::Failed`](crate::toolbox::ToolOutcome::Failed) for a panic begins.
pub(crate) const PANICKED: &str = "the tool panicked: ";

/// A tool's error text as the model is shown it: escaped onto one line,
/// so that it cannot forge structure in the model's context, at most `max`
/// bytes (cut at a character boundary between escapes), followed on its own
/// line by a marker saying how many of its bytes were shown.
pub(crate) fn shown(text: &str, max: usize) -> String {
    // Escaping only lengthens text: text that fits escaped fits as sent.
    if text.len() <= max {
        let escaped = super::visible(text.to_owned());
        if escaped.len() <= max {
            return escaped;
        }
    }
    let mut out = String::with_capacity(max.min(text.len()) + 64);
    let mut kept = 0;
    for (at, c) in text.char_indices() {
        // Escaped exactly as the rest of canon's feedback.
        let unit = super::escaped(c);
        let len = unit.as_ref().map_or(c.len_utf8(), |u| u.len());
        if out.len() + len > max {
            break;
        }
        match unit {
            Some(unit) => out.push_str(&unit),
            None => out.push(c),
        }
        kept = at + c.len_utf8();
    }
    out.push('\n');
    out.push_str(&marker("error text", kept, text.len()));
    out
}

/// The marker saying that only `kept` of a text's `len` bytes were shown.
fn marker(what: &str, kept: usize, len: usize) -> String {
    format!("[canon: {what} truncated to its first {kept} of {len} bytes]")
}

/// How much of a tool's output text is shown: the length of its first
/// `max` bytes at most (cut at a character boundary), and the marker saying
/// so when it was cut.
fn cut(text: &str, max: usize) -> (usize, Option<String>) {
    if text.len() <= max {
        return (text.len(), None);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (end, Some(marker("output", end, text.len())))
}

/// A duration as a person writes it: `500 ms`, `30 s`, `1.5 s`, `2 min`.
pub(crate) fn readable(duration: Duration) -> String {
    /// `whole.fraction` with the fraction's trailing zeros dropped.
    fn decimal(whole: u128, fraction: u128, digits: usize) -> String {
        let fraction = format!("{fraction:0digits$}");
        let fraction = fraction.trim_end_matches('0');
        if fraction.is_empty() {
            whole.to_string()
        } else {
            format!("{whole}.{fraction}")
        }
    }
    let nanos = duration.as_nanos();
    if nanos < 1_000_000_000 {
        // Below a second: milliseconds, to the microsecond.
        let micros = nanos / 1_000;
        return format!("{} ms", decimal(micros / 1_000, micros % 1_000, 3));
    }
    let millis = nanos / 1_000_000;
    if millis % 60_000 == 0 {
        return format!("{} min", millis / 60_000);
    }
    format!("{} s", decimal(millis / 1_000, millis % 1_000, 3))
}

pub(crate) fn repair_note(repairs: &[Repair]) -> String {
    let mut parts = Vec::new();
    for repair in repairs {
        parts.push(match repair.rule {
            RepairRule::ScalarToArray => format!(
                "{} was sent as a string and read as a one-element array; send an array",
                super::short_pointer(&repair.pointer)
            ),
            RepairRule::EmptyArguments => {
                "the arguments were empty and read as {}; send an object".to_owned()
            }
            RepairRule::JsonText => format!(
                "{} was sent as the text of JSON and parsed; send the value itself",
                super::short_pointer(&repair.pointer)
            ),
            RepairRule::NumberText => format!(
                "{} was sent as a string and read as a number; send a number",
                super::short_pointer(&repair.pointer)
            ),
            RepairRule::BoolText => format!(
                "{} was sent as a string and read as a boolean; send true or false",
                super::short_pointer(&repair.pointer)
            ),
            RepairRule::NullAsAbsent => format!(
                "{} was sent as null and left out; omit it instead",
                super::short_pointer(&repair.pointer)
            ),
        });
    }
    format!("(Note: {}.)", parts.join("; "))
}

/// A tool's output as the model reads it, and what canon says beside it.
///
/// The output is a string as it is, anything else as JSON, at most `max`
/// bytes: never anything but the output's own bytes, so that text a
/// client parses (a tool's JSON) stays parseable. The note, for a block of
/// its own after the output, says on one line each that the output was
/// cut, and, with `notes`, which repairs the call needed.
pub(crate) fn output(
    output: &Value,
    notes: Option<&[Repair]>,
    max: usize,
) -> (String, Option<String>) {
    let (text, cut) = match output {
        Value::String(s) => {
            let (end, cut) = cut(s, max);
            (s[..end].to_owned(), cut)
        }
        other => {
            let mut json = other.to_string();
            let (end, cut) = cut(&json, max);
            json.truncate(end);
            (json, cut)
        }
    };
    let repairs = notes.filter(|r| !r.is_empty()).map(repair_note);
    let note = match (cut, repairs) {
        (Some(cut), Some(repairs)) => Some(format!("{cut}\n{repairs}")),
        (cut, repairs) => cut.or(repairs),
    };
    (text, note)
}

/// A tool that panicked, without the panic's text.
pub(crate) fn failed_unexpectedly(tool: &str) -> String {
    format!("The tool `{}` failed unexpectedly.", name_preview(tool))
}

/// A tool that returned an error: its text escaped onto one line, at most
/// `max` bytes.
pub(crate) fn failed(tool: &str, message: &str, max: usize) -> String {
    format!(
        "The tool `{}` failed: {}",
        name_preview(tool),
        shown(message, max)
    )
}

/// A tool stopped at its timeout.
pub(crate) fn timed_out(tool: &str, after: Duration) -> String {
    format!(
        "The tool `{}` did not finish within {} and was stopped.",
        name_preview(tool),
        readable(after)
    )
}

/// A call to a tool the toolbox does not have.
pub(crate) fn no_such_tool(name: &str, closest: Option<&str>, available: &[String]) -> String {
    let list: Vec<String> = available.iter().map(|n| format!("`{n}`")).collect();
    let hint = match closest {
        Some(c) => format!(" Did you mean `{c}`?"),
        None => String::new(),
    };
    format!(
        "There is no tool named `{}`.{hint} The tools are {}.",
        name_preview(name),
        if list.is_empty() {
            "none".to_owned()
        } else {
            list.join(", ")
        }
    )
}

/// An MCP `tools/call` naming a tool the server does not have.
#[cfg_attr(not(feature = "rmcp"), allow(dead_code))]
pub(crate) fn mcp_unknown_tool(name: &str) -> String {
    format!("Unknown tool: {}", name_preview(name))
}

/// A call with a timeout where no Tokio timer can run.
pub(crate) fn untimed(after: Duration) -> String {
    format!(
        "the call has a timeout of {}, which needs a Tokio runtime with time enabled, \
         and none is current; the tool did not run",
        readable(after)
    )
}

/// A tool whose output could not be serialized.
pub(crate) fn unserializable(error: &impl std::fmt::Display) -> String {
    format!("its output could not be serialized: {error}")
}

/// The violation for a call nested deeper than `max_depth`.
pub(crate) fn too_deep(max_depth: usize) -> Violation {
    over(
        format!("arrays and objects nested at most {max_depth} deep"),
        format!(
            "the arguments nest arrays and objects deeper than {max_depth} levels; send a flatter call"
        ),
    )
}

/// The violation for a call needing `n` repairs, over `max_repairs`.
pub(crate) fn too_many_repairs(n: usize, max_repairs: usize) -> Violation {
    over(
        format!("at most {max_repairs} values sent in the wrong shape"),
        format!(
            "{n} values are in the wrong shape (at most {max_repairs} are read as meant); send arrays as arrays"
        ),
    )
}

/// The violation for arguments text of `len` bytes, over `max_text_bytes`.
pub(crate) fn too_large(len: usize, max_text_bytes: usize) -> Violation {
    over(
        format!("at most {max_text_bytes} bytes of arguments"),
        format!(
            "the arguments are {len} bytes, over the limit of {max_text_bytes}; send shorter values"
        ),
    )
}

/// A call over a bound: a violation of the whole arguments.
fn over(expected: String, message: String) -> Violation {
    Violation::new("", ViolationKind::TooLarge, expected, None, message)
}
