//! Items used by code that `#[tool]` generates. Not a public API.

pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

// The public items generated code names, reached through this module so
// that the macro does not depend on where they sit in the public API.
pub use crate::bind::policy::Policy;
pub use crate::feedback::BindError;
pub use crate::repair::{Bound, RepairRule};
pub use crate::toolbox::context::{CallContext, ContextError};
pub use crate::toolbox::spec::ToolSpec;
pub use crate::toolbox::tool::Tool;
pub use crate::toolbox::DynTool;

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

pub use crate::bind::tolerant::{BindArgs, Fields};

use crate::toolbox::context::Context;

/// Probes, in code generated for a concrete parameter type `T`, whether `T`
/// implements `Deserialize` ([`ParamDeserialize`], else
/// [`ParamNoDeserialize`]) and `JsonSchema` ([`ParamSchema`], else
/// [`ParamNoSchema`]): `(&ParamProbe::<T>::new()).method()` resolves to
/// the first trait when `T` has the trait, and to the second otherwise.
///
/// Every use of a parameter's type in the generated code goes through it,
/// so a type without a derive compiles everywhere but in one place,
/// [`Verdict::check`], which reports it once, naming the derives to add.
/// The fallbacks are never run: a type that needs one fails that check.
pub struct ParamProbe<T>(PhantomData<T>);

impl<T> ParamProbe<T> {
    /// A probe for `T`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        ParamProbe(PhantomData)
    }
}

/// `T` implements the probed trait.
pub struct Has;

/// `T` does not implement the probed trait.
pub struct Lacks;

/// Deserializing a parameter whose type implements `Deserialize`.
pub trait ParamDeserialize<T> {
    /// [`Has`].
    fn deserialize_verdict(&self) -> Has;

    /// The field's value, through the plan ([`Fields::value`]).
    ///
    /// # Errors
    /// The map's error when the value does not deserialize.
    fn field_value<'de, A: de::MapAccess<'de>>(
        &self,
        fields: &Fields<'_>,
        map: &mut A,
        index: usize,
        pointer: &'static str,
    ) -> Result<T, A::Error>;

    /// The value of the field when it is absent ([`missing`]).
    ///
    /// # Errors
    /// `missing_field` for a type that does not accept an absent value.
    fn missing_value<E: de::Error>(&self, field: &'static str) -> Result<T, E>;

    /// The next element of a positional array.
    ///
    /// # Errors
    /// The sequence's error when the element does not deserialize.
    fn next_value<'de, S: de::SeqAccess<'de>>(&self, seq: &mut S) -> Result<Option<T>, S::Error>;
}

impl<T: DeserializeOwned> ParamDeserialize<T> for ParamProbe<T> {
    fn deserialize_verdict(&self) -> Has {
        Has
    }

    #[inline(always)]
    fn field_value<'de, A: de::MapAccess<'de>>(
        &self,
        fields: &Fields<'_>,
        map: &mut A,
        index: usize,
        pointer: &'static str,
    ) -> Result<T, A::Error> {
        fields.value::<T, A>(map, index, pointer)
    }

    #[inline]
    fn missing_value<E: de::Error>(&self, field: &'static str) -> Result<T, E> {
        missing::<T, E>(field)
    }

    #[inline]
    fn next_value<'de, S: de::SeqAccess<'de>>(&self, seq: &mut S) -> Result<Option<T>, S::Error> {
        seq.next_element::<T>()
    }
}

/// A parameter whose type lacks `Deserialize`: compiles, so that only
/// [`Verdict::check`] reports it; never run.
pub trait ParamNoDeserialize<T> {
    /// [`Lacks`].
    fn deserialize_verdict(&self) -> Lacks;

    /// Never called: the tool does not compile.
    ///
    /// # Errors
    /// None.
    fn field_value<'de, A: de::MapAccess<'de>>(
        &self,
        fields: &Fields<'_>,
        map: &mut A,
        index: usize,
        pointer: &'static str,
    ) -> Result<T, A::Error>;

    /// Never called: the tool does not compile.
    ///
    /// # Errors
    /// None.
    fn missing_value<E: de::Error>(&self, field: &'static str) -> Result<T, E>;

    /// Never called: the tool does not compile.
    ///
    /// # Errors
    /// None.
    fn next_value<'de, S: de::SeqAccess<'de>>(&self, seq: &mut S) -> Result<Option<T>, S::Error>;
}

impl<T> ParamNoDeserialize<T> for &ParamProbe<T> {
    fn deserialize_verdict(&self) -> Lacks {
        Lacks
    }

