//! The fast acceptance test: "this call is certainly valid", decided by one
//! walk over the call without allocating, for the keywords tool schemas use
//! (`type`, `properties`, `required`, `additionalProperties`, `items`,
//! `enum`, `const`, lengths and bounds, local `$ref`).
//!
//! It never decides a call is invalid: anything it does not accept (a
//! keyword it does not know, a failed constraint) goes to `jsonschema`,
//! which stays the authority and lists the violations. Its one promise,
//! held by a property test against `jsonschema`: what it accepts, the
//! validator accepts.

use crate::schema::MAX_DEPTH;
use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use crate::schema::types as ty;

/// Keywords that only annotate: they never make a value invalid (but the
/// last two, which drafts 6 and 7 assert: see [`Drafts`]).
const ANNOTATIONS: [&str; 14] = [
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "$schema",
    "$defs",
    "definitions",
    "contentEncoding",
    "contentMediaType",
];

/// Integers beyond this are not compared as doubles.
const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

type Id = u32;

// `Typed` stays inline: one pointer chase less per node on the hot path;
// the nodes of a schema are few.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
enum Node {
    /// Accepts every value.
    Any,
    /// Accepts nothing here: the validator decides.
    Unsure,
    Typed(Typed),
}

/// The common leaf schemas, decided without the general walk.
#[derive(Debug, Default)]
enum Simple {
    #[default]
    No,
    /// `{"type": "string"}` with nothing else that constrains.
    String,
    /// `{"type": "boolean"}`.
    Boolean,
    /// `{"type": "string", "enum": [strings]}` with nothing else.
    StringEnum(Box<[Box<str>]>),
    /// `{"type": "array", "items": {"type": "string"}}` with nothing else.
    StringArray,
    /// `{"type": "integer"}` with integral `minimum` and `maximum`, if any.
    Integer(i64, i64),
}

#[derive(Debug, Default)]
struct Typed {
    simple: Simple,
    types: u8,
    values: Option<Vec<Value>>,
    /// Declared properties in declaration order: node, and whether
    /// required.
    properties: Vec<(Box<str>, Id, bool)>,
    required: usize,
    additional: Additional,
    items: Option<Id>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
}

#[derive(Debug, Default)]
enum Additional {
    #[default]
    Any,
    Deny,
    Schema(Id),
}

/// A schema compiled for the acceptance test.
#[derive(Debug)]
pub(crate) struct Check {
    nodes: Vec<Node>,
    root: Id,
    /// Values nested deeper are not accepted here.
    max_depth: usize,
}

impl Check {
    /// Compiles `schema`; never fails (what it cannot read is `Unsure`).
    pub(crate) fn compile(schema: &Value, max_depth: usize, formats: bool) -> Check {
        let drafts = Drafts::of(schema);
        let mut compiler = Compiler {
            formats,
            content_asserts: drafts.content_asserts,
            root: schema,
            nodes: Vec::new(),
            refs: HashMap::new(),
        };
        let root = if drafts.older {
            // Draft 4 and before read an integer differently (`1.0` is
            // none) and bounds differently: the validator decides.
            compiler.push(Node::Unsure)
        } else {
            compiler.schema(schema, 0, true)
        };
        Check {
            nodes: compiler.nodes,
            root,
            max_depth: max_depth.min(MAX_DEPTH),
        }
    }

    /// True when `value` is certainly valid against the schema.
    #[inline]
    pub(crate) fn accepts(&self, value: &Value) -> bool {
        self.node_accepts(self.root, value, 0)
    }

    /// True when `value`, at `depth`, nests past the depth bound.
    fn too_deep_at(&self, value: &Value, depth: usize) -> bool {
        crate::limits::nests_deeper(value, self.max_depth.saturating_sub(depth))
    }

