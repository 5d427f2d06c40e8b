//! Map keys: a key checked against the plan as it is read (a map's key
//! schema, an enum variant name), and members given twice found in one pass
//! by hashing each key once.

use crate::schema::constraint::{hash_scalar, Num, Scalar};
use crate::schema::plan::Node;
use crate::schema::plan::{Member, Name, NodeId};
use crate::schema::pointer::Path;
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};
use std::cell::{Cell, RefCell};
use std::fmt;
use std::hash::BuildHasher;

/// Deserializes a map key (or an enum variant name) and notes which plan the
/// value after it follows.
pub(super) struct KeySeed<'s, 'a, 'de, K> {
    pub(super) seed: K,
    pub(super) node: &'a Node,
    pub(super) slot: &'s mut Slot<'a, 'de>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, 'de, K> {
    type Value = K::Value;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDe {
            de,
            node: self.node,
            slot: self.slot,
        })
    }
}

pub(super) struct KeyDe<'s, 'a, 'de, D> {
    pub(super) de: D,
    pub(super) node: &'a Node,
    pub(super) slot: &'s mut Slot<'a, 'de>,
}

macro_rules! forward_key_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            let visitor = KeyVis { inner: visitor, node: self.node, slot: self.slot };
            self.de.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<'_, '_, 'de, D> {
    type Error = D::Error;

    with_deserialize_methods!(forward_key_deserialize! {
        deserialize_any(); deserialize_seq(); deserialize_ignored_any();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    });

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

pub(super) struct KeyVis<'s, 'a, 'de, V> {
    pub(super) inner: V,
    pub(super) node: &'a Node,
    pub(super) slot: &'s mut Slot<'a, 'de>,
}

/// Visits of a key that is not a string (a map with integer or boolean
/// keys reads them from the key's text): hashed as what they are, so `"1"`
/// and `"01"` read as the same `u32` count as the same key.
macro_rules! hashed_key_visits {
    ($($method:ident($ty:ty);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.slot.check(|| hash_key(&(stringify!($method), v)))?;
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVis<'_, '_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    hashed_key_visits! {
        visit_bool(bool); visit_i8(i8); visit_i16(i16); visit_i32(i32);
        visit_i64(i64); visit_i128(i128); visit_u8(u8); visit_u16(u16);
        visit_u32(u32); visit_u64(u64); visit_u128(u128); visit_char(char);
    }

    forward_visit! {
        visit_f32(v: f32); visit_f64(v: f64); visit_bytes(v: &[u8]);
        visit_borrowed_bytes(v: &'de [u8]); visit_byte_buf(v: Vec<u8>);
        visit_none(); visit_unit();
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        self.slot.check_str(s)?;
        if self.slot.note(self.node, s)? {
            self.slot.keep(s);
        }
        self.inner.visit_str(s)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        self.slot.check_str(s)?;
        if self.slot.note(self.node, s)? {
            // Borrowed from the input: kept without a copy.
            self.slot.key = Key::Borrowed(s);
        }
        self.inner.visit_borrowed_str(s)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        self.slot.check_str(&s)?;
        if self.slot.note(self.node, &s)? {
            self.slot.keep(&s);
        }
        self.inner.visit_string(s)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(de)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        // A key of a newtype (`HashMap<UserId, _>`): the string inside is
        // the key.
        self.inner.visit_newtype_struct(KeyDe {
            de,
            node: self.node,
            slot: self.slot,
        })
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        // A key of an enum type: the variant's name is the key.
        self.inner.visit_enum(KeyEnum {
            data,
            node: self.node,
            slot: self.slot,
        })
    }
}

/// An enum read as a map key: its variant name is checked as the key.
pub(super) struct KeyEnum<'s, 'a, 'de, A> {
    pub(super) data: A,
    pub(super) node: &'a Node,
    pub(super) slot: &'s mut Slot<'a, 'de>,
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for KeyEnum<'_, '_, 'de, A> {
    type Error = A::Error;
    type Variant = A::Variant;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, A::Variant), A::Error> {
        self.data.variant_seed(KeySeed {
            seed,
            node: self.node,
            slot: self.slot,
        })
    }
}

/// The error that stops the pass at a value the schema's assertions do not
/// vouch for; the failure path asks `jsonschema`.
#[cold]
pub(super) fn refused<E: de::Error>() -> E {
    E::custom("canon: a value the schema's assertions do not vouch for")
}

/// An item of an array whose items must be distinct: a scalar's hash is
/// left in `hash` (anything else leaves `None`).
pub(super) struct Hashing<'h, S> {
    pub(super) seed: S,
    pub(super) hash: &'h Cell<Option<u64>>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Hashing<'_, S> {
    type Value = S::Value;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(HashDe {
            de,
            hash: self.hash,
        })
    }
}

