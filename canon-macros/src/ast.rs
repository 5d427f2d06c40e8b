//! The parsed form of the input: what `#[tool(...)]`, `#[canon::tools(...)]`
//! and `#[arg(...)]` say, and the function or impl block they are put on.
//!
//! Every attribute is parsed once, here (through the grammar in `attr`);
//! validation (`check`) and generation (`model`, `expand`) read only these
//! types. Each option keeps the tokens it was written with (a `LitStr`, an
//! `Ident`, a `Path`), so an error about it is spanned on what the user
//! wrote.

use proc_macro2::TokenStream;
use syn::{Attribute, Expr, FnArg, Ident, ImplItem, ItemFn, ItemImpl, LitStr, Pat, Receiver, Type};

use crate::attr;
use crate::errors::Errors;

/// What `#[tool(...)]` says.
#[derive(Default)]
pub(crate) struct ToolOptions {
    /// `name = "..."`: the tool's name (not empty).
    pub(crate) name: Option<LitStr>,
    /// `description = "..."`: the tool's description, instead of its doc
    /// comment (an empty one is reported as it is read).
    pub(crate) description: Option<LitStr>,
    /// `repair(rule, ...)`: the opt-in rules, in order, each once, as
    /// written (`number_text`).
    pub(crate) repair: Vec<Ident>,
    /// `timeout = "..."`, in milliseconds (above zero). Every error
    /// about it is found, and spanned on the literal, as it is read.
    pub(crate) timeout: Option<u64>,
    /// `crate = "..."`.
    pub(crate) krate: Option<CratePath>,
}

/// `crate = "agent_tools"`, read: the path the generated code names canon
/// by, for a crate that depends on canon under another name.
pub(crate) struct CratePath {
    /// The literal as written.
    pub(crate) lit: LitStr,
    /// The path it holds (its tokens spanned on the literal).
    pub(crate) path: syn::Path,
}

/// What `#[canon::tools(...)]` says.
#[derive(Default)]
pub(crate) struct ToolsOptions {
    /// `crate = "..."`, for every tool of the block.
    pub(crate) krate: Option<CratePath>,
}

/// What the `#[arg(...)]` attributes of one parameter say.
#[derive(Default)]
pub(crate) struct ArgOptions {
    /// `rename = "..."`: the property's name in the arguments (not empty).
    pub(crate) rename: Option<LitStr>,
    /// `description = "..."`: the property's description.
    pub(crate) description: Option<LitStr>,
    /// `default = expr`: the value when the property is absent.
    pub(crate) default: Option<Expr>,
    /// `context`: the parameter is filled from the call context, whatever
    /// its type is spelled (an alias of `canon::Context<T>`).
    pub(crate) context: Option<syn::Path>,
    /// `not_context`: a type named `Context<..>` that is the user's own, an
    /// ordinary parameter.
    pub(crate) not_context: Option<syn::Path>,
    /// Every key that describes a property of the arguments object
    /// (`rename`, `description`, `default`), as written and in order,
    /// repeated or malformed ones included.
    pub(crate) property_keys: Vec<syn::Path>,
}

/// A function (or a method of a `#[canon::tools]` block) marked `#[tool]`.
pub(crate) struct ToolFn {
    /// What its `#[tool(...)]` says.
    pub(crate) options: ToolOptions,
    /// The function as written, parameter attributes included.
    pub(crate) item: ItemFn,
    /// Its doc comment's text, as schemars reads it (empty when it has
    /// none).
    pub(crate) docs: String,
    /// Its `self`, `&self`, `&mut self`, `self: Arc<Self>`, ... (syn
    /// accepts one, first).
    pub(crate) receiver: Option<Receiver>,
    /// Its typed parameters, in order.
    pub(crate) params: Vec<Param>,
}

/// One typed parameter, as written.
pub(crate) struct Param {
    /// Its pattern (a plain name for a valid tool).
    pub(crate) pat: Pat,
    pub(crate) ty: Type,
    /// Its doc comments, which describe the property.
    pub(crate) docs: Vec<Attribute>,
    /// What its `#[arg(...)]` attributes say.
    pub(crate) arg: ArgOptions,
    /// Its other attributes, which a tool parameter does not take.
    pub(crate) foreign: Vec<Attribute>,
}

/// An impl block marked `#[canon::tools]`.
pub(crate) struct ToolsImpl {
    /// What `#[canon::tools(...)]` says.
    pub(crate) options: ToolsOptions,
    /// The block as it is emitted: as written, minus each tool method's
    /// `#[tool]` and its parameters' attributes.
    pub(crate) block: ItemImpl,
    /// The type's name, when the block is `impl Name`.
    pub(crate) self_ty: Option<Ident>,
    /// Its methods marked `#[tool]`, in order.
    pub(crate) methods: Vec<ToolFn>,
}

