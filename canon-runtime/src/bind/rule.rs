//! The binding rules, written once: what a string at a position where the
//! schema admits no string becomes. Both binding paths (the single pass of
//! `#[tool]` and [`Canonicalizer`](crate::Canonicalizer)) decide here.

use serde::de::IgnoredAny;
use serde_json::{Number, Value};

use crate::bind::policy::Policy;
use crate::repair::RepairRule;
use crate::schema::plan::{Node, TEXT_ARRAY, TEXT_BOOL, TEXT_INTEGER, TEXT_NUMBER, TEXT_OBJECT};

/// What a string at a plan position becomes under a policy.
#[derive(Debug, PartialEq)]
pub(crate) enum Fix {
    /// Nothing applies: the string stays.
    Keep,
    /// Replace the string by this value; the rule that did it.
    Replace(Value, RepairRule),
    /// Make the string the one item of an array (the core rule,
    /// [`RepairRule::ScalarToArray`]), in place: the string is moved, not
    /// copied.
    Wrap,
    /// The core rule refuses the string (blank, or the text of a list).
    Refuse(Verdict),
}

/// Decides what the string `s`, found at `node`, becomes under `policy`:
/// `json_text` first (JSON array or object text where the schema admits
/// it), then the core rule, then `number_text`, then `bool_text`.
pub(crate) fn string_at(node: &Node, policy: Policy, s: &str) -> Fix {
    if node.text & (TEXT_ARRAY | TEXT_OBJECT) != 0 && policy.contains(RepairRule::JsonText) {
        if let Some(value) = json_text(s, node.text) {
            return Fix::Replace(value, RepairRule::JsonText);
        }
    }
    if node.wrap_string && policy.contains(RepairRule::ScalarToArray) {
        return match string_at_string_array(s) {
            Verdict::Wrap => Fix::Wrap,
            refused => Fix::Refuse(refused),
        };
    }
    if node.text & (TEXT_NUMBER | TEXT_INTEGER) != 0 && policy.contains(RepairRule::NumberText) {
        if let Some(number) = number_text(s, node.text & TEXT_NUMBER != 0) {
            return Fix::Replace(Value::Number(number), RepairRule::NumberText);
        }
    }
    if node.text & TEXT_BOOL != 0 && policy.contains(RepairRule::BoolText) {
        match s {
            "true" => return Fix::Replace(Value::Bool(true), RepairRule::BoolText),
            "false" => return Fix::Replace(Value::Bool(false), RepairRule::BoolText),
            _ => {}
        }
    }
    Fix::Keep
}

/// The JSON array or object `s` holds (surrounding whitespace allowed),
/// when `allowed` admits its kind.
fn json_text(s: &str, allowed: u8) -> Option<Value> {
    let first = s.trim_start().as_bytes().first()?;
    let wanted = match first {
        b'[' => TEXT_ARRAY,
        b'{' => TEXT_OBJECT,
        _ => return None,
    };
    if allowed & wanted == 0 {
        return None;
    }
    // Read exactly, as the call's own text is: a member given twice is not
    // quietly the last one. As deep as serde_json reads.
    crate::bind::json::exact(s, 128)
}

/// The number `s` is exactly the text of (no whitespace, no sign other than
/// a leading `-`, no `+`, `NaN` or hex); when `any` is false, only an
/// integral number, returned as an integer.
fn number_text(s: &str, any: bool) -> Option<Number> {
    let bytes = s.as_bytes();
    let starts = matches!(bytes.first(), Some(b'-' | b'0'..=b'9'));
    let ends = matches!(bytes.last(), Some(b'0'..=b'9'));
    if !starts || !ends {
        return None;
    }
    let number: Number = serde_json::from_str(s).ok()?;
    if any || number.is_i64() || number.is_u64() {
        return Some(number);
    }
    // `5.0` and `1e3` are integral: read as the integer they equal, when
    // that integer is exact in a double.
    let float = number.as_f64()?;
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    (float.fract() == 0.0 && float.abs() <= EXACT).then(|| Number::from(float as i64))
}

/// What to do with a string found where the schema says array of strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Bind `s` as `[s]`.
    Wrap,
    /// Empty or whitespace-only: `[""]` and `[]` would both be guesses.
    Blank,
    /// The text of a list (see [`is_list_text`]): wrapping it would bind the
    /// text, not the list, and canon never parses it.
    ListText,
    /// A comma-separated list (see [`is_comma_list`]), such as
    /// `"points, assists, minutes"`: `["points, assists, minutes"]` and
    /// `["points", "assists", "minutes"]` would both be guesses, and canon
    /// never splits.
    CommaList,
}

