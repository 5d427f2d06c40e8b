//! The failure path: every violation of a call that could not be bound.
//!
//! Runs only after the single tolerant pass has failed. It repairs a copy of
//! the call with the same plan (so repaired positions are never reported),
//! validates the result against the published schema with `jsonschema`, and
//! turns each error into a [`Violation`] a model can act on. When the schema
//! accepts the call but the Rust type still does not, serde's error is
//! reported at its path.

mod probe;
pub(crate) mod prune;

pub use probe::{probe_field, ProbeError};
pub(crate) use probe::{probe_of, Probe};

use crate::schema::MAX_DEPTH;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use serde_json::Value;

use crate::bind::rule::{Refusal, Verdict};
use crate::bind::tolerant::{Ctx, Mode};
use crate::feedback::violations::{list_text_message, serde_message, uncounted, unknown_message};
use crate::feedback::{JsonType, Received, Violation, ViolationKind};
use crate::schema::plan::Plan;
use crate::schema::pointer;
use crate::schema::refs::{non_null, properties, resolve, schema_at};

/// The violations of `value` against the published `schema` (its `plan`,
/// and its `validator` when it compiles), sorted by pointer: at most `cap`
/// of them, and how many more were found.
pub(crate) fn violations(
    probe: Probe,
    plan: &Plan,
    schema: &Value,
    validator: Option<&jsonschema::Validator>,
    value: &Value,
    cap: usize,
) -> (Vec<Violation>, usize) {
    let ctx = Ctx::new(plan, Mode::Collect);
    let repaired: Value = match ctx.deserialize(value) {
        Ok(repaired) => repaired,
        Err(_) => value.clone(),
    };
    let (_, refused) = ctx.into_parts();
    let (mut out, mut more) = explain(schema, validator, &repaired, refused, cap);
    if !out
        .iter()
        .any(|v| v.kind == ViolationKind::SchemaAsArguments)
    {
        let (ranges, more_ranges) = ranges(schema, &repaired, cap);
        merge_ranges(&mut out, ranges);
        // Each out-of-range number replaces the validator's word on it, so
        // the larger count is the closer one.
        more = more.max(more_ranges);
        if out.len() > cap {
            more += out.len() - cap;
            out.truncate(cap);
        }
    }
    if out.is_empty() {
        out.push(rust_type_violation(probe, schema, value, &repaired));
    }
    (out, more)
}

/// The violations of `repaired` (a call with the rules applied) against
/// `schema`, with the strings the core rule refused at `refused`, sorted by
/// pointer, one per pointer and message. Empty when the schema accepts
/// `repaired` and nothing was refused. A call that is a JSON Schema itself
/// (see [`schema_as_arguments`]) is that one violation.
///
/// At most `cap` violations are kept, with the count of the others found:
/// a call with a million wrong items costs the work of finding them, not
/// the memory of a million violations.
pub(crate) fn explain(
    schema: &Value,
    validator: Option<&jsonschema::Validator>,
    repaired: &Value,
    refused: Vec<Refusal>,
    cap: usize,
) -> (Vec<Violation>, usize) {
    if let Some(sent) = schema_as_arguments(schema, repaired) {
        return (vec![sent], 0);
    }
    let mut more = refused.len().saturating_sub(cap);
    // At a refused position, the validator's type error says less than
    // ours; and a union (a tagged enum) holding a refused string fails as a
    // whole, for that string only ("expected an object, got the object
    // ..."). Both are left out, whether the refused string is kept or only
    // counted.
    let mut skip = Refused::default();
    for refusal in &refused {
        skip.add(refusal);
    }
    let mut out: Vec<Violation> = refused
        .into_iter()
        .take(cap)
        .map(|r| refused_string(schema, repaired, r.pointer(), r.verdict))
        .collect();
    let mut found = Found::new(cap, skip);
    let mut exact = true;
    if let Some(validator) = validator {
        if crate::bind::diagnose::prune::nodes_over(
            repaired,
            crate::bind::diagnose::prune::LARGE_CALL_NODES,
        ) {
            exact = explain_large(schema, validator, repaired, &mut found);
        } else {
            for error in validator.iter_errors(repaired) {
                convert(schema, repaired, &error, &mut found);
            }
        }
    }
    more += found.more;
    let found = found.list;
    out.extend(found);
    sort_and_dedup(&mut out);
    if out.len() > cap {
        more += out.len() - cap;
        out.truncate(cap);
    }
    if !exact {
        out.insert(0, uncounted());
        if out.len() > cap {
            more += out.len() - cap;
            out.truncate(cap);
        }
    }
    (out, more)
}

/// The positions of the strings the core rule refused.
///
/// Each array holding refused items is kept once, however many of its
/// items were refused, and so is each position above it: a long key over
/// a wide array costs its length once per array, not once per item.
#[derive(Default)]
pub(crate) struct Refused {
    /// Each refused string that is not an array's item, by pointer.
    at: HashSet<String>,
    /// Each position holding one (a prefix of a refused pointer).
    holders: HashSet<String>,
    /// The refused items of each array, by its pointer.
    arrays: HashMap<Rc<str>, usize>,
    items: Vec<HashSet<usize>>,
    /// The array of the last item added and its entry, found again without
    /// hashing its pointer.
    last: Option<(Rc<str>, usize)>,
}

