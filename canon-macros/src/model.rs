//! The model of a tool function: what the macro knows once parsing and
//! validation have succeeded.

use syn::{Attribute, FnArg, Ident, ItemFn, Pat, ReturnType, Type, Visibility};

use crate::attr::{ArgAttr, ToolAttr};
use crate::errors::Errors;

/// A function that becomes a tool.
pub(crate) struct ToolFn {
    pub(crate) vis: Visibility,
    pub(crate) ident: Ident,
    pub(crate) name: String,
    pub(crate) description: String,
    /// The opt-in repair rules, as `RepairRule` variant names.
    pub(crate) repair: Vec<Ident>,
    pub(crate) is_async: bool,
    /// `#[tool(timeout = "...")]`, in milliseconds.
    pub(crate) timeout_ms: Option<u64>,
    /// The parameters that are properties of the arguments object.
    pub(crate) params: Vec<Param>,
    /// The parameters filled from the caller's context.
    pub(crate) contexts: Vec<ContextParam>,
    /// Every parameter's name, in the function's order.
    pub(crate) call_order: Vec<Ident>,
    pub(crate) output: Output,
    /// The path the generated code names canon by: `::canon`, or what
    /// `crate = "..."` says.
    pub(crate) krate: syn::Path,
}

/// One parameter: a property of the arguments object.
pub(crate) struct Param {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    pub(crate) docs: Vec<Attribute>,
    /// The property's name in the JSON arguments.
    pub(crate) wire: String,
    /// What `#[arg(...)]` says.
    pub(crate) arg: ArgAttr,
}

/// A parameter filled from the caller's call context, not the model's
/// arguments.
pub(crate) struct ContextParam {
    pub(crate) ident: Ident,
    /// Its type, which the generated code checks is `canon::Context<_>`.
    pub(crate) ty: Type,
    /// `T` when the type is spelled `Context<T>`; `None` for another
    /// spelling marked `#[arg(context)]` (an alias), whose `T` the generated
    /// code asks the type for.
    pub(crate) value: Option<Type>,
}

/// What the function returns.
pub(crate) enum Output {
    /// Nothing: `()`.
    Unit,
    /// A value, which is the tool's output.
    Value(Type),
    /// A type named `Result`: `Ok` is the output, `Err` the tool's error.
    Result(Type),
}

impl ToolFn {
    /// Builds the model of a function or method that passed validation.
    pub(crate) fn new(attr: ToolAttr, func: &ItemFn) -> ToolFn {
        let ident = func.sig.ident.clone();
        let name = match &attr.name {
            Some(name) => name.value(),
            None => ident.to_string().trim_start_matches("r#").to_owned(),
        };
        let description = match &attr.description {
            Some(description) => description.value(),
            None => doc_text(&func.attrs),
        };
        let mut params = Vec::new();
        let mut contexts = Vec::new();
        let mut call_order = Vec::new();
        for input in &func.sig.inputs {
            let FnArg::Typed(arg) = input else { continue };
            let Pat::Ident(pat) = &*arg.pat else { continue };
            call_order.push(pat.ident.clone());
            // Validated already: errors here cannot happen.
            let attr = ArgAttr::parse(&arg.attrs, &mut Errors::default());
            if is_context(&arg.ty, &attr) {
                contexts.push(ContextParam {
                    ident: pat.ident.clone(),
                    ty: (*arg.ty).clone(),
                    value: context_type(&arg.ty).cloned(),
                });
                continue;
            }
            let wire = match &attr.rename {
                Some(rename) => rename.value(),
                None => pat.ident.to_string().trim_start_matches("r#").to_owned(),
            };
            params.push(Param {
                ident: pat.ident.clone(),
                ty: (*arg.ty).clone(),
                docs: arg
                    .attrs
                    .iter()
                    .filter(|a| a.path().is_ident("doc"))
                    .cloned()
                    .collect(),
                wire,
                arg: attr,
            });
        }
        let output = match &func.sig.output {
            ReturnType::Default => Output::Unit,
            ReturnType::Type(_, ty) if is_result(ty) => Output::Result((**ty).clone()),
            ReturnType::Type(_, ty) => Output::Value((**ty).clone()),
        };
        ToolFn {
            vis: func.vis.clone(),
            ident,
            name,
            description,
            repair: attr
                .repair
                .iter()
                .map(|rule| {
                    let variant =
                        heck::ToUpperCamelCase::to_upper_camel_case(rule.to_string().as_str());
                    Ident::new(&variant, rule.span())
                })
                .collect(),
            is_async: func.sig.asyncness.is_some(),
            timeout_ms: attr.timeout,
            params,
            contexts,
            call_order,
            output,
            krate: attr.krate.unwrap_or_else(|| syn::parse_quote!(::canon)),
        }
    }
}

/// True for a parameter filled from the caller's call context: one marked
/// `#[arg(context)]`, or one whose type is spelled `Context<T>` (under any
/// path: `Context<T>`, `canon::Context<T>`, `agent_tools::Context<T>`)
/// and that is not marked `#[arg(not_context)]`. Macros cannot resolve
/// names, so the generated code checks that the type really is
/// `canon::Context<_>`.
pub(crate) fn is_context(ty: &Type, attr: &ArgAttr) -> bool {
    attr.context.is_some() || (attr.not_context.is_none() && context_type(ty).is_some())
}

/// `T` for a type spelled `Context<T>`, whatever its path.
pub(crate) fn context_type(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Context" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [syn::GenericArgument::Type(inner)] => Some(inner),
        _ => None,
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

/// Doc comment text, as schemars reads it: one leading space dropped from
/// each line, lines joined with newlines, then trimmed.
pub(crate) fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect();
    lines.join("\n").trim().to_owned()
}
