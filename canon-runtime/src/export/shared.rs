//! What the dialects share: where one stopped and why, and the walks and
//! checks over a schema each of them makes.

use serde_json::{Map, Value};

use crate::schema::walk;

/// Where in a schema a dialect stopped, and why; the tool and dialect are
/// added by [`export`](super::export).
pub(crate) struct Refusal {
    pub(crate) pointer: String,
    pub(crate) reason: String,
}

impl Refusal {
    pub(crate) fn at(pointer: &str, reason: impl Into<String>) -> Refusal {
        Refusal {
            pointer: pointer.to_owned(),
            reason: reason.into(),
        }
    }
}

/// Why `name` is not 1 to `max` of ASCII letters, digits and `extra`, if
/// it is not.
pub(crate) fn name_problem(name: &str, max: usize, extra: &[char]) -> Option<String> {
    let count = name.chars().count();
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || extra.contains(c)));
    match bad {
        _ if count == 0 => Some("it is empty".to_owned()),
        _ if count > max => Some(format!("it has {count} characters")),
        Some(c) => Some(format!("it contains {c:?}")),
        None => None,
    }
}

/// The schema as published, without what no dialect wants at its root.
pub(super) fn published(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(root) = schema.as_object_mut() {
        root.remove("$schema");
        root.remove("title");
    }
    schema
}

/// Rewrites every schema under `schema` (children first), `f` seeing each
/// with its pointer (boolean schemas too, but a boolean
/// `additionalProperties`).
pub(crate) fn post_order(
    schema: &mut Value,
    at: &str,
    f: &mut impl FnMut(&mut Value, &str) -> Result<(), Refusal>,
) -> Result<(), Refusal> {
    if let Value::Object(obj) = schema {
        walk::children_mut(obj, |key, rel, sub| {
            // `additionalProperties: false` closes an object; it is not a
            // schema a value at some position must meet.
            if key == "additionalProperties" && sub.is_boolean() {
                return Ok(());
            }
            post_order(sub, &format!("{at}{rel}"), f)
        })?;
    }
    f(schema, at)
}

/// How many times a `$ref` beside other keywords is inlined inside
/// another; deeper, the keywords beside it are dropped instead.
const MAX_UNRAVEL: usize = 8;

/// A `$ref` beside other keywords (`{"$ref": ..., "description": ...}`),
/// which strict dialects refuse, as its definition with those keywords
/// laid over it, so the description reaches the model. `None` when `obj`
/// has no such `$ref`, or it names no definition.
fn unravel(obj: &Map<String, Value>, root: &Value) -> Option<Value> {
    let reference = obj.get("$ref")?.as_str()?;
    if obj.keys().all(|k| k == "$ref" || k == "$defs") {
        return None;
    }
    let Value::Object(mut target) = resolve(root, reference)?.clone() else {
        return None;
    };
    target.remove("$defs");
    for (k, v) in obj {
        if k != "$ref" && k != "$defs" {
            lay_over(&mut target, k.clone(), v.clone());
        }
    }
    Some(Value::Object(target))
}

/// Lays keyword `key` of a schema beside a `$ref` over the definition the
/// `$ref` names: both hold, so their `properties` are merged and their
/// `required` joined (an internally tagged variant's tag beside its
/// struct's members); any other keyword beside the `$ref` (its
/// description) wins.
pub(crate) fn lay_over(target: &mut Map<String, Value>, key: String, value: Value) {
    match (key.as_str(), target.get_mut(&key), value) {
        ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
            for (name, schema) in theirs {
                mine.insert(name, schema);
            }
        }
        ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
            for name in theirs {
                if !mine.contains(&name) {
                    mine.push(name);
                }
            }
        }
        (_, _, value) => {
            target.insert(key, value);
        }
    }
}

