//! What a published schema says: the plan compiled from it, the acceptance
//! check, its walks, its `type` bits, `$ref`s and JSON Pointers.

pub(crate) mod accept;
pub(crate) mod constraint;
pub(crate) mod plan;
pub(crate) mod pointer;
pub(crate) mod refs;
pub(crate) mod types;
pub(crate) mod walk;

/// How deep canon follows a schema or a value on any of its recursive
/// walks (compiling a plan, checking, canonicalizing, diagnosing, reading
/// JSON text): serde_json's own recursion limit. A schema nested deeper is
/// taken as unsure, a value nested deeper is refused.
pub(crate) const MAX_DEPTH: usize = 128;
