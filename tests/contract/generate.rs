//! A proptest `Strategy` for JSON instances of a JSON Schema (draft 2020-12,
//! as canon and its dialects write it; Gemini's OpenAPI subset is first
//! rewritten with `schema::json_schema_of_openapi`).
//!
//! Covered: `type` (one or several), `properties` / `required` /
//! `additionalProperties` (false, a schema, absent), `items`,
//! `prefixItems`, `enum`, `const`, `anyOf`, `oneOf` (exactly one branch),
//! `allOf`, local `$ref` / `$defs`, `minimum` / `maximum` /
//! `exclusiveMinimum` / `exclusiveMaximum` / `multipleOf`, the integer and
//! float `format`s schemars writes (kept within range), `minLength` /
//! `maxLength` (in characters), `pattern`, the string `format`s email, uri,
//! date-time, date, time, uuid, ipv4, ipv6 and hostname, `minItems` /
//! `maxItems` / `uniqueItems`, `minProperties` / `maxProperties`.
//!
//! Optional properties are sometimes absent and sometimes present; where
//! the schema admits `null`, `null` is one of the values generated. An
//! integral value where the schema says integer is sometimes written
//! `3.0`, which JSON Schema counts as an integer. [`instances`] keeps only
//! what `jsonschema` accepts, so a generator miss is never blamed on canon.

use std::sync::Arc;

use proptest::prelude::*;
use proptest::strategy::Union;
use serde_json::{Map, Value};

use crate::schema::{inline, integer_format_range, merge, strict_validator, type_names, Doc};

/// Nesting (through properties, items and `$ref`s) beyond which nothing
/// more is generated: only recursive schemas get this deep.
const MAX_DEPTH: u32 = 24;

/// From this depth on, optional members are left out and arrays are as
/// short as allowed, so recursive schemas end.
const SHALLOW: u32 = 12;

/// Instances valid against `schema`, as `jsonschema` judges them with
/// formats asserted and integers held to their format's width.
///
/// # Errors
/// The schema does not compile.
pub fn instances(schema: &Value) -> Result<BoxedStrategy<Value>, String> {
    let validator = Arc::new(strict_validator(schema)?);
    Ok(raw(schema)
        .prop_filter("valid against its schema", move |v| validator.is_valid(v))
        .boxed())
}

/// Instances valid against `exported` that keep to `own` as well where
/// they can (generated from both schemas merged), with `null` now and then
/// wherever `exported` admits it: calls a model following a lossy export
/// may send that the tool's own schema also accepts.
///
/// # Errors
/// A schema does not compile.
pub fn instances_within(exported: &Value, own: &Value) -> Result<BoxedStrategy<Value>, String> {
    let validator = Arc::new(strict_validator(exported)?);
    let both = merge(&inline(exported), &inline(own));
    let exported = Arc::new(exported.clone());
    Ok(raw(&both)
        .prop_perturb(move |mut value, mut rng| {
            let doc = Doc::new(&exported);
            nullify(&doc, &[doc.unref(&exported)], &mut value, &mut || {
                rng.next_u32() % 4 == 0
            });
            value
        })
        .prop_filter("valid against the export", move |v| validator.is_valid(v))
        .boxed())
}

/// Sets members `schemas` let be `null` to `null` where `flip` says so.
fn nullify(doc: &Doc<'_>, schemas: &[Value], value: &mut Value, flip: &mut dyn FnMut() -> bool) {
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter_mut() {
                let subs: Vec<Value> = schemas
                    .iter()
                    .flat_map(|s| doc.member_schemas(s, key))
                    .collect();
                if !subs.is_empty() && subs.iter().all(|s| doc.admits_null(s)) && flip() {
                    *member = Value::Null;
                } else {
                    nullify(doc, &subs, member, flip);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let subs: Vec<Value> = schemas
                    .iter()
                    .flat_map(|s| doc.item_schemas(s, i))
                    .collect();
                nullify(doc, &subs, item, flip);
            }
        }
        _ => {}
    }
}

/// The generator alone, before the check against the schema.
pub fn raw(schema: &Value) -> BoxedStrategy<Value> {
    Generator {
        doc: Doc::new(schema),
        root: schema,
    }
    .schema(schema, 0)
}

struct Generator<'a> {
    doc: Doc<'a>,
    root: &'a Value,
}