pub(super) struct HashDe<'h, D> {
    pub(super) de: D,
    pub(super) hash: &'h Cell<Option<u64>>,
}

macro_rules! forward_hash_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            self.de.$method($($arg,)* HashVis { inner: visitor, hash: self.hash })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for HashDe<'_, D> {
    type Error = D::Error;

    with_deserialize_methods!(forward_hash_deserialize! {
        deserialize_any(); deserialize_seq(); deserialize_ignored_any();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    });

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

pub(super) struct HashVis<'h, V> {
    pub(super) inner: V,
    pub(super) hash: &'h Cell<Option<u64>>,
}

macro_rules! hashed_scalar_visits {
    ($($method:ident($ty:ty) => |$v:ident| $scalar:expr;)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<E: de::Error>(self, $v: $ty) -> Result<Self::Value, E> {
            self.hash.set(Some(hash_scalar($scalar)));
            self.inner.$method($v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for HashVis<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    hashed_scalar_visits! {
        visit_bool(bool) => |v| Scalar::Bool(v);
        visit_i8(i8) => |v| Scalar::Num(Num::I(i64::from(v)));
        visit_i16(i16) => |v| Scalar::Num(Num::I(i64::from(v)));
        visit_i32(i32) => |v| Scalar::Num(Num::I(i64::from(v)));
        visit_i64(i64) => |v| Scalar::Num(Num::I(v));
        visit_u8(u8) => |v| Scalar::Num(Num::U(u64::from(v)));
        visit_u16(u16) => |v| Scalar::Num(Num::U(u64::from(v)));
        visit_u32(u32) => |v| Scalar::Num(Num::U(u64::from(v)));
        visit_u64(u64) => |v| Scalar::Num(Num::U(v));
        visit_f32(f32) => |v| Scalar::Num(Num::F(f64::from(v)));
        visit_f64(f64) => |v| Scalar::Num(Num::F(v));
        visit_str(&str) => |v| Scalar::Str(v);
        visit_borrowed_str(&'de str) => |v| Scalar::Str(v);
    }

    forward_visit! {
        visit_i128(v: i128); visit_u128(v: u128); visit_char(v: char); visit_bytes(v: &[u8]);
        visit_borrowed_bytes(v: &'de [u8]); visit_byte_buf(v: Vec<u8>);
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.hash.set(Some(hash_scalar(Scalar::Str(&v))));
        self.inner.visit_string(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.hash.set(Some(hash_scalar(Scalar::Null)));
        self.inner.visit_none()
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.hash.set(Some(hash_scalar(Scalar::Null)));
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(de)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(de)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

/// The error that stops the pass at a key its object may have given
/// before; the caller reads the text exactly to tell.
#[cold]
pub(super) fn repeated_key<E: de::Error>() -> E {
    E::custom("canon: a key given twice")
}

/// The hash a key is remembered by in its object. Equal keys hash alike;
/// two keys that merely collide send the call to the exact path, which
/// keeps the keys themselves.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn hash_key<K: std::hash::Hash + ?Sized>(key: &K) -> u64 {
    #[cfg(test)]
    if super::tests::COLLIDE.with(Cell::get) {
        return 0;
    }
    foldhash::fast::FixedState::with_seed(0).hash_one(key)
}

/// How many keys an object holds inline before the rest spill.
pub(super) const INLINE_KEYS: usize = 8;

thread_local! {
    /// The keys of objects with more than [`INLINE_KEYS`] keys, as a stack
    /// of hashes shared by nested objects: reused from call to call, so a
    /// valid call allocates nothing for it once the thread has seen an
    /// object that large.
    pub(super) static SPILLED: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The keys an object of the text has given so far, as hashes: the first
/// [`INLINE_KEYS`] inline, compared as they come; the rest spill to
/// [`SPILLED`] and are compared once, sorted, when the object ends (so an
/// object of 100,000 keys costs a sort, not 10^10 comparisons).
#[derive(Default)]
pub(super) struct Seen {
    pub(super) inline: [u64; INLINE_KEYS],
    pub(super) len: usize,
    /// Where this object's hashes start in [`SPILLED`], once spilled.
    pub(super) spilled: Option<usize>,
}

impl Seen {
    /// Records a key's hash: false when this object gave it before (as far
    /// as can be told before the object ends).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn add(&mut self, hash: u64) -> bool {
        if self.len < INLINE_KEYS {
            if self.inline[..self.len].contains(&hash) {
                return false;
            }
            self.inline[self.len] = hash;
            self.len += 1;
            return true;
        }
        self.spill(hash)
    }

    #[cold]
    pub(super) fn spill(&mut self, hash: u64) -> bool {
        let spilled = &mut self.spilled;
        let inline = &self.inline;
        let pushed = SPILLED.try_with(|stack| {
            let mut stack = stack.borrow_mut();
            if spilled.is_none() {
                *spilled = Some(stack.len());
                stack.extend_from_slice(inline);
            }
            stack.push(hash);
        });
        self.len += 1;
        // Without the thread's stack (a thread being torn down), the object
        // goes to the exact path.
        pushed.is_ok()
    }

    /// At the end of the object: false when some key was given twice.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn finish(&mut self) -> bool {
        match self.spilled.take() {
            None => true,
            Some(base) => Self::finish_spilled(base),
        }
    }

    #[cold]
    pub(super) fn finish_spilled(base: usize) -> bool {
        SPILLED
            .try_with(|stack| {
                let mut stack = stack.borrow_mut();
                let keys = &mut stack[base..];
                keys.sort_unstable();
                let distinct = keys.windows(2).all(|pair| pair[0] != pair[1]);
                stack.truncate(base);
                if base == 0 && stack.capacity() > 1 << 16 {
                    // Give back what one huge object took.
                    *stack = Vec::new();
                }
                distinct
            })
            .unwrap_or(false)
    }
}

impl Drop for Seen {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn drop(&mut self) {
        // An object left early (the pass failed inside it) gives its
        // hashes back.
        if let Some(base) = self.spilled.take() {
            Self::unspill(base);
        }
    }
}

impl Seen {
    #[cold]
    pub(super) fn unspill(base: usize) {
        let _ = SPILLED.try_with(|stack| stack.borrow_mut().truncate(base));
    }
}

/// Which plan the value after a key follows, and the key when it is not a
/// declared property and a repair below may need its pointer.
pub(super) struct Slot<'a, 'de> {
    pub(super) member: Member<'a>,
    pub(super) key: Key<'de>,
    /// This object's keys are checked for repeats.
    pub(super) check_keys: bool,
    /// The keys hashed so far, once one is (an object that tells its
    /// names exactly hashes none of them).
    pub(super) seen: Option<Seen>,
    /// A key was refused as given before.
    pub(super) repeated: bool,
    /// Keys the object's schema does not declare are refused.
    pub(super) closed: bool,
    /// The object is closed with at most 64 names and its keys are
    /// checked: a string key given twice is told exactly by the bit of its
    /// name in `given`, without hashing it.
    pub(super) exact: bool,
    pub(super) given: u64,
    /// Of a union of closed objects ([`Node::branches`]), the ones every
    /// name so far belongs to.
    pub(super) branches: u64,
    /// The value after the key is the union's tag.
    pub(super) tag: bool,
    /// Where the next name is looked for first ([`Names::find_next`]).
    ///
    /// [`Names::find_next`]: crate::schema::plan::Names::find_next
    pub(super) at: usize,
}

/// A key kept for a pointer: borrowed from the input when the input lends
/// it (JSON text without escapes, a `Value`), else copied into a buffer
/// reused for every key of the object.
pub(super) enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(key) => key,
            Key::Owned(key) => key,
        }
    }
}

impl<'a, 'de> Slot<'a, 'de> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn new(check_keys: bool, closed: bool, exact: bool) -> Self {
        Slot {
            member: Member::Skip,
            key: Key::Borrowed(""),
            check_keys,
            seen: None,
            repeated: false,
            closed,
            exact,
            given: 0,
            branches: u64::MAX,
            tag: false,
            at: 0,
        }
    }

    /// Records the hash of a string key, unless the object tells its
    /// names given twice exactly ([`Slot::note`]).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn check_str<E: de::Error>(&mut self, key: &str) -> Result<(), E> {
        if self.exact {
            return Ok(());
        }
        self.check(|| hash_key(key))
    }

    /// Notes the member `key` leads to; true when the key is to be kept
    /// (only where a repair below may need its pointer).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn note<E: de::Error>(&mut self, node: &'a Node, key: &str) -> Result<bool, E> {
        if !self.exact && !self.closed {
            self.member = node.member(key);
            return Ok(matches!(self.member, Member::Additional(_, true)));
        }
        // One lookup tells both where the member leads and whether a
        // closed object knows it.
        let name = node.names.find_next(key, &mut self.at);
        self.member = node.member_of(name);
        if self.exact {
            let Some(index) = name.and_then(Name::known) else {
                return Err(refused());
            };
            let bit = 1 << index;
            if self.given & bit != 0 {
                self.repeated = true;
                return Err(repeated_key());
            }
            self.given |= bit;
        } else if self.closed {
            if let Member::Skip = self.member {
                if node.known.is_some() && name.and_then(Name::known).is_none() {
                    return Err(refused());
                }
            }
        }
        if let (Some(masks), Some(index)) = (&node.branches, name.and_then(Name::known)) {
            // One of several closed objects: this name narrows which, and
            // the value of their tag does.
            self.branches &= masks[index];
            if self.branches == 0 {
                return Err(refused());
            }
            self.tag = node.tag.as_ref().is_some_and(|tag| tag.index == index);
        }
        Ok(matches!(self.member, Member::Additional(_, true)))
    }

    /// Keeps a key the input does not lend, in the reused buffer.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn keep(&mut self, key: &str) {
        match &mut self.key {
            Key::Owned(buffer) => {
                buffer.clear();
                buffer.push_str(key);
            }
            Key::Borrowed(_) => self.key = Key::Owned(key.to_owned()),
        }
    }

    /// Records a key's hash; an error when the object gave it before.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn check<E: de::Error>(&mut self, hash: impl FnOnce() -> u64) -> Result<(), E> {
        if self.check_keys && !self.seen.get_or_insert_with(Seen::default).add(hash()) {
            self.repeated = true;
            return Err(repeated_key());
        }
        Ok(())
    }

    /// The path of the value after the key, under `parent`, and its plan.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(super) fn target<'s>(&'s self, parent: &'s Path<'s>) -> Option<(Path<'s>, NodeId)> {
        target(self.member, self.key.as_str(), parent)
    }
}

/// The path of the value after a key (`member` of its object, `key` kept
/// when it is not a declared property), under `parent`, and its plan.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(super) fn target<'s>(
    member: Member<'s>,
    key: &'s str,
    parent: &'s Path<'s>,
) -> Option<(Path<'s>, NodeId)> {
    match member {
        Member::Skip => None,
        Member::Named(token, id) => Some((Path::Token { parent, token }, id)),
        // Without a rule below, the key was not kept: nothing below asks
        // for a pointer.
        Member::Additional(id, _) => Some((Path::Key { parent, key }, id)),
    }
}
