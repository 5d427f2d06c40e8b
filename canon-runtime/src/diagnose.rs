//! The failure path: every violation of a call that could not be bound.
//!
//! Runs only after the single tolerant pass has failed. It repairs a copy of
//! the call with the same plan (so repaired positions are never reported),
//! validates the result against the published schema with `jsonschema`, and
//! turns each error into a [`Violation`] a model can act on. When the schema
//! accepts the call but the Rust type still does not, serde's error is
//! reported at its path.

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Received, Violation, ViolationKind};
use crate::pointer;
use crate::rule::Verdict;
use crate::spec::ToolSpec;
use crate::tolerant::{Ctx, Mode};

/// Longest `$ref` chain followed when describing a schema.
const MAX_REF_HOPS: usize = 32;

/// Every violation of `value` against `spec`, sorted by pointer.
pub(crate) fn violations<T: DeserializeOwned>(spec: &ToolSpec, value: &Value) -> Vec<Violation> {
    let ctx = Ctx::new(spec.plan(), Mode::Collect);
    let repaired: Value = match ctx.deserialize(value) {
        Ok(repaired) => repaired,
        Err(_) => value.clone(),
    };
    let (_, refused) = ctx.into_parts();
    let schema = spec.input_schema();
    let mut out = explain(schema, spec.validator(), &repaired, refused);
    if out.is_empty() {
        out.push(rust_type_violation::<T>(schema, value, &repaired));
    }
    out
}

/// The violations of `repaired` (a call with the rules applied) against
/// `schema`, with the strings the core rule refused at `refused`, sorted by
/// pointer. Empty when the schema accepts `repaired` and nothing was
/// refused.
pub(crate) fn explain(
    schema: &Value,
    validator: Option<&jsonschema::Validator>,
    repaired: &Value,
    refused: Vec<(String, Verdict)>,
) -> Vec<Violation> {
    let mut out: Vec<Violation> = refused
        .into_iter()
        .map(|(at, verdict)| refused_string(schema, repaired, at, verdict))
        .collect();
    let refused_at: Vec<String> = out.iter().map(|v| v.pointer.clone()).collect();
    if let Some(validator) = validator {
        for error in validator.iter_errors(repaired) {
            convert(schema, repaired, &error, &mut out);
        }
    }
    dedup_refused(&mut out, &refused_at);
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    out.dedup();
    out
}

/// What the Rust type `T` refuses in `repaired`, which the schema accepts.
fn rust_type_violation<T: DeserializeOwned>(
    schema: &Value,
    value: &Value,
    repaired: &Value,
) -> Violation {
    match serde_path_to_error::deserialize::<_, T>(repaired) {
        Err(e) => {
            let at = serde_pointer(e.path());
            let received = repaired.pointer(&at).map(Received::of);
            let expected = schema_at(schema, &at)
                .map(|s| describe(schema, s))
                .unwrap_or_else(|| "a value this tool accepts".to_owned());
            let message = serde_message(&e.into_inner().to_string(), received.as_ref());
            Violation::new(at, ViolationKind::Invalid, expected, received, message)
        }
        Ok(_) => Violation::new(
            "",
            ViolationKind::Invalid,
            "arguments this tool accepts",
            Some(Received::of(value)),
            "the arguments could not be bound",
        ),
    }
}

/// The violation for a call the schema accepts (once repaired) but the
/// Rust type `T` does not.
pub(crate) fn rust_type<T: DeserializeOwned>(schema: &Value, repaired: &Value) -> Vec<Violation> {
    vec![rust_type_violation::<T>(schema, repaired, repaired)]
}

/// At a refused position, the validator's type error says less than ours.
fn dedup_refused(out: &mut Vec<Violation>, refused_at: &[String]) {
    out.retain(|v| {
        matches!(v.kind, ViolationKind::BlankString | ViolationKind::JsonText)
            || !refused_at.contains(&v.pointer)
    });
}

/// The violations for members the JSON text gives twice, at `pointers`.
pub(crate) fn duplicates(pointers: Vec<String>) -> Vec<Violation> {
    pointers
        .into_iter()
        .map(|at| {
            let what = if at.matches('/').count() == 1 {
                "parameter"
            } else {
                "property"
            };
            Violation::new(
                at,
                ViolationKind::Duplicate,
                format!("the {what} once"),
                None,
                format!("this {what} is given more than once; send it once"),
            )
        })
        .collect()
}

