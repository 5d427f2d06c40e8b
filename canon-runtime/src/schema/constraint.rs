//! The assertions a published schema makes beyond types (bounds, lengths,
//! patterns, formats, item and member counts, enumerated values), compiled
//! once into the binding plan and checked during the single pass.
//!
//! The checks here decide only "certainly valid": a value they cannot
//! vouch for (a bound compared beyond the exact range of a double, an item
//! of a set that is not a scalar, a keyword this module does not read)
//! fails the pass, and the failure path asks `jsonschema`, which stays the
//! authority: a call it accepts is then bound all the same. So a check here
//! may be stricter than the schema, never looser.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use serde_json::{Map, Number, Value};

use crate::schema::types as ty;

/// Integers beyond this are not compared as doubles.
const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Keywords that assert something this module does not check: a value at
/// a position whose schema holds one is left to `jsonschema`.
const UNCHECKED: [&str; 13] = [
    "patternProperties",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Keywords the single pass checks itself.
const CHECKED: [&str; 15] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "not",
];

/// True when `schema` asserts something of a value beyond its type (and
/// `enum`/`const`, which also narrow the type).
pub(crate) fn asserts(schema: &Map<String, Value>) -> bool {
    CHECKED
        .iter()
        .chain(UNCHECKED.iter())
        .any(|k| schema.contains_key(*k))
}

/// A JSON number as the single pass sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Num {
    U(u64),
    I(i64),
    F(f64),
}

/// `n` as a double when the double is `n` itself: any double, and an
/// integer within 2^53 (`2^53 + 1` would be read as 2^53).
pub(crate) fn exact(n: &Number) -> Option<f64> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => (u <= EXACT as u64).then_some(u as f64),
        (_, Some(i)) => (i.unsigned_abs() <= EXACT as u64).then_some(i as f64),
        _ => n.as_f64(),
    }
}

impl Num {
    /// The number as a double, when that is exact.
    fn exact(self) -> Option<f64> {
        // The integer's own magnitude: `2^53 + 1` as a double is 2^53.
        match self {
            Num::U(u) => (u <= EXACT as u64).then_some(u as f64),
            Num::I(i) => (i.unsigned_abs() <= EXACT as u64).then_some(i as f64),
            Num::F(f) => f.is_finite().then_some(f),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn is_integral(self) -> bool {
        match self {
            Num::U(_) | Num::I(_) => true,
            Num::F(f) => integral(f),
        }
    }

    /// The JSON types this number is (`5.0` is an integer too).
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn types(self) -> u8 {
        if self.is_integral() {
            ty::NUMBER | ty::INTEGER
        } else {
            ty::NUMBER
        }
    }

    /// Equal as JSON Schema compares numbers (`1 == 1.0`); false when that
    /// cannot be told exactly.
    fn equals(self, n: &Number) -> bool {
        if let (Num::U(a), Some(b)) = (self, n.as_u64()) {
            return a == b;
        }
        if let (Num::I(a), Some(b)) = (self, n.as_i64()) {
            return a == b;
        }
        match (self.exact(), n.as_f64()) {
            (Some(a), Some(b)) => a == b && b.abs() <= EXACT,
            _ => false,
        }
    }
}

/// True when the double `f` is past the range of `f32`: it would round to
/// infinity. `3.4028235e38`, how Rust prints `f32::MAX`, is a little over
/// `f32::MAX` as a double and rounds to it, so it is within.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn beyond_f32(f: f64) -> bool {
    (f as f32).is_infinite() && f.is_finite()
}

/// True when the double `f` is a whole number (without a call to `trunc`:
/// every double of magnitude 2^52 or more is whole).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn integral(f: f64) -> bool {
    f.is_finite() && (f.abs() >= 4_503_599_627_370_496.0 || (f as i64) as f64 == f)
}

/// Numeric bounds, the inclusive and exclusive forms folded into one
/// lower and one upper bound.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    lo: f64,
    lo_strict: bool,
    hi: f64,
    hi_strict: bool,
    /// `multipleOf`, or 0 for none.
    multiple: f64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            lo: f64::NEG_INFINITY,
            lo_strict: false,
            hi: f64::INFINITY,
            hi_strict: false,
            multiple: 0.0,
        }
    }
}

