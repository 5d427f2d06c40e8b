//! The binding plan: the tolerant positions of a JSON Schema, compiled once.
//!
//! A [`Plan`] is derived from the schema a tool publishes, never from Rust
//! syntax or parameter names. It records where the schema says "array of
//! strings" (a *tolerant position*) and how to reach those positions from the
//! root through object properties, `additionalProperties` and array items,
//! following local `$ref`s and unions. Positions that lead to no tolerant
//! position are pruned, so binding walks only the parts of a call that could
//! need a repair.
//!
//! A [`ToolSpec`](crate::toolbox::ToolSpec) binds with a *binding plan*, which also
//! keeps every array and object position (guards: the single pass counts
//! their depth and checks objects' keys for repeats there), and follows
//! what the schema leaves open (no `type`, members not closed by
//! `additionalProperties: false`, arrays without `items`) as one
//! self-similar position of anything. The guards never add or remove a
//! tolerant position (a property test holds the two plans to the same
//! positions).

use crate::schema::MAX_DEPTH;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use std::sync::Arc;

use crate::bind::policy::Policy;
use crate::repair::RepairRule;
use crate::schema::constraint::{hash_scalar, same_rest, words, Assert, Rules, Scalar};
use crate::schema::types as ty;

/// Index of a node in a [`Plan`].
pub(crate) type NodeId = u32;

/// One position of a plan, with only the children that lead to a tolerant
/// position.
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// A JSON string here is bound as a one-element array.
    pub(crate) wrap_string: bool,
    /// What the opt-in rules may make of a string here (`TEXT_*` bits);
    /// zero unless the plan was compiled with those rules.
    pub(crate) text: u8,
    /// Named properties, sorted by name.
    pub(crate) properties: Vec<Property>,
    /// The names of `properties` and `known`, found by one probe.
    pub(crate) names: Names,
    /// Plan for properties not listed in `properties`.
    pub(crate) additional: Option<NodeId>,
    /// A rule applies at or below `additional`: the key of such a member is
    /// kept for its pointer.
    pub(crate) additional_repairs: bool,
    /// Plan for each array item.
    pub(crate) items: Option<NodeId>,
    /// A rule applies here or below: a path to this position is worth
    /// recording. False for positions in a binding plan only for its guards.
    pub(crate) repairs: bool,
    /// The keys of an object here are checked for repeats (binding plans
    /// only: the target type may keep one value of a repeated key silently).
    pub(crate) keys: bool,
    /// What the schema asserts of a value here beyond its type (binding
    /// plans only).
    pub(crate) assert: Option<Box<Assert>>,
    /// Every number admitted here is a 32-bit float (`format: float`): a
    /// number beyond `f32`'s range is refused rather than bound as
    /// infinity (binding plans only).
    pub(crate) float32: bool,
    /// Every object admitted here is closed (`additionalProperties:
    /// false`): the names it declares, sorted. A member by another name is
    /// refused (binding plans only).
    pub(crate) known: Option<Box<[Box<str>]>>,
    /// Of arrays and objects ([`ty::ARRAY`], [`ty::OBJECT`]), the ones the
    /// single pass does not vouch for here (binding plans only): those no
    /// schema here admits, since serde's derived types take more than their
    /// schemas say (a struct from an array of its fields' values, a unit
    /// variant from a one-member object); and objects of a union of closed
    /// objects that share a name, which only `jsonschema` tells apart. The
    /// pass fails on them and the retry decides.
    pub(crate) refuses: u8,
    /// With `known`, when every object here is one of several closed
    /// objects, no two sharing a name but their tag: for each name of
    /// `known`, the bits of the objects that declare it (binding plans
    /// only). The names of one object here must all be one object's.
    pub(crate) branches: Option<Box<[u64]>>,
    /// With `branches`, the one name every object here declares, each
    /// with a string of its own (a tagged union): its value tells which
    /// object this is.
    pub(crate) tag: Option<Box<Tag>>,
}

/// The tag of a union of closed objects: the name they share, and for each
/// value it may have, the bit of the object that value names.
#[derive(Debug)]
pub(crate) struct Tag {
    /// The tag's index in the node's `known` names.
    pub(crate) index: usize,
    /// Each value: its hash (as `hash_scalar` of the string), the string,
    /// and the bit of its object.
    values: Box<[(u64, Box<str>, u64)]>,
}

impl Tag {
    /// The bit of the object the tag `value` names; 0 for none.
    #[inline]
    pub(crate) fn object_of(&self, value: &str) -> u64 {
        self.values
            .iter()
            .find(|(_, v, _)| **v == *value)
            .map_or(0, |(_, _, bit)| *bit)
    }

    /// The bit of the object whose tag value hashes to `hash` (for a value
    /// the tag's own schema admitted: one of the values, whose hashes all
    /// differ); 0 for none.
    #[inline]
    pub(crate) fn object_of_hash(&self, hash: u64) -> u64 {
        self.values
            .iter()
            .find(|(h, _, _)| *h == hash)
            .map_or(0, |(_, _, bit)| *bit)
    }
}

impl Node {
    /// The plan for the member `key` of an object at this position, where
    /// whether a closed object knows `key` is not asked.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn member<'p>(&'p self, key: &str) -> Member<'p> {
        self.member_of(self.names.find_property(key))
    }

    /// The plan for a member whose name [`Names::find`] gave as `name`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn member_of<'p>(&'p self, name: Option<&Name>) -> Member<'p> {
        if let Some(i) = name.and_then(Name::property) {
            let property = &self.properties[i];
            return Member::Named(&property.token, property.id);
        }
        match self.additional {
            Some(id) => Member::Additional(id, self.additional_repairs),
            None => Member::Skip,
        }
    }
}

impl Node {
    /// The declared property `key`, if it leads to a tolerant position (or
    /// may be dropped when `null`).
    #[inline]
    pub(crate) fn property(&self, key: &str) -> Option<&Property> {
        self.property_index(key).map(|i| &self.properties[i])
    }

    /// The index in `properties` of the declared property `key`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn property_index(&self, key: &str) -> Option<usize> {
        self.names.find_property(key).and_then(Name::property)
    }
}

/// The names an object position knows (its properties in the plan, and
/// every name it declares when closed), in a small open-addressed table:
/// a key is found by one hash of at most sixteen of its bytes and, for
/// names of up to sixteen bytes, compared as two words, without a call to
/// compare strings.
#[derive(Debug, Default)]
pub(crate) struct Names {
    names: Box<[Name]>,
    /// Index + 1 into `names` (0: empty), by hash; a power of two long.
    table: Box<[u32]>,
    /// `64 - log2(table.len())`.
    shift: u32,
    /// Bit `len % 64` is set for the length of each property's name: most
    /// keys that are no property are told by one test.
    lengths: u64,
}

/// One name of [`Names`].
#[derive(Debug)]
pub(crate) struct Name {
    name: Box<str>,
    /// The words the name is compared by.
    words: (u64, u64),
    /// Its index in `Node::known`, or `NONE`.
    known: u32,
    /// Its index in `Node::properties`, or `NONE`.
    property: u32,
    /// The plan of that property, or `NONE`.
    id: NodeId,
}

const NONE: u32 = u32::MAX;

impl Name {
    /// Its index among the names a closed object declares.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn known(&self) -> Option<usize> {
        (self.known != NONE).then_some(self.known as usize)
    }

    /// Its index among the node's properties.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn property(&self) -> Option<usize> {
        (self.property != NONE).then_some(self.property as usize)
    }

    /// Whether this is the name `key`, whose [`words`] are `words`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn is(&self, key: &str, words: (u64, u64)) -> bool {
        self.words == words && self.name.len() == key.len() && same_rest(&self.name, key)
    }

    /// The plan of its property, when it is one of the node's properties.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn node(&self) -> Option<NodeId> {
        (self.id != NONE).then_some(self.id)
    }
}

