//! Canonicalizing calls against any JSON Schema, with no Rust type behind
//! the tool: the path of MCP clients, proxies and `canon replay`.

use crate::schema::{refs, MAX_DEPTH};
use std::borrow::Cow;
use std::fmt::{self, Write};
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::bind::diagnose;
use crate::bind::policy::Policy;
use crate::bind::rule::{self, Fix, Refusal};
use crate::bind::telemetry;
use crate::feedback::BindError;
use crate::limits::Limits;
use crate::repair::{Repair, RepairRule};
use crate::schema::accept::Check;
use crate::schema::plan::{NodeId, Plan};
use crate::schema::pointer;
use crate::schema::walk;

/// Binds calls of a tool known only by its JSON Schema: applies canon's
/// rules to the arguments in place and returns the repairs, or every
/// violation in the words a model reads.
///
/// The schema is compiled once into the same [`Plan`] the `#[tool]` path
/// uses, and the same rule implementation decides every repair. Accepted
/// schemas: draft 2020-12 and the draft-07 / OpenAPI-style schemas tools
/// publish in practice (`definitions`, `nullable: true`, type arrays). A
/// `$ref` to another document (or to nothing) is read as "anything": no
/// position under it is repaired, and the rest of the schema still
/// validates. A reference into the document itself is followed however it
/// is written: `#/...` (percent-encoded or not), or through the root's
/// `$id`; in a schema with a nested `$id`, every reference is left to the
/// validator to resolve.
///
/// ```
/// use canon::{Canonicalizer, RepairRule};
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "data_source_names": {"type": "array", "items": {"type": "string"}},
///         "limit": {"type": "integer"}
///     },
///     "required": ["data_source_names"]
/// });
/// let canon = Canonicalizer::new(&schema).unwrap();
///
/// let mut args = json!({"data_source_names": "dotnet/eshop"});
/// let repairs = canon.canonicalize(&mut args).unwrap();
/// assert_eq!(args, json!({"data_source_names": ["dotnet/eshop"]}));
/// assert_eq!(repairs[0].pointer, "/data_source_names");
/// assert_eq!(repairs[0].rule, RepairRule::ScalarToArray);
///
/// // Not repaired by the default policy: every violation, for the model.
/// let mut args = json!({"data_source_names": ["a"], "limit": "5"});
/// let error = canon.canonicalize(&mut args).unwrap_err();
/// assert_eq!(error.violations()[0].message, r#"expected an integer, got the string "5""#);
/// ```
pub struct Canonicalizer {
    tool: Cow<'static, str>,
    policy: Policy,
    closed: bool,
    limits: Limits,
    schema: Value,
    plan: Plan,
    check: Check,
    /// `format` asserted by the validator.
    formats: bool,
    /// Built when a call first needs it (most calls are decided by `check`
    /// alone), unless compiling had to build it to tell whether the schema
    /// is one.
    validator: OnceLock<jsonschema::Validator>,
}

/// How to compile a [`Canonicalizer`]: the tool's name (for errors and
/// telemetry), the policy, and whether undeclared properties are refused.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct CanonicalizerOptions {
    tool: Option<Cow<'static, str>>,
    policy: Policy,
    closed: bool,
    limits: Limits,
    formats: bool,
}

impl CanonicalizerOptions {
    /// The tool's name, shown in errors and recorded in telemetry (default
    /// `tool`).
    pub fn tool(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.tool = Some(name.into());
        self
    }

    /// The rules to apply (default: [`Policy::DEFAULT`]).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Refuse properties an object schema does not declare, even when the
    /// schema does not say `additionalProperties: false` (default: off, the
    /// schema is read as written).
    ///
    /// Models are told the parameters a tool takes; an undeclared one is a
    /// renamed or invented parameter, which most tool servers ignore
    /// silently. Closing applies to every schema with `properties` and no
    /// `additionalProperties`, `patternProperties` or
    /// `unevaluatedProperties`, except the branches of an `allOf`.
    pub fn closed_objects(mut self, on: bool) -> Self {
        self.closed = on;
        self
    }

