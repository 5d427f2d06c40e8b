//! What the contract expects of a call, worked out from the tool's own
//! schema independently of canon: the call as strict serde is to see it,
//! and the positions where a call breaks one keyword of the schema.

use serde_json::{json, Map, Value};

use crate::schema::{escape, integer_format_range, type_names, Doc};

/// String formats a call is held to.
const ASSERTED_FORMATS: [&str; 9] = [
    "email",
    "uri",
    "date-time",
    "date",
    "time",
    "uuid",
    "ipv4",
    "ipv6",
    "hostname",
];

/// The call as strict serde is to see it:
/// - a `null` sent for a member whose own schema does not admit `null` is
///   left out: only a strict export, which makes every optional member
///   required and nullable, allows it there, and canon binds it as "use
///   the default", with no repair;
/// - a number written with a zero fraction (`3.0`) is written as the
///   integer it is: JSON Schema counts it as an integer, serde does not.
pub fn as_serde_sees(own: &Value, call: &Value) -> Value {
    let doc = Doc::new(own);
    let mut out = call.clone();
    strip(&doc, &[doc.unref(own)], &mut out);
    out
}

fn strip(doc: &Doc<'_>, schemas: &[Value], value: &mut Value) {
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let subs: Vec<Value> = schemas
                    .iter()
                    .flat_map(|s| doc.member_schemas(s, &key))
                    .collect();
                let null = map.get(&key).is_some_and(Value::is_null);
                if null && !subs.is_empty() && subs.iter().all(|s| !doc.admits_null(s)) {
                    map.remove(&key);
                } else if let Some(member) = map.get_mut(&key) {
                    strip(doc, &subs, member);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let subs: Vec<Value> = schemas
                    .iter()
                    .flat_map(|s| doc.item_schemas(s, i))
                    .collect();
                strip(doc, &subs, item);
            }
        }
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    #[allow(clippy::cast_possible_truncation)]
                    let whole = f as i64;
                    *value = Value::from(whole);
                }
            }
        }
        _ => {}
    }
}

/// A call broken at one position.
#[derive(Debug, Clone)]
pub struct Break {
    /// The position a violation must name: the value broken, or the member
    /// added or removed.
    pub pointer: String,
    /// Which keyword was broken, and how.
    pub what: String,
    /// The whole call, broken.
    pub call: Value,
}

impl Break {
    /// The keyword broken: `maximum`, `pattern`, `required`, ...
    pub fn keyword(&self) -> &str {
        self.what.split(' ').next().unwrap_or_default()
    }
}

/// Every way found to break `call` (valid against `own`) at one position:
/// a number past a bound, a string too long or too short or off its
/// pattern, a value outside an `enum` or `const`, an array too long or too
/// short, a repeat in a set, a member a closed object does not declare, a
/// required member left out, an object or a string sent in another form
/// serde takes for a struct or an enum (`type`). Positions inside a union
/// are reached only when the call's value picks one branch (by JSON type,
/// or by a tag).
pub fn breaks(own: &Value, call: &Value) -> Vec<Break> {
    let doc = Doc::new(own);
    let mut edits = Vec::new();
    walk(&doc, own, call, "", None, &mut edits);
    edits
        .into_iter()
        .filter_map(|edit| edit.apply(call))
        .collect()
}

enum Edit {
    Replace {
        at: String,
        value: Value,
        what: String,
    },
    Insert {
        object: String,
        key: String,
        what: String,
    },
    Remove {
        object: String,
        key: String,
        what: String,
    },
}

impl Edit {
    fn apply(self, call: &Value) -> Option<Break> {
        let mut broken = call.clone();
        match self {
            Edit::Replace { at, value, what } => {
                *broken.pointer_mut(&at)? = value;
                Some(Break {
                    pointer: at,
                    what,
                    call: broken,
                })
            }
            Edit::Insert { object, key, what } => {
                broken
                    .pointer_mut(&object)?
                    .as_object_mut()?
                    .insert(key.clone(), json!(1));
                Some(Break {
                    pointer: format!("{object}/{}", escape(&key)),
                    what,
                    call: broken,
                })
            }
            Edit::Remove { object, key, what } => {
                broken.pointer_mut(&object)?.as_object_mut()?.remove(&key)?;
                Some(Break {
                    pointer: format!("{object}/{}", escape(&key)),
                    what,
                    call: broken,
                })
            }
        }
    }
}