#[cfg_attr(not(debug_assertions), inline(always))]
fn slot(words: (u64, u64), len: usize, shift: u32) -> usize {
    let mixed = words.0 ^ words.1.rotate_left(29) ^ (len as u64).rotate_left(53);
    (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
}

impl Names {
    /// The table of the names of `properties` and `known`.
    ///
    /// The names are kept in `declared` order (the order the schema lists
    /// them, each once, which is the order models mostly send them in), so that
    /// [`Names::find_next`] mostly finds a key where the last one ended.
    fn new(properties: &[Property], known: Option<&[Box<str>]>, declared: &[&str]) -> Names {
        let mut names: Vec<Name> = Vec::new();
        for name in declared {
            // Both lists are sorted by name.
            let listed = properties
                .binary_search_by(|p| (*p.name).cmp(*name))
                .is_ok()
                || known.is_some_and(|known| known.binary_search_by(|k| (**k).cmp(*name)).is_ok());
            if listed {
                names.push(Name {
                    name: (*name).into(),
                    words: words(name.as_bytes()),
                    known: NONE,
                    property: NONE,
                    id: NONE,
                });
            }
        }
        let mut add = |name: &str, known: u32, property: u32, id: NodeId| match names
            .iter_mut()
            .find(|n| *n.name == *name)
        {
            Some(n) if known != NONE => n.known = known,
            Some(n) => (n.property, n.id) = (property, id),
            None => names.push(Name {
                name: name.into(),
                words: words(name.as_bytes()),
                known,
                property,
                id,
            }),
        };
        for (i, property) in properties.iter().enumerate() {
            add(&property.name, NONE, i as u32, property.id);
        }
        for (i, name) in known.unwrap_or_default().iter().enumerate() {
            add(name, i as u32, NONE, NONE);
        }
        if names.is_empty() {
            return Names::default();
        }
        // At most half full.
        let size = (names.len() * 2).next_power_of_two().max(2);
        let shift = 64 - size.trailing_zeros();
        let mut table = vec![0u32; size];
        for (i, name) in names.iter().enumerate() {
            let mut at = slot(name.words, name.name.len(), shift);
            while table[at] != 0 {
                at = (at + 1) & (size - 1);
            }
            table[at] = i as u32 + 1;
        }
        Names {
            names: names.into_boxed_slice(),
            table: table.into_boxed_slice(),
            shift,
            lengths: properties
                .iter()
                .fold(0, |mask, p| mask | 1 << (p.name.len() % 64)),
        }
    }

    /// The name `key`, if it is a property's (else perhaps `None` even
    /// when a closed object knows it).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn find_property(&self, key: &str) -> Option<&Name> {
        if self.lengths & 1 << (key.len() % 64) == 0 {
            return None;
        }
        self.find(key)
    }

    /// The name `key`, if known here.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn find(&self, key: &str) -> Option<&Name> {
        if self.table.is_empty() {
            return None;
        }
        self.probe(key, words(key.as_bytes()))
            .map(|i| &self.names[i])
    }

    /// [`Names::find`] for the keys of one object in turn: `next` is where
    /// the last key found lies in the declared order, plus one (0 before
    /// the first). A key given in that order is compared with that one
    /// name only.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn find_next(&self, key: &str, next: &mut usize) -> Option<&Name> {
        let words = words(key.as_bytes());
        if let Some(name) = self.names.get(*next) {
            if name.is(key, words) {
                *next += 1;
                return Some(name);
            }
        }
        if self.table.is_empty() {
            return None;
        }
        let index = self.probe(key, words)?;
        *next = index + 1;
        Some(&self.names[index])
    }

    /// The index of `key`, whose [`words`] are `words`, in a table that is
    /// not empty.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn probe(&self, key: &str, words: (u64, u64)) -> Option<usize> {
        let mask = self.table.len() - 1;
        let mut at = slot(words, key.len(), self.shift);
        loop {
            let index = self.table[at] as usize;
            if index == 0 {
                return None;
            }
            let name = &self.names[index - 1];
            if name.is(key, words) {
                return Some(index - 1);
            }
            at = (at + 1) & mask;
        }
    }
}

/// A declared property that leads to a tolerant position.
#[derive(Debug)]
pub(crate) struct Property {
    pub(crate) name: Box<str>,
    /// The name as an RFC 6901 reference token, escaped once here rather
    /// than at every repair.
    pub(crate) token: Box<str>,
    pub(crate) id: NodeId,
    /// `null` here may be read as the property being absent: it is optional
    /// and its schema does not admit `null` (only with `null_as_absent`).
    pub(crate) drop_null: bool,
}

/// A string here may be JSON array text to parse.
pub(crate) const TEXT_ARRAY: u8 = 1;
/// A string here may be JSON object text to parse.
pub(crate) const TEXT_OBJECT: u8 = 2;
/// A string here may be a number (any number).
pub(crate) const TEXT_NUMBER: u8 = 4;
/// A string here may be an integral number.
pub(crate) const TEXT_INTEGER: u8 = 8;
/// A string here may be `"true"` or `"false"`.
pub(crate) const TEXT_BOOL: u8 = 16;

/// Where a member of an object leads.
#[derive(Clone, Copy)]
pub(crate) enum Member<'p> {
    /// Nothing tolerant below.
    Skip,
    /// A declared property; its escaped pointer token is borrowed from the
    /// plan.
    Named(&'p str, NodeId),
    /// A property covered by `additionalProperties`; true when a rule
    /// applies below it, so its key is needed for a pointer.
    Additional(NodeId, bool),
}

/// The tolerant positions of a JSON Schema, compiled once and reused for
/// every call.
///
/// A position is tolerant when its schema is an array whose items are
/// strings (`{"type": "array", "items": {"type": "string"}}`, possibly
/// nullable, through `$ref`, or with string-enum items) and it does not also
/// accept a string. At a tolerant position, canon binds a lone string `s` as
/// `[s]`.
///
/// ```
/// use canon::toolbox::Plan;
/// use serde_json::json;
///
/// let plan = Plan::compile(&json!({
///     "type": "object",
///     "properties": {
///         "names": {"type": "array", "items": {"type": "string"}},
///         "limit": {"type": "integer"}
///     }
/// }));
/// assert_eq!(plan.positions(), vec!["/names"]);
/// ```
#[derive(Debug, Default)]
pub struct Plan {
    nodes: Vec<Node>,
    root: Option<NodeId>,
    /// Binding plans of a schema derived from the target type: see
    /// [`Plan::typed_depth`].
    typed_depth: Option<u32>,
    /// Binding plans of a schema derived from the target type without a
    /// typed depth: see [`Plan::vouchable`].
    vouchable: Option<Box<Vouchable>>,
}

/// What a type must be seen to check for a plan to be read as a typed one
/// ([`Plan::vouchable`]).
#[derive(Debug)]
pub(crate) struct Vouchable {
    /// The most arrays and objects a value the type accepts can nest (the
    /// root counted).
    pub(crate) depth: u32,
    /// The closed objects below the root and the positions that assert a
    /// list of strings, the only positions that assert more than types.
    pub(crate) nodes: Box<[NodeId]>,
}

impl Plan {
    /// Compiles the tolerant positions of `schema`.
    ///
    /// Never fails and never panics: parts of the schema that cannot be
    /// understood (a `$ref` to another document, nesting deeper than 128
    /// levels, keywords of unexpected types) are treated as accepting
    /// anything, so no position under them is tolerant.
    pub fn compile(schema: &Value) -> Plan {
        Plan::compile_with(schema, Policy::DEFAULT)
    }

    /// Compiles the positions where the rules of `policy` may apply: the
    /// core rule's tolerant positions, and for each opt-in rule the
    /// positions whose schema says so (`json_text` where an array or object
    /// and no string is admitted, `number_text` where a number and no
    /// string, `bool_text` where a boolean and no string, `null_as_absent`
    /// for optional properties that do not admit `null`).
    ///
    /// ```
    /// use canon::{Policy, RepairRule};
    /// use canon::toolbox::Plan;
    /// use serde_json::json;
    ///
    /// let schema = json!({
    ///     "type": "object",
    ///     "properties": {"limit": {"type": "integer"}, "q": {"type": "string"}}
    /// });
    /// assert!(Plan::compile(&schema).is_empty());
    /// let plan = Plan::compile_with(&schema, Policy::DEFAULT.with(RepairRule::NumberText));
    /// assert_eq!(plan.positions(), vec!["/limit"]);
    /// ```
    pub fn compile_with(schema: &Value, policy: Policy) -> Plan {
        Compiler::new(schema, false).compile(policy)
    }

    /// The plan a [`ToolSpec`](crate::toolbox::ToolSpec) binds with: the core rule's
    /// tolerant positions, and guards on every array and object position of
    /// the schema, so that the single pass over a call counts its nesting
    /// (the depth bound of [`Limits`](crate::Limits)) and checks each
    /// object's keys for repeats, wherever the target type would hold
    /// anything deeper or keep one of two values silently (a `HashMap`, a
    /// `serde_json::Value`). Positions the schema leaves open (no `type`, an
    /// object without `additionalProperties: false`, an array without
    /// `items`) are guarded all the way down.
    ///
    /// `derived`: the schema is what schemars derived for the Rust type
    /// the calls bind to, so bounds that only restate a Rust integer's
    /// range (`format: uint32` with `minimum: 0`) are left to the type.
    pub(crate) fn binding(schema: &Value, derived: bool) -> Plan {
        let mut compiler = Compiler::new(schema, true);
        compiler.derived = derived;
        compiler.compile(Policy::DEFAULT)
    }

