//! Code generation from the model. Everything is named through absolute
//! paths into the crate path (`::canon`, or what `crate = "..."` says), so
//! the user's crate needs no other dependency.

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{ContextParam, Output, Param, Tool};

/// What the tool calls: a free function, or a `&self` method of a type
/// whose shared instance the tool holds.
pub(crate) enum Target<'a> {
    /// A free function.
    Free,
    /// A `&self` method of the type named `self_ty`.
    Method { self_ty: &'a syn::Ident },
}

impl Target<'_> {
    /// The prefix of the generated names: none, or the type's name.
    fn prefix(&self) -> String {
        match self {
            Target::Free => String::new(),
            Target::Method { self_ty } => self_ty.to_string(),
        }
    }
}

/// The tool's struct name: `SearchCode` for `search_code`, `RepoReadFiles`
/// for `Repo::read_files`.
pub(crate) fn unit_name(model: &Tool<'_>, target: &Target<'_>) -> syn::Ident {
    let base = model
        .ident
        .to_string()
        .trim_start_matches("r#")
        .to_upper_camel_case();
    format_ident!("{}{}", target.prefix(), base, span = model.ident.span())
}

pub(crate) fn tool(model: &Tool<'_>, target: &Target<'_>) -> TokenStream {
    let Tool {
        vis,
        ident,
        name,
        description,
        repair,
        is_async,
        timeout_ms,
        params,
        contexts,
        call_order,
        output,
        krate,
    } = model;
    let unit = unit_name(model, target);
    let args = format_ident!("{}Args", unit, span = ident.span());

    let fields = params.iter().enumerate().map(|(index, p)| {
        let Param { ident, ty, .. } = p;
        let docs = &p.ast.docs;
        // The derive takes the field's schema from `FieldSchema`, which is
        // exactly the type's own and compiles whatever the type is: a type
        // without `JsonSchema` is reported once, by the check below.
        let with = syn::LitStr::new(
            &format!(
                "{}::__private::FieldSchema<{args}, {index}>",
                path_text(krate)
            ),
            ty.span(),
        );
        let rename = p
            .ast
            .arg
            .rename
            .as_ref()
            .map(|r| quote! { #[serde(rename = #r)] });
        let description = p
            .ast
            .arg
            .description
            .as_ref()
            .map(|d| quote! { #[schemars(description = #d)] });
        let default = p.ast.arg.default.as_ref().map(|_| {
            let path = format!("{args}::{}", default_fn(p));
            quote! { #[serde(default = #path)] }
        });
        quote! { #(#docs)* #[schemars(with = #with)] #rename #description #default pub #ident: #ty }
    });
    let defaults = params.iter().filter_map(|p| {
        let expr = p.ast.arg.default.as_ref()?;
        let ty = &p.ty;
        let name = default_fn(p);
        Some(quote_spanned! {expr.span()=>
            #[doc(hidden)]
            pub fn #name() -> #ty {
                #expr
            }
        })
    });
    let names: Vec<_> = params.iter().map(|p| p.ident).collect();
    let field_names: Vec<String> = names
        .iter()
        .map(|n| n.to_string().trim_start_matches("r#").to_owned())
        .collect();
    let args_name = args.to_string();
    let bind_args = bind_args(krate, &args, params);
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

    // The free function is called through a local bound before the
    // parameters are, so a parameter named like the function does not hide
    // it; the generated locals are hygienic (mixed-site), so no parameter
    // name clashes with them.
    let function = hygienic("function");
    let call = match (target, *is_async) {
        (Target::Free, true) => quote! { #function(#(#call_order),*).await },
        (Target::Method { .. }, true) => quote! { self.0.#ident(#(#call_order),*).await },
        // A sync tool runs on the blocking pool, so it stalls neither the
        // executor nor the other calls of a batch, and a timeout can fire.
        (Target::Free, false) => {
            let run_blocking = run_blocking(krate, output);
            quote! { #run_blocking(move || #function(#(#call_order),*)).await }
        }
        (Target::Method { .. }, false) => {
            let run_blocking = run_blocking(krate, output);
            let this = hygienic("this");
            quote! {
                {
                    let #this = ::std::sync::Arc::clone(&self.0);
                    #run_blocking(move || #this.#ident(#(#call_order),*)).await
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
        quote_spanned! {ret_span=> type Error = #krate::ContextError<#error_ty>; }
    };
    let (run, helper) = run_fns(
        krate,
        &unit,
        &args,
        &names,
        contexts,
        &output_ty,
        &error_ty,
        &bind_function,
        &result,
    );
    let timeout = timeout_ms.map(|ms| {
        quote! {
            fn timeout(&self) -> ::core::option::Option<::core::time::Duration> {
                ::core::option::Option::Some(::core::time::Duration::from_millis(#ms))
            }
        }
    });
    let declared = match target {
        Target::Free => format!("[`{ident}`]"),
        Target::Method { self_ty } => format!("[`{self_ty}::{ident}`]"),
    };
    let unit_doc = format!(
        "The `{name}` tool, declared by {declared}; call it through [`Tool`]({}::Tool).",
        path_text(krate)
    );
    let schemars_crate = format!("{}::__private::schemars", path_text(krate));
    let args_doc =
        format!("The arguments of the `{name}` tool, one field per parameter of {declared}.");
    let unit_struct = match target {
        Target::Free => quote! {
            #[doc = #unit_doc]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            #vis struct #unit;
        },
        Target::Method { self_ty } => quote! {
            #[doc = #unit_doc]
            #[derive(::core::clone::Clone)]
            #vis struct #unit(pub ::std::sync::Arc<#self_ty>);
        },
    };

    quote! {
        #unit_struct

        // The doc comment would become the schema's description, which
        // belongs to the tool; the text is kept for rustdoc only.
        #[cfg_attr(doc, doc = #args_doc)]
        #[allow(missing_docs)]
        // `Deserialize` is implemented below, by field index; the serde
        // attribute tells schemars that unknown fields are denied.
        #[derive(#krate::__private::schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        #vis struct #args {
            #(#fields,)*
        }

        // Every impl is out of the user's namespace (serde's and schemars'
        // way); only the two structs above are named by users.
        const _: () = {
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

            #bind_args

            #[automatically_derived]
            impl #krate::Tool for #unit {
            type Args = #args;
            #output_item
            #error_item

            fn spec(&self) -> &#krate::ToolSpec {
                static SPEC: #krate::__private::OnceLock<#krate::ToolSpec> =
                    #krate::__private::OnceLock::new();
                SPEC.get_or_init(|| {
                    #[allow(unused_imports)]
                    use #krate::__private::{NoOutputSchema as _, OutputSchemaOf as _};
                    #krate::ToolSpec::of::<#args>(#name, #description)
                        .with_output_schema(
                            (&#krate::__private::Probe::<#output_ty>::new()).output_schema(),
                        )
                        .with_policy(#krate::Policy::DEFAULT #(.with(#krate::RepairRule::#repair))*)
                })
            }

            fn bind_with(
                &self,
                args: &#krate::__private::serde_json::Value,
                policy: #krate::Policy,
            ) -> ::core::result::Result<#krate::Bound<#args>, #krate::BindError> {
                <Self as #krate::Tool>::spec(self).bind_args(args, policy)
            }

            fn bind_str_with(
                &self,
                args: &::core::primitive::str,
                policy: #krate::Policy,
            ) -> ::core::result::Result<#krate::Bound<#args>, #krate::BindError> {
                <Self as #krate::Tool>::spec(self).bind_args_str(args, policy)
            }

            #timeout

            #run
            }

            #helper
        };
    }
}

/// A local of the generated code: mixed-site, so that no name of the
/// user's (a parameter, an item) can clash with it.
fn hygienic(name: &str) -> syn::Ident {
    syn::Ident::new(name, proc_macro2::Span::mixed_site())
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
#[allow(clippy::too_many_arguments)]
fn run_fns(
    krate: &syn::Path,
    unit: &syn::Ident,
    args: &syn::Ident,
    names: &[&syn::Ident],
    contexts: &[ContextParam<'_>],
    output_ty: &TokenStream,
    error_ty: &TokenStream,
    bind_function: &TokenStream,
    result: &TokenStream,
) -> (TokenStream, TokenStream) {
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
    let idents: Vec<_> = contexts.iter().map(|c| &c.ident).collect();
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
    let fetches = contexts.iter().map(|c| {
        let ty = &c.ty;
        let krate = respan(krate, ty.span());
        let written = match &c.value {
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

        fn run_with(&self, #args_var: #args, #context: &#krate::CallContext) -> #future {
            #unit::__canon_run(self, #args_var, ::core::option::Option::Some(#context))
        }
    };
    let helper = quote! {
        impl #unit {
            fn __canon_run(
                &self,
                #args_var: #args,
                #context: ::core::option::Option<&#krate::CallContext>,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#output_ty, #krate::ContextError<#error_ty>>,
            > + ::core::marker::Send + '_ {
                #bind_function
                #(let #slots = #fetches;)*
                let #args { #(#names),* } = #args_var;
                async move {
                    #(let #idents = match #slots {
                        ::core::result::Result::Ok(#idents) => #idents,
                        ::core::result::Result::Err(#name) => {
                            return ::core::result::Result::Err(
                                #krate::ContextError::Missing(#name),
                            );
                        }
                    };)*
                    (#result).map_err(#krate::ContextError::Tool)
                }
            }
        }
    };
    (run, helper)
}

/// The arguments struct's `Deserialize`, by field index: it accepts and
/// rejects exactly what serde's derive with `deny_unknown_fields` does
/// (unknown, duplicate and missing fields; `None` for a missing `Option`;
/// positional arrays), and, when binding, routes each field's value through
/// the plan without a second lookup of its key.
fn bind_args(krate: &syn::Path, args: &syn::Ident, params: &[Param<'_>]) -> TokenStream {
    let wire: Vec<String> = params.iter().map(|p| p.wire.clone()).collect();
    let names: Vec<_> = params.iter().map(|p| p.ident).collect();
    let types: Vec<_> = params.iter().map(|p| &p.ty).collect();
    let pointers: Vec<String> = wire
        .iter()
        .map(|w| format!("/{}", w.replace('~', "~0").replace('/', "~1")))
        .collect();
    let slots: Vec<_> = (0..params.len())
        .map(|i| format_ident!("__field{}", i))
        .collect();
    let indexes: Vec<usize> = (0..params.len()).collect();
    let indexes_u64: Vec<u64> = (0..params.len() as u64).collect();
    let count = params.len();
    // Each use of a parameter type goes through `ParamProbe`, which compiles
    // whatever the type lacks: the one error is the check in `ArgField`.
    let missing: Vec<TokenStream> = params
        .iter()
        .zip(&wire)
        .map(|(p, wire)| {
            let ty = &p.ty;
            match &p.ast.arg.default {
                Some(_) => {
                    let name = default_fn(p);
                    quote! { ::core::result::Result::<#ty, __A::Error>::Ok(#args::#name()) }
                }
                None => {
                    let krate = respan(krate, ty.span());
                    quote_spanned! {ty.span()=>
                        (&#krate::__private::ParamProbe::<#ty>::new())
                            .missing_value::<__A::Error>(#wire)
                    }
                }
            }
        })
        .collect();
    let next_element = params.iter().map(|p| {
        let ty = &p.ty;
        let krate = respan(krate, ty.span());
        quote_spanned! {ty.span()=>
            (&#krate::__private::ParamProbe::<#ty>::new()).next_value(&mut seq)
        }
    });
    let struct_name = args.to_string();
    let expecting = format!("struct {struct_name}");
    let expecting_seq = format!("struct {struct_name} with {count} elements");
    let de = quote! { #krate::__private::serde::de };
    quote! {
        #[automatically_derived]
        impl<'de> #de::Deserialize<'de> for #args {
            fn deserialize<__D: #de::Deserializer<'de>>(
                de: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                <Self as #krate::__private::BindArgs>::bind_fields(
                    de,
                    #krate::__private::Fields::plain(),
                )
            }
        }

        #[automatically_derived]
        impl #krate::__private::BindArgs for #args {
            const FIELDS: &'static [&'static ::core::primitive::str] = &[#(#wire),*];

            fn bind_fields<'de, __D: #de::Deserializer<'de>>(
                de: __D,
                fields: #krate::__private::Fields<'_>,
            ) -> ::core::result::Result<Self, __D::Error> {
                #[allow(unused_imports)]
                use #krate::__private::{ParamDeserialize as _, ParamNoDeserialize as _};

                struct __Visitor<'f>(#krate::__private::Fields<'f>);

                /// A key of the arguments object, as its field index.
                struct __Key(::core::primitive::usize);

                #[automatically_derived]
                impl<'de> #de::Deserialize<'de> for __Key {
                    #[inline]
                    fn deserialize<__K: #de::Deserializer<'de>>(
                        de: __K,
                    ) -> ::core::result::Result<Self, __K::Error> {
                        #de::Deserializer::deserialize_identifier(de, __KeyVisitor)
                    }
                }

                struct __KeyVisitor;

                #[automatically_derived]
                impl<'de> #de::Visitor<'de> for __KeyVisitor {
                    type Value = __Key;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str("field identifier")
                    }

                    #[inline]
                    fn visit_str<__E: #de::Error>(self, key: &::core::primitive::str) -> ::core::result::Result<__Key, __E> {
                        match key {
                            #(#wire => ::core::result::Result::Ok(__Key(#indexes)),)*
                            _ => ::core::result::Result::Err(__E::unknown_field(
                                key,
                                <#args as #krate::__private::BindArgs>::FIELDS,
                            )),
                        }
                    }

                    fn visit_bytes<__E: #de::Error>(self, key: &[::core::primitive::u8]) -> ::core::result::Result<__Key, __E> {
                        match ::core::str::from_utf8(key) {
                            ::core::result::Result::Ok(key) => self.visit_str(key),
                            ::core::result::Result::Err(_) => ::core::result::Result::Err(
                                __E::invalid_value(#de::Unexpected::Bytes(key), &self),
                            ),
                        }
                    }

                    fn visit_u64<__E: #de::Error>(self, index: ::core::primitive::u64) -> ::core::result::Result<__Key, __E> {
                        match index {
                            #(#indexes_u64 => ::core::result::Result::Ok(__Key(#indexes)),)*
                            _ => ::core::result::Result::Err(__E::invalid_value(
                                #de::Unexpected::Unsigned(index),
                                &self,
                            )),
                        }
                    }
                }

                #[automatically_derived]
                impl<'de> #de::Visitor<'de> for __Visitor<'_> {
                    type Value = #args;

                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }

                    #[inline]
                    fn visit_map<__A: #de::MapAccess<'de>>(
                        self,
                        mut map: __A,
                    ) -> ::core::result::Result<#args, __A::Error> {
                        #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
                        while let ::core::option::Option::Some(__Key(__index)) =
                            #de::MapAccess::next_key::<__Key>(&mut map)?
                        {
                            match __index {
                                #(#indexes => {
                                    if #slots.is_some() {
                                        return ::core::result::Result::Err(
                                            <__A::Error as #de::Error>::duplicate_field(#wire),
                                        );
                                    }
                                    #slots = ::core::option::Option::Some(
                                        (&#krate::__private::ParamProbe::<#types>::new())
                                            .field_value(&self.0, &mut map, #indexes, #pointers)?,
                                    );
                                })*
                                _ => {
                                    #de::MapAccess::next_value::<#de::IgnoredAny>(&mut map)?;
                                }
                            }
                        }
                        ::core::result::Result::Ok(#args {
                            #(#names: match #slots {
                                ::core::option::Option::Some(value) => value,
                                ::core::option::Option::None => #missing?,
                            },)*
                        })
                    }

                    fn visit_seq<__S: #de::SeqAccess<'de>>(
                        self,
                        mut seq: __S,
                    ) -> ::core::result::Result<#args, __S::Error> {
                        #(let #slots: #types = match #next_element? {
                            ::core::option::Option::Some(value) => value,
                            ::core::option::Option::None => {
                                return ::core::result::Result::Err(
                                    <__S::Error as #de::Error>::invalid_length(#indexes, &#expecting_seq),
                                );
                            }
                        };)*
                        ::core::result::Result::Ok(#args { #(#names: #slots,)* })
                    }
                }

                #de::Deserializer::deserialize_struct(
                    de,
                    #struct_name,
                    <Self as #krate::__private::BindArgs>::FIELDS,
                    __Visitor(fields),
                )
            }
        }
    }
}

/// The hidden function that computes a parameter's `#[arg(default = ...)]`.
fn default_fn(param: &Param<'_>) -> syn::Ident {
    format_ident!(
        "__canon_default_{}",
        param.ident.to_string().trim_start_matches("r#")
    )
}

/// The path as it is written, for the strings that name it (schemars'
/// `crate = "..."`, doc links).
fn path_text(path: &syn::Path) -> String {
    quote!(#path).to_string().replace(' ', "")
}

/// The crate path with every token at `span`, for code spanned on a user's
/// token, so that an error in it lands there.
fn respan(path: &syn::Path, span: proc_macro2::Span) -> TokenStream {
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
fn last_span(ty: &syn::Type) -> proc_macro2::Span {
    quote!(#ty)
        .into_iter()
        .last()
        .map_or_else(|| ty.span(), |token| token.span())
}
