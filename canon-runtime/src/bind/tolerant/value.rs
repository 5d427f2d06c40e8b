//! A call given as a `Value`, checked against the plan as serde reads it
//! ([`read`]): when nothing in it is to be repaired and every assertion
//! of the plan vouches for it, the target type reads the `Value` as plain
//! serde would, without the adapter around each position. Structs and
//! arrays are checked as the type opens them; at any other position the
//! look runs over what is there first.
//!
//! The look is never laxer than the adapter: it follows the plan to the
//! same positions (and to some the target type would skip), checks the
//! same assertions there and counts depth where the adapter counts it.
//! Whatever it does not vouch for (a string where a sequence may be
//! wanted, above all) goes to the adapter, so a call binds exactly as it
//! would through the adapter alone.

use std::cell::Cell;

use serde_json::{Map, Number, Value};

use super::keys::Seen;

use crate::bind::rule::{string_at_string_array, Verdict};
use crate::schema::constraint::{hash_scalar, Assert, Num, Scalar};
use crate::schema::plan::{Member, Name, Node, Plan};
use crate::schema::types as ty;

/// [`Look::vouches`] over `plan`, at most `max_depth` arrays and objects
/// deep: what [`read`] is held to in tests.
#[cfg(test)]
pub(crate) fn vouches(plan: &Plan, max_depth: usize, value: &Value, routed: bool) -> bool {
    Look::new(plan, max_depth).vouches(value, routed)
}

/// The look over a `#[tool]`'s arguments before serde reads them plainly
/// (a look, then a read: the walk is compiled once, not once for each
/// arguments type), as [`Look::vouches`], but for strings where the
/// schema says array of strings that the adapter would bind as one-element
/// arrays (the rule accepts them, and so do the assertions there): the
/// number of those, or `None` when the look does not vouch for the call.
/// At most `max_wraps` are taken.
pub(crate) fn vouches_wrapping(
    plan: &Plan,
    max_depth: usize,
    value: &Value,
    max_wraps: usize,
) -> Option<usize> {
    let wraps = Cell::new(0);
    let look = Look {
        plan,
        max_depth,
        wraps: Some((&wraps, max_wraps)),
    };
    look.vouches(value, true).then(|| wraps.get())
}

/// The look over one call.
struct Look<'p> {
    plan: &'p Plan,
    max_depth: usize,
    /// When strings the adapter would wrap are taken: how many were, and
    /// how many may be.
    wraps: Option<(&'p Cell<usize>, usize)>,
}

impl<'p> Look<'p> {
    fn new(plan: &'p Plan, max_depth: usize) -> Self {
        Look {
            plan,
            max_depth,
            wraps: None,
        }
    }
}

