//! The tolerant deserializer: any serde `Deserializer` (JSON text, a
//! `&Value`), walked once and guided by a [`Plan`].
//!
//! Only the parts of the input that lead to a tolerant position are wrapped;
//! everything else is handed to the target type untouched, so a valid call
//! costs what plain serde costs. At a tolerant position, a string the target
//! wanted as a sequence is presented as a one-element sequence, and a
//! [`Repair`] is recorded. Pointers are built only when a repair or a
//! rejection needs one.

use std::cell::RefCell;
use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::plan::{Member, Node, NodeId, Plan};
use crate::pointer::Path;
use crate::repair::{Repair, RepairRule};
use crate::rule::{string_at_string_array, Verdict};

/// What to do with a string the rule refuses to wrap.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Fail at once: the caller diagnoses the call afterwards.
    Fast,
    /// Record it, leave the string in place and carry on, so that every
    /// violation can be listed.
    Collect,
}

/// State shared by one binding pass.
pub(crate) struct Ctx<'p> {
    plan: &'p Plan,
    repairs: RefCell<Vec<Repair>>,
    /// `Some` in [`Mode::Collect`]: the strings refused, by pointer.
    refused: Option<RefCell<Vec<(String, Verdict)>>>,
}

impl<'p> Ctx<'p> {
    pub(crate) fn new(plan: &'p Plan, mode: Mode) -> Self {
        Ctx {
            plan,
            repairs: RefCell::new(Vec::new()),
            refused: match mode {
                Mode::Fast => None,
                Mode::Collect => Some(RefCell::new(Vec::new())),
            },
        }
    }

    /// Deserializes `T` from `de`, applying the plan.
    #[inline(always)]
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

    /// Deserializes arguments whose top-level fields are routed by index
    /// (see [`Fields`]), applying the plan below them.
    #[inline(always)]
    pub(crate) fn deserialize_args<'de, A, D>(
        &self,
        de: D,
        slots: &[Option<u32>],
    ) -> Result<A, D::Error>
    where
        A: crate::__private::BindArgs,
        D: Deserializer<'de>,
    {
        match self.plan.root() {
            None => A::deserialize(de),
            Some(root) => A::bind_fields(
                de,
                Fields {
                    routes: Some(Routes {
                        ctx: self,
                        root,
                        slots,
                    }),
                },
            ),
        }
    }

    pub(crate) fn into_parts(self) -> (Vec<Repair>, Vec<(String, Verdict)>) {
        let refused = self.refused.map(RefCell::into_inner).unwrap_or_default();
        (self.repairs.into_inner(), refused)
    }

    #[inline(always)]
    pub(crate) fn into_repairs(self) -> Vec<Repair> {
        self.repairs.into_inner()
    }

    /// Applies the rule to a string found at a tolerant position: true when
    /// it is to be wrapped.
    fn accept<E: de::Error>(&self, s: &str, path: &Path<'_>) -> Result<bool, E> {
        match string_at_string_array(s) {
            Verdict::Wrap => {
                let repair = Repair::new(path.pointer(), RepairRule::ScalarToArray);
                let mut repairs = self.repairs.borrow_mut();
                if repairs.is_empty() {
                    // One allocation of the exact size, without the growth path.
                    *repairs = vec![repair];
                } else {
                    repairs.push(repair);
                }
                Ok(true)
            }
            refused => match &self.refused {
                None => Err(E::custom("canon: string refused at an array position")),
                Some(list) => {
                    list.borrow_mut()
                        .push((path.pointer().into_owned(), refused));
                    Ok(false)
                }
            },
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
    #[inline(always)]
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
        #[inline(always)]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            let visitor = self.$make(visitor);
            self.de.$method($($arg,)* visitor)
        }
    )*};
}

