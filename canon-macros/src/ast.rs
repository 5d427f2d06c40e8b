//! The parsed form of the input: what `#[tool(...)]`, `#[canon::tools(...)]`
//! and `#[arg(...)]` say, and the function or impl block they are put on.
//!
//! Types only, at the bottom of the crate: every attribute is parsed once,
//! by the grammar in `attr`, into these; validation (`check`) and
//! generation (`model`, `expand`) read only them. Each option keeps the tokens it was written with (a `LitStr`, an
//! `Ident`, a `Path`), so an error about it is spanned on what the user
//! wrote.

use syn::{Attribute, Expr, FnArg, Ident, ItemFn, ItemImpl, LitStr, Pat, Receiver, Type};

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

/// Drops every parameter attribute of a signature: rustc accepts none of
/// the ones a tool parameter takes (doc comments, `#[arg]`) there.
pub(crate) fn strip_parameter_attributes(sig: &mut syn::Signature) {
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