fn walk(
    doc: &Doc<'_>,
    schema: &Value,
    value: &Value,
    at: &str,
    tag: Option<&str>,
    edits: &mut Vec<Edit>,
) {
    if value.is_null() {
        return;
    }
    // The forms serde's derived types take beyond their schemas: a struct
    // as the array of its fields' values, a unit variant as a one-member
    // object. Where the schema admits the edit, the runner drops it.
    match value {
        Value::Object(members) if !members.is_empty() => edits.push(Edit::Replace {
            at: at.to_owned(),
            value: Value::Array(members.values().cloned().collect()),
            what: "type (an object sent as the array of its values)".to_owned(),
        }),
        Value::String(s) => edits.push(Edit::Replace {
            at: at.to_owned(),
            value: json!({ s: null }),
            what: "type (a string sent as a one-member object)".to_owned(),
        }),
        _ => {}
    }
    let schema = doc.unref(schema);
    if let Some((_, branches)) = doc.branches(&schema) {
        if let Some((branch, tag)) = pick(doc, &branches, value) {
            walk(doc, &branch, value, at, tag.as_deref(), edits);
        }
        return;
    }
    let Some(map) = schema.as_object() else {
        return;
    };
    let replace = |value: Value, what: String| Edit::Replace {
        at: at.to_owned(),
        value,
        what,
    };
    if let Some(c) = map.get("const") {
        let other = json!("zz-not-the-constant");
        if *c != other {
            edits.push(replace(other, format!("const {c}")));
        }
    }
    if let Some(Value::Array(allowed)) = map.get("enum") {
        let other = json!("zz-not-in-the-enum");
        if !allowed.contains(&other) {
            edits.push(replace(other, "enum".to_owned()));
        }
    }
    match value {
        Value::Number(_) => {
            let integer = type_names(map.get("type").unwrap_or(&Value::Null))
                .iter()
                .any(|t| t == "integer");
            let num = |key: &str| map.get(key).and_then(Value::as_f64);
            let as_json = |x: f64| {
                if integer && x.fract() == 0.0 && x.abs() < 9e15 {
                    #[allow(clippy::cast_possible_truncation)]
                    let whole = x as i64;
                    Value::from(whole)
                } else {
                    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
                }
            };
            if let Some(m) = num("maximum") {
                edits.push(replace(as_json(m + 1.0), format!("maximum {m}")));
            }
            if let Some(m) = num("exclusiveMaximum") {
                edits.push(replace(as_json(m), format!("exclusiveMaximum {m}")));
            }
            if let Some(m) = num("minimum") {
                edits.push(replace(as_json(m - 1.0), format!("minimum {m}")));
            }
            if let Some(m) = num("exclusiveMinimum") {
                edits.push(replace(as_json(m), format!("exclusiveMinimum {m}")));
            }
            // The width of an integer format, where no tighter bound is set.
            let format = map.get("format").and_then(Value::as_str);
            if let Some((lo, hi)) = format.and_then(integer_format_range).filter(|_| integer) {
                #[allow(clippy::cast_precision_loss)]
                let wider = |key: &str, bound: i128, above: bool| {
                    num(key).is_none_or(|b| {
                        if above {
                            b >= bound as f64
                        } else {
                            b <= bound as f64
                        }
                    })
                };
                let past = [
                    (hi + 1, wider("maximum", hi, true)),
                    (lo - 1, wider("minimum", lo, false)),
                ];
                for (n, applies) in past {
                    let json = i64::try_from(n)
                        .map(Value::from)
                        .or_else(|_| u64::try_from(n).map(Value::from));
                    if let (true, Ok(json)) = (applies, json) {
                        edits.push(replace(json, format!("format {}", format.unwrap_or(""))));
                    }
                }
            }
        }
        Value::String(s) => {
            if let Some(m) = map.get("maxLength").and_then(Value::as_u64) {
                let long = "x".repeat(usize::try_from(m).unwrap_or(64) + 1);
                edits.push(replace(Value::String(long), format!("maxLength {m}")));
            }
            if let Some(m) = map
                .get("minLength")
                .and_then(Value::as_u64)
                .filter(|m| *m > 0)
            {
                let short: String = s
                    .chars()
                    .take(usize::try_from(m - 1).unwrap_or(0))
                    .collect();
                edits.push(replace(Value::String(short), format!("minLength {m}")));
            }
            if let Some(p) = map.get("pattern").and_then(Value::as_str) {
                edits.push(replace(json!("!!"), format!("pattern {p}")));
            }
            let format = map.get("format").and_then(Value::as_str);
            if let Some(f) = format.filter(|f| ASSERTED_FORMATS.contains(f)) {
                edits.push(replace(json!("zz not valid"), format!("format {f}")));
            }
        }
        Value::Array(items) => {
            let max = map.get("maxItems").and_then(Value::as_u64);
            if let (Some(m), Some(first)) = (max, items.first()) {
                let mut long = items.clone();
                while (long.len() as u64) <= m {
                    long.push(first.clone());
                }
                edits.push(replace(Value::Array(long), format!("maxItems {m}")));
            }
            if let Some(m) = map
                .get("minItems")
                .and_then(Value::as_u64)
                .filter(|m| *m > 0)
            {
                let short: Vec<Value> = items
                    .iter()
                    .take(usize::try_from(m - 1).unwrap_or(0))
                    .cloned()
                    .collect();
                edits.push(replace(Value::Array(short), format!("minItems {m}")));
            }
            if map.get("uniqueItems") == Some(&Value::Bool(true)) {
                if let Some(first) = items.first() {
                    let mut repeated = items.clone();
                    if max.is_none_or(|m| (items.len() as u64) < m) {
                        repeated.push(first.clone());
                    } else if items.len() >= 2 {
                        repeated[1] = first.clone();
                    }
                    if repeated.len() > 1 {
                        edits.push(replace(Value::Array(repeated), "uniqueItems".to_owned()));
                    }
                }
            }
            for (i, item) in items.iter().enumerate() {
                for sub in doc.item_schemas(&schema, i) {
                    walk(doc, &sub, item, &format!("{at}/{i}"), None, edits);
                }
            }
        }
        Value::Object(members) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                edits.push(Edit::Insert {
                    object: at.to_owned(),
                    key: "zz_unknown".to_owned(),
                    what: "additionalProperties false".to_owned(),
                });
            }
            let required = map.get("required").and_then(Value::as_array);
            for key in required.into_iter().flatten().filter_map(Value::as_str) {
                if members.contains_key(key) && Some(key) != tag {
                    edits.push(Edit::Remove {
                        object: at.to_owned(),
                        key: key.to_owned(),
                        what: "required".to_owned(),
                    });
                }
            }
            for (key, member) in members {
                if Some(key.as_str()) == tag {
                    continue;
                }
                let at = format!("{at}/{}", escape(key));
                for sub in doc.member_schemas(&schema, key) {
                    walk(doc, &sub, member, &at, None, edits);
                }
            }
        }
        _ => {}
    }
}

