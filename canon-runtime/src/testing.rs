//! Checks for your own tools, in your own `cargo test`.
