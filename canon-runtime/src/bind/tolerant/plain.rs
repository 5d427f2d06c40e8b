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
//! Below the arguments object, each value is read as serde_json reads a
//! `&Value` ([`ValueRef`]: the same visits, the same keys, the same errors
//! where it matters, which is whether there is one), by readers of canon's
//! own where a string may be asked for as a sequence: arrays, objects and
//! options. A valid call costs what serde_json's reader costs.
//!
//! The plain read also binds the commonest near miss in the same walk: a
//! string sent where the schema says array of strings. Where the type asks
//! for a sequence, serde_json would refuse a string; here, when the reader
//! was given the plan ([`Wraps`]), the string's position is found (among
//! the parameters by the string's own address; below them from the arrays
//! and objects being read around it, each of which leaves its address on
//! the stack of the read: [`Frame`]) and followed through the plan and, at
//! a tolerant position the rule accepts, the string is presented as a
//! one-element sequence with the repair recorded, exactly as the adapter
//! presents it. Only that branch, which a valid call never takes, does any
//! work beyond the frames' two words a container.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::{Map, Value};

use super::adapter::One;
use super::fields::{BindArgs, Fields};
use super::value::wraps_string;
use crate::repair::{Repair, RepairRule, Repairs};
use crate::schema::plan::{Member, Plan};
use crate::schema::pointer::{escape, push_index};

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

/// A `#[tool]` arguments type's members as a plain read that wraps needs
/// them, kept once per spec: their names and pointers ([`BindArgs`]) and
/// the plan slot of each ([`Fields`]' routes).
#[derive(Debug)]
pub(crate) struct Params {
    /// [`BindArgs::FIELDS`].
    pub(crate) names: &'static [&'static str],
    /// [`BindArgs::POINTERS`], which a repair at a parameter borrows.
    pub(crate) pointers: &'static [&'static str],
    /// The plan slot of each member.
    pub(crate) slots: Box<[Option<u32>]>,
}

/// The plan, for a plain read that binds a string where the schema says
/// array of strings as the adapter would, and the repairs it made: for a
/// plan whose positions assert nothing but types (a `#[tool]`'s whose type
/// checks everything the plan would, [`Plan::typed_depth`]), or a call the
/// look vouched for, those strings included. Either way what the adapter
/// checks of such a string is checked again here ([`wraps_string`]).
pub(crate) struct Wraps<'p> {
    plan: &'p Plan,
    /// How deep the plan's positions go: a string deeper is at none that
    /// is read.
    depth: usize,
    /// The call, where a string's position is searched for.
    object: &'p Map<String, Value>,
    /// The arguments' members, their pointers and plan slots.
    params: &'p Params,
    /// The searches made; past [`MAX_SEARCHES`] the call is left to the
    /// adapter, whose walk is linear in the call whatever it holds.
    searches: Cell<usize>,
    repairs: RefCell<Repairs>,
    /// The plan is read as typed because the type was seen to check what
    /// it asserts beyond types ([`vouch`](super::vouch)): the forms serde
    /// reads that the schema does not admit are refused here (a struct
    /// from an array, a unit variant from an object, a member a struct
    /// ignores).
    vouched: bool,
    /// While the type is seen ([`vouch`](super::vouch)): each struct and
    /// `enum` read, where it was read and the names it reads.
    seen: Option<&'p RefCell<Vec<Seen>>>,
}

/// A struct or an `enum` read by the type ([`Wraps::seen`]): the address
/// of its value in the call, and the names the type reads there (every
/// field or variant name and alias serde's derive passes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen {
    pub(crate) at: usize,
    pub(crate) names: &'static [&'static str],
}

/// How many strings one plain read looks for in the call.
pub(crate) const MAX_SEARCHES: usize = 8;

/// One step from a value to a member or item of it.
#[derive(Clone, Copy)]
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