/// The violation for JSON text that is not even JSON.
pub(crate) fn malformed(error: &serde_json::Error) -> Violation {
    let cause = strip_position(&error.to_string());
    Violation::new(
        "",
        ViolationKind::Malformed,
        "a JSON object",
        None,
        format!("the arguments are not valid JSON ({cause}); send one JSON object"),
    )
}

fn refused_string(schema: &Value, value: &Value, at: String, verdict: Verdict) -> Violation {
    let expected = schema_at(schema, &at)
        .map(|s| describe(schema, s))
        .unwrap_or_else(|| "an array of strings".to_owned());
    let received = value.pointer(&at).map(Received::of);
    let (kind, message) = match verdict {
        Verdict::Blank => (
            ViolationKind::BlankString,
            format!(
                "expected {expected}, got a blank string; send [] for none, or the values as a list"
            ),
        ),
        _ => (
            ViolationKind::JsonText,
            format!(
                "expected {expected}, got a string holding the text of a list; send the array itself, not a string"
            ),
        ),
    };
    Violation::new(at, kind, expected, received, message)
}

fn convert(schema: &Value, value: &Value, error: &ValidationError<'_>, out: &mut Vec<Violation>) {
    let at = error.instance_path().as_str().to_owned();
    let keyword_at = error.schema_path().as_str();
    let holder = keyword_at
        .rfind('/')
        .and_then(|cut| schema.pointer(&keyword_at[..cut]))
        .unwrap_or(schema);
    let received = Some(Received::of(error.instance()));
    let wrong = |kind: ViolationKind, expected: String, received: Option<Received>| {
        let message = match &received {
            Some(r) => format!("expected {expected}, got {}", r.phrase()),
            None => format!("expected {expected}"),
        };
        Violation::new(at.clone(), kind, expected, received, message)
    };
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let expected = properties(schema, holder)
                .and_then(|props| props.get(name))
                .map(|s| describe(schema, s))
                .unwrap_or_else(|| "a value".to_owned());
            out.push(Violation::new(
                pointer::push(&at, name),
                ViolationKind::Missing,
                expected.clone(),
                None,
                format!("required, expected {expected}"),
            ));
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for name in unexpected {
                out.push(unknown(schema, holder, &at, name));
            }
        }
        // `additionalProperties: false` beside no `properties`: the
        // validator reports the object, so its members are listed here.
        ValidationErrorKind::FalseSchema if keyword_at.ends_with("/additionalProperties") => {
            let declared = properties(schema, holder);
            if let Some(Value::Object(members)) = value.pointer(&at) {
                for name in members.keys() {
                    if !declared.is_some_and(|d| d.contains_key(name)) {
                        out.push(unknown(schema, holder, &at, name));
                    }
                }
            }
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            // The branch whose type matched explains the failure best (the
            // struct branch of an `Option<Struct>`, not its `null` branch).
            let typed: Vec<&Vec<ValidationError<'static>>> = context
                .iter()
                .filter(|branch| {
                    !branch.iter().any(|e| {
                        e.instance_path().as_str() == at
                            && matches!(e.kind(), ValidationErrorKind::Type { .. })
                    })
                })
                .collect();
            match typed.as_slice() {
                [branch] if !branch.is_empty() => {
                    for e in branch.iter() {
                        convert(schema, value, e, out);
                    }
                }
                _ => out.push(wrong(
                    ViolationKind::WrongType,
                    describe(schema, holder),
                    received,
                )),
            }
        }
        ValidationErrorKind::Type { .. } => out.push(wrong(
            ViolationKind::WrongType,
            describe(schema, holder),
            received,
        )),
        ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. } => out.push(wrong(
            ViolationKind::NotAllowed,
            describe(schema, holder),
            received,
        )),
        kind => {
            let expected = constraint(kind).unwrap_or_else(|| error.to_string());
            out.push(wrong(ViolationKind::Constraint, expected, received));
        }
    }
}

/// An unknown member `name` of the object at `at`, whose schema is `object`.
fn unknown(root: &Value, object: &Value, at: &str, name: &str) -> Violation {
    let known: Vec<&str> = properties(root, object)
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let what = if at.is_empty() {
        ("parameter", "parameters")
    } else {
        ("property", "properties")
    };
    Violation::new(
        pointer::push(at, name),
        ViolationKind::Unknown,
        format!("no such {}", what.0),
        None,
        unknown_message(what, name, &known),
    )
}

