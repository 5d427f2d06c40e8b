//! The arguments struct (`SearchCodeArgs`): its definition, its
//! `JsonSchema` (the input schema), each field's schema and the one check
//! that its type can be a parameter, the `#[arg(default = ...)]` functions,
//! and its `Debug`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::{default_fn, last_span, respan};
use crate::check::unraw;
use crate::model::{Param, Tool};

/// The struct itself: one public field per parameter, in order, with the
/// parameter's doc comments.
pub(super) fn definition(model: &Tool<'_>, args: &syn::Ident, declared: &str) -> TokenStream {
    let Tool {
        vis, name, cfgs, ..
    } = model;
    let fields = model.params.iter().map(|p| {
        let Param { ident, ty, .. } = p;
        let docs = &p.ast.docs;
        quote! { #(#docs)* pub #ident: #ty }
    });
    let args_doc =
        format!("The arguments of the `{name}` tool, one field per parameter of {declared}.");
    quote! {
        // The doc comment would become the schema's description, which
        // belongs to the tool; the text is kept for rustdoc only.
        #(#cfgs)*
        #[cfg_attr(doc, doc = #args_doc)]
        #[allow(missing_docs)]
        // `Deserialize` is implemented by field index (`de.rs`) and
        // `JsonSchema` from a table of the parameters (`impls`).
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
    let schemars = quote! { #krate::__private::schemars };
    // Each property as schemars' derive describes a field: its name, its
    // doc comment (title and description), `description = ...`, its
    // default, and its type's schema. The work is one function of the
    // runtime's, compiled once.
    let entries = params.iter().enumerate().map(|(index, p)| {
        let wire = &p.wire;
        let doc = match doc_concat(&p.ast.docs) {
            Some(doc) => quote! { ::core::option::Option::Some(#doc) },
            None => quote! { ::core::option::Option::None },
        };
        let description = match &p.ast.arg.description {
            Some(d) => quote! { ::core::option::Option::Some(#d) },
            None => quote! { ::core::option::Option::None },
        };
        let default = match &p.ast.arg.default {
            Some(_) => {
                let name = default_fn(p);
                quote! {
                    ::core::option::Option::Some(|| #schemars::_schemars_maybe_to_value!(#args::#name()))
                }
            }
            None => quote! { ::core::option::Option::None },
        };
        quote! {
            #krate::__private::ArgSchema {
                name: #wire,
                doc: #doc,
                description: #description,
                schema: <#args as #krate::__private::ArgField<#index>>::schema_fns,
                default: #default,
            }
        }
    });
    quote! {
        impl #args {
            #(#defaults)*
        }

        #(#arg_fields)*

        // What schemars' derive would write for the struct with
        // `deny_unknown_fields`, less a copy of its generic code per field.
        #[automatically_derived]
        impl #schemars::JsonSchema for #args {
            fn schema_name() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
                ::std::borrow::Cow::Borrowed(#args_name)
            }

            fn schema_id() -> ::std::borrow::Cow<'static, ::core::primitive::str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #args_name))
            }

            fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #krate::__private::args_schema(generator, &[#(#entries),*])
            }
        }

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

/// A parameter's doc comment as schemars' derive reads it: its lines
/// ([`doc_lines`](crate::attr::doc_lines)) joined by newlines; `None`
/// without one.
fn doc_concat(docs: &[syn::Attribute]) -> Option<TokenStream> {
    let lines = crate::attr::doc_lines(docs);
    let (first, rest) = lines.split_first()?;
    Some(quote! { ::core::concat!(#first #(, "\n", #rest)*) })
}
