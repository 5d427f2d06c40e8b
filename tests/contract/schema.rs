//! Reading a JSON Schema the way the generator and the checks need it:
//! local `$ref`s followed, `allOf` folded, union branches merged with the
//! keywords beside them, and Gemini's OpenAPI 3.0 subset rewritten as JSON
//! Schema.

use serde_json::{json, Map, Value};

/// How many `$ref`s are followed in a row before giving up (a schema
/// referring to itself without end).
const MAX_HOPS: u32 = 32;

/// A schema document: the root that local `$ref`s point into.
#[derive(Clone, Copy)]
pub struct Doc<'a> {
    root: &'a Value,
}

impl<'a> Doc<'a> {
    pub fn new(root: &'a Value) -> Self {
        Doc { root }
    }

    /// The target of a local `$ref` (`#`, `#/$defs/Name`); `None` for a
    /// reference elsewhere.
    pub fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        let decoded = percent_decode(pointer);
        self.root.pointer(&decoded)
    }

    /// `schema` with its `$ref`s (followed, their siblings merged in) and
    /// its `allOf` (each part resolved and merged in) folded away; the
    /// other keywords are kept as they are.
    pub fn unref(&self, schema: &Value) -> Value {
        let mut current = schema.clone();
        for _ in 0..MAX_HOPS {
            let Value::Object(map) = &current else {
                return current;
            };
            if let Some(Value::String(reference)) = map.get("$ref") {
                let mut rest = map.clone();
                rest.remove("$ref");
                current = match self.resolve(reference) {
                    Some(target) => merge(target, &Value::Object(rest)),
                    None => Value::Object(rest),
                };
                continue;
            }
            if let Some(Value::Array(parts)) = map.get("allOf") {
                let parts = parts.clone();
                let mut base = map.clone();
                base.remove("allOf");
                current = parts.iter().fold(Value::Object(base), |acc, part| {
                    merge(&acc, &self.unref(part))
                });
                continue;
            }
            return current;
        }
        current
    }

    /// The branches of the union `schema` is (`anyOf` or `oneOf`), each
    /// merged with the keywords beside the union and resolved; `None` when
    /// `schema` (already resolved) is not a union.
    pub fn branches(&self, schema: &Value) -> Option<(&'static str, Vec<Value>)> {
        let map = schema.as_object()?;
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut base = map.clone();
                base.remove(key);
                let base = Value::Object(base);
                let merged = branches
                    .iter()
                    .map(|branch| self.unref(&merge(&base, &self.unref(branch))))
                    .collect();
                return Some((key, merged));
            }
        }
        None
    }

    /// True when `schema` lets `null` through (following references and
    /// unions; a schema that says nothing about types lets anything
    /// through).
    pub fn admits_null(&self, schema: &Value) -> bool {
        self.admits_null_at(schema, 0)
    }

    fn admits_null_at(&self, schema: &Value, hops: u32) -> bool {
        if hops > MAX_HOPS {
            return false;
        }
        let schema = self.unref(schema);
        let map = match &schema {
            Value::Bool(b) => return *b,
            Value::Object(map) => map,
            _ => return false,
        };
        if map.get("nullable") == Some(&Value::Bool(true)) {
            return true;
        }
        if let Some(c) = map.get("const") {
            return c.is_null();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            if !values.contains(&Value::Null) {
                return false;
            }
        }
        match map.get("type") {
            Some(Value::String(t)) if !t.eq_ignore_ascii_case("null") => return false,
            Some(Value::Array(ts))
                if !ts
                    .iter()
                    .any(|t| t.as_str().is_some_and(|t| t.eq_ignore_ascii_case("null"))) =>
            {
                return false
            }
            _ => {}
        }
        match self.branches(&schema) {
            Some((_, branches)) => branches.iter().any(|b| self.admits_null_at(b, hops + 1)),
            None => true,
        }
    }

    /// The schemas that apply to member `key` of an object valid against
    /// `schema` (resolved): its declared property, through union branches
    /// too, or else `additionalProperties`.
    pub fn member_schemas(&self, schema: &Value, key: &str) -> Vec<Value> {
        let mut out = Vec::new();
        self.collect_member_schemas(schema, key, 0, &mut out);
        out
    }

    fn collect_member_schemas(&self, schema: &Value, key: &str, hops: u32, out: &mut Vec<Value>) {
        if hops > MAX_HOPS {
            return;
        }
        let schema = self.unref(schema);
        if let Some((_, branches)) = self.branches(&schema) {
            for branch in &branches {
                self.collect_member_schemas(branch, key, hops + 1, out);
            }
            return;
        }
        let Some(map) = schema.as_object() else {
            return;
        };
        if let Some(sub) = map.get("properties").and_then(|p| p.get(key)) {
            out.push(self.unref(sub));
        } else if let Some(sub @ Value::Object(_)) = map.get("additionalProperties") {
            out.push(self.unref(sub));
        }
    }

    /// The schemas that apply to item `index` of an array valid against
    /// `schema` (resolved), through union branches too.
    pub fn item_schemas(&self, schema: &Value, index: usize) -> Vec<Value> {
        let mut out = Vec::new();
        self.collect_item_schemas(schema, index, 0, &mut out);
        out
    }

    fn collect_item_schemas(&self, schema: &Value, index: usize, hops: u32, out: &mut Vec<Value>) {
        if hops > MAX_HOPS {
            return;
        }
        let schema = self.unref(schema);
        if let Some((_, branches)) = self.branches(&schema) {
            for branch in &branches {
                self.collect_item_schemas(branch, index, hops + 1, out);
            }
            return;
        }
        let Some(map) = schema.as_object() else {
            return;
        };
        let prefix = map.get("prefixItems").and_then(Value::as_array);
        match prefix.and_then(|p| p.get(index)) {
            Some(sub) => out.push(self.unref(sub)),
            None => {
                if let Some(sub @ Value::Object(_)) = map.get("items") {
                    out.push(self.unref(sub));
                }
            }
        }
    }
}