#[cfg(test)]
thread_local! {
    /// The entries of [`Refused`] looked at (one per set probed or
    /// inserted into), to prove its cost linear in the refused strings.
    static REFUSED_PROBES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One more entry of [`Refused`] looked at.
#[cfg_attr(not(debug_assertions), inline(always))]
fn probe() {
    #[cfg(test)]
    REFUSED_PROBES.with(|p| p.set(p.get() + 1));
}

impl Refused {
    fn add(&mut self, refusal: &Refusal) {
        let at = &refusal.at;
        let index = match refusal.index {
            Some(index) => Some(index),
            None => at
                .rsplit_once('/')
                .and_then(|(_, token)| array_index(token)),
        };
        let array: Rc<str> = match (refusal.index, index) {
            (Some(_), _) => at.clone(),
            (None, Some(_)) => at.rsplit_once('/').map_or("", |(a, _)| a).into(),
            (None, None) => {
                self.hold(at, false);
                self.at.insert(at.to_string());
                return;
            }
        };
        let index = index.unwrap_or_default();
        let entry = match &self.last {
            Some((last, entry)) if Rc::ptr_eq(last, &array) => *entry,
            _ => {
                let entry = match self.arrays.get(&array) {
                    Some(entry) => *entry,
                    None => {
                        self.hold(&array, true);
                        self.items.push(HashSet::new());
                        self.arrays.insert(array.clone(), self.items.len() - 1);
                        self.items.len() - 1
                    }
                };
                self.last = Some((array, entry));
                entry
            }
        };
        probe();
        self.items[entry].insert(index);
    }

    /// Records the positions above `at` (and `at` itself when `inclusive`)
    /// as holding a refused string, copying each only when new.
    fn hold(&mut self, at: &str, inclusive: bool) {
        let ends = at.match_indices('/').map(|(i, _)| i);
        let ends: Vec<usize> = if inclusive {
            ends.chain([at.len()]).collect()
        } else {
            ends.collect()
        };
        for end in ends {
            if !self.holders.contains(&at[..end]) {
                self.holders.insert(at[..end].to_owned());
            }
        }
    }

    /// True for a validator error that a refused string explains.
    fn explains(&self, v: &Violation) -> bool {
        let container = v
            .received
            .as_ref()
            .is_some_and(|r| matches!(r.json_type, JsonType::Object | JsonType::Array));
        let union_of_refused = v.kind == ViolationKind::WrongType
            && container
            && self.holders.contains(v.pointer.as_str());
        union_of_refused
            || self.at.contains(v.pointer.as_str())
            || v.pointer.rsplit_once('/').is_some_and(|(array, token)| {
                array_index(token)
                    .is_some_and(|index| self.items_of(array).is_some_and(|i| i.contains(&index)))
            })
    }

    /// The refused items of the array at `array`.
    pub(crate) fn items_of(&self, array: &str) -> Option<&HashSet<usize>> {
        probe();
        self.arrays.get(array).map(|&entry| &self.items[entry])
    }
}

/// A pointer's last token as an array index, when it is one as RFC 6901
/// writes it (digits, no leading zero).
fn array_index(token: &str) -> Option<usize> {
    let digits = !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit());
    let canonical = token == "0" || !token.starts_with('0');
    (digits && canonical).then(|| token.parse().ok()).flatten()
}

/// Violations as they are found: at most `cap` kept, the others counted,
/// none that a refused string explains.
struct Found {
    list: Vec<Violation>,
    cap: usize,
    more: usize,
    refused: Refused,
}

impl Found {
    fn new(cap: usize, refused: Refused) -> Found {
        Found {
            list: Vec::new(),
            cap,
            more: 0,
            refused,
        }
    }

    fn push(&mut self, violation: Violation) {
        if self.refused.explains(&violation) {
            return;
        }
        if self.list.len() < self.cap {
            self.list.push(violation);
        } else {
            self.more += 1;
        }
    }

    /// [`push`](Self::push) of an unknown member (which no refused string
    /// explains), building the violation only to keep it.
    fn push_with(&mut self, violation: impl FnOnce() -> Violation) {
        if self.list.len() < self.cap {
            self.list.push(violation());
        } else {
            self.more += 1;
        }
    }
}

/// The validator's errors for a large call, found on a copy with each
/// array cut to its first items, into `found` (which counts those past its
/// cap), with the items past the cuts that break the schema counted too.
/// False when that count is a lower bound.
fn explain_large(
    schema: &Value,
    validator: &jsonschema::Validator,
    repaired: &Value,
    found: &mut Found,
) -> bool {
    use ValidationErrorKind as K;
    let pruned = crate::bind::diagnose::prune::Pruned::of(repaired, found.cap);
    {
        let cut: HashSet<&str> = pruned.cuts.iter().map(|(at, _)| at.as_str()).collect();
        for error in validator.iter_errors(&pruned.value) {
            // What depends on the length (or the whole) of a cut array is
            // decided on the array as sent, below.
            let whole = matches!(
                error.kind(),
                K::MinItems { .. } | K::MaxItems { .. } | K::UniqueItems | K::Contains
            );
            if whole && cut.contains(error.instance_path().as_str()) {
                continue;
            }
            convert(schema, &pruned.value, &error, found);
        }
    }
    for (at, _) in &pruned.cuts {
        if let Some(Value::Array(items)) = repaired.pointer(at) {
            for violation in whole_array(schema, at, items) {
                found.push(violation);
            }
        }
    }
    let refused = &found.refused;
    let (tail, exact) = pruned.tail_errors(schema, validator, repaired, |at| refused.items_of(at));
    found.more += tail;
    exact
}