impl<'p> Wraps<'p> {
    /// The plan of a `#[tool]`'s arguments (whose members, their pointers
    /// and plan slots are `params`), for the call `object`; `depth`: how
    /// deep the plan's positions go (or the call is looked at). A plan
    /// without a root wraps nothing.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn new(
        plan: &'p Plan,
        params: &'p Params,
        object: &'p Map<String, Value>,
        depth: usize,
    ) -> Self {
        Wraps {
            plan,
            params,
            depth,
            object,
            searches: Cell::new(0),
            repairs: RefCell::new(Repairs::new()),
            vouched: false,
            seen: None,
        }
    }

    /// The same plan, read as typed because the type was seen to check
    /// what the plan asserts beyond types; with `seen`, while it is seen.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn vouched(mut self, seen: Option<&'p RefCell<Vec<Seen>>>) -> Self {
        self.vouched = true;
        self.seen = seen;
        self
    }

    /// Notes that the type read a struct or an `enum` from `value` with
    /// `names`, while it is seen.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn saw(&self, value: &Value, names: &'static [&'static str]) {
        if let Some(seen) = self.seen {
            note(seen, value, names);
        }
    }

    /// The repairs made, in the order the call was read.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn into_repairs(self) -> Repairs {
        self.repairs.into_inner()
    }

    /// Whether the string `s` of the call, where the type asked for a
    /// sequence, is to be bound as a one-element sequence: it sits at a
    /// tolerant position of the plan and the rule accepts it. If so, the
    /// repair is recorded.
    ///
    /// `value` holds `s`; `up` holds the arrays and objects being read
    /// around it (innermost first), `None` for a member of the arguments
    /// object.
    #[cold]
    #[inline(never)]
    fn wrap(&self, value: &Value, s: &str, up: Option<&Frame<'_>>) -> bool {
        // Empty strings share an address, and the rule refuses them: they
        // are not searched for (`wraps_string` asks the rule, with the plan).
        if s.is_empty() || self.searches.get() >= MAX_SEARCHES {
            return false;
        }
        self.searches.set(self.searches.get() + 1);
        // A parameter's own string, the commonest, is among the members:
        // its plan is the parameter's, and its pointer borrowed.
        let member = match up {
            None => self.object.iter().find(|(_, value)| is(value, s)),
            Some(_) => None,
        };
        if let Some((key, _)) = member {
            let params = self.params;
            let Some(i) = params.names.iter().position(|name| name == key) else {
                return false;
            };
            let Some(slot) = params.slots.get(i).copied().flatten() else {
                return false;
            };
            let Some(root) = self.plan.root() else {
                return false;
            };
            let node = self.plan.node(root.properties[slot as usize].id);
            let pointer = match params.pointers.get(i) {
                Some(pointer) => Cow::Borrowed(*pointer),
                None => self.pointer([Step::Key(key)].into_iter()),
            };
            return wraps_string(self.plan, node, s) && self.record(pointer);
        }
        // Below a member: the containers read around it lead there from
        // the arguments object, each found in its parent by its address.
        // Past [`MAX_FRAMES`] containers (or should they not lead there),
        // it is searched for.
        let mut chain = Chain::new(address(value));
        if up.is_some_and(|up| chain.lead(self.object, up)) {
            return self.follow(chain.down(), chain.room, s);
        }
        let mut path = Steps::new();
        find(self.object, s, self.depth, &mut path) && self.follow(path.down(), path.room, s)
    }

    /// Whether the string `s`, at the end of `path` (with `room` for its
    /// pointer), is to be bound as a one-element sequence, one step a
    /// level of the plan; if so, the repair is recorded. The pointer is
    /// written as the plan is followed, a declared name as the plan's
    /// token (escaped once, when the plan was compiled).
    fn follow<'v>(&self, path: impl Iterator<Item = Step<'v>>, room: usize, s: &str) -> bool {
        let Some(mut node) = self.plan.root() else {
            return false;
        };
        let mut pointer = String::with_capacity(room);
        for step in path {
            pointer.push('/');
            let id = match step {
                Step::Key(key) => match node.member(key) {
                    Member::Named(token, id) => {
                        pointer.push_str(token);
                        id
                    }
                    Member::Additional(id, _) => {
                        pointer.push_str(&escape(key));
                        id
                    }
                    Member::Skip => return false,
                },
                Step::Index(i) => match node.items {
                    Some(id) => {
                        push_index(&mut pointer, i);
                        id
                    }
                    None => return false,
                },
            };
            node = self.plan.node(id);
        }
        wraps_string(self.plan, node, s) && self.record(Cow::Owned(pointer))
    }

    /// Records the repair at `pointer`: true. Inlined in the cold code
    /// that wraps, which has already paid for a frame of its own.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn record(&self, pointer: Cow<'static, str>) -> bool {
        // The first is held in place: a near miss allocates no list.
        let repair = Repair::new(pointer, RepairRule::ScalarToArray);
        self.repairs.borrow_mut().push(repair);
        true
    }

    /// The pointer of `path`, written.
    fn pointer<'v>(&self, path: impl Iterator<Item = Step<'v>> + Clone) -> Cow<'static, str> {
        Cow::Owned(pointer_of(path))
    }
}