impl ToolFn {
    /// Parses a function marked `#[tool]`, with what the attribute says
    /// (`options`) and the `#[arg(...)]` of every parameter.
    pub(crate) fn parse(options: ToolOptions, item: ItemFn, errors: &mut Errors) -> ToolFn {
        let receiver = item.sig.receiver().cloned();
        let params = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Receiver(_) => None,
                FnArg::Typed(arg) => Some(Param {
                    pat: (*arg.pat).clone(),
                    ty: (*arg.ty).clone(),
                    docs: arg
                        .attrs
                        .iter()
                        .filter(|a| a.path().is_ident("doc"))
                        .cloned()
                        .collect(),
                    arg: attr::arg_options(&arg.attrs, errors),
                    foreign: arg
                        .attrs
                        .iter()
                        .filter(|a| !a.path().is_ident("doc") && !a.path().is_ident("arg"))
                        .cloned()
                        .collect(),
                }),
            })
            .collect();
        ToolFn {
            options,
            docs: doc_text(&item.attrs),
            receiver,
            params,
            item,
        }
    }

    /// The function as it is emitted: as written, minus the parameter
    /// attributes rustc does not accept there (doc comments move to the
    /// arguments struct).
    pub(crate) fn emitted(&self) -> ItemFn {
        let mut func = self.item.clone();
        strip_parameter_attributes(&mut func.sig);
        func
    }
}

impl Param {
    /// Its name, when the pattern is a plain name.
    pub(crate) fn ident(&self) -> Option<&Ident> {
        match &self.pat {
            Pat::Ident(pat) => Some(&pat.ident),
            _ => None,
        }
    }

    /// `T` when its type is spelled `Context<T>`, whatever the path.
    pub(crate) fn context_value(&self) -> Option<&Type> {
        context_value(&self.ty)
    }

    /// True for a parameter filled from the caller's call context: one
    /// marked `#[arg(context)]`, or one whose type is spelled `Context<T>`
    /// (under any path: `Context<T>`, `canon::Context<T>`,
    /// `agent_tools::Context<T>`) and that is not marked
    /// `#[arg(not_context)]`. Macros cannot resolve names, so the generated
    /// code checks that the type really is `canon::Context<_>`.
    pub(crate) fn is_context(&self) -> bool {
        self.arg.context.is_some()
            || (self.arg.not_context.is_none() && self.context_value().is_some())
    }
}

impl ToolsImpl {
    /// Parses an impl block marked `#[canon::tools]`, with what the
    /// attribute says (`options`), and every method marked `#[tool]`,
    /// `#[canon::tool]` or `#[<crate path>::tool]`, with its `#[tool(...)]`.
    pub(crate) fn parse(
        options: ToolsOptions,
        mut block: ItemImpl,
        errors: &mut Errors,
    ) -> ToolsImpl {
        let canon: syn::Path = syn::parse_quote!(canon);
        let krate = options.krate.as_ref().map_or(&canon, |k| &k.path);
        let mut methods = Vec::new();
        for item in &mut block.items {
            let ImplItem::Fn(method) = item else { continue };
            let Some(position) = method
                .attrs
                .iter()
                .position(|attr| is_tool_attr(attr, krate))
            else {
                continue;
            };
            let tool_attr = method.attrs.remove(position);
            let tokens = match &tool_attr.meta {
                syn::Meta::Path(_) => TokenStream::new(),
                syn::Meta::List(list) => list.tokens.clone(),
                syn::Meta::NameValue(nv) => {
                    errors.spanned(nv, "expected #[tool] or #[tool(key = \"...\", ...)]");
                    continue;
                }
            };
            let func = ItemFn {
                attrs: method.attrs.clone(),
                vis: method.vis.clone(),
                sig: method.sig.clone(),
                block: Box::new(method.block.clone()),
            };
            let tool_options = attr::tool_options(tokens, errors);
            methods.push(ToolFn::parse(tool_options, func, errors));
            strip_parameter_attributes(&mut method.sig);
        }
        let self_ty = match &*block.self_ty {
            Type::Path(path) if path.qself.is_none() => path
                .path
                .segments
                .last()
                .filter(|s| s.arguments.is_empty())
                .map(|s| s.ident.clone()),
            _ => None,
        };
        ToolsImpl {
            options,
            block,
            self_ty,
            methods,
        }
    }
}

/// `#[tool]`, `#[canon::tool]`, or `#[<crate path>::tool]` (leading `::`
/// or not).
fn is_tool_attr(attr: &Attribute, krate: &syn::Path) -> bool {
    let path = attr.path();
    if path.is_ident("tool") {
        return true;
    }
    let Some(last) = path.segments.last() else {
        return false;
    };
    let prefix: Vec<_> = path.segments.iter().map(|s| &s.ident).collect();
    let prefix = &prefix[..prefix.len() - 1];
    let krate: Vec<_> = krate.segments.iter().map(|s| &s.ident).collect();
    last.ident == "tool" && last.arguments.is_empty() && (prefix == ["canon"] || prefix == krate)
}

/// Drops every parameter attribute of a signature: rustc accepts none of
/// the ones a tool parameter takes (doc comments, `#[arg]`) there.
fn strip_parameter_attributes(sig: &mut syn::Signature) {
    for input in &mut sig.inputs {
        if let FnArg::Typed(arg) = input {
            arg.attrs.clear();
        }
    }
}

/// `T` for a type spelled `Context<T>`, whatever its path.
fn context_value(ty: &Type) -> Option<&Type> {
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

/// Doc comment text, as schemars reads it: one leading space dropped from
/// each line, lines joined with newlines, then trimmed.
fn doc_text(attrs: &[Attribute]) -> String {
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
