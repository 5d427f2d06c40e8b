//! Collects every error of one expansion, reported together.

use proc_macro2::TokenStream;

/// Errors found so far; folded into one `syn::Error` with `combine`.
#[derive(Default)]
pub(crate) struct Errors {
    first: Option<syn::Error>,
    /// Some error leaves no tool to generate.
    stops_generation: bool,
}

impl Errors {
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.stops_generation = true;
        self.combine(error);
    }

    pub(crate) fn spanned(
        &mut self,
        tokens: impl quote::ToTokens,
        message: impl std::fmt::Display,
    ) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// An error that leaves the tool whole (it lacks a description): the
    /// tool is still generated beside the error, so its uses add none.
    pub(crate) fn spanned_whole(
        &mut self,
        tokens: impl quote::ToTokens,
        message: impl std::fmt::Display,
    ) {
        self.combine(syn::Error::new_spanned(tokens, message));
    }

    fn combine(&mut self, error: syn::Error) {
        match &mut self.first {
            Some(first) => first.combine(error),
            None => self.first = Some(error),
        }
    }

    /// True when some error leaves no tool to generate: emit the user's
    /// code and the errors only.
    pub(crate) fn stops_generation(&self) -> bool {
        self.stops_generation
    }

    pub(crate) fn into_compile_errors(self) -> TokenStream {
        self.first.map(|e| e.to_compile_error()).unwrap_or_default()
    }
}
