//! What the engine gives for each call and each malformed line: at the
//! bottom, for the report and every reader to use.

use canon::Repair;
use serde::Serialize;

/// What became of one call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallOutcome {
    /// The input line.
    pub line: u64,
    /// The tool called.
    pub tool: String,
    /// `accepted`, `repaired`, `rejected` or `schema_error`.
    pub outcome: &'static str,
    /// The repairs canon made (for `repaired`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<Repair>,
    /// The violations that remain (for `rejected`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<canon::Violation>,
    /// The schema's error (for `schema_error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_error: Option<String>,
    /// The input's own label (`class` or `note`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl CallOutcome {
    /// The call at `line` to `tool` as `outcome` says, with nothing listed
    /// yet.
    pub(crate) fn new(line: u64, tool: &str, outcome: &'static str, label: Option<String>) -> Self {
        CallOutcome {
            line,
            tool: tool.to_owned(),
            outcome,
            repairs: Vec::new(),
            violations: Vec::new(),
            schema_error: None,
            label,
        }
    }
}

/// A malformed input line: its number and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub reason: String,
}
