//! A call given as a `Value`, looked over against the plan before serde
//! reads it: when nothing in it is to be repaired and every assertion of
//! the plan vouches for it, the target type reads the `Value` as plain
//! serde would, without the adapter around each position.
//!
//! The look is never laxer than the adapter: it follows the plan to the
//! same positions (and to some the target type would skip), checks the
//! same assertions there and counts depth where the adapter counts it.
//! Whatever it does not vouch for (a string where a sequence may be
//! wanted, above all) goes to the adapter, so a call binds exactly as it
//! would through the adapter alone.

use serde_json::{Map, Number, Value};

use super::keys::Seen;
use crate::schema::constraint::{hash_scalar, Assert, Num, Scalar};
use crate::schema::plan::{Member, Name, Node, Plan};
use crate::schema::types as ty;

/// True when `value` binds through `plan` (in [`Mode::Fast`](super::Mode),
/// at most `max_depth` arrays and objects deep) with no repair and nothing
/// refused: the target type may then read it directly.
///
/// `routed`: the root is the arguments struct of a `#[tool]`, whose own
/// `Deserialize` refuses a member it does not declare (and which the
/// adapter leaves it to refuse): the root's names are not asked for, only
/// where each member leads.
#[inline]
pub(crate) fn vouches(plan: &Plan, max_depth: usize, value: &Value, routed: bool) -> bool {
    Look { plan, max_depth }.vouches(value, routed)
}

/// The look over one call.
struct Look<'p> {
    plan: &'p Plan,
    max_depth: usize,
}

impl Look<'_> {
    /// The assertions at `node` (all are checked).
    #[inline(always)]
    fn assert<'n>(&self, node: &'n Node) -> Option<&'n Assert> {
        node.assert.as_deref()
    }

    /// [`vouches`].
    #[inline(always)]
    fn vouches(&self, value: &Value, routed: bool) -> bool {
        match (self.plan.root(), value) {
            (None, _) => true,
            (Some(root), Value::Object(members)) if routed => {
                if self.max_depth == 0 {
                    return false;
                }
                let assert = self.assert(root).filter(|a| a.on_objects());
                if assert.is_some_and(|a| !a.members(members.len() as u64, true)) {
                    return false;
                }
                members.iter().all(|(key, value)| match root.member(key) {
                    Member::Skip => true,
                    Member::Named(_, id) | Member::Additional(id, _) => {
                        self.look(self.plan.node(id), value, 1)
                    }
                })
            }
            (Some(root), _) => self.look(root, value, 0),
        }
    }

    /// `value` at `node`, with `depth` arrays and objects open around it.
    #[inline(always)]
    fn look(&self, node: &Node, value: &Value, depth: usize) -> bool {
        match value {
            Value::Array(items) => self.array(node, items, depth),
            Value::Object(members) => self.object(node, members, depth),
            _ if node.assert.is_none() && !node.wrap_string && !node.float32 => true,
            scalar => self.scalar(node, scalar),
        }
    }

    /// A scalar at a position that checks something of scalars.
    #[inline(never)]
    fn scalar(&self, node: &Node, value: &Value) -> bool {
        let assert = self.assert(node);
        match value {
            Value::Null => assert.is_none_or(|a| a.null()),
            Value::Bool(b) => assert.is_none_or(|a| a.boolean(*b)),
            Value::Number(n) => {
                let n = num(n);
                if let Num::F(f) = n {
                    if node.float32 && f.abs() > f64::from(f32::MAX) {
                        return false;
                    }
                }
                assert.is_none_or(|a| a.number(n))
            }
            // A string where a sequence may be wanted is the adapter's to
            // wrap or refuse.
            Value::String(s) => !node.wrap_string && assert.is_none_or(|a| a.string(s)),
            Value::Array(_) | Value::Object(_) => false,
        }
    }

    /// An array, counted as one level where the adapter counts it.
    #[inline(never)]
    fn array(&self, node: &Node, items: &[Value], depth: usize) -> bool {
        if depth >= self.max_depth || node.refuses & ty::ARRAY != 0 {
            return false;
        }
        let items_node = node.items.map(|id| self.plan.node(id));
        let Some(assert) = self.assert(node).filter(|a| a.on_arrays()) else {
            return items_node
                .is_none_or(|below| items.iter().all(|item| self.look(below, item, depth + 1)));
        };
        if !assert.items(items.len() as u64, true) {
            return false;
        }
        let mut unique = assert.unique().then(Seen::default);
        for item in items {
            if let Some(below) = items_node {
                if unique.is_some() && scalar(item).is_none() {
                    // Not a scalar: left to `jsonschema`.
                    return false;
                }
                if !self.look(below, item, depth + 1) {
                    return false;
                }
            }
            if let Some(seen) = &mut unique {
                match scalar(item) {
                    Some(item) if seen.add(hash_scalar(item)) => {}
                    _ => return false,
                }
            }
        }
        unique.as_mut().is_none_or(Seen::finish)
    }

    /// An object: each member at the plan its name leads to, and a closed
    /// object's names known.
    #[inline(never)]
    fn object(&self, node: &Node, members: &Map<String, Value>, depth: usize) -> bool {
        if node.refuses & ty::OBJECT != 0 {
            return false;
        }
        let assert = self.assert(node).filter(|a| a.on_objects());
        let closed = node.known.is_some();
        if node.properties.is_empty() && node.additional.is_none() && assert.is_none() && !closed {
            return depth < self.max_depth;
        }
        if depth >= self.max_depth {
            return false;
        }
        if assert.is_some_and(|a| !a.members(members.len() as u64, true)) {
            return false;
        }
        let mut branches = u64::MAX;
        members.iter().all(|(key, value)| {
            let name = node.names.find(key);
            if let (Some(masks), Some(index)) = (&node.branches, name.and_then(Name::known)) {
                // One of several closed objects: this name narrows which,
                // and the value of their tag does.
                branches &= masks[index];
                if let Some(tag) = node.tag.as_ref().filter(|tag| tag.index == index) {
                    branches &= value.as_str().map_or(0, |value| tag.object_of(value));
                }
                if branches == 0 {
                    return false;
                }
            }
            let id = match name.and_then(Name::node) {
                Some(id) => id,
                None => match node.additional {
                    Some(id) => id,
                    None => return !closed || name.and_then(Name::known).is_some(),
                },
            };
            self.look(self.plan.node(id), value, depth + 1)
        })
    }
}

/// A number as the adapter sees it from a `Value`: by its representation.
#[inline(always)]
fn num(n: &Number) -> Num {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => Num::U(u),
        (None, Some(i)) => Num::I(i),
        _ => Num::F(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// A scalar item as a set remembers it.
fn scalar(value: &Value) -> Option<Scalar<'_>> {
    match value {
        Value::Null => Some(Scalar::Null),
        Value::Bool(b) => Some(Scalar::Bool(*b)),
        Value::Number(n) => Some(Scalar::Num(num(n))),
        Value::String(s) => Some(Scalar::Str(s)),
        Value::Array(_) | Value::Object(_) => None,
    }
}
