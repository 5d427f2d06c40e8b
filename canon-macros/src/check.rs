//! Validation of what `#[tool]` and `#[canon::tools]` are put on, read
//! from the parsed input (`ast`) only: everything that cannot become a tool
//! is reported here, each error on its own token.

use std::collections::HashMap;

use syn::{Ident, ImplItem, Pat, ReturnType, Type};

use crate::ast::{ungroup, Param, ToolFn, ToolsImpl};
use crate::errors::Errors;

/// Why a tool needs a description, and where canon reads it.
const NO_DESCRIPTION: &str = "this tool has no description, and a model cannot choose a tool it is not told about: add a `///` doc comment saying what the tool does, or #[tool(description = \"...\")]";

/// Why canon forbids a tool that is an `unsafe fn`.
const UNSAFE_FN: &str = "canon forbids a tool that is an `unsafe fn`: it is called with arguments chosen by a model; keep unsafe code inside a safe function";

/// Where the function stands: free, or a method in a `#[canon::tools]` impl.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Free,
    Method,
}

/// Everything about a tool function: its description and its signature.
pub(crate) fn tool_fn(func: &ToolFn, place: Place, errors: &mut Errors) {
    description(func, errors);
    signature(func, place, errors);
    struct_name(func, place, errors);
    wire_names(func, errors);
}

/// The generated structs are named after the function (`search_code` →
/// `SearchCode`): a name that gives no type name (`_1`, `__`, `self_`) is
/// refused here rather than generating code that does not compile.
fn struct_name(func: &ToolFn, place: Place, errors: &mut Errors) {
    let ident = &func.item.sig.ident;
    let base = struct_base(ident);
    let valid = match place {
        // Prefixed with the type's name: any word characters do.
        Place::Method => !base.is_empty(),
        Place::Free => syn::parse_str::<syn::Ident>(&base).is_ok(),
    };
    if !valid {
        errors.spanned(
            ident,
            format!(
                "canon names the tool's struct after the function, in UpperCamelCase, and \
                 `{}` gives `{base}`, which is not a type name: rename the function \
                 (#[tool(name = \"...\")] still sets the name the model sees)",
                unraw(ident)
            ),
        );
    }
}

/// Each property of the arguments has its own name: two parameters named
/// alike (through `rename`) would be one property the schema requires
/// twice, and the second could never be bound.
fn wire_names(func: &ToolFn, errors: &mut Errors) {
    let mut seen: HashMap<String, &syn::Ident> = HashMap::new();
    for param in &func.params {
        let Some(ident) = param.ident() else { continue };
        if param.is_context() {
            continue;
        }
        let wire = match &param.arg.rename {
            Some(rename) => rename.value(),
            None => unraw(ident),
        };
        match seen.get(&wire) {
            Some(first) => {
                let message = format!(
                    "`{}` and `{}` are both named `{wire}` in the tool's arguments: \
                     give one another name with #[arg(rename = \"...\")]",
                    unraw(first),
                    unraw(ident)
                );
                match &param.arg.rename {
                    Some(rename) => errors.spanned(rename, message),
                    None => errors.spanned(ident, message),
                }
            }
            None => {
                seen.insert(wire, ident);
            }
        }
    }
}

/// An impl block of tools: an inherent impl of a plain, non-generic type,
/// `crate = "..."` given on the block only, and each tool method.
pub(crate) fn tools_impl(block: &ToolsImpl, errors: &mut Errors) {
    if let Some((_, path, _)) = &block.block.trait_ {
        errors.spanned(
            path,
            "#[canon::tools] goes on an inherent impl (`impl Repo`), not a trait impl",
        );
    }
    if !block.block.generics.params.is_empty() {
        errors.spanned(
            &block.block.generics,
            "#[canon::tools] cannot be used on a generic impl: each tool's schema must be known \
             where it is declared",
        );
    }
    if block.self_ty.is_none() {
        errors.spanned(
            &block.block.self_ty,
            "#[canon::tools] needs a plain type name (`impl Repo`), without generic arguments",
        );
    }
    for item in &block.block.items {
        if let ImplItem::Fn(method) = item {
            if method.sig.ident == "tools" {
                errors.spanned(
                    &method.sig.ident,
                    "#[canon::tools] generates this type's `tools()` method, which returns its \
                     tools: give this method another name",
                );
            }
        }
    }
    for method in &block.methods {
        if let Some(krate) = &method.options.krate {
            errors.spanned(
                &krate.lit,
                "`crate` is given once, for every tool of the impl block: \
                 #[canon::tools(crate = \"...\")]",
            );
        }
        tool_fn(method, Place::Method, errors);
    }
}

/// The description the model reads to choose the tool: the doc comment, or
/// `description = "..."` (whose emptiness is reported as it is read).
fn description(func: &ToolFn, errors: &mut Errors) {
    if func.options.description.is_none() && func.docs.is_empty() {
        errors.spanned_whole(&func.item.sig.ident, NO_DESCRIPTION);
    }
}

