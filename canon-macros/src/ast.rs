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
    /// Its doc comment, as schemars reads it.
    pub(crate) docs: Docs,
    /// Its `#[cfg(...)]` attributes, which everything generated for it
    /// carries too.
    pub(crate) cfgs: Vec<Attribute>,
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

/// A doc comment: its text, or, when some line is written by a macro
/// (`#[doc = include_str!("...")]`), its lines as expressions.
pub(crate) enum Docs {
    /// Literal lines only: the text as schemars reads it (empty when there
    /// is none).
    Text(String),
    /// Some line is an expression: every line, literal ones with one
    /// leading space dropped, to be joined with newlines and trimmed where
    /// the text is known.
    Lines(Vec<Expr>),
}

impl Docs {
    /// True when there is no doc comment at all, or only blank lines.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Docs::Text(text) => text.is_empty(),
            Docs::Lines(_) => false,
        }
    }
}

/// An impl block marked `#[canon::tools]`.
pub(crate) struct ToolsImpl {
    /// What `#[canon::tools(...)]` says.
    pub(crate) options: ToolsOptions,
    /// The block as it is emitted: as written, minus each tool method's
    /// `#[tool]` and its parameters' attributes.
    pub(crate) block: ItemImpl,
    /// The type, when the block is `impl Name` or `impl path::to::Name`
    /// (no generic arguments).
    pub(crate) self_ty: Option<syn::Path>,
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
            cfgs: item
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("cfg"))
                .cloned()
                .collect(),
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
        context_value(ungroup(&self.ty))
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
        let self_ty = match &*block.self_ty {
            Type::Path(path)
                if path.qself.is_none()
                    && path.path.segments.iter().all(|s| s.arguments.is_empty()) =>
            {
                Some(path.path.clone())
            }
            _ => None,
        };
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
            let sig = method.sig.clone();
            // The block is emitted without the parameters' attributes,
            // which rustc does not take there, whatever else is wrong.
            strip_parameter_attributes(&mut method.sig);
            let tokens = match &tool_attr.meta {
                syn::Meta::Path(_) => TokenStream::new(),
                syn::Meta::List(list) => list.tokens.clone(),
                syn::Meta::NameValue(nv) => {
                    errors.spanned(nv, "expected #[tool] or #[tool(key = \"...\", ...)]");
                    continue;
                }
            };
            // What is generated outside the block names the type where the
            // method says `Self`.
            let sig = match &self_ty {
                Some(self_ty) => replace_self(sig, self_ty),
                None => sig,
            };
            let func = ItemFn {
                attrs: method.attrs.clone(),
                vis: method.vis.clone(),
                sig,
                block: Box::new(method.block.clone()),
            };
            let tool_options = attr::tool_options(tokens, errors);
            methods.push(ToolFn::parse(tool_options, func, errors));
        }
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

/// A type without the invisible group a `macro_rules!` fragment (`$t:ty`)
/// arrives in, or the parentheses it is written in.
pub(crate) fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => ungroup(&group.elem),
        Type::Paren(paren) => ungroup(&paren.elem),
        ty => ty,
    }
}

/// A method's signature with every `Self` replaced by the impl's type
/// (spanned on the `Self` it replaces): the types and defaults it holds
/// are used outside the impl block, where `Self` is another type.
fn replace_self(sig: syn::Signature, self_ty: &syn::Path) -> syn::Signature {
    fn replace(tokens: TokenStream, self_ty: &syn::Path) -> TokenStream {
        tokens
            .into_iter()
            .flat_map(|token| -> Vec<proc_macro2::TokenTree> {
                match token {
                    proc_macro2::TokenTree::Ident(ident) if ident == "Self" => {
                        let span = ident.span();
                        quote::quote!(#self_ty)
                            .into_iter()
                            .map(|mut t| {
                                t.set_span(span);
                                t
                            })
                            .collect()
                    }
                    proc_macro2::TokenTree::Group(group) => {
                        let mut new = proc_macro2::Group::new(
                            group.delimiter(),
                            replace(group.stream(), self_ty),
                        );
                        new.set_span(group.span());
                        vec![proc_macro2::TokenTree::Group(new)]
                    }
                    token => vec![token],
                }
            })
            .collect()
    }
    let tokens = replace(quote::ToTokens::into_token_stream(&sig), self_ty);
    // A path stands wherever `Self` did; should it not parse, the
    // signature is kept as written.
    syn::parse2(tokens).unwrap_or(sig)
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
/// each line, lines joined with newlines, then trimmed. A line written by
/// a macro (`#[doc = concat!(...)]`) cannot be read here: then every line
/// is kept as an expression.
fn doc_text(attrs: &[Attribute]) -> Docs {
    let lines = doc_lines(attrs);
    let literal = |line: &Expr| match line {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    };
    match lines.iter().map(literal).collect::<Option<Vec<String>>>() {
        Some(text) => Docs::Text(text.join("\n").trim().to_owned()),
        None => Docs::Lines(lines),
    }
}

/// The lines of a doc comment as schemars' derive reads them: a literal
/// line with one leading space dropped, a line written by a macro as its
/// expression.
pub(crate) fn doc_lines(attrs: &[Attribute]) -> Vec<Expr> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(&nv.value),
            _ => None,
        })
        .map(|value| match value {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => {
                let line = s.value();
                let line = LitStr::new(line.strip_prefix(' ').unwrap_or(&line), s.span());
                syn::parse_quote!(#line)
            }
            other => other.clone(),
        })
        .collect()
}