/// `schema` with every local `$ref` replaced by what it refers to (its
/// siblings merged in) and its definitions dropped; a reference deeper
/// than `MAX_HOPS` (a recursive type) becomes `true`.
pub fn inline(schema: &Value) -> Value {
    let doc = Doc::new(schema);
    let mut out = inline_at(&doc, schema, 0);
    if let Value::Object(map) = &mut out {
        map.remove("$defs");
        map.remove("definitions");
    }
    out
}

fn inline_at(doc: &Doc<'_>, schema: &Value, depth: u32) -> Value {
    if depth > MAX_HOPS {
        return Value::Bool(true);
    }
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let mut rest = map.clone();
                rest.remove("$ref");
                let target = doc.resolve(reference).cloned().unwrap_or(Value::Bool(true));
                let merged = merge(&target, &Value::Object(rest));
                return inline_at(doc, &merged, depth + 1);
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        let v = match k.as_str() {
                            "enum" | "const" | "default" | "examples" | "required" => v.clone(),
                            _ => inline_at(doc, v, depth + 1),
                        };
                        (k.clone(), v)
                    })
                    .collect(),
            )
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| inline_at(doc, v, depth + 1)).collect())
        }
        other => other.clone(),
    }
}

/// `a` and `b` as one schema: `properties` and `required` united, `type`
/// intersected, any other keyword taken from `a` when both have it.
pub fn merge(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let mut out = a.clone();
            for (key, value) in b {
                let Some(existing) = out.get_mut(key) else {
                    out.insert(key.clone(), value.clone());
                    continue;
                };
                match (key.as_str(), existing, value) {
                    ("properties", Value::Object(mine), Value::Object(theirs)) => {
                        for (name, schema) in theirs {
                            match mine.get_mut(name) {
                                Some(current) if current != schema => {
                                    *current = json!({"allOf": [current.clone(), schema]});
                                }
                                Some(_) => {}
                                None => {
                                    mine.insert(name.clone(), schema.clone());
                                }
                            }
                        }
                    }
                    ("required", Value::Array(mine), Value::Array(theirs)) => {
                        for name in theirs {
                            if !mine.contains(name) {
                                mine.push(name.clone());
                            }
                        }
                    }
                    ("items" | "additionalProperties" | "contains", existing, theirs)
                        if existing.is_object() && theirs.is_object() =>
                    {
                        *existing = merge(existing, theirs);
                    }
                    ("prefixItems", Value::Array(mine), Value::Array(theirs)) => {
                        for (m, t) in mine.iter_mut().zip(theirs) {
                            *m = merge(m, t);
                        }
                    }
                    ("type", existing, theirs) => {
                        let mine = type_names(existing);
                        let theirs = type_names(theirs);
                        let has = |t: &str| theirs.iter().any(|u| u == t);
                        let both: Vec<Value> = mine
                            .iter()
                            .filter_map(|t| match t.as_str() {
                                t if has(t) => Some(t),
                                "integer" if has("number") => Some("integer"),
                                "number" if has("integer") => Some("integer"),
                                _ => None,
                            })
                            .map(|t| Value::String(t.to_owned()))
                            .collect();
                        *existing = Value::Array(both);
                    }
                    _ => {}
                }
            }
            Value::Object(out)
        }
        (Value::Bool(true), other) | (other, Value::Bool(true)) => other.clone(),
        _ => Value::Bool(false),
    }
}

