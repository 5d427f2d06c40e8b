//! The adapter: a serde `Deserializer`, and the visitors and accessors
//! below it, at each position of the plan. It wraps only what leads to a
//! tolerant position or a guard, and hands everything else to the target
//! type untouched.

use std::cell::Cell;
use std::fmt;

use serde::de::value::{
    BorrowedStrDeserializer, MapAccessDeserializer, StrDeserializer, StringDeserializer,
};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use super::ctx::Ctx;
use super::keys::*;
use crate::schema::constraint::{Assert, Num};
use crate::schema::plan::{Member, Node};
use crate::schema::pointer::{Path, Shared};
use crate::schema::types as ty;

impl Ctx<'_> {
    /// Deserializes `T` from `de`, applying the plan.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn deserialize<'de, T, D>(&self, de: D) -> Result<T, D::Error>
    where
        T: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        match self.plan.root() {
            None => T::deserialize(de),
            Some(node) => T::deserialize(De {
                de,
                node,
                ctx: self,
                path: &Path::Root,
            }),
        }
    }
}

/// A deserializer at a position of the plan.
struct De<'a, D> {
    de: D,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
}

impl<'a, D> De<'a, D> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visitor<V>(&self, inner: V, wrap: bool) -> Vis<'a, V> {
        Vis {
            inner,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
            wrap,
        }
    }
}

macro_rules! forward_deserialize {
    ($make:ident; $($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            let visitor = self.$make(visitor);
            self.de.$method($($arg,)* visitor)
        }
    )*};
}

impl<'a, D> De<'a, D> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn plain<V>(&self, inner: V) -> Vis<'a, V> {
        self.visitor(inner, false)
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for De<'_, D> {
    type Error = D::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, self.node.wrap_string);
        self.de.deserialize_any(visitor)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if self.node.wrap_string {
            // Ask for whatever is there, so that a string reaches the visitor.
            let visitor = self.visitor(visitor, true);
            self.de.deserialize_any(visitor)
        } else {
            let visitor = self.visitor(visitor, false);
            self.de.deserialize_seq(visitor)
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, false);
        if self.node.keys || self.node.items.is_some() || self.node.assert.is_some() {
            // A value the target skips is still walked where it may hold
            // objects and depth: a repeated key or a nesting past the bound
            // is refused wherever it is.
            self.de.deserialize_any(visitor)
        } else {
            self.de.deserialize_ignored_any(visitor)
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        if self.ctx.checks {
            // The enum is read as the value it is, so that its form is
            // checked as the schema here says: a unit variant's name as a
            // string, any other variant as a one-member object (closed to
            // the names the schema gives such objects).
            let visitor = self.plain(AsEnum(visitor));
            return self.de.deserialize_any(visitor);
        }
        let visitor = self.plain(visitor);
        self.de.deserialize_enum(name, variants, visitor)
    }

    with_deserialize_methods!(forward_deserialize! { plain; });

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// An enum's visitor given the value the enum was sent as: a string is the
/// name of a unit variant, a one-member object a variant and its content
/// (serde's two forms, as `serde_json` reads them). Anything else is
/// refused as the enum's visitor refuses it.
struct AsEnum<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for AsEnum<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        self.0.visit_enum(StrDeserializer::<E>::new(s))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        self.0.visit_enum(BorrowedStrDeserializer::<E>::new(s))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        self.0.visit_enum(StringDeserializer::<E>::new(s))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(MapAccessDeserializer::new(map))
    }
}

/// A visitor at a position of the plan; `wrap` is set when the target asked
/// for a sequence at a tolerant position.
struct Vis<'a, V> {
    inner: V,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
    wrap: bool,
}

impl<V> Vis<'_, V> {
    /// Fails unless the assertions here (if checked) vouch for the value.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check<E: de::Error>(&self, ok: impl FnOnce(&Assert) -> bool) -> Result<(), E> {
        match self.ctx.assert(self.node) {
            Some(assert) if !ok(assert) => Err(refused()),
            _ => Ok(()),
        }
    }

    /// A string here, or (`wrapped`) the one item a string at a tolerant
    /// position becomes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_str<E: de::Error>(&self, s: &str, wrapped: bool) -> Result<(), E> {
        if !wrapped {
            return self.check(|a| a.string(s));
        }
        self.check(|a| a.items(1, true))?;
        match self.node.items.map(|id| self.ctx.plan.node(id)) {
            Some(items) => match self.ctx.assert(items) {
                Some(assert) if !assert.string(s) => Err(refused()),
                _ => Ok(()),
            },
            None => Ok(()),
        }
    }
}