/// The item-count and uniqueness keywords of the array at `at`, checked on
/// the array as sent.
fn whole_array(root: &Value, at: &str, items: &[Value]) -> Vec<Violation> {
    let Some(schema) = schema_at(root, at).map(|s| non_null(root, resolve(root, s))) else {
        return Vec::new();
    };
    let n = items.len() as u64;
    let mut out = Vec::new();
    let mut broken = |expected: String, got: String| {
        let message = format!("expected {expected}, {got}");
        out.push(Violation::new(
            at,
            ViolationKind::Constraint,
            expected,
            None,
            message,
        ));
    };
    let count = || format!("got an array of {n} items");
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
        if n > max {
            broken(format!("an array of at most {max} items"), count());
        }
    }
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
        if n < min {
            broken(format!("an array of at least {min} items"), count());
        }
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        let mut seen = HashSet::new();
        // Equal JSON values (1 and 1.0 aside) have equal text.
        if !items.iter().all(|item| seen.insert(item.to_string())) {
            broken(
                "an array without duplicate items".to_owned(),
                "got an array with duplicate items".to_owned(),
            );
        }
    }
    out
}

/// Sorts by pointer and keeps one violation of each message at a pointer:
/// a `type` and an `enum` keyword that both fail (an integer enum given a
/// string) read the same, and the type violation is the one kept.
fn sort_and_dedup(out: &mut Vec<Violation>) {
    let rank = |v: &Violation| u8::from(v.kind != ViolationKind::WrongType);
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer).then(rank(a).cmp(&rank(b))));
    // Violations at one pointer are adjacent now, and few.
    let mut kept: Vec<Violation> = Vec::with_capacity(out.len());
    let mut group = 0;
    for v in out.drain(..) {
        if kept
            .get(group)
            .is_none_or(|first| first.pointer != v.pointer)
        {
            group = kept.len();
        } else if kept[group..].iter().any(|k| k.message == v.message) {
            continue;
        }
        kept.push(v);
    }
    *out = kept;
}