    /// Check `format` as an assertion (default: off, as draft 2020-12 reads
    /// it: an annotation). On, a string must be in the format named, for
    /// the formats `jsonschema` implements (`date`, `date-time`, `duration`,
    /// `email`, `hostname`, `idn-email`, `idn-hostname`, `ipv4`, `ipv6`,
    /// `iri`, `iri-reference`, `json-pointer`, `regex`,
    /// `relative-json-pointer`, `time`, `uri`, `uri-reference`,
    /// `uri-template`, `uuid`); other formats still only annotate. A
    /// [`ToolSpec`](crate::toolbox::ToolSpec) binds with formats asserted: its schema
    /// is the one canon published.
    pub fn assert_formats(mut self, on: bool) -> Self {
        self.formats = on;
        self
    }

    /// Other [`Limits`] (default: [`Limits::default`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Compiles `schema`.
    ///
    /// # Errors
    /// A [`SchemaError`] when `schema` is not a JSON Schema (a keyword of
    /// the wrong type, say), with the validator's reason.
    pub fn compile(self, schema: &Value) -> Result<Canonicalizer, SchemaError> {
        let schema_in = schema;
        let schema = normalize(schema, self.closed);
        let validator = OnceLock::new();
        // A plain schema its meta-schema accepts always builds: its
        // validator waits until a call needs it. Any other is built now,
        // which is how it is known to be a schema.
        if !(plain(&schema, self.formats, 0) && jsonschema::meta::is_valid(&schema)) {
            let built = build(&schema, self.formats).map_err(|_| SchemaError::of(schema_in))?;
            let _ = validator.set(built);
        }
        Ok(Canonicalizer {
            tool: self.tool.unwrap_or(Cow::Borrowed("tool")),
            policy: self.policy,
            closed: self.closed,
            limits: self.limits,
            plan: Plan::compile_with(&schema, plan_policy(self.policy)),
            check: Check::compile(&schema, self.limits.max_depth, self.formats),
            formats: self.formats,
            schema,
            validator,
        })
    }
}

/// The validator of the normalized `schema`.
fn build(
    schema: &Value,
    formats: bool,
) -> Result<jsonschema::Validator, jsonschema::ValidationError<'static>> {
    jsonschema::options()
        .should_validate_formats(formats)
        .build(schema)
}

/// True when `jsonschema` builds a validator of `schema` whenever the
/// schema passes its meta-schema, so that building it can wait: draft
/// 2020-12, and every schema object made only of keywords whose
/// compilation refuses nothing the meta-schema admits, read as canon reads
/// them (known type names, counts that fit a `u64`), with no reference,
/// identifier, pattern, or (when formats assert) `format`. A `$schema`
/// member anywhere but at the root takes the validator's other route
/// (embedded resources): not plain either.
fn plain(schema: &Value, formats: bool, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let obj = match schema {
        Value::Bool(_) => return true,
        Value::Object(obj) => obj,
        _ => return false,
    };
    let sub = |value: &Value| match value {
        Value::Bool(_) => true,
        Value::Object(_) => plain(value, formats, depth + 1),
        _ => false,
    };
    obj.iter().all(|(key, value)| match key.as_str() {
        "$schema" => {
            depth == 0
                && matches!(
                    value.as_str(),
                    Some(
                        "https://json-schema.org/draft/2020-12/schema"
                            | "http://json-schema.org/draft/2020-12/schema"
                    )
                )
        }
        "type" => crate::schema::types::admitted(Some(value)).is_some(),
        "properties" => value.as_object().is_some_and(|properties| {
            properties
                .iter()
                .all(|(name, value)| name != "$schema" && sub(value))
        }),
        "additionalProperties" | "items" => sub(value),
        "required" => value
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string)),
        "enum" => value.is_array() && !names_schema(value, 0),
        "minItems" | "maxItems" | "minLength" | "maxLength" => value.as_u64().is_some(),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => value.is_number(),
        "format" => !formats && value.is_string(),
        "const" | "description" | "title" | "default" | "examples" | "$comment" | "deprecated"
        | "readOnly" | "writeOnly" => !names_schema(value, 0),
        key => key.starts_with("x-") && !names_schema(value, 0),
    })
}

