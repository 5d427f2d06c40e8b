//! Anthropic tools. Any JSON Schema object at the root, without a union
//! there, and property names the API takes; strict tool use keeps only the
//! keywords Anthropic enforces, so its SDK's `transform_schema` has nothing
//! left to move into a description.

use serde_json::{Map, Value};

use super::shared::{name_problem, post_order, strict_ref, Refusal};
use crate::schema::{pointer, walk};

/// The characters of a property name besides ASCII letters and digits; the
/// API refuses a request whose input schema has another
/// (`^[a-zA-Z0-9_.-]{1,64}$`).
const NAME_EXTRA: [char; 3] = ['_', '.', '-'];

/// The longest property name the API takes.
const NAME_MAX: usize = 64;

/// String formats strict tool use enforces.
const FORMATS: [&str; 10] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords of any schema that strict tool use keeps.
const KEPT: [&str; 9] = [
    "$defs",
    "$ref",
    "type",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "description",
    "title",
];

/// Constraints strict tool use does not enforce: dropped (canon still
/// checks them when binding, and tells the model).
const DROPPED: [&str; 20] = [
    "default",
    "examples",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

pub(super) fn input_schema(mut schema: Value, strict: bool) -> Result<Value, Refusal> {
    super::shared::object_root(&schema, "Anthropic")?;
    property_names(&mut schema, "")?;
    if strict {
        if let Some((at, reference)) = super::shared::recursion(&schema) {
            return Err(Refusal::at(
                &at,
                format!(
                    "a recursive type (`$ref: {reference}`); Anthropic's strict tool use \
                     does not support recursive schemas"
                ),
            ));
        }
        let root = schema.clone();
        post_order(&mut schema, "", &mut |s, at| strict_one(s, at, &root, 0))?;
    }
    Ok(schema)
}

/// Every property name, at any depth (definitions too), as the API takes
/// it; the first it would refuse, parents first. (`&mut` only because the
/// shared walker is.)
fn property_names(schema: &mut Value, at: &str) -> Result<(), Refusal> {
    let Value::Object(obj) = schema else {
        return Ok(());
    };
    if let Some(Value::Object(properties)) = obj.get("properties") {
        for name in properties.keys() {
            if let Some(problem) = name_problem(name, NAME_MAX, &NAME_EXTRA) {
                return Err(Refusal::at(
                    &pointer::push(&format!("{at}/properties"), name),
                    format!(
                        "the property name `{name}` is not allowed ({problem}); \
                         Anthropic takes 1 to 64 of A-Z, a-z, 0-9, `_`, `.` and `-`"
                    ),
                ));
            }
        }
    }
    walk::children_mut(obj, |_, rel, sub| {
        property_names(sub, &format!("{at}{rel}"))
    })
}

fn strict_one(schema: &mut Value, at: &str, root: &Value, depth: usize) -> Result<(), Refusal> {
    if schema.is_boolean() {
        return Err(Refusal::at(
            at,
            "a boolean schema; strict tool use needs a type",
        ));
    }
    if strict_ref(schema, at, root, depth, &mut |s, at, d| {
        strict_one(s, at, root, d)
    })? {
        return Ok(());
    }
    let Value::Object(obj) = schema else {
        return Ok(());
    };
    if let Some(Value::Array(types)) = obj.get("type") {
        // The SDK takes one type per schema: a union of types is an `anyOf`,
        // each branch with the keywords of its type.
        let types = types.clone();
        let mut rest = std::mem::take(obj);
        rest.remove("type");
        for key in ["description", "title"] {
            if let Some(v) = rest.remove(key) {
                obj.insert(key.into(), v);
            }
        }
        let mut branches = Vec::new();
        for (i, t) in types.iter().enumerate() {
            let mut branch = Map::new();
            branch.insert("type".into(), t.clone());
            if t != "null" {
                for (k, v) in &rest {
                    branch.insert(k.clone(), v.clone());
                }
            }
            let mut branch = Value::Object(branch);
            strict_one(&mut branch, &format!("{at}/anyOf/{i}"), root, depth)?;
            branches.push(branch);
        }
        obj.insert("anyOf".into(), Value::Array(branches));
        return Ok(());
    }
    let literal = obj.contains_key("enum") || obj.contains_key("const");
    if literal {
        // Values say it all; the SDK drops `type` beside them.
        obj.remove("type");
    }
    let single = match obj.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        _ => None,
    };
    if obj.get("type").is_none()
        && !literal
        && !["anyOf", "allOf"].iter().any(|k| obj.contains_key(*k))
    {
        return Err(Refusal::at(at, "it has no type; strict tool use needs one"));
    }
    match single.as_deref() {
        Some("object") => {
            super::shared::split_members(obj, at)?;
            match obj.get("additionalProperties") {
                None | Some(Value::Bool(false)) => {}
                Some(_) => {
                    return Err(Refusal::at(
                        at,
                        "an object with free-form members (a map); strict tool use allows only declared properties",
                    ))
                }
            }
            obj.insert("additionalProperties".into(), Value::Bool(false));
            obj.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        Some("string") => {
            if let Some(Value::String(format)) = obj.get("format") {
                if FORMATS.contains(&format.as_str()) {
                    return keep(obj, at, &["format"]);
                }
            }
        }
        Some("array") => {
            if matches!(obj.get("minItems").and_then(Value::as_u64), Some(0 | 1)) {
                return keep(obj, at, &["items", "minItems"]);
            }
            return keep(obj, at, &["items"]);
        }
        _ => {}
    }
    let object = ["properties", "additionalProperties", "required"];
    keep(
        obj,
        at,
        if single.as_deref() == Some("object") {
            &object
        } else {
            &[]
        },
    )
}

/// Keeps the keywords strict tool use enforces (and `extra`), drops the
/// constraints it does not, and refuses anything else.
fn keep(obj: &mut Map<String, Value>, at: &str, extra: &[&str]) -> Result<(), Refusal> {
    if let Some(key) = obj.keys().find(|k| {
        !KEPT.contains(&k.as_str())
            && !extra.contains(&k.as_str())
            && !DROPPED.contains(&k.as_str())
    }) {
        return Err(Refusal::at(
            at,
            format!("strict tool use does not support `{key}`"),
        ));
    }
    obj.retain(|k, _| KEPT.contains(&k.as_str()) || extra.contains(&k.as_str()));
    Ok(())
}