    /// True when the schema has no tolerant position: binding is then plain
    /// serde.
    pub fn is_empty(&self) -> bool {
        self.root().is_none_or(|root| !root.repairs)
    }

    /// The tolerant positions as pointer patterns, sorted: `/a/b` for
    /// properties, `/a/[]` for each item of an array, `/a/{}` for each
    /// value of a map. A position reached again through a recursive `$ref`
    /// is shown once, followed by `/...`.
    pub fn positions(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(root) = self.root {
            let mut on_path = Vec::new();
            self.collect(root, String::new(), &mut on_path, &mut out);
        }
        out.sort();
        out.dedup();
        out
    }

    fn collect(&self, id: NodeId, at: String, on_path: &mut Vec<NodeId>, out: &mut Vec<String>) {
        if on_path.contains(&id) {
            out.push(format!("{at}/..."));
            return;
        }
        on_path.push(id);
        let node = self.node(id);
        if !node.repairs {
            on_path.pop();
            return;
        }
        if node.wrap_string || node.text != 0 {
            out.push(if at.is_empty() {
                "/".into()
            } else {
                at.clone()
            });
        }
        for property in &node.properties {
            let token = &property.token;
            if property.drop_null {
                out.push(format!("{at}/{token}"));
            }
            self.collect(property.id, format!("{at}/{token}"), on_path, out);
        }
        if let Some(child) = node.additional {
            self.collect(child, format!("{at}/{{}}"), on_path, out);
        }
        if let Some(child) = node.items {
            self.collect(child, format!("{at}/[]"), on_path, out);
        }
        on_path.pop();
    }

    /// For each name in `fields` (the members of the root object, in order),
    /// the index of its property in the root node, if it leads to a tolerant
    /// position.
    pub(crate) fn field_slots(&self, fields: &[&str]) -> Box<[Option<u32>]> {
        fields
            .iter()
            .map(|field| {
                self.root()
                    .and_then(|root| root.property_index(field))
                    .map(|i| i as u32)
            })
            .collect()
    }

    /// `Some(n)` when this is the binding plan of a schema derived from
    /// its target type and the type alone refuses whatever the plan would
    /// refuse in a call it accepts: no position asserts anything beyond
    /// types (bounds, lengths, patterns, values, counts), none is a 32-bit
    /// float, no object below the root is closed by the schema, and no
    /// position nests into itself; `n` is then the most arrays and objects
    /// a value the type accepts can nest (the root counted). A call such a
    /// type deserializes needs no repair and breaks no rule of the plan, so
    /// it binds as plain serde reads it.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn typed_depth(&self) -> Option<u32> {
        self.typed_depth
    }

    /// For the binding plan of a schema derived from its target type that
    /// has no [typed depth](Plan::typed_depth) only because objects below
    /// the root are closed and some positions assert a list of strings (a
    /// unit-only `enum`): those positions, and the depth the plan would
    /// have if the type were known to check them itself. No union of
    /// objects, no other assertion, no 32-bit float, nothing nesting into
    /// itself.
    pub(crate) fn vouchable(&self) -> Option<&Vouchable> {
        self.vouchable.as_deref()
    }

    /// True when an object below the root has members of its own in the
    /// plan (a nested struct or map): a `#[tool]`'s arguments from a
    /// `Value` are then looked at before serde reads them plainly, which
    /// is faster there than the pass through the plan; a flat call is
    /// faster through the pass.
    pub(crate) fn nested_objects(&self) -> bool {
        self.nodes.iter().enumerate().any(|(id, node)| {
            Some(id as NodeId) != self.root
                && (!node.properties.is_empty() || node.additional.is_some())
        })
    }

    /// [`Plan::typed_depth`], computed: one visit of each node reachable
    /// from the root, without recursion (a chain of `$ref`s may be long).
    fn compute_typed_depth(&self) -> Option<u32> {
        self.depth_taking(None)
    }

    /// [`Plan::vouchable`], computed.
    fn compute_vouchable(&self) -> Option<Box<Vouchable>> {
        let mut nodes = Vec::new();
        let depth = self.depth_taking(Some(&mut nodes))?;
        Some(Box::new(Vouchable {
            depth,
            nodes: nodes.into(),
        }))
    }

    /// The typed depth, or with `vouched`, the depth were closed objects
    /// below the root and lists of strings checked by the type: those
    /// positions are then pushed there.
    fn depth_taking(&self, mut vouched: Option<&mut Vec<NodeId>>) -> Option<u32> {
        let Some(root) = self.root else {
            // Nothing guarded: no array or object anywhere but the root.
            return Some(1);
        };
        // 0: not seen; `OPEN`: on the current path; d + 1: done, nesting d.
        const OPEN: u32 = u32::MAX;
        let mut depth = vec![0u32; self.nodes.len()];
        // A node and the index of its next child to visit.
        let mut stack: Vec<(NodeId, usize)> = vec![(root, 0)];
        depth[root as usize] = OPEN;
        while let Some(top) = stack.last_mut() {
            let (id, next) = *top;
            top.1 += 1;
            let node = self.node(id);
            if next == 0 {
                let closed = node.known.is_some() && id != root;
                let listed = node.assert.is_some();
                if node.float32 || ((closed || listed) && vouched.is_none()) {
                    return None;
                }
                if let Some(nodes) = vouched.as_deref_mut() {
                    let names_only = node.assert.as_ref().map(|a| a.names_only().is_some());
                    if node.branches.is_some() || names_only == Some(false) || (closed && listed) {
                        return None;
                    }
                    if closed || listed {
                        nodes.push(id);
                    }
                }
            }
            let child = match next {
                i if i < node.properties.len() => Some(node.properties[i].id),
                i if i == node.properties.len() => node.additional,
                i if i == node.properties.len() + 1 => node.items,
                _ => {
                    // Every child done: this node nests one more than the
                    // deepest of them.
                    let below = node
                        .properties
                        .iter()
                        .map(|p| p.id)
                        .chain(node.additional)
                        .chain(node.items)
                        .map(|c| depth[c as usize] - 1)
                        .max()
                        .unwrap_or(0);
                    depth[id as usize] = below + 2;
                    stack.pop();
                    continue;
                }
            };
            if let Some(child) = child {
                match depth[child as usize] {
                    OPEN => return None,
                    0 => {
                        depth[child as usize] = OPEN;
                        stack.push((child, 0));
                    }
                    _ => {}
                }
            }
        }
        Some(depth[root as usize] - 1)
    }

    /// The root node's id, if any position is tolerant.
    pub(crate) fn root_id(&self) -> Option<NodeId> {
        self.root
    }

    /// The root node, if any position is tolerant.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn root(&self) -> Option<&Node> {
        self.root.map(|id| self.node(id))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }
}

/// What one schema object says about itself, before unions are merged.
#[derive(Default)]
struct Shape {
    accepts_string: bool,
    /// The JSON types admitted (`ty` bits).
    types: u8,
    string_array: bool,
    items: Option<usize>,
    properties: Vec<(String, usize)>,
    required: Vec<String>,
    additional: Option<usize>,
    /// Binding plans: members not in `properties` may be anything (no
    /// `additionalProperties: false`, no `additionalProperties` schema).
    /// Guarded as the open shape, without entering the tolerant positions.
    open_members: bool,
    /// Binding plans: items may be anything (no `items` schema).
    open_items: bool,
    /// Binding plans: what the schema object asserts beyond types.
    rules: Option<Arc<Rules>>,
    /// Binding plans: `additionalProperties: false` (and no
    /// `patternProperties`).
    closed: bool,
    /// Binding plans: `format: float`.
    float32: bool,
    /// Binding plans: the object belongs to a group whose members all apply
    /// (`allOf`, `$ref` beside assertions) and something in it asserts
    /// more than types: values here are left to `jsonschema`.
    poison: bool,
    /// Binding plans: the one string this schema admits (`const`, or an
    /// `enum` of one string), for a union's tag.
    constant: Option<String>,
}

enum Raw {
    Shape(Shape),
    /// Every member applies (`$ref` beside keywords, `anyOf`, `oneOf`,
    /// `allOf`); merged conservatively.
    Group(Vec<usize>),
}

/// How deep [`Compiler::disjoint`] looks into groups whose members all
/// apply.
const MAX_CONJUNCTS: usize = 8;

