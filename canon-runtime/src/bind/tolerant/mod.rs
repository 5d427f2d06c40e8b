//! The tolerant deserializer: any serde `Deserializer` (JSON text, a
//! `&Value`), walked once and guided by a [`Plan`].
//!
//! Only the parts of the input that lead to a tolerant position or a guard
//! (an array or object position of a binding plan) are wrapped; everything
//! else, scalars above all, is handed to the target type untouched, so a
//! valid call costs what plain serde costs. At a tolerant position, a string
//! the target wanted as a sequence is presented as a one-element sequence,
//! and a [`Repair`] is recorded. At a guard, the array or object counts
//! against the depth bound and, in JSON text, an object's keys are
//! remembered as hashes (in a closed object of at most 64 names, as the bit
//! of each name): a key given twice (or two keys whose hashes collide) stops
//! the pass, and the caller reads the text exactly. Pointers are built only
//! when a repair or a rejection needs one, from keys borrowed from the input
//! where it lends them.

use fields::Routes;
pub use fields::{BindArgs, Fields};
use keys::*;
pub(crate) use plain::{read_object, Object, Wraps, MAX_SEARCHES};
use std::cell::{Cell, RefCell};
use std::fmt;
pub(crate) use value::read as read_value;
#[cfg(test)]
use value::vouches;
pub(crate) use value::vouches_wrapping;

use serde::de::value::{
    BorrowedStrDeserializer, MapAccessDeserializer, StrDeserializer, StringDeserializer,
};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::bind::rule::{string_at_string_array, Refusal, Verdict};
use crate::repair::{Repair, RepairRule};
use crate::schema::constraint::{Assert, Num};
use crate::schema::plan::{Member, Name, Node, NodeId, Plan};
use crate::schema::pointer::{Path, Shared};
use crate::schema::types as ty;

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
    /// Repairs past `max_repairs`, counted and not kept: the call is refused.
    more_repairs: Cell<usize>,
    max_repairs: usize,
    /// `Some` in [`Mode::Collect`]: the strings refused, and where.
    refused: Option<RefCell<Vec<Refusal>>>,
    /// The arrays and objects entered at guarded positions, and how many
    /// may be open at once.
    depth: Cell<usize>,
    max_depth: usize,
    /// Objects' keys are checked for repeats (JSON text: a `Value` cannot
    /// hold a key twice).
    check_keys: bool,
    /// The pass failed on a key whose hash was seen before in its object:
    /// the text is to be looked at exactly.
    repeated: Cell<bool>,
    /// The schema's assertions (bounds, lengths, patterns, counts, values,
    /// closed objects) are checked: on in [`Mode::Fast`], off where the
    /// call is known to be valid or every violation is being collected.
    checks: bool,
}

impl<'p> Ctx<'p> {
    pub(crate) fn new(plan: &'p Plan, mode: Mode) -> Self {
        Ctx {
            plan,
            repairs: RefCell::new(Vec::new()),
            more_repairs: Cell::new(0),
            max_repairs: usize::MAX,
            refused: match mode {
                Mode::Fast => None,
                Mode::Collect => Some(RefCell::new(Vec::new())),
            },
            depth: Cell::new(0),
            max_depth: usize::MAX,
            check_keys: false,
            repeated: Cell::new(false),
            checks: mode == Mode::Fast,
        }
    }

    /// Binds a call `jsonschema` has accepted: the schema's assertions are
    /// not checked again (the range of 32-bit floats, which is what binding
    /// itself means, still holds).
    pub(crate) fn trusting(mut self) -> Self {
        self.checks = false;
        self
    }

