//! Gemini function declarations: `parameters` in the OpenAPI 3.0 subset
//! Gemini's `Schema` takes. Every `$ref` inlined (recursion cannot be),
//! `nullable: true` instead of a `null` type, unions as `anyOf`, enums on
//! strings only, and no keyword outside `Schema`'s fields. The API refuses
//! an `OBJECT` without properties ("should be non-empty for OBJECT type"):
//! a tool without parameters is declared without `parameters`, and such an
//! object anywhere below the root (a map, an empty struct) is refused.

use serde_json::{json, Map, Value};

use super::shared::{post_order, resolve, Refusal};
use crate::schema::walk;

/// The fields of Gemini's `Schema`.
const FIELDS: [&str; 22] = [
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// Constraints `Schema` cannot say: dropped (canon still checks them when
/// binding, and tells the model).
const DROPPED: [&str; 11] = [
    "additionalProperties",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
    "$schema",
    "$comment",
    "$id",
    "examples",
    "deprecated",
    "readOnly",
];

/// Longest `$ref` chain inlined.
const MAX_DEPTH: usize = 64;

/// The `parameters` of a declaration; `None` for a tool without
/// parameters, which Gemini declares without them.
pub(super) fn parameters(schema: &Value) -> Result<Option<Value>, Refusal> {
    let mut out = inline(schema, schema, "", &mut Vec::new(), 0)?;
    post_order(&mut out, "", &mut convert)?;
    if is_object(&out) && !has_properties(&out) {
        return Ok(None);
    }
    Ok(Some(out))
}

/// `node` with every `$ref` replaced by its definition; `stack` holds the
/// references being inlined, to refuse recursion.
fn inline(
    root: &Value,
    node: &Value,
    at: &str,
    stack: &mut Vec<String>,
    depth: usize,
) -> Result<Value, Refusal> {
    if depth > MAX_DEPTH {
        return Err(Refusal::at(at, "definitions nest too deep to inline"));
    }
    let Value::Object(obj) = node else {
        return Ok(node.clone());
    };
    let mut obj = obj.clone();
    obj.remove("$defs");
    obj.remove("definitions");
    if let Some(Value::String(reference)) = obj.remove("$ref") {
        if stack.contains(&reference) {
            return Err(Refusal::at(
                at,
                format!(
                    "a recursive type (`$ref: {reference}`); Gemini needs every definition inlined"
                ),
            ));
        }
        let target = resolve(root, &reference)
            .ok_or_else(|| Refusal::at(at, format!("`$ref: {reference}` names no definition")))?;
        stack.push(reference);
        let inlined = inline(root, target, at, stack, depth + 1);
        stack.pop();
        let Value::Object(mut target) = inlined? else {
            return Err(Refusal::at(at, "a `$ref` to a boolean schema"));
        };
        // Keywords beside the `$ref` (its description) win; `properties`
        // and `required` join the definition's.
        for (k, v) in std::mem::take(&mut obj) {
            super::shared::lay_over(&mut target, k, v);
        }
        obj = target;
    }
    walk::children_mut(&mut obj, |_, rel, sub| {
        *sub = inline(root, sub, &format!("{at}{rel}"), stack, depth + 1)?;
        Ok(())
    })?;
    Ok(Value::Object(obj))
}

fn convert(schema: &mut Value, at: &str) -> Result<(), Refusal> {
    let obj = match schema {
        Value::Object(obj) => obj,
        Value::Bool(true) => {
            *schema = json!({});
            return Ok(());
        }
        _ => return Err(Refusal::at(at, "a schema that accepts nothing (`false`)")),
    };
    if let Some(key) = [
        "not",
        "if",
        "then",
        "else",
        "patternProperties",
        "dependentSchemas",
        "propertyNames",
    ]
    .iter()
    .find(|k| obj.contains_key(**k))
    {
        return Err(Refusal::at(at, format!("Gemini's Schema has no `{key}`")));
    }
    if let Some(one_of) = obj.remove("oneOf") {
        obj.insert("anyOf".into(), one_of);
    }
    if let Some(Value::Array(all_of)) = obj.remove("allOf") {
        match <[Value; 1]>::try_from(all_of) {
            Ok([Value::Object(only)]) => merge(obj, only),
            _ => {
                return Err(Refusal::at(
                    at,
                    "`allOf` of several schemas; Gemini has no intersection",
                ))
            }
        }
    }
    if let Some(Value::Array(items)) = obj.remove("prefixItems") {
        // A tuple: so many items, each one of the element types.
        let n = items.len();
        let mut distinct: Vec<Value> = Vec::new();
        for item in items {
            if !distinct.contains(&item) {
                distinct.push(item);
            }
        }
        let item = match <[Value; 1]>::try_from(distinct) {
            Ok([only]) => only,
            Err(many) => json!({ "anyOf": many }),
        };
        obj.insert("items".into(), item);
        obj.insert("minItems".into(), json!(n));
        obj.insert("maxItems".into(), json!(n));
    }
    if let Some(value) = obj.remove("const") {
        if value.is_string() {
            obj.insert("enum".into(), Value::Array(vec![value]));
        }
    }
    nullable_types(obj);
    nullable_branch(obj);
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        if values.contains(&Value::Null) {
            values.retain(|v| !v.is_null());
            obj.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        if values.iter().all(Value::is_string) && !values.is_empty() {
            obj.insert("type".into(), json!("string"));
        } else {
            // Gemini takes enums of strings only.
            obj.remove("enum");
        }
    }
    formats(obj);
    let members = obj
        .get("additionalProperties")
        .is_some_and(|a| a != &Value::Bool(false));
    obj.retain(|k, _| !DROPPED.contains(&k.as_str()) && !k.starts_with("x-"));
    if let Some(key) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(Refusal::at(at, format!("Gemini's Schema has no `{key}`")));
    }
    if is_object(schema) && !has_properties(schema) && (members || !at.is_empty()) {
        let what = if members {
            "an object with free-form members (a map)"
        } else {
            "an object without properties (an empty struct)"
        };
        return Err(Refusal::at(
            at,
            format!(
                "{what}; Gemini refuses an OBJECT whose `properties` are empty \
                 (`Dialect::GeminiJsonSchema` can declare it)"
            ),
        ));
    }
    Ok(())
}

