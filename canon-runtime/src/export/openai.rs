//! OpenAI function tools. Strict mode (Structured Outputs) takes a subset:
//! every property required (optional ones nullable), no undeclared
//! properties, `anyOf` rather than `oneOf`, nothing beside `$ref`, no
//! `default`, a few `format`s, and size limits.

use serde_json::{json, Map, Value};

use super::shared::{post_order, strict_ref, types, Refusal};

/// The string formats strict mode accepts.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords strict mode has no use for: refused rather than dropped, since
/// dropping them would change what the schema accepts.
const UNSUPPORTED: [&str; 11] = [
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "prefixItems",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Nesting depth of objects, properties in all, and enum values in all.
const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5_000;
const MAX_ENUM_VALUES: usize = 1_000;

pub(super) fn parameters(mut schema: Value, strict: bool) -> Result<Value, Refusal> {
    super::shared::object_root(&schema, "OpenAI")?;
    if !strict {
        return Ok(schema);
    }
    let root = schema.clone();
    post_order(&mut schema, "", &mut |s, at| strict_one(s, at, &root, 0))?;
    let mut totals = (0, 0);
    limits(&schema, "", 1, &mut totals)?;
    Ok(schema)
}

fn strict_one(schema: &mut Value, at: &str, root: &Value, depth: usize) -> Result<(), Refusal> {
    let obj = match schema {
        Value::Object(obj) => obj,
        Value::Bool(true) => {
            return Err(Refusal::at(
                at,
                "it accepts any value (`true`), and strict mode needs a type",
            ))
        }
        _ => return Err(Refusal::at(at, "it accepts no value (`false`)")),
    };
    if let Some(key) = UNSUPPORTED.iter().find(|k| obj.contains_key(**k)) {
        return Err(Refusal::at(
            at,
            format!("strict mode does not support `{key}`"),
        ));
    }
    obj.remove("default");
    if strict_ref(schema, at, root, depth, &mut |s, at, d| {
        strict_one(s, at, root, d)
    })? {
        return Ok(());
    }
    let Value::Object(obj) = schema else {
        return Ok(());
    };
    if let Some(Value::String(format)) = obj.get("format") {
        if !FORMATS.contains(&format.as_str()) {
            obj.remove("format");
        }
    }
    if let Some(value) = obj.remove("const") {
        obj.insert("enum".into(), Value::Array(vec![value]));
    }
    let types: Vec<String> = types(obj).into_iter().map(str::to_owned).collect();
    if types.is_empty() && !obj.contains_key("anyOf") && !obj.contains_key("enum") {
        return Err(Refusal::at(
            at,
            "it has no type (it accepts any value), and strict mode needs one",
        ));
    }
    if types.iter().any(|t| t == "array") && !matches!(obj.get("items"), Some(Value::Object(_))) {
        return Err(Refusal::at(
            at,
            "an array whose items may be anything; strict mode needs an items schema",
        ));
    }
    if types.iter().any(|t| t == "object") || obj.contains_key("properties") {
        super::shared::split_members(obj, at)?;
        close(obj, at)?;
    }
    Ok(())
}

/// Every property required, the optional ones made nullable, no others.
fn close(obj: &mut Map<String, Value>, at: &str) -> Result<(), Refusal> {
    match obj.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => return Err(Refusal::at(
            at,
            "an object with free-form members (a map); strict mode allows only declared properties",
        )),
    }
    obj.insert("additionalProperties".into(), Value::Bool(false));
    let required: Vec<String> = match obj.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let properties = obj
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(properties) = properties else {
        return Err(Refusal::at(at, "`properties` is not an object"));
    };
    for (name, sub) in properties.iter_mut() {
        if !required.contains(name) {
            make_nullable(sub);
        }
    }
    let all: Vec<Value> = properties
        .keys()
        .map(|k| Value::String(k.clone()))
        .collect();
    obj.insert("required".into(), Value::Array(all));
    Ok(())
}

/// The schema, also admitting `null`: how strict mode says "optional".
pub(super) fn make_nullable(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    let null = Value::String("null".into());
    let null_branch = json!({"type": "null"});
    if let Some(Value::Array(branches)) = obj.get_mut("anyOf") {
        if !branches.iter().any(|b| b.get("type") == Some(&null)) {
            branches.push(null_branch);
        }
        return;
    }
    if obj.contains_key("$ref") {
        let inner = std::mem::take(obj);
        obj.insert(
            "anyOf".into(),
            Value::Array(vec![Value::Object(inner), null_branch]),
        );
        return;
    }
    crate::schema::walk::add_null(obj);
}

/// Object nesting depth, and the totals of properties and enum values.
fn limits(
    schema: &Value,
    at: &str,
    depth: usize,
    totals: &mut (usize, usize),
) -> Result<(), Refusal> {
    let Value::Object(obj) = schema else {
        return Ok(());
    };
    if let Some(Value::Object(properties)) = obj.get("properties") {
        if depth > MAX_DEPTH {
            return Err(Refusal::at(
                at,
                format!("objects nest deeper than strict mode's {MAX_DEPTH} levels"),
            ));
        }
        totals.0 += properties.len();
        if totals.0 > MAX_PROPERTIES {
            return Err(Refusal::at(
                at,
                format!("more than strict mode's {MAX_PROPERTIES} properties in all"),
            ));
        }
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        totals.1 += values.len();
        if totals.1 > MAX_ENUM_VALUES {
            return Err(Refusal::at(
                at,
                format!("more than strict mode's {MAX_ENUM_VALUES} enum values in all"),
            ));
        }
    }
    let nested = depth + usize::from(obj.contains_key("properties"));
    for (key, sub) in obj {
        let at = format!("{at}/{}", crate::schema::pointer::escape(key));
        match (key.as_str(), sub) {
            ("properties" | "$defs" | "definitions", Value::Object(subs)) => {
                let next = if key == "properties" { nested } else { 1 };
                for (name, sub) in subs {
                    let at = format!("{at}/{}", crate::schema::pointer::escape(name));
                    limits(sub, &at, next, totals)?;
                }
            }
            ("anyOf", Value::Array(subs)) => {
                for (i, sub) in subs.iter().enumerate() {
                    limits(sub, &format!("{at}/{i}"), nested, totals)?;
                }
            }
            ("items", sub) => limits(sub, &at, nested, totals)?,
            _ => {}
        }
    }
    Ok(())
}
