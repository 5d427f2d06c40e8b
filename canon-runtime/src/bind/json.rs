//! Parsing call text on the failure path: into a `Value`, noting every key
//! an object holds twice (serde_json keeps the last one silently).

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::feedback::Violation;
use crate::limits::Limits;
use crate::schema::pointer::Path;

/// `text` as a `Value` within `limits`, with the pointers of the members
/// given twice; text over the size or depth bound, or not JSON, is the one
/// violation that says so.
pub(crate) fn read(text: &str, limits: &Limits) -> Result<(Value, Vec<String>), Violation> {
    if text.len() > limits.max_text_bytes {
        return Err(limits.too_large(text.len()));
    }
    // The depth is counted as the text is read, which stops past the bound;
    // only text that does not read is scanned for it.
    match parse_within(text, limits.max_depth) {
        Ok(parsed) => Ok(parsed),
        Err(error) => Err(unread(text, limits, &error)),
    }
}

/// Why `text` did not read. Past the depth bound, the depth is what the
/// model needs to hear (serde_json would speak of its own recursion limit,
/// or of the bound's own error), whatever else is wrong with the text.
#[cold]
#[inline(never)]
fn unread(text: &str, limits: &Limits, error: &serde_json::Error) -> Violation {
    if limits.text_too_deep(text) {
        return limits.too_deep_violation();
    }
    unreadable(text, error)
}

/// The violation for `text` that serde_json could not read: a number too
/// large for a JSON number here (`1e400`) at its pointer, anything else as
/// text that is not JSON.
fn unreadable(text: &str, error: &serde_json::Error) -> Violation {
    if !error.to_string().starts_with("number out of range") {
        return crate::feedback::violations::malformed(error);
    }
    let at = locate(text);
    let number = number_before(text, error.line(), error.column());
    crate::feedback::violations::number_out_of_range(at, number)
}

/// The pointer of the value at which reading `text` fails: the innermost
/// value being read. Only that pointer is built.
fn locate(text: &str) -> String {
    let failed = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Locate {
        at: Path::Root,
        failed: &failed,
    }
    .deserialize(&mut de);
    failed.into_inner().unwrap_or_default()
}

/// The number text at `column` (1-based, in bytes) of `line`, or just
/// before it, where serde_json stops on a number out of range.
fn number_before(text: &str, line: usize, column: usize) -> Option<&str> {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let in_number = |b: u8| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E');
    let bytes = text.as_bytes();
    let last = bytes.len().checked_sub(1)?;
    let pos = (start + column).min(last);
    let anchor = (pos.saturating_sub(2)..=pos)
        .rev()
        .find(|&i| in_number(bytes[i]))?;
    let begin = bytes[..anchor]
        .iter()
        .rposition(|&b| !in_number(b))
        .map_or(0, |i| i + 1);
    let end = bytes[anchor..]
        .iter()
        .position(|&b| !in_number(b))
        .map_or(bytes.len(), |i| anchor + i);
    let number = text.get(begin..end)?;
    number.bytes().any(|b| b.is_ascii_digit()).then_some(number)
}

/// Reads a value only to note, in `failed`, the pointer of the innermost
/// value whose reading failed.
struct Locate<'a> {
    at: Path<'a>,
    failed: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Locate<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        let (at, failed) = (self.at, self.failed);
        let read = d.deserialize_any(self);
        if read.is_err() {
            failed
                .borrow_mut()
                .get_or_insert_with(|| at.pointer().into_owned());
        }
        read
    }
}

impl<'de> Visitor<'de> for Locate<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        loop {
            let seed = Locate {
                at: Path::Index {
                    parent: &self.at,
                    index,
                    shared: None,
                },
                failed: self.failed,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            map.next_value_seed(Locate {
                at: Path::Key {
                    parent: &self.at,
                    key: &key,
                },
                failed: self.failed,
            })?;
        }
        Ok(())
    }
}

/// `text` as a `Value`, with the pointers of the members given twice (the
/// last value is kept, as serde_json does).
/// Reads every whole double of `value` (`3.0`, and with `negative_zero`
/// `-0.0` as 0, which JSON Schema holds equal, within the range of a 64-bit
/// integer) as the integer it equals: whether any changed, and whether a
/// `-0.0` was left as it is. Iterative: the value's depth is bounded, not
/// this stack's.
pub(crate) fn whole_numbers(value: &mut Value, negative_zero: bool) -> (bool, bool) {
    let mut changed = false;
    let mut left = false;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Number(n) if n.is_f64() => {
                if !negative_zero && n.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()) {
                    left = true;
                    continue;
                }
                if let Some(whole) = integer_of(n) {
                    *n = whole;
                    changed = true;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(members) => stack.extend(members.values_mut()),
            _ => {}
        }
    }
    (changed, left)
}

/// The integer a double `n` equals, when it is whole and within 64 bits
/// (`3.0` as 3, `-0.0` as 0); `None` for a fraction, a double past 64 bits,
/// or a number already held as an integer.
pub(crate) fn integer_of(n: &serde_json::Number) -> Option<serde_json::Number> {
    if !n.is_f64() {
        return None;
    }
    whole_double(n.as_f64()?)
}

