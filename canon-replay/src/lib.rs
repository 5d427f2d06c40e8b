//! The engine of `canon replay`: what a strict binder rejects among
//! captured tool calls, and what canon repairs.
//!
//! The engine behind the `canon` command (the crate `canon-cli`, which
//! re-exports it), usable on its own and by the SQL functions of
//! `canon-datafusion`: read captured calls as JSON Lines or provider logs,
//! bind each strictly and with a [`Policy`](canon::Policy), and count.
//!
//! ```
//! use canon::Policy;
//! use canon_replay::{Replay, Tools};
//!
//! let calls = r#"{"tool": "t", "schema": {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}, "arguments": {"names": "a"}}"#;
//! let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
//! let report = replay.run(calls.as_bytes(), |_| {}, |_| Ok(())).unwrap();
//! assert_eq!(report.totals.calls, 1);
//! assert_eq!(report.totals.accepted_after_repair, 1);
//! assert_eq!(report.repairs_by_rule["scalar_to_array"], 1);
//! ```
//!
//! The input is read as hostile, and what it can make the engine hold is
//! bounded: a line is held up to [`formats::MAX_RECORD`] bytes (see
//! [`Replay::max_line`]), compiled schemas by number ([`CACHE_CAPACITY`])
//! and by the bytes of their texts ([`CACHE_BYTES`], none over
//! [`CACHED_SCHEMA_MAX`]), and a [`Report`] counts at most
//! [`TOOLS_TRACKED`] tools by name, the rest under [`OTHER_TOOLS`]. Text of
//! the input in an error message is escaped and cut short
//! ([`formats::shown`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod borrowed;
pub mod formats;
mod lines;
mod outcome;
mod parallel;
mod replay;
mod report;
mod trace;

pub use outcome::{CallOutcome, LineError};
pub use replay::{
    Binding, CallRef, Recent, Replay, Tally, Tools, CACHED_SCHEMA_MAX, CACHE_BYTES, CACHE_CAPACITY,
    MAX_ARGUMENTS_TEXT, MAX_JOBS, SAMPLE_CALLS, SAMPLE_TOOLS,
};
pub use report::{
    merge, render, Example, KindCount, MergeError, Report, ToolCount, Totals, OTHER_TOOLS,
    TOOLS_TRACKED,
};