impl Look<'_> {
    /// The assertions at `node` (all are checked).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn assert<'n>(&self, node: &'n Node) -> Option<&'n Assert> {
        node.assert.as_deref()
    }

    /// True when `value` binds through the plan (in
    /// [`Mode::Fast`](super::Mode), at most `max_depth` arrays and objects
    /// deep) with no repair and nothing refused: the target type may then
    /// read it directly.
    ///
    /// `routed`: the root is the arguments struct of a `#[tool]`, whose own
    /// `Deserialize` refuses a member it does not declare (and which the
    /// adapter leaves it to refuse): the root's names are not asked for,
    /// only where each member leads.
    #[cfg_attr(not(debug_assertions), inline(always))]
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
                let mut next = 0;
                members.iter().all(|(key, value)| {
                    match root.member_of(root.names.find_next(key, &mut next)) {
                        Member::Skip => true,
                        Member::Named(_, id) | Member::Additional(id, _) => {
                            self.look(self.plan.node(id), value, 1)
                        }
                    }
                })
            }
            (Some(root), _) => self.look(root, value, 0),
        }
    }

    /// `value` at `node`, with `depth` arrays and objects open around it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn look(&self, node: &Node, value: &Value, depth: usize) -> bool {
        match value {
            Value::Array(items) => self.array(node, items, depth),
            Value::Object(members) => self.object(node, members, depth),
            // A string where a sequence may be wanted is the adapter's to
            // wrap or refuse.
            Value::String(s) if node.wrap_string => self.wrapped(node, s),
            Value::String(s) => node.assert.as_deref().is_none_or(|a| a.string(s)),
            _ if node.assert.is_none() && !node.float32 => true,
            scalar => self.scalar(node, scalar),
        }
    }

    /// A string where the schema says array of strings: taken, when
    /// wrapping strings, where the adapter would bind it as a one-element
    /// array ([`wraps_string`]).
    #[cold]
    #[inline(never)]
    fn wrapped(&self, node: &Node, s: &str) -> bool {
        let Some((wraps, max)) = self.wraps else {
            return false;
        };
        if wraps.get() >= max || !wraps_string(self.plan, node, s) {
            return false;
        }
        wraps.set(wraps.get() + 1);
        true
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
                    if node.float32 && crate::schema::constraint::beyond_f32(f) {
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
        // Keys come in the order the schema declares them, most often: each
        // is compared first with the name after the last one found.
        let mut next = 0;
        members.iter().all(|(key, value)| {
            let name = node.names.find_next(key, &mut next);
            if let Some(masks) = &node.branches {
                if let Some(index) = name.and_then(Name::known) {
                    // One of several closed objects: this name narrows
                    // which, and the value of their tag does.
                    branches &= masks[index];
                    if let Some(tag) = node.tag.as_ref().filter(|tag| tag.index == index) {
                        branches &= value.as_str().map_or(0, |value| tag.object_of(value));
                    }
                    if branches == 0 {
                        return false;
                    }
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

/// Whether the adapter, checking every assertion, binds the string `s` at
/// `node` (where the schema says array of strings) as a one-element array:
/// the rule accepts it, and the assertions there and on the items take one
/// item that is `s`.
pub(crate) fn wraps_string(plan: &Plan, node: &Node, s: &str) -> bool {
    if !node.wrap_string || string_at_string_array(s) != Verdict::Wrap {
        return false;
    }
    if node.assert.as_deref().is_some_and(|a| !a.items(1, true)) {
        return false;
    }
    let items = node.items.map(|id| plan.node(id));
    items.is_none_or(|items| items.assert.as_deref().is_none_or(|a| a.string(s)))
}

/// A number as the adapter sees it from a `Value`: by its representation.
#[cfg_attr(not(debug_assertions), inline(always))]
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

/// The target type read from `value` while the look checks each position
/// as the type reaches it: one walk, not a look and then a read. `None`
/// when the look would not vouch for the call, or the type refuses it;
/// the caller then takes the adapter's way, which binds, repairs or
/// refuses it exactly as it would have.
///
/// Each position is checked exactly as [`Look::vouches`] checks it: objects the
/// type reads as a struct, and arrays, are checked member by member as
/// the type reads them; at any other position (a scalar, an enum, a map,
/// a value the type skips) the look runs over what is there before the
/// type reads it.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn read<T: serde::de::DeserializeOwned>(
    plan: &Plan,
    max_depth: usize,
    value: &Value,
    routed: bool,
) -> Option<T> {
    let look = Look::new(plan, max_depth);
    let Some(node) = plan.root() else {
        return T::deserialize(value).ok();
    };
    T::deserialize(Checked {
        look: &look,
        node,
        value,
        depth: 0,
        routed,
    })
    .ok()
}

/// Why [`read`] stopped: the look did not vouch, or the type refused.
/// Either way the adapter takes over, so nothing more is kept. The readers
/// below share serde_json's error type, so that what serde reads plainly
/// passes through them as it is, with no conversion of each result.
type Declined = serde_json::Error;

/// The error of a position the look did not vouch for.
#[cold]
#[inline(never)]
fn declined() -> Declined {
    <Declined as serde::de::Error>::custom("declined")
}

/// A `Value` at a plan position, read by the target type while checked.
struct Checked<'v, 'l, 'p> {
    look: &'l Look<'p>,
    node: &'p Node,
    value: &'v Value,
    /// Arrays and objects open around `value`.
    depth: usize,
    /// `value` is the arguments object of a `#[tool]` (see [`Look::vouches`]).
    routed: bool,
}

impl<'v> Checked<'v, '_, '_> {
    /// The look over the whole of `value`, as [`Look::vouches`] makes it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn looked(&self) -> Result<(), Declined> {
        let ok = if self.routed {
            self.look.vouches(self.value, true)
        } else {
            self.look.look(self.node, self.value, self.depth)
        };
        if ok {
            Ok(())
        } else {
            Err(declined())
        }
    }
}

/// Methods that look over the value, then let serde read it plainly.
macro_rules! looked_then_plain {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?,)*) => {$(
        #[inline]
        fn $method<V: serde::de::Visitor<'v>>(
            self,
            $($($arg: $ty,)*)?
            visitor: V,
        ) -> Result<V::Value, Declined> {
            self.looked()?;
            self.value.$method($($($arg,)*)? visitor)
        }
    )*};
}