macro_rules! forward_all_but_any_and_seq {
    ($make:ident) => {
        forward_deserialize! {$make;
            deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
            deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16();
            deserialize_u32(); deserialize_u64(); deserialize_u128(); deserialize_f32();
            deserialize_f64(); deserialize_char(); deserialize_str(); deserialize_string();
            deserialize_bytes(); deserialize_byte_buf(); deserialize_option(); deserialize_unit();
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_map();
            deserialize_struct(name: &'static str, fields: &'static [&'static str]);
            deserialize_enum(name: &'static str, variants: &'static [&'static str]);
            deserialize_identifier(); deserialize_ignored_any();
        }
    };
}

impl<'a, D> De<'a, D> {
    #[inline(always)]
    fn plain<V>(&self, inner: V) -> Vis<'a, V> {
        self.visitor(inner, false)
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for De<'_, D> {
    type Error = D::Error;

    #[inline(always)]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let visitor = self.visitor(visitor, self.node.wrap_string);
        self.de.deserialize_any(visitor)
    }

    #[inline(always)]
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

    forward_all_but_any_and_seq!(plain);

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
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

macro_rules! forward_visit {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline(always)]
        fn $method<E: de::Error>(self, $($arg: $ty),*) -> Result<Self::Value, E> {
            self.inner.$method($($arg),*)
        }
    )*};
}

macro_rules! forward_scalar_visits {
    () => {
        forward_visit! {
            visit_bool(v: bool); visit_i8(v: i8); visit_i16(v: i16); visit_i32(v: i32);
            visit_i64(v: i64); visit_i128(v: i128); visit_u8(v: u8); visit_u16(v: u16);
            visit_u32(v: u32); visit_u64(v: u64); visit_u128(v: u128); visit_f32(v: f32);
            visit_f64(v: f64); visit_char(v: char); visit_bytes(v: &[u8]);
            visit_borrowed_bytes(v: &'de [u8]); visit_byte_buf(v: Vec<u8>);
            visit_none(); visit_unit();
        }
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Vis<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_scalar_visits!();

    #[inline(always)]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        if self.wrap && self.ctx.accept(s, self.path)? {
            self.inner
                .visit_seq(One(Some(StrDeserializer::<E>::new(s))))
        } else {
            self.inner.visit_str(s)
        }
    }

    #[inline(always)]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        if self.wrap && self.ctx.accept(s, self.path)? {
            self.inner
                .visit_seq(One(Some(BorrowedStrDeserializer::<E>::new(s))))
        } else {
            self.inner.visit_borrowed_str(s)
        }
    }

    #[inline(always)]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        if self.wrap && self.ctx.accept(&s, self.path)? {
            self.inner
                .visit_seq(One(Some(StringDeserializer::<E>::new(s))))
        } else {
            self.inner.visit_string(s)
        }
    }

    #[inline(always)]
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

    #[inline(always)]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        match self.node.items {
            None => self.inner.visit_seq(seq),
            Some(items) => self.inner.visit_seq(Seq {
                seq,
                items: self.ctx.plan.node(items),
                ctx: self.ctx,
                path: self.path,
                index: 0,
            }),
        }
    }

    #[inline(always)]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        if self.node.properties.is_empty() && self.node.additional.is_none() {
            return self.inner.visit_map(map);
        }
        self.inner.visit_map(Map {
            map,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
            slot: Slot::new(),
        })
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

/// The one-element sequence a repaired string is presented as.
struct One<D>(Option<D>);

impl<'de, D: Deserializer<'de>> SeqAccess<'de> for One<D> {
    type Error = D::Error;

    #[inline(always)]
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
struct Seed<'a, S> {
    seed: S,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(De {
            de,
            node: self.node,
            ctx: self.ctx,
            path: self.path,
        })
    }
}

struct Seq<'a, A> {
    seq: A,
    items: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
    index: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<'_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let path = Path::Index {
            parent: self.path,
            index: self.index,
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

/// Which plan the value after a key follows, and the key when it is not a
/// declared property (its text is kept in a buffer reused for every key).
struct Slot<'a> {
    member: Member<'a>,
    key: String,
}

impl<'a> Slot<'a> {
    fn new() -> Self {
        Slot {
            member: Member::Skip,
            key: String::new(),
        }
    }

    #[inline(always)]
    fn note(&mut self, node: &'a Node, key: &str) {
        self.member = node.member(key);
        if let Member::Additional(_) = self.member {
            self.key.clear();
            self.key.push_str(key);
        }
    }

    /// The path of the value after the key, under `parent`, and its plan.
    #[inline(always)]
    fn target<'s>(&'s self, parent: &'s Path<'s>) -> Option<(Path<'s>, NodeId)> {
        match self.member {
            Member::Skip => None,
            Member::Named(token, id) => Some((Path::Token { parent, token }, id)),
            Member::Additional(id) => Some((
                Path::Key {
                    parent,
                    key: &self.key,
                },
                id,
            )),
        }
    }
}

