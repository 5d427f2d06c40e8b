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

use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::BindArgs;
use super::Fields;

/// Reads `A` from `object` as `A::deserialize` reads the `Value` holding
/// it: the same keys and values to the same visitor, whose result is
/// returned as it came.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn read_object<A: BindArgs>(
    object: &Map<String, Value>,
) -> Result<A, serde_json::Error> {
    A::bind_fields(Object(object), Fields::PLAIN)
}

/// An object of a `Value`, read as a map whatever the type asks for.
pub(crate) struct Object<'de>(pub(crate) &'de Map<String, Value>);

impl<'de> serde::Deserializer<'de> for Object<'de> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Members::new(self.0))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The members of an object, each key as a borrowed string and each value
/// as serde_json reads a `&Value`, or through the plan where the
/// arguments' [`Fields`] route it.
pub(super) struct Members<'de> {
    members: serde_json::map::Iter<'de>,
    /// The value of the key last read.
    value: Option<&'de Value>,
}

impl<'de> Members<'de> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn new(object: &'de Map<String, Value>) -> Self {
        Members {
            members: object.iter(),
            value: None,
        }
    }

    /// The value of the key last read; an error when it was taken, or no
    /// key was read.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn take_value(&mut self) -> Result<&'de Value, serde_json::Error> {
        self.value.take().ok_or_else(missing_value)
    }
}

#[cold]
#[inline(never)]
fn missing_value() -> serde_json::Error {
    serde::de::Error::custom("value is missing")
}

impl<'de> MapAccess<'de> for Members<'de> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(serde::de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        seed.deserialize(self.take_value()?)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}
