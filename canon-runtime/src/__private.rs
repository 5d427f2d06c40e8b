//! Items used by code that `#[tool]` generates. Not a public API.

pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::OnceLock;

use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

pub use crate::tolerant::Fields;

use crate::context::{CallContext, Context};

/// Asserts, at the span of a parameter's type, that it can be a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "this type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on the type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait Param: DeserializeOwned + schemars::JsonSchema {}

impl<T: DeserializeOwned + schemars::JsonSchema> Param for T {}

/// Called with each parameter type so that a missing trait is reported on it.
pub const fn assert_param<T: Param>() {}

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

/// An arguments struct generated by `#[tool]`: its top-level fields are
/// matched once, by the generated code, and routed through the plan by index.
pub trait BindArgs: DeserializeOwned + 'static {
    /// The members of the arguments object, in field order.
    const FIELDS: &'static [&'static str];

    /// Deserializes the struct, asking `fields` for each field's value.
    ///
    /// # Errors
    /// The deserializer's error when the arguments do not deserialize.
    fn bind_fields<'de, D: Deserializer<'de>>(de: D, fields: Fields<'_>) -> Result<Self, D::Error>;
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
        Some(crate::spec::published_schema::<T>(true))
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
