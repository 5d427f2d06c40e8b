//! Nothing to use: this crate holds the UI tests of canon's macros in
//! `tests/ui/`, run by `tests/ui.rs`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
