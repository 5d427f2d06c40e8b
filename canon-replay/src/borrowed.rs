//! One call line read in one pass, borrowing: the members replay needs,
//! the schema as its raw text, and every other member checked as a
//! `Value` parse would check it (numbers in range, escapes, the nesting
//! limit), without building anything for it.
//!
//! Reading a line this way is exact only where it says so: the schema's
//! raw text is checked laxly (serde_json skips a raw value without its
//! nesting limit or number ranges), so the engine parses it on a cache miss
//! and keeps it only if that parse holds within the line; anything this
//! reader refuses is read again the slow way, which says why.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

/// The deepest nesting a member of a line may hold: serde_json refuses the
/// 128th level of a document, and the line's own object is the first.
pub(crate) const MEMBER_DEPTH: usize = 126;

/// The members of a call line replay reads (for a member given twice, the
/// last, as a `Value` keeps it).
#[derive(Default)]
pub(crate) struct Line<'a> {
    pub(crate) tool: Member<'a>,
    pub(crate) name: Member<'a>,
    pub(crate) class: Member<'a>,
    pub(crate) note: Member<'a>,
    pub(crate) schema: Option<&'a RawValue>,
    pub(crate) arguments: Option<Value>,
}

impl<'a> Line<'a> {
    /// `text` read as a call line, or `None` when a `Value` parse would
    /// fail on it or it is not an object (the slow path then says why).
    pub(crate) fn read(text: &'a str) -> Option<Line<'a>> {
        let mut de = serde_json::Deserializer::from_str(text);
        let line = Line::deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(line)
    }
}

/// A member that matters only when it is a string.
#[derive(Default)]
pub(crate) enum Member<'a> {
    /// Not given.
    #[default]
    Absent,
    /// A string.
    Text(Cow<'a, str>),
    /// Anything else.
    Other,
}

impl Member<'_> {
    /// The string, if the member is one.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Member::Text(text) => Some(text),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Line<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(LineVisitor)
    }
}

struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a call object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'de>, A::Error> {
        let mut line = Line::default();
        while let Some(Key(key)) = map.next_key()? {
            match &*key {
                "tool" => line.tool = map.next_value()?,
                "name" => line.name = map.next_value()?,
                "class" => line.class = map.next_value()?,
                "note" => line.note = map.next_value()?,
                // The raw text of a schema given twice would escape the
                // check the engine makes of the one it keeps.
                "schema" if line.schema.is_some() => {
                    return Err(de::Error::custom("`schema` given twice"))
                }
                "schema" => line.schema = Some(map.next_value()?),
                "arguments" => line.arguments = Some(map.next_value()?),
                _ => map.next_value::<Checked>().map(drop)?,
            }
        }
        Ok(line)
    }
}

/// An object key, borrowed unless it holds an escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

impl<'de> Deserialize<'de> for Member<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AnyVisitor { keep: true })
    }
}

/// Any value, parsed in full and dropped.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(AnyVisitor { keep: false })
            .map(|_| Checked)
    }
}

/// Reads any value as a `Value` parse would (so with its checks and
/// nesting limit), keeping a string only when `keep`.
struct AnyVisitor {
    keep: bool,
}

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Member<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Member<'de>, E> {
        Ok(Member::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Member<'de>, E> {
        Ok(Member::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Member<'de>, E> {
        Ok(Member::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Member<'de>, E> {
        Ok(Member::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Member<'de>, E> {
        Ok(Member::Other)
    }

    fn visit_none<E: de::Error>(self) -> Result<Member<'de>, E> {
        Ok(Member::Other)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Member<'de>, E> {
        Ok(match self.keep {
            true => Member::Text(Cow::Borrowed(v)),
            false => Member::Other,
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Member<'de>, E> {
        Ok(match self.keep {
            true => Member::Text(Cow::Owned(v.to_owned())),
            false => Member::Other,
        })
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Member<'de>, E> {
        Ok(match self.keep {
            true => Member::Text(Cow::Owned(v)),
            false => Member::Other,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Member<'de>, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Member::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member<'de>, A::Error> {
        while map.next_key::<Checked>()?.is_some() {
            map.next_value::<Checked>()?;
        }
        Ok(Member::Other)
    }
}

/// How deep `value` nests: 0 for a scalar, 1 for a flat array or object.
pub(crate) fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The length of the JSON object at the start of `bytes`, told by its
/// brackets and strings alone (nothing else is checked, so what it spans
/// may not be JSON at all); `None` when `bytes` does not start with `{` or
/// the object does not close.
pub(crate) fn object_len(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => loop {
                // Past the quote (or the escaped byte), to the next quote
                // or backslash.
                i += 1;
                i += memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
                match bytes.get(i) {
                    Some(b'\\') => i += 1,
                    _ => break,
                }
            },
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::object_len;

    #[test]
    fn an_object_is_told_by_its_brackets_and_strings() {
        let len = |text: &str| object_len(text.as_bytes());
        assert_eq!(len(r#"{"a":{"b":[1,"}"]}},"x":1}"#), Some(19));
        assert_eq!(len(r#"{"a\"}":"\\"},"#), Some(13));
        // Brackets are counted, not matched: what is spanned is checked
        // by the cache holding it.
        assert_eq!(len(r#"{"a":[}]"#), Some(8));
        assert_eq!(len(r#"{"a":[}"#), None);
        assert_eq!(len(r#"{"a":"#), None);
        assert_eq!(len(r#"{"a\"#), None);
        assert_eq!(len(r#"["a"]"#), None);
        assert_eq!(len(""), None);
    }
}
