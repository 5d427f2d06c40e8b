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
    /// The text of a list (a JSON array, or a list literal with quoted
    /// items such as `['a', 'b']`): wrapping it would bind the text, not the
    /// list, and canon never parses it.
    ListText,
}

/// Decides what a string at a tolerant position becomes.
#[inline]
pub(crate) fn string_at_string_array(s: &str) -> Verdict {
    // Most strings start with a visible ASCII character other than `[`:
    // they are neither blank nor list text, and need no further look.
    if let Some(&first) = s.as_bytes().first() {
        if first.is_ascii_graphic() && first != b'[' {
            return Verdict::Wrap;
        }
    }
    let trimmed = s.trim();
    if trimmed.is_empty() {
        Verdict::Blank
    } else if trimmed.starts_with('[')
        && (serde_json::from_str::<IgnoredAny>(trimmed).is_ok() || is_list_literal(trimmed))
    {
        Verdict::ListText
    } else {
        Verdict::Wrap
    }
}

/// True for `[item, item, ...]` where every item is a quoted string (single
/// or double quotes), a JSON number, or a literal (`true`, `None`, ...): the text
/// of a list as Python or JavaScript would print it. `[draft] notes` and
/// `[wip]` are not lists.
fn is_list_literal(text: &str) -> bool {
    let Some(inner) = text
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
    else {
        return false;
    };
    let mut rest = inner.trim();
    if rest.is_empty() {
        return true;
    }
    loop {
        let after = match rest.chars().next() {
            Some(quote @ ('\'' | '"')) => match quoted_end(rest, quote) {
                Some(end) => &rest[end..],
                None => return false,
            },
            Some(_) => {
                let end = rest.find(',').unwrap_or(rest.len());
                if !is_scalar_literal(rest[..end].trim()) {
                    return false;
                }
                &rest[end..]
            }
            None => return false,
        };
        let after = after.trim_start();
        match after.strip_prefix(',') {
            // A trailing comma ends a list too: `['a', 'b',]`.
            Some(next) if next.trim().is_empty() => return true,
            Some(next) => rest = next.trim_start(),
            None => return after.is_empty(),
        }
    }
}

/// The byte index just past the closing `quote` of the string that `text`
/// opens, skipping backslash escapes.
fn quoted_end(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            c if c == quote => return Some(i + c.len_utf8()),
            _ => {}
        }
    }
    None
}

fn is_scalar_literal(item: &str) -> bool {
    matches!(
        item,
        "true" | "false" | "null" | "True" | "False" | "None" | "undefined"
    ) || serde_json::from_str::<serde_json::Number>(item).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        assert_eq!(string_at_string_array("dotnet/eshop"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[draft] notes"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[wip]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[unterminated"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[a, b]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("a, b"), Verdict::Wrap);
        assert_eq!(string_at_string_array("['a' 'b']"), Verdict::Wrap);
        assert_eq!(string_at_string_array(""), Verdict::Blank);
        assert_eq!(string_at_string_array(" \t\n"), Verdict::Blank);
        assert_eq!(string_at_string_array("[\"a\",\"b\"]"), Verdict::ListText);
        assert_eq!(string_at_string_array("  [] "), Verdict::ListText);
        assert_eq!(string_at_string_array("[1, 2]"), Verdict::ListText);
        assert_eq!(
            string_at_string_array("['I', 'V', 'vi', 'IV']"),
            Verdict::ListText
        );
        assert_eq!(string_at_string_array("['8♥', '10♥']"), Verdict::ListText);
        assert_eq!(
            string_at_string_array("['it\\'s', \"b, c\"]"),
            Verdict::ListText
        );
        assert_eq!(
            string_at_string_array("['a', None, 3.5,]"),
            Verdict::ListText
        );
        assert_eq!(string_at_string_array("[,]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[nan]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[05]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[-1.5e3, 2]"), Verdict::ListText);
        assert_eq!(
            string_at_string_array("['a', None, 3.5]"),
            Verdict::ListText
        );
    }
}