/// The integer the double `f` equals, when it is whole and within 64 bits
/// (`3.0` as 3, `-0.0` as 0).
pub(crate) fn whole_double(f: f64) -> Option<serde_json::Number> {
    if !crate::schema::constraint::integral(f) {
        return None;
    }
    // 2^63 and 2^64 are exact as doubles, and so are the casts within them.
    if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(serde_json::Number::from(f as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
        Some(serde_json::Number::from(f as i64))
    } else {
        None
    }
}

/// Drops `value` without recursing as deep as it nests (serde_json's own
/// drop does, and a value built in code can nest past any stack).
pub(crate) fn release(value: Value) {
    if !crate::limits::nests_deeper(&value, crate::schema::MAX_DEPTH) {
        return;
    }
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[cfg(test)]
pub(crate) fn parse(text: &str) -> Result<(Value, Vec<String>), serde_json::Error> {
    parse_within(text, usize::MAX)
}

/// `text` as a `Value`, with the pointers of the members given twice,
/// failing where arrays and objects open more than `max_depth`
/// at once (a failure [`read`] then tells by scanning the text: for text
/// that reads, the depth of its values is the depth the scan counts).
/// The value `text` holds, read exactly: `None` when it is not JSON, nests
/// past `max_depth`, or gives a member twice (which a `Value` would hide,
/// keeping the last).
pub(crate) fn exact(text: &str, max_depth: usize) -> Option<Value> {
    match parse_within(text, max_depth) {
        Ok((value, duplicates)) if duplicates.is_empty() => Some(value),
        _ => None,
    }
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn parse_within(text: &str, max_depth: usize) -> Result<(Value, Vec<String>), serde_json::Error> {
    // canon's reader first, which visits as serde_json's does; anything
    // but a clean read is read again by serde_json, whose error locates
    // the failure.
    if crate::bind::text::usable() {
        let duplicates = RefCell::new(Vec::new());
        let mut reader = crate::bind::text::Reader::new(text);
        let checked = Checked {
            at: Path::Root,
            duplicates: &duplicates,
            room: max_depth,
        };
        if let Ok(value) = checked.deserialize(&mut reader) {
            if reader.end().is_ok() && !reader.failed() {
                return Ok((value, duplicates.into_inner()));
            }
        }
    }
    let duplicates = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Checked {
        at: Path::Root,
        duplicates: &duplicates,
        room: max_depth,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, duplicates.into_inner()))
}

/// Reads a value, noting the pointer of each member given twice. The
/// position is a chain of borrowed segments: a pointer is built only for a
/// member given twice, so a long key over a wide array costs nothing.
struct Checked<'a> {
    at: Path<'a>,
    duplicates: &'a RefCell<Vec<String>>,
    /// How many more arrays and objects may open inside this value.
    room: usize,
}

/// The error that stops reading past the depth bound.
#[cold]
fn too_deep<E: serde::de::Error>() -> E {
    E::custom("canon: nested deeper than the bound")
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let Some(room) = self.room.checked_sub(1) else {
            return Err(too_deep());
        };
        let mut items = Vec::new();
        loop {
            let seed = Checked {
                at: Path::Index {
                    parent: &self.at,
                    index: items.len(),
                    shared: None,
                },
                duplicates: self.duplicates,
                room,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(room) = self.room.checked_sub(1) else {
            return Err(too_deep());
        };
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Checked {
                at: Path::Key {
                    parent: &self.at,
                    key: &key,
                },
                duplicates: self.duplicates,
                room,
            })?;
            match members.entry(key) {
                serde_json::map::Entry::Occupied(mut member) => {
                    let at = Path::Key {
                        parent: &self.at,
                        key: member.key(),
                    };
                    self.duplicates.borrow_mut().push(at.pointer().into_owned());
                    member.insert(value);
                }
                serde_json::map::Entry::Vacant(member) => {
                    member.insert(value);
                }
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_at_any_depth() {
        let (value, dups) = parse(r#"{"a": 1, "b": {"c": [{"d": 1, "d": 2}]}, "a": 3}"#).unwrap();
        assert_eq!(value, serde_json::json!({"a": 3, "b": {"c": [{"d": 2}]}}));
        assert_eq!(dups, ["/b/c/0/d", "/a"]);
        assert!(parse("{} x").is_err());
        assert_eq!(
            parse("[1, 2.5, null, \"s\"]").unwrap().1,
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_number_out_of_range_is_found_at_its_pointer() {
        let limits = Limits::default();
        for (text, at, number) in [
            (r#"{"limit": 1e400}"#, "/limit", "1e400"),
            (
                r#"{"a": [1, {"b~/": -2.5E+999}], "c": 1}"#,
                "/a/1/b~0~1",
                "-2.5E+999",
            ),
            ("{\n  \"x\": 1,\n  \"y\": 1e400\n}", "/y", "1e400"),
            ("1e400", "", "1e400"),
        ] {
            let v = read(text, &limits).unwrap_err();
            assert_eq!(v.pointer, at, "{text}");
            assert_eq!(v.kind, crate::feedback::ViolationKind::Constraint, "{text}");
            assert_eq!(v.received.unwrap().preview, number, "{text}");
            assert!(v.message.contains("out of range"), "{}", v.message);
        }
        // Not JSON at all stays malformed.
        let v = read("{\"a\": 1e}", &limits).unwrap_err();
        assert_eq!(v.kind, crate::feedback::ViolationKind::Malformed);
    }
}