/// A string the core rule refused, and where it is: the pointer of the
/// array holding it and its index there (the refusals of one array share
/// one copy of that pointer, so a long key over a wide array costs its
/// length once, not once per item), or its whole pointer.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    /// The array's pointer when `index` is `Some`, else the string's own.
    pub(crate) at: std::rc::Rc<str>,
    /// The string's index in the array at `at`.
    pub(crate) index: Option<usize>,
    /// Why it was refused.
    pub(crate) verdict: Verdict,
}

impl Refusal {
    /// The refused string's pointer.
    pub(crate) fn pointer(&self) -> String {
        match self.index {
            Some(index) => format!("{}/{index}", self.at),
            None => self.at.to_string(),
        }
    }
}

/// Decides what a string at a tolerant position becomes: blank, then list
/// text, then a comma-separated list are refused; anything else is wrapped.
#[inline]
pub(crate) fn string_at_string_array(s: &str) -> Verdict {
    // Most strings start with a visible ASCII character other than `[` and
    // hold no comma: they are none of the refused kinds, and need no
    // further look.
    let bytes = s.as_bytes();
    if let Some(&first) = bytes.first() {
        if first.is_ascii_graphic() && first != b'[' && !has_comma(bytes) {
            return Verdict::Wrap;
        }
    }
    let trimmed = s.trim();
    if trimmed.is_empty() {
        Verdict::Blank
    } else if is_list_text(trimmed) {
        Verdict::ListText
    } else if is_comma_list(trimmed) {
        Verdict::CommaList
    } else {
        Verdict::Wrap
    }
}

/// Whether `bytes` holds a comma, looked for eight bytes at a time (a
/// byte-wise search costs about five instructions a byte, and the strings
/// models send as one-item lists are mostly a few words).
#[inline]
fn has_comma(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const COMMAS: u64 = u64::from_ne_bytes([b','; 8]);
    // A word has a comma when, xored with commas, one of its bytes is zero:
    // `(x - ONES) & !x & HIGHS` is not zero exactly then.
    let comma_in = |word: [u8; 8]| {
        let x = u64::from_ne_bytes(word) ^ COMMAS;
        x.wrapping_sub(ONES) & !x & HIGHS != 0
    };
    let n = bytes.len();
    if n < 8 {
        // Not `contains`, which calls a search tuned for long slices.
        #[allow(clippy::manual_contains)]
        return bytes.iter().any(|&b| b == b',');
    }
    let word = |at: usize| bytes[at..at + 8].try_into().unwrap_or_default();
    let mut at = 0;
    while at + 8 < n {
        if comma_in(word(at)) {
            return true;
        }
        at += 8;
    }
    // The last eight bytes, which may overlap the word before.
    comma_in(word(n - 8))
}

/// True when `s`, without surrounding whitespace, is the text of a list:
/// it starts with `[` and ends with `]`, and it is JSON (`["a", "b"]`,
/// `[]`), or a list literal (`['a', 'b']`, see [`is_list_literal`]), or the
/// text between the brackets is a comma-separated list (`[points, assists]`,
/// `['it's', 'b']`). `[wip]` and `[draft] notes` are not lists.
pub(crate) fn is_list_text(s: &str) -> bool {
    let s = s.trim();
    let Some(inner) = s.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) else {
        return false;
    };
    is_comma_list(inner) || is_list_literal(s) || serde_json::from_str::<IgnoredAny>(s).is_ok()
}