fn constraint(kind: &ValidationErrorKind) -> Option<String> {
    use ValidationErrorKind as K;
    Some(match kind {
        K::Minimum { limit } => format!("a number of at least {limit}"),
        K::Maximum { limit } => format!("a number of at most {limit}"),
        K::ExclusiveMinimum { limit } => format!("a number greater than {limit}"),
        K::ExclusiveMaximum { limit } => format!("a number less than {limit}"),
        K::MultipleOf { multiple_of } => format!("a multiple of {multiple_of}"),
        K::MinLength { limit } => format!("a string of at least {limit} characters"),
        K::MaxLength { limit } => format!("a string of at most {limit} characters"),
        K::Pattern { pattern } => format!("a string matching the pattern `{pattern}`"),
        K::Format { format } => format!("a string in the `{format}` format"),
        K::MinItems { limit } => format!("an array of at least {limit} items"),
        K::MaxItems { limit } => format!("an array of at most {limit} items"),
        K::UniqueItems => "an array without duplicate items".to_owned(),
        K::MinProperties { limit } => format!("an object with at least {limit} properties"),
        K::MaxProperties { limit } => format!("an object with at most {limit} properties"),
        K::FalseSchema => "nothing at this position".to_owned(),
        _ => return None,
    })
}

/// The candidate most like `name`, if one is close enough to be what was
/// meant (Jaro-Winkler similarity of at least 0.75).
pub(crate) fn closest<'c>(
    name: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> Option<&'c str> {
    candidates
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score >= 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `what` is the word for a member, singular and plural.
fn unknown_message(what: (&str, &str), name: &str, known: &[&str]) -> String {
    let (one, many) = what;
    match (closest(name, known.iter().copied()), known) {
        (Some(k), _) => format!("unknown {one}; did you mean `{k}`?"),
        (None, []) if one == "parameter" => {
            "unknown parameter; this tool takes no parameters".into()
        }
        (None, []) => format!("unknown {one}; this object takes no {many}"),
        (None, known) => {
            let list: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            format!("unknown {one}; the {many} are {}", list.join(", "))
        }
    }
}

/// Follows `$ref` (local pointers only) from `schema`.
fn resolve<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..MAX_REF_HOPS {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
        {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

fn properties<'s>(
    root: &'s Value,
    schema: &'s Value,
) -> Option<&'s serde_json::Map<String, Value>> {
    resolve(root, schema).get("properties")?.as_object()
}

/// The schema of the instance position `at`, through properties, items,
/// `additionalProperties`, `$ref` and the non-null branch of a nullable union.
fn schema_at<'s>(root: &'s Value, at: &str) -> Option<&'s Value> {
    let mut schema = root;
    for token in pointer::tokens(at) {
        schema = non_null(root, resolve(root, schema));
        schema = match schema.get("properties").and_then(|p| p.get(&token)) {
            Some(sub) => sub,
            None => match (token.parse::<usize>(), schema.get("items")) {
                (Ok(_), Some(items)) => items,
                _ => schema
                    .get("additionalProperties")
                    .filter(|s| s.is_object())?,
            },
        };
    }
    Some(schema)
}

/// The only non-`null` branch of an `anyOf`/`oneOf`, or the schema itself.
fn non_null<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
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

/// What a schema accepts, in words: `an integer`, `an array of strings`,
/// `one of "asc", "desc"`, `a string or null`.
pub(crate) fn describe(root: &Value, schema: &Value) -> String {
    describe_at(root, schema, 0)
}

fn describe_at(root: &Value, schema: &Value, depth: usize) -> String {
    let schema = resolve(root, schema);
    if depth > 4 {
        return "a value".to_owned();
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return one_of(values);
    }
    if let Some(value) = schema.get("const") {
        return format!("exactly {value}");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let mut parts: Vec<String> = Vec::new();
            for branch in branches {
                let part = describe_at(root, branch, depth + 1);
                if !parts.contains(&part) {
                    parts.push(part);
                }
            }
            parts.sort_by_key(|p| p == "null");
            return parts.join(" or ");
        }
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return "any value".to_owned(),
    };
    let mut parts: Vec<String> = types
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "array" => match schema.get("items") {
                Some(items) if items.is_object() => {
                    format!("an array of {}", plural(root, items, depth + 1))
                }
                _ => "an array".to_owned(),
            },
            other => singular(other),
        })
        .collect();
    if types.contains(&"null") {
        parts.push("null".to_owned());
    }
    parts.join(" or ")
}

fn singular(json_type: &str) -> String {
    match json_type {
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "a boolean (true or false)",
        "object" => "an object",
        "array" => "an array",
        "null" => "null",
        other => return format!("a value of type {other}"),
    }
    .to_owned()
}

