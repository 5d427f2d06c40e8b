//! The arguments struct (`SearchCodeArgs`): its definition, whose derive
//! gives the input schema, each field's schema and the one check that its
//! type can be a parameter, the `#[arg(default = ...)]` functions, and its
//! `Debug`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{default_fn, last_span, path_text, respan};
use crate::model::{unraw, Param, Tool};

/// The struct itself: one public field per parameter, in order, with the
/// parameter's doc comments and `#[arg(...)]` as serde and schemars
/// attributes.
pub(super) fn definition(model: &Tool<'_>, args: &syn::Ident, declared: &str) -> TokenStream {
    let Tool {
        vis,
        name,
        krate,
        cfgs,
        ..
    } = model;
    let fields = model.params.iter().enumerate().map(|(index, p)| {
        let Param { ident, ty, .. } = p;
        let docs = &p.ast.docs;
        let arg = &p.ast.arg;
        // The derive takes the field's schema from `FieldSchema`, which is
        // exactly the type's own and compiles whatever the type is: a type
        // without `JsonSchema` is reported once, by the check in `ArgField`.
        let with = syn::LitStr::new(
            &format!(
                "{}::__private::FieldSchema<{args}, {index}>",
                path_text(krate)
            ),
            ty.span(),
        );
        let rename = arg
            .rename
            .as_ref()
            .map(|r| quote! { #[serde(rename = #r)] });
        let description = arg
            .description
            .as_ref()
            .map(|d| quote! { #[schemars(description = #d)] });
        let default = arg.default.as_ref().map(|_| {
            let path = format!("{args}::{}", default_fn(p));
            quote! { #[serde(default = #path)] }
        });
        quote! { #(#docs)* #[schemars(with = #with)] #rename #description #default pub #ident: #ty }
    });
    let schemars_crate = format!("{}::__private::schemars", path_text(krate));
    let args_doc =
        format!("The arguments of the `{name}` tool, one field per parameter of {declared}.");
    quote! {
        // The doc comment would become the schema's description, which
        // belongs to the tool; the text is kept for rustdoc only.
        #(#cfgs)*
        #[cfg_attr(doc, doc = #args_doc)]
        #[allow(missing_docs)]
        // `Deserialize` is implemented by field index (`de.rs`); the serde
        // attribute tells schemars that unknown fields are denied.
        #[derive(#krate::__private::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        #vis struct #args {
            #(#fields,)*
        }
    }
}

/// The struct's impls other than `Deserialize`: the default functions,
/// each field's schema and check (`ArgField`), and `Debug`.
pub(super) fn impls(model: &Tool<'_>, args: &syn::Ident) -> TokenStream {
    let krate = &model.krate;
    let params = &model.params;
    let defaults = params.iter().filter_map(|p| {
        let expr = p.ast.arg.default.as_ref()?;
        let ty = p.ty;
        let name = default_fn(p);
        Some(quote_spanned! {expr.span()=>
            #[doc(hidden)]
            pub fn #name() -> #ty {
                #expr
            }
        })
    });
    // Each parameter type's schema, and the one check that it can be a
    // parameter: every other use of the type compiles whatever it lacks, so
    // a missing derive is one error, on the type.
    let arg_fields = params.iter().enumerate().map(|(index, Param { ty, .. })| {
        let krate_ty = respan(krate, ty.span());
        let close = quote_spanned! {last_span(ty)=> >() };
        let check = quote_spanned! {ty.span()=>
            #krate_ty::__private::Verdict(
                (&#krate_ty::__private::ParamProbe::<#ty>::new()).deserialize_verdict(),
                (&#krate_ty::__private::ParamProbe::<#ty>::new()).schema_verdict(),
            )
            .check::<#ty #close
        };
        quote! {
            #[automatically_derived]
            impl #krate::__private::ArgField<#index> for #args {
                fn schema_fns() -> #krate::__private::SchemaFns {
                    #[allow(unused_imports)]
                    use #krate::__private::{
                        ParamDeserialize as _, ParamNoDeserialize as _, ParamNoSchema as _,
                        ParamSchema as _,
                    };
                    #check;
                    (&#krate::__private::ParamProbe::<#ty>::new()).schema_fns()
                }
            }
        }
    });
    let names: Vec<_> = params.iter().map(|p| p.ident).collect();
    let field_names: Vec<String> = names.iter().map(|n| unraw(n)).collect();
    let args_name = args.to_string();
    quote! {
        impl #args {
            #(#defaults)*
        }

        #(#arg_fields)*

        // `Debug` for every arguments struct, so `bind(..).unwrap_err()`
        // compiles: each field shown with its own `Debug`, or as `_` when
        // its type has none.
        #[automatically_derived]
        impl ::core::fmt::Debug for #args {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #[allow(unused_imports)]
                use #krate::__private::{FieldDebug as _, FieldNoDebug as _};
                f.debug_struct(#args_name)
                    #(.field(#field_names, (&#krate::__private::DebugField(&self.#names)).field_debug()))*
                    .finish()
            }
        }
    }
}