    fn node_accepts(&self, id: Id, value: &Value, depth: usize) -> bool {
        let typed = match &self.nodes[id as usize] {
            // Anything is valid here, but not deeper than the bound.
            Node::Any => return !self.too_deep_at(value, depth),
            Node::Unsure => return false,
            Node::Typed(typed) => typed,
        };
        if let Some(quick) = quick(typed, value) {
            return quick;
        }
        if depth >= self.max_depth || typed.types & ty::of(value) == 0 {
            return false;
        }
        if let Some(values) = &typed.values {
            if !values.contains(value) {
                return false;
            }
        }
        match value {
            Value::String(s) => {
                if typed.min_length.is_some() || typed.max_length.is_some() {
                    let n = s.chars().count() as u64;
                    if typed.min_length.is_some_and(|m| n < m)
                        || typed.max_length.is_some_and(|m| n > m)
                    {
                        return false;
                    }
                }
                true
            }
            Value::Number(n) => number_ok(typed, n),
            Value::Array(items) => {
                let n = items.len() as u64;
                if typed.min_items.is_some_and(|m| n < m) || typed.max_items.is_some_and(|m| n > m)
                {
                    return false;
                }
                match typed.items {
                    Some(child) => items
                        .iter()
                        .all(|item| self.child_accepts(child, item, depth + 1)),
                    // Any items, within the depth bound.
                    None => !items.iter().any(|item| self.too_deep_at(item, depth + 1)),
                }
            }
            Value::Object(members) => {
                let mut required = 0;
                for (i, (key, member)) in members.iter().enumerate() {
                    let child = match property(&typed.properties, i, key) {
                        Some((child, is_required)) => {
                            required += usize::from(is_required);
                            child
                        }
                        None => match typed.additional {
                            Additional::Any if self.too_deep_at(member, depth + 1) => return false,
                            Additional::Any => continue,
                            Additional::Deny => return false,
                            Additional::Schema(child) => child,
                        },
                    };
                    if !self.child_accepts(child, member, depth + 1) {
                        return false;
                    }
                }
                required == typed.required
            }
            Value::Null | Value::Bool(_) => true,
        }
    }
}

/// The declared property `key`, the `i`-th member of its object: models
/// send parameters in the order they were declared, so the `i`-th
/// declared property is tried first.
impl Check {
    /// [`node_accepts`](Self::node_accepts), deciding the common leaves
    /// in place rather than in a call.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn child_accepts(&self, id: Id, value: &Value, depth: usize) -> bool {
        if let Node::Typed(typed) = &self.nodes[id as usize] {
            if let Some(quick) = quick(typed, value) {
                return quick;
            }
        }
        self.node_accepts(id, value, depth)
    }
}

/// The verdict of a common leaf's fast path, if it has one.
#[cfg_attr(not(debug_assertions), inline(always))]
fn quick(typed: &Typed, value: &Value) -> Option<bool> {
    Some(match (&typed.simple, value) {
        (Simple::No, _) => return None,
        (Simple::String, value) => value.is_string(),
        (Simple::Boolean, value) => value.is_boolean(),
        (Simple::StringEnum(values), Value::String(s)) => values.iter().any(|v| **v == **s),
        (Simple::StringEnum(_), _) => false,
        (Simple::StringArray, Value::Array(items)) => items.iter().all(Value::is_string),
        (Simple::StringArray, _) => false,
        (Simple::Integer(min, max), Value::Number(n)) => match n.as_i64() {
            Some(n) => (*min..=*max).contains(&n),
            None => return None,
        },
        (Simple::Integer(..), _) => false,
    })
}

#[inline]
fn property(properties: &[(Box<str>, Id, bool)], i: usize, key: &str) -> Option<(Id, bool)> {
    let found = match properties.get(i) {
        Some(p) if *p.0 == *key => Some(p),
        _ => properties.iter().find(|p| *p.0 == *key),
    };
    found.map(|p| (p.1, p.2))
}