/// The most comparisons [`Compiler::exclusive`] makes for one `oneOf`.
const EXCLUSIVE_WORK: usize = 1 << 16;

struct Compiler<'s> {
    root: &'s Value,
    raws: Vec<Raw>,
    refs: HashMap<&'s str, usize>,
    /// Compiling a binding plan: open positions lead to `open`.
    guard: bool,
    /// The shape of a guarded position that accepts anything: its items
    /// and members are itself.
    open: Option<usize>,
    /// The schema was derived from the target type (binding plans).
    derived: bool,
    /// Groups whose members all apply (`allOf`, `$ref` beside other
    /// keywords): what matches the group matches each member.
    conjuncts: HashMap<usize, Vec<usize>>,
}

impl<'s> Compiler<'s> {
    fn new(root: &'s Value, guard: bool) -> Self {
        Compiler {
            root,
            raws: Vec::new(),
            refs: HashMap::new(),
            guard,
            open: None,
            derived: false,
            conjuncts: HashMap::new(),
        }
    }

    fn compile(mut self, policy: Policy) -> Plan {
        let root = self.schema(self.root, 0);
        self.finish(root, policy)
    }

    fn push(&mut self, raw: Raw) -> usize {
        self.raws.push(raw);
        self.raws.len() - 1
    }

    fn anything(&mut self) -> usize {
        if self.guard {
            return self.open();
        }
        self.push(Raw::Shape(Shape {
            accepts_string: true,
            types: ty::ALL,
            ..Shape::default()
        }))
    }

    /// The one self-similar shape of anything, for binding plans.
    fn open(&mut self) -> usize {
        if let Some(id) = self.open {
            return id;
        }
        let id = self.push(Raw::Shape(Shape {
            accepts_string: true,
            types: ty::ALL,
            open_members: true,
            open_items: true,
            ..Shape::default()
        }));
        self.open = Some(id);
        id
    }