impl Generator<'_> {
    fn schema(&self, schema: &Value, depth: u32) -> BoxedStrategy<Value> {
        if depth > MAX_DEPTH {
            return Just(Value::Null).boxed();
        }
        let resolved = self.doc.unref(schema);
        let map = match &resolved {
            Value::Bool(true) => return any_json(),
            Value::Object(map) if map.is_empty() => return any_json(),
            Value::Object(map) => map,
            // `false`: nothing is valid; the check drops what comes.
            _ => return Just(Value::Null).boxed(),
        };
        if let Some((keyword, branches)) = self.doc.branches(&resolved) {
            let choices: Vec<BoxedStrategy<Value>> = branches
                .iter()
                .map(|branch| self.schema(branch, depth + 1))
                .collect();
            if choices.is_empty() {
                return Just(Value::Null).boxed();
            }
            let union = Union::new(choices).boxed();
            if keyword == "oneOf" {
                // Exactly one branch must match: checked on the union
                // itself, with the document's definitions beside it.
                if let Some(validator) = self.part_validator(&resolved) {
                    return union
                        .prop_filter("exactly one branch of oneOf", move |v| {
                            validator.is_valid(v)
                        })
                        .boxed();
                }
            }
            return union;
        }
        if let Some(value) = map.get("const") {
            return Just(value.clone()).boxed();
        }
        let nullable = map.get("nullable") == Some(&Value::Bool(true));
        if let Some(Value::Array(values)) = map.get("enum") {
            let mut values = values.clone();
            if nullable && !values.contains(&Value::Null) {
                values.push(Value::Null);
            }
            if values.is_empty() {
                return Just(Value::Null).boxed();
            }
            return proptest::sample::select(values).boxed();
        }
        let mut types = match map.get("type") {
            Some(types) => type_names(types),
            None => inferred_types(map),
        };
        if types.is_empty() && map.get("type").is_none() {
            return any_json();
        }
        if nullable && !types.iter().any(|t| t == "null") {
            types.push("null".to_owned());
        }
        let choices: Vec<BoxedStrategy<Value>> = types
            .iter()
            .map(|t| match t.as_str() {
                "null" => Just(Value::Null).boxed(),
                "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
                "integer" => integers(map),
                "number" => numbers(map),
                "string" => strings(map),
                "array" => self.arrays(map, depth),
                "object" => self.objects(map, depth),
                _ => Just(Value::Null).boxed(),
            })
            .collect();
        if choices.is_empty() {
            return Just(Value::Null).boxed();
        }
        Union::new(choices).boxed()
    }

    /// A validator for one part of the document (its definitions beside
    /// it, so its `$ref`s resolve).
    fn part_validator(&self, part: &Value) -> Option<Arc<jsonschema::Validator>> {
        let mut doc = part.as_object()?.clone();
        for key in ["$defs", "definitions"] {
            if let Some(defs) = self.root.get(key) {
                doc.entry(key).or_insert_with(|| defs.clone());
            }
        }
        strict_validator(&Value::Object(doc)).ok().map(Arc::new)
    }

    fn arrays(&self, map: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
        let min = count(map, "minItems").unwrap_or(0);
        let prefix: Vec<Value> = map
            .get("prefixItems")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let items = map.get("items");
        let more_allowed = !matches!(items, Some(Value::Bool(false)));
        let floor = min.max(prefix.len());
        let mut max = count(map, "maxItems").unwrap_or(floor + 3).min(floor + 4);
        if depth >= SHALLOW {
            max = max.min(floor);
        }
        if max < prefix.len() || max < min {
            return Just(Value::Null).boxed();
        }
        let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        let firsts: Vec<BoxedStrategy<Value>> = prefix
            .iter()
            .map(|item| self.schema(item, depth + 1))
            .collect();
        let rest_min = min.saturating_sub(prefix.len());
        let rest_max = if more_allowed { max - prefix.len() } else { 0 };
        // Uniqueness drops repeats, so a few more are drawn first.
        let draw_max = if unique { rest_max + 2 } else { rest_max };
        let item = match items {
            Some(schema @ Value::Object(_)) => self.schema(schema, depth + 1),
            _ => any_json(),
        };
        let rest = proptest::collection::vec(item, rest_min.min(draw_max)..=draw_max);
        (firsts, rest)
            .prop_map(move |(mut all, rest)| {
                all.extend(rest);
                if unique {
                    let mut seen: Vec<Value> = Vec::with_capacity(all.len());
                    for v in all {
                        if !seen.iter().any(|s| same_json(s, &v)) {
                            seen.push(v);
                        }
                    }
                    all = seen;
                    all.truncate(max);
                }
                Value::Array(all)
            })
            .boxed()
    }

    fn objects(&self, map: &Map<String, Value>, depth: u32) -> BoxedStrategy<Value> {
        let empty = Map::new();
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let additional = map.get("additionalProperties");
        let closed = matches!(additional, Some(Value::Bool(false)))
            || map.get("unevaluatedProperties") == Some(&Value::Bool(false));
        let present = if depth >= SHALLOW { 0.0 } else { 0.6 };
        let mut members: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
        for (name, sub) in properties {
            let key = name.clone();
            let value = self.schema(sub, depth + 1);
            members.push(if required.contains(name) {
                value.prop_map(move |v| Some((key.clone(), v))).boxed()
            } else {
                proptest::option::weighted(present, value)
                    .prop_map(move |v| v.map(|v| (key.clone(), v)))
                    .boxed()
            });
        }
        let extra_schema = match additional {
            Some(schema @ Value::Object(m)) if !m.is_empty() => Some(schema.clone()),
            _ => None,
        };
        for name in required.iter().filter(|r| !properties.contains_key(*r)) {
            let key = name.clone();
            let value = match &extra_schema {
                Some(schema) => self.schema(schema, depth + 1),
                None => any_json(),
            };
            members.push(value.prop_map(move |v| Some((key.clone(), v))).boxed());
        }
        let extras: BoxedStrategy<Vec<(String, Value)>> = match (&extra_schema, closed) {
            (_, true) => Just(Vec::new()).boxed(),
            (Some(schema), false) => {
                let most = if depth >= SHALLOW { 0 } else { 3 };
                proptest::collection::vec((map_key(), self.schema(schema, depth + 1)), 0..=most)
                    .boxed()
            }
            // An open object: now and then a member nobody declared.
            (None, false) => proptest::option::weighted(0.15, (extra_key(), leaf()))
                .prop_map(|extra| extra.into_iter().collect())
                .boxed(),
        };
        let min = count(map, "minProperties");
        let max = count(map, "maxProperties");
        (members, extras)
            .prop_map(|(members, extras)| {
                let mut object = Map::new();
                for (key, value) in members.into_iter().flatten() {
                    object.insert(key, value);
                }
                for (key, value) in extras {
                    object.entry(key).or_insert(value);
                }
                Value::Object(object)
            })
            .prop_filter("minProperties / maxProperties", move |v| {
                let n = v.as_object().map_or(0, Map::len);
                min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)
            })
            .boxed()
    }
}