fn number_ok(typed: &Typed, n: &Number) -> bool {
    let bounded = typed.minimum.is_some()
        || typed.maximum.is_some()
        || typed.exclusive_minimum.is_some()
        || typed.exclusive_maximum.is_some();
    if !bounded {
        return true;
    }
    let Some(x) = crate::schema::constraint::exact(n) else {
        return false;
    };
    !(typed.minimum.is_some_and(|m| x < m)
        || typed.maximum.is_some_and(|m| x > m)
        || typed.exclusive_minimum.is_some_and(|m| x <= m)
        || typed.exclusive_maximum.is_some_and(|m| x >= m))
}

/// The drafts a schema's `$schema` members name, where they change what
/// this check may accept.
struct Drafts {
    /// Draft 4 or earlier somewhere.
    older: bool,
    /// Draft 6 or 7 somewhere: `contentEncoding` and `contentMediaType`
    /// assert (the validator checks them).
    content_asserts: bool,
}

impl Drafts {
    fn of(schema: &Value) -> Drafts {
        let mut drafts = Drafts {
            older: false,
            content_asserts: false,
        };
        drafts.scan(schema, 0);
        drafts
    }

    fn scan(&mut self, value: &Value, depth: usize) {
        if depth > MAX_DEPTH {
            // Too deep to tell: assume the worst.
            self.older = true;
            return;
        }
        match value {
            Value::Object(obj) => {
                if let Some(Value::String(uri)) = obj.get("$schema") {
                    self.older |= ["draft-03", "draft-04"].iter().any(|d| uri.contains(d));
                    self.content_asserts |=
                        ["draft-06", "draft-07"].iter().any(|d| uri.contains(d));
                }
                obj.values().for_each(|sub| self.scan(sub, depth + 1));
            }
            Value::Array(items) => items.iter().for_each(|sub| self.scan(sub, depth + 1)),
            _ => {}
        }
    }
}

struct Compiler<'s> {
    /// `format` asserts (for the formats `jsonschema` implements): such a
    /// schema is left to the validator.
    formats: bool,
    /// `contentEncoding` and `contentMediaType` assert: such a schema is
    /// left to the validator.
    content_asserts: bool,
    root: &'s Value,
    nodes: Vec<Node>,
    refs: HashMap<&'s str, Id>,
}

impl<'s> Compiler<'s> {
    fn push(&mut self, node: Node) -> Id {
        self.nodes.push(node);
        (self.nodes.len() - 1) as Id
    }

    fn schema(&mut self, schema: &'s Value, depth: usize, root: bool) -> Id {
        if depth > MAX_DEPTH {
            return self.push(Node::Unsure);
        }
        let obj = match schema {
            Value::Bool(true) => return self.push(Node::Any),
            Value::Object(obj) => obj,
            _ => return self.push(Node::Unsure),
        };
        let keywords = Keywords::of(obj, root);
        if self.content_asserts
            && (obj.contains_key("contentEncoding") || obj.contains_key("contentMediaType"))
        {
            return self.push(Node::Unsure);
        }
        let asserts_format = self.formats
            && keywords
                .format
                .and_then(Value::as_str)
                .is_some_and(crate::schema::constraint::asserted_format);
        if asserts_format {
            return self.push(Node::Unsure);
        }
        if let Some(reference) = keywords.reference {
            return match reference.as_str() {
                Some(reference) if keywords.alone => self.reference(reference),
                _ => self.push(Node::Unsure),
            };
        }
        if !keywords.known {
            return self.push(Node::Unsure);
        }
        match self.typed(&keywords, depth) {
            Some(typed) => self.push(Node::Typed(typed)),
            None => self.push(Node::Unsure),
        }
    }

    fn reference(&mut self, reference: &'s str) -> Id {
        if let Some(&id) = self.refs.get(reference) {
            return id;
        }
        let Some(target) = crate::schema::refs::target(self.root, reference) else {
            return self.push(Node::Unsure);
        };
        // Reserve the slot first so recursive references terminate.
        let id = self.push(Node::Unsure);
        self.refs.insert(reference, id);
        let inner = self.schema(target, 0, false);
        self.nodes[id as usize] = std::mem::replace(&mut self.nodes[inner as usize], Node::Unsure);
        // `inner` may itself be the target of a reference compiled inside
        // it; point it back at the moved node's place.
        self.refs
            .values_mut()
            .filter(|v| **v == inner)
            .for_each(|v| *v = id);
        id
    }

