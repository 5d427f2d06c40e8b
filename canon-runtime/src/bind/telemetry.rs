//! What canon records through `tracing`: where and which rule, never a
//! value.
//!
//! Each call through a toolbox is a span (target `canon::call`) named after
//! the OpenTelemetry GenAI semantic conventions for tool execution; the
//! repair, rejection and timeout events of the call are emitted inside it.

use std::cell::Cell;
use std::time::Duration;

use tracing::field::Empty;
use tracing::Span;

use crate::feedback::name_preview;
use crate::feedback::BindError;
use crate::repair::Repair;

/// The span of one call of `tool` with the call id `call_id` (target
/// `canon::call`, INFO), as the OpenTelemetry GenAI semantic conventions
/// describe tool execution: named `execute_tool {tool}` (through
/// `otel.name`), kind internal, with `gen_ai.operation.name`,
/// `gen_ai.tool.name`, `gen_ai.tool.call.id` and `gen_ai.tool.type`; the
/// fields `error.type` and `otel.status_code` are recorded by
/// [`call_outcome`] when the call fails. The arguments are not recorded;
/// the name and the id, which the model chose, are recorded as an unknown
/// tool's name is shown ([`name_preview`]: one line, at most
/// [`PREVIEW_CHARS`](crate::feedback::PREVIEW_CHARS) characters). Nothing
/// is computed when no subscriber takes the span.
pub(crate) fn call_span(tool: &str, call_id: &str) -> Span {
    tracing::info_span!(
        target: "canon::call",
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", name_preview(tool)),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %name_preview(tool),
        gen_ai.tool.call.id = %name_preview(call_id),
        gen_ai.tool.type = "function",
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// Records on `span` what became of its call: for a call that did not run
/// successfully, its `error.type` (`ToolOutcome::error_type`) and
/// `otel.status_code = "ERROR"`. Neither the
/// tool's error text nor a panic's is recorded: either may quote the
/// arguments.
pub(crate) fn call_outcome(span: &Span, error_type: Option<&'static str>) {
    if let Some(error_type) = error_type {
        span.record("error.type", error_type);
        span.record("otel.status_code", "ERROR");
    }
}

thread_local! {
    /// Set while a call is bound whose repairs are traced only once it is
    /// accepted as a whole ([`quietly`]).
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `bind` (synchronous: a binding) with no repair traced, so that the
/// caller traces the repairs of a call it accepts and none of a call it
/// then refuses (for a bound of its own, or because the Rust type refused
/// what the schema took).
pub(crate) fn quietly<R>(bind: impl FnOnce() -> R) -> R {
    /// Restores the flag however `bind` ends (a panicking `Deserialize`).
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|quiet| quiet.set(self.0));
        }
    }
    let _restore = Restore(QUIET.with(|quiet| quiet.replace(true)));
    bind()
}

/// Whether any subscriber may take an INFO event: one load of the global
/// filter, checked before the thread's quiet flag, so that a repaired call
/// with no subscriber pays for neither.
#[inline]
pub(crate) fn info_enabled() -> bool {
    tracing::Level::INFO <= tracing::level_filters::STATIC_MAX_LEVEL
        && tracing::Level::INFO <= tracing::level_filters::LevelFilter::current()
}

/// Records one repair of a call of `tool` (target `canon::repair`, INFO),
/// unless the call is being bound [`quietly`].
pub(crate) fn repair(tool: &str, repair: &Repair) {
    if !info_enabled() || QUIET.with(Cell::get) {
        return;
    }
    tracing::info!(
        target: "canon::repair",
        tool = %name_preview(tool),
        pointer = %crate::feedback::short_pointer(&repair.pointer),
        rule = repair.rule.as_str(),
        "repaired a tool call",
    );
}

/// Records a rejected call (target `canon::reject`, WARN) and returns its
/// error.
pub(crate) fn reject(error: BindError) -> BindError {
    tracing::warn!(
        target: "canon::reject",
        tool = %name_preview(error.tool()),
        pointers = ?error
            .pointers()
            .into_iter()
            .map(crate::feedback::short_pointer)
            .collect::<Vec<_>>(),
        violations = error.count(),
        "rejected a tool call",
    );
    error
}

/// Records a call stopped at its timeout (target `canon::timeout`, WARN):
/// the tool and the timeout in milliseconds.
pub(crate) fn timeout(tool: &str, after: Duration) {
    tracing::warn!(
        target: "canon::timeout",
        tool = %name_preview(tool),
        timeout_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX),
        "a tool call did not finish within its timeout",
    );
}