/// [`Wraps::saw`], out of the read's way.
#[cold]
#[inline(never)]
fn note(seen: &RefCell<Vec<Seen>>, value: &Value, names: &'static [&'static str]) {
    seen.borrow_mut().push(Seen {
        at: value as *const Value as usize,
        names,
    });
}

/// Whether a read of a call is of a vouched plan ([`Wraps::vouched`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn vouched(wraps: Option<&Wraps<'_>>) -> bool {
    wraps.is_some_and(|wraps| wraps.vouched)
}

/// What a vouched read refuses: a form the schema does not admit.
#[cold]
#[inline(never)]
fn unadmitted() -> serde_json::Error {
    serde::de::Error::custom("canon: a form the schema does not admit")
}

/// Room for the pointer step `step` with its key escaped (an escape
/// doubles a character at most), so that a pointer is written in one
/// allocation.
fn room(step: Step<'_>) -> usize {
    match step {
        Step::Key(key) => 1 + 2 * key.len(),
        Step::Index(_) => 21,
    }
}

/// The pointer of `path`, written in one allocation.
fn pointer_of<'v>(path: impl Iterator<Item = Step<'v>> + Clone) -> String {
    let mut pointer = String::with_capacity(path.clone().map(room).sum());
    for step in path {
        pointer.push('/');
        match step {
            Step::Key(key) => pointer.push_str(&escape(key)),
            Step::Index(i) => push_index(&mut pointer, i),
        }
    }
    pointer
}

/// Whether `value` is the string `s` itself (the same bytes at the same
/// address).
#[inline]
fn is(value: &Value, s: &str) -> bool {
    matches!(value, Value::String(t) if std::ptr::eq(t.as_str(), s))
}

/// How many steps of a path [`Steps`] keeps on the stack.
const INLINE_STEPS: usize = 8;

/// The steps to a string of the call, pushed from the string up: on the
/// stack for a path as deep as most calls go, so that a search allocates
/// nothing.
struct Steps<'v> {
    inline: [Step<'v>; INLINE_STEPS],
    len: usize,
    /// Room for the pointer of the steps ([`room`]).
    room: usize,
    /// The steps past the first [`INLINE_STEPS`].
    more: Vec<Step<'v>>,
}

impl<'v> Steps<'v> {
    fn new() -> Self {
        Steps {
            inline: [Step::Index(0); INLINE_STEPS],
            len: 0,
            room: 0,
            more: Vec::new(),
        }
    }

    fn push(&mut self, step: Step<'v>) {
        self.room += room(step);
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = step,
            None => self.more.push(step),
        }
        self.len += 1;
    }

    /// The steps from the arguments object down to the string.
    fn down(&self) -> impl Iterator<Item = Step<'v>> + Clone + '_ {
        (0..self.len).rev().map(|i| match self.inline.get(i) {
            Some(step) => *step,
            None => self.more[i - INLINE_STEPS],
        })
    }
}

/// An array or object being read by canon's reader ([`ValueRef`]), and
/// the one being read around it: the way from the arguments object down
/// to a string, kept as it is read at the cost of two words a container,
/// so that a string to bind as a sequence is found without a search.
pub(crate) struct Frame<'f> {
    /// The address of the container's `Value`.
    at: usize,
    up: Option<&'f Frame<'f>>,
}

impl<'f> Frame<'f> {
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn new(value: &Value, up: Option<&'f Frame<'f>>) -> Self {
        Frame {
            at: address(value),
            up,
        }
    }
}

