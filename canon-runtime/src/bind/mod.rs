//! Binding a call: the JSON reader, the plan-guided tolerant adapter, the
//! repair rules and policy, the canonicalizer for foreign schemas, and the
//! diagnosis of a call that does not bind.

pub(crate) mod canonical;
pub(crate) mod diagnose;
pub(crate) mod integers;
pub(crate) mod json;
#[cfg(test)]
mod limit;
pub(crate) mod policy;
#[cfg(test)]
mod proptests;
pub(crate) mod rewrite;
pub(crate) mod rule;
pub(crate) mod telemetry;
pub(crate) mod text;
pub(crate) mod tolerant;