/// What the Rust type `T` refuses in `repaired`, which the schema accepts.
fn rust_type_violation(probe: Probe, schema: &Value, value: &Value, repaired: &Value) -> Violation {
    match probe.run(repaired) {
        Err(e) => {
            let (at, key) = match unread_key(probe, repaired, e.path()) {
                Some((at, key)) => (at, Some(key)),
                None => (serde_pointer(e.path()), None),
            };
            let found = repaired.pointer(&at);
            if key.is_none() {
                if let Some(range) = found.and_then(|v| whole_float_for_integer(schema, &at, v)) {
                    return range;
                }
            }
            // A key the map's key type refuses is what came, not its value.
            let received = match key {
                Some(key) => Some(Received::of(&Value::String(key))),
                None => found.map(Received::of),
            };
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

/// The violations for a call the schema accepts (once repaired) but the
/// Rust type `T` does not: the numbers outside the range of their `format`,
/// or else serde's error at its path. At most `cap`, and how many more.
pub(crate) fn rust_type(
    probe: Probe,
    schema: &Value,
    repaired: &Value,
    cap: usize,
) -> (Vec<Violation>, usize) {
    let (mut out, more) = ranges(schema, repaired, cap);
    if out.is_empty() {
        out.push(rust_type_violation(probe, schema, repaired, repaired));
    }
    (out, more)
}

fn refused_string(schema: &Value, value: &Value, at: String, verdict: Verdict) -> Violation {
    let expected = schema_at(schema, &at)
        .map(|s| describe(schema, s))
        .unwrap_or_else(|| "an array of strings".to_owned());
    let found = value.pointer(&at);
    let received = found.map(Received::of);
    let (kind, message) = match verdict {
        Verdict::Blank => (
            ViolationKind::BlankString,
            format!(
                "expected {expected}, got a blank string; send [] for none, or the values as a list"
            ),
        ),
        Verdict::CommaList => {
            let text = found.and_then(Value::as_str).unwrap_or_default();
            let whole = received.as_ref().map_or("\"…\"", |r| r.preview.as_str());
            (
                ViolationKind::CommaList,
                format!(
                    "expected {expected}, got a string holding a comma-separated list; \
                     send each value as its own element ({}), or [{whole}] if it is one value",
                    split_example(text, Items::Strings)
                ),
            )
        }
        Verdict::ListText | Verdict::Wrap => {
            (ViolationKind::JsonText, list_text_message(&expected))
        }
    };
    Violation::new(at, kind, expected, received, message)
}

/// What the items of an array position are, for an example built from a
/// comma-separated string.
#[derive(Clone, Copy, PartialEq)]
enum Items {
    /// Strings: every part is shown as a string.
    Strings,
    /// Numbers or booleans: a part that reads as one is shown as one.
    Scalars,
}

/// The comma-separated `text` as the array that was probably meant, for
/// the model to see: `["points", "assists", "minutes"]`, at most
/// [`PREVIEW_CHARS`](crate::feedback::PREVIEW_CHARS) characters (whole
/// elements, then `…`).
fn split_example(text: &str, items: Items) -> String {
    const MAX: usize = crate::feedback::PREVIEW_CHARS;
    let mut out = String::from("[");
    let mut used = 1;
    let mut first = true;
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let scalar = items == Items::Scalars
            && (matches!(part, "true" | "false")
                || serde_json::from_str::<serde_json::Number>(part).is_ok());
        let shown = if scalar {
            part.to_owned()
        } else {
            Value::String(part.to_owned()).to_string()
        };
        let sep = if first { "" } else { ", " };
        let n = sep.len() + shown.chars().count();
        // Room for `, …]` after this element, unless it is the last.
        if used + n + 4 > MAX {
            if first {
                out.push_str(&crate::feedback::cut(&shown, MAX - 6));
                out.push_str(", …]");
            } else {
                out.push_str(", …]");
            }
            return out;
        }
        out.push_str(sep);
        out.push_str(&shown);
        used += n;
        first = false;
    }
    out.push(']');
    out
}

/// The violation for a string at an array position whose items are not
/// strings (no tolerant position): list text and comma-separated lists
/// get the same hint as at an array of strings. `None` for other strings.
fn string_for_array(
    at: &str,
    expected: &str,
    holder: &Value,
    value: &Value,
    received: &Option<Received>,
) -> Option<Violation> {
    let text = value.as_str()?;
    let types = crate::schema::types::names(holder)?;
    if !types.contains(&"array") || types.contains(&"string") {
        return None;
    }
    let (kind, message) = if crate::bind::rule::is_list_text(text) {
        (ViolationKind::JsonText, list_text_message(expected))
    } else if crate::bind::rule::is_comma_list(text) {
        let items = match holder.get("items").and_then(|i| i.get("type")) {
            Some(Value::String(t)) if matches!(t.as_str(), "number" | "integer" | "boolean") => {
                Some(Items::Scalars)
            }
            Some(Value::String(t)) if t == "string" => Some(Items::Strings),
            _ => None,
        };
        let example = match items {
            Some(items) => format!(" ({})", split_example(text, items)),
            None => String::new(),
        };
        (
            ViolationKind::CommaList,
            format!(
                "expected {expected}, got a string holding a comma-separated list; \
                 send each value as its own element{example}"
            ),
        )
    } else {
        return None;
    };
    Some(Violation::new(
        at,
        kind,
        expected,
        received.clone(),
        message,
    ))
}

fn convert(schema: &Value, value: &Value, error: &ValidationError<'_>, out: &mut Found) {
    let at = error.instance_path().as_str().to_owned();
    let keyword_at = error.schema_path().as_str();
    let holder = keyword_at
        .rfind('/')
        .and_then(|cut| schema.pointer(&keyword_at[..cut]))
        .unwrap_or(schema);
    // What came, previewed only for a violation that shows it (a missing
    // property's error holds the whole object around it).
    let received = || Some(Received::of(error.instance()));
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
                out.push_with(|| unknown(schema, holder, &at, name));
            }
        }
        // `additionalProperties: false` beside no `properties`: the
        // validator reports the object, so its members are listed here.
        ValidationErrorKind::FalseSchema if keyword_at.ends_with("/additionalProperties") => {
            let declared = properties(schema, holder);
            if let Some(Value::Object(members)) = value.pointer(&at) {
                for name in members.keys() {
                    if !declared.is_some_and(|d| d.contains_key(name)) {
                        out.push_with(|| unknown(schema, holder, &at, name));
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
            // Of those, the branches whose tag (a member with a `const`,
            // as an internally tagged enum has) the call names: the one
            // variant the call meant.
            let tag_error = |e: &ValidationError<'_>| {
                matches!(e.kind(), ValidationErrorKind::Constant { .. })
                    && e.instance_path()
                        .as_str()
                        .strip_prefix(at.as_str())
                        .is_some_and(|rest| rest.len() > 1 && rest[1..].find('/').is_none())
            };
            let tagged: Vec<&Vec<ValidationError<'static>>> = typed
                .iter()
                .copied()
                .filter(|branch| !branch.iter().any(&tag_error))
                .collect();
            let chosen = if tagged.len() == 1 { &tagged } else { &typed };
            // No branch's tag matches, and they all tag the same member:
            // the tag itself is what is wrong.
            let tags: Vec<&ValidationError<'static>> = typed
                .iter()
                .filter_map(|branch| branch.iter().find(|e| tag_error(e)))
                .collect();
            if tagged.is_empty()
                && typed.len() > 1
                && tags.len() == typed.len()
                && tags
                    .iter()
                    .all(|e| e.instance_path() == tags[0].instance_path())
            {
                let values: Vec<Value> = tags
                    .iter()
                    .filter_map(|e| match e.kind() {
                        ValidationErrorKind::Constant { expected_value } => {
                            Some((**expected_value).clone())
                        }
                        _ => None,
                    })
                    .collect();
                let expected = one_of(&values);
                let received = Some(Received::of(tags[0].instance()));
                let message = match &received {
                    Some(r) => format!("expected {expected}, got {}", r.phrase()),
                    None => format!("expected {expected}"),
                };
                out.push(Violation::new(
                    tags[0].instance_path().as_str(),
                    ViolationKind::NotAllowed,
                    expected,
                    received,
                    message,
                ));
                return;
            }
            match chosen.as_slice() {
                [branch] if !branch.is_empty() => {
                    for e in branch.iter() {
                        convert(schema, value, e, out);
                    }
                }
                _ => out.push(wrong(
                    ViolationKind::WrongType,
                    describe(schema, holder),
                    received(),
                )),
            }
        }
        ValidationErrorKind::Type { .. } => {
            let expected = describe(schema, holder);
            let holder = resolve(schema, holder);
            match string_for_array(&at, &expected, holder, error.instance(), &received()) {
                Some(hint) => out.push(hint),
                None => out.push(wrong(ViolationKind::WrongType, expected, received())),
            }
        }
        ValidationErrorKind::Enum { .. } | ValidationErrorKind::Constant { .. } => out.push(wrong(
            ViolationKind::NotAllowed,
            describe(schema, holder),
            received(),
        )),
        kind => {
            // Never the validator's own text, which quotes the whole value.
            let expected = constraint(kind).unwrap_or_else(|| unworded(kind));
            out.push(wrong(ViolationKind::Constraint, expected, received()));
        }
    }
}

/// The keywords of JSON Schema (draft 2020-12 and the older drafts and
/// OpenAPI forms tools publish): the keys of a schema sent as arguments.
const SCHEMA_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$defs",
    "$comment",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "definitions",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "items",
    "prefixItems",
    "contains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "title",
    "description",
    "default",
    "examples",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "format",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
    "strict",
];