/// The address of a value of the call.
#[cfg_attr(not(debug_assertions), inline(always))]
fn address(value: &Value) -> usize {
    value as *const Value as usize
}

/// How many containers [`Chain`] follows; a string deeper is searched for.
const MAX_FRAMES: usize = 4;

/// The steps from the arguments object down to a value, found from the
/// containers read around it ([`Frame`]).
struct Chain<'v> {
    /// The addresses of the value and of its containers, innermost first;
    /// then, once led, the steps down to it, outermost first.
    at: [usize; MAX_FRAMES + 1],
    steps: [Step<'v>; MAX_FRAMES + 1],
    len: usize,
    /// Room for the pointer of the steps ([`room`]).
    room: usize,
}

impl<'v> Chain<'v> {
    /// The chain to the value at the address `value`.
    fn new(value: usize) -> Self {
        Chain {
            at: [value; MAX_FRAMES + 1],
            steps: [Step::Index(0); MAX_FRAMES + 1],
            len: 1,
            room: 0,
        }
    }

    /// Follows the containers `up` (innermost first) down from `object`,
    /// each container, and then the value, found in its parent by its
    /// address (an item's index computed from it): false when they do not
    /// lead there from `object`, or are more than [`MAX_FRAMES`].
    fn lead(&mut self, object: &'v Map<String, Value>, up: &Frame<'_>) -> bool {
        let mut frame = Some(up);
        while let Some(at) = frame {
            let Some(slot) = self.at.get_mut(self.len) else {
                return false;
            };
            *slot = at.at;
            self.len += 1;
            frame = at.up;
        }
        let mut members = Some(object);
        let mut items: &'v [Value] = &[];
        for (step, &target) in self.steps.iter_mut().zip(self.at[..self.len].iter().rev()) {
            let found = match members {
                Some(members) => members
                    .iter()
                    .find(|(_, value)| address(value) == target)
                    .map(|(key, value)| (Step::Key(key), value)),
                None => item_at(items, target),
            };
            let Some((to, value)) = found else {
                return false;
            };
            *step = to;
            self.room += room(to);
            (members, items) = match value {
                Value::Object(next) => (Some(next), &[][..]),
                Value::Array(next) => (None, next.as_slice()),
                _ => (None, &[][..]),
            };
        }
        true
    }

    /// The steps, from the arguments object down.
    fn down(&self) -> impl Iterator<Item = Step<'v>> + Clone + '_ {
        self.steps[..self.len].iter().copied()
    }
}

/// The item of `items` at the address `target`, and its index, computed
/// from the address.
fn item_at(items: &[Value], target: usize) -> Option<(Step<'_>, &Value)> {
    let offset = target.checked_sub(items.as_ptr() as usize)?;
    let size = std::mem::size_of::<Value>();
    let item = items.get(offset / size)?;
    (address(item) == target).then_some((Step::Index(offset / size), item))
}

/// The steps from `object` to the string value that is `s` itself, at
/// most `depth` arrays and objects below it, pushed onto `path` from the
/// string up (reversed): true when it was found. The walk compares
/// addresses, and calls itself only for arrays and objects; the steps are
/// pushed as it returns from the string. The recursion is as deep as the
/// plan, not as the call.
fn find<'v>(object: &'v Map<String, Value>, s: &str, depth: usize, path: &mut Steps<'v>) -> bool {
    let depth = depth.saturating_sub(1);
    for (key, value) in object {
        if found(value, s, depth, path) {
            path.push(Step::Key(key));
            return true;
        }
    }
    false
}

/// Whether `value`, with `depth` arrays and objects below it searched, is
/// or holds the string `s` (see [`find`]).
#[cfg_attr(not(debug_assertions), inline(always))]
fn found<'v>(value: &'v Value, s: &str, depth: usize, path: &mut Steps<'v>) -> bool {
    match value {
        Value::String(t) => std::ptr::eq(t.as_str(), s),
        Value::Array(items) if depth > 0 => find_item(items, s, depth, path),
        Value::Object(members) if depth > 0 => find(members, s, depth, path),
        _ => false,
    }
}