fn signature(func: &ToolFn, place: Place, errors: &mut Errors) {
    let sig = &func.item.sig;
    if place == Place::Method && func.receiver.is_none() {
        errors.spanned(
            &sig.ident,
            "a tool method takes `&self`: the tool calls it on the shared instance; \
             a function without `self` can be a free #[tool]",
        );
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.spanned(unsafety, UNSAFE_FN);
    }
    if !sig.generics.params.is_empty() {
        errors.spanned(
            &sig.generics,
            "a tool cannot be generic: its argument schema must be known where it is declared; \
             use concrete types",
        );
    } else if let Some(clause) = &sig.generics.where_clause {
        errors.spanned(
            clause,
            "a tool cannot have a `where` clause: use concrete types",
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.spanned(variadic, "a tool cannot be variadic");
    }
    match &func.receiver {
        Some(receiver) if place == Place::Free => errors.spanned(
            receiver,
            "#[tool] on a free function cannot take `self`; to make methods tools, \
             put #[canon::tools] on their impl block",
        ),
        Some(receiver) if receiver.reference.is_none() || receiver.colon_token.is_some() => {
            errors.spanned(
                receiver,
                "a tool method takes `&self`, not `self` by value or a typed `self`: \
                 every call shares one instance",
            );
        }
        Some(receiver) if receiver.mutability.is_some() => errors.spanned(
            receiver,
            "a tool method takes `&self`, not `&mut self`: calls run concurrently \
             on a shared instance; keep changing state behind a Mutex",
        ),
        _ => {}
    }
    for param in &func.params {
        for attr in &param.foreign {
            errors.spanned(
                attr,
                "a tool parameter takes doc comments (its description) and \
                 #[arg(rename = \"...\", description = \"...\", default = ...)]",
            );
        }
        context_marks(param, errors);
        match &param.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {}
            pat => errors.spanned(
                pat,
                "a tool parameter must be a plain name (`name: Type`): \
                 the name is the parameter's name in the JSON arguments",
            ),
        }
        parameter_type(&param.ty, errors);
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        if let Type::ImplTrait(_) = ungroup(ty) {
            errors.spanned(
                ty,
                "a tool cannot return `impl Trait`: its output type is named in the generated \
                 `Tool` impl; return a concrete type",
            );
        }
    }
}

/// `#[arg(context)]` and `#[arg(not_context)]`: not both, `not_context`
/// only where the type is named `Context<..>`, and no key describing a
/// property on a parameter that comes from the caller.
fn context_marks(param: &Param, errors: &mut Errors) {
    let arg = &param.arg;
    let named = param.context_value().is_some();
    match (&arg.context, &arg.not_context) {
        (Some(_), Some(not_context)) => errors.spanned(
            not_context,
            "`context` and `not_context` contradict each other: keep one",
        ),
        (None, Some(not_context)) if !named => errors.spanned(
            not_context,
            "`not_context` is for a parameter whose type is named `Context<..>` but is not \
             canon's; this parameter is an ordinary one already",
        ),
        _ => {}
    }
    if !param.is_context() {
        return;
    }
    let hint = if arg.context.is_none() {
        "; if this `Context` is a type of your own, mark the parameter #[arg(not_context)]"
    } else {
        ""
    };
    for key in &arg.property_keys {
        let name = quote::quote!(#key).to_string();
        errors.spanned(
            key,
            format!(
                "`{name}` does not apply to a `Context` parameter: it comes from the caller, \
                 not the model{hint}"
            ),
        );
    }
}

fn parameter_type(ty: &Type, errors: &mut Errors) {
    match ungroup(ty) {
        Type::ImplTrait(_) => errors.spanned(
            ty,
            "a tool parameter cannot be `impl Trait`: its schema is derived from its type; \
             use a concrete type",
        ),
        Type::Reference(reference) => {
            let owned = owned_suggestion(&reference.elem);
            errors.spanned(
                ty,
                format!(
                    "a tool parameter must be an owned type, since it is deserialized from the \
                     model's JSON: use `{owned}`"
                ),
            );
        }
        _ => {}
    }
}

/// `str` → `String`, `[T]` → `Vec<T>`, `T` → `T`.
fn owned_suggestion(elem: &Type) -> String {
    match elem {
        Type::Path(path) if path.path.is_ident("str") => "String".to_owned(),
        Type::Slice(slice) => {
            let inner = &slice.elem;
            format!("Vec<{}>", quote::quote!(#inner)).replace(' ', "")
        }
        other => quote::quote!(#other).to_string().replace(' ', ""),
    }
}

/// The generated structs' name for a function, before any prefix: its
/// name in UpperCamelCase, without `r#` (`search_code` → `SearchCode`).
pub(crate) fn struct_base(ident: &Ident) -> String {
    heck::ToUpperCamelCase::to_upper_camel_case(unraw(ident).as_str())
}

/// A name as the model reads it: without `r#`.
pub(crate) fn unraw(ident: &Ident) -> String {
    ident.to_string().trim_start_matches("r#").to_owned()
}
