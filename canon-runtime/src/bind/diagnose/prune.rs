//! Diagnosing a large refused call without holding one error per wrong
//! item: `jsonschema` collects every error of a call before it yields the
//! first, which for a megabyte of wrong items is hundreds of megabytes. A
//! large call is validated with each array cut to its first items; the
//! items past the cut are counted one at a time, within a budget.

use serde_json::Value;

use crate::schema::pointer;
use crate::schema::refs::{non_null, resolve, schema_at};
use crate::schema::MAX_DEPTH;

/// Calls of more nodes than this are diagnosed on a pruned copy (below it,
/// the validator's errors for the whole call take a few megabytes at most).
pub(crate) const LARGE_CALL_NODES: usize = 10_000;

/// The most nodes the validator visits counting the items past the cuts,
/// per node of the call (and at least [`TAIL_BUDGET`]); past it, the count
/// is a lower bound. The work stays linear in the call.
const TAIL_WORK_PER_NODE: usize = 32;

/// The least budget for counting the items past the cuts, in nodes.
const TAIL_BUDGET: usize = 1 << 20;

/// True when `value` has more than `limit` nodes (values at any depth):
/// counting stops past `limit`, so the cost is bounded by it, not by the
/// value.
pub(crate) fn nodes_over(value: &Value, limit: usize) -> bool {
    nodes_up_to(value, limit) > limit
}

/// The nodes of `value`, counted up to `limit + 1`, allocating nothing.
fn nodes_up_to(value: &Value, limit: usize) -> usize {
    fn count(value: &Value, seen: &mut usize, limit: usize) {
        *seen += 1;
        match value {
            Value::Array(items) => each(items.iter(), seen, limit),
            Value::Object(members) => each(members.values(), seen, limit),
            _ => {}
        }
    }
    fn each<'v>(children: impl Iterator<Item = &'v Value>, seen: &mut usize, limit: usize) {
        for child in children {
            if *seen > limit {
                return;
            }
            count(child, seen, limit);
        }
    }
    let mut seen = 0;
    count(value, &mut seen, limit);
    seen
}

/// A copy of a call with every array cut to its first `keep` items.
pub(crate) struct Pruned {
    /// The copy.
    pub(crate) value: Value,
    /// Each array cut: its pointer and its length as sent.
    pub(crate) cuts: Vec<(String, usize)>,
    keep: usize,
}

impl Pruned {
    /// `value` with each array cut to its first `keep` items (at least
    /// one). The copy holds at most `keep` items per array.
    pub(crate) fn of(value: &Value, keep: usize) -> Pruned {
        let keep = keep.max(1);
        let mut cuts = Vec::new();
        let value = copy(value, keep, &mut String::new(), &mut cuts);
        Pruned { value, cuts, keep }
    }

    /// How many items past the cuts break the schema (each counted once,
    /// however many of its keywords fail), and whether that count is exact
    /// (false when the budget ran out or an item was itself too large to
    /// count in).
    ///
    /// Each item is checked against its schema (`items`) alone when that
    /// schema can be compiled on its own; otherwise it is validated alone in
    /// its array, with every cut array emptied, so the rest of the call
    /// adds little to each check (an array whose schema has `prefixItems`
    /// keeps its first items, and the item goes past them, where `items`
    /// applies as it does to the item sent).
    pub(crate) fn tail_errors<'r>(
        &self,
        schema: &Value,
        validator: &jsonschema::Validator,
        original: &Value,
        refused: impl Fn(&str) -> Option<&'r std::collections::HashSet<usize>>,
    ) -> (usize, bool) {
        let mut errors = 0;
        let mut exact = true;
        let mut budget = TAIL_BUDGET.max(TAIL_WORK_PER_NODE.saturating_mul(node_count(original)));
        let mut doc = self.value.clone();
        for (at, _) in &self.cuts {
            if let Some(Value::Array(items)) = doc.pointer_mut(at) {
                items.clear();
            }
        }
        let size = node_count(&doc);
        for (at, _) in &self.cuts {
            let Some(sent) = original.pointer(at).and_then(Value::as_array) else {
                continue;
            };
            let start = self.keep.min(sent.len());
            // Refused strings are counted already (their array is looked
            // up once, not once per item).
            let refused_here = refused(at);
            let tail = sent[start..]
                .iter()
                .enumerate()
                .filter(|(i, _)| !refused_here.is_some_and(|r| r.contains(&(start + i))))
                .map(|(_, item)| item);
            // The items' own schema, compiled once: each item is checked
            // alone, at no cost from the rest of the call (its pointer,
            // however long its keys, is never built).
            if let Some(items) = item_validator(schema, at) {
                errors += tail.filter(|item| !items.is_valid(item)).count();
                continue;
            }
            let prefixed = has_prefix_items(schema, at);
            let head: Vec<Value> = if prefixed {
                self.value
                    .pointer(at)
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let place = pointer::push(at, &head.len().to_string());
            for item in tail {
                let mut item_cuts = Vec::new();
                let item = copy(item, self.keep, &mut String::new(), &mut item_cuts);
                exact &= item_cuts.is_empty();
                // The validator writes the pointer of each error it finds.
                let cost = size + head.len() + node_count(&item) + place.len();
                if cost > budget {
                    return (errors, false);
                }
                budget -= cost;
                let Some(Value::Array(items)) = doc.pointer_mut(at) else {
                    break;
                };
                items.clone_from(&head);
                items.push(item);
                let wrong = validator
                    .iter_errors(&doc)
                    .any(|e| pointer::is_within(e.instance_path().as_str(), &place));
                errors += usize::from(wrong);
            }
            if let Some(Value::Array(items)) = doc.pointer_mut(at) {
                items.clear();
            }
        }
        (errors, exact)
    }
}