    fn schema(&mut self, schema: &'s Value, depth: usize) -> usize {
        if depth > MAX_DEPTH {
            return self.anything();
        }
        let obj = match schema {
            Value::Object(obj) => obj,
            Value::Bool(false) => return self.push(Raw::Shape(Shape::default())),
            _ => return self.anything(),
        };
        let mut members = Vec::new();
        let typed = ["type", "enum", "const"]
            .iter()
            .any(|k| obj.contains_key(*k));
        let structural = ["properties", "items", "additionalProperties"]
            .iter()
            .any(|k| obj.contains_key(*k))
            || (self.guard && crate::schema::constraint::asserts(obj));
        let applicators = ["$ref", "anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| obj.contains_key(*k));
        if typed || structural || !applicators {
            let shape = self.shape(schema, depth);
            members.push(self.push(Raw::Shape(shape)));
        }
        if let Some(Value::String(reference)) = obj.get("$ref") {
            members.push(self.reference(reference));
        }
        let mut one_of = Vec::new();
        let mut any_of = Vec::new();
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                for branch in branches {
                    let id = self.schema(branch, depth + 1);
                    members.push(id);
                    match key {
                        "oneOf" => one_of.push(id),
                        "anyOf" => any_of.push(id),
                        _ => {}
                    }
                }
            }
        }
        // In `allOf`, a `$ref` beside other keywords, or a union beside
        // the object's own keywords or another union, every member applies:
        // the plan merges members as alternatives, which would let one
        // member's silence vouch for another's assertion. A schema not
        // derived from the target type may also require names there that
        // the type does not.
        let unions = ["anyOf", "oneOf"]
            .iter()
            .filter(|k| obj.contains_key(**k))
            .count();
        let conjunctive = obj.contains_key("allOf")
            || (obj.contains_key("$ref") && members.len() > 1)
            || (unions > 0 && (typed || structural))
            || unions > 1;
        let asserting = |c: &Self, m: usize| c.asserts(m) || (!c.derived && c.requires(m));
        // `oneOf` admits a value that exactly one branch does: unless no
        // value can match two branches, a union of them says too much.
        let ambiguous = self.guard && one_of.len() > 1 && !self.exclusive(&one_of);
        // An `anyOf` of several objects is what serde's untagged enum
        // publishes, and that enum tries its variants in turn: a value one
        // variant refuses (a member of the wrong type) can bind as another
        // that ignores the member, a value no branch admits. Such a
        // position is left to `jsonschema`.
        let objects = any_of
            .iter()
            .filter(|&&m| self.admits(m, ty::OBJECT))
            .count();
        let untagged = self.guard && objects > 1;
        if self.guard
            && (ambiguous
                || untagged
                || (conjunctive && members.iter().any(|&m| asserting(self, m))))
        {
            // It admits every type, so that nothing here is refused for
            // its type before `jsonschema` looks; it vouches for no string,
            // so that where a string is wrapped stays the schema's call.
            members.push(self.push(Raw::Shape(Shape {
                types: ty::ALL,
                poison: true,
                ..Shape::default()
            })));
        }
        if members.len() == 1 {
            return members[0];
        }
        let id = self.push(Raw::Group(members.clone()));
        if conjunctive && unions == 0 {
            self.conjuncts.insert(id, members);
        }
        id
    }

    /// True when a shape reachable from `id` asserts more than types or is
    /// closed.
    fn asserts(&self, id: usize) -> bool {
        shapes_of(&self.raws, id)
            .into_iter()
            .any(|s| match &self.raws[s] {
                Raw::Shape(shape) => {
                    shape.rules.is_some() || shape.closed || shape.float32 || shape.poison
                }
                Raw::Group(_) => false,
            })
    }

    /// True when a shape reachable from `id` admits a value of `types`.
    fn admits(&self, id: usize, types: u8) -> bool {
        shapes_of(&self.raws, id)
            .into_iter()
            .any(|s| matches!(&self.raws[s], Raw::Shape(shape) if shape.types & types != 0))
    }

    /// True when a shape reachable from `id` requires a name.
    fn requires(&self, id: usize) -> bool {
        shapes_of(&self.raws, id)
            .into_iter()
            .any(|s| matches!(&self.raws[s], Raw::Shape(shape) if !shape.required.is_empty()))
    }

    /// True when no value can match two of `branches`, as far as their
    /// types, closed objects' names and tags tell. A branch still being
    /// compiled (a reference to itself) has no shapes yet, and is apart
    /// from nothing.
    /// Past [`EXCLUSIVE_WORK`] comparisons, the branches are taken to
    /// overlap: the calls are left to `jsonschema`, and a schema cannot
    /// make compiling its plan cost more.
    fn exclusive(&self, branches: &[usize]) -> bool {
        let work = Cell::new(EXCLUSIVE_WORK);
        branches.iter().enumerate().all(|(i, &x)| {
            branches[i + 1..]
                .iter()
                .all(|&y| self.disjoint(x, y, MAX_CONJUNCTS, &work))
        })
    }

    /// True when no value matches both raw nodes `x` and `y`: one of the
    /// members of a group that all apply is apart from the other, or every
    /// schema object of one is apart from every one of the other. `depth`
    /// bounds the groups looked into.
    fn disjoint(&self, x: usize, y: usize, depth: usize, work: &Cell<usize>) -> bool {
        if work.get() == 0 {
            return false;
        }
        work.set(work.get() - 1);
        if depth > 0 {
            for (one, other) in [(x, y), (y, x)] {
                if let Some(members) = self.conjuncts.get(&one) {
                    if members
                        .iter()
                        .any(|&m| self.disjoint(m, other, depth - 1, work))
                    {
                        return true;
                    }
                }
            }
        }
        let shapes = |id: usize| -> Vec<&Shape> {
            shapes_of(&self.raws, id)
                .into_iter()
                .filter_map(|s| match &self.raws[s] {
                    Raw::Shape(shape) => Some(shape),
                    Raw::Group(_) => None,
                })
                .collect()
        };
        let (xs, ys) = (shapes(x), shapes(y));
        // Each pair compared is work (the first was counted above).
        let pairs = xs.len().saturating_mul(ys.len()).saturating_sub(1);
        if pairs > work.get() {
            work.set(0);
            return false;
        }
        work.set(work.get() - pairs);
        !xs.is_empty() && !ys.is_empty() && xs.iter().all(|a| ys.iter().all(|b| self.apart(a, b)))
    }

    /// True when no value matches both `a` and `b`: they admit no type in
    /// common, are two different strings, or are objects that one's closed
    /// names or a tag of different values tell apart.
    fn apart(&self, a: &Shape, b: &Shape) -> bool {
        match a.types & b.types {
            0 => true,
            ty::STRING => matches!((&a.constant, &b.constant), (Some(x), Some(y)) if x != y),
            ty::OBJECT => {
                // A name one requires that the other, closed, refuses.
                let refuses = |closed: &Shape, other: &Shape| {
                    closed.closed
                        && other
                            .required
                            .iter()
                            .any(|name| !closed.properties.iter().any(|(p, _)| p == name))
                };
                let tagged = a.required.iter().any(|name| {
                    b.required.contains(name)
                        && match (self.tag(a, name), self.tag(b, name)) {
                            (Some(x), Some(y)) => x.is_disjoint(&y),
                            _ => false,
                        }
                });
                refuses(a, b) || refuses(b, a) || tagged
            }
            _ => false,
        }
    }

    /// The strings property `name` of `shape` may be, when each of its
    /// schemas admits only one.
    fn tag(&self, shape: &Shape, name: &str) -> Option<BTreeSet<&str>> {
        let (_, id) = shape.properties.iter().find(|(p, _)| p == name)?;
        let shapes = shapes_of(&self.raws, *id);
        if shapes.is_empty() {
            return None;
        }
        shapes
            .into_iter()
            .map(|s| match &self.raws[s] {
                Raw::Shape(shape) if shape.types == ty::STRING => shape.constant.as_deref(),
                _ => None,
            })
            .collect()
    }

    fn reference(&mut self, reference: &'s str) -> usize {
        if let Some(&id) = self.refs.get(reference) {
            return id;
        }
        let Some(target) = crate::schema::refs::target(self.root, reference) else {
            // Another document, an anchor or a dangling pointer: leave it
            // alone.
            let id = self.anything();
            self.refs.insert(reference, id);
            return id;
        };
        // Reserve the slot first so recursive references terminate.
        let id = self.push(Raw::Group(Vec::new()));
        self.refs.insert(reference, id);
        let inner = self.schema(target, 0);
        self.raws[id] = Raw::Group(vec![inner]);
        id
    }

    fn shape(&mut self, schema: &'s Value, depth: usize) -> Shape {
        let types = type_set(schema);
        let accepts_string = match &types {
            Some(types) => types.contains("string") && enum_allows_string(schema),
            None => enum_allows_string(schema),
        };
        let is_array = types.as_ref().is_some_and(|t| t.contains("array"));
        let mut shape = Shape {
            accepts_string,
            types: admitted(schema, types.as_ref()),
            ..Shape::default()
        };
        if let Some(Value::Array(required)) = schema.get("required") {
            shape.required = required
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
        if let Some(items) = schema.get("items") {
            if items.is_object() {
                shape.string_array = is_array
                    && !accepts_string
                    && schema.get("prefixItems").is_none()
                    && count(schema, "minItems").is_none_or(|n| n <= 1)
                    && count(schema, "maxItems").is_none_or(|n| n >= 1)
                    && self.strings_only(items, 0);
                shape.items = Some(self.schema(items, depth + 1));
            }
        }
        if let (true, Some(Value::Array(prefix))) = (self.guard, schema.get("prefixItems")) {
            // A tuple: its items are guarded as the union of its positions
            // (what holds of every position holds of each).
            let mut members: Vec<usize> =
                prefix.iter().map(|p| self.schema(p, depth + 1)).collect();
            match schema.get("items") {
                Some(items) if items.is_object() => members.extend(shape.items),
                Some(Value::Bool(false)) => {}
                // No item past the tuple's positions (a Rust tuple says so
                // with `maxItems`).
                _ if count(schema, "maxItems").is_some_and(|n| n <= prefix.len() as u64) => {}
                _ => members.push(self.open()),
            }
            shape.items = Some(self.push(Raw::Group(members)));
        }
        if let Some(Value::Object(props)) = schema.get("properties") {
            for (key, sub) in props {
                let id = self.schema(sub, depth + 1);
                shape.properties.push((key.clone(), id));
            }
        }
        if let Some(additional) = schema.get("additionalProperties") {
            if additional.is_object() {
                shape.additional = Some(self.schema(additional, depth + 1));
            }
        }
        if self.guard {
            if let Value::Object(obj) = schema {
                shape.rules = Rules::compile(obj, shape.types, self.derived).map(Arc::new);
            }
            shape.constant = match (schema.get("const"), schema.get("enum")) {
                (Some(Value::String(c)), _) => Some(c.clone()),
                (None, Some(Value::Array(values))) => match values.as_slice() {
                    [Value::String(c)] => Some(c.clone()),
                    _ => None,
                },
                _ => None,
            };
            shape.closed = schema.get("additionalProperties") == Some(&Value::Bool(false))
                && schema.get("patternProperties").is_none();
            shape.float32 = schema.get("format").and_then(Value::as_str) == Some("float");
            // What the schema leaves open may hold anything, at any depth.
            let closed = schema.get("additionalProperties") == Some(&Value::Bool(false))
                && schema.get("patternProperties").is_none();
            shape.open_members =
                shape.types & ty::OBJECT != 0 && shape.additional.is_none() && !closed;
            shape.open_items = shape.types & ty::ARRAY != 0 && shape.items.is_none();
            if shape.open_members || shape.open_items {
                self.open();
            }
        }
        shape
    }

    /// True when every value `schema` accepts is a string.
    fn strings_only(&self, schema: &'s Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Value::Object(obj) = schema else {
            return false;
        };
        if let Some(Value::String(reference)) = obj.get("$ref") {
            return match crate::schema::refs::target(self.root, reference) {
                Some(target) => self.strings_only(target, depth + 1),
                None => false,
            };
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = obj.get(key) {
                return !branches.is_empty()
                    && branches.iter().all(|b| self.strings_only(b, depth + 1));
            }
        }
        match type_set(schema) {
            Some(types) => types.len() == 1 && types.contains("string"),
            None => match (obj.get("enum"), obj.get("const")) {
                (Some(Value::Array(values)), _) => {
                    !values.is_empty() && values.iter().all(Value::is_string)
                }
                (None, Some(value)) => value.is_string(),
                _ => false,
            },
        }
    }

    /// Merges unions into plan nodes (a subset construction over shapes),
    /// then prunes everything that leads to no tolerant position.
    fn finish(self, root: usize, policy: Policy) -> Plan {
        let mut builder = Builder {
            raws: &self.raws,
            policy,
            guard: self.guard,
            open: self.open,
            accepts: Vec::new(),
            sets: BTreeMap::new(),
            nodes: Vec::new(),
            children: Vec::new(),
            queue: Vec::new(),
        };
        let root = builder.intern(builder.expand(root));
        while let Some((id, set)) = builder.queue.pop() {
            builder.fill(id, &set);
        }
        let mut plan = builder.prune(root);
        if self.guard && self.derived {
            plan.typed_depth = plan.compute_typed_depth();
            if plan.typed_depth.is_none() {
                plan.vouchable = plan.compute_vouchable();
            }
        }
        plan
    }
}

struct Builder<'r> {
    raws: &'r [Raw],
    policy: Policy,
    /// Compiling a binding plan: arrays and objects are kept, objects'
    /// keys checked.
    guard: bool,
    /// The open shape, when some position is open.
    open: Option<usize>,
    /// The JSON types each node admits.
    accepts: Vec<u8>,
    sets: BTreeMap<BTreeSet<usize>, NodeId>,
    nodes: Vec<Node>,
    /// Unpruned children of each node: properties, additional, items.
    children: Vec<Children>,
    queue: Vec<(NodeId, BTreeSet<usize>)>,
}

#[derive(Default)]
struct Children {
    /// Name, node, and whether the property is optional everywhere.
    properties: Vec<(Box<str>, NodeId, bool)>,
    /// The names of `properties` in the order the schemas declare them.
    declared: Vec<Box<str>>,
    additional: Option<NodeId>,
    items: Option<NodeId>,
}

impl<'r> Builder<'r> {
    /// The nodes for which `seed` holds or holds for some child: the graph
    /// may be cyclic, so this iterates to a fixpoint.
    fn upward(&self, seed: impl Fn(usize, &Node, &Children) -> bool) -> Vec<bool> {
        let mut marked: Vec<bool> = self
            .nodes
            .iter()
            .zip(&self.children)
            .enumerate()
            .map(|(id, (n, c))| seed(id, n, c))
            .collect();
        loop {
            let mut changed = false;
            for (id, children) in self.children.iter().enumerate() {
                if marked[id] {
                    continue;
                }
                let any = children
                    .properties
                    .iter()
                    .any(|(_, c, _)| marked[*c as usize])
                    || children.additional.is_some_and(|c| marked[c as usize])
                    || children.items.is_some_and(|c| marked[c as usize]);
                if any {
                    marked[id] = true;
                    changed = true;
                }
            }
            if !changed {
                return marked;
            }
        }
    }