struct Map<'a, A> {
    map: A,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
    slot: Slot<'a>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<'_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.slot.member = Member::Skip;
        self.map.next_key_seed(KeySeed {
            seed,
            node: self.node,
            slot: &mut self.slot,
        })
    }

    #[inline(always)]
    fn next_key<K: Deserialize<'de>>(&mut self) -> Result<Option<K>, A::Error> {
        self.next_key_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value<V: Deserialize<'de>>(&mut self) -> Result<V, A::Error> {
        self.next_value_seed(std::marker::PhantomData)
    }

    #[inline(always)]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
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

/// Deserializes a map key (or an enum variant name) and notes which plan the
/// value after it follows.
struct KeySeed<'s, 'a, K> {
    seed: K,
    node: &'a Node,
    slot: &'s mut Slot<'a>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, K> {
    type Value = K::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDe {
            de,
            node: self.node,
            slot: self.slot,
        })
    }
}

struct KeyDe<'s, 'a, D> {
    de: D,
    node: &'a Node,
    slot: &'s mut Slot<'a>,
}

macro_rules! forward_key_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline(always)]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            let visitor = KeyVis { inner: visitor, node: self.node, slot: self.slot };
            self.de.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<'_, '_, D> {
    type Error = D::Error;

    forward_key_deserialize! {
        deserialize_any(); deserialize_seq();
        deserialize_bool(); deserialize_i8(); deserialize_i16(); deserialize_i32();
        deserialize_i64(); deserialize_i128(); deserialize_u8(); deserialize_u16();
        deserialize_u32(); deserialize_u64(); deserialize_u128(); deserialize_f32();
        deserialize_f64(); deserialize_char(); deserialize_str(); deserialize_string();
        deserialize_bytes(); deserialize_byte_buf(); deserialize_option(); deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier(); deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

struct KeyVis<'s, 'a, V> {
    inner: V,
    node: &'a Node,
    slot: &'s mut Slot<'a>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVis<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_scalar_visits!();

    #[inline(always)]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        self.slot.note(self.node, s);
        self.inner.visit_str(s)
    }

    #[inline(always)]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        self.slot.note(self.node, s);
        self.inner.visit_borrowed_str(s)
    }

    #[inline(always)]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        self.slot.note(self.node, &s);
        self.inner.visit_string(s)
    }

    #[inline(always)]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(de)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(de)
    }

    #[inline(always)]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(seq)
    }

    #[inline(always)]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
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
    type Variant = Variant<'a, A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), A::Error> {
        let mut slot = Slot::new();
        let (value, variant) = self.data.variant_seed(KeySeed {
            seed,
            node: self.node,
            slot: &mut slot,
        })?;
        Ok((
            value,
            Variant {
                variant,
                slot,
                ctx: self.ctx,
                path: self.path,
            },
        ))
    }
}

struct Variant<'a, A> {
    variant: A,
    slot: Slot<'a>,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Variant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.variant.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        match self.slot.target(self.path) {
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
        match self.slot.target(self.path) {
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
        match self.slot.target(self.path) {
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

/// The plan of each top-level field of an arguments struct, by field index.
///
/// Code generated by `#[tool]` matches each key to its field once (as serde's
/// derive would) and asks this for the field's value, so the top level pays
/// no second lookup of the key. Fields with no tolerant position below them
/// are deserialized exactly as serde would.
pub struct Fields<'a> {
    routes: Option<Routes<'a>>,
}

struct Routes<'a> {
    ctx: &'a Ctx<'a>,
    root: &'a Node,
    slots: &'a [Option<u32>],
}

impl Fields<'static> {
    /// No plan: every field deserializes exactly as serde would.
    pub fn plain() -> Self {
        Fields { routes: None }
    }
}

impl Fields<'_> {
    /// Deserializes the value of field `index` from `map`.
    ///
    /// # Errors
    /// The map's error when the value does not deserialize.
    ///
    /// `pointer` is the field's RFC 6901 pointer (`/name`, escaped), known
    /// at compile time.
    #[inline(always)]
    pub fn value<'de, T, A>(
        &self,
        map: &mut A,
        index: usize,
        pointer: &'static str,
    ) -> Result<T, A::Error>
    where
        T: Deserialize<'de>,
        A: MapAccess<'de>,
    {
        let Some(routes) = &self.routes else {
            return map.next_value();
        };
        match routes.slots.get(index).copied().flatten() {
            None => map.next_value(),
            Some(slot) => {
                let property = &routes.root.properties[slot as usize];
                let path = Path::Static { pointer };
                map.next_value_seed(Seed {
                    seed: std::marker::PhantomData,
                    node: routes.ctx.plan.node(property.id),
                    ctx: routes.ctx,
                    path: &path,
                })
            }
        }
    }
}
