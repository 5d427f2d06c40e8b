//! Whether a `#[tool]`'s arguments type checks what its plan asserts
//! beyond types: closed objects below the root, and lists of strings (a
//! unit-only `enum`). Where it does, a call from a `Value` is read as a
//! typed plan's is, plainly and in one walk, without the look first.
//!
//! The schema alone cannot say so: a struct that ignores unknown members
//! and one that refuses them have the same schema once canon closes every
//! object, and serde's derive reads aliases the schema does not list. So
//! the type is seen, once, reading calls made from the schema:
//! - an example call, every property present, one item in every array and
//!   one member in every map, which must bind without a repair; each
//!   closed object below the root must be read there as a struct
//!   (`deserialize_struct`) whose names (every field and alias serde's
//!   derive passes) are the object's properties exactly, and each list of
//!   strings as an `enum` whose variants (and aliases) are the strings
//!   exactly;
//! - for each such position, the example with a member the object does not
//!   declare, or a string not listed, which must be refused.
//!
//! The read of a vouched plan refuses, wherever it is, what serde would
//! take and the schema does not admit ([`Wraps::vouched`]): a member a
//! struct ignores (so a struct that does not deny unknown fields is
//! vouched for as well), a struct from an array, a unit variant from an
//! object. What the type reads at a position does not change from call to
//! call (a union, whose branches could differ, is never vouched for), so
//! what it was seen to check there it checks in every call.
//!
//! Seeing the type is bounded: at most [`MAX_POSITIONS`] positions, each
//! one read of the example.

use std::cell::RefCell;

use serde_json::{Map, Value};

use super::plain::{Params, Seen, Wraps};
use crate::schema::plan::{Member, NodeId, Plan};

/// A plain read of a `#[tool]`'s arguments from `object`, with the plan
/// `wraps`: true when it bound.
pub(crate) type ReadPlain = fn(&Map<String, Value>, &Wraps<'_>) -> bool;

/// The most positions a type is seen checking; a plan with more is looked
/// at before each read, as before.
pub(crate) const MAX_POSITIONS: usize = 64;

/// How deep `$ref`s and subschemas are followed to write the example.
const MAX_EXAMPLE_DEPTH: usize = 64;

/// Whether the plan of the schema `schema`, derived from a `#[tool]`'s
/// arguments type (whose members, their pointers and plan slots are
/// `params`), may be read as typed because the type,
/// read by `read`, was seen to check what the plan asserts beyond types.
pub(crate) fn vouch(plan: &Plan, schema: &Value, params: &Params, read: ReadPlain) -> bool {
    let (Some(vouchable), Some(root)) = (plan.vouchable(), plan.root_id()) else {
        return false;
    };
    let Some(call) = example(schema, schema, 0) else {
        return false;
    };
    let Value::Object(object) = &call else {
        return false;
    };
    let mut positions = Vec::new();
    if !find_positions(plan, root, &call, true, &mut Vec::new(), &mut positions)
        || positions.len() > MAX_POSITIONS
        || !vouchable
            .nodes
            .iter()
            .all(|node| positions.iter().any(|p| p.node == *node))
    {
        return false;
    }
    let depth = vouchable.depth as usize;
    // The example binds, and the type reads each position as the plan
    // says, by the plan's names exactly.
    let seen = RefCell::new(Vec::new());
    let wraps = Wraps::new(plan, params, object, depth).vouched(Some(&seen));
    if !read(object, &wraps) || !wraps.into_repairs().is_empty() {
        return false;
    }
    let seen = seen.into_inner();
    if !positions
        .iter()
        .all(|position| reads_names(plan, position, &seen))
    {
        return false;
    }
    // And refuses, at each position, what the plan refuses there.
    positions.iter().all(|position| {
        let mut call = call.clone();
        let Some(Value::Object(object)) = refused_at(&mut call, position).then_some(&call) else {
            return false;
        };
        !read(
            object,
            &Wraps::new(plan, params, object, depth).vouched(None),
        )
    })
}

/// A position of the example the type must be seen checking.
struct Position {
    node: NodeId,
    /// The address of its value in the example.
    at: usize,
    /// The steps to it from the arguments object.
    path: Vec<Step>,
    /// A closed object (else a list of strings).
    closed: bool,
}

/// One step from a value of the example to a member or item of it.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Collects, below `value` at the plan `id` (`path` from the arguments
/// object), the positions to vouch for: false where the example and the
/// plan part (a value the plan has no place for).
fn find_positions(
    plan: &Plan,
    id: NodeId,
    value: &Value,
    root: bool,
    path: &mut Vec<Step>,
    out: &mut Vec<Position>,
) -> bool {
    let node = plan.node(id);
    let closed = node.known.is_some() && !root;
    if closed || node.assert.is_some() {
        if out.len() == MAX_POSITIONS {
            return false;
        }
        out.push(Position {
            node: id,
            at: value as *const Value as usize,
            path: path.clone(),
            closed,
        });
    }
    match value {
        Value::Object(members) => members.iter().all(|(key, member)| {
            let child = match node.member(key) {
                Member::Named(_, id) | Member::Additional(id, _) => id,
                Member::Skip => return true,
            };
            path.push(Step::Key(key.clone()));
            let found = find_positions(plan, child, member, false, path, out);
            path.pop();
            found
        }),
        Value::Array(items) => match node.items {
            Some(child) => items.iter().enumerate().all(|(i, item)| {
                path.push(Step::Index(i));
                let found = find_positions(plan, child, item, false, path, out);
                path.pop();
                found
            }),
            None => true,
        },
        _ => true,
    }
}

/// Whether the type read `position` of the example as a struct or an
/// `enum` by the plan's names there, no more and no fewer.
fn reads_names(plan: &Plan, position: &Position, seen: &[Seen]) -> bool {
    let Some(seen) = seen.iter().find(|seen| seen.at == position.at) else {
        return false;
    };
    let node = plan.node(position.node);
    if position.closed {
        let Some(known) = &node.known else {
            return false;
        };
        same_names(seen.names, known.iter().map(|name| &**name))
    } else {
        match node.assert.as_ref().and_then(|assert| assert.names_only()) {
            Some(names) => same_names(seen.names, names.into_iter()),
            None => false,
        }
    }
}

/// Whether `read` (the type's names) are `declared` (distinct names),
/// as sets.
fn same_names<'a>(read: &[&str], declared: impl Iterator<Item = &'a str>) -> bool {
    let mut count = 0;
    for name in declared {
        if !read.contains(&name) {
            return false;
        }
        count += 1;
    }
    count == read.len()
}