fn node_count(value: &Value) -> usize {
    nodes_up_to(value, usize::MAX - 1)
}

/// `value` with its arrays cut to `keep` items, noting each cut.
fn copy(value: &Value, keep: usize, at: &mut String, cuts: &mut Vec<(String, usize)>) -> Value {
    match value {
        Value::Array(items) => {
            if items.len() > keep {
                cuts.push((at.clone(), items.len()));
            }
            let mut out = Vec::with_capacity(items.len().min(keep));
            for (i, item) in items.iter().take(keep).enumerate() {
                let len = at.len();
                at.push('/');
                at.push_str(&i.to_string());
                out.push(copy(item, keep, at, cuts));
                at.truncate(len);
            }
            Value::Array(out)
        }
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, member)| {
                    let len = at.len();
                    at.push('/');
                    at.push_str(&pointer::escape(key));
                    let member = copy(member, keep, at, cuts);
                    at.truncate(len);
                    (key.clone(), member)
                })
                .collect(),
        ),
        scalar => scalar.clone(),
    }
}
/// Whether the schema of the array at `at` gives `prefixItems` (or cannot
/// be told).
fn has_prefix_items(root: &Value, at: &str) -> bool {
    schema_at(root, at)
        .map(|s| non_null(root, resolve(root, s)))
        .is_none_or(|s| s.get("prefixItems").is_some())
}

/// A validator of the items of the array at `at` (its `items` schema, with
/// the root's definitions), when the array's schema has no `prefixItems`
/// and such a validator compiles.
fn item_validator(root: &Value, at: &str) -> Option<jsonschema::Validator> {
    let array = non_null(root, resolve(root, schema_at(root, at)?));
    if array.get("prefixItems").is_some() {
        return None;
    }
    let items = array.get("items")?;
    // A reference into anything but the definitions (`#`, say) would mean
    // something else from the wrapper.
    fn definitions_only(schema: &Value, depth: usize) -> bool {
        match schema {
            _ if depth > MAX_DEPTH => false,
            Value::Object(members) => members.iter().all(|(key, value)| match value {
                Value::String(target) if key == "$ref" || key == "$dynamicRef" => {
                    target.starts_with("#/$defs/") || target.starts_with("#/definitions/")
                }
                other => definitions_only(other, depth + 1),
            }),
            Value::Array(items) => items.iter().all(|item| definitions_only(item, depth + 1)),
            _ => true,
        }
    }
    if !definitions_only(items, 0) || items.get("$id").is_some() {
        return None;
    }
    let mut defs = match root.get("$defs") {
        Some(Value::Object(defs)) => defs.clone(),
        Some(_) => return None,
        None => serde_json::Map::new(),
    };
    const ITEM: &str = "canon-item";
    if defs.contains_key(ITEM) {
        return None;
    }
    defs.insert(ITEM.to_owned(), items.clone());
    let mut wrapper = serde_json::Map::new();
    for keyword in ["$schema", "definitions"] {
        if let Some(value) = root.get(keyword) {
            wrapper.insert(keyword.to_owned(), value.clone());
        }
    }
    wrapper.insert("$defs".to_owned(), Value::Object(defs));
    wrapper.insert("$ref".to_owned(), Value::from(format!("#/$defs/{ITEM}")));
    jsonschema::options()
        .should_validate_formats(true)
        .build(&Value::Object(wrapper))
        .ok()
}