/// [`find`] in the items of an array.
fn find_item<'v>(items: &'v [Value], s: &str, depth: usize, path: &mut Steps<'v>) -> bool {
    let depth = depth - 1;
    for (i, item) in items.iter().enumerate() {
        if found(item, s, depth, path) {
            path.push(Step::Index(i));
            return true;
        }
    }
    false
}

/// An object of a `Value`, read as a map whatever the type asks for.
pub(crate) struct Object<'de, 'w> {
    map: &'de Map<String, Value>,
    wraps: Option<&'w Wraps<'w>>,
}

impl<'de, 'w> Object<'de, 'w> {
    /// The object `map`, read plainly or (`wraps`) binding a string where
    /// the schema says array of strings as a sequence.
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

/// The members of the arguments object, each key as a borrowed string and
/// each value as serde_json reads a `&Value` ([`ValueRef`]), or through the
/// plan where the arguments' [`Fields`] route it.
pub(super) struct Members<'de, 'w> {
    members: serde_json::map::Iter<'de>,
    /// The value of the key last read.
    value: Option<&'de Value>,
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

impl<'de> MapAccess<'de> for Members<'de, '_> {
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
        seed.deserialize(BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        let Some(value) = self.value.take() else {
            return Err(missing_value());
        };
        seed.deserialize(ValueRef::new(value, self.wraps))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// A value of the call, read as serde_json reads a `&Value`, but for a
/// string where the type asks for a sequence (see [`Wraps`]). Arrays,
/// objects and options are read by canon's readers, as serde_json's read
/// them, so that a string below them can be seen; every other form is read
/// by serde_json's own reader.
pub(crate) struct ValueRef<'de, 'w> {
    value: &'de Value,
    wraps: Option<&'w Wraps<'w>>,
    /// The arrays and objects being read around this value.
    up: Option<&'w Frame<'w>>,
}

impl<'de, 'w> ValueRef<'de, 'w> {
    /// A member of the arguments object, read plainly or (`wraps`) binding
    /// a string where the schema says array of strings as a sequence.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn new(value: &'de Value, wraps: Option<&'w Wraps<'w>>) -> Self {
        ValueRef {
            value,
            wraps,
            up: None,
        }
    }

    /// An item or member of the container `frame`, read as its container.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn within(value: &'de Value, wraps: Option<&'w Wraps<'w>>, frame: &'w Frame<'w>) -> Self {
        ValueRef {
            value,
            wraps,
            up: Some(frame),
        }
    }

    /// The frame this value leaves while its items or members are read.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn frame(&self) -> Frame<'w> {
        Frame::new(self.value, self.up)
    }
}

macro_rules! forward_value {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[cfg_attr(not(debug_assertions), inline(always))]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            self.value.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de> serde::Deserializer<'de> for ValueRef<'de, '_> {
    type Error = serde_json::Error;

    forward_value! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_identifier();
    }

    /// As serde_json, but a vouched read takes a variant from a string
    /// alone (the schema says string), and notes the variants while the
    /// type is seen.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if let Some(wraps) = self.wraps.filter(|wraps| wraps.vouched) {
            if !self.value.is_string() {
                return Err(unadmitted());
            }
            wraps.saw(self.value, variants);
        }
        self.value.deserialize_enum(name, variants, visitor)
    }

    /// As serde_json, but a vouched read refuses a value the type ignores:
    /// the member of a closed object the struct does not read.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if vouched(self.wraps) {
            return Err(unadmitted());
        }
        self.value.deserialize_ignored_any(visitor)
    }

    /// As serde_json: `null` is none, anything else is read again here.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    /// As serde_json, but for a string the plan and the rule take as a
    /// one-element sequence.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match (self.value, self.wraps) {
            (Value::Array(items), _) => visit_items(items, self.wraps, &self.frame(), visitor),
            (Value::String(s), Some(wraps)) if wraps.wrap(self.value, s, self.up) => {
                visitor.visit_seq(One(Some(BorrowedStrDeserializer::new(s))))
            }
            (value, _) => value.deserialize_seq(visitor),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Object(members) => visit_members(members, self.wraps, &self.frame(), visitor),
            value => value.deserialize_map(visitor),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value {
            // The schema says object: a vouched read refuses the array
            // serde would read a struct from.
            Value::Array(_) if vouched(self.wraps) => Err(unadmitted()),
            Value::Array(items) => visit_items(items, self.wraps, &self.frame(), visitor),
            Value::Object(members) => {
                if let Some(wraps) = self.wraps {
                    wraps.saw(self.value, fields);
                }
                visit_members(members, self.wraps, &self.frame(), visitor)
            }
            value => value.deserialize_struct(name, fields, visitor),
        }
    }
}

