//! Collects every error of one expansion, reported together.

use proc_macro2::TokenStream;

/// Errors found so far; folded into one `syn::Error` with `combine`.
#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
}

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.first {
            Some(first) => first.combine(error),
            None => self.first = Some(error),
        }
    }

    pub(crate) fn spanned(
        &mut self,
        tokens: impl quote::ToTokens,
        message: impl std::fmt::Display,
    ) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.first.map(|e| e.to_compile_error()).unwrap_or_default()
    }
}
