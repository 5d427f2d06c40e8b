//! Code generation from the model. Everything is named through absolute
//! paths into `::canon`, so the user's crate needs no other dependency.

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Output, Param, ToolFn};

pub(crate) fn tool(model: &ToolFn) -> TokenStream {
    let ToolFn {
        vis,
        ident,
        name,
        description,
        is_async,
        params,
        output,
    } = model;
    let base = ident
        .to_string()
        .trim_start_matches("r#")
        .to_upper_camel_case();
    let unit = format_ident!("{}", base, span = ident.span());
    let args = format_ident!("{}Args", base, span = ident.span());

    let fields = params.iter().map(|Param { ident, ty, docs }| {
        quote! { #(#docs)* pub #ident: #ty }
    });
    let names: Vec<_> = params.iter().map(|p| &p.ident).collect();
    let asserts = params.iter().map(|Param { ty, .. }| {
        quote_spanned! {ty.span()=> ::canon::__private::assert_param::<#ty>(); }
    });

    let call = if *is_async {
        quote! { #ident(#(#names),*).await }
    } else {
        quote! { #ident(#(#names),*) }
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
        Output::Result(ty) => (
            quote_spanned! {ty.span()=> <#ty as ::canon::__private::ToolResult>::Ok },
            quote_spanned! {ty.span()=> <#ty as ::canon::__private::ToolResult>::Err },
            quote! { ::canon::__private::ToolResult::into_result(#call) },
        ),
    };
    // Spanned on the return type, so an unmet bound lands there.
    let ret_span = match output {
        Output::Unit => ident.span(),
        Output::Value(ty) | Output::Result(ty) => ty.span(),
    };
    let output_item = quote_spanned! {ret_span=> type Output = #output_ty; };
    let error_item = quote_spanned! {ret_span=> type Error = #error_ty; };
    let unit_doc = format!("The `{name}` tool, declared by [`{ident}`]; call it through [`canon::Tool`](::canon::Tool).");
    let args_doc =
        format!("The arguments of the `{name}` tool, one field per parameter of [`{ident}`].");

    quote! {
        #[doc = #unit_doc]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
        #vis struct #unit;

        // The doc comment would become the schema's description, which
        // belongs to the tool; the text is kept for rustdoc only.
        #[cfg_attr(doc, doc = #args_doc)]
        #[allow(missing_docs)]
        #[derive(::canon::__private::serde::Deserialize, ::canon::__private::schemars::JsonSchema)]
        #[serde(crate = "::canon::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::canon::__private::schemars")]
        #vis struct #args {
            #(#fields,)*
        }

        const _: () = { #(#asserts)* };

        impl ::canon::Tool for #unit {
            type Args = #args;
            #output_item
            #error_item

            fn spec(&self) -> &::canon::ToolSpec {
                static SPEC: ::canon::__private::OnceLock<::canon::ToolSpec> =
                    ::canon::__private::OnceLock::new();
                SPEC.get_or_init(|| ::canon::ToolSpec::of::<#args>(#name, #description))
            }

            fn run(
                &self,
                args: #args,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<Self::Output, Self::Error>,
            > + ::core::marker::Send {
                let #args { #(#names),* } = args;
                async move { #result }
            }
        }
    }
}
