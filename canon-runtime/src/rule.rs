//! The binding rule, written once: what a lone string at a tolerant position
//! becomes.

use serde::de::IgnoredAny;

/// What to do with a string found where the schema says array of strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Bind `s` as `[s]`.
    Wrap,
    /// Empty or whitespace-only: `[""]` and `[]` would both be guesses.
    Blank,
    /// The text of a JSON array: wrapping it would bind the text, not the list.
    JsonArrayText,
}

/// Decides what a string at a tolerant position becomes.
#[inline]
pub(crate) fn string_at_string_array(s: &str) -> Verdict {
    // Most strings start with a visible ASCII character other than `[`:
    // they are neither blank nor array text, and need no further look.
    if let Some(&first) = s.as_bytes().first() {
        if first.is_ascii_graphic() && first != b'[' {
            return Verdict::Wrap;
        }
    }
    let trimmed = s.trim();
    if trimmed.is_empty() {
        Verdict::Blank
    } else if trimmed.starts_with('[') && serde_json::from_str::<IgnoredAny>(trimmed).is_ok() {
        Verdict::JsonArrayText
    } else {
        Verdict::Wrap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(string_at_string_array("dotnet/eshop"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[draft] notes"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[unterminated"), Verdict::Wrap);
        assert_eq!(string_at_string_array("a, b"), Verdict::Wrap);
        assert_eq!(string_at_string_array(""), Verdict::Blank);
        assert_eq!(string_at_string_array(" \t\n"), Verdict::Blank);
        assert_eq!(
            string_at_string_array("[\"a\",\"b\"]"),
            Verdict::JsonArrayText
        );
        assert_eq!(string_at_string_array("  [] "), Verdict::JsonArrayText);
        assert_eq!(string_at_string_array("[1, 2]"), Verdict::JsonArrayText);
    }
}
