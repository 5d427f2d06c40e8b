//! Per-call state a caller hands to tools: a request id, the user's
//! identity. It never appears in a schema and never comes from the model.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Values for one call, looked up by type by the tools' [`Context`]
/// parameters.
///
/// ```
/// use canon::toolbox::CallContext;
///
/// #[derive(Clone, Debug, PartialEq)]
/// struct RequestId(u64);
///
/// let cx = CallContext::new().with(RequestId(7));
/// assert_eq!(cx.get::<RequestId>(), Some(&RequestId(7)));
/// assert_eq!(cx.get::<String>(), None);
/// ```
#[derive(Clone, Default)]
pub struct CallContext {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl CallContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// The context with `value` added (replacing one of the same type).
    #[must_use]
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.insert(value);
        self
    }

    /// Adds `value`, replacing one of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if the caller supplied one.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        self.values.get(&TypeId::of::<T>())?.downcast_ref()
    }
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Values are the caller's: only their number is shown.
        f.debug_struct("CallContext")
            .field("values", &self.values.len())
            .finish()
    }
}

/// A tool parameter filled from the caller's [`CallContext`] (a clone of
/// the value of type `T`), not from the model's arguments; it is not part of
/// the schema.
///
/// `#[tool]` takes a parameter whose type is written `Context<T>` (under any
/// path) for one; an alias of it is marked `#[arg(context)]`, and a type of
/// your own named `Context` is marked `#[arg(not_context)]` to be read from
/// the arguments. Each is checked, at compile time, to be this type.
///
/// ```
/// use canon::{tool, Context, Tool, Toolbox, ToolCall};
/// use canon::toolbox::CallContext;
///
/// #[derive(Clone)]
/// struct User(String);
///
/// /// Greet the caller.
/// #[tool]
/// fn greet(user: Context<User>, greeting: String) -> String {
///     format!("{greeting}, {}", user.0 .0)
/// }
///
/// assert!(Greet.input_schema()["properties"].get("user").is_none());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Context<T>(pub T);

impl<T> Deref for Context<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Context<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// The error of a tool with [`Context`] parameters: a context value was not
/// supplied (the tool did not run), or the tool's own error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextError<E> {
    /// The caller's context has no value of this type.
    Missing(&'static str),
    /// The tool's own error.
    Tool(E),
}

impl<E: fmt::Display> fmt::Display for ContextError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContextError::Missing(type_name) => write!(
                f,
                "the caller supplied no `{type_name}` in the call context, so the tool did not run"
            ),
            ContextError::Tool(e) => e.fmt(f),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for ContextError<E> {}