/// True when a `$schema` member is anywhere in `value` (or it nests too
/// deep to tell).
fn names_schema(value: &Value, depth: usize) -> bool {
    match value {
        _ if depth > MAX_DEPTH => true,
        Value::Object(members) => members
            .iter()
            .any(|(key, value)| key == "$schema" || names_schema(value, depth + 1)),
        Value::Array(items) => items.iter().any(|item| names_schema(item, depth + 1)),
        _ => false,
    }
}

/// The rules a plan is compiled with for `policy`: a policy for calls made
/// against a strict declaration drops declared nulls, which takes the
/// positions `null_as_absent` would repair.
fn plan_policy(policy: Policy) -> Policy {
    if policy.nulls_declared() {
        policy.with(RepairRule::NullAsAbsent)
    } else {
        policy
    }
}

/// A schema that does not compile: where, which keyword, and why.
///
/// ```
/// use canon::Canonicalizer;
/// use serde_json::json;
///
/// let error = Canonicalizer::new(&json!({
///     "type": "object",
///     "properties": {"id": {"type": "string", "pattern": "(["}}
/// }))
/// .unwrap_err();
/// assert_eq!(error.pointer(), "/properties/id/pattern");
/// assert_eq!(error.keyword(), "pattern");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pointer: String,
    keyword: String,
    message: String,
}

impl SchemaError {
    /// The error `jsonschema` gives compiling `schema`, as canon reports
    /// it.
    fn from_validator(error: &jsonschema::ValidationError<'_>) -> SchemaError {
        let pointer = error.instance_path().as_str().to_owned();
        let keyword = match error.kind() {
            jsonschema::error::ValidationErrorKind::Referencing(_) => "$ref".to_owned(),
            _ => pointer
                .rsplit('/')
                .next()
                .map(|last| last.replace("~1", "/").replace("~0", "~"))
                .unwrap_or_default(),
        };
        SchemaError {
            pointer,
            keyword,
            message: error.to_string(),
        }
    }

    /// Why `schema` does not compile (told by compiling it as written, so
    /// the pointer is into the schema as given).
    fn of(schema: &Value) -> SchemaError {
        match jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
        {
            Err(error) => SchemaError::from_validator(&error),
            // Only canon's reading of it failed to compile.
            Ok(_) => SchemaError {
                pointer: String::new(),
                keyword: String::new(),
                message: "the schema does not compile once its references are resolved".to_owned(),
            },
        }
    }

    /// RFC 6901 JSON Pointer into the schema of the offending keyword's
    /// value (`/properties/id/pattern`); empty for the schema as a whole.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// The offending keyword (`pattern`, `type`, `$ref`), or empty when no
    /// one keyword is at fault.
    pub fn keyword(&self) -> &str {
        &self.keyword
    }

    /// Why the schema was refused, in the validator's words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the schema is not a valid JSON Schema")?;
        if !self.keyword.is_empty() {
            write!(f, ": keyword `{}`", self.keyword)?;
        }
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SchemaError {}

impl Canonicalizer {
    /// Compiles `schema` with the default policy, read as written.
    ///
    /// # Errors
    /// A [`SchemaError`] when `schema` is not a JSON Schema.
    pub fn new(schema: &Value) -> Result<Canonicalizer, SchemaError> {
        Canonicalizer::options().compile(schema)
    }

    /// Options to compile a canonicalizer with: tool name, policy, closed
    /// objects.
    ///
    /// ```
    /// use canon::{Canonicalizer, Policy};
    /// use serde_json::json;
    ///
    /// let canon = Canonicalizer::options()
    ///     .tool("get_weather")
    ///     .policy(Policy::all())
    ///     .compile(&json!({"type": "object", "properties": {"days": {"type": "integer"}}}))
    ///     .unwrap();
    /// let mut args = json!({"days": "3"});
    /// canon.canonicalize(&mut args).unwrap();
    /// assert_eq!(args, json!({"days": 3}));
    /// ```
    pub fn options() -> CanonicalizerOptions {
        CanonicalizerOptions::default()
    }

