//! What a parsed tool function means, once it has passed validation: its
//! name and description, its parameters split into properties of the
//! arguments object and context parameters, what it returns. Built from the
//! `ast` only (nothing is parsed again), and read by `expand`.

use syn::{Ident, ReturnType, Type, Visibility};

use crate::ast::{self, Docs, ToolFn};
use crate::check::unraw;

/// A function that becomes a tool.
pub(crate) struct Tool<'a> {
    pub(crate) vis: &'a Visibility,
    pub(crate) ident: &'a Ident,
    /// The tool's name: `name = "..."`, or the function's name.
    pub(crate) name: String,
    /// The tool's description: `description = "..."`, or the doc comment.
    pub(crate) description: Description,
    /// The function's `#[cfg(...)]` attributes, carried by everything
    /// generated for it.
    pub(crate) cfgs: &'a [syn::Attribute],
    /// The opt-in repair rules, as `RepairRule` variant names spanned on
    /// the rules as written.
    pub(crate) repair: Vec<Ident>,
    pub(crate) is_async: bool,
    /// `#[tool(timeout = "...")]`, in milliseconds.
    pub(crate) timeout_ms: Option<u64>,
    /// The parameters that are properties of the arguments object.
    pub(crate) params: Vec<Param<'a>>,
    /// The parameters filled from the caller's context.
    pub(crate) contexts: Vec<ContextParam<'a>>,
    /// Every parameter's name, in the function's order.
    pub(crate) call_order: Vec<&'a Ident>,
    pub(crate) output: Output<'a>,
    /// The path the generated code names canon by: `::canon`, or what
    /// `crate = "..."` says.
    pub(crate) krate: syn::Path,
}

/// The tool's description, as known when the macro runs.
pub(crate) enum Description {
    /// Its text.
    Text(String),
    /// The lines of a doc comment some of which a macro writes, joined
    /// with newlines and trimmed when the spec is built.
    Lines(Vec<syn::Expr>),
}

/// One parameter: a property of the arguments object.
pub(crate) struct Param<'a> {
    /// The parameter as parsed (its `#[arg(...)]` in `ast.arg`).
    pub(crate) ast: &'a ast::Param,
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    /// The property's name in the JSON arguments: `rename = "..."`, or the
    /// parameter's name.
    pub(crate) wire: String,
}

/// A parameter filled from the caller's call context, not the model's
/// arguments.
pub(crate) struct ContextParam<'a> {
    pub(crate) ident: &'a Ident,
    /// Its type, which the generated code checks is `canon::Context<_>`.
    pub(crate) ty: &'a Type,
    /// `T` when the type is spelled `Context<T>`; `None` for another
    /// spelling marked `#[arg(context)]` (an alias), whose `T` the generated
    /// code asks the type for.
    pub(crate) value: Option<&'a Type>,
}

/// What the function returns.
pub(crate) enum Output<'a> {
    /// Nothing: `()`.
    Unit,
    /// A value, which is the tool's output.
    Value(&'a Type),
    /// A type named `Result`: `Ok` is the output, `Err` the tool's error.
    Result(&'a Type),
}

impl<'a> Tool<'a> {
    /// The meaning of a function or method that passed validation, whose
    /// generated code names canon by `krate` (`crate = "..."` of its
    /// `#[tool]` or of its `#[canon::tools]` block, or `::canon`).
    pub(crate) fn new(func: &'a ToolFn, krate: syn::Path) -> Tool<'a> {
        let ident = &func.item.sig.ident;
        let options = &func.options;
        let name = match &options.name {
            Some(name) => name.value(),
            None => unraw(ident),
        };
        let description = match (&options.description, &func.docs) {
            (Some(description), _) => Description::Text(description.value()),
            (None, Docs::Text(text)) => Description::Text(text.clone()),
            (None, Docs::Lines(lines)) => Description::Lines(lines.clone()),
        };
        let mut params = Vec::new();
        let mut contexts = Vec::new();
        let mut call_order = Vec::new();
        for param in &func.params {
            // Validated already: every parameter is a plain name.
            let Some(ident) = param.ident() else { continue };
            call_order.push(ident);
            if param.is_context() {
                contexts.push(ContextParam {
                    ident,
                    ty: &param.ty,
                    value: param.context_value(),
                });
                continue;
            }
            let wire = match &param.arg.rename {
                Some(rename) => rename.value(),
                None => unraw(ident),
            };
            params.push(Param {
                ast: param,
                ident,
                ty: &param.ty,
                wire,
            });
        }
        let output = match &func.item.sig.output {
            ReturnType::Default => Output::Unit,
            ReturnType::Type(_, ty) if is_result(ty) => Output::Result(ty),
            ReturnType::Type(_, ty) => Output::Value(ty),
        };
        Tool {
            vis: &func.item.vis,
            ident,
            name,
            description,
            cfgs: &func.cfgs,
            repair: options
                .repair
                .iter()
                .map(|rule| {
                    let variant =
                        heck::ToUpperCamelCase::to_upper_camel_case(rule.to_string().as_str());
                    Ident::new(&variant, rule.span())
                })
                .collect(),
            is_async: func.item.sig.asyncness.is_some(),
            timeout_ms: options.timeout,
            params,
            contexts,
            call_order,
            output,
            krate,
        }
    }
}

/// The path the generated code names canon by: what `crate = "..."` says,
/// or `::canon`.
pub(crate) fn crate_path(krate: Option<&ast::CratePath>) -> syn::Path {
    match krate {
        Some(krate) => krate.path.clone(),
        None => syn::parse_quote!(::canon),
    }
}

/// True for a type whose last path segment is `Result` (`Result<T, E>`,
/// `std::io::Result<T>`, `anyhow::Result<T>`).
fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Result"),
        Type::Group(group) => is_result(&group.elem),
        Type::Paren(paren) => is_result(&paren.elem),
        _ => false,
    }
}