fn plural(root: &Value, items: &Value, depth: usize) -> String {
    let items = resolve(root, items);
    if let Some(Value::Array(values)) = items.get("enum") {
        return format!("strings, each {}", one_of(values));
    }
    match items.get("type").and_then(Value::as_str) {
        Some("string") => "strings".to_owned(),
        Some("integer") => "integers".to_owned(),
        Some("number") => "numbers".to_owned(),
        Some("boolean") => "booleans".to_owned(),
        Some("object") => "objects".to_owned(),
        Some("array") => "arrays".to_owned(),
        _ => format!("items, each {}", describe_at(root, items, depth)),
    }
}

fn one_of(values: &[Value]) -> String {
    const SHOWN: usize = 12;
    let mut list: Vec<String> = values.iter().take(SHOWN).map(Value::to_string).collect();
    if values.len() > SHOWN {
        list.push(format!("… ({} in all)", values.len()));
    }
    match values.len() {
        1 => format!("exactly {}", list[0]),
        _ => format!("one of {}", list.join(", ")),
    }
}

/// The RFC 6901 pointer of a serde path.
fn serde_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out = pointer::push(&out, &index.to_string()),
            Segment::Map { key } => out = pointer::push(&out, key),
            Segment::Enum { variant } => out = pointer::push(&out, variant),
            Segment::Unknown => out = pointer::push(&out, "?"),
        }
    }
    out
}

/// serde's reason, retold without quoting the value in full: `invalid
/// value: integer `5000000000`, expected u32` becomes `invalid value: got
/// the number 5000000000, expected u32` (the value as its 64-character
/// preview). A reason of another form is cut to 160 characters.
fn serde_message(raw: &str, received: Option<&Received>) -> String {
    let raw = strip_position(raw);
    if let (Some((cause, _)), Some((_, hint)), Some(received)) = (
        raw.split_once(": "),
        raw.rsplit_once(", expected "),
        received,
    ) {
        if cause.len() <= 32 && !cause.contains('`') {
            return format!("{cause}: got {}, expected {hint}", received.phrase());
        }
    }
    const MAX: usize = 160;
    if raw.chars().count() <= MAX {
        return raw;
    }
    let mut cut: String = raw.chars().take(MAX - 1).collect();
    cut.push('…');
    cut
}

/// Drops serde_json's ` at line 1 column 37`: noise to a model.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(cut) if message[cut..].contains(" column ") => message[..cut].to_owned(),
        _ => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describes_schemas_in_words() {
        let root = json!({"$defs": {"Order": {"type": "string", "enum": ["asc", "desc"]}}});
        let d = |s: Value| describe(&root, &s);
        assert_eq!(d(json!({"type": "integer"})), "an integer");
        assert_eq!(
            d(json!({"type": ["integer", "null"]})),
            "an integer or null"
        );
        assert_eq!(
            d(json!({"type": "array", "items": {"type": "string"}})),
            "an array of strings"
        );
        assert_eq!(
            d(json!({"$ref": "#/$defs/Order"})),
            "one of \"asc\", \"desc\""
        );
        assert_eq!(
            d(json!({"anyOf": [{"type": "null"}, {"$ref": "#/$defs/Order"}]})),
            "one of \"asc\", \"desc\" or null"
        );
        assert_eq!(d(json!({})), "any value");
        assert_eq!(d(json!({"const": 3})), "exactly 3");
    }

    #[test]
    fn serde_reasons_never_quote_a_value_in_full() {
        let long = "y".repeat(500);
        let received = Received::of(&Value::String(long.clone()));
        let retold = serde_message(
            &format!("invalid value: string \"{long}\", expected a short code at line 1 column 9"),
            Some(&received),
        );
        assert_eq!(
            retold,
            format!(
                "invalid value: got the string {}, expected a short code",
                received.preview
            )
        );
        assert!(retold.chars().count() < 120);
        let custom = serde_message(&format!("no such code {long}"), None);
        assert_eq!(custom.chars().count(), 160);
        assert!(custom.ends_with('…'));
    }

    #[test]
    fn strips_positions() {
        assert_eq!(
            strip_position("EOF while parsing an object at line 1 column 37"),
            "EOF while parsing an object"
        );
        assert_eq!(strip_position("invalid type"), "invalid type");
    }

    #[test]
    fn suggests_the_closest_parameter() {
        let known = ["data_source_names", "query", "limit"];
        assert_eq!(
            unknown_message(("parameter", "parameters"), "limt", &known),
            "unknown parameter; did you mean `limit`?"
        );
        assert_eq!(
            unknown_message(("parameter", "parameters"), "zzz", &known),
            "unknown parameter; the parameters are `data_source_names`, `query`, `limit`"
        );
    }
}