/// An array's items to `visitor`, as serde_json's `visit_array_ref`: an
/// error when the visitor left some unread.
#[cfg_attr(not(debug_assertions), inline(always))]
fn visit_items<'de, 'w, V: Visitor<'de>>(
    items: &'de [Value],
    wraps: Option<&'w Wraps<'w>>,
    frame: &'w Frame<'w>,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    let mut seq = Items {
        items: items.iter(),
        wraps,
        up: frame,
    };
    let value = visitor.visit_seq(&mut seq)?;
    if seq.items.len() == 0 {
        Ok(value)
    } else {
        Err(fewer(items.len(), "fewer elements in array"))
    }
}

/// An object's members to `visitor`, as serde_json's reader of a `&Map`:
/// an error when the visitor left some unread.
#[cfg_attr(not(debug_assertions), inline(always))]
fn visit_members<'de, 'w, V: Visitor<'de>>(
    members: &'de Map<String, Value>,
    wraps: Option<&'w Wraps<'w>>,
    frame: &'w Frame<'w>,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    let mut map = Entries {
        members: members.iter(),
        value: None,
        wraps,
        up: frame,
    };
    let value = visitor.visit_map(&mut map)?;
    if map.members.len() == 0 {
        Ok(value)
    } else {
        Err(fewer(members.len(), "fewer elements in map"))
    }
}

#[cold]
#[inline(never)]
fn fewer(len: usize, expected: &'static str) -> serde_json::Error {
    serde::de::Error::invalid_length(len, &expected)
}

/// An iterator's size hint as serde_json's readers give it: the count when
/// it is known exactly.
fn exact(hint: (usize, Option<usize>)) -> Option<usize> {
    match hint {
        (lower, Some(upper)) if lower == upper => Some(upper),
        _ => None,
    }
}

/// The items of an array, each a [`ValueRef`].
struct Items<'de, 'w> {
    items: std::slice::Iter<'de, Value>,
    wraps: Option<&'w Wraps<'w>>,
    /// The array's own frame.
    up: &'w Frame<'w>,
}

impl<'de> SeqAccess<'de> for Items<'de, '_> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Self::Error> {
        match self.items.next() {
            Some(value) => seed
                .deserialize(ValueRef::within(value, self.wraps, self.up))
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        exact(self.items.size_hint())
    }
}

/// The members of an object below the arguments: keys as serde_json reads
/// them ([`Key`]), values as [`ValueRef`]s.
struct Entries<'de, 'w> {
    members: serde_json::map::Iter<'de>,
    value: Option<&'de Value>,
    wraps: Option<&'w Wraps<'w>>,
    /// The object's own frame.
    up: &'w Frame<'w>,
}

impl<'de> MapAccess<'de> for Entries<'de, '_> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.members.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(ValueRef::within(value, self.wraps, self.up)),
            None => Err(missing_value()),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        exact(self.members.size_hint())
    }
}

/// A key of an object, read as serde_json reads the keys of a `&Map`: as a
/// borrowed string, or as the number or `bool` it spells where the type
/// asks for one.
struct Key<'de>(&'de str);

macro_rules! numeric_key {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            let mut de = numeric(self.0)?;
            let value = serde::Deserializer::$method(&mut de, visitor)?;
            de.end()?;
            Ok(value)
        }
    )*};
}

/// A reader of the number a key spells, as serde_json reads it: the key
/// starts with a digit or `-`, and nothing follows the number (not even
/// whitespace, which `end` alone would allow).
fn numeric(
    key: &str,
) -> Result<serde_json::Deserializer<serde_json::de::StrRead<'_>>, serde_json::Error> {
    let bytes = key.as_bytes();
    let starts = matches!(bytes.first(), Some(b'0'..=b'9' | b'-'));
    let ends = !matches!(bytes.last(), Some(b' ' | b'\t' | b'\n' | b'\r'));
    if starts && ends {
        Ok(serde_json::Deserializer::from_str(key))
    } else {
        Err(not_numeric())
    }
}

