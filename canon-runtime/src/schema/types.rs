//! JSON types as bits, as JSON Schema's `type` keyword names them: what a
//! schema admits and what a value is, compared with one `&`; and the one
//! reader of the `type` keyword.

use serde_json::Value;

pub(crate) const STRING: u8 = 1;
/// Any number (a schema's `number`).
pub(crate) const NUMBER: u8 = 2;
/// An integral number (a schema's `integer`; `5.0` is one).
pub(crate) const INTEGER: u8 = 4;
pub(crate) const BOOLEAN: u8 = 8;
pub(crate) const NULL: u8 = 16;
pub(crate) const ARRAY: u8 = 32;
pub(crate) const OBJECT: u8 = 64;
pub(crate) const ALL: u8 = 127;

/// The bits a `type` name admits (`number` admits integers too).
pub(crate) fn named(name: &str) -> Option<u8> {
    Some(match name {
        "string" => STRING,
        "number" => NUMBER | INTEGER,
        "integer" => INTEGER,
        "boolean" => BOOLEAN,
        "null" => NULL,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => return None,
    })
}

/// The bits of `value`'s type (an integral number is also a number).
#[inline]
pub(crate) fn of(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(n) if n.is_i64() || n.is_u64() => NUMBER | INTEGER,
        Value::Number(n) => match n.as_f64() {
            Some(x) if x.fract() == 0.0 => NUMBER | INTEGER,
            _ => NUMBER,
        },
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// The names a `type` keyword gives: its one name, or each string of its
/// array (other members are skipped). `None` when it is neither a string
/// nor an array.
pub(crate) fn listed(keyword: &Value) -> Option<Vec<&str>> {
    match keyword {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// The names `schema`'s `type` keyword gives ([`listed`]); `None` when it
/// has none (or one of another form).
pub(crate) fn names(schema: &Value) -> Option<Vec<&str>> {
    listed(schema.get("type")?)
}

/// The bits a schema's `type` keyword (`None` when it has none) admits:
/// all of them when absent; `None` when the keyword is malformed or names
/// an unknown type.
pub(crate) fn admitted(keyword: Option<&Value>) -> Option<u8> {
    match keyword {
        None => Some(ALL),
        Some(Value::String(t)) => named(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .try_fold(0, |bits, t| t.as_str().and_then(named).map(|b| bits | b)),
        Some(_) => None,
    }
}