/// The type names a `type` keyword lists, lower-cased.
pub fn type_names(types: &Value) -> Vec<String> {
    match types {
        Value::String(t) => vec![t.to_lowercase()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_lowercase)
            .collect(),
        _ => Vec::new(),
    }
}

/// Gemini's `parameters` (OpenAPI 3.0's subset: `nullable`, type names in
/// any case) as the JSON Schema it means, so that `jsonschema` can check
/// what was generated from it.
pub fn json_schema_of_openapi(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let value = match key.as_str() {
            "nullable" => continue,
            "type" => match value {
                Value::String(t) => Value::String(t.to_lowercase()),
                Value::Array(_) => {
                    Value::Array(type_names(value).into_iter().map(Value::String).collect())
                }
                other => other.clone(),
            },
            "properties" | "$defs" | "definitions" | "patternProperties" => match value {
                Value::Object(members) => Value::Object(
                    members
                        .iter()
                        .map(|(k, v)| (k.clone(), json_schema_of_openapi(v)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "items" | "additionalProperties" | "not" | "contains" => json_schema_of_openapi(value),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match value {
                Value::Array(parts) => {
                    Value::Array(parts.iter().map(json_schema_of_openapi).collect())
                }
                other => other.clone(),
            },
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        if let Some(Value::Array(values)) = out.get_mut("enum") {
            if !values.contains(&Value::Null) {
                values.push(Value::Null);
            }
        }
        let composite = ["anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .any(|k| out.contains_key(*k));
        match out.get_mut("type") {
            Some(types) if !composite => {
                let mut names = type_names(types);
                if !names.iter().any(|t| t == "null") {
                    names.push("null".to_owned());
                }
                *types = Value::Array(names.into_iter().map(Value::String).collect());
            }
            _ => return json!({"anyOf": [Value::Object(out), {"type": "null"}]}),
        }
    }
    Value::Object(out)
}

/// The range of an integer `format` as schemars writes them (`uint32`,
/// `int8`, ...), `None` for any other format.
pub fn integer_format_range(format: &str) -> Option<(i128, i128)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "int64" | "int" => (i64::MIN.into(), i64::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        "uint64" | "uint" => (0, u64::MAX.into()),
        _ => return None,
    })
}

/// `schema` with the range of each integer `format` written as `minimum`
/// and `maximum` (the tighter bound kept), so that `jsonschema`, which
/// asserts formats on strings only, holds integers to their width as
/// canon does.
pub fn with_format_ranges(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .iter()
                .map(|(k, v)| {
                    let v = match k.as_str() {
                        // Values that are data, not schemas.
                        "enum" | "const" | "default" | "examples" | "required" => v.clone(),
                        _ => with_format_ranges(v),
                    };
                    (k.clone(), v)
                })
                .collect();
            let range = map
                .get("format")
                .and_then(Value::as_str)
                .and_then(integer_format_range);
            if let Some((lo, hi)) = range {
                let tighter = |key: &str, bound: i128, lower: bool| -> Option<Value> {
                    let current = map.get(key).and_then(Value::as_f64);
                    #[allow(clippy::cast_precision_loss)]
                    let keep = current.is_some_and(|c| {
                        if lower {
                            c >= bound as f64
                        } else {
                            c <= bound as f64
                        }
                    });
                    if keep {
                        return None;
                    }
                    i64::try_from(bound)
                        .map(Value::from)
                        .or_else(|_| u64::try_from(bound).map(Value::from))
                        .ok()
                };
                if let Some(v) = tighter("minimum", lo, true) {
                    out.insert("minimum".to_owned(), v);
                }
                if let Some(v) = tighter("maximum", hi, false) {
                    out.insert("maximum".to_owned(), v);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(with_format_ranges).collect()),
        other => other.clone(),
    }
}

/// A validator holding calls to every keyword of `schema`: formats are
/// asserted (strings by `jsonschema`, integer widths as ranges).
///
/// # Errors
/// The schema does not compile.
pub fn strict_validator(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(&with_format_ranges(schema))
        .map_err(|e| e.to_string())
}

/// `text` with `%XX` escapes decoded (URI fragments in `$ref`).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// A JSON Pointer token for `key` (RFC 6901).
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