impl<'v> serde::Deserializer<'v> for Checked<'v, '_, '_> {
    type Error = Declined;

    looked_then_plain! {
        deserialize_any, deserialize_bool, deserialize_i8, deserialize_i16,
        deserialize_i32, deserialize_i64, deserialize_i128, deserialize_u8,
        deserialize_u16, deserialize_u32, deserialize_u64, deserialize_u128,
        deserialize_f32, deserialize_f64, deserialize_char, deserialize_str,
        deserialize_string, deserialize_bytes, deserialize_byte_buf,
        deserialize_unit, deserialize_map, deserialize_identifier,
        deserialize_ignored_any,
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    }

    #[inline]
    fn deserialize_option<V: serde::de::Visitor<'v>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Declined> {
        match self.value {
            Value::Null => {
                self.looked()?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    #[inline]
    fn deserialize_seq<V: serde::de::Visitor<'v>>(self, visitor: V) -> Result<V::Value, Declined> {
        let node = self.node;
        let (Value::Array(items), false) = (self.value, self.routed) else {
            self.looked()?;
            return self.value.deserialize_seq(visitor);
        };
        let look = self.look;
        if self.depth >= look.max_depth || node.refuses & ty::ARRAY != 0 {
            return Err(declined());
        }
        if let Some(assert) = look.assert(node).filter(|a| a.on_arrays()) {
            if assert.unique() {
                // Sets are remembered as the look remembers them.
                self.looked()?;
                return self.value.deserialize_seq(visitor);
            }
            if !assert.items(items.len() as u64, true) {
                return Err(declined());
            }
        }
        let Some(below) = node.items else {
            // Nothing to check in the items.
            return self.value.deserialize_seq(visitor);
        };
        let mut seq = Items {
            look,
            node: look.plan.node(below),
            items: items.iter(),
            depth: self.depth + 1,
        };
        // Returned as it came, not rebuilt: a copy of the type's value
        // here costs more than the check.
        let read = visitor.visit_seq(&mut seq);
        if read.is_ok() && seq.items.len() != 0 {
            return Err(declined());
        }
        read
    }

    #[inline]
    fn deserialize_struct<V: serde::de::Visitor<'v>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Declined> {
        let node = self.node;
        let look = self.look;
        let Value::Object(members) = self.value else {
            self.looked()?;
            return self.value.deserialize_struct(name, fields, visitor);
        };
        if self.routed {
            if look.max_depth == 0 {
                return Err(declined());
            }
        } else {
            if node.branches.is_some() || node.refuses & ty::OBJECT != 0 {
                // A union of closed objects is narrowed over all its names.
                self.looked()?;
                return self.value.deserialize_struct(name, fields, visitor);
            }
            if self.depth >= look.max_depth {
                return Err(declined());
            }
        }
        let assert = look.assert(node).filter(|a| a.on_objects());
        if assert.is_some_and(|a| !a.members(members.len() as u64, true)) {
            return Err(declined());
        }
        let mut map = Members {
            look,
            node,
            members: members.iter(),
            next: None,
            at: 0,
            depth: self.depth + 1,
            routed: self.routed,
        };
        // Returned as it came, not rebuilt: a copy of the type's value
        // here costs more than the check.
        let read = visitor.visit_map(&mut map);
        if read.is_ok() && map.members.len() != 0 {
            return Err(declined());
        }
        read
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// The items of an array, each checked at the plan of its items.
struct Items<'v, 'l, 'p> {
    look: &'l Look<'p>,
    node: &'p Node,
    items: std::slice::Iter<'v, Value>,
    depth: usize,
}

impl<'v> serde::de::SeqAccess<'v> for Items<'v, '_, '_> {
    type Error = Declined;

    #[inline]
    fn next_element_seed<T: serde::de::DeserializeSeed<'v>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Declined> {
        let Some(value) = self.items.next() else {
            return Ok(None);
        };
        seed.deserialize(Checked {
            look: self.look,
            node: self.node,
            value,
            depth: self.depth,
            routed: false,
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The members of an object read as a struct: each name known where the
/// object is closed, each value checked at the plan its name leads to.
struct Members<'v, 'l, 'p> {
    look: &'l Look<'p>,
    node: &'p Node,
    members: serde_json::map::Iter<'v>,
    /// The value of the key last read, and the plan it is checked at
    /// (`None`: nothing to check there).
    next: Option<(&'v Value, Option<&'p Node>)>,
    /// Where the next name is looked for first ([`Names::find_next`]).
    ///
    /// [`Names::find_next`]: crate::schema::plan::Names::find_next
    at: usize,
    depth: usize,
    routed: bool,
}

impl<'v> serde::de::MapAccess<'v> for Members<'v, '_, '_> {
    type Error = Declined;

    #[inline]
    fn next_key_seed<K: serde::de::DeserializeSeed<'v>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Declined> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        let node = self.node;
        let id = if self.routed {
            match node.member(key) {
                Member::Skip => None,
                Member::Named(_, id) | Member::Additional(id, _) => Some(id),
            }
        } else {
            let name = node.names.find_next(key, &mut self.at);
            match name.and_then(Name::node).or(node.additional) {
                Some(id) => Some(id),
                None if node.known.is_some() && name.and_then(Name::known).is_none() => {
                    return Err(declined());
                }
                None => None,
            }
        };
        self.next = Some((value, id.map(|id| self.look.plan.node(id))));
        seed.deserialize(serde::de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    #[inline]
    fn next_value_seed<T: serde::de::DeserializeSeed<'v>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Declined> {
        match self.next.take() {
            Some((value, Some(node))) => seed.deserialize(Checked {
                look: self.look,
                node,
                value,
                depth: self.depth,
                routed: false,
            }),
            Some((value, None)) => seed.deserialize(value),
            None => Err(declined()),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}
