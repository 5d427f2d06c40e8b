//! What canon records through `tracing`: where and which rule, never a
//! value.

use std::time::Duration;

use crate::feedback::BindError;
use crate::repair::Repair;

/// Records one repair of a call of `tool` (target `canon::repair`, INFO).
pub(crate) fn repair(tool: &str, repair: &Repair) {
    tracing::info!(
        target: "canon::repair",
        tool = %tool,
        pointer = %repair.pointer,
        rule = repair.rule.as_str(),
        "repaired a tool call",
    );
}

/// Records a rejected call (target `canon::reject`, WARN) and returns its
/// error.
pub(crate) fn reject(error: BindError) -> BindError {
    tracing::warn!(
        target: "canon::reject",
        tool = %error.tool(),
        pointers = ?error.pointers(),
        violations = error.violations().len(),
        "rejected a tool call",
    );
    error
}

/// Records a call stopped at its timeout (target `canon::timeout`, WARN):
/// the tool and the timeout in milliseconds.
pub(crate) fn timeout(tool: &str, after: Duration) {
    tracing::warn!(
        target: "canon::timeout",
        tool = %tool,
        timeout_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX),
        "a tool call did not finish within its timeout",
    );
}