/// True when `s` holds a comma with other text on both sides: split at
/// every comma, at least two of the parts are not blank. `"a, b"`,
/// `"a,b"` and `"Paris, France"` are; `"a,"`, `", a"` and `","` are not.
pub(crate) fn is_comma_list(s: &str) -> bool {
    let part = |c: char| c != ',' && !c.is_whitespace();
    match (s.find(part), s.rfind(part)) {
        (Some(first), Some(last)) => s[first..last].contains(','),
        _ => false,
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

    proptest::proptest! {
        /// The word-wise search finds a comma exactly where a byte-wise one
        /// does, at any length and offset.
        #[test]
        fn has_comma_is_contains(bytes in proptest::collection::vec(
            proptest::sample::select(vec![b',', b'a', 0, 0x2b, 0x2d, 0xac, 0xff, 0x80]),
            0..40,
        )) {
            proptest::prop_assert_eq!(has_comma(&bytes), bytes.contains(&b','));
        }
    }

    #[test]
    fn has_comma_at_every_position() {
        for len in 0..=24 {
            let plain = vec![b'x'; len];
            assert!(!has_comma(&plain));
            for at in 0..len {
                let mut with = plain.clone();
                with[at] = b',';
                assert!(has_comma(&with), "len {len}, comma at {at}");
            }
        }
    }

    #[test]
    fn number_text_is_exact() {
        let n = |s, any| number_text(s, any).map(|n| n.to_string());
        assert_eq!(n("5", false).as_deref(), Some("5"));
        assert_eq!(n("-12", true).as_deref(), Some("-12"));
        assert_eq!(n("2.5", true).as_deref(), Some("2.5"));
        assert_eq!(n("2.5", false), None);
        assert_eq!(n("5.0", false).as_deref(), Some("5"));
        assert_eq!(n("1e3", false).as_deref(), Some("1000"));
        assert_eq!(n("1e300", false), None);
        for bad in [
            " 5", "5 ", "+5", "05", "5.", ".5", "NaN", "0x10", "1,000", "", "five", "5kg",
        ] {
            assert_eq!(n(bad, true), None, "{bad:?}");
        }
    }

    #[test]
    fn json_text_parses_only_the_admitted_kind() {
        assert_eq!(
            json_text(" [1, 2] ", TEXT_ARRAY),
            Some(serde_json::json!([1, 2]))
        );
        assert_eq!(json_text("{\"a\": 1}", TEXT_ARRAY), None);
        assert_eq!(
            json_text("{\"a\": 1}", TEXT_OBJECT),
            Some(serde_json::json!({"a": 1}))
        );
        assert_eq!(json_text("['a', 'b']", TEXT_ARRAY), None);
        assert_eq!(json_text("{\"a\": 1, \"a\": 2}", TEXT_OBJECT), None);
        assert_eq!(json_text("[{\"b\": [], \"b\": []}]", TEXT_ARRAY), None);
        assert_eq!(json_text("[1, 2", TEXT_ARRAY), None);
        assert_eq!(json_text("5", TEXT_ARRAY | TEXT_OBJECT), None);
    }

    #[test]
    fn verdicts() {
        assert_eq!(string_at_string_array("dotnet/eshop"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[draft] notes"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[wip]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[unterminated"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[a, b]"), Verdict::ListText);
        assert_eq!(string_at_string_array("a, b"), Verdict::CommaList);
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
        assert_eq!(string_at_string_array("[,]"), Verdict::CommaList);
        assert_eq!(string_at_string_array("[nan]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[05]"), Verdict::Wrap);
        assert_eq!(string_at_string_array("[-1.5e3, 2]"), Verdict::ListText);
        assert_eq!(
            string_at_string_array("['a', None, 3.5]"),
            Verdict::ListText
        );
    }

    #[test]
    fn comma_separated_lists_are_refused() {
        // The bare strings models sent at string-array positions in the
        // corpus (`comma_separated_string_for_array`), and the like.
        for s in [
            "timings, exhibitions, accessibility",
            "timings,exhibitions,accessibility",
            "opening_hours,ticket_price",
            "tolls,highways",
            "points, assists, minutes",
            "Paris, France",
            "1,000",
            "a,,b",
            " a , b ",
            "sort_list(elements=['apple', 'banana'], order='desc')",
            "[draft] notes, todo",
            "\u{3000}a,\u{3000}b",
        ] {
            assert_eq!(string_at_string_array(s), Verdict::CommaList, "{s:?}");
        }
        // One value, with or without a stray comma at an end.
        for s in [
            "War",
            "Dairy-free",
            "gluten-free",
            "New York",
            "40",
            "a,",
            ", a",
            " ,a, ",
            "a;b",
            "a\u{ff0c}b",
        ] {
            assert_eq!(string_at_string_array(s), Verdict::Wrap, "{s:?}");
        }
    }

    #[test]
    fn bracketed_text_that_is_not_json_is_list_text() {
        for s in [
            "[points, assists]",
            "['Can you purchase a cashier's check?', 'I need a cashier's check, how?']",
            "[{'name': 'Li', 'age': 18}, {'name': 'Wu', 'age': 21}]",
            "  [a,b]\n",
            "['a']",
            "[None]",
            "[[1, 2], [3]]",
        ] {
            assert!(is_list_text(s), "{s:?}");
            assert_eq!(string_at_string_array(s), Verdict::ListText, "{s:?}");
        }
        for s in [
            "[wip]",
            "[draft] notes",
            "[a,]",
            "[a] [b]",
            "[05]",
            "a, [b]",
        ] {
            assert!(!is_list_text(s), "{s:?}");
        }
    }

    #[test]
    fn comma_lists_need_text_on_both_sides() {
        assert!(is_comma_list("a,b"));
        assert!(is_comma_list("é , ü"));
        assert!(!is_comma_list(""));
        assert!(!is_comma_list(",,,"));
        assert!(!is_comma_list(" , "));
        assert!(!is_comma_list("abc"));
        assert!(!is_comma_list("abc,  "));
    }
}