    /// The shapes a raw node stands for, through groups (cycle-safe).
    fn expand(&self, id: usize) -> BTreeSet<usize> {
        shapes_of(self.raws, id)
    }

    fn intern(&mut self, set: BTreeSet<usize>) -> NodeId {
        if let Some(&id) = self.sets.get(&set) {
            return id;
        }
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node::default());
        self.accepts.push(0);
        self.children.push(Children::default());
        self.sets.insert(set.clone(), id);
        self.queue.push((id, set));
        id
    }

    fn shape(&self, id: usize) -> &'r Shape {
        let raws: &'r [Raw] = self.raws;
        match &raws[id] {
            Raw::Shape(shape) => shape,
            Raw::Group(_) => unreachable!("expand() yields shapes only"),
        }
    }

    fn union(&self, ids: impl IntoIterator<Item = usize>) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        for id in ids {
            out.extend(self.expand(id));
        }
        out
    }

    fn fill(&mut self, id: NodeId, set: &BTreeSet<usize>) {
        let shapes: Vec<&Shape> = set.iter().map(|&s| self.shape(s)).collect();
        let accepts_string = shapes.iter().any(|s| s.accepts_string);
        let wrap_string = self.policy.contains(RepairRule::ScalarToArray)
            && shapes.iter().any(|s| s.string_array)
            && !accepts_string;
        let types = shapes.iter().fold(0, |t, s| t | s.types);
        let mut text = 0;
        if !accepts_string {
            let on = |rule| self.policy.contains(rule);
            if on(RepairRule::JsonText) && types & ty::ARRAY != 0 {
                text |= TEXT_ARRAY;
            }
            if on(RepairRule::JsonText) && types & ty::OBJECT != 0 {
                text |= TEXT_OBJECT;
            }
            if on(RepairRule::NumberText) && types & ty::NUMBER != 0 {
                text |= TEXT_NUMBER;
            }
            if on(RepairRule::NumberText) && types & ty::INTEGER != 0 {
                text |= TEXT_INTEGER;
            }
            if on(RepairRule::BoolText) && types & ty::BOOLEAN != 0 {
                text |= TEXT_BOOL;
            }
        }
        let keys: BTreeSet<&str> = shapes
            .iter()
            .flat_map(|s| s.properties.iter().map(|(k, _)| k.as_str()))
            .collect();
        let mut property_sets = Vec::new();
        for key in keys {
            let members: Vec<usize> = shapes
                .iter()
                .filter_map(|s| match s.properties.iter().find(|(k, _)| k == key) {
                    Some((_, sub)) => Some(*sub),
                    None => s.additional,
                })
                .collect();
            let optional = !shapes.iter().any(|s| s.required.iter().any(|r| r == key));
            property_sets.push((key.to_owned(), self.union(members), optional));
        }
        let mut additional = self.union(shapes.iter().filter_map(|s| s.additional));
        let mut items = self.union(shapes.iter().filter_map(|s| s.items));
        // Open members and items are guarded as anything, unless a schema
        // of the union says what they are: that plan is followed (the open
        // shape would take every tolerant position below it away).
        if let Some(open) = self.open {
            if additional.is_empty() && shapes.iter().any(|s| s.open_members) {
                additional.insert(open);
            }
            if items.is_empty() && shapes.iter().any(|s| s.open_items) {
                items.insert(open);
            }
        }

        let mut children = Children::default();
        let mut seen = BTreeSet::new();
        for shape in &shapes {
            for (key, _) in &shape.properties {
                if seen.insert(key.as_str()) {
                    children.declared.push(key.as_str().into());
                }
            }
        }
        for (key, set, optional) in property_sets {
            let child = self.intern(set);
            children
                .properties
                .push((key.into_boxed_str(), child, optional));
        }
        if !additional.is_empty() {
            children.additional = Some(self.intern(additional));
        }
        if !items.is_empty() {
            children.items = Some(self.intern(items));
        }
        let mut unsure_objects = false;
        if self.guard {
            let node = &mut self.nodes[id as usize];
            node.assert = assertions(&shapes);
            let numeric: Vec<&&Shape> = shapes
                .iter()
                .filter(|s| s.types & ty::NUMBER != 0)
                .collect();
            node.float32 = !numeric.is_empty() && numeric.iter().all(|s| s.float32);
            let objects: Vec<&&Shape> = shapes
                .iter()
                .filter(|s| s.types & ty::OBJECT != 0)
                .collect();
            if !objects.is_empty() && objects.iter().all(|s| s.closed && s.additional.is_none()) {
                let mut known: Vec<Box<str>> = shapes
                    .iter()
                    .flat_map(|s| s.properties.iter().map(|(k, _)| k.as_str().into()))
                    .collect();
                known.sort();
                known.dedup();
                if objects.len() > 64 {
                    // More objects than bits: objects here are left to
                    // `jsonschema`.
                    unsure_objects = true;
                } else if objects.len() > 1 {
                    // A union of closed objects: the names a member may
                    // have are one object's, not the union's. Each name
                    // narrows the objects an object here may be, by the
                    // bits of those that declare it.
                    let masks: Vec<u64> = known
                        .iter()
                        .map(|name| {
                            objects.iter().enumerate().fold(0, |mask, (i, s)| {
                                let declares = s.properties.iter().any(|(k, _)| **k == **name);
                                mask | u64::from(declares) << i
                            })
                        })
                        .collect();
                    let shared: Vec<usize> = (0..masks.len())
                        .filter(|&i| masks[i].count_ones() > 1)
                        .collect();
                    let tag = match shared.as_slice() {
                        [index] => Self::tag(self.raws, &objects, &known[*index], *index),
                        _ => None,
                    };
                    if !shared.is_empty() && tag.is_none() {
                        // A name two objects share may hold what only one
                        // of them admits, which the plan does not tell
                        // apart (unless it is their tag): objects here are
                        // left to `jsonschema`.
                        unsure_objects = true;
                    } else {
                        node.branches = Some(masks.into_boxed_slice());
                        node.tag = tag.map(Box::new);
                    }
                }
                node.known = Some(known.into_boxed_slice());
            }
        }
        self.nodes[id as usize].wrap_string = wrap_string;
        self.nodes[id as usize].text = text;
        self.nodes[id as usize].keys = self.guard && types & ty::OBJECT != 0;
        if self.guard {
            let mut refuses = !types & (ty::ARRAY | ty::OBJECT);
            if unsure_objects {
                refuses |= ty::OBJECT;
            }
            self.nodes[id as usize].refuses = refuses;
        }
        self.accepts[id as usize] = types;
        self.children[id as usize] = children;
    }

    /// The tag of a union of closed `objects` whose only shared name is
    /// `name` (at `index` of their known names): every object declares it
    /// with a string of its own, no two alike nor hashing alike.
    fn tag(raws: &[Raw], objects: &[&&Shape], name: &str, index: usize) -> Option<Tag> {
        let mut values: Vec<(u64, Box<str>, u64)> = Vec::new();
        for (i, object) in objects.iter().enumerate() {
            let (_, id) = object.properties.iter().find(|(k, _)| k == name)?;
            let shapes: Vec<usize> = shapes_of(raws, *id).into_iter().collect();
            let [only] = shapes[..] else {
                return None;
            };
            let Raw::Shape(shape) = &raws[only] else {
                return None;
            };
            let value = shape.constant.as_deref()?;
            let hash = hash_scalar(Scalar::Str(value));
            if values.iter().any(|(h, v, _)| *h == hash || **v == *value) {
                return None;
            }
            values.push((hash, value.into(), 1u64 << i));
        }
        Some(Tag {
            index,
            values: values.into_boxed_slice(),
        })
    }

    fn prune(mut self, root: NodeId) -> Plan {
        // A property may be dropped when `null` if it is optional and its
        // schema does not admit `null`.
        let null_as_absent = self.policy.contains(RepairRule::NullAsAbsent);
        let accepts = std::mem::take(&mut self.accepts);
        let drop_null = |child: NodeId, optional: bool| {
            null_as_absent && optional && accepts[child as usize] & ty::NULL == 0
        };
        // repairs = a rule applies here, or at some child's; relevant =
        // that, or (in a binding plan) an array or object is guarded here
        // or below.
        let repairs = self.upward(|_, n, c| {
            n.wrap_string
                || n.text != 0
                || c.properties.iter().any(|(_, id, opt)| drop_null(*id, *opt))
        });
        let guard = self.guard;
        let relevant = self.upward(|id, n, _| {
            repairs[id]
                || (guard && accepts[id] & (ty::ARRAY | ty::OBJECT) != 0)
                || n.assert.is_some()
                || n.float32
        });
        let keep = |c: &NodeId| relevant[*c as usize];
        for (node, children) in self
            .nodes
            .iter_mut()
            .zip(std::mem::take(&mut self.children))
        {
            node.properties = children
                .properties
                .into_iter()
                // With a relevant `additionalProperties`, every declared
                // property stays, so it is never taken for an additional one.
                .filter(|(_, c, optional)| {
                    keep(c)
                        || drop_null(*c, *optional)
                        || children.additional.is_some_and(|a| keep(&a))
                })
                .map(|(name, id, optional)| Property {
                    token: crate::schema::pointer::escape(&name).into(),
                    drop_null: drop_null(id, optional),
                    name,
                    id,
                })
                .collect();
            node.properties.sort_by(|a, b| a.name.cmp(&b.name));
            let declared: Vec<&str> = children.declared.iter().map(|n| &**n).collect();
            node.names = Names::new(&node.properties, node.known.as_deref(), &declared);
            node.additional = children.additional.filter(keep);
            node.additional_repairs = children.additional.is_some_and(|a| repairs[a as usize]);
            node.items = children.items.filter(keep);
        }
        for (node, repairs) in self.nodes.iter_mut().zip(&repairs) {
            node.repairs = *repairs;
        }
        Plan {
            root: relevant[root as usize].then_some(root),
            nodes: self.nodes,
            typed_depth: None,
            vouchable: None,
        }
    }
}

