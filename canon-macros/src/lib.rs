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

/// Declares a tool from a function.
///
/// On `fn search_code(...)`, generates:
/// - `SearchCodeArgs`: a struct with one public field per parameter, deriving
///   `Deserialize` (unknown fields denied) and `JsonSchema`; parameter doc
///   comments become property descriptions;
/// - `SearchCode`: a unit struct implementing `canon::Tool`, named
///   `search_code`, described by the function's doc comment;
/// - the function itself, unchanged and callable as before.
///
/// `#[tool(name = "...", description = "...")]` overrides the name and the
/// description; `#[tool(repair(number_text, bool_text))]` enables opt-in
/// repair rules for this tool (`json_text`, `number_text`, `bool_text`,
/// `null_as_absent`; see `canon::Policy`), beside the core rule, which
/// always applies. `#[tool(timeout = "30s")]` gives the tool a timeout of
/// its own in a `canon::Toolbox` (a whole number above zero and `ms`, `s` or
/// `m`: `"500ms"`, `"30s"`, `"2m"`; read at compile time), which wins over
/// the toolbox's default and yields to `Toolbox::timeout_for`.
/// `#[tool(crate = "agent_tools")]` is for a crate that depends on canon
/// under another name (`agent_tools = { package = "canon", ... }`): the
/// generated code names canon by that path instead of `::canon` (serde's
/// and schemars' convention). The function
/// may be sync or async, and return `T` or a type
/// named `Result` (`Result<T, E>`, `io::Result<T>`, `anyhow::Result<T>`):
/// `T: Serialize` is the output, `E: Display` the tool's own error. Each
/// parameter is `name: Type` with `Type: Deserialize + JsonSchema` owned.
/// `#[arg(rename = "...", description = "...", default = expr)]` on a
/// parameter sets its name in the arguments, its description and a default
/// for when it is absent.
///
/// Context parameters: a parameter of type `canon::Context<T>` is filled from the caller's
/// `canon::CallContext` (a clone of its `T`), not from the model's
/// arguments, and is not in the schema. A macro cannot resolve names, so
/// which parameters are context parameters is read from how they are
/// written:
/// - a parameter whose type is written `Context<T>`, under any path
///   (`Context<T>` after `use canon::Context`, `canon::Context<T>`,
///   `agent_tools::Context<T>`), is one, unless it is marked
///   `#[arg(not_context)]`: that is for a type of your own named `Context`,
///   which is then an ordinary parameter, read from the arguments;
/// - a parameter marked `#[arg(context)]` is one whatever its type is
///   written as: that is for an alias, like
///   `type Caller = canon::Context<User>`.
///
/// The generated code checks that each context parameter's type really is
/// `canon::Context<_>`, so a type of your own named `Context` and left
/// unmarked is one compile error on that type, which says to mark it
/// `#[arg(not_context)]`. `rename`, `description` and `default` do not apply
/// to a context parameter. A tool with context parameters fails with
/// `canon::ContextError::Missing` when the caller's context lacks a value.
///
/// A sync function runs on Tokio's blocking pool (`spawn_blocking`) when a
/// Tokio runtime is current, so a tool that blocks stalls neither the
/// executor nor the other calls of a batch, and a timeout around it can
/// fire; with no runtime current it runs inline. Its return value (the
/// output, and the error of a `Result`) must therefore be `Send + 'static`. A timed-out sync tool cannot be stopped:
/// its thread runs it to the end and the result is discarded. An async
/// function runs on the caller's task, and stops at an await when the call
/// is dropped or times out.
///
/// Compile errors, each on its own token and all reported together: a tool
/// without a description (neither a doc comment nor `description = "..."`:
/// a model cannot choose a tool it is not told about), generic
/// functions, `where` clauses, `self`, an `unsafe fn` (canon forbids it), patterns other than a
/// plain name, `impl Trait` or reference parameters, attributes other than
/// doc comments on parameters, unknown, duplicate or malformed keys, unknown
/// or duplicate repair rules, a malformed, zero or overflowing `timeout`,
/// a `crate` that is not a path in a string, `context` with `not_context`,
/// `not_context` on a type not named `Context<..>`, `rename`,
/// `description` or `default` on a context parameter, and items other than
/// functions.
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
/// let bound = LabelIssue
///     .bind(&serde_json::json!({"number": 7, "labels": "bug"}))
///     .unwrap();
/// assert_eq!(bound.args.labels, ["bug"]);
/// ```
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand_tool(attr.into(), item.into()).into()
}

/// Makes the `#[tool]` methods of an inherent impl block tools bound to a
/// shared instance.
///
/// Each `&self` method marked `#[tool]` (sync or async, with the same
/// parameter rules and `#[tool(name = "...", description = "...",
/// timeout = "...")]` keys as a free function; a sync method runs on the
/// blocking pool with a clone of the `Arc`) gets an arguments struct and a tool struct named after
/// the type and the method (`Repo::read_files` → `RepoReadFiles`, holding an
/// `Arc<Repo>`), and the impl gains `fn tools(self: Arc<Self>)`, which
/// returns them ready for a `canon::Toolbox`. Other items are left as they
/// are. `&mut self`, `self` by value, methods without `self` and generic
/// methods are compile errors. A method is marked `#[tool]`,
/// `#[canon::tool]` or `#[<crate path>::tool]`.
///
/// `#[tools(crate = "agent_tools")]` names canon by that path in the code
/// generated for every tool of the block, for a crate that depends on canon
/// under another name; it is the only key `#[tools]` takes.
///
/// ```
/// use std::sync::Arc;
/// use canon::{tools, Toolbox};
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
///     /// Not a tool: plain helper, left untouched.
///     fn helper(&self) {}
/// }
///
/// let mut toolbox = Toolbox::new();
/// for tool in Arc::new(Repo { root: "/srv".into() }).tools() {
///     toolbox.add_shared(tool).unwrap();
/// }
/// assert_eq!(toolbox.specs().next().unwrap().name(), "read_files");
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