/// The one branch of a union `value` is for: the only branch of its JSON
/// type, or the branch whose tag (a member every branch fixes with
/// `const`) it carries, with that tag's name. `None` when it is not clear.
fn pick(doc: &Doc<'_>, branches: &[Value], value: &Value) -> Option<(Value, Option<String>)> {
    let fits: Vec<&Value> = branches.iter().filter(|b| of_type(b, value)).collect();
    if let [only] = fits.as_slice() {
        return Some(((*only).clone(), None));
    }
    let object = value.as_object()?;
    let tags = |b: &Value| -> Map<String, Value> {
        b.get("properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.iter()
                    .filter_map(|(k, s)| Some((k.clone(), constant(&doc.unref(s))?)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let first = tags(fits.first()?);
    for name in first.keys() {
        let mut chosen = None;
        let mut every_branch_tagged = true;
        for branch in &fits {
            match tags(branch).get(name) {
                Some(c) if object.get(name) == Some(c) => chosen = Some((*branch).clone()),
                Some(_) => {}
                None => every_branch_tagged = false,
            }
        }
        if let (true, Some(branch)) = (every_branch_tagged, chosen) {
            return Some((branch, Some(name.clone())));
        }
    }
    None
}

/// The one value a schema allows (`const`, or a one-value `enum`).
fn constant(schema: &Value) -> Option<Value> {
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    match schema
        .get("enum")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([one]) => Some(one.clone()),
        _ => None,
    }
}

/// Whether a branch could take a value of `value`'s JSON type.
fn of_type(branch: &Value, value: &Value) -> bool {
    if let Some(c) = constant(branch) {
        return std::mem::discriminant(&c) == std::mem::discriminant(value);
    }
    let Some(types) = branch.get("type") else {
        return true;
    };
    let names = type_names(types);
    let name = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        // JSON Schema counts `3.0` as an integer too.
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    names
        .iter()
        .any(|t| t == name || (t == "number" && name == "integer"))
}