    /// The tool's name, as shown in errors.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The rules this canonicalizer applies.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// True when undeclared properties are refused
    /// ([`closed_objects`](CanonicalizerOptions::closed_objects)).
    pub fn closes_objects(&self) -> bool {
        self.closed
    }

    /// The schema calls are checked against: the given schema with
    /// `nullable` translated, unresolvable `$ref`s and an unknown
    /// `$schema` removed, and objects closed when asked.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The positions where the policy's rules may apply.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The compiled validator of [`schema`](Self::schema).
    pub(crate) fn validator(&self) -> &jsonschema::Validator {
        self.validator.get_or_init(|| {
            // Only a plain schema's validator is left unbuilt, and one
            // that passed its meta-schema always builds (see `plain`).
            build(&self.schema, self.formats).expect("a plain schema's validator builds")
        })
    }

    /// True when `args` is valid as sent, with no rule applied.
    pub fn is_valid(&self, args: &Value) -> bool {
        self.check.accepts(args) || self.validator().is_valid(args)
    }

    /// Applies the policy's rules to `args` in place and returns the
    /// repairs, in the order of the input (empty for a call valid as sent,
    /// which is then neither copied nor allocated for).
    ///
    /// A repair is kept only when the repaired value then validates at its
    /// position; every repair is recorded through `tracing` (target
    /// `canon::repair`, the pointer and rule, never the value).
    ///
    /// # Errors
    /// A [`BindError`] with every violation that remains, for the model;
    /// `args` is then left as sent.
    pub fn canonicalize(&self, args: &mut Value) -> Result<Vec<Repair>, BindError> {
        self.canonicalize_with(args, self.policy)
    }

    /// Parses arguments sent as JSON text (OpenAI's `arguments` string).
    ///
    /// # Errors
    /// A [`BindError`] with one [`Malformed`](crate::feedback::ViolationKind::Malformed)
    /// violation when `text` is not JSON, one
    /// [`TooLarge`](crate::feedback::ViolationKind::TooLarge) when it is over the size
    /// or depth bound, or a [`Duplicate`](crate::feedback::ViolationKind::Duplicate) for each
    /// member an object gives twice.
    pub fn parse(&self, text: &str) -> Result<Value, BindError> {
        match crate::bind::json::read(text, &self.limits) {
            Ok((value, duplicates)) if duplicates.is_empty() => Ok(value),
            Ok((_, mut duplicates)) => {
                // The first found are kept, the rest counted.
                let cap = self.limits.max_listed.max(1);
                let more = duplicates.len().saturating_sub(cap);
                duplicates.truncate(cap);
                Err(self.error_counting(crate::feedback::violations::duplicates(duplicates), more))
            }
            Err(violation) => Err(self.error(vec![violation])),
        }
    }

    /// The rejection listing `violations`, recorded.
    fn error(&self, violations: Vec<crate::feedback::Violation>) -> BindError {
        self.error_counting(violations, 0)
    }

    /// The rejection with `violations`, and `more` found but not kept.
    fn error_counting(
        &self,
        violations: Vec<crate::feedback::Violation>,
        more: usize,
    ) -> BindError {
        telemetry::reject(
            BindError::new(self.tool.clone(), violations)
                .with_unkept(more)
                .with_limits(&self.limits),
        )
    }

    /// [`canonicalize`](Self::canonicalize) under `policy`, which must not
    /// enable rules this canonicalizer was not compiled with.
    pub(crate) fn canonicalize_with(
        &self,
        args: &mut Value,
        policy: Policy,
    ) -> Result<Vec<Repair>, BindError> {
        if self.check.accepts(args) {
            return Ok(Vec::new());
        }
        self.repair(args, policy)
    }