/// The one violation for arguments that are a JSON Schema rather than
/// arguments: an object with both `type` and `properties`, every key a
/// schema keyword, none of them a parameter of the tool.
fn schema_as_arguments(schema: &Value, args: &Value) -> Option<Violation> {
    let sent = args.as_object()?;
    if !(sent.contains_key("type") && sent.contains_key("properties")) {
        return None;
    }
    let declared = properties(schema, schema);
    let declared_key = |k: &str| declared.is_some_and(|d| d.contains_key(k));
    if !sent
        .keys()
        .all(|k| SCHEMA_KEYWORDS.contains(&k.as_str()) && !declared_key(k))
    {
        return None;
    }
    const SHOWN: usize = 12;
    let required: Vec<&str> = resolve(schema, schema)
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let names: Vec<&str> = declared
        .map(|d| d.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut listed: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|name| match required.contains(name) {
            true => format!("`{name}` (required)"),
            false => format!("`{name}`"),
        })
        .collect();
    if names.len() > SHOWN {
        listed.push(format!("… ({} in all)", names.len()));
    }
    let with = match listed.as_slice() {
        [] => "an empty object, {} (this tool takes no parameters)".to_owned(),
        _ => format!("an object with {}", listed.join(", ")),
    };
    Some(Violation::new(
        "",
        ViolationKind::SchemaAsArguments,
        "the arguments, not the tool's schema",
        Some(Received::of(args)),
        format!(
            "got the tool's JSON Schema instead of its arguments; send the arguments themselves: {with}"
        ),
    ))
}

/// The range of values of a Rust number type, by the `format` schemars
/// publishes for it.
#[derive(Clone, Copy)]
enum Range {
    /// An integer type, inclusive bounds.
    Integer(i128, i128),
    /// `f32`: finite and at most `f32::MAX` in magnitude.
    Float32,
}

fn format_range(format: &str) -> Option<Range> {
    Some(match format {
        "int8" => Range::Integer(i8::MIN.into(), i8::MAX.into()),
        "int16" => Range::Integer(i16::MIN.into(), i16::MAX.into()),
        "int32" => Range::Integer(i32::MIN.into(), i32::MAX.into()),
        "int64" => Range::Integer(i64::MIN.into(), i64::MAX.into()),
        "int128" => Range::Integer(i128::MIN, i128::MAX),
        "int" => Range::Integer(isize::MIN as i128, isize::MAX as i128),
        "uint8" => Range::Integer(0, u8::MAX.into()),
        "uint16" => Range::Integer(0, u16::MAX.into()),
        "uint32" => Range::Integer(0, u32::MAX.into()),
        "uint64" => Range::Integer(0, u64::MAX.into()),
        "uint128" => Range::Integer(0, i128::MAX),
        "uint" => Range::Integer(0, usize::MAX as i128),
        "float" => Range::Float32,
        _ => return None,
    })
}

/// `f` as an exact `i128`, when it is a whole number within `i128`.
fn whole(f: f64) -> Option<i128> {
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0; // 2^127
    (f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f)).then_some(f as i128)
}

/// The range of the number position `schema` (its `format`, narrowed by
/// integer `minimum` and `maximum`), and whether it also admits `null`.
fn range_of(root: &Value, schema: &Value) -> Option<(Range, bool)> {
    let schema = non_null(root, resolve(root, schema));
    let range = format_range(schema.get("format")?.as_str()?)?;
    let nullable = match schema.get("type") {
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    } || schema.get("nullable") == Some(&Value::Bool(true));
    let bound = |key: &str| -> Option<i128> {
        let n = schema.get(key)?.as_number()?;
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    let range = match range {
        Range::Integer(lo, hi) => Range::Integer(
            bound("minimum").map_or(lo, |m| m.max(lo)),
            bound("maximum").map_or(hi, |m| m.min(hi)),
        ),
        float => float,
    };
    Some((range, nullable))
}

/// The violation for the number `n` at `at` when it is outside `range`;
/// a whole number written as a float (`3.0`) within an integer range is
/// not (the binder decides it).
fn out_of_format(
    at: &str,
    n: &serde_json::Number,
    range: Range,
    nullable: bool,
) -> Option<Violation> {
    let or_null = if nullable { " or null" } else { "" };
    let expected = match range {
        Range::Integer(lo, hi) => {
            let inside = match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => (lo..=hi).contains(&i128::from(i)),
                (_, Some(u), _) => (lo..=hi).contains(&i128::from(u)),
                // `-0` is 0, as JSON Schema compares numbers.
                (_, _, Some(f)) => whole(f).is_some_and(|i| (lo..=hi).contains(&i)),
                _ => true,
            };
            if inside {
                return None;
            }
            format!("an integer from {lo} to {hi}{or_null}")
        }
        Range::Float32 => {
            if n.as_f64()
                .is_none_or(|f| !crate::schema::constraint::beyond_f32(f))
            {
                return None;
            }
            format!(
                "a number from {:e} to {:e} (a 32-bit float){or_null}",
                f32::MIN,
                f32::MAX
            )
        }
    };
    Some(outside(
        at,
        expected,
        Received::of(&Value::Number(n.clone())),
    ))
}

/// A number `received` at `at` outside the range `expected` says.
fn outside(at: &str, expected: String, received: Received) -> Violation {
    let message = format!("expected {expected}, got {}", received.phrase());
    Violation::new(
        at,
        ViolationKind::Constraint,
        expected,
        Some(received),
        message,
    )
}

