//! The small pieces every generated part uses: what the tool calls,
//! hygienic names, and spans on the user's tokens.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use crate::model::Param;

/// What the tool calls: a free function, or a `&self` method of a type
/// whose shared instance the tool holds.
pub(crate) enum Target<'a> {
    /// A free function.
    Free,
    /// A `&self` method of the type `self_ty` (a path without generic
    /// arguments).
    Method { self_ty: &'a syn::Path },
}

impl Target<'_> {
    /// The prefix of the generated names: none, or the type's name.
    pub(super) fn prefix(&self) -> String {
        match self {
            Target::Free => String::new(),
            Target::Method { self_ty } => self_ty
                .segments
                .last()
                .map(|segment| segment.ident.to_string())
                .unwrap_or_default(),
        }
    }
}

/// A local of the generated code: mixed-site, so that no name of the
/// user's (a parameter, an item) can clash with it.
pub(super) fn hygienic(name: &str) -> syn::Ident {
    syn::Ident::new(name, proc_macro2::Span::mixed_site())
}

/// The hidden function that computes a parameter's `#[arg(default = ...)]`.
pub(super) fn default_fn(param: &Param<'_>) -> syn::Ident {
    format_ident!("__canon_default_{}", crate::check::unraw(param.ident))
}

/// The path as it is written, for the strings that name it (schemars'
/// `crate = "..."`, doc links).
pub(super) fn path_text(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}

/// The crate path with every token at `span`, for code spanned on a user's
/// token, so that an error in it lands there.
pub(super) fn respan(path: &syn::Path, span: proc_macro2::Span) -> TokenStream {
    quote!(#path)
        .into_iter()
        .map(|mut token| {
            token.set_span(span);
            token
        })
        .collect()
}

/// The span of a type's last token: a call whose turbofish closes there
/// underlines the whole type when it fails (one span cannot be joined on
/// stable).
pub(super) fn last_span(ty: &syn::Type) -> proc_macro2::Span {
    quote!(#ty)
        .into_iter()
        .last()
        .map_or_else(|| ty.span(), |token| token.span())
}