impl Bounds {
    /// True when `n` is certainly within the bounds.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn hold(&self, n: Num) -> bool {
        let x = match n {
            Num::U(u) if u <= EXACT as u64 => u as f64,
            Num::I(i) if i.unsigned_abs() <= EXACT as u64 => i as f64,
            Num::F(f) => f,
            _ => return false,
        };
        let above = x > self.lo || (!self.lo_strict && x == self.lo);
        let below = x < self.hi || (!self.hi_strict && x == self.hi);
        above && below && (self.multiple == 0.0 || multiple_of(x, self.multiple))
    }
}

/// An integral multiple of an integral `m`; a fractional multiple is left
/// to `jsonschema`, which rounds as it sees fit.
#[inline]
fn multiple_of(x: f64, m: f64) -> bool {
    m.fract() == 0.0 && m > 0.0 && x.fract() == 0.0 && x.abs() <= EXACT && x % m == 0.0
}

/// Two words that together hold every byte of a key of at most sixteen
/// bytes (its length told apart by the caller), and the first and last
/// eight of a longer one.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn words(key: &[u8]) -> (u64, u64) {
    let n = key.len();
    let word = |at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&key[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let half = |at: usize| {
        let mut w = [0; 4];
        w.copy_from_slice(&key[at..at + 4]);
        u64::from(u32::from_le_bytes(w))
    };
    if n >= 8 {
        (word(0), word(n - 8))
    } else if n >= 4 {
        (half(0), half(n - 4))
    } else if n > 0 {
        let small = u64::from(key[0]) << 16 | u64::from(key[n / 2]) << 8 | u64::from(key[n - 1]);
        (small, 0)
    } else {
        (0, 0)
    }
}

/// Whether `name` and `key`, of one length and with the same
/// [`words`], are the same: up to 32 bytes by two more words each, without
/// a call to compare strings.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn same_rest(name: &str, key: &str) -> bool {
    let (a, b) = (name.as_bytes(), key.as_bytes());
    let n = a.len();
    if n <= 16 {
        return true;
    }
    if n > 32 {
        return a == b;
    }
    // With the first and last eight, these cover every byte.
    let word = |s: &[u8], at: usize| {
        let mut w = [0; 8];
        w.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(w)
    };
    word(a, 8) == word(b, 8) && word(a, n - 16) == word(b, n - 16)
}

/// The strings an `enum` or `const` lists, each told by its length and
/// two words (see [`words`]) before any byte is compared: an `enum` of a
/// few names is checked without a call to compare strings.
#[derive(Clone, Debug, Default)]
struct Strings {
    /// Each string, after its length and words.
    texts: Box<[(usize, Words, Box<str>)]>,
}

/// A key's [`words`].
type Words = (u64, u64);

impl Strings {
    fn new(values: &[Value]) -> Strings {
        Strings {
            texts: values
                .iter()
                .filter_map(Value::as_str)
                .map(|t| (t.len(), words(t.as_bytes()), t.into()))
                .collect(),
        }
    }

    /// Whether `s` is one of the strings.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn contains(&self, s: &str) -> bool {
        let (len, words) = (s.len(), words(s.as_bytes()));
        for (n, w, text) in &*self.texts {
            if *n == len && *w == words && same_rest(text, s) {
                return true;
            }
        }
        false
    }
}

/// One schema object's assertions.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    /// The JSON types the schema object admits.
    pub(crate) types: u8,
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    multiple_of: Option<f64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// `pattern` and `format`, as `jsonschema` reads them.
    string: Option<jsonschema::Validator>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    pub(crate) unique: bool,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    /// `enum`, or `const` as a one-value list.
    values: Option<Vec<Value>>,
    /// The strings among `values`, to tell a string by.
    strings: Strings,
    /// `not: {"const": ..}` and `not: {"enum": [..]}`.
    excluded: Vec<Value>,
    /// A keyword not checked here: no value is vouched for.
    unsure: bool,
    /// Some numeric bound or `multipleOf` is set.
    numeric: bool,
    /// `enum`, `const` or `not` lists values.
    listing: bool,
    /// The numeric bounds, folded.
    bounds: Bounds,
}

