//! JSON types as bits, as JSON Schema's `type` keyword names them: what a
//! schema admits and what a value is, compared with one `&`.

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
