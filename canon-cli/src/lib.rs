//! `canon replay`: what a strict binder rejects among captured tool calls,
//! and what canon repairs.
//!
//! The `canon` command's library is the replay engine, the crate
//! `canon-replay`, re-exported whole: see [`canon_replay`].
//!
//! ```
//! use canon::Policy;
//! use canon_cli::{Replay, Tools};
//!
//! let calls = r#"{"tool": "t", "schema": {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}, "arguments": {"names": "a"}}"#;
//! let mut replay = Replay::new(Policy::DEFAULT, Tools::default());
//! let report = replay.run(calls.as_bytes(), |_| {}, |_| Ok(())).unwrap();
//! assert_eq!(report.totals.accepted_after_repair, 1);
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use canon_replay::*;
