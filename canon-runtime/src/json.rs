//! Parsing call text on the failure path: into a `Value`, noting every key
//! an object holds twice (serde_json keeps the last one silently).

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::Violation;
use crate::limits::Limits;
use crate::pointer;

/// `text` as a `Value` within `limits`, with the pointers of the members
/// given twice; text over the size or depth bound, or not JSON, is the one
/// violation that says so.
pub(crate) fn read(text: &str, limits: &Limits) -> Result<(Value, Vec<String>), Violation> {
    if text.len() > limits.max_text_bytes {
        return Err(limits.too_large(text.len()));
    }
    // Past the bound, the depth is what the model needs to hear (serde_json
    // would speak of its own recursion limit, or parse what canon refuses).
    if limits.text_too_deep(text) {
        return Err(limits.too_deep_violation());
    }
    parse(text).map_err(|e| crate::diagnose::malformed(&e))
}

/// `text` as a `Value`, with the pointers of the members given twice (the
/// last value is kept, as serde_json does).
pub(crate) fn parse(text: &str) -> Result<(Value, Vec<String>), serde_json::Error> {
    let duplicates = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Checked {
        at: String::new(),
        duplicates: &duplicates,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, duplicates.into_inner()))
}

struct Checked<'a> {
    at: String,
    duplicates: &'a RefCell<Vec<String>>,
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
        let mut items = Vec::new();
        loop {
            let seed = Checked {
                at: format!("{}/{}", self.at, items.len()),
                duplicates: self.duplicates,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = pointer::push(&self.at, &key);
            let value = map.next_value_seed(Checked {
                at: at.clone(),
                duplicates: self.duplicates,
            })?;
            if members.insert(key, value).is_some() {
                self.duplicates.borrow_mut().push(at);
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
}
