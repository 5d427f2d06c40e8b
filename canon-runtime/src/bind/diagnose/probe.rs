//! What serde makes of a `Value` as the Rust type a call is bound into: the
//! one part of the diagnosis that knows the type, kept small so that the
//! rest is compiled once rather than once for each arguments type.

use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::Value;

pub use crate::bind::tolerant::ProbeError;

/// Reads a `Value` as a Rust type, for serde's own error and its path.
#[derive(Clone, Copy)]
pub(crate) enum Probe {
    /// The whole type, read from the `Value`.
    Type(fn(&Value) -> Result<(), ProbeError>),
    /// A `#[tool]`'s arguments, read a member at a time in the object's
    /// order, as its `Deserialize` reads them: `field(index, key, value)`
    /// reads the member `key` of field `index` (of `names`). Each field's
    /// reading is compiled once for its type, whichever tools share it.
    Fields {
        /// The fields' names, in field order.
        names: &'static [&'static str],
        /// Reads one member.
        field: fn(usize, &str, &Value) -> Result<(), ProbeError>,
    },
}

impl Probe {
    /// Nothing when the type reads `value`, else serde's error and where.
    ///
    /// For a `#[tool]`'s arguments, the members are read in order and the
    /// first that fails is the answer, as the generated `Deserialize` stops
    /// at it. A member the struct does not declare, one missing or anything
    /// but an object is the published schema's to refuse (it is closed, and
    /// requires what the type requires): only the values are read here.
    pub(crate) fn run(self, value: &Value) -> Result<(), ProbeError> {
        match self {
            Probe::Type(read) => read(value),
            Probe::Fields { names, field } => {
                let Value::Object(members) = value else {
                    return Ok(());
                };
                for (key, member) in members {
                    if let Some(index) = names.iter().position(|name| name == key) {
                        field(index, key, member)?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// [`Probe::Type`] for `T`.
pub(crate) fn probe_of<T: DeserializeOwned>(value: &Value) -> Result<(), ProbeError> {
    serde_path_to_error::deserialize::<_, T>(value).map(drop)
}

/// One member of a `#[tool]`'s arguments read as `T`, with its path from
/// the arguments object (`key`, then wherever inside it serde stopped):
/// what the diagnosis of a `#[tool]`'s arguments calls for a field of type
/// `T`.
pub fn probe_field<T: DeserializeOwned>(key: &str, value: &Value) -> Result<(), ProbeError> {
    serde_path_to_error::deserialize::<_, Member<T>>(OneMember(key, value)).map(drop)
}

/// `T`, read as the one member of an object.
struct Member<T>(PhantomData<T>);

impl<'de, T: de::Deserialize<'de>> de::Deserialize<'de> for Member<T> {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        de.deserialize_map(MemberVisitor(PhantomData))
    }
}

struct MemberVisitor<T>(PhantomData<T>);

impl<'de, T: de::Deserialize<'de>> Visitor<'de> for MemberVisitor<T> {
    type Value = Member<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object of one member")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member<T>, A::Error> {
        if map.next_key::<String>()?.is_some() {
            map.next_value::<T>()?;
        }
        Ok(Member(PhantomData))
    }
}

/// The object `{key: value}`, borrowed.
struct OneMember<'a>(&'a str, &'a Value);

impl<'de> Deserializer<'de> for OneMember<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(OneMemberAccess(Some(self.0), Some(self.1)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct OneMemberAccess<'a>(Option<&'a str>, Option<&'a Value>);

impl<'a> MapAccess<'a> for OneMemberAccess<'a> {
    type Error = serde_json::Error;

    fn next_key_seed<K: de::DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.0.take() {
            Some(key) => seed
                .deserialize(de::value::BorrowedStrDeserializer::new(key))
                .map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.1.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("value is missing")),
        }
    }
}