    fn field_value<'de, A: de::MapAccess<'de>>(
        &self,
        _: &Fields<'_>,
        _: &mut A,
        _: usize,
        _: &'static str,
    ) -> Result<T, A::Error> {
        unreachable!("a parameter type without Deserialize does not compile")
    }

    fn missing_value<E: de::Error>(&self, _: &'static str) -> Result<T, E> {
        unreachable!("a parameter type without Deserialize does not compile")
    }

    fn next_value<'de, S: de::SeqAccess<'de>>(&self, _: &mut S) -> Result<Option<T>, S::Error> {
        unreachable!("a parameter type without Deserialize does not compile")
    }
}

/// A parameter type's `JsonSchema`, as functions ([`FieldSchema`] calls
/// them).
#[derive(Clone, Copy)]
pub struct SchemaFns {
    inline_schema: fn() -> bool,
    schema_name: fn() -> Cow<'static, str>,
    schema_id: fn() -> Cow<'static, str>,
    json_schema: fn(&mut SchemaGenerator) -> Schema,
    non_optional_json_schema: fn(&mut SchemaGenerator) -> Schema,
    is_option: fn() -> bool,
}

/// The schema of a parameter whose type implements `JsonSchema`.
pub trait ParamSchema {
    /// [`Has`].
    fn schema_verdict(&self) -> Has;
    /// The type's own `JsonSchema`.
    fn schema_fns(&self) -> SchemaFns;
}

impl<T: JsonSchema> ParamSchema for ParamProbe<T> {
    fn schema_verdict(&self) -> Has {
        Has
    }

    fn schema_fns(&self) -> SchemaFns {
        SchemaFns {
            inline_schema: T::inline_schema,
            schema_name: T::schema_name,
            schema_id: T::schema_id,
            json_schema: T::json_schema,
            non_optional_json_schema: T::_schemars_private_non_optional_json_schema,
            is_option: T::_schemars_private_is_option,
        }
    }
}

/// A parameter whose type lacks `JsonSchema`: compiles, so that only
/// [`Verdict::check`] reports it; never run.
pub trait ParamNoSchema {
    /// [`Lacks`].
    fn schema_verdict(&self) -> Lacks;
    /// Never called: the tool does not compile.
    fn schema_fns(&self) -> SchemaFns;
}

impl<T> ParamNoSchema for &ParamProbe<T> {
    fn schema_verdict(&self) -> Lacks {
        Lacks
    }

    fn schema_fns(&self) -> SchemaFns {
        fn never<R>() -> R {
            unreachable!("a parameter type without JsonSchema does not compile")
        }
        fn never_with<R>(_: &mut SchemaGenerator) -> R {
            never()
        }
        SchemaFns {
            inline_schema: never,
            schema_name: never,
            schema_id: never,
            json_schema: never_with,
            non_optional_json_schema: never_with,
            is_option: never,
        }
    }
}

/// The `I`th field of a generated arguments struct: its type's schema,
/// found through [`ParamProbe`].
pub trait ArgField<const I: usize> {
    /// The field type's `JsonSchema`.
    fn schema_fns() -> SchemaFns;
}

/// The schema of the `I`th field of the arguments struct `A`, which the
/// struct's `JsonSchema` derive is pointed at (`#[schemars(with = ...)]`):
/// exactly the field type's own, and compiling whatever the type is, so a
/// type without `JsonSchema` is reported once, by [`Verdict::check`].
pub struct FieldSchema<A, const I: usize>(PhantomData<A>);

impl<A: ArgField<I>, const I: usize> JsonSchema for FieldSchema<A, I> {
    fn inline_schema() -> bool {
        (A::schema_fns().inline_schema)()
    }

    fn schema_name() -> Cow<'static, str> {
        (A::schema_fns().schema_name)()
    }

    fn schema_id() -> Cow<'static, str> {
        (A::schema_fns().schema_id)()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        (A::schema_fns().json_schema)(generator)
    }

    fn _schemars_private_non_optional_json_schema(generator: &mut SchemaGenerator) -> Schema {
        (A::schema_fns().non_optional_json_schema)(generator)
    }

    fn _schemars_private_is_option() -> bool {
        (A::schema_fns().is_option)()
    }
}

/// What the probes found for one parameter type: `Verdict(deserialize,
/// schema)`, each [`Has`] or [`Lacks`]. Its `check::<T>()` compiles only
/// for `Verdict<Has, Has>`; otherwise it is the one error on the parameter,
/// naming the derives to add.
pub struct Verdict<D, S>(pub D, pub S);