    fn typed(&mut self, schema: &Keywords<'s>, depth: usize) -> Option<Typed> {
        let mut typed = Typed {
            types: ty::admitted(schema.kind)?,
            ..Typed::default()
        };
        match (schema.values, schema.constant) {
            (Some(Value::Array(values)), None) => typed.values = Some(values.clone()),
            (None, Some(value)) => typed.values = Some(vec![value.clone()]),
            (None, None) => {}
            _ => return None,
        }
        // Numbers in `enum` compare by value in JSON Schema (1 == 1.0),
        // by representation in serde_json: leave them to the validator.
        if typed
            .values
            .as_ref()
            .is_some_and(|vs| vs.iter().any(contains_number))
        {
            return None;
        }
        let mut required: Vec<&str> = Vec::new();
        match schema.required {
            None => {}
            Some(Value::Array(names)) => {
                for name in names {
                    required.push(name.as_str()?);
                }
            }
            Some(_) => return None,
        }
        match schema.properties {
            None => {}
            Some(Value::Object(properties)) => {
                for (name, sub) in properties {
                    let id = self.schema(sub, depth + 1, false);
                    let is_required = required.contains(&name.as_str());
                    typed
                        .properties
                        .push((name.as_str().into(), id, is_required));
                }
            }
            Some(_) => return None,
        }
        required.sort_unstable();
        required.dedup();
        // A required name that is not declared needs a lookup: leave it.
        if required
            .iter()
            .any(|r| !typed.properties.iter().any(|p| *p.0 == **r))
        {
            return None;
        }
        typed.required = required.len();
        typed.additional = match schema.additional {
            None | Some(Value::Bool(true)) => Additional::Any,
            Some(Value::Bool(false)) => Additional::Deny,
            Some(sub @ Value::Object(_)) => Additional::Schema(self.schema(sub, depth + 1, false)),
            Some(_) => return None,
        };
        typed.items = match schema.items {
            None | Some(Value::Bool(true)) => None,
            Some(sub @ Value::Object(_)) => Some(self.schema(sub, depth + 1, false)),
            Some(_) => return None,
        };
        typed.min_items = count(schema.min_items)?;
        typed.max_items = count(schema.max_items)?;
        typed.min_length = count(schema.min_length)?;
        typed.max_length = count(schema.max_length)?;
        typed.minimum = bound(schema.minimum)?;
        typed.maximum = bound(schema.maximum)?;
        typed.exclusive_minimum = bound(schema.exclusive_minimum)?;
        typed.exclusive_maximum = bound(schema.exclusive_maximum)?;
        typed.simple = simple(
            &typed,
            |id| matches!(&self.nodes[id as usize], Node::Typed(t) if matches!(t.simple, Simple::String)),
        );
        Some(typed)
    }
}

/// The keywords of one schema object, found in one pass over its members
/// (a lookup by name hashes the name, and there are a dozen to look up).
#[derive(Default)]
struct Keywords<'s> {
    reference: Option<&'s Value>,
    format: Option<&'s Value>,
    kind: Option<&'s Value>,
    values: Option<&'s Value>,
    constant: Option<&'s Value>,
    required: Option<&'s Value>,
    properties: Option<&'s Value>,
    additional: Option<&'s Value>,
    items: Option<&'s Value>,
    min_items: Option<&'s Value>,
    max_items: Option<&'s Value>,
    min_length: Option<&'s Value>,
    max_length: Option<&'s Value>,
    minimum: Option<&'s Value>,
    maximum: Option<&'s Value>,
    exclusive_minimum: Option<&'s Value>,
    exclusive_maximum: Option<&'s Value>,
    /// Every member is an annotation, a keyword the check evaluates (a
    /// field above), an `x-` extension or (at the root) `$id`.
    known: bool,
    /// Every member is `$ref`, an annotation or an `x-` extension.
    alone: bool,
}