/// The first steps of both strict dialects: `oneOf` read as `anyOf`, and a
/// `$ref` left alone (inlined, then rewritten with `again`, when keywords
/// stand beside it). True when the schema was a `$ref`: nothing is left to
/// do.
pub(crate) fn strict_ref(
    schema: &mut Value,
    at: &str,
    root: &Value,
    depth: usize,
    again: &mut dyn FnMut(&mut Value, &str, usize) -> Result<(), Refusal>,
) -> Result<bool, Refusal> {
    let Value::Object(obj) = schema else {
        return Ok(false);
    };
    if let Some(one_of) = obj.remove("oneOf") {
        obj.insert("anyOf".into(), one_of);
    }
    if depth < MAX_UNRAVEL {
        if let Some(mut inlined) = unravel(obj, root) {
            post_order(&mut inlined, at, &mut |s, at| again(s, at, depth + 1))?;
            *schema = inlined;
            return Ok(true);
        }
    }
    if obj.contains_key("$ref") {
        obj.retain(|k, _| k == "$ref" || k == "$defs");
        return Ok(true);
    }
    Ok(false)
}

/// Refuses an object whose members are split between its `properties` and
/// a union beside them (a flattened enum): strict mode closes each schema
/// on its own, which no call could then match.
pub(crate) fn split_members(obj: &Map<String, Value>, at: &str) -> Result<(), Refusal> {
    match ["anyOf", "oneOf", "allOf"]
        .iter()
        .find(|k| obj.contains_key(**k))
    {
        Some(key) if obj.contains_key("properties") => Err(Refusal::at(
            at,
            format!(
                "an object whose members are split between its `properties` and the `{key}` beside them \
                 (a flattened enum); strict mode closes each on its own, so no call could match"
            ),
        )),
        _ => Ok(()),
    }
}

/// The local definition a `$ref` names (`#`, `#/$defs/X`, any pointer).
pub(crate) use crate::schema::refs::target as resolve;

/// The `type` keyword as a list of names.
pub(crate) fn types(obj: &Map<String, Value>) -> Vec<&str> {
    obj.get("type")
        .and_then(crate::schema::types::listed)
        .unwrap_or_default()
}

/// The root of a declaration `provider` takes: one object schema, with
/// `"type": "object"`, not a union of them (a tool whose arguments are an
/// enum).
pub(crate) fn object_root(schema: &Value, provider: &str) -> Result<(), Refusal> {
    let Value::Object(root) = schema else {
        return Err(Refusal::at("", "the input schema is not an object schema"));
    };
    if let Some(key) = ["anyOf", "oneOf", "allOf"]
        .iter()
        .find(|k| root.contains_key(**k))
    {
        return Err(Refusal::at(
            "",
            format!("`{key}` at the root: {provider} takes one object schema there"),
        ));
    }
    if root.get("type") != Some(&Value::String("object".into())) {
        return Err(Refusal::at(
            "",
            "the input schema must have `\"type\": \"object\"`",
        ));
    }
    Ok(())
}

/// Where a `$ref` first closes a cycle of references (a recursive type),
/// and the reference: `None` when no reference leads back to itself.
/// Each definition is walked once.
pub(crate) fn recursion(root: &Value) -> Option<(String, String)> {
    fn visit(
        root: &Value,
        node: &Value,
        at: &str,
        stack: &mut Vec<String>,
        done: &mut std::collections::HashSet<String>,
        depth: usize,
    ) -> Option<(String, String)> {
        if depth > crate::schema::MAX_DEPTH {
            return None;
        }
        let Value::Object(obj) = node else {
            return None;
        };
        if let Some(Value::String(reference)) = obj.get("$ref") {
            if stack.contains(reference) {
                return Some((at.to_owned(), reference.clone()));
            }
            if !done.contains(reference) {
                if let Some(target) = resolve(root, reference) {
                    stack.push(reference.clone());
                    let found = visit(root, target, at, stack, done, depth + 1);
                    stack.pop();
                    if found.is_some() {
                        return found;
                    }
                    done.insert(reference.clone());
                }
            }
        }
        // The schemas below this one (not its definitions: those are
        // reached through the references that use them).
        let below = walk::children(obj, |key, rel, sub| {
            if matches!(key, "$defs" | "definitions") {
                return Ok(());
            }
            match visit(root, sub, &format!("{at}{rel}"), stack, done, depth + 1) {
                Some(found) => Err(found),
                None => Ok(()),
            }
        });
        below.err()
    }
    visit(
        root,
        root,
        "",
        &mut Vec::new(),
        &mut std::collections::HashSet::new(),
        0,
    )
}
