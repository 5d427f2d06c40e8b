//! Whole doubles at integer positions, handed on as integers.
//!
//! JSON Schema holds `1.0` to be an integer, so a call sending it where the
//! schema says `integer` is valid and binds as sent. But a `Value` keeps
//! the double, and a handler that reads its arguments into a typed struct
//! (`serde_json::from_value::<u16>`) refuses a double. Gemini's API, which
//! is built on protobuf, sends every number as a double. So after a call
//! to a schema-only tool binds, each whole double at a position whose
//! schema admits integers and no other numbers is given as the integer it
//! is. The call's JSON meaning is unchanged: this is no repair.

use serde_json::{Map, Value};

use crate::bind::json::integer_of;
use crate::schema::{refs, types};

/// Most subschemas gathered for one position (through `$ref`, `allOf`,
/// `anyOf` and `oneOf`): past it, the rest are not looked at, and a double
/// they alone would make an integer stays a double.
const MAX_SCHEMAS: usize = 64;

/// Gives each whole double in `args` at an integer position of `schema`
/// (the document root, against which `args` validated) as an integer,
/// where the integer fits in 64 bits; returns how many were changed.
/// `args` must already be within the depth bound: the walk recurses as
/// deep as it.
pub(crate) fn whole_doubles(schema: &Value, args: &mut Value) -> usize {
    if !has_whole_double(args) {
        return 0;
    }
    let mut here = Vec::new();
    gather(schema, schema, &mut here);
    visit(schema, &here, args)
}

/// True when `value` holds a whole number written as a double.
fn has_whole_double(value: &Value) -> bool {
    match value {
        Value::Number(n) => integer_of(n).is_some(),
        Value::Array(items) => items.iter().any(has_whole_double),
        Value::Object(members) => members.values().any(has_whole_double),
        _ => false,
    }
}

/// `schema` and the subschemas that apply at its position with it:
/// through a local `$ref`, `allOf`, `anyOf` and `oneOf`, each once.
fn gather<'s>(root: &'s Value, schema: &'s Value, out: &mut Vec<&'s Value>) {
    let Value::Object(map) = schema else {
        return;
    };
    if out.len() >= MAX_SCHEMAS || out.iter().any(|seen| std::ptr::eq(*seen, schema)) {
        return;
    }
    out.push(schema);
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| refs::target(root, reference))
    {
        gather(root, target, out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            for branch in branches {
                gather(root, branch, out);
            }
        }
    }
}

/// True when `schema`'s `type` admits integers and no other number.
fn integer_only(schema: &Value) -> bool {
    types::names(schema)
        .is_some_and(|names| names.contains(&"integer") && !names.contains(&"number"))
}

fn visit(root: &Value, here: &[&Value], value: &mut Value) -> usize {
    match value {
        Value::Number(n) => match integer_of(n) {
            Some(whole) if here.iter().any(|s| integer_only(s)) => {
                *n = whole;
                1
            }
            _ => 0,
        },
        Value::Array(items) => items
            .iter_mut()
            .enumerate()
            .map(|(index, item)| below(root, here, item, |s| item_schema(s, index)))
            .sum(),
        Value::Object(members) => members
            .iter_mut()
            .map(|(key, member)| below(root, here, member, |s| member_schema(s, key)))
            .sum(),
        _ => 0,
    }
}

/// [`visit`] of `value`, a member or item of a value at `here`, with the
/// schemas `sub` finds for it in each of `here`.
fn below<F>(root: &Value, here: &[&Value], value: &mut Value, sub: F) -> usize
where
    F: for<'s> Fn(&'s Value) -> Option<&'s Value>,
{
    if !has_whole_double(value) {
        return 0;
    }
    let mut schemas = Vec::new();
    for schema in here {
        if let Some(schema) = sub(schema) {
            gather(root, schema, &mut schemas);
        }
    }
    visit(root, &schemas, value)
}

/// The schema `schema` gives item `index` of an array: `prefixItems`, then
/// `items` (a draft-07 tuple's `items` by index).
fn item_schema(schema: &Value, index: usize) -> Option<&Value> {
    if let Some(item) = schema.get("prefixItems").and_then(|p| p.get(index)) {
        return Some(item);
    }
    match schema.get("items")? {
        Value::Array(tuple) => tuple.get(index),
        items => Some(items),
    }
}

/// The schema `schema` gives the member `key` of an object: its property,
/// else `additionalProperties` (a member matched by `patternProperties`
/// alone is left as sent).
fn member_schema<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    let properties: Option<&Map<String, Value>> =
        schema.get("properties").and_then(Value::as_object);
    match properties.and_then(|p| p.get(key)) {
        Some(property) => Some(property),
        None => schema.get("additionalProperties"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::whole_doubles;

    fn run(schema: serde_json::Value, mut args: serde_json::Value) -> (serde_json::Value, usize) {
        let changed = whole_doubles(&schema, &mut args);
        (args, changed)
    }

    #[test]
    fn whole_doubles_at_integer_positions_become_integers() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "x": {"type": "number"},
                "list": {"type": "array", "items": {"type": ["integer", "null"]}},
                "pair": {"type": "array", "prefixItems": [{"type": "number"}, {"$ref": "#/$defs/count"}]},
                "map": {"type": "object", "additionalProperties": {"$ref": "#/$defs/count"}},
                "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            },
            "$defs": {"count": {"type": "integer", "minimum": 0}},
        });
        let (args, changed) = run(
            schema,
            json!({"n": 1.0, "x": 2.0, "list": [3.0, null, 4], "pair": [5.0, 6.0],
                   "map": {"a": 7.0}, "either": -0.0}),
        );
        assert_eq!(changed, 5);
        assert_eq!(
            args.to_string(),
            r#"{"n":1,"x":2.0,"list":[3,null,4],"pair":[5.0,6],"map":{"a":7},"either":0}"#
        );
    }

    #[test]
    fn fractions_huge_doubles_and_other_positions_stay() {
        let schema = json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}, "big": {"type": "integer"}},
            "patternProperties": {"^p": {"type": "integer"}},
        });
        let (args, changed) = run(
            schema,
            json!({"n": 1.5, "big": 1e300, "p1": 2.0, "other": 3.0}),
        );
        assert_eq!(changed, 0);
        assert_eq!(
            args.to_string(),
            r#"{"n":1.5,"big":1e+300,"p1":2.0,"other":3.0}"#
        );
    }

    #[test]
    fn the_ends_of_64_bits() {
        let schema = json!({"type": "array", "items": {"type": "integer"}});
        let (args, changed) = run(
            schema,
            json!([
                -9223372036854775808.0,
                9223372036854775808.0,
                18446744073709551616.0
            ]),
        );
        assert_eq!(changed, 2);
        assert_eq!(
            args.to_string(),
            "[-9223372036854775808,9223372036854775808,1.8446744073709552e+19]"
        );
    }

    #[test]
    fn a_reference_circle_is_followed_once() {
        let schema = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}, {"type": "integer"}]}},
                            "$ref": "#/$defs/a"});
        let (args, changed) = run(schema, json!(8.0));
        assert_eq!((args, changed), (json!(8), 1));
    }
}