/// True for a schema of type `object`.
fn is_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// True when the schema declares at least one property.
fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
}

/// `type: ["string", "null"]` as `type: "string", nullable: true`; several
/// other types as `anyOf`.
fn nullable_types(obj: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = obj.get("type") else {
        return;
    };
    let mut types: Vec<Value> = types.clone();
    if types.iter().any(|t| t == "null") {
        types.retain(|t| t != "null");
        obj.insert("nullable".into(), Value::Bool(true));
    }
    match types.len() {
        0 => {
            obj.remove("type");
        }
        1 => {
            obj.insert("type".into(), types.remove(0));
        }
        _ => {
            obj.remove("type");
            let branches = types.into_iter().map(|t| json!({ "type": t })).collect();
            obj.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

/// `anyOf: [X, {"type": "null"}]` as X with `nullable: true`.
fn nullable_branch(obj: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = obj.get_mut("anyOf") else {
        return;
    };
    let is_null = |b: &Value| {
        b.get("type") == Some(&json!("null"))
            || b.get("nullable") == Some(&json!(true))
                && b.as_object().is_some_and(|o| o.len() == 1)
    };
    if !branches.iter().any(is_null) {
        return;
    }
    branches.retain(|b| !is_null(b));
    obj.insert("nullable".into(), Value::Bool(true));
    let Some(Value::Array(branches)) = obj.get_mut("anyOf") else {
        return;
    };
    if branches.len() == 1 {
        if let Value::Object(only) = branches.remove(0) {
            obj.remove("anyOf");
            merge(obj, only);
        }
    }
}

/// Copies the keywords of `from` that `into` lacks.
fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        into.entry(k).or_insert(v);
    }
}

/// The formats `Schema` takes per type: `date-time` and `enum` on strings,
/// `float` and `double` on numbers, `int32` and `int64` on integers.
fn formats(obj: &mut Map<String, Value>) {
    let allowed: &[&str] = match obj.get("type").and_then(Value::as_str) {
        Some("string") => &["date-time", "enum"],
        Some("number") => &["float", "double"],
        Some("integer") => &["int32", "int64"],
        _ => &[],
    };
    if let Some(Value::String(format)) = obj.get("format") {
        if !allowed.contains(&format.as_str()) {
            obj.remove("format");
        }
    }
}