/// Changes `call` at `position` to what the plan refuses there: a member
/// the object does not declare, a string not listed. False when the
/// position is not found (it always is).
fn refused_at(call: &mut Value, position: &Position) -> bool {
    let mut value = call;
    for step in &position.path {
        let next = match (step, value) {
            (Step::Key(key), Value::Object(members)) => members.get_mut(key),
            (Step::Index(i), Value::Array(items)) => items.get_mut(*i),
            _ => None,
        };
        match next {
            Some(next) => value = next,
            None => return false,
        }
    }
    match value {
        Value::Object(members) => {
            let name = unused(|name| members.contains_key(name));
            members.insert(name, Value::Null);
            true
        }
        Value::String(s) => {
            // The example's string is a listed one; so is its variant.
            *s = unused(|name| name == s.as_str());
            true
        }
        _ => false,
    }
}

/// A name `taken` does not take, and that no type declares in practice.
fn unused(taken: impl Fn(&str) -> bool) -> String {
    let mut name = String::from("canon unlisted");
    while taken(&name) {
        name.push('_');
    }
    name
}

/// An example of a value `schema` admits (`root`: the whole schema, whose
/// `$defs` a `$ref` names): every property present, one item in every
/// array, one member `"0"` in every map, the first of every list of
/// values, the least of every bound, a string empty. `None` for what is
/// not written so (a union of two types but `null`, a `$ref` out of the
/// document).
fn example(root: &Value, schema: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_EXAMPLE_DEPTH {
        return None;
    }
    let schema = schema.as_object()?;
    if let Some(reference) = schema.get("$ref") {
        let target = reference
            .as_str()?
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))?;
        return example(root, target, depth + 1);
    }
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    if let Some(values) = schema.get("enum") {
        return values.as_array()?.first().cloned();
    }
    for union in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(union) {
            let branches: Vec<&Value> = branches
                .as_array()?
                .iter()
                .filter(|b| !is_null(b))
                .collect();
            let constants = branches.iter().all(|b| b.get("const").is_some());
            return match branches[..] {
                [branch] => example(root, branch, depth + 1),
                // A unit-only `enum` whose variants are documented.
                [first, ..] if constants => example(root, first, depth + 1),
                _ => None,
            };
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(ty)) => ty.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|ty| *ty != "null")
            .unwrap_or("null"),
        _ if schema.contains_key("properties") => "object",
        _ => return None,
    };
    Some(match ty {
        "string" => Value::String(String::new()),
        "integer" | "number" => Value::from(least(schema)?),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        "array" => match (schema.get("prefixItems"), schema.get("items")) {
            (Some(prefix), _) => Value::Array(
                prefix
                    .as_array()?
                    .iter()
                    .map(|item| example(root, item, depth + 1))
                    .collect::<Option<_>>()?,
            ),
            (None, Some(items)) => Value::Array(vec![example(root, items, depth + 1)?]),
            (None, None) => Value::Array(Vec::new()),
        },
        "object" => {
            let mut members = Map::new();
            if let Some(properties) = schema.get("properties") {
                for (name, property) in properties.as_object()? {
                    members.insert(name.clone(), example(root, property, depth + 1)?);
                }
            }
            if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                members
                    .entry("0")
                    .or_insert(example(root, additional, depth + 1)?);
            }
            Value::Object(members)
        }
        _ => return None,
    })
}