    #[cold]
    #[inline(never)]
    fn repair(&self, args: &mut Value, policy: Policy) -> Result<Vec<Repair>, BindError> {
        let failure = match self.attempt(args, policy) {
            Ok(repairs) => return Ok(repairs),
            Err(failure) => failure,
        };
        Err(match failure {
            Failure::TooDeep => self.error(vec![self.limits.too_deep_violation()]),
            Failure::TooMany(n) => self.error(vec![self.limits.too_many_repairs(n)]),
            Failure::Refused(None, refused) => self.reject(args, refused),
            Failure::Refused(Some(repaired), refused) => {
                // `args` holds the call as repaired: diagnosed, then put
                // back as sent.
                let error = self.reject(args, refused);
                repaired.restore(args);
                error
            }
        })
    }

    /// [`canonicalize_with`](Self::canonicalize_with) for a caller that
    /// tells the model itself why a call is refused: `None`, with nothing
    /// diagnosed or recorded, when the rules cannot make `args` valid.
    pub(crate) fn canonicalize_quietly(
        &self,
        args: &mut Value,
        policy: Policy,
    ) -> Option<Vec<Repair>> {
        if self.check.accepts(args) {
            return Some(Vec::new());
        }
        match self.attempt(args, policy) {
            Ok(repairs) => Some(repairs),
            Err(Failure::Refused(Some(repaired), _)) => {
                repaired.restore(args);
                None
            }
            Err(_) => None,
        }
    }

    /// The rules of `policy` applied to `args`, kept only if the result
    /// validates: the repairs, or why not. The rules are applied in place,
    /// and what they replaced or dropped is kept to put back: `args` is as
    /// sent after a failure, except [`Failure::Refused`] with a
    /// [`Repaired`], which holds the call as repaired until restored.
    fn attempt(&self, args: &mut Value, policy: Policy) -> Result<Vec<Repair>, Failure> {
        if self.limits.too_deep(args) {
            return Err(Failure::TooDeep);
        }
        if self.validator().is_valid(args) {
            return Ok(Vec::new());
        }
        let Some(root) = self.plan.root_id() else {
            return Err(Failure::Refused(None, Vec::new()));
        };
        // Repairs whose result does not validate where they were made are
        // undone, one round at a time, until every kept repair holds.
        let mut skip: Vec<String> = Vec::new();
        loop {
            let mut walk = Walk {
                plan: &self.plan,
                policy,
                skip: &skip,
                repairs: Vec::new(),
                more_repairs: 0,
                max_repairs: self.limits.max_repairs,
                refused: Vec::new(),
                declared: 0,
                undo: Undo::default(),
            };
            walk.value(args, root, &mut String::new(), 0, None);
            let Walk {
                repairs,
                more_repairs,
                refused,
                declared,
                undo,
                ..
            } = walk;
            let repaired = Repaired { undo, repairs };
            if repaired.repairs.is_empty() && declared == 0 {
                // Nothing was changed.
                return Err(Failure::Refused(None, refused));
            }
            if repaired.repairs.len() + more_repairs > self.limits.max_repairs {
                let n = repaired.repairs.len() + more_repairs;
                repaired.restore(args);
                return Err(Failure::TooMany(n));
            }
            // Which repairs an error lies within, without keeping the
            // errors (a call can hold a million). A call the acceptance
            // check accepts has none.
            let mut invalid = false;
            let mut undo: Vec<String> = Vec::new();
            if !self.check.accepts(args) {
                let mut undone = vec![false; repaired.repairs.len()];
                for error in self.validator().iter_errors(args) {
                    invalid = true;
                    let at = error.instance_path().as_str();
                    for (repair, undone) in repaired.repairs.iter().zip(&mut undone) {
                        *undone |= pointer::is_within(at, &repair.pointer);
                    }
                }
                undo = repaired
                    .repairs
                    .iter()
                    .zip(&undone)
                    .filter(|(_, undone)| **undone)
                    .map(|(r, _)| r.pointer.clone().into_owned())
                    .collect();
            }
            if undo.is_empty() {
                if !invalid && refused.is_empty() {
                    for repair in &repaired.repairs {
                        telemetry::repair(&self.tool, repair);
                    }
                    return Ok(repaired.repairs);
                }
                return Err(Failure::Refused(Some(repaired), refused));
            }
            repaired.restore(args);
            skip.extend(undo);
        }
    }

