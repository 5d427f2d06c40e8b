//! `$ref`: the one reader of a local reference, and the walks that follow
//! references from a schema to the schema of a position in the call.

use serde_json::Value;

use super::pointer;

/// The place in `root` that the local reference `reference` names: `#`
/// (the root itself) or `#/...` (an RFC 6901 pointer into `root`). `None`
/// for a reference into another document, a plain-name fragment (an
/// `$anchor`), or a pointer to nowhere.
pub(crate) fn target<'r>(root: &'r Value, reference: &str) -> Option<&'r Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() || fragment.starts_with('/') {
        root.pointer(fragment)
    } else {
        None
    }
}

/// Whether `reference` names a plain-name fragment (`#name`, an `$anchor`),
/// which no pointer reaches.
pub(crate) fn is_anchor(reference: &str) -> bool {
    reference
        .strip_prefix('#')
        .is_some_and(|f| !f.is_empty() && !f.starts_with('/'))
}

/// Longest `$ref` chain followed when describing a schema.
const MAX_REF_HOPS: usize = 32;

/// Follows `$ref` (local pointers only) from `schema`.
pub(crate) fn resolve<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..MAX_REF_HOPS {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| target(root, r))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

pub(crate) fn properties<'s>(
    root: &'s Value,
    schema: &'s Value,
) -> Option<&'s serde_json::Map<String, Value>> {
    resolve(root, schema).get("properties")?.as_object()
}

/// The schema of the instance position `at`, through properties, items
/// (and `prefixItems`), `additionalProperties`, `$ref` and the non-null
/// branch of a nullable union.
pub(crate) fn schema_at<'s>(root: &'s Value, at: &str) -> Option<&'s Value> {
    let mut schema = root;
    for token in pointer::tokens(at) {
        schema = non_null(root, resolve(root, schema));
        let index = token.parse::<usize>().ok();
        let prefix = index.and_then(|i| schema.get("prefixItems")?.get(i));
        schema = match schema.get("properties").and_then(|p| p.get(&token)) {
            Some(sub) => sub,
            None => match (index, prefix, schema.get("items")) {
                (Some(_), Some(item), _) => item,
                (Some(_), None, Some(items)) => items,
                _ => schema
                    .get("additionalProperties")
                    .filter(|s| s.is_object())?,
            },
        };
    }
    Some(schema)
}

/// The only non-`null` branch of an `anyOf`/`oneOf`, or the schema itself.
pub(crate) fn non_null<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let mut rest = branches
                .iter()
                .filter(|b| resolve(root, b).get("type") != Some(&Value::from("null")));
            if let (Some(only), None) = (rest.next(), rest.next()) {
                return resolve(root, only);
            }
        }
    }
    schema
}