impl Rules {
    /// The assertions of `schema`; `None` when it makes none.
    ///
    /// `derived`: the schema was derived from the Rust type the value binds
    /// to, whose integer type already holds the range its `format` names.
    pub(crate) fn compile(schema: &Map<String, Value>, types: u8, derived: bool) -> Option<Rules> {
        let mut rules = Rules {
            types,
            ..Rules::default()
        };
        let number = |key: &str, unsure: &mut bool| match schema.get(key) {
            None => None,
            Some(Value::Number(n)) => match exact(n) {
                Some(x) => Some(x),
                None => {
                    *unsure = true;
                    None
                }
            },
            Some(_) => {
                // Draft-04's boolean `exclusiveMaximum`, or a malformed one.
                *unsure = true;
                None
            }
        };
        let mut unsure = false;
        rules.minimum = number("minimum", &mut unsure);
        rules.maximum = number("maximum", &mut unsure);
        if derived {
            if let Some((least, most)) = schema
                .get("format")
                .and_then(Value::as_str)
                .and_then(integer_range)
            {
                rules.minimum = rules.minimum.filter(|&m| m > least);
                rules.maximum = rules.maximum.filter(|&m| m < most);
            }
        }
        rules.exclusive_minimum = number("exclusiveMinimum", &mut unsure);
        rules.exclusive_maximum = number("exclusiveMaximum", &mut unsure);
        rules.multiple_of = number("multipleOf", &mut unsure);
        let count = |key: &str, unsure: &mut bool| match schema.get(key) {
            None => None,
            Some(v) => {
                let n = v.as_u64();
                *unsure |= n.is_none();
                n
            }
        };
        rules.min_length = count("minLength", &mut unsure);
        rules.max_length = count("maxLength", &mut unsure);
        rules.min_items = count("minItems", &mut unsure);
        rules.max_items = count("maxItems", &mut unsure);
        rules.min_properties = count("minProperties", &mut unsure);
        rules.max_properties = count("maxProperties", &mut unsure);
        rules.unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
        rules.values = match (schema.get("enum"), schema.get("const")) {
            (_, Some(value)) => Some(vec![value.clone()]),
            (Some(Value::Array(values)), None) => Some(values.clone()),
            (Some(_), None) => {
                unsure = true;
                None
            }
            (None, None) => None,
        };
        rules.strings = Strings::new(rules.values.as_deref().unwrap_or_default());
        match schema.get("not") {
            None => {}
            Some(Value::Object(not)) if not.len() == 1 && not.contains_key("const") => {
                rules.excluded.push(not["const"].clone());
            }
            Some(Value::Object(not)) if not.len() == 1 => match not.get("enum") {
                Some(Value::Array(values)) => rules.excluded.extend(values.iter().cloned()),
                _ => unsure = true,
            },
            Some(_) => unsure = true,
        }
        let pattern = schema.get("pattern");
        let format = schema
            .get("format")
            .filter(|f| f.as_str().is_some_and(asserted_format));
        if pattern.is_some() || format.is_some() {
            let mut sub = Map::new();
            if let Some(pattern) = pattern {
                sub.insert("pattern".into(), pattern.clone());
            }
            if let Some(format) = format {
                sub.insert("format".into(), format.clone());
            }
            match string_validator(&Value::Object(sub)) {
                Some(validator) => rules.string = Some(validator),
                None => unsure = true,
            }
        }
        unsure |= UNCHECKED.iter().any(|k| schema.contains_key(*k));
        rules.unsure = unsure;
        rules.numeric = rules.minimum.is_some()
            || rules.maximum.is_some()
            || rules.exclusive_minimum.is_some()
            || rules.exclusive_maximum.is_some()
            || rules.multiple_of.is_some();
        let mut bounds = Bounds::default();
        if let Some(m) = rules.minimum {
            bounds.lo = m;
        }
        if let Some(m) = rules.exclusive_minimum {
            if m >= bounds.lo {
                (bounds.lo, bounds.lo_strict) = (m, true);
            }
        }
        if let Some(m) = rules.maximum {
            bounds.hi = m;
        }
        if let Some(m) = rules.exclusive_maximum {
            if m <= bounds.hi {
                (bounds.hi, bounds.hi_strict) = (m, true);
            }
        }
        // A `multipleOf` of 0 or less is no schema `jsonschema` compiles.
        bounds.multiple = rules
            .multiple_of
            .map_or(0.0, |m| if m > 0.0 { m } else { f64::NAN });
        rules.bounds = bounds;
        rules.listing = rules.values.is_some() || !rules.excluded.is_empty();
        rules.is_some().then_some(rules)
    }