    fn reject(&self, value: &Value, refused: Vec<Refusal>) -> BindError {
        let (violations, more) = diagnose::explain(
            &self.schema,
            Some(self.validator()),
            value,
            refused,
            self.limits.max_listed.max(1),
        );
        self.error_counting(violations, more)
    }
}

impl fmt::Debug for Canonicalizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Canonicalizer")
            .field("tool", &self.tool)
            .field("policy", &self.policy)
            .field("closed_objects", &self.closed)
            .field("positions", &self.plan.positions())
            .finish_non_exhaustive()
    }
}

/// Why the rules could not make a call valid.
enum Failure {
    TooDeep,
    TooMany(usize),
    /// Still invalid: as sent (`None`) or as repaired (the call then holds
    /// the repairs, to be restored), with the strings the core rule
    /// refused.
    Refused(Option<Repaired>, Vec<Refusal>),
}

/// A call the rules changed in place: the repairs made, and how to put the
/// call back as it was sent.
struct Repaired {
    undo: Undo,
    repairs: Vec<Repair>,
}

/// What one pass of the rules replaced and dropped, to put back.
#[derive(Default)]
struct Undo {
    /// Each value replaced, with the index of its repair (whose pointer
    /// says where), in the order replaced: the value it replaced, or
    /// `None` for a string made an array's one item, which is taken back
    /// out.
    replaced: Vec<(usize, Option<Value>)>,
    /// Each object some nulls were dropped from: its pointer, and the
    /// dropped members' positions and names, in order.
    dropped: Vec<(String, Vec<(usize, String)>)>,
}