impl Verdict<Has, Has> {
    /// Nothing to report.
    #[inline(always)]
    pub fn check<T>(self) {}
}

impl Verdict<Has, Lacks> {
    /// Reports that `T` lacks `JsonSchema`.
    pub fn check<T: DeriveJsonSchema>(self) {}
}

impl Verdict<Lacks, Has> {
    /// Reports that `T` lacks `Deserialize`.
    pub fn check<T: DeriveDeserialize>(self) {}
}

impl Verdict<Lacks, Lacks> {
    /// Reports that `T` lacks both.
    pub fn check<T: DeriveBoth>(self) {}
}

/// A parameter type without `JsonSchema` (it has `Deserialize`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: add `#[derive(schemars::JsonSchema)]` to it",
    label = "this type does not implement `schemars::JsonSchema`",
    note = "a tool parameter is read from the model's arguments (`serde::Deserialize`) and described to the model (`schemars::JsonSchema`); for `Vec<T>`, `Option<T>` and the like, derive on your own `T`",
    note = "without schemars among your dependencies, derive canon's re-export: `#[derive(canon::schemars::JsonSchema)]` with `#[schemars(crate = \"canon::schemars\")]`"
)]
pub trait DeriveJsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> DeriveJsonSchema for T {}

/// A parameter type without `Deserialize` (it has `JsonSchema`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: add `#[derive(serde::Deserialize)]` to it",
    label = "this type does not implement `serde::Deserialize`",
    note = "a tool parameter is read from the model's arguments (`serde::Deserialize`) and described to the model (`schemars::JsonSchema`); for `Vec<T>`, `Option<T>` and the like, derive on your own `T`",
    note = "without serde among your dependencies, derive canon's re-export: `#[derive(canon::serde::Deserialize)]` with `#[serde(crate = \"canon::serde\")]`"
)]
pub trait DeriveDeserialize {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> DeriveDeserialize for T {}

/// A parameter type without `Deserialize` and `JsonSchema`. (Implemented
/// for the types with `JsonSchema`, so that it fails with one reason.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to it",
    label = "this type implements neither `serde::Deserialize` nor `schemars::JsonSchema`",
    note = "a tool parameter is read from the model's arguments (`serde::Deserialize`) and described to the model (`schemars::JsonSchema`); for `Vec<T>`, `Option<T>` and the like, derive on your own `T`",
    note = "without serde and schemars among your dependencies, derive canon's re-exports: `#[derive(canon::serde::Deserialize, canon::schemars::JsonSchema)]` with `#[serde(crate = \"canon::serde\")]` and `#[schemars(crate = \"canon::schemars\")]`"
)]
pub trait DeriveBoth {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> DeriveBoth for T {}

/// Asserts, at the span of a `Context<T>` parameter's `T`, that a call
/// context can supply it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a context value",
    label = "a `Context` value must be `Clone + Send + Sync + 'static`",
    note = "the value is cloned out of the caller's `CallContext` for each call"
)]
pub trait ContextValue: Clone + Send + Sync + 'static {}

impl<T: Clone + Send + Sync + 'static> ContextValue for T {}

/// A context parameter of type `C`: the caller's value of type `C::Value`,
/// or the name of that type when the caller supplied none (`written`, the
/// name as the parameter's type spells it, or the type's own name). A `C`
/// that is not `Context<T>`, or a `T` that cannot be a context value, is
/// reported here, on the parameter's type.
///
/// # Errors
/// The name of the missing type when `context` holds no value of it.
pub fn context_param<C>(
    context: Option<&CallContext>,
    written: Option<&'static str>,
) -> Result<C, &'static str>
where
    C: ContextParam,
    C::Value: ContextValue,
{
    match context.and_then(CallContext::get::<C::Value>) {
        Some(value) => Ok(C::from_value(value.clone())),
        None => Err(written.unwrap_or_else(context_type_name::<C::Value>)),
    }
}

/// A context parameter's type: only [`Context<T>`], whatever the name it
/// is written by. The generated code converts each context value through
/// it, so a type of the user's own named `Context` is reported once, on the
/// parameter's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not `canon::Context<T>`, so this parameter cannot be filled from the call context",
    label = "not `canon::Context<T>`",
    note = "a parameter is filled from the call context when its type is named `Context<T>` or it is marked `#[arg(context)]`",
    note = "for a type of your own named `Context`, read from the model's arguments, mark the parameter `#[arg(not_context)]`; for canon's, write `canon::Context<T>`"
)]
pub trait ContextParam: Sized {
    /// `T`: the type looked up in the call context.
    type Value;
    /// The parameter, holding the value.
    fn from_value(value: Self::Value) -> Self;
}