/// The `type` keyword as a set, or `None` when absent or malformed.
fn type_set(schema: &Value) -> Option<BTreeSet<&str>> {
    Some(ty::names(schema)?.into_iter().collect())
}

/// The JSON types `schema` admits, from `type` (all when absent) narrowed by
/// `enum` and `const`.
fn admitted(schema: &Value, types: Option<&BTreeSet<&str>>) -> u8 {
    let mut bits = match types {
        None => ty::ALL,
        Some(types) => types
            .iter()
            .fold(0, |bits, t| bits | ty::named(t).unwrap_or(0)),
    };
    let values: Option<Vec<&Value>> = match (schema.get("enum"), schema.get("const")) {
        (_, Some(value)) => Some(vec![value]),
        (Some(Value::Array(values)), None) => Some(values.iter().collect()),
        _ => None,
    };
    if let Some(values) = values {
        bits &= values.iter().fold(0, |b, v| b | ty::of(v));
    }
    bits
}

/// False when `enum` or `const` exclude every string.
fn enum_allows_string(schema: &Value) -> bool {
    let by_enum = match schema.get("enum") {
        Some(Value::Array(values)) => values.iter().any(Value::is_string),
        _ => true,
    };
    let by_const = match schema.get("const") {
        Some(value) => value.is_string(),
        None => true,
    };
    by_enum && by_const
}

fn count(schema: &Value, key: &str) -> Option<u64> {
    schema.get(key).and_then(Value::as_u64)
}

/// The shapes raw node `id` stands for, through groups (cycle-safe).
fn shapes_of(raws: &[Raw], id: usize) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![id];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        match &raws[id] {
            Raw::Shape(_) => {
                out.insert(id);
            }
            Raw::Group(members) => stack.extend(members.iter().copied()),
        }
    }
    out
}

/// The assertions at a position whose schema objects are `shapes` (its
/// union): `None` when some object admitting each type asserts nothing of
/// it.
fn assertions(shapes: &[&Shape]) -> Option<Box<Assert>> {
    if shapes.iter().any(|s| s.poison) {
        return Some(Box::new(Assert::new(0, vec![Arc::new(Rules::unsure())])));
    }
    let mut free = 0;
    let mut alternatives = Vec::new();
    for shape in shapes {
        match &shape.rules {
            None => free |= shape.types,
            Some(rules) => alternatives.push(rules.clone()),
        }
    }
    let assert = Assert::new(free, alternatives);
    (!assert.is_vacuous()).then(|| Box::new(assert))
}

#[cfg(test)]
mod tests {
    use super::Plan;
    use serde_json::json;

    fn typed(schema: serde_json::Value) -> Option<u32> {
        Plan::binding(&schema, true).typed_depth()
    }