    /// Assertions that vouch for no value: the failure path decides.
    pub(crate) fn unsure() -> Rules {
        Rules {
            types: ty::ALL,
            unsure: true,
            numeric: false,
            listing: false,
            ..Rules::default()
        }
    }

    fn is_some(&self) -> bool {
        self.minimum.is_some()
            || self.maximum.is_some()
            || self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
            || self.multiple_of.is_some()
            || self.min_length.is_some()
            || self.max_length.is_some()
            || self.string.is_some()
            || self.min_items.is_some()
            || self.max_items.is_some()
            || self.unique
            || self.min_properties.is_some()
            || self.max_properties.is_some()
            || self.values.is_some()
            || !self.excluded.is_empty()
            || self.unsure
    }

    /// True when the schema object certainly accepts the number `n`.
    #[inline]
    fn number(&self, n: Num) -> bool {
        if self.unsure
            || (self.listing && !self.listed(|v| matches!(v, Value::Number(b) if n.equals(b))))
        {
            return false;
        }
        !self.numeric || self.bounds.hold(n)
    }

    #[inline]
    fn string(&self, s: &str) -> bool {
        let listed = || {
            (self.values.is_none() || self.strings.contains(s))
                && !self.excluded.iter().any(|v| v.as_str() == Some(s))
        };
        if self.unsure || (self.listing && !listed()) {
            return false;
        }
        // A string of `b` bytes has from `b / 4` to `b` characters: most
        // strings are decided without counting.
        let bytes = s.len() as u64;
        let short = self.max_length.is_some_and(|m| bytes > m);
        let long = self.min_length.is_some_and(|m| bytes.div_ceil(4) < m);
        if short || long {
            let n = s.chars().count() as u64;
            if self.min_length.is_some_and(|m| n < m) || self.max_length.is_some_and(|m| n > m) {
                return false;
            }
        }
        match &self.string {
            None => true,
            Some(validator) => validator.is_valid(&Value::String(s.to_owned())),
        }
    }

    #[inline]
    fn scalar(&self, value: &Value) -> bool {
        !self.unsure && (!self.listing || self.listed(|v| v == value))
    }

    /// An array of `len` items so far (`done`: and no more).
    #[inline]
    fn items(&self, len: u64, done: bool) -> bool {
        if self.unsure || self.listing {
            return false;
        }
        !(self.max_items.is_some_and(|m| len > m)
            || done && self.min_items.is_some_and(|m| len < m))
    }

    /// An object of `len` members so far (`done`: and no more).
    #[inline]
    fn members(&self, len: u64, done: bool) -> bool {
        if self.unsure || self.listing {
            return false;
        }
        !(self.max_properties.is_some_and(|m| len > m)
            || done && self.min_properties.is_some_and(|m| len < m))
    }

    /// True when `enum`/`const` list the value (or there is no list) and
    /// `not` does not exclude it.
    fn listed(&self, is: impl Fn(&Value) -> bool) -> bool {
        self.values
            .as_ref()
            .is_none_or(|values| values.iter().any(&is))
            && !self.excluded.iter().any(is)
    }
}

/// The range of the Rust integer type schemars names by `format`.
fn integer_range(format: &str) -> Option<(f64, f64)> {
    Some(match format {
        "uint8" => (0.0, f64::from(u8::MAX)),
        "uint16" => (0.0, f64::from(u16::MAX)),
        "uint32" => (0.0, f64::from(u32::MAX)),
        "uint64" | "uint" => (0.0, u64::MAX as f64),
        "int8" => (f64::from(i8::MIN), f64::from(i8::MAX)),
        "int16" => (f64::from(i16::MIN), f64::from(i16::MAX)),
        "int32" => (f64::from(i32::MIN), f64::from(i32::MAX)),
        "int64" | "int" => (i64::MIN as f64, i64::MAX as f64),
        _ => return None,
    })
}

/// Formats checked as assertions: those `jsonschema` implements. Formats
/// it does not know (schemars' `uint32`, `double`, ...) only annotate.
pub(crate) fn asserted_format(format: &str) -> bool {
    ASSERTED_FORMATS.contains(&format)
}

/// The formats canon asserts, as JSON Schema 2020-12's format-assertion
/// vocabulary defines them.
pub(crate) const ASSERTED_FORMATS: [&str; 19] = [
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
    "uuid",
];