impl<T> ContextParam for Context<T> {
    type Value = T;
    fn from_value(value: T) -> Self {
        Context(value)
    }
}

/// How a missing context value of type `T` is named when its type was not
/// written out (an alias marked `#[arg(context)]`): the last segment of a
/// plain path, or the full name.
fn context_type_name<T: ?Sized>() -> &'static str {
    let name = std::any::type_name::<T>();
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':');
    match name.rsplit("::").next() {
        Some(last) if plain => last,
        _ => name,
    }
}

/// Runs a sync tool's body: on Tokio's blocking pool when a Tokio runtime is
/// current, so that it neither stalls the executor nor the other calls of
/// a batch, and a timeout around it can fire; inline otherwise.
///
/// A panic in `f` resumes as a panic here, where the toolbox catches it as
/// it catches an async tool's. Dropping the returned future does not stop
/// `f` once it has started: its thread runs it to the end and its result
/// is discarded.
pub async fn run_blocking<R, F>(f: F) -> R
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return f();
    };
    match handle.spawn_blocking(f).await {
        Ok(output) => output,
        Err(error) => match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            // Only a runtime shutting down cancels a blocking task.
            Err(error) => std::panic::panic_any(format!(
                "the runtime shut down before the tool ran ({error})"
            )),
        },
    }
}

/// A function's return type when it is written `Result<T, E>`.
pub trait ToolResult {
    /// The success type.
    type Ok;
    /// The error type.
    type Err;
    /// The value as a `Result`.
    fn into_result(self) -> Result<Self::Ok, Self::Err>;
}

impl<T, E> ToolResult for Result<T, E> {
    type Ok = T;
    type Err = E;
    fn into_result(self) -> Result<T, E> {
        self
    }
}

/// The value of a field absent from the arguments: `None` for an `Option`,
/// a "missing field" error otherwise (what serde's derive does).
///
/// # Errors
/// `missing_field` for a type that does not accept an absent value.
pub fn missing<'de, T: de::Deserialize<'de>, E: de::Error>(field: &'static str) -> Result<T, E> {
    T::deserialize(Missing(field, PhantomData))
}

struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Finds, in code generated for a concrete type, whether the type has a
/// JSON Schema: `(&Probe::<T>::new()).output_schema()` resolves to
/// [`OutputSchemaOf`] when `T: JsonSchema`, and to [`NoOutputSchema`]
/// otherwise (method resolution tries `&Probe<T>` before `&&Probe<T>`).
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// A probe for `T`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

/// The output schema of a type that has one.
pub trait OutputSchemaOf {
    /// The published schema of the output type.
    fn output_schema(&self) -> Option<serde_json::Value>;
}

impl<T: schemars::JsonSchema> OutputSchemaOf for Probe<T> {
    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(crate::toolbox::spec::published_schema::<T>(true))
    }
}

/// No output schema, for a type without `JsonSchema`.
pub trait NoOutputSchema {
    /// Always `None`.
    fn output_schema(&self) -> Option<serde_json::Value>;
}

impl<T> NoOutputSchema for &Probe<T> {
    fn output_schema(&self) -> Option<serde_json::Value> {
        None
    }
}

/// A field of a generated arguments struct, for its `Debug`:
/// `(&DebugField(&x)).field_debug()` resolves to [`FieldDebug`] when the
/// field's type implements `Debug`, and to [`FieldNoDebug`] (shown as `_`)
/// otherwise.
pub struct DebugField<'a, T>(pub &'a T);

/// The field's own `Debug`.
pub trait FieldDebug {
    /// The field, as its type formats it.
    fn field_debug(&self) -> &dyn core::fmt::Debug;
}

impl<T: core::fmt::Debug> FieldDebug for DebugField<'_, T> {
    fn field_debug(&self) -> &dyn core::fmt::Debug {
        self.0
    }
}

/// `_`, for a field whose type has no `Debug`.
pub trait FieldNoDebug {
    /// A placeholder.
    fn field_debug(&self) -> &dyn core::fmt::Debug;
}

impl<T> FieldNoDebug for &DebugField<'_, T> {
    fn field_debug(&self) -> &dyn core::fmt::Debug {
        &Opaque
    }
}

/// Shown as `_`.
struct Opaque;

impl core::fmt::Debug for Opaque {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("_")
    }
}