impl Repaired {
    /// Puts the call back as it was sent.
    fn restore(self, args: &mut Value) {
        let Repaired { undo, repairs } = self;
        // The dropped members first: a replaced value never holds one,
        // though one may be dropped inside parsed JSON text, where the
        // value is then replaced by its text again.
        for (at, members) in undo.dropped {
            if let Some(Value::Object(object)) = args.pointer_mut(&at) {
                for (index, key) in members {
                    object.shift_insert(index, key, Value::Null);
                }
            }
        }
        for (repair, old) in undo.replaced.into_iter().rev() {
            if let Some(value) = args.pointer_mut(&repairs[repair].pointer) {
                match old {
                    Some(old) => *value = old,
                    None => {
                        if let Value::Array(items) = value {
                            if let Some(string) = items.pop() {
                                *value = string;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One pass of the rules over a call, in place.
struct Walk<'a> {
    plan: &'a Plan,
    policy: Policy,
    /// Pointers whose repair was undone: left as sent.
    skip: &'a [String],
    repairs: Vec<Repair>,
    /// Repairs past `max_repairs`: counted, neither made nor kept (the call
    /// is refused for them).
    more_repairs: usize,
    max_repairs: usize,
    refused: Vec<Refusal>,
    /// Nulls dropped because the declaration made the property nullable:
    /// no repair, the model did as it was told.
    declared: usize,
    /// What the pass replaced and dropped.
    undo: Undo,
}

impl Walk<'_> {
    fn skipped(&self, at: &str) -> bool {
        self.skip.iter().any(|s| s == at)
    }

    /// True when one more repair may be made and kept; else it is counted.
    fn room_for_repair(&mut self) -> bool {
        if self.repairs.len() > self.max_repairs {
            self.more_repairs += 1;
            return false;
        }
        true
    }

    /// `value`, at `at`; `item`: it is item `index` of the array whose
    /// pointer is `at[..len]`, built once into `shared` for all its items.
    fn value(
        &mut self,
        value: &mut Value,
        id: NodeId,
        at: &mut String,
        depth: usize,
        item: Option<(&pointer::Shared, usize, usize)>,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let node = self.plan.node(id);
        if let Value::String(s) = value {
            match rule::string_at(node, self.policy, s) {
                Fix::Keep => return,
                Fix::Refuse(verdict) => {
                    let (at, index) = match item {
                        Some((shared, len, index)) => {
                            (shared.get_or_init(|| at[..len].into()).clone(), Some(index))
                        }
                        None => (at.as_str().into(), None),
                    };
                    self.refused.push(Refusal { at, index, verdict });
                    return;
                }
                Fix::Wrap | Fix::Replace(..) if self.skipped(at) => return,
                Fix::Wrap | Fix::Replace(..) if !self.room_for_repair() => return,
                Fix::Wrap => {
                    let string = std::mem::take(value);
                    *value = Value::Array(vec![string]);
                    self.undo.replaced.push((self.repairs.len(), None));
                    self.repairs
                        .push(Repair::new(at.clone(), RepairRule::ScalarToArray));
                    return;
                }
                Fix::Replace(new, rule) => {
                    let old = std::mem::replace(value, new);
                    self.undo.replaced.push((self.repairs.len(), Some(old)));
                    self.repairs.push(Repair::new(at.clone(), rule));
                    // Parsed JSON text is walked like any array or object.
                    if rule != RepairRule::JsonText {
                        return;
                    }
                }
            }
        }
        match value {
            Value::Object(members) => self.object(members, id, at, depth),
            Value::Array(items) => {
                if let Some(child) = node.items {
                    let shared = pointer::Shared::new();
                    for (i, item) in items.iter_mut().enumerate() {
                        let len = at.len();
                        let _ = write!(at, "/{i}");
                        self.value(item, child, at, depth + 1, Some((&shared, len, i)));
                        at.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }

    fn object(
        &mut self,
        members: &mut Map<String, Value>,
        id: NodeId,
        at: &mut String,
        depth: usize,
    ) {
        let node = self.plan.node(id);
        let null_as_absent = self.policy.contains(RepairRule::NullAsAbsent);
        let declared = self.policy.nulls_declared();
        let mut dropped: Vec<(usize, String)> = Vec::new();
        for (index, (key, member)) in members.iter_mut().enumerate() {
            let len = at.len();
            let child = match node.property(key) {
                Some(property) => {
                    at.push('/');
                    at.push_str(&property.token);
                    if property.drop_null && declared && member.is_null() {
                        self.declared += 1;
                        dropped.push((index, key.clone()));
                        at.truncate(len);
                        continue;
                    }
                    if property.drop_null
                        && null_as_absent
                        && member.is_null()
                        && !self.skipped(at)
                        && self.room_for_repair()
                    {
                        self.repairs
                            .push(Repair::new(at.clone(), RepairRule::NullAsAbsent));
                        dropped.push((index, key.clone()));
                        at.truncate(len);
                        continue;
                    }
                    Some(property.id)
                }
                None => node.additional.inspect(|_| {
                    at.push('/');
                    at.push_str(&pointer::escape(key));
                }),
            };
            if let Some(child) = child {
                self.value(member, child, at, depth + 1, None);
            }
            at.truncate(len);
        }
        if !dropped.is_empty() {
            members.retain(|key, _| !dropped.iter().any(|(_, k)| k == key));
            self.undo.dropped.push((at.clone(), dropped));
        }
    }
}

const DRAFTS: [&str; 5] = [
    "draft-04",
    "draft-06",
    "draft-07",
    "draft/2019-09",
    "draft/2020-12",
];

/// The schema as calls are checked against it: `nullable: true` becomes a
/// type union with `null`; a `$ref` that does not resolve inside the
/// document is removed (its position accepts anything); an unknown root
/// `$schema` is removed (draft 2020-12 applies); with `closed`, objects
/// with `properties` refuse undeclared ones.
pub(crate) fn normalize(schema: &Value, closed: bool) -> Value {
    let mut out = schema.clone();
    if let Some(Value::String(uri)) = out.get("$schema") {
        if !(uri.contains("json-schema.org") && DRAFTS.iter().any(|d| uri.contains(d))) {
            if let Some(root) = out.as_object_mut() {
                root.remove("$schema");
            }
        }
    }
    rewrite(schema, &mut out, closed, &refs::Ids::of(schema), 0);
    out
}

/// True when `reference` resolves to no place in `root` and names no
/// resource of it: another document, or nothing. A plain-name fragment (an
/// `$anchor`) is left to the validator, and so is a reference that may
/// name one of the schema's own resources by its `$id` (`tool.json#/...`
/// under the root's `https://example.com/tool.json`), or a local pointer
/// in a schema with a nested `$id`, against which it may be resolved.
fn dangles(root: &Value, reference: &str, ids: &refs::Ids) -> bool {
    if refs::target(root, reference).is_some() || refs::is_anchor(reference) {
        return false;
    }
    let document = reference.split_once('#').map_or(reference, |(d, _)| d);
    if document.is_empty() {
        return !ids.nested;
    }
    !ids.names(document)
}

/// Normalizes `schema` (a copy of a part of `root`) in place, in one pass
/// over its members: every keyword lookup hashes the key, and a schema
/// object has a few dozen keywords to look for.
fn rewrite(root: &Value, schema: &mut Value, closed: bool, ids: &refs::Ids, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(obj) = schema else { return };
    let mut dangling = false;
    let mut nullable: Option<bool> = None;
    let mut properties = false;
    let mut open = false;
    for (key, sub) in obj.iter_mut() {
        let key = key.as_str();
        match key {
            "$ref" => dangling = sub.as_str().is_some_and(|r| dangles(root, r, ids)),
            "nullable" => nullable = Some(*sub == Value::Bool(true)),
            "additionalProperties" | "patternProperties" | "unevaluatedProperties" => open = true,
            _ => {}
        }
        if key == "properties" {
            properties = sub.is_object();
        }
        // The branches of an `allOf` each see only part of an object:
        // closing them would refuse what the other branches declare.
        let closed = closed && key != "allOf";
        if walk::ONE.contains(&key) {
            match sub {
                Value::Array(subs) => subs
                    .iter_mut()
                    .for_each(|sub| rewrite(root, sub, closed, ids, depth + 1)),
                sub => rewrite(root, sub, closed, ids, depth + 1),
            }
        } else if walk::LIST.contains(&key) {
            if let Value::Array(subs) = sub {
                subs.iter_mut()
                    .for_each(|sub| rewrite(root, sub, closed, ids, depth + 1));
            }
        } else if walk::MAP.contains(&key) {
            if let Value::Object(subs) = sub {
                subs.values_mut()
                    .for_each(|sub| rewrite(root, sub, closed, ids, depth + 1));
            }
        }
    }
    // The members' own changes, in the order they were always made (a
    // removal can move the last member into the removed one's place).
    if dangling {
        obj.remove("$ref");
    }
    if let Some(nullable) = nullable {
        obj.remove("nullable");
        if nullable {
            walk::add_null(obj);
        }
    }
    if closed && properties && !open {
        obj.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalizes_openapi_and_foreign_refs() {
        let schema = json!({
            "$schema": "https://example.com/custom",
            "type": "object",
            "properties": {
                "a": {"type": "string", "nullable": true, "enum": ["x"]},
                "b": {"$ref": "other.json#/B", "description": "kept"},
                "c": {"$ref": "#/definitions/C"},
                "d": {"$ref": "#/nowhere"},
                "nullable": {"type": "boolean"}
            },
            "definitions": {"C": {"type": "integer"}}
        });
        assert_eq!(
            normalize(&schema, true),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": ["string", "null"], "enum": ["x", null]},
                    "b": {"description": "kept"},
                    "c": {"$ref": "#/definitions/C"},
                    "d": {},
                    "nullable": {"type": "boolean"}
                },
                "definitions": {"C": {"type": "integer"}},
                "additionalProperties": false
            })
        );
    }
}