fn string_validator(schema: &Value) -> Option<jsonschema::Validator> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .ok()
}

/// The assertions at one plan position: a value is vouched for when some
/// schema object of the position admits its type and asserts nothing, or
/// one that admits it certainly accepts it.
#[derive(Debug, Default)]
pub(crate) struct Assert {
    /// The types admitted by a schema object with no assertion.
    free: u8,
    alternatives: Vec<Arc<Rules>>,
    /// When one schema object asserts anything of numbers, and only
    /// bounds: the types it admits, and the bounds.
    bounds: Option<(u8, Bounds)>,
    /// When one schema object asserts anything of arrays, and only their
    /// length: the least and most items.
    counts: Option<(u64, u64)>,
    /// When one schema object asserts anything of strings, and only that
    /// they are among the strings of its `enum` or `const`: those strings.
    names: Option<Strings>,
}

impl Assert {
    /// True when a value here is left to `jsonschema` whatever it is.
    #[cfg(test)]
    pub(crate) fn is_unsure(&self) -> bool {
        self.alternatives.iter().any(|r| r.unsure)
    }

    /// The assertions of `alternatives`, beside schema objects admitting
    /// `free` that assert nothing.
    pub(crate) fn new(free: u8, alternatives: Vec<Arc<Rules>>) -> Assert {
        let numeric = ty::NUMBER | ty::INTEGER;
        let mut asserting = alternatives.iter().filter(|r| r.types & numeric != 0);
        let bounds = match (asserting.next(), asserting.next()) {
            (Some(r), None) if !r.unsure && !r.listing => Some((r.types, r.bounds)),
            _ => None,
        };
        let mut asserting = alternatives.iter().filter(|r| r.types & ty::ARRAY != 0);
        let counts = match (asserting.next(), asserting.next()) {
            (Some(r), None) if !r.unsure && !r.listing => {
                Some((r.min_items.unwrap_or(0), r.max_items.unwrap_or(u64::MAX)))
            }
            _ => None,
        };
        let mut asserting = alternatives.iter().filter(|r| r.types & ty::STRING != 0);
        let names = match (asserting.next(), asserting.next()) {
            (Some(r), None)
                if free & ty::STRING == 0
                    && !r.unsure
                    && r.values.is_some()
                    && r.excluded.is_empty()
                    && r.min_length.is_none()
                    && r.max_length.is_none()
                    && r.string.is_none() =>
            {
                Some(r.strings.clone())
            }
            _ => None,
        };
        Assert {
            free,
            alternatives,
            bounds,
            counts,
            names,
        }
    }

    /// When all this asserts is that a value here is one of a list of
    /// distinct strings (a unit-only `enum`, as one `enum` or as a `const`
    /// for each variant, perhaps beside `null`): those strings.
    pub(crate) fn names_only(&self) -> Option<Vec<&str>> {
        if self.free & !ty::NULL != 0 || self.alternatives.is_empty() {
            return None;
        }
        let mut names: Vec<&str> = Vec::new();
        for rules in &self.alternatives {
            let values = rules.values.as_ref()?;
            let only_strings = rules.types == ty::STRING
                && !rules.unsure
                && rules.excluded.is_empty()
                && rules.min_length.is_none()
                && rules.max_length.is_none()
                && rules.string.is_none();
            if !only_strings {
                return None;
            }
            for value in values {
                let name = value.as_str()?;
                // A string two alternatives list is refused by `oneOf`.
                if names.contains(&name) {
                    return None;
                }
                names.push(name);
            }
        }
        Some(names)
    }

    /// True when every type admitted here with an assertion is also
    /// admitted without one: nothing to check.
    pub(crate) fn is_vacuous(&self) -> bool {
        let constrained = self.alternatives.iter().fold(0, |t, r| t | r.types);
        constrained & !self.free == 0
    }

