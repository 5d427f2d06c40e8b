//! The `#[tool]` attribute of canon. Use it through the `canon` crate.
//!
//! The crate is split the way the work flows: `ast` parses the input once
//! (the attributes through their grammar in `attr`), keeping every option
//! with the tokens it was written with; `check` validates that parsed form,
//! `model` says what it means, and `expand` generates code from it
//! (`methods` runs the same steps for an impl block). Every problem found
//! is reported, each on its own token, in one compile error.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod ast;
mod attr;
mod check;
mod errors;
mod expand;
mod methods;
mod model;

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{quote, ToTokens};
use syn::{Item, ItemFn};

use crate::errors::Errors;
use crate::model::Tool;

/// Declares a tool from a function: its arguments struct, the JSON Schema
/// published to the model, its tolerant binder and its `canon::Tool` impl.
///
/// Put it on a free function, through the `canon` crate (`use canon::tool;`,
/// then `#[tool]`); for the methods of an impl block, see [`macro@tools`].
///
/// # What it generates
///
/// For `fn search_code(...)`, beside the function itself (emitted as
/// written, minus the parameter attributes, so it stays callable as
/// before):
///
/// - **`SearchCodeArgs`**, the arguments struct: one `pub` field per
///   parameter that is not a context parameter, with the parameter's name,
///   type and order, and the function's visibility. The parameter's doc
///   comments (or `#[arg(description = "...")]`) become the property's
///   `description`. It derives `JsonSchema` and implements `Deserialize`
///   exactly as serde's derive with `deny_unknown_fields` would (unknown,
///   repeated and missing members are errors; a missing `Option<T>` is
///   `None`; a JSON array binds the fields by position), and `Debug` (a
///   field whose type has no `Debug` shows as `_`).
/// - **`SearchCode`**, a unit struct (`Clone`, `Copy`, `Debug`, `Default`,
///   with the function's visibility) implementing `canon::Tool`:
///   - `Args` is `SearchCodeArgs`; `Output` is what the function returns
///     (`()` when it returns nothing, `T` for a type named `Result<T, E>`);
///     `Error` is `E` for a `Result<T, E>` and `Infallible` otherwise,
///     wrapped in `ContextError<_>` when the function has context
///     parameters;
///   - `spec()` is built once: the tool's name and description, the input
///     schema schemars derives for the arguments struct (root `$schema` and
///     `title` removed, unknown members denied), the output schema when the
///     output type implements `JsonSchema`, and the repair policy (the core
///     rule, plus the rules of `repair(...)`);
///   - `bind`, `bind_str` and their `_with` forms bind through that spec;
///     `call` binds, runs and serializes the output; `run` (and `run_with`,
///     which fills the context parameters) calls the function;
///   - `timeout()` is the `timeout = "..."` of the attribute, if given.
///
/// The names are the function's name in UpperCamelCase (`r#` dropped), and
/// that plus `Args`; a function whose name gives no type name that way
/// (`_1`, `self_`) is a compile error. A `#[cfg(...)]` on the function is
/// carried by everything generated for it. The generated code reaches canon, serde, serde_json
/// and schemars through the crate path only (`::canon`, or
/// `crate = "..."`), so the crate declaring a tool needs none of them as a
/// dependency of its own.
///
/// # The function
///
/// The function is sync or `async`, without generics, a `where` clause,
/// `self` or `unsafe`. It returns nothing, a value `T: Serialize` (the
/// output), or a type whose last path segment is `Result` (`Result<T, E>`,
/// `std::io::Result<T>`, `anyhow::Result<T>`): then `T: Serialize` is the
/// output and `E: Display` the tool's own error.
///
/// Each parameter is `name: Type`: a plain name (no pattern, no `ref`) and
/// an owned type (no reference, no `impl Trait`) that implements
/// `Deserialize` and `JsonSchema` (derive them through canon's re-exports
/// with `#[serde(crate = "canon::serde")]` and
/// `#[schemars(crate = "canon::schemars")]` if your crate has no serde of
/// its own). The name is the property's name in the arguments, unless
/// `#[arg(rename = "...")]` says otherwise; no two properties share a
/// name. A parameter takes doc comments and `#[arg(...)]`, and no other
/// attribute.
///
/// A sync function runs on Tokio's blocking pool (`spawn_blocking`) when a
/// Tokio runtime is current, so a tool that blocks stalls neither the
/// executor nor the other calls of a batch, and a timeout around it can
/// fire; with no runtime current it runs inline. Its parameters are moved
/// to that thread and its return value (the output, and the error of a
/// `Result`) comes back from it, so they must be `Send + 'static`. A
/// timed-out sync tool cannot be stopped: its thread runs it to the end and
/// the result is discarded. An async function runs on the caller's task
/// (its future must be `Send`), and stops at an await when the call is
/// dropped or times out.
///
/// # `#[tool(...)]`
///
/// Every key is optional, given at most once, and the keys are separated by
/// commas:
///
/// - `name = "..."`: the tool's name as the model calls it (not empty).
///   Default: the function's name.
/// - `description = "..."`: the tool's description, which the model reads
///   to choose the tool (not empty). Default: the function's doc comment
///   (each line without its first space, joined with newlines, trimmed;
///   lines a macro writes, `#[doc = include_str!("...")]`, are taken as
///   they expand). A tool needs one or the other.
/// - `repair(rule, ...)`: opt-in repair rules for this tool, each once,
///   beside the core rule (a string where an array of strings is expected),
///   which always applies: `json_text`, `number_text`, `bool_text`,
///   `null_as_absent` (see `canon::RepairRule`).
/// - `timeout = "..."`: the tool's own timeout in a `canon::Toolbox`: a
///   whole number above zero and a unit, `ms`, `s` or `m` (`"500ms"`,
///   `"30s"`, `"2m"`; a space may stand before the unit), read at compile
///   time. It wins over the toolbox's default (`Toolbox::timeout`) and
///   yields to `Toolbox::timeout_for`.
/// - `crate = "..."`: the path the generated code names canon by, for a
///   crate that depends on canon under another name
///   (`agent_tools = { package = "canon", ... }` and
///   `crate = "agent_tools"`; serde's and schemars' convention). Default:
///   `::canon`.
///
/// # `#[arg(...)]` on a parameter
///
/// A parameter may carry several `#[arg(...)]`; each key is given at most
/// once over all of them:
///
/// - `rename = "..."`: the property's name in the arguments (not empty).
/// - `description = "..."`: the property's description, instead of the
///   parameter's doc comments.
/// - `default = expr`: the value when the property is absent; the property
///   is then optional. `expr` is any expression of the parameter's type,
///   evaluated each time the property is absent; when the type implements
///   `Serialize`, the schema shows its value as `default`.
/// - `context`: the parameter is a context parameter whatever its type is
///   written as (for an alias of `canon::Context<T>`).
/// - `not_context`: the parameter's type is written `Context<..>` but is a
///   type of your own: an ordinary parameter, read from the arguments.
///
/// `rename`, `description` and `default` do not apply to a context
/// parameter, and `context` and `not_context` exclude each other.
///
/// # Context parameters
///
/// A parameter of type `canon::Context<T>` is filled from the caller's
/// `CallContext` (a clone of its value of type `T`, which must be
/// `Clone + Send + Sync + 'static`), not from the model's arguments, and is
/// not in the schema or the arguments struct. A macro cannot resolve
/// names, so which parameters are context parameters is read from how they
/// are written:
///
/// - a parameter whose type is written `Context<T>`, under any path
///   (`Context<T>` after `use canon::Context`, `canon::Context<T>`,
///   `agent_tools::Context<T>`), is one, unless it is marked
///   `#[arg(not_context)]`;
/// - a parameter marked `#[arg(context)]` is one whatever its type is
///   written as: that is for an alias, like
///   `type Caller = canon::Context<User>`.
///
/// The generated code checks that each context parameter's type really is
/// `canon::Context<_>`, so a type of your own named `Context` and left
/// unmarked is one compile error on that type, which says to mark it
/// `#[arg(not_context)]`. A tool with context parameters gets them from
/// `Tool::run_with` (which `Toolbox::call_with` uses); when the context
/// lacks a value, or the tool is run without one (`Tool::run`, `Tool::call`,
/// `Toolbox::call`), it does not run and fails with
/// `ContextError::Missing`, naming the type.
///
/// # Compile errors
///
/// Every problem is reported, each on its own tokens and all together:
///
/// - on the attribute: a key that is unknown (with the closest key
///   suggested), repeated, malformed or of the wrong form; an empty `name`
///   or `description`; an unknown (with the closest rule suggested),
///   repeated or core (`scalar_to_array`) rule, or an empty `repair()`; a
///   `timeout` that is not a duration, is zero or does not fit in
///   milliseconds; a `crate` that is not a path in a string;
/// - on the item: anything but a function (a struct, an enum, an impl block,
///   ...); a function with neither a doc comment nor `description`;
///   generics, a `where` clause, `self`, `unsafe fn`, variadic parameters,
///   an `impl Trait` return type; a name that gives no struct name;
/// - on a parameter: a pattern instead of a plain name, a reference or
///   `impl Trait` type (the owned type to use is suggested), an attribute
///   other than doc comments and `#[arg]`, `#[arg]` keys as above (unknown,
///   repeated, `context` or `not_context` with a value, an empty `rename`,
///   a `rename` or `description` that is not a string), two parameters
///   with the same name in the arguments, both `context` and
///   `not_context`, `not_context` on a type not written `Context<..>`, and
///   `rename`, `description` or `default` on a context parameter;
/// - on a type, from the generated code: a parameter type without
///   `Deserialize` or `JsonSchema` (one error, naming the derives to add),
///   an output that is not `Serialize`, an error that is not `Display`, a
///   sync function's return value that is not `Send + 'static`, a context
///   parameter whose type is not `canon::Context<T>` or whose `T` is not
///   `Clone + Send + Sync + 'static`.
///
/// A missing or empty description is reported beside the generated tool;
/// after any other error only the function is emitted (unless it takes
/// `self`), so its uses add no errors of their own.
///
/// # Examples
///
/// A tool, and a near miss it binds:
///
/// ```
/// use canon::{tool, Tool};
///
/// /// Add labels to an issue.
/// #[tool]
/// async fn label_issue(
///     /// The issue number.
///     number: u64,
///     /// Labels to add.
///     labels: Vec<String>,
/// ) -> Result<String, String> {
///     Ok(format!("#{number}: {}", labels.join(", ")))
/// }
///
/// assert_eq!(LabelIssue.name(), "label_issue");
/// assert_eq!(LabelIssue.description(), "Add labels to an issue.");
/// let schema = LabelIssue.input_schema();
/// assert_eq!(schema["properties"]["number"]["description"], "The issue number.");
/// assert_eq!(schema["additionalProperties"], false);
///
/// let bound = LabelIssue
///     .bind(&serde_json::json!({"number": 7, "labels": "bug"}))
///     .unwrap();
/// assert_eq!(bound.args.labels, ["bug"]);
/// assert_eq!(bound.repairs[0].pointer, "/labels");
/// ```
///
/// Every key of `#[tool(...)]` but `crate`, and every key of `#[arg(...)]`
/// but the context marks:
///
/// ```
/// use std::time::Duration;
/// use canon::{tool, RepairRule, Tool};
///
/// #[tool(
///     name = "find",
///     description = "Find documents matching a query.",
///     repair(number_text),
///     timeout = "30s"
/// )]
/// fn search_documents(
///     #[arg(rename = "q", description = "What to look for.")] query: String,
///     /// At most this many documents.
///     #[arg(default = 10)]
///     limit: u32,
/// ) -> Vec<String> {
///     vec![query; limit as usize]
/// }
///
/// assert_eq!(SearchDocuments.name(), "find");
/// assert_eq!(SearchDocuments.description(), "Find documents matching a query.");
/// assert_eq!(SearchDocuments.timeout(), Some(Duration::from_secs(30)));
/// assert!(SearchDocuments.spec().policy().contains(RepairRule::NumberText));
///
/// let schema = SearchDocuments.input_schema();
/// assert_eq!(schema["properties"]["q"]["description"], "What to look for.");
/// assert_eq!(schema["properties"]["limit"]["default"], 10);
/// assert_eq!(schema["required"], serde_json::json!(["q"]));
///
/// // `limit` is absent: its default. A number sent as text: `number_text`.
/// let bound = SearchDocuments.bind(&serde_json::json!({"q": "rust"})).unwrap();
/// assert_eq!((bound.args.query.as_str(), bound.args.limit), ("rust", 10));
/// let bound = SearchDocuments
///     .bind(&serde_json::json!({"q": "rust", "limit": "3"}))
///     .unwrap();
/// assert_eq!(bound.args.limit, 3);
/// assert_eq!(bound.repairs[0].rule, RepairRule::NumberText);
///
/// // The function itself is still there.
/// assert_eq!(search_documents("a".into(), 2), ["a", "a"]);
/// ```
///
/// Context parameters, an alias marked `#[arg(context)]`, and a type of
/// your own named `Context` marked `#[arg(not_context)]`:
///
/// ```
/// use canon::{tool, Context, Tool};
///
/// #[derive(Clone)]
/// struct User(String);
///
/// #[derive(Clone)]
/// struct RequestId(u64);
///
/// type Request = Context<RequestId>;
///
/// mod mine {
///     /// A type of the crate's own that happens to be named `Context`.
///     #[derive(canon::serde::Deserialize, canon::schemars::JsonSchema)]
///     #[serde(crate = "canon::serde")]
///     #[schemars(crate = "canon::schemars")]
///     pub struct Context<T>(pub T);
/// }
///
/// /// Greet the caller.
/// #[tool]
/// fn greet(
///     user: Context<User>,
///     #[arg(context)] request: Request,
///     #[arg(not_context)] topic: mine::Context<String>,
///     greeting: String,
/// ) -> String {
///     format!("{greeting}, {} (#{}, {})", user.0 .0, request.0 .0, topic.0)
/// }
///
/// let properties = Greet.input_schema()["properties"].as_object().unwrap();
/// assert_eq!(properties.keys().collect::<Vec<_>>(), ["topic", "greeting"]);
/// ```
///
/// A crate that depends on canon under another name:
///
/// ```
/// # extern crate canon as agent_tools;
/// // Cargo.toml: agent_tools = { package = "canon", version = "..." }
/// use agent_tools::Tool;
///
/// /// Echo the text.
/// #[agent_tools::tool(crate = "agent_tools")]
/// fn echo(text: String) -> String {
///     text
/// }
///
/// assert_eq!(Echo.name(), "echo");
/// ```
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_tool(attr.into(), item.into()).into()
}