    #[test]
    fn a_derived_schema_of_types_alone_has_a_typed_depth() {
        let names = json!({"type": "array", "items": {"type": "string"}});
        let flat = json!({
            "type": "object",
            "properties": {"names": names, "q": {"type": "string"}},
            "required": ["names", "q"],
            "additionalProperties": false
        });
        // The root and the array (strings do not nest).
        assert_eq!(typed(flat.clone()), Some(2));
        // Only a schema derived from the target type is trusted so.
        assert_eq!(Plan::binding(&flat, false).typed_depth(), None);
        let map = json!({
            "type": "object",
            "properties": {"groups": {"type": "object", "additionalProperties": names}},
            "additionalProperties": false
        });
        assert_eq!(typed(map), Some(3));
        let refs = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "array", "items": {"type": "integer"}}},
            "additionalProperties": false
        });
        assert_eq!(typed(refs), Some(2));
    }

    /// True when some position of the binding plan of `schema` is left
    /// to `jsonschema` whatever its value.
    fn unsure(schema: &serde_json::Value, derived: bool) -> bool {
        let plan = Plan::binding(schema, derived);
        plan.nodes
            .iter()
            .any(|n| n.assert.as_ref().is_some_and(|a| a.is_unsure()))
    }

    #[test]
    fn a_one_of_whose_branches_can_overlap_is_left_to_jsonschema() {
        use schemars::JsonSchema;
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        enum External {
            /// A unit variant with docs is a `const`.
            A,
            B,
            C {
                x: u32,
            },
            D(String),
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Inner {
            a: u32,
        }
        #[derive(JsonSchema)]
        #[serde(tag = "kind")]
        #[allow(dead_code)]
        enum Internal {
            A {
                x: u32,
            },
            B {
                y: String,
            },
            /// A struct's own schema beside the tag.
            C(Inner),
            D,
        }
        #[derive(JsonSchema)]
        #[serde(tag = "t", content = "c")]
        #[allow(dead_code)]
        enum Adjacent {
            A(u32),
            B(String),
            C(Inner),
            D,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Flattened {
            id: String,
            #[serde(flatten)]
            kind: External,
        }
        let schema = |s: schemars::Schema| serde_json::to_value(s).unwrap();
        // What schemars derives for enums: branches no value matches two
        // of, bound in the single pass.
        for derived in [
            schema(schemars::schema_for!(External)),
            schema(schemars::schema_for!(Internal)),
            schema(schemars::schema_for!(Adjacent)),
        ] {
            assert!(derived.to_string().contains("oneOf"), "{derived}");
            assert!(!unsure(&derived, true), "{derived}");
        }
        // A flattened enum's branches are open objects: `{"C": …, "D": …}`
        // matches two.
        assert!(unsure(&schema(schemars::schema_for!(Flattened)), true));
        for (one_of, overlap) in [
            (json!([{"type": "integer"}, {"type": "number"}]), true),
            (json!([{"type": "integer"}, {"type": "string"}]), false),
            (json!([{"const": "a"}, {"const": "a"}]), true),
            (
                json!([{"type": "string", "enum": ["a"]}, {"const": "b"}]),
                false,
            ),
            (
                json!([{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]),
                true,
            ),
            (
                json!([{"type": "object", "properties": {"a": {}}, "required": ["a"], "additionalProperties": false},
                    {"type": "object", "required": ["b"]}]),
                false,
            ),
            (json!([{"$ref": "#"}, {"type": "string"}]), true),
        ] {
            let schema = json!({"type": "object", "properties": {"m": {"oneOf": one_of}}});
            assert_eq!(unsure(&schema, true), overlap, "{schema}");
        }
    }

    #[test]
    fn telling_one_of_branches_apart_is_bounded_work() {
        // 300 strings told apart pairwise: 44,850 comparisons, in bounds.
        let consts: Vec<_> = (0..300)
            .map(|i| json!({"const": format!("v{i}")}))
            .collect();
        let schema = json!({"type": "object", "properties": {"m": {"oneOf": consts}}});
        assert!(!unsure(&schema, true));
        // 400 are past the bound: left to `jsonschema`, not compared.
        let consts: Vec<_> = (0..400)
            .map(|i| json!({"const": format!("v{i}")}))
            .collect();
        let schema = json!({"type": "object", "properties": {"m": {"oneOf": consts}}});
        assert!(unsure(&schema, true));
    }

    #[test]
    fn a_union_beside_other_keywords_is_left_to_jsonschema_where_they_assert() {
        for (m, sure) in [
            // The object's own bound next to a branch that asserts nothing.
            (
                json!({"type": "string", "maxLength": 3, "anyOf": [{"type": "string"}, {"type": "integer"}]}),
                false,
            ),
            (
                json!({"anyOf": [{"type": "string"}], "oneOf": [{"maxLength": 3}]}),
                false,
            ),
            // Names a union requires beside the object's own properties.
            (
                json!({"type": "object", "properties": {"a": {}, "b": {}},
                    "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
                false,
            ),
            // Unions that stand alone are alternatives, as the plan reads them.
            (
                json!({"description": "d", "anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]}),
                true,
            ),
        ] {
            let schema = json!({"type": "object", "properties": {"m": m}});
            assert_eq!(unsure(&schema, false), !sure, "{schema}");
        }
    }

    /// The node of member `m` in a binding plan of `{m: union}`.
    fn union_node(union: serde_json::Value) -> (Plan, super::NodeId) {
        let plan = Plan::binding(
            &json!({
                "type": "object",
                "properties": {"m": union},
                "additionalProperties": false
            }),
            true,
        );
        let root = plan.root().expect("a root");
        let id = root.property("m").expect("m is kept").id;
        (plan, id)
    }

    #[test]
    fn a_union_of_closed_objects_narrows_by_name_and_by_tag() {
        let closed = |tag: &str, field: &str| {
            json!({
                "type": "object",
                "properties": {"kind": {"type": "string", "const": tag}, field: {"type": "string"}},
                "required": ["kind"],
                "additionalProperties": false
            })
        };
        // Internally tagged: `kind` is shared, with a value of its own in
        // each object.
        let (plan, id) = union_node(json!({"oneOf": [closed("a", "x"), closed("b", "y")]}));
        let node = plan.node(id);
        assert_eq!(node.refuses & crate::schema::types::OBJECT, 0);
        let tag = node.tag.as_ref().expect("a tag");
        let known = node.known.as_ref().expect("closed");
        assert_eq!(&*known[tag.index], "kind");
        assert_eq!(
            (tag.object_of("a"), tag.object_of("b"), tag.object_of("c")),
            (1, 2, 0)
        );
        let masks = node.branches.as_ref().expect("branches");
        let bits: Vec<(&str, u64)> = known
            .iter()
            .map(|k| &**k)
            .zip(masks.iter().copied())
            .collect();
        assert_eq!(bits, [("kind", 3), ("x", 1), ("y", 2)]);
        // Externally tagged: no name shared.
        let one = |name: &str| {
            json!({"type": "object", "properties": {name: {"type": "string"}},
                   "required": [name], "additionalProperties": false})
        };
        let (plan, id) = union_node(json!({"oneOf": [one("A"), one("B"), {"const": "C"}]}));
        let node = plan.node(id);
        assert!(node.tag.is_none());
        assert_eq!(node.branches.as_deref(), Some(&[1, 2][..]));
        // An `anyOf` of objects (serde's untagged enum, which tries each
        // variant in turn) is left to `jsonschema`, whether or not the
        // objects could be told apart.
        for union in [
            json!({"anyOf": [closed("a", "x"), closed("a", "y")]}),
            json!({"anyOf": [one("x"), {
                "type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
                "additionalProperties": false
            }]}),
            json!({"anyOf": [one("A"), one("B")]}),
        ] {
            let schema = json!({"type": "object", "properties": {"m": union}});
            assert!(unsure(&schema, true), "{schema}");
        }
        // One object beside other types (an `Option<T>`, a string or a
        // list) stays in the single pass.
        for union in [
            json!({"anyOf": [one("A"), {"type": "null"}]}),
            json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
        ] {
            let schema = json!({"type": "object", "properties": {"m": union}});
            assert!(!unsure(&schema, true), "{schema}");
        }
    }

    #[test]
    fn closed_objects_and_lists_of_strings_alone_may_be_vouched_for() {
        let vouchable = |member: serde_json::Value| {
            let schema = json!({
                "type": "object",
                "properties": {"m": member},
                "additionalProperties": false
            });
            let plan = Plan::binding(&schema, true);
            plan.vouchable().map(|v| (v.depth, v.nodes.len()))
        };
        let listed = |names: &[&str]| {
            let branches: Vec<_> = names
                .iter()
                .map(|n| json!({"type": "string", "const": n}))
                .collect();
            json!({ "oneOf": branches })
        };
        assert_eq!(
            vouchable(json!({"type": "string", "enum": ["a", "b"]})),
            Some((2, 1))
        );
        assert_eq!(vouchable(listed(&["a", "b"])), Some((2, 1)));
        // `oneOf` refuses a string two branches list; serde would not.
        assert_eq!(vouchable(listed(&["a", "a"])), None);
        assert_eq!(
            vouchable(json!({"type": "string", "enum": ["a"], "minLength": 1})),
            None
        );
        assert_eq!(
            vouchable(json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "string", "enum": ["a"]}},
                    "additionalProperties": false
                }
            })),
            Some((4, 2))
        );
        assert_eq!(vouchable(json!({"type": "integer", "minimum": 3})), None);
        // Types alone: typed, nothing to vouch for.
        assert_eq!(vouchable(json!({"type": "string"})), None);
    }

    #[test]
    fn what_only_the_plan_checks_leaves_no_typed_depth() {
        let with = |member: serde_json::Value| {
            typed(json!({
                "type": "object",
                "properties": {"m": member},
                "additionalProperties": false
            }))
        };
        assert_eq!(with(json!({"type": "string", "minLength": 2})), None);
        assert_eq!(with(json!({"type": "string", "enum": ["a", "b"]})), None);
        assert_eq!(with(json!({"type": "number", "format": "float"})), None);
        assert_eq!(
            with(json!({"type": "array", "items": {"type": "string"}, "maxItems": 3})),
            None
        );
        // A closed object below the root.
        assert_eq!(
            with(json!({
                "type": "object",
                "properties": {"x": {"type": "string"}},
                "additionalProperties": false
            })),
            None
        );
        // Free JSON nests into itself (so do the members of an object not
        // closed), as does a recursive `$ref`.
        assert_eq!(with(json!({})), None);
        assert_eq!(with(json!({"type": "object"})), None);
        assert_eq!(
            typed(json!({
                "type": "object",
                "properties": {"tree": {"$ref": "#/$defs/T"}},
                "$defs": {"T": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/T"}}
                }, "required": ["children"], "additionalProperties": false}},
                "additionalProperties": false
            })),
            None
        );
        // A bound that only restates a Rust integer's range is the type's.
        assert_eq!(
            with(json!({"type": "integer", "format": "uint32", "minimum": 0})),
            Some(1)
        );
    }

    #[test]
    fn names_are_found_in_any_order_and_first_where_the_schema_puts_them() {
        let long = "a_name_longer_than_thirty_two_bytes_in_all";
        let schema = json!({
            "type": "object",
            "properties": {
                "zeta": {"type": "string", "enum": ["a"]},
                "op": {"type": "string"},
                (long): {"type": "integer", "maximum": 3},
                "a_name_of_twenty_bytes": {"type": "string"}
            },
            "additionalProperties": false
        });
        let plan = Plan::binding(&schema, true);
        let names = &plan.node(plan.root.expect("a root")).names;
        // Kept in the order the schema declares them, not sorted.
        let order: Vec<&str> = names.names.iter().map(|n| &*n.name).collect();
        assert_eq!(order, ["zeta", "op", long, "a_name_of_twenty_bytes"]);
        let keys = [
            "zeta",
            "op",
            long,
            "a_name_of_twenty_bytes",
            "op",
            "zeta",
            "",
            "o",
            "opx",
            "a_name_of_twenty_bytez",
            "a_name_longer_than_thirty_two_bytes_in_al_",
        ];
        // Every order of keys, including unknown ones and near misses that
        // share a name's words: `find_next` answers as `find` does.
        for start in 0..keys.len() {
            let mut next = 0;
            for key in keys.iter().cycle().skip(start).take(keys.len() * 2) {
                let found = names.find_next(key, &mut next).map(|n| &*n.name);
                assert_eq!(found, names.find(key).map(|n| &*n.name), "{key}");
            }
        }
        // In the declared order, each key is the one compared first.
        let mut next = 0;
        for (i, key) in order.iter().enumerate() {
            assert!(names.find_next(key, &mut next).is_some());
            assert_eq!(next, i + 1);
        }
    }
}