impl<'s> Keywords<'s> {
    fn of(obj: &'s Map<String, Value>, root: bool) -> Keywords<'s> {
        let mut k = Keywords {
            known: true,
            alone: true,
            ..Keywords::default()
        };
        for (key, value) in obj {
            let key = key.as_str();
            let slot = match key {
                "$ref" => {
                    k.reference = Some(value);
                    // Not known, but the reference decides first.
                    continue;
                }
                "format" => &mut k.format,
                "type" => &mut k.kind,
                "enum" => &mut k.values,
                "const" => &mut k.constant,
                "required" => &mut k.required,
                "properties" => &mut k.properties,
                "additionalProperties" => &mut k.additional,
                "items" => &mut k.items,
                "minItems" => &mut k.min_items,
                "maxItems" => &mut k.max_items,
                "minLength" => &mut k.min_length,
                "maxLength" => &mut k.max_length,
                "minimum" => &mut k.minimum,
                "maximum" => &mut k.maximum,
                "exclusiveMinimum" => &mut k.exclusive_minimum,
                "exclusiveMaximum" => &mut k.exclusive_maximum,
                _ => {
                    if !(ANNOTATIONS.contains(&key) || key.starts_with("x-")) {
                        k.alone = false;
                        k.known &= root && key == "$id";
                    }
                    continue;
                }
            };
            *slot = Some(value);
            // `format` is an annotation; the rest are evaluated.
            k.alone &= key == "format";
        }
        k
    }
}

/// The fast path for a compiled leaf, if it is one of the common ones.
fn simple(typed: &Typed, plain_string: impl Fn(Id) -> bool) -> Simple {
    let unconstrained = typed.min_length.is_none() && typed.max_length.is_none();
    let bounds = |x: Option<f64>, default: i64| match x {
        None => Some(default),
        Some(x) if x.fract() == 0.0 && x.abs() <= EXACT => Some(x as i64),
        Some(_) => None,
    };
    match (typed.types, &typed.values) {
        (ty::ARRAY, None)
            if typed.min_items.is_none()
                && typed.max_items.is_none()
                && typed.items.is_some_and(&plain_string) =>
        {
            Simple::StringArray
        }
        (ty::INTEGER, None)
            if typed.exclusive_minimum.is_none() && typed.exclusive_maximum.is_none() =>
        {
            match (
                bounds(typed.minimum, i64::MIN),
                bounds(typed.maximum, i64::MAX),
            ) {
                (Some(min), Some(max)) => Simple::Integer(min, max),
                _ => Simple::No,
            }
        }
        (ty::STRING, None) if unconstrained => Simple::String,
        (ty::BOOLEAN, None) => Simple::Boolean,
        (ty::STRING | ty::ALL, Some(values)) if unconstrained => {
            match values.iter().map(|v| v.as_str().map(Into::into)).collect() {
                Some(strings) => Simple::StringEnum(strings),
                None => Simple::No,
            }
        }
        _ => Simple::No,
    }
}

fn contains_number(value: &Value) -> bool {
    match value {
        Value::Number(_) => true,
        Value::Array(items) => items.iter().any(contains_number),
        Value::Object(members) => members.values().any(contains_number),
        _ => false,
    }
}

/// `Some(None)` when absent, `None` when present but not a count.
fn count(keyword: Option<&Value>) -> Option<Option<u64>> {
    match keyword {
        None => Some(None),
        Some(value) => value.as_u64().map(Some),
    }
}

/// `Some(None)` when absent, `None` when present but not a number exact as
/// a double (draft-04's boolean `exclusiveMinimum`, say).
fn bound(keyword: Option<&Value>) -> Option<Option<f64>> {
    match keyword {
        None => Some(None),
        Some(Value::Number(n)) => crate::schema::constraint::exact(n)
            .filter(|x| x.is_finite())
            .map(Some),
        Some(_) => None,
    }
}