/// The types a schema without `type` describes, from its keywords.
fn inferred_types(map: &Map<String, Value>) -> Vec<String> {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    let t = if has(&[
        "properties",
        "additionalProperties",
        "required",
        "minProperties",
        "maxProperties",
        "patternProperties",
    ]) {
        "object"
    } else if has(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]) {
        "array"
    } else if has(&["minLength", "maxLength", "pattern"]) {
        "string"
    } else if has(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        "number"
    } else {
        return Vec::new();
    };
    vec![t.to_owned()]
}

fn count(map: &Map<String, Value>, key: &str) -> Option<usize> {
    map.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

fn number(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

fn integers(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    // Anything JSON carries as an integer, unless a format says less.
    let (mut lo, mut hi) = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(integer_format_range)
        .unwrap_or((i64::MIN.into(), u64::MAX.into()));
    // Bounds as integers; f64 → i128 casts saturate.
    if let Some(m) = number(map, "minimum") {
        lo = lo.max(m.ceil() as i128);
    }
    if let Some(m) = number(map, "exclusiveMinimum") {
        lo = lo.max(m.floor() as i128 + 1);
    }
    if let Some(m) = number(map, "maximum") {
        hi = hi.min(m.floor() as i128);
    }
    if let Some(m) = number(map, "exclusiveMaximum") {
        hi = hi.min(m.ceil() as i128 - 1);
    }
    let step = match number(map, "multipleOf") {
        Some(m) if m >= 1.0 && m.fract() == 0.0 => m as i128,
        _ => 1,
    };
    let (klo, khi) = (div_ceil(lo, step), div_floor(hi, step));
    if klo > khi {
        return Just(Value::Null).boxed();
    }
    let mut ranges: Vec<(u32, BoxedStrategy<i128>)> = vec![
        (3, (klo..=khi.min(klo.saturating_add(16))).boxed()),
        (3, (khi.saturating_sub(16).max(klo)..=khi).boxed()),
        (2, (klo..=khi).boxed()),
    ];
    let (slo, shi) = (klo.max(-100), khi.min(100));
    if slo <= shi {
        ranges.push((6, (slo..=shi).boxed()));
    }
    (Union::new_weighted(ranges), proptest::bool::weighted(0.1))
        .prop_map(move |(k, as_float)| integer_value(k * step, as_float))
        .boxed()
}

fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -div_floor(-a, b)
}

/// `n` as JSON: an integer, or (with `as_float`, where exact) the same
/// number written with a fraction, `3.0`.
fn integer_value(n: i128, as_float: bool) -> Value {
    if as_float && n.abs() < (1 << 53) {
        #[allow(clippy::cast_precision_loss)]
        if let Some(number) = serde_json::Number::from_f64(n as f64) {
            return Value::Number(number);
        }
    }
    if let Ok(i) = i64::try_from(n) {
        Value::from(i)
    } else if let Ok(u) = u64::try_from(n) {
        Value::from(u)
    } else {
        Value::Null
    }
}

fn numbers(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let wide = if map.get("format").and_then(Value::as_str) == Some("float") {
        1e30
    } else {
        1e12
    };
    // Each bound, and whether it is exclusive.
    let mut lo = (-wide, false);
    let mut hi = (wide, false);
    for (key, exclusive) in [("minimum", false), ("exclusiveMinimum", true)] {
        if let Some(m) = number(map, key) {
            if m > lo.0 || (m == lo.0 && exclusive) {
                lo = (m, exclusive);
            }
        }
    }
    for (key, exclusive) in [("maximum", false), ("exclusiveMaximum", true)] {
        if let Some(m) = number(map, key) {
            if m < hi.0 || (m == hi.0 && exclusive) {
                hi = (m, exclusive);
            }
        }
    }
    // The whole multiples of `unit` within the bounds, as `k` in `k * unit`.
    let multiples = |unit: f64| -> Option<(i64, i64)> {
        let first = if lo.1 {
            (lo.0 / unit).floor() + 1.0
        } else {
            (lo.0 / unit).ceil()
        };
        let last = if hi.1 {
            (hi.0 / unit).ceil() - 1.0
        } else {
            (hi.0 / unit).floor()
        };
        #[allow(clippy::cast_possible_truncation)]
        let (first, last) = (first as i64, last as i64);
        (first <= last).then_some((first, last))
    };
    let mut choices: Vec<(u32, BoxedStrategy<Value>)> = Vec::new();
    if let Some(m) = number(map, "multipleOf").filter(|m| *m > 0.0) {
        if let Some((first, last)) = multiples(m) {
            let near = last.min(first.saturating_add(64));
            choices.push((
                1,
                (first..=last)
                    .prop_map(move |k| float_value(k as f64 * m))
                    .boxed(),
            ));
            choices.push((
                2,
                (first..=near)
                    .prop_map(move |k| float_value(k as f64 * m))
                    .boxed(),
            ));
        }
    } else {
        // Hundredths, near the lower bound and anywhere; whole numbers
        // written as integers; the inclusive bounds themselves.
        if let Some((first, last)) = multiples(0.01) {
            let near = last.min(first.saturating_add(300));
            choices.push((
                3,
                (first..=last)
                    .prop_map(|c| float_value(c as f64 / 100.0))
                    .boxed(),
            ));
            choices.push((
                3,
                (first..=near)
                    .prop_map(|c| float_value(c as f64 / 100.0))
                    .boxed(),
            ));
        }
        if let Some((first, last)) = multiples(1.0) {
            choices.push((2, (first..=last).prop_map(Value::from).boxed()));
        }
        for (bound, exclusive) in [lo, hi] {
            if !exclusive && bound.abs() < wide {
                choices.push((1, Just(float_value(bound)).boxed()));
            }
        }
    }
    if choices.is_empty() {
        return Just(Value::Null).boxed();
    }
    Union::new_weighted(choices).boxed()
}

fn float_value(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn strings(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let min = count(map, "minLength").unwrap_or(0);
    let max = count(map, "maxLength");
    let draw_max = max.unwrap_or(min + 10).min(min + 16);
    let base: BoxedStrategy<String> = match (
        map.get("pattern").and_then(Value::as_str),
        map.get("format").and_then(Value::as_str),
    ) {
        (Some(pattern), _) => pattern_strategy(pattern).unwrap_or_else(|| plain(min, draw_max)),
        (None, Some(format)) => format_strategy(format).unwrap_or_else(|| plain(min, draw_max)),
        (None, None) => plain(min, draw_max),
    };
    base.prop_filter("minLength / maxLength", move |s| {
        let n = s.chars().count();
        n >= min && max.is_none_or(|m| n <= m)
    })
    .prop_map(Value::String)
    .boxed()
}

/// Strings matching `pattern`: proptest generates from the regex without
/// its anchors (JSON Schema patterns search, so a match of the bare regex
/// matches the anchored one as a whole string).
fn pattern_strategy(pattern: &str) -> Option<BoxedStrategy<String>> {
    let bare = pattern.strip_prefix('^').unwrap_or(pattern);
    let bare = match bare.strip_suffix('$') {
        Some(b) if !b.ends_with('\\') => b,
        _ => bare,
    };
    proptest::string::string_regex(bare).ok().map(|s| s.boxed())
}

/// Simple valid strings of a `format`; `None` for a format not known here
/// (no format is asserted by default in draft 2020-12, so any string does).
fn format_strategy(format: &str) -> Option<BoxedStrategy<String>> {
    let date = "20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])";
    let time = "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,3})?(Z|[+-]0[0-9]:00)";
    let octet = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    let regex = match format {
        "email" | "idn-email" => {
            "[a-z]{1,8}(\\.[a-z]{1,4})?@[a-z]{1,8}\\.(com|org|example)".to_owned()
        }
        "uri" | "url" | "iri" | "uri-reference" | "iri-reference" => {
            "https://[a-z]{1,8}\\.example(/[a-z0-9]{1,6}){0,2}".to_owned()
        }
        "date-time" => format!("{date}T{time}"),
        "date" => date.to_owned(),
        "time" => time.to_owned(),
        "uuid" => "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}".to_owned(),
        "ipv4" => format!("{octet}(\\.{octet}){{3}}"),
        "ipv6" => "[0-9a-f]{1,4}(:[0-9a-f]{1,4}){7}".to_owned(),
        "hostname" | "idn-hostname" => "[a-z]{1,10}(\\.[a-z]{1,6}){0,2}".to_owned(),
        _ => return None,
    };
    proptest::string::string_regex(&regex)
        .ok()
        .map(|s| s.boxed())
}

/// Text of `min..=max` characters, with what exercises pointers, escaping
/// and character counting: slashes, tildes, brackets, quotes, a newline,
/// accented and wide characters, an emoji.
fn plain(min: usize, max: usize) -> BoxedStrategy<String> {
    let c = prop_oneof![
        8 => proptest::char::range('a', 'z'),
        2 => proptest::char::range('0', '9'),
        3 => proptest::sample::select(vec![
            ' ', '/', '~', '[', ']', '"', ',', '\\', '\n', 'é', '漢', '🦀', '\u{2028}',
        ]),
    ];
    proptest::collection::vec(c, min..=max.max(min))
        .prop_map(|cs| cs.into_iter().collect())
        .boxed()
}

/// Keys of a map: ordinary words, and keys a JSON Pointer must escape.
fn map_key() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z]{1,6}",
        1 => proptest::sample::select(vec!["a/b", "~t", "with space", "", "é"]).prop_map(str::to_owned),
    ]
    .boxed()
}

/// A member no schema declares.
fn extra_key() -> BoxedStrategy<String> {
    proptest::sample::select(vec!["zz_extra", "other", "x/y"])
        .prop_map(str::to_owned)
        .boxed()
}

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(Value::from),
        plain(0, 6).prop_map(Value::String),
    ]
    .boxed()
}

/// Equal as JSON Schema compares values (`3` and `3.0` are one number).
fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// Any JSON, shallow.
fn any_json() -> BoxedStrategy<Value> {
    prop_oneof![
        4 => leaf(),
        1 => proptest::collection::vec(leaf(), 0..3).prop_map(Value::Array),
        1 => proptest::collection::vec((map_key(), leaf()), 0..3)
            .prop_map(|members| Value::Object(members.into_iter().collect())),
    ]
    .boxed()
}