/// Whether `schema` admits `null` alone.
fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The integer nearest zero a numeric schema's bounds admit.
fn least(schema: &Map<String, Value>) -> Option<i64> {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let low = bound("minimum").or(bound("exclusiveMinimum").map(|b| b.floor() + 1.0));
    let high = bound("maximum").or(bound("exclusiveMaximum").map(|b| b.ceil() - 1.0));
    let n = match (low, high) {
        (Some(low), _) if low > 0.0 => low.ceil(),
        (_, Some(high)) if high < 0.0 => high.floor(),
        _ => 0.0,
    };
    // Within both bounds, and an integer `i64` holds.
    let within = low.is_none_or(|low| n >= low) && high.is_none_or(|high| n <= high);
    (within && n.abs() < 9.0e15).then_some(n as i64)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::{Deserialize, Deserializer};
    use serde_json::json;

    use super::{example, least};
    use crate::bind::tolerant::{BindArgs, Fields, ProbeError};
    use crate::toolbox::ToolSpec;

    /// An arguments struct as `#[tool]` writes one (closed), read plainly.
    macro_rules! args {
        ($name:ident { $($field:ident: $ty:ty),* $(,)? }) => {
            #[derive(Deserialize, schemars::JsonSchema)]
            #[serde(deny_unknown_fields)]
            #[allow(dead_code)]
            struct $name { $($field: $ty),* }

            impl BindArgs for $name {
                const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];

                fn bind_fields<'de, D: Deserializer<'de>>(
                    de: D,
                    _: Fields<'_>,
                ) -> Result<Self, D::Error> {
                    Self::deserialize(de)
                }

                fn probe_field(_: usize, _: &str, _: &serde_json::Value) -> Result<(), ProbeError> {
                    Ok(())
                }
            }
        };
    }

    /// Whether the plan of `A` has positions to vouch for, and whether `A`
    /// was seen to check them.
    fn seen<A: BindArgs + schemars::JsonSchema>() -> (bool, bool) {
        let spec = ToolSpec::of::<A>("t", "A tool.");
        (spec.plan().vouchable().is_some(), spec.vouched::<A>())
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Denying {
        field: String,
        op: Op,
        values: Vec<String>,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Ignoring {
        size: u32,
        after: Option<String>,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Op {
        Eq,
        Ne,
    }

    args!(Query { filters: Vec<Denying>, page: Option<Ignoring>, by: HashMap<String, Op> });

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Named {
        #[serde(alias = "n")]
        name: String,
    }

    args!(Aliased { item: Named });

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Variant {
        #[serde(alias = "b")]
        A,
        C,
    }

    args!(Aka { aka: Variant });

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Lenient {
        A,
        #[serde(other)]
        Else,
    }

    args!(Other { other: Lenient });

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        x: u32,
    }

    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Merged {
        y: String,
        #[serde(flatten)]
        inner: Inner,
    }

    args!(Flat { flat: Merged });

    /// The schema lists what the type does not read: a field skipped.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Skipping {
        kept: String,
        #[serde(skip)]
        #[schemars(skip)]
        skipped: String,
    }

    args!(Listed { listed: Skipping });

    /// Variants with documentation: schemars writes each as a `const`.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Documented {
        /// The first.
        First,
        /// The second.
        Second,
    }

    args!(Docs { docs: Documented, more: Option<Vec<Documented>> });

    #[test]
    fn a_type_that_checks_its_names_and_variants_is_vouched_for() {
        assert_eq!(seen::<Docs>(), (true, true));
        assert_eq!(seen::<Query>(), (true, true));
        // A skipped field is in neither the schema nor the names read.
        assert_eq!(seen::<Listed>(), (true, true));
    }

    #[test]
    fn a_type_reading_what_the_schema_does_not_list_is_not() {
        assert_eq!(seen::<Aliased>(), (true, false));
        assert_eq!(seen::<Aka>(), (true, false));
        assert_eq!(seen::<Other>(), (true, false));
        assert_eq!(seen::<Flat>(), (true, false));
    }

    #[test]
    fn an_example_has_every_member_and_the_least_of_each_bound() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/A"},
                "n": {"type": ["integer", "null"], "minimum": 3},
                "m": {"type": "integer", "exclusiveMaximum": -2},
                "o": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]},
                "map": {"type": "object", "additionalProperties": {"type": "boolean"}},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"enum": ["x", "y"]}]}
            },
            "$defs": {"A": {"type": "array", "items": {"type": "string"}}}
        });
        assert_eq!(
            example(&schema, &schema, 0),
            Some(json!({
                "a": [""], "n": 3, "m": -3, "o": [""], "map": {"0": false}, "pair": ["", "x"]
            }))
        );
        let union = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert_eq!(example(&union, &union, 0), None);
        let outside = json!({"$ref": "other.json"});
        assert_eq!(example(&outside, &outside, 0), None);
        let none = json!({"type": "integer", "minimum": 1, "maximum": 0});
        assert_eq!(least(none.as_object().unwrap()), None);
    }
}