    #[inline]
    fn any(&self, kind: u8, ok: impl Fn(&Rules) -> bool) -> bool {
        self.free & kind != 0
            || self
                .alternatives
                .iter()
                .any(|r| r.types & kind != 0 && ok(r))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn number(&self, n: Num) -> bool {
        let kind = n.types();
        // `5.0` is an integer to a schema; an integral double at a
        // `number` position is a number.
        if self.free & kind != 0 {
            return true;
        }
        match &self.bounds {
            Some((types, bounds)) => types & kind != 0 && bounds.hold(n),
            None => self.number_slow(n, kind),
        }
    }

    #[inline(never)]
    fn number_slow(&self, n: Num, kind: u8) -> bool {
        self.alternatives
            .iter()
            .any(|r| r.types & kind != 0 && r.number(n))
    }

    #[inline]
    pub(crate) fn string(&self, s: &str) -> bool {
        match &self.names {
            Some(names) => names.contains(s),
            None => self.any(ty::STRING, |r| r.string(s)),
        }
    }

    #[inline]
    pub(crate) fn boolean(&self, b: bool) -> bool {
        self.any(ty::BOOLEAN, |r| r.scalar(&Value::Bool(b)))
    }

    #[inline]
    pub(crate) fn null(&self) -> bool {
        self.any(ty::NULL, |r| r.scalar(&Value::Null))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn items(&self, len: u64, done: bool) -> bool {
        match self.counts {
            Some((least, most)) => len <= most && (!done || len >= least),
            None => self.any(ty::ARRAY, |r| r.items(len, done)),
        }
    }

    /// True when an array here must hold distinct items (every schema
    /// object admitting arrays says so, and none is free).
    #[inline]
    pub(crate) fn unique(&self) -> bool {
        self.free & ty::ARRAY == 0
            && self
                .alternatives
                .iter()
                .any(|r| r.types & ty::ARRAY != 0 && r.unique)
    }

    #[inline]
    pub(crate) fn members(&self, len: u64, done: bool) -> bool {
        self.any(ty::OBJECT, |r| r.members(len, done))
    }

    /// True when something is asserted of arrays here.
    #[inline]
    pub(crate) fn on_arrays(&self) -> bool {
        self.free & ty::ARRAY == 0 && self.alternatives.iter().any(|r| r.types & ty::ARRAY != 0)
    }

    /// True when something is asserted of objects here.
    #[inline]
    pub(crate) fn on_objects(&self) -> bool {
        self.free & ty::OBJECT == 0 && self.alternatives.iter().any(|r| r.types & ty::OBJECT != 0)
    }
}

/// The hash a scalar item of a set is remembered by: equal JSON values
/// (`1` and `1.0`) hash alike.
pub(crate) fn hash_scalar(value: Scalar<'_>) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(1).build_hasher();
    match value {
        Scalar::Null => 0u8.hash(&mut h),
        Scalar::Bool(b) => (1u8, b).hash(&mut h),
        Scalar::Str(s) => (2u8, s).hash(&mut h),
        Scalar::Num(n) => match n {
            Num::U(u) => (3u8, i128::from(u)).hash(&mut h),
            Num::I(i) => (3u8, i128::from(i)).hash(&mut h),
            Num::F(f) if f.fract() == 0.0 && f.abs() < 1e30 => (3u8, f as i128).hash(&mut h),
            Num::F(f) => (4u8, f.to_bits()).hash(&mut h),
        },
    }
    h.finish()
}

/// A scalar item, for [`hash_scalar`].
#[derive(Clone, Copy)]
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    Str(&'a str),
    Num(Num),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(schema: Value) -> Rules {
        let types = ty::ALL;
        Rules::compile(schema.as_object().unwrap(), types, false).unwrap()
    }

    #[test]
    fn numbers_within_bounds_and_multiples() {
        let r = rules(json!({"minimum": 1, "maximum": 11, "multipleOf": 2}));
        assert!(r.number(Num::U(2)));
        assert!(r.number(Num::F(10.0)));
        assert!(!r.number(Num::U(12)));
        assert!(!r.number(Num::U(3)));
        assert!(!r.number(Num::I(-2)));
        assert!(!r.number(Num::U(u64::MAX)), "beyond 2^53: not vouched for");
        let r = rules(json!({"exclusiveMaximum": 2.5}));
        assert!(r.number(Num::F(2.4)));
        assert!(!r.number(Num::F(2.5)));
    }

    #[test]
    fn strings_by_length_pattern_and_format() {
        let r = rules(json!({"minLength": 2, "maxLength": 3, "pattern": "^[a-z]+$"}));
        assert!(r.string("ab"));
        assert!(
            rules(json!({"maxLength": 2})).string("éé"),
            "lengths count characters"
        );
        assert!(!r.string("a"));
        assert!(!r.string("abcd"));
        assert!(!r.string("AB"));
        let r = rules(json!({"format": "email"}));
        assert!(r.string("ada@example.com"));
        assert!(!r.string("ada"));
        assert!(
            Rules::compile(json!({"format": "uint32"}).as_object().unwrap(), 0, false).is_none()
        );
    }

    #[test]
    fn enumerated_and_excluded_values() {
        let r = rules(json!({"enum": [1, "a", null]}));
        assert!(r.number(Num::F(1.0)));
        assert!(r.string("a"));
        assert!(!r.string("b"));
        assert!(r.scalar(&Value::Null));
        let r = rules(json!({"not": {"const": 0}}));
        assert!(!r.number(Num::U(0)));
        assert!(r.number(Num::U(1)));
        assert!(rules(json!({"not": {"type": "string"}})).unsure);
        assert!(rules(json!({"if": {}})).unsure);
    }

    #[test]
    fn a_derived_integer_leaves_its_own_range_to_its_type() {
        let schema = json!({"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255});
        let schema = schema.as_object().unwrap();
        assert!(Rules::compile(schema, ty::INTEGER, true).is_none());
        assert!(Rules::compile(schema, ty::INTEGER, false).is_some());
        let narrower = json!({"type": "integer", "format": "uint8", "minimum": 1, "maximum": 255});
        let rules = Rules::compile(narrower.as_object().unwrap(), ty::INTEGER, true).unwrap();
        assert!(!rules.number(Num::U(0)));
        assert!(rules.number(Num::U(255)));
    }

    #[test]
    fn equal_numbers_hash_alike() {
        assert_eq!(
            hash_scalar(Scalar::Num(Num::U(1))),
            hash_scalar(Scalar::Num(Num::F(1.0)))
        );
        assert_eq!(
            hash_scalar(Scalar::Num(Num::I(-1))),
            hash_scalar(Scalar::Num(Num::F(-1.0)))
        );
        assert_ne!(
            hash_scalar(Scalar::Str("1")),
            hash_scalar(Scalar::Num(Num::U(1)))
        );
    }

    #[test]
    fn an_enum_of_strings_is_told_by_its_strings_alone() {
        let listed = [
            "",
            "a",
            "in",
            "ne",
            "eq",
            "abcd",
            "abcdefg",
            "abcdefgh",
            "sixteen_bytes_ab",
            "seventeen_bytes_a",
            "a_name_of_thirty_two_bytes_long!",
            "a_name_longer_than_thirty_two_bytes",
        ];
        let values: Vec<Value> = listed.iter().map(|s| json!(s)).collect();
        let schema = json!({"type": "string", "enum": values});
        let rules =
            Arc::new(Rules::compile(schema.as_object().unwrap(), ty::STRING, true).unwrap());
        let assert = Assert::new(0, vec![rules.clone()]);
        assert!(assert.names.is_some(), "the fast path is taken");
        // The same strings with one byte changed anywhere, or one more or
        // fewer, are not listed.
        let mut probes: Vec<String> = Vec::new();
        for s in listed {
            probes.push(s.to_owned());
            probes.push(format!("{s}x"));
            if let Some(cut) = s.get(..s.len().saturating_sub(1)) {
                probes.push(cut.to_owned());
            }
            for at in 0..s.len() {
                let mut bytes = s.as_bytes().to_vec();
                bytes[at] ^= 1;
                probes.push(String::from_utf8(bytes).unwrap());
            }
        }
        for probe in &probes {
            let expected = listed.contains(&probe.as_str());
            assert_eq!(assert.string(probe), expected, "{probe:?}");
            assert_eq!(rules.string(probe), expected, "{probe:?}");
        }
        // Anything more than the list keeps the general path.
        for more in [
            json!({"minLength": 2}),
            json!({"not": {"const": "a"}}),
            json!({"pattern": "a"}),
        ] {
            let mut schema = schema.clone();
            schema
                .as_object_mut()
                .unwrap()
                .extend(more.as_object().unwrap().clone());
            let rules = Rules::compile(schema.as_object().unwrap(), ty::STRING, true).unwrap();
            assert!(
                Assert::new(0, vec![Arc::new(rules)]).names.is_none(),
                "{schema}"
            );
        }
    }
}