#[cold]
#[inline(never)]
fn not_numeric() -> serde_json::Error {
    serde::de::Error::custom("expected numeric key")
}

impl<'de> serde::Deserializer<'de> for Key<'de> {
    type Error = serde_json::Error;

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    numeric_key! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            key => Err(serde::de::Error::invalid_type(
                Unexpected::Str(key),
                &visitor,
            )),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        // Keys cannot be null.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let key: serde::de::value::CowStrDeserializer<'de, serde_json::Error> =
            Cow::Borrowed(self.0).into_deserializer();
        serde::Deserializer::deserialize_enum(key, name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    //! canon's readers of a `&Value` against serde_json's: for any value
    //! and any target, the same result (or both an error).

    use std::collections::{BTreeMap, HashMap};

    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::Value;

    use super::ValueRef;

    /// Every string of a nested call, visited with the frames canon's
    /// readers leave: the chain of frames leads to it by the steps the
    /// search finds, up to [`MAX_FRAMES`] containers deep, and no further.
    #[test]
    fn frames_lead_to_each_string_as_the_search_finds_it() {
        use super::{address, find, pointer_of, Chain, Frame, Steps, MAX_FRAMES};
        use serde_json::Map;

        fn visit(
            object: &Map<String, Value>,
            value: &Value,
            up: Option<&Frame<'_>>,
            seen: &mut usize,
        ) {
            let frame = Frame::new(value, up);
            let children: Vec<&Value> = match value {
                Value::Array(items) => items.iter().collect(),
                Value::Object(members) => members.values().collect(),
                Value::String(s) => {
                    let mut searched = Steps::new();
                    assert!(find(object, s, usize::MAX, &mut searched), "{s}");
                    let searched = pointer_of(searched.down());
                    let mut chain = Chain::new(address(value));
                    match up {
                        Some(up) if chain.lead(object, up) => {
                            assert_eq!(pointer_of(chain.down()), searched, "{s}");
                            assert!(chain.room >= searched.len());
                            *seen += 1;
                        }
                        // Only past the frames a chain follows.
                        Some(_) => assert!(searched.matches('/').count() > MAX_FRAMES + 1, "{s}"),
                        None => {}
                    }
                    return;
                }
                _ => return,
            };
            for child in children {
                visit(object, child, Some(&frame), seen);
            }
        }
        let call = serde_json::json!({
            "top": "t",
            "list": ["a", 1, ["b", {"c/d~": "c"}]],
            "map": {"x": {"y": ["e", "f"]}, "": "g"},
            "deep": [[[["h"]]]],
            "deeper": [[[[["i"]]]]]
        });
        let Value::Object(object) = &call else {
            unreachable!()
        };
        let mut seen = 0;
        for value in object.values() {
            match value {
                Value::Array(_) | Value::Object(_) => visit(object, value, None, &mut seen),
                _ => {}
            }
        }
        // a, b, c, e, f, g, h: all but "i", five containers deep.
        assert_eq!(seen, 7);
    }

    /// A path deeper than the steps kept on the stack reads back down in
    /// order, and its pointer is written whole.
    #[test]
    fn steps_past_the_stack_read_back_in_order() {
        let mut steps = super::Steps::new();
        for i in (0..11).rev() {
            steps.push(super::Step::Index(i));
        }
        steps.push(super::Step::Key("a/b"));
        let down: Vec<String> = steps
            .down()
            .map(|step| match step {
                super::Step::Key(key) => key.to_owned(),
                super::Step::Index(i) => i.to_string(),
            })
            .collect();
        assert_eq!(
            down,
            ["a/b", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
        );
        assert_eq!(
            super::pointer_of(steps.down()),
            "/a~1b/0/1/2/3/4/5/6/7/8/9/10"
        );
    }

    fn agree<'a, T: Deserialize<'a> + PartialEq + std::fmt::Debug>(value: &'a Value) {
        let ours = T::deserialize(ValueRef::new(value, None)).ok();
        let theirs = T::deserialize(value).ok();
        assert_eq!(ours, theirs, "{value}");
    }

    /// A unit variant, as a key or a value.
    #[derive(Debug, Deserialize, PartialEq, PartialOrd, Ord, Eq, Hash)]
    enum Unit {
        A,
        B,
    }

    /// Every form serde's data model has, below an object.
    #[derive(Debug, Deserialize, PartialEq)]
    enum Kind {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { a: Option<bool> },
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        a: Option<Vec<String>>,
        b: Option<u8>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Typed {
        s: Option<String>,
        list: Option<Vec<String>>,
        nested: Option<Vec<Vec<String>>>,
        inner: Option<Inner>,
        inners: Option<Vec<Inner>>,
        map: Option<HashMap<String, Vec<String>>>,
        by_u8: Option<BTreeMap<u8, u8>>,
        by_i128: Option<BTreeMap<i128, bool>>,
        by_f64: Option<BTreeMap<String, f64>>,
        by_bool: Option<BTreeMap<bool, u8>>,
        by_unit: Option<BTreeMap<Unit, u8>>,
        kinds: Option<Vec<Kind>>,
        tuple: Option<(u8, String)>,
        unit: Option<()>,
        big: Option<u128>,
        #[serde(flatten)]
        rest: BTreeMap<String, Value>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Closed {
        a: Option<Vec<String>>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(untagged)]
    enum Either {
        Number(u32),
        Words(Vec<String>),
        Inner(Inner),
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
                .map(Value::Number)),
            "[a-z \\\\]{0,4}".prop_map(Value::String),
            prop::sample::select(vec!["A", "B", "Unit", "Newtype"]).prop_map(Value::from),
        ]
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "s", "list", "nested", "inner", "inners", "map", "by_u8", "by_i128", "by_f64",
                "by_bool", "by_unit", "kinds", "tuple", "unit", "big", "a", "b", "A", "B", "Unit",
                "Newtype", "Tuple", "Struct", "1", "-1", "1 ", " 1", "01", "1.5", "1e2", "true",
                "false", "300", "-0", "",
            ])
            .prop_map(str::to_owned),
            "[0-9a-z -]{0,4}",
        ]
    }

    fn json() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..6)
                    .prop_map(|members| Value::Object(members.into_iter().collect())),
            ]
        })
    }

    #[test]
    fn reads_as_serde_json_reads() {
        for value in [
            serde_json::json!({"by_u8": {"1": 2, "255": 3}, "by_bool": {"true": 1}, "by_unit": {"A": 1}}),
            serde_json::json!({"by_u8": {"1 ": 2}}),
            serde_json::json!({"by_u8": {"256": 2}}),
            serde_json::json!({"by_i128": {"-170141183460469231731687303715884105728": true}}),
            serde_json::json!({"by_f64": {"x": 1.5}, "tuple": [1, "t"], "unit": null}),
            serde_json::json!({"kinds": ["Unit", {"Newtype": 3}, {"Tuple": [1, "x"]}, {"Struct": {"a": true}}]}),
            serde_json::json!({"inners": [{"a": ["x"]}, {"a": "x"}], "tuple": [1, "t", 2]}),
            serde_json::json!({"inner": ["x"]}),
            serde_json::json!({"inner": [["x"], 1, 2]}),
        ] {
            agree::<Typed>(&value);
            agree::<Closed>(&value);
            agree::<Either>(&value);
            agree::<Vec<Kind>>(&value);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn values_read_as_serde_json_reads_them(value in json()) {
            agree::<Typed>(&value);
            agree::<Closed>(&value);
            agree::<Either>(&value);
            agree::<Vec<Kind>>(&value);
            agree::<BTreeMap<String, Vec<String>>>(&value);
            agree::<Option<Vec<Option<Inner>>>>(&value);
            agree::<Value>(&value);
        }

        #[test]
        fn typed_members_read_as_serde_json_reads_them(
            members in prop::collection::vec((key(), json()), 0..8),
        ) {
            let value = Value::Object(members.into_iter().collect());
            agree::<Typed>(&value);
            agree::<Inner>(&value);
        }
    }
}