/// Visits of integers, checked against the assertions here.
macro_rules! checked_integer_visits {
    ($($method:ident($ty:ty) => $num:ident as $as:ty;)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.check(|a| a.number(Num::$num(v as $as)))?;
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Vis<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bytes(v: &[u8]); visit_borrowed_bytes(v: &'de [u8]); visit_byte_buf(v: Vec<u8>);
    }

    checked_integer_visits! {
        visit_i8(i8) => I as i64; visit_i16(i16) => I as i64; visit_i32(i32) => I as i64;
        visit_i64(i64) => I as i64; visit_u8(u8) => U as u64; visit_u16(u16) => U as u64;
        visit_u32(u32) => U as u64; visit_u64(u64) => U as u64;
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(v), _) => self.check(|a| a.number(Num::I(v)))?,
            (_, Ok(v)) => self.check(|a| a.number(Num::U(v)))?,
            _ => self.check(|_| false)?,
        }
        self.inner.visit_i128(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.check(|a| a.number(Num::U(v)))?,
            Err(_) => self.check(|_| false)?,
        }
        self.inner.visit_u128(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_f32<E: de::Error>(self, v: f32) -> Result<V::Value, E> {
        self.check(|a| a.number(Num::F(f64::from(v))))?;
        self.inner.visit_f32(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        if self.node.float32 && crate::schema::constraint::beyond_f32(v) {
            return Err(refused());
        }
        self.check(|a| a.number(Num::F(v)))?;
        self.inner.visit_f64(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.check(|a| a.boolean(v))?;
        self.inner.visit_bool(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_char<E: de::Error>(self, v: char) -> Result<V::Value, E> {
        self.check(|a| a.string(v.encode_utf8(&mut [0; 4])))?;
        self.inner.visit_char(v)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.check(Assert::null)?;
        self.inner.visit_none()
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.check(Assert::null)?;
        self.inner.visit_unit()
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        let wrap = self.wrap && self.ctx.accept(s, self.path)?;
        self.check_str(s, wrap)?;
        if wrap {
            self.inner
                .visit_seq(One(Some(StrDeserializer::<E>::new(s))))
        } else {
            self.inner.visit_str(s)
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        let wrap = self.wrap && self.ctx.accept(s, self.path)?;
        self.check_str(s, wrap)?;
        if wrap {
            self.inner
                .visit_seq(One(Some(BorrowedStrDeserializer::<E>::new(s))))
        } else {
            self.inner.visit_borrowed_str(s)
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        let wrap = self.wrap && self.ctx.accept(&s, self.path)?;
        self.check_str(&s, wrap)?;
        if wrap {
            self.inner
                .visit_seq(One(Some(StringDeserializer::<E>::new(s))))
        } else {
            self.inner.visit_string(s)
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(De {
            de,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(De {
            de,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
        })
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        if self.ctx.checks && self.node.refuses & ty::ARRAY != 0 {
            return Err(refused());
        }
        let assert = self.ctx.assert(self.node).filter(|a| a.on_arrays());
        match (self.node.items, assert) {
            // Nothing guarded below: the items cannot nest further.
            (None, None) => {
                self.ctx.room()?;
                self.inner.visit_seq(seq)
            }
            (Some(items), None) => {
                self.ctx.enter()?;
                let mut seq = Items {
                    seq,
                    items: self.ctx.plan.node(items),
                    ctx: self.ctx,
                    path: self.path,
                    index: 0,
                    shared: Shared::new(),
                };
                let value = self.inner.visit_seq(&mut seq);
                self.ctx.leave();
                value
            }
            (_, Some(assert)) => self.visit_checked_seq(seq, assert),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        if self.ctx.checks && self.node.refuses & ty::OBJECT != 0 {
            return Err(refused());
        }
        let check_keys = self.node.keys && self.ctx.check_keys;
        let assert = self.ctx.assert(self.node).filter(|a| a.on_objects());
        let closed = self.ctx.checks && self.node.known.is_some();
        if self.node.properties.is_empty()
            && self.node.additional.is_none()
            && !check_keys
            && assert.is_none()
            && !closed
        {
            // Nothing guarded below: the members cannot nest further.
            self.ctx.room()?;
            return self.inner.visit_map(map);
        }
        self.ctx.enter()?;
        let exact = closed
            && check_keys
            && self
                .node
                .known
                .as_ref()
                .is_some_and(|known| known.len() <= 64);
        // Built where it stays and lent, not moved: the type's visitor takes
        // its map by value, and copying a struct just written stalls more
        // than its keys cost.
        let mut map = Map {
            map,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
            slot: Slot::new(check_keys, closed, exact),
            assert,
            count: 0,
        };
        let value = self.inner.visit_map(&mut map);
        self.ctx.leave();
        value
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(Enum {
            data,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
        })
    }
}

impl<'a, V> Vis<'a, V> {
    /// An array whose count or items the schema asserts something of.
    #[inline(never)]
    fn visit_checked_seq<'de, A: SeqAccess<'de>>(
        self,
        seq: A,
        assert: &'a Assert,
    ) -> Result<V::Value, A::Error>
    where
        V: Visitor<'de>,
    {
        self.ctx.enter()?;
        let mut seq = Seq {
            seq,
            items: self.node.items.map(|id| self.ctx.plan.node(id)),
            ctx: self.ctx,
            path: self.path,
            index: 0,
            assert,
            shared: Shared::new(),
            unique: assert.unique().then(Seen::default),
        };
        let value = self.inner.visit_seq(&mut seq);
        self.ctx.leave();
        let value = value?;
        seq.finish()?;
        Ok(value)
    }
}

/// The one-element sequence a repaired string is presented as.
pub(super) struct One<D>(pub(super) Option<D>);

impl<'de, D: Deserializer<'de>> SeqAccess<'de> for One<D> {
    type Error = D::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, D::Error> {
        match self.0.take() {
            Some(de) => seed.deserialize(de).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.0.is_some()))
    }
}

/// A value to deserialize at a position of the plan.
pub(super) struct Seed<'a, S> {
    pub(super) seed: S,
    pub(super) node: &'a Node,
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) path: &'a Path<'a>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(De {
            de,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
        })
    }
}

/// The items of an array with a plan below them and nothing asserted of
/// the array itself.
struct Items<'a, A> {
    seq: A,
    items: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
    index: usize,
    /// The array's pointer, once an item needs it.
    shared: Shared,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<'_, A> {
    type Error = A::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let path = Path::Index {
            parent: self.path,
            index: self.index,
            shared: Some(&self.shared),
        };
        self.index += 1;
        self.seq.next_element_seed(Seed {
            seed,
            node: self.items,
            ctx: self.ctx,
            path: &path,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// The items of an array the schema asserts something of (a count,
/// distinct items), counted and hashed as they come.
struct Seq<'a, A> {
    seq: A,
    items: Option<&'a Node>,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
    /// Items read so far.
    index: usize,
    /// The assertions on this array.
    assert: &'a Assert,
    /// The items' hashes, when they must be distinct.
    unique: Option<Seen>,
    /// The array's pointer, once an item needs it.
    shared: Shared,
}

impl<A> Seq<'_, A> {
    /// After the last item: the count holds.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn finish<E: de::Error>(&mut self) -> Result<(), E> {
        if !self.assert.items(self.index as u64, true) {
            return Err(refused());
        }
        match self.unique.as_mut().map(Seen::finish) {
            Some(false) => Err(refused()),
            _ => Ok(()),
        }
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<'_, A> {
    type Error = A::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let path = Path::Index {
            parent: self.path,
            index: self.index,
            shared: Some(&self.shared),
        };
        let hash = Cell::new(None);
        let item = match (self.items, self.unique.is_some()) {
            (Some(node), false) => self.seq.next_element_seed(Seed {
                seed,
                node,
                ctx: self.ctx,
                path: &path,
            })?,
            (None, false) => self.seq.next_element_seed(seed)?,
            (Some(node), true) => self.seq.next_element_seed(Hashing {
                seed: Seed {
                    seed,
                    node,
                    ctx: self.ctx,
                    path: &path,
                },
                hash: &hash,
            })?,
            (None, true) => self.seq.next_element_seed(Hashing { seed, hash: &hash })?,
        };
        if item.is_some() {
            self.index += 1;
            if !self.assert.items(self.index as u64, false) {
                return Err(refused());
            }
            if let Some(seen) = &mut self.unique {
                // An item that is not a scalar is left to `jsonschema`.
                match hash.get() {
                    Some(hash) if seen.add(hash) => {}
                    _ => return Err(refused()),
                }
            }
        }
        Ok(item)
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

struct Map<'a, 'de, A> {
    map: A,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
    slot: Slot<'a, 'de>,
    /// The assertions on this object's member count, when checked.
    assert: Option<&'a Assert>,
    count: u64,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<'_, 'de, A> {
    type Error = A::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let key = match self.node.additional {
            // No key to check and none to look up: every member follows
            // `additional` (a map, or free JSON read from a `Value`).
            Some(id)
                if !self.slot.check_keys
                    && self.node.properties.is_empty()
                    && !self.node.additional_repairs =>
            {
                self.slot.member = Member::Additional(id, false);
                self.map.next_key_seed(seed)?
            }
            _ => self.keyed(seed)?,
        };
        if let Some(assert) = self.assert {
            self.count += u64::from(key.is_some());
            if !assert.members(self.count, key.is_none()) {
                return Err(refused());
            }
        }
        Ok(key)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key<K: Deserialize<'de>>(&mut self) -> Result<Option<K>, A::Error> {
        self.next_key_seed(std::marker::PhantomData)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value<V: Deserialize<'de>>(&mut self) -> Result<V, A::Error> {
        self.next_value_seed(std::marker::PhantomData)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if self.slot.tag {
            return self.next_tag_seed(seed);
        }
        match self.slot.target(self.path) {
            None => self.map.next_value_seed(seed),
            Some((path, id)) => self.map.next_value_seed(Seed {
                seed,
                node: self.ctx.plan.node(id),
                ctx: self.ctx,
                path: &path,
            }),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> Map<'_, 'de, A> {
    /// The value of a tagged union's tag: the objects this one may be
    /// narrow to the one it names.
    #[inline(never)]
    fn next_tag_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.slot.tag = false;
        let hash = Cell::new(None);
        let value = match self.slot.target(self.path) {
            None => self.map.next_value_seed(Hashing { seed, hash: &hash })?,
            Some((path, id)) => self.map.next_value_seed(Hashing {
                seed: Seed {
                    seed,
                    node: self.ctx.plan.node(id),
                    ctx: self.ctx,
                    path: &path,
                },
                hash: &hash,
            })?,
        };
        // The tag's own schema admitted the value (one of the tag's values,
        // whose hashes differ), so its hash names its object.
        let object = match (&self.node.tag, hash.get()) {
            (Some(tag), Some(hash)) => tag.object_of_hash(hash),
            _ => 0,
        };
        self.slot.branches &= object;
        if self.slot.branches == 0 {
            return Err(refused());
        }
        Ok(value)
    }

    /// The next key, read through the plan: its member noted, its hash
    /// checked.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn keyed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.slot.member = Member::Skip;
        let key = self.map.next_key_seed(KeySeed {
            seed,
            node: self.node,
            slot: &mut self.slot,
        });
        match key {
            Ok(None) => {
                if let Some(seen) = &mut self.slot.seen {
                    if !seen.finish() {
                        self.ctx.repeated.set(true);
                        return Err(repeated_key());
                    }
                }
                Ok(None)
            }
            Err(e) => {
                if self.slot.repeated {
                    self.ctx.repeated.set(true);
                }
                Err(e)
            }
            key => key,
        }
    }
}

/// An externally tagged enum: the variant name is a key of the merged plan.
struct Enum<'a, A> {
    data: A,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
}

impl<'a, 'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<'a, A> {
    type Error = A::Error;
    type Variant = Variant<'a, 'de, A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        let mut slot = Slot::new(false, false, false);
        let (value, variant) = self.data.variant_seed(KeySeed {
            seed,
            node: self.node,
            slot: &mut slot,
        })?;
        let Slot { member, key, .. } = slot;
        Ok((
            value,
            Variant {
                variant,
                member,
                key,
                ctx: self.ctx,
                path: self.path,
            },
        ))
    }
}

/// A variant's content, at the plan its name leads to (only the route is
/// kept: a variant's name is never checked for repeats).
struct Variant<'a, 'de, A> {
    variant: A,
    member: Member<'a>,
    key: Key<'de>,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'_, 'de, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        match target(self.member, self.key.as_str(), self.path) {
            None => self.variant.newtype_variant_seed(seed),
            Some((path, id)) => self.variant.newtype_variant_seed(Seed {
                seed,
                node: self.ctx.plan.node(id),
                ctx: self.ctx,
                path: &path,
            }),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        match target(self.member, self.key.as_str(), self.path) {
            None => self.variant.tuple_variant(len, visitor),
            Some((path, id)) => self.variant.tuple_variant(
                len,
                Vis {
                    inner: visitor,
                    node: self.ctx.plan.node(id),
                    ctx: self.ctx,
                    path: &path,
                    wrap: false,
                },
            ),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        match target(self.member, self.key.as_str(), self.path) {
            None => self.variant.struct_variant(fields, visitor),
            Some((path, id)) => self.variant.struct_variant(
                fields,
                Vis {
                    inner: visitor,
                    node: self.ctx.plan.node(id),
                    ctx: self.ctx,
                    path: &path,
                    wrap: false,
                },
            ),
        }
    }
}