/// The numbers of `value` outside the range of their position's Rust type
/// (`format: uint32`, `int8`, `float`, ...), which JSON Schema does not
/// check: negative (even `-0.0`) for an unsigned type, fractional for an
/// integer type, too large for the type.
/// At most `cap` are kept, with the count of the others.
fn ranges(root: &Value, value: &Value, cap: usize) -> (Vec<Violation>, usize) {
    let mut out = Ranges {
        found: Vec::new(),
        cap,
        more: 0,
    };
    walk_ranges(root, root, value, &mut String::new(), 0, &mut out);
    (out.found, out.more)
}

/// The numbers out of range found so far: at most `cap` kept.
struct Ranges {
    found: Vec<Violation>,
    cap: usize,
    more: usize,
}

fn walk_ranges(
    root: &Value,
    schema: &Value,
    value: &Value,
    at: &mut String,
    depth: usize,
    out: &mut Ranges,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = non_null(root, resolve(root, schema));
    match value {
        Value::Number(n) => {
            if let Some((range, nullable)) = range_of(root, schema) {
                if out.found.len() < out.cap {
                    out.found.extend(out_of_format(at, n, range, nullable));
                } else if out_of_format(at, n, range, nullable).is_some() {
                    out.more += 1;
                }
            }
        }
        Value::Object(members) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let extra = schema.get("additionalProperties").filter(|s| s.is_object());
            for (key, member) in members {
                if let Some(sub) = props.and_then(|p| p.get(key)).or(extra) {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&pointer::escape(key));
                    walk_ranges(root, sub, member, at, depth + 1, out);
                    at.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            let rest = schema.get("items").filter(|s| s.is_object());
            for (i, item) in items.iter().enumerate() {
                if let Some(sub) = prefix.and_then(|p| p.get(i)).or(rest) {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&i.to_string());
                    walk_ranges(root, sub, item, at, depth + 1, out);
                    at.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// Adds the range violations, each replacing what the validator said of
/// the same number (`expected an integer`, `at least 0`): one violation
/// per pointer.
fn merge_ranges(out: &mut Vec<Violation>, ranges: Vec<Violation>) {
    if ranges.is_empty() {
        return;
    }
    {
        let at: HashSet<&str> = ranges.iter().map(|r| r.pointer.as_str()).collect();
        out.retain(|v| {
            !(matches!(v.kind, ViolationKind::WrongType | ViolationKind::Constraint)
                && at.contains(v.pointer.as_str()))
        });
    }
    out.extend(ranges);
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
}

/// For serde's refusal of a whole number written as a float (`3.0`) at an
/// integer position: the range, and the number to send instead.
fn whole_float_for_integer(root: &Value, at: &str, value: &Value) -> Option<Violation> {
    let n = match value {
        Value::Number(n) if n.is_f64() => n,
        _ => return None,
    };
    let (Range::Integer(lo, hi), nullable) = range_of(root, schema_at(root, at)?)? else {
        return None;
    };
    let f = n.as_f64()?;
    let i = whole(f)?;
    let received = Received::of(value);
    let or_null = if nullable { " or null" } else { "" };
    let expected = format!("an integer from {lo} to {hi}{or_null}");
    // Past 2^53 a double stands for many integers: a `Value` holds an
    // integer past 64 bits only as a double, so the number sent may not be
    // the one the double prints, and none is named.
    let message = if f.abs() >= 9_007_199_254_740_992.0 {
        format!(
            "expected {expected}, got a number past 2^53 held as a double, which cannot \
             tell which integer was sent; send the integer itself, without a decimal point \
             or exponent"
        )
    } else {
        format!(
            "expected {expected}, got {}; send it as {i}, without a decimal point",
            received.phrase()
        )
    };
    Some(Violation::new(
        at,
        ViolationKind::Invalid,
        expected,
        Some(received),
        message,
    ))
}

/// [`rust_type`] for a call sent as text, whose integers written past 64
/// bits (`wide`: their pointers and digits, which the `Value` holds only
/// as doubles) are judged by their digits: one outside the range of the
/// Rust integer at its position is refused as written, with the range,
/// whatever double it rounds to.
pub(crate) fn rust_type_of_text(
    probe: Probe,
    schema: &Value,
    repaired: &Value,
    wide: &[(String, String)],
    cap: usize,
) -> (Vec<Violation>, usize) {
    let found: Vec<Violation> = wide
        .iter()
        .filter_map(|(at, digits)| wide_integer(schema, at, digits))
        .collect();
    if found.is_empty() {
        return rust_type(probe, schema, repaired, cap);
    }
    let (mut out, more) = ranges(schema, repaired, cap);
    let at: HashSet<&str> = found.iter().map(|v| v.pointer.as_str()).collect();
    out.retain(|v| !at.contains(v.pointer.as_str()));
    out.extend(found);
    out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    let over = out.len().saturating_sub(cap);
    out.truncate(cap);
    (out, more + over)
}

/// The integer `digits`, written past 64 bits at `at`, when it is outside
/// the range of the Rust integer there.
fn wide_integer(root: &Value, at: &str, digits: &str) -> Option<Violation> {
    let (Range::Integer(lo, hi), nullable) = range_of(root, schema_at(root, at)?)? else {
        return None;
    };
    if digits.parse::<i128>().is_ok_and(|i| (lo..=hi).contains(&i)) {
        return None;
    }
    let or_null = if nullable { " or null" } else { "" };
    let expected = format!("an integer from {lo} to {hi}{or_null}");
    let received = Received {
        json_type: JsonType::Number,
        preview: crate::feedback::short(digits, crate::feedback::PREVIEW_CHARS),
    };
    Some(outside(at, expected, received))
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
        K::Pattern { pattern } => format!(
            "a string matching the pattern `{}`",
            crate::feedback::short(pattern, SCHEMA_TEXT_CHARS)
        ),
        K::Format { format } => format!(
            "a string in the `{}` format",
            crate::feedback::short(format, SCHEMA_TEXT_CHARS)
        ),
        K::MinItems { limit } => format!("an array of at least {limit} items"),
        K::MaxItems { limit } => format!("an array of at most {limit} items"),
        K::UniqueItems => "an array without duplicate items".to_owned(),
        K::MinProperties { limit } => format!("an object with at least {limit} properties"),
        K::MaxProperties { limit } => format!("an object with at most {limit} properties"),
        K::FalseSchema => NOTHING.to_owned(),
        K::OneOfMultipleValid { .. } => {
            "a value that matches exactly one of the alternatives listed here (`oneOf`), \
             not several"
                .to_owned()
        }
        _ => return None,
    })
}

/// How much of a text taken from the schema (a pattern, a format, a
/// keyword's name) a violation quotes.
const SCHEMA_TEXT_CHARS: usize = 128;

/// What a keyword canon has no words of its own for asks of the value, named
/// by the keyword: the validator's own message would quote the value whole.
fn unworded(kind: &ValidationErrorKind) -> String {
    use ValidationErrorKind as K;
    let text = |t: &str| crate::feedback::short(t, SCHEMA_TEXT_CHARS);
    match kind {
        K::Not { .. } => "a value that does not match the schema under `not`".to_owned(),
        K::Contains => "an array with an item that matches the schema under `contains`".to_owned(),
        K::AdditionalItems { limit } => format!("an array of at most {limit} items"),
        K::UnevaluatedItems { .. } => {
            "an array without items the schema does not describe (`unevaluatedItems`)".to_owned()
        }
        K::PropertyNames { .. } => {
            "an object whose property names match the schema under `propertyNames`".to_owned()
        }
        K::ContentEncoding { content_encoding } => {
            format!("a string in the `{}` encoding", text(content_encoding))
        }
        K::ContentMediaType { content_media_type } => {
            format!("a string holding `{}` content", text(content_media_type))
        }
        K::BacktrackLimitExceeded { .. } | K::RegexEngineFailure { .. } => {
            "a string the pattern here can be checked against (checking this one gave up)"
                .to_owned()
        }
        kind => format!(
            "a value that satisfies the schema's `{}` keyword here",
            text(kind.keyword())
        ),
    }
}

/// What an empty `enum` (or a `false` schema) accepts.
const NOTHING: &str = "nothing (no value is allowed here)";

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
    let Some(types) = crate::schema::types::names(schema) else {
        return "any value".to_owned();
    };
    let mut parts: Vec<String> = types
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "array" => match schema.get("items") {
                Some(items) if accepts_nothing(root, items) => "an empty array, []".to_owned(),
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

/// True for a schema no value meets: an empty `enum`, or `false`.
fn accepts_nothing(root: &Value, schema: &Value) -> bool {
    let schema = resolve(root, schema);
    schema == &Value::Bool(false)
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
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
    if values.is_empty() {
        return NOTHING.to_owned();
    }
    let mut list: Vec<String> = values.iter().take(SHOWN).map(Value::to_string).collect();
    if values.len() > SHOWN {
        list.push(format!("… ({} in all)", values.len()));
    }
    match values.len() {
        1 => format!("exactly {}", list[0]),
        _ => format!("one of {}", list.join(", ")),
    }
}

/// The pointer and the key as sent of a map key that `T` could not read
/// (serde's path ends in a segment it could not name, as for `{"yes": 1}`
/// given to a `BTreeMap<bool, _>`), or `None` for any other path.
///
/// serde reads a map's members in order and stops at the first that fails,
/// so the key is the first one whose prefix of the map fails the same way:
/// found by bisecting the map, in a logarithmic number of attempts.
fn unread_key(
    probe: Probe,
    repaired: &Value,
    path: &serde_path_to_error::Path,
) -> Option<(String, String)> {
    use serde_path_to_error::Segment;
    let segments: Vec<&Segment> = path.iter().collect();
    let (last, known) = segments.split_last()?;
    if !matches!(last, Segment::Unknown) || known.iter().any(|s| matches!(s, Segment::Unknown)) {
        return None;
    }
    let mut at = String::new();
    for segment in known {
        at = match segment {
            Segment::Seq { index } => pointer::push(&at, &index.to_string()),
            Segment::Map { key } => pointer::push(&at, key),
            Segment::Enum { variant } => pointer::push(&at, variant),
            Segment::Unknown => return None,
        };
    }
    let members = repaired.pointer(&at)?.as_object()?;
    let wanted = path.to_string();
    // True when the map cut to its first `n` members fails where `T` did.
    let fails_within = |n: usize| {
        let mut cut = repaired.clone();
        let Some(map) = cut.pointer_mut(&at) else {
            return false;
        };
        *map = Value::Object(
            members
                .iter()
                .take(n)
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        matches!(probe.run(&cut), Err(e) if e.path().to_string() == wanted)
    };
    // The smallest `n` whose first `n` members fail; the whole map does.
    let (mut lo, mut hi) = (1, members.len());
    if hi == 0 || !fails_within(hi) {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fails_within(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let key = members.keys().nth(lo - 1)?.clone();
    Some((pointer::push(&at, &key), key))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feedback::violations::*;
    use serde_json::json;

    #[test]
    fn missing_properties_cost_nothing_of_the_data_beside_them() {
        let names: Vec<String> = (0..1000).map(|i| format!("p{i:04}")).collect();
        let properties: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.clone(), json!({"type": "string"})))
            .collect();
        let schema = json!({"type": "object", "properties": properties, "required": names});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let work = |data: Value| {
            crate::feedback::PREVIEW_WORK.with(|w| w.set(0));
            let (found, more) = explain(&schema, Some(&validator), &data, Vec::new(), 1000);
            assert_eq!((found.len(), more), (999, 0));
            crate::feedback::PREVIEW_WORK.with(|w| w.get())
        };
        let small = work(json!({"p0000": "x", "data": "d"}));
        let large = work(json!({"p0000": "x", "data": "d".repeat(512 << 10)}));
        // The same work whatever the size of the data: at most one preview
        // per violation.
        assert_eq!(small, large);
        assert_eq!(
            large, 0,
            "a missing property shows nothing of what is there"
        );
    }

    #[test]
    fn refused_strings_are_looked_up_at_a_cost_linear_in_their_number() {
        let schema = json!({"type": "object", "properties": {"lists": {"type": "array",
            "items": {"type": "array", "items": {"type": "string"}}}}});
        let validator = jsonschema::validator_for(&schema).unwrap();
        let plan = Plan::compile_with(&schema, crate::bind::policy::Policy::DEFAULT);
        let probes = |n: usize| {
            REFUSED_PROBES.with(|p| p.set(0));
            let call = json!({ "lists": vec![""; n] });
            let (found, more) = violations(
                Probe::Type(probe_of::<Value>),
                &plan,
                &schema,
                Some(&validator),
                &call,
                20,
            );
            assert_eq!((found.len(), found.len() + more), (20, n));
            REFUSED_PROBES.with(|p| p.get())
        };
        let (small, large) = (probes(10_000), probes(40_000));
        // Each refused blank is added once and looked up at most once; a
        // scan over the others per blank would be 40,000 times more.
        assert!(large <= 3 * 40_000, "{large} probes for 40,000 blanks");
        assert!(
            large <= 4 * small + 8,
            "{small} probes for 10,000, {large} for 40,000"
        );
    }

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

    #[test]
    fn numbers_against_the_range_of_their_format() {
        let out = |format: &str, n: Value| {
            let Value::Number(n) = n else { panic!() };
            out_of_format("/n", &n, format_range(format).unwrap(), false).map(|v| v.message)
        };
        assert_eq!(out("uint64", json!(u64::MAX)), None);
        assert_eq!(
            out("uint64", json!(18_446_744_073_709_551_616.0)).as_deref(),
            Some("expected an integer from 0 to 18446744073709551615, got the number 1.8446744073709552e+19")
        );
        assert_eq!(out("int64", json!(i64::MIN)), None);
        assert_eq!(out("int32", json!(-0.0)), None, "whole: the binder decides");
        assert_eq!(out("uint32", json!(3.0)), None, "whole: the binder decides");
        assert_eq!(out("uint32", json!(-0.0)), None, "-0 is 0");
        assert!(out("uint8", json!(0.5)).is_some());
        assert!(out("int128", json!(1e300)).is_some());
        assert_eq!(out("uint128", json!(1e30)), None);
        assert_eq!(out("float", json!(3.4e38)), None);
        assert!(out("float", json!(-3.5e38)).is_some());
        assert!(format_range("double").is_none());
        assert!(format_range("date").is_none());
    }

    #[test]
    fn ranges_narrow_to_the_schema_bounds_and_say_null() {
        let root = json!({"type": "object", "properties": {
            "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 1, "maximum": 10},
            "m": {"type": "integer", "format": "uint32", "minimum": 0}
        }});
        let (found, _) = ranges(&root, &json!({"n": 11, "m": 3}), 20);
        let [v] = found.as_slice() else { panic!() };
        assert_eq!(v.pointer, "/n");
        assert_eq!(v.expected, "an integer from 1 to 10 or null");
        // serde refusing `3.0` for an integer is told the number to send.
        let v = whole_float_for_integer(&root, "/m", &json!(3.0)).unwrap();
        assert_eq!(
            v.message,
            "expected an integer from 0 to 4294967295, got the number 3.0; send it as 3, without a decimal point"
        );
        assert!(whole_float_for_integer(&root, "/m", &json!(3)).is_none());
    }

    #[test]
    fn split_examples_stay_within_a_preview() {
        assert_eq!(
            split_example("a, b ,c", Items::Strings),
            r#"["a", "b", "c"]"#
        );
        assert_eq!(
            split_example("1, x, true", Items::Scalars),
            r#"[1, "x", true]"#
        );
        assert_eq!(split_example("1, 2", Items::Strings), r#"["1", "2"]"#);
        let long = "y".repeat(100);
        let one = split_example(&format!("{long}, b"), Items::Strings);
        assert!(one.chars().count() <= 64, "{one}");
        assert!(one.ends_with("…\", …]"), "{one}");
        let many = split_example(&"abc, ".repeat(40), Items::Strings);
        assert!(many.chars().count() <= 64, "{many}");
        assert!(many.ends_with("\"abc\", …]"), "{many}");
    }

    #[test]
    fn only_a_schema_is_taken_for_a_schema() {
        let root =
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
        assert!(schema_as_arguments(&root, &json!({"type": "object", "properties": {}})).is_some());
        for args in [
            json!({"type": "object"}),
            json!({"properties": {}}),
            json!({"type": "object", "properties": {}, "q": "x"}),
            json!({"type": "object", "properties": {}, "extra": 1}),
            json!([1]),
        ] {
            assert!(schema_as_arguments(&root, &args).is_none(), "{args}");
        }
    }
}
