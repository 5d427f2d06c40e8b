//! `$ref`: the one reader of a local reference, and the walks that follow
//! references from a schema to the schema of a position in the call.

use serde_json::Value;

use super::pointer;

/// The place in `root` that the local reference `reference` names: `#`
/// (the root itself) or `#/...` (an RFC 6901 pointer into `root`, whose
/// percent-encoded characters are decoded, `%20` for a space), alone or
/// after the root's own `$id`. `None` for a reference into another
/// document, a plain-name fragment (an `$anchor`), or a pointer to nowhere.
pub(crate) fn target<'r>(root: &'r Value, reference: &str) -> Option<&'r Value> {
    let local = match root.get("$id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() && reference.starts_with(id) => {
            let rest = &reference[id.len()..];
            // The document itself, with or without an empty fragment.
            let rest = rest.strip_prefix('#').unwrap_or(rest);
            if !(rest.is_empty() || rest.starts_with('/')) {
                return None;
            }
            rest
        }
        _ => reference.strip_prefix('#')?,
    };
    if !(local.is_empty() || local.starts_with('/')) {
        return None;
    }
    if local.contains('%') {
        root.pointer(&percent_decoded(local)?)
    } else {
        root.pointer(local)
    }
}

/// `text` with each `%XX` replaced by the byte it encodes; `None` when an
/// escape is malformed or the bytes are not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The `$id`s of a schema's resources: the root's and those below it, read
/// where schemas stand (not in `default`, `const` or `examples`, which hold
/// data).
pub(crate) struct Ids {
    /// Every `$id`, the root's first when it has one.
    pub(crate) all: Vec<String>,
    /// Some schema below the root has its own `$id`: a reference under it
    /// is resolved against it, which [`target`] does not do.
    pub(crate) nested: bool,
}

impl Ids {
    pub(crate) fn of(root: &Value) -> Ids {
        fn visit(value: &Value, depth: usize, ids: &mut Ids) {
            if depth > super::MAX_DEPTH {
                // Too deep to tell: say so, and the references stay.
                ids.nested = true;
                return;
            }
            let Value::Object(obj) = value else { return };
            if let Some(Value::String(id)) = obj.get("$id") {
                ids.all.push(id.clone());
                ids.nested |= depth > 0;
            }
            let _ = super::walk::children(obj, |_, _, sub| {
                visit(sub, depth + 1, ids);
                Ok::<(), ()>(())
            });
        }
        let mut ids = Ids {
            all: Vec::new(),
            nested: false,
        };
        visit(root, 0, &mut ids);
        ids
    }

    /// True when `document` (a reference's part before `#`, absolute or
    /// relative) may name one of these resources.
    pub(crate) fn names(&self, document: &str) -> bool {
        self.all.iter().any(|id| {
            let id = id.trim_end_matches('#');
            id == document || id.ends_with(&format!("/{document}"))
        })
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