    /// The assertions at `node`, when they are checked.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn assert<'n>(&self, node: &'n Node) -> Option<&'n Assert> {
        match &node.assert {
            Some(assert) if self.checks => Some(assert),
            _ => None,
        }
    }

    /// Refuses arrays and objects nested deeper than `max_depth` at guarded
    /// positions.
    pub(crate) fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Refuses a key given twice in an object at a guarded position (for
    /// JSON text).
    pub(crate) fn checking_keys(mut self) -> Self {
        self.check_keys = true;
        self
    }

    /// True when the pass failed on a key that may have been given twice.
    pub(crate) fn saw_repeated_key(&self) -> bool {
        self.repeated.get()
    }

    /// Enters an array or object, failing past the depth bound.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enter<E: de::Error>(&self) -> Result<(), E> {
        self.room()?;
        self.depth.set(self.depth.get() + 1);
        Ok(())
    }

    /// Fails when one more array or object would pass the depth bound.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn room<E: de::Error>(&self) -> Result<(), E> {
        if self.depth.get() >= self.max_depth {
            return Err(E::custom("canon: nested deeper than the bound"));
        }
        Ok(())
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn leave(&self) {
        self.depth.set(self.depth.get() - 1);
    }

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

    /// Deserializes arguments whose top-level fields are routed by index
    /// (see [`Fields`]), applying the plan below them.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn deserialize_args<'de, A, D>(
        &self,
        de: D,
        slots: &[Option<u32>],
    ) -> Result<A, D::Error>
    where
        A: BindArgs,
        D: Deserializer<'de>,
    {
        match self.args_fields(slots) {
            Some(fields) => A::bind_fields(de, fields),
            None => Err(de::Error::custom("canon: nested deeper than the bound")),
        }
    }

    /// Where the arguments' fields get their values (plain, with no plan),
    /// the arguments object itself entered; `None` when no object may be
    /// entered. Compiled once, whatever the arguments type.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn args_fields<'a>(&'a self, slots: &'a [Option<u32>]) -> Option<Fields<'a>> {
        let Some(root) = self.plan.root() else {
            // As `A::deserialize`, which is the plain reading.
            return Some(Fields::PLAIN);
        };
        // The arguments object itself, matched by the generated code.
        if self.depth.get() >= self.max_depth {
            return None;
        }
        self.depth.set(1);
        Some(Fields::routed(Routes {
            ctx: self,
            root,
            slots,
        }))
    }

    pub(crate) fn into_parts(self) -> (Vec<Repair>, Vec<Refusal>) {
        let refused = self.refused.map(RefCell::into_inner).unwrap_or_default();
        (self.repairs.into_inner(), refused)
    }

    /// The repairs made, and how many there were (past
    /// [`with_max_repairs`](Self::with_max_repairs) they are counted, not
    /// kept).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn into_repairs(self) -> (Vec<Repair>, usize) {
        let more = self.more_repairs.get();
        let repairs = self.repairs.into_inner();
        let n = repairs.len() + more;
        (repairs, n)
    }

    /// Keeps at most one repair more than `max_repairs` (enough to tell
    /// the call needs too many), counting the others.
    pub(crate) fn with_max_repairs(mut self, max_repairs: usize) -> Self {
        self.max_repairs = max_repairs;
        self
    }

    /// Applies the rule to a string found at a tolerant position: true when
    /// it is to be wrapped.
    fn accept<E: de::Error>(&self, s: &str, path: &Path<'_>) -> Result<bool, E> {
        match string_at_string_array(s) {
            Verdict::Wrap => {
                let mut repairs = self.repairs.borrow_mut();
                if repairs.len() > self.max_repairs {
                    self.more_repairs.set(self.more_repairs.get() + 1);
                    return Ok(true);
                }
                let repair = Repair::new(path.pointer(), RepairRule::ScalarToArray);
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
                    let (at, index) = path.shared();
                    list.borrow_mut().push(Refusal {
                        at,
                        index,
                        verdict: refused,
                    });
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

/// Passes `$forward!` the tokens `$head`, then every method of serde's
/// `Deserializer` but `deserialize_any`, `deserialize_seq`,
/// `deserialize_ignored_any` and `deserialize_enum` (which a wrapper either
/// treats apart or lists in `$head`): one list for every wrapper that
/// forwards them.
macro_rules! with_deserialize_methods {
    ($forward:ident! { $($head:tt)* }) => {
        $forward! { $($head)*
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
            deserialize_identifier();
        }
    };
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

macro_rules! forward_visit {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<E: de::Error>(self, $($arg: $ty),*) -> Result<Self::Value, E> {
            self.inner.$method($($arg),*)
        }
    )*};
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
struct Seed<'a, S> {
    seed: S,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    path: &'a Path<'a>,
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

/// Which plan the value after a key follows, and the key when it is not a
/// declared property and a repair below may need its pointer.
struct Slot<'a, 'de> {
    member: Member<'a>,
    key: Key<'de>,
    /// This object's keys are checked for repeats.
    check_keys: bool,
    /// The keys hashed so far, once one is (an object that tells its
    /// names exactly hashes none of them).
    seen: Option<Seen>,
    /// A key was refused as given before.
    repeated: bool,
    /// Keys the object's schema does not declare are refused.
    closed: bool,
    /// The object is closed with at most 64 names and its keys are
    /// checked: a string key given twice is told exactly by the bit of its
    /// name in `given`, without hashing it.
    exact: bool,
    given: u64,
    /// Of a union of closed objects ([`Node::branches`]), the ones every
    /// name so far belongs to.
    branches: u64,
    /// The value after the key is the union's tag.
    tag: bool,
    /// Where the next name is looked for first ([`Names::find_next`]).
    ///
    /// [`Names::find_next`]: crate::schema::plan::Names::find_next
    at: usize,
}

/// A key kept for a pointer: borrowed from the input when the input lends
/// it (JSON text without escapes, a `Value`), else copied into a buffer
/// reused for every key of the object.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(key) => key,
            Key::Owned(key) => key,
        }
    }
}

impl<'a, 'de> Slot<'a, 'de> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn new(check_keys: bool, closed: bool, exact: bool) -> Self {
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
    fn check_str<E: de::Error>(&mut self, key: &str) -> Result<(), E> {
        if self.exact {
            return Ok(());
        }
        self.check(|| hash_key(key))
    }

    /// Notes the member `key` leads to; true when the key is to be kept
    /// (only where a repair below may need its pointer).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn note<E: de::Error>(&mut self, node: &'a Node, key: &str) -> Result<bool, E> {
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
    fn keep(&mut self, key: &str) {
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
    fn check<E: de::Error>(&mut self, hash: impl FnOnce() -> u64) -> Result<(), E> {
        if self.check_keys && !self.seen.get_or_insert_with(Seen::default).add(hash()) {
            self.repeated = true;
            return Err(repeated_key());
        }
        Ok(())
    }

    /// The path of the value after the key, under `parent`, and its plan.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn target<'s>(&'s self, parent: &'s Path<'s>) -> Option<(Path<'s>, NodeId)> {
        target(self.member, self.key.as_str(), parent)
    }
}

/// The path of the value after a key (`member` of its object, `key` kept
/// when it is not a declared property), under `parent`, and its plan.
#[cfg_attr(not(debug_assertions), inline(always))]
fn target<'s>(
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

// After the macros above, which they use.
mod fields;
mod keys;
mod plain;
#[cfg(test)]
pub(crate) mod tests;
mod value;