/// Makes the `#[tool]` methods of an inherent impl block tools bound to a
/// shared instance.
///
/// Use it as `#[canon::tools]` (or `#[tools]` after `use canon::tools;`) on
/// `impl Type { ... }`, where `Type` is a type's name or path without
/// generic arguments, in a block that is not generic and not a trait impl.
/// One block per type has tools, since each gives the type its `tools()`
/// method; a method of that block cannot be named `tools`.
///
/// # Which methods
///
/// A method is a tool when it is marked `#[tool]`, `#[canon::tool]` or
/// `#[<crate path>::tool]` (the path of `crate = "..."`); every other item
/// of the block is left as it is. A tool method takes `&self` (not
/// `&mut self`, `self` by value or a typed `self`: calls run concurrently on
/// one shared instance, so keep changing state behind a `Mutex`), and
/// otherwise follows the rules of a free [`macro@tool`]: sync or `async`,
/// no generics, the same return types and parameters, the same
/// `#[arg(...)]` and context parameters, and the same `#[tool(...)]` keys
/// (`name`, `description`, `repair(...)`, `timeout`) except `crate`, which
/// is given once, on the block. `Self` in a tool method's parameters,
/// return type and defaults is the block's type, and a `#[cfg(...)]` on
/// the method is carried by everything generated for it.
///
/// # What it generates
///
/// For `impl Repo` and its method `read_files`, beside the block (emitted
/// as written, minus the `#[tool]` attributes and the parameter
/// attributes):
///
/// - `RepoReadFilesArgs`, the arguments struct, as for a free function;
/// - `RepoReadFiles(pub Arc<Repo>)`, a `Clone` struct with the method's
///   visibility, implementing `canon::Tool` for the tool named `read_files`
///   (the method's name, or `name = "..."`), which calls the method on the
///   shared instance (as `Repo::read_files`, so a method named like one of
///   `Arc`'s, `clone` or `to_string`, is still the one called): an async
///   method on the caller's task, a sync method
///   on Tokio's blocking pool with a clone of the `Arc` (inline with no
///   runtime current);
/// - `pub fn tools(self: Arc<Self>) -> Vec<Arc<dyn DynTool>>` on
///   `Repo`: one tool per method, in order, sharing the instance, ready for
///   `Toolbox::add_shared`.
///
/// `Repo` must be `Send + Sync + 'static`, since every tool holds it in an
/// `Arc`.
///
/// # `#[canon::tools(...)]`
///
/// - `crate = "..."`: the path the generated code names canon by for every
///   tool of the block, for a crate that depends on canon under another
///   name (as for [`macro@tool`]). Default: `::canon`. It is the only key.
///
/// # Compile errors
///
/// As for a free function, for each tool method and all together; and on
/// the block: any key but `crate`, an item that is not an impl block, a
/// trait impl, a generic impl, a type that is not a plain name, a tool
/// method without `self` or taking `&mut self`, `self` by value or a typed
/// `self`, `#[tool = "..."]`, and `crate` on a method's `#[tool(...)]`.
///
/// # Example
///
/// ```
/// use std::sync::Arc;
/// use canon::{tools, Tool, Toolbox};
///
/// struct Repo {
///     root: String,
/// }
///
/// #[tools]
/// impl Repo {
///     /// Look up files by path.
///     #[tool]
///     async fn read_files(&self, paths: Vec<String>) -> Vec<String> {
///         paths.iter().map(|p| format!("{}/{p}", self.root)).collect()
///     }
///
///     /// Count the files under the root.
///     #[tool(name = "count", timeout = "5s")]
///     fn count_files(&self) -> usize {
///         self.root.len()
///     }
///
///     /// Not a tool: plain helper, left untouched.
///     fn helper(&self) {}
/// }
///
/// let repo = Arc::new(Repo { root: "/srv".into() });
/// assert_eq!(RepoCountFiles(Arc::clone(&repo)).name(), "count");
/// let bound = RepoReadFiles(Arc::clone(&repo))
///     .bind(&serde_json::json!({"paths": "README.md"}))
///     .unwrap();
/// assert_eq!(bound.args.paths, ["README.md"]);
///
/// let mut toolbox = Toolbox::new();
/// for tool in repo.tools() {
///     toolbox.add_shared(tool).unwrap();
/// }
/// let names: Vec<_> = toolbox.specs().map(|spec| spec.name()).collect();
/// assert_eq!(names, ["read_files", "count"]);
/// ```
#[proc_macro_attribute]
pub fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    methods::expand(attr.into(), item.into()).into()
}

