//! The subschemas of a JSON Schema, by keyword: one walker for every pass
//! that rewrites or reads schemas (normalizing for validation, exporting to
//! a provider's dialect).

use serde_json::{Map, Value};

use crate::schema::pointer;

/// Keywords whose value is one schema (draft-07 tuple `items` is a list).
pub(crate) const ONE: [&str; 10] = [
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is an array of schemas.
pub(crate) const LIST: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
pub(crate) const MAP: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `f` on each direct subschema of `obj` with its keyword and its
/// pointer relative to `obj` (`/properties/name`, `/anyOf/0`, `/items`),
/// stopping at the first error.
pub(crate) fn children_mut<E>(
    obj: &mut Map<String, Value>,
    mut f: impl FnMut(&str, String, &mut Value) -> Result<(), E>,
) -> Result<(), E> {
    for key in ONE {
        match obj.get_mut(key) {
            Some(Value::Array(subs)) => {
                for (i, sub) in subs.iter_mut().enumerate() {
                    f(key, format!("/{key}/{i}"), sub)?;
                }
            }
            Some(sub) => f(key, format!("/{key}"), sub)?,
            None => {}
        }
    }
    for key in LIST {
        if let Some(Value::Array(subs)) = obj.get_mut(key) {
            for (i, sub) in subs.iter_mut().enumerate() {
                f(key, format!("/{key}/{i}"), sub)?;
            }
        }
    }
    for key in MAP {
        if let Some(Value::Object(subs)) = obj.get_mut(key) {
            for (name, sub) in subs.iter_mut() {
                f(key, format!("/{key}/{}", pointer::escape(name)), sub)?;
            }
        }
    }
    Ok(())
}

/// [`children_mut`] for a schema read, not changed: `f` on each direct
/// subschema of `obj`, with its keyword and relative pointer, in the same
/// order, stopping at the first error.
pub(crate) fn children<E>(
    obj: &Map<String, Value>,
    mut f: impl FnMut(&str, String, &Value) -> Result<(), E>,
) -> Result<(), E> {
    for key in ONE {
        match obj.get(key) {
            Some(Value::Array(subs)) => {
                for (i, sub) in subs.iter().enumerate() {
                    f(key, format!("/{key}/{i}"), sub)?;
                }
            }
            Some(sub) => f(key, format!("/{key}"), sub)?,
            None => {}
        }
    }
    for key in LIST {
        if let Some(Value::Array(subs)) = obj.get(key) {
            for (i, sub) in subs.iter().enumerate() {
                f(key, format!("/{key}/{i}"), sub)?;
            }
        }
    }
    for key in MAP {
        if let Some(Value::Object(subs)) = obj.get(key) {
            for (name, sub) in subs {
                f(key, format!("/{key}/{}", pointer::escape(name)), sub)?;
            }
        }
    }
    Ok(())
}

/// `null` joins the schema's `type` (and its `enum`, if any): OpenAPI's
/// `nullable: true`, and how strict dialects say "optional".
pub(crate) fn add_null(obj: &mut Map<String, Value>) {
    let null = Value::String("null".to_owned());
    match obj.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = Value::String(std::mem::take(t));
            obj.insert("type".to_owned(), Value::Array(vec![t, null]));
        }
        Some(Value::Array(types)) if !types.contains(&null) => types.push(null),
        _ => {}
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}
