//! Bounds on what a call may cost: input that a model produced, perhaps from
//! content an attacker wrote, must not make canon's work grow without end.

use crate::feedback::{messages, Violation};

/// Configurable bounds, with safe defaults. Each is enforced before work
/// grows, and each is reported to the model as a violation it can read.
///
/// ```
/// use canon::Limits;
///
/// let limits = Limits { max_text_bytes: 64 * 1024, ..Limits::default() };
/// assert_eq!(limits.max_listed, 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The longest arguments text read (default 1 MiB); longer text is
    /// refused before it is parsed.
    pub max_text_bytes: usize,
    /// The deepest nesting of arrays and objects bound (default 64, below
    /// serde_json's 128), the arguments object counting as one: a deeper
    /// call is refused, by the single pass as soon as it passes the bound
    /// and before canon's own walks recurse into it.
    pub max_depth: usize,
    /// The most repairs made in one call (default 64): a call needing more
    /// is refused rather than rewritten wholesale.
    pub max_repairs: usize,
    /// How many violations a refused call keeps and its model-facing text
    /// lists (default 20, at least 1); the rest are counted, not kept, so a
    /// call with a million wrong items costs no million violations.
    pub max_listed: usize,
    /// The longest model-facing text of a refused call, in bytes (default
    /// 8 KiB): violations that would make it longer are not listed but
    /// counted ("and N more"), as are those past
    /// [`max_listed`](Self::max_listed).
    pub max_feedback_bytes: usize,
    /// The longest tool output (or tool error text) shown to the model, in
    /// bytes (default 64 KiB): longer text is cut at a character boundary
    /// and ends with a marker saying how much was left out. The caller
    /// still gets the whole output in the [`CallResult`](crate::CallResult).
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_text_bytes: 1 << 20,
            max_depth: 64,
            max_repairs: 64,
            max_listed: crate::feedback::BindError::LISTED,
            max_feedback_bytes: 8 << 10,
            max_output_bytes: 64 << 10,
        }
    }
}

/// True when `value` holds arrays or objects nested more than `levels`
/// deep (a scalar is 0 levels, `[]` one): recursing at most `levels` deep,
/// allocating nothing.
pub(crate) fn nests_deeper(value: &serde_json::Value, levels: usize) -> bool {
    match value {
        serde_json::Value::Array(items) => {
            levels == 0 || items.iter().any(|item| nests_deeper(item, levels - 1))
        }
        serde_json::Value::Object(members) => {
            levels == 0
                || members
                    .values()
                    .any(|member| nests_deeper(member, levels - 1))
        }
        _ => false,
    }
}

impl Limits {
    /// True when `value` nests deeper than [`max_depth`](Self::max_depth)
    /// (recursing at most that deep, allocating nothing).
    pub(crate) fn too_deep(&self, value: &serde_json::Value) -> bool {
        nests_deeper(value, self.max_depth)
    }

    /// True when JSON `text` opens more than
    /// [`max_depth`](Self::max_depth) arrays and objects at once: one pass
    /// over the bytes, strings skipped, nothing allocated. (Text that is not
    /// JSON gets an answer too; it is refused either way.)
    pub(crate) fn text_too_deep(&self, text: &str) -> bool {
        let mut depth = 0usize;
        let mut in_string = false;
        let mut escaped = false;
        for &byte in text.as_bytes() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if byte == b'\\' {
                    escaped = true;
                } else if byte == b'"' {
                    in_string = false;
                }
                continue;
            }
            match byte {
                b'"' => in_string = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > self.max_depth {
                        return true;
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        false
    }

    /// The violation for a call nested deeper than the bound.
    pub(crate) fn too_deep_violation(&self) -> Violation {
        messages::too_deep(self.max_depth)
    }

    /// The violation for a call needing `n` repairs, over the bound.
    pub(crate) fn too_many_repairs(&self, n: usize) -> Violation {
        messages::too_many_repairs(n, self.max_repairs)
    }

    /// The violation for arguments text of `len` bytes, over the limit.
    pub(crate) fn too_large(&self, len: usize) -> Violation {
        messages::too_large(len, self.max_text_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;

    #[test]
    fn text_depth_counts_open_arrays_and_objects_outside_strings() {
        let limits = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        assert!(!limits.text_too_deep(r#"{"a": [{"b": 1}], "c": [[]]}"#));
        assert!(limits.text_too_deep(r#"{"a": [{"b": []}]}"#));
        assert!(!limits.text_too_deep(r#"{"a": "[[[[{{{{", "b": "\"[[[["}"#));
        assert!(!limits.text_too_deep("[][][][][][]"));
        assert!(limits.text_too_deep("[[[["));
    }
}
