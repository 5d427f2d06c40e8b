//! The arguments object of a `#[tool]` read from a `Value` as plain serde
//! reads it, less one copy: by [`read_object`], and by the single pass
//! through the plan (the same reader, so that each arguments type is
//! compiled for one reader of a `Value`).
//!
//! serde_json's reader of a `&Map` keeps the visitor's value aside while it
//! checks that no member was left unread, and the compiler copies the whole
//! arguments struct to do it, in loads the CPU cannot forward from the
//! stores that just wrote it. The visitor `#[tool]` generates asks for keys
//! until there are none, so no member is ever left: this reader hands the
//! value back as it came.
//!
//! The plain read also binds the commonest near miss in the same walk: a
//! string sent for a member whose schema says array of strings. Where the
//! type asks for a sequence, serde_json would refuse a string; here, when
//! the reader was given the plan's root ([`Wraps`]), the string is looked up
//! there and, at a tolerant position the rule accepts, presented as a
//! one-element sequence with the repair recorded, exactly as the adapter
//! presents it. Only that branch, which a valid call never takes, does any
//! work: a valid call is read as before.

use std::borrow::Cow;
use std::cell::RefCell;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::{BindArgs, Fields, One};
use crate::bind::rule::{string_at_string_array, Verdict};
use crate::repair::{Repair, RepairRule};
use crate::schema::plan::{Member, Node, Plan};

/// Reads `A` from `object` as `A::deserialize` reads the `Value` holding
/// it: the same keys and values to the same visitor, whose result is
/// returned as it came. With `wraps`, a string at a tolerant member of the
/// object is bound as a one-element sequence, and the repair kept there.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn read_object<A: BindArgs>(
    object: &Map<String, Value>,
    wraps: Option<&Wraps<'_>>,
) -> Result<A, serde_json::Error> {
    A::bind_fields(Object::new(object, wraps), Fields::PLAIN)
}

/// The plan's root, for a plain read that binds a string at a tolerant
/// member of the arguments object as the adapter would, and the repairs it
/// made. Only for a plan whose positions assert nothing but types (a
/// `#[tool]`'s whose type checks everything the plan would): the rule is
/// then all the adapter applies to such a string.
pub(crate) struct Wraps<'p> {
    plan: &'p Plan,
    root: &'p Node,
    /// The arguments' members and their pointers ([`BindArgs`]), which a
    /// repair borrows.
    names: &'static [&'static str],
    pointers: &'static [&'static str],
    repairs: RefCell<Vec<Repair>>,
}

impl<'p> Wraps<'p> {
    /// The root of `plan`, when it has one, for the arguments `A`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn new<A: BindArgs>(plan: &'p Plan) -> Option<Self> {
        Some(Wraps {
            plan,
            root: plan.root()?,
            names: A::FIELDS,
            pointers: A::POINTERS,
            repairs: RefCell::new(Vec::new()),
        })
    }

    /// The repairs made, in the order the members were read.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn into_repairs(self) -> Vec<Repair> {
        self.repairs.into_inner()
    }

    /// Whether the string `s`, sent for the member `key`, is to be bound as
    /// a one-element sequence; if so, the repair is recorded.
    #[cold]
    #[inline(never)]
    fn wrap(&self, key: &str, s: &str) -> bool {
        let Member::Named(token, id) = self.root.member(key) else {
            return false;
        };
        if !self.plan.node(id).wrap_string || string_at_string_array(s) != Verdict::Wrap {
            return false;
        }
        let borrowed = self.names.iter().position(|name| *name == key);
        let pointer = match borrowed.and_then(|i| self.pointers.get(i)) {
            Some(pointer) => Cow::Borrowed(*pointer),
            None => Cow::Owned(format!("/{token}")),
        };
        let repair = Repair::new(pointer, RepairRule::ScalarToArray);
        let mut repairs = self.repairs.borrow_mut();
        if repairs.is_empty() {
            // One allocation of the exact size, without the growth path.
            *repairs = vec![repair];
        } else {
            repairs.push(repair);
        }
        true
    }
}

/// An object of a `Value`, read as a map whatever the type asks for.
pub(crate) struct Object<'de, 'w> {
    map: &'de Map<String, Value>,
    wraps: Option<&'w Wraps<'w>>,
}

impl<'de, 'w> Object<'de, 'w> {
    /// The object `map`, read plainly or (`wraps`) binding a string at a
    /// tolerant member as a sequence.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn new(map: &'de Map<String, Value>, wraps: Option<&'w Wraps<'w>>) -> Self {
        Object { map, wraps }
    }
}

impl<'de> serde::Deserializer<'de> for Object<'de, '_> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Members::new(self.map, self.wraps))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The members of an object, each key as a borrowed string and each value
/// as serde_json reads a `&Value` ([`MemberValue`]), or through the plan where
/// the arguments' [`Fields`] route it.
pub(super) struct Members<'de, 'w> {
    members: serde_json::map::Iter<'de>,
    /// The key last read and its value.
    value: Option<(&'de String, &'de Value)>,
    wraps: Option<&'w Wraps<'w>>,
}

impl<'de, 'w> Members<'de, 'w> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn new(object: &'de Map<String, Value>, wraps: Option<&'w Wraps<'w>>) -> Self {
        Members {
            members: object.iter(),
            value: None,
            wraps,
        }
    }
}

#[cold]
#[inline(never)]
fn missing_value() -> serde_json::Error {
    serde::de::Error::custom("value is missing")
}

impl<'de, 'w> MapAccess<'de> for Members<'de, 'w> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        let Some((key, value)) = self.value.take() else {
            return Err(missing_value());
        };
        seed.deserialize(MemberValue {
            key,
            value,
            wraps: self.wraps,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// The value of one member, read as serde_json reads a `&Value`, but for a
/// string where the type asks for a sequence (see [`Wraps`]).
struct MemberValue<'de, 'w> {
    key: &'de String,
    value: &'de Value,
    wraps: Option<&'w Wraps<'w>>,
}

macro_rules! forward_member {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            self.value.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for MemberValue<'de, '_> {
    type Error = serde_json::Error;

    forward_member! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier(); deserialize_ignored_any();
    }

    /// As serde_json: `null` is none, anything else is read again here.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    /// As serde_json, but for a string at a tolerant member the rule
    /// accepts: a one-element sequence.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match (self.value, self.wraps) {
            (Value::String(s), Some(wraps)) if wraps.wrap(self.key, s) => {
                visitor.visit_seq(One(Some(BorrowedStrDeserializer::new(s))))
            }
            (value, _) => value.deserialize_seq(visitor),
        }
    }
}
