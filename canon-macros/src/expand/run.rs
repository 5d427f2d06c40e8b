//! Running the tool: the call of the function or method (on the blocking
//! pool when it is sync), the `Output` and `Error` types it gives the
//! `Tool` impl, and `run` / `run_with`, which fill the context parameters.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::{hygienic, last_span, respan, Target};
use crate::model::{ContextParam, Output, Tool};

/// What the `Tool` impl takes from the function's signature.
pub(super) struct Run {
    /// The tool's output type (`Tool::Output`).
    pub(super) output_ty: TokenStream,
    /// `type Output = ...;`
    pub(super) output_item: TokenStream,
    /// `type Error = ...;`
    pub(super) error_item: TokenStream,
    /// `run` (and `run_with`), in the `Tool` impl.
    pub(super) run: TokenStream,
    /// The inherent helper `run` and `run_with` call, when the tool has
    /// context parameters.
    pub(super) helper: TokenStream,
}

pub(super) fn run(
    model: &Tool<'_>,
    target: &Target<'_>,
    unit: &syn::Ident,
    args: &syn::Ident,
) -> Run {
    let Tool {
        ident,
        is_async,
        call_order,
        output,
        krate,
        contexts,
        ..
    } = model;
    // The free function is called through a local bound before the
    // parameters are, so a parameter named like the function does not hide
    // it; the generated locals are hygienic (mixed-site), so no parameter
    // name clashes with them.
    let function = hygienic("function");
    let call = match (target, *is_async) {
        (Target::Free, true) => quote! { #function(#(#call_order),*).await },
        // Called by the type's path, not as a method of the `Arc` (whose
        // own `clone`, `to_string`, ... would be found first).
        (Target::Method { self_ty }, true) => {
            quote! { <#self_ty>::#ident(&*self.0, #(#call_order),*).await }
        }
        // A sync tool runs on the blocking pool, so it stalls neither the
        // executor nor the other calls of a batch, and a timeout can fire.
        (Target::Free, false) => {
            let run_blocking = run_blocking(krate, output);
            quote! { #run_blocking(move || #function(#(#call_order),*)).await }
        }
        (Target::Method { self_ty }, false) => {
            let run_blocking = run_blocking(krate, output);
            let this = hygienic("this");
            quote! {
                {
                    let #this = ::std::sync::Arc::clone(&self.0);
                    #run_blocking(move || <#self_ty>::#ident(&*#this, #(#call_order),*)).await
                }
            }
        }
    };
    let bind_function = match target {
        Target::Free => quote! { let #function = #ident; },
        Target::Method { .. } => TokenStream::new(),
    };
    let infallible = quote! { ::core::convert::Infallible };
    let (output_ty, error_ty, result) = match output {
        Output::Unit => (
            quote! { () },
            infallible,
            quote! { ::core::result::Result::Ok(#call) },
        ),
        Output::Value(ty) => (
            quote! { #ty },
            infallible,
            quote! { ::core::result::Result::Ok(#call) },
        ),
        Output::Result(ty) => {
            let krate_ty = respan(krate, ty.span());
            (
                quote_spanned! {ty.span()=> <#ty as #krate_ty::__private::ToolResult>::Ok },
                quote_spanned! {ty.span()=> <#ty as #krate_ty::__private::ToolResult>::Err },
                quote! { #krate::__private::ToolResult::into_result(#call) },
            )
        }
    };
    // Spanned on the return type, so an unmet bound lands there.
    let ret_span = match output {
        Output::Unit => ident.span(),
        Output::Value(ty) | Output::Result(ty) => ty.span(),
    };
    let output_item = quote_spanned! {ret_span=> type Output = #output_ty; };
    let error_item = if contexts.is_empty() {
        quote_spanned! {ret_span=> type Error = #error_ty; }
    } else {
        let krate = respan(krate, ret_span);
        quote_spanned! {ret_span=> type Error = #krate::__private::ContextError<#error_ty>; }
    };
    let (run, helper) = run_fns(
        model,
        unit,
        args,
        &output_ty,
        &error_ty,
        &bind_function,
        &result,
    );
    Run {
        output_ty,
        output_item,
        error_item,
        run,
        helper,
    }
}

/// The path of `run_blocking`, naming the return type (with its own span),
/// so that a return type that is not `Send + 'static` is reported there.
fn run_blocking(krate: &syn::Path, output: &Output<'_>) -> TokenStream {
    let ty = match output {
        Output::Unit => quote! { () },
        Output::Value(ty) | Output::Result(ty) => quote! { #ty },
    };
    quote! { #krate::__private::run_blocking::<#ty, _> }
}

/// `run` (and, with `Context` parameters, `run_with`, which fills them from
/// the caller's context; `run` has none, so such a tool fails there), and
/// the inherent helper both call.
fn run_fns(
    model: &Tool<'_>,
    unit: &syn::Ident,
    args: &syn::Ident,
    output_ty: &TokenStream,
    error_ty: &TokenStream,
    bind_function: &TokenStream,
    result: &TokenStream,
) -> (TokenStream, TokenStream) {
    let krate = &model.krate;
    let contexts = &model.contexts;
    let names: Vec<_> = model.params.iter().map(|p| p.ident).collect();
    let args_var = hygienic("args");
    let context = hygienic("context");
    let future = quote! {
        impl ::core::future::Future<
            Output = ::core::result::Result<Self::Output, Self::Error>,
        > + ::core::marker::Send
    };
    if contexts.is_empty() {
        let run = quote! {
            fn run(&self, #args_var: #args) -> #future {
                #bind_function
                let #args { #(#names),* } = #args_var;
                async move { #result }
            }
        };
        return (run, TokenStream::new());
    }
    let idents: Vec<_> = contexts.iter().map(|c| c.ident).collect();
    // Located at the parameter, so an error about the value points there.
    let slots: Vec<_> = idents
        .iter()
        .enumerate()
        .map(|(i, ident)| {
            let span = proc_macro2::Span::mixed_site().located_at(ident.span());
            syn::Ident::new(&format!("context{i}"), span)
        })
        .collect();
    // One call per parameter, spanned on its type, looks the value up and
    // checks that the type is canon's `Context<_>`: whatever is wrong with
    // it is reported there, once. A missing value is named by its `T` as
    // written, or, for an alias, by the type's name.
    let fetches = contexts.iter().map(|c: &ContextParam<'_>| {
        let ty = c.ty;
        let krate = respan(krate, ty.span());
        let written = match c.value {
            Some(t) => {
                let name = quote!(#t).to_string().replace(' ', "");
                quote! { ::core::option::Option::Some(#name) }
            }
            None => quote! { ::core::option::Option::None },
        };
        // From the type's first token to its last, so the error underlines
        // the whole type.
        let call = quote_spanned! {last_span(ty)=> >(#context, #written) };
        quote_spanned! {ty.span()=>
            #krate::__private::context_param::<#ty #call
        }
    });
    let name = hygienic("name");
    let run = quote! {
        fn run(&self, #args_var: #args) -> #future {
            #unit::__canon_run(self, #args_var, ::core::option::Option::None)
        }

        fn run_with(&self, #args_var: #args, #context: &#krate::__private::CallContext) -> #future {
            #unit::__canon_run(self, #args_var, ::core::option::Option::Some(#context))
        }
    };
    let helper = quote! {
        impl #unit {
            fn __canon_run(
                &self,
                #args_var: #args,
                #context: ::core::option::Option<&#krate::__private::CallContext>,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#output_ty, #krate::__private::ContextError<#error_ty>>,
            > + ::core::marker::Send + '_ {
                #bind_function
                #(let #slots = #fetches;)*
                let #args { #(#names),* } = #args_var;
                async move {
                    #(let #idents = match #slots {
                        ::core::result::Result::Ok(#idents) => #idents,
                        ::core::result::Result::Err(#name) => {
                            return ::core::result::Result::Err(
                                #krate::__private::ContextError::Missing(#name),
                            );
                        }
                    };)*
                    (#result).map_err(#krate::__private::ContextError::Tool)
                }
            }
        }
    };
    (run, helper)
}