fn expand_tool(attr: TokenStream2, item: TokenStream2) -> TokenStream2 {
    let mut errors = Errors::default();
    let options = attr::tool_options(attr, &mut errors);
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(func) => func,
        Err(_) => {
            errors.push(not_a_function(item.clone()));
            let errors = errors.into_compile_errors();
            return quote! { #item #errors };
        }
    };
    let func = ast::ToolFn::parse(options, func, &mut errors);
    check::tool_fn(&func, check::Place::Free, &mut errors);
    let emitted = func.emitted();
    if errors.stops_generation() {
        // Emit the function too, so a mistake in the attribute gives one
        // error rather than a cascade where the function is used; a function
        // with `self` would only add rustc's own error, so it is left out.
        let errors = errors.into_compile_errors();
        return if func.receiver.is_some() {
            errors
        } else {
            quote! { #emitted #errors }
        };
    }
    let krate = model::crate_path(func.options.krate.as_ref());
    let model = Tool::new(&func, krate);
    let generated = expand::tool(&model, &expand::Target::Free);
    let errors = errors.into_compile_errors();
    quote! { #emitted #generated #errors }
}

fn not_a_function(item: TokenStream2) -> syn::Error {
    let message = |what: &str| format!("#[tool] goes on a function, not on {what}");
    match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(s)) => syn::Error::new_spanned(&s.ident, message("a struct")),
        Ok(Item::Enum(e)) => syn::Error::new_spanned(&e.ident, message("an enum")),
        Ok(Item::Impl(i)) => syn::Error::new_spanned(
            i.impl_token,
            message("an impl block; put it on a free function"),
        ),
        Ok(Item::Const(c)) => syn::Error::new_spanned(&c.ident, message("a const")),
        Ok(Item::Static(s)) => syn::Error::new_spanned(&s.ident, message("a static")),
        Ok(Item::Mod(m)) => syn::Error::new_spanned(&m.ident, message("a module")),
        Ok(Item::Trait(t)) => syn::Error::new_spanned(&t.ident, message("a trait")),
        Ok(Item::Type(t)) => syn::Error::new_spanned(&t.ident, message("a type alias")),
        Ok(other) => syn::Error::new_spanned(other.to_token_stream(), message("this item")),
        Err(e) => e,
    }
}
