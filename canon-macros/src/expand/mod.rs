//! Code generation from the model. Everything is named through absolute
//! paths: the standard library's through `::core` and `::std`, canon's
//! through `#krate::__private::...` (`#krate` is `::canon`, or what
//! `crate = "..."` says), never through canon's public root, so the user's
//! crate needs no other dependency and the generated code does not depend
//! on where an item sits in canon's public API. rustc names an item by its
//! public path in its messages (`canon::Tool`), whichever path the code
//! used.
//!
//! `tool` puts together the unit struct and its `Tool` impl; the arguments
//! struct comes from `args`, its `Deserialize` from `de`, and running the
//! function from `run`.

mod args;
mod de;
mod run;
mod tokens;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use crate::check::struct_base;
use crate::model::{Description, Tool};

use tokens::path_text;
pub(crate) use tokens::Target;

/// The tool's struct name: `SearchCode` for `search_code`, `RepoReadFiles`
/// for `Repo::read_files`.
pub(crate) fn unit_name(model: &Tool<'_>, target: &Target<'_>) -> syn::Ident {
    // Checked to be a type name (`check::struct_name`).
    let base = struct_base(model.ident);
    format_ident!("{}{}", target.prefix(), base, span = model.ident.span())
}

/// Everything `#[tool]` generates for one function or method, beside the
/// function itself: the unit struct, the arguments struct and their impls.
pub(crate) fn tool(model: &Tool<'_>, target: &Target<'_>) -> TokenStream {
    let Tool {
        vis,
        ident,
        name,
        description,
        repair,
        timeout_ms,
        krate,
        cfgs,
        ..
    } = model;
    let unit = unit_name(model, target);
    let args = format_ident!("{}Args", unit, span = ident.span());
    let args_name = args.to_string();
    let declared = match target {
        Target::Free => format!("[`{ident}`]"),
        Target::Method { self_ty } => format!("[`{}::{ident}`]", path_text(self_ty)),
    };
    let args_struct = args::definition(model, &args, &declared);
    let args_impls = args::impls(model, &args);
    let deserialize = de::deserialize(krate, &args, &model.params);
    let run::Run {
        output_ty,
        output_item,
        error_item,
        run,
        helper,
    } = run::run(model, target, &unit, &args);
    let timeout = timeout_ms.map(|ms| {
        quote! {
            fn timeout(&self) -> ::core::option::Option<::core::time::Duration> {
                ::core::option::Option::Some(::core::time::Duration::from_millis(#ms))
            }
        }
    });
    let description = match description {
        Description::Text(text) => quote! { #text },
        Description::Lines(lines) => {
            let mut parts = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    parts.push(quote! { "\n" });
                }
                parts.push(quote! { #line });
            }
            quote! { ::core::primitive::str::trim(::core::concat!(#(#parts),*)) }
        }
    };
    let unit_doc = format!(
        "The `{name}` tool, declared by {declared}; call it through [`Tool`]({}::__private::Tool).",
        path_text(krate)
    );
    let unit_struct = match target {
        Target::Free => quote! {
            #(#cfgs)*
            #[doc = #unit_doc]
            #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
            #vis struct #unit;
        },
        Target::Method { self_ty } => quote! {
            #(#cfgs)*
            #[doc = #unit_doc]
            #[derive(::core::clone::Clone)]
            #vis struct #unit(pub ::std::sync::Arc<#self_ty>);
        },
    };

    quote! {
        #unit_struct

        #args_struct

        // Every impl is out of the user's namespace (serde's and schemars'
        // way); only the two structs above are named by users.
        #(#cfgs)*
        const _: () = {
            #args_impls

            #deserialize

            #[automatically_derived]
            impl #krate::__private::Tool for #unit {
            type Args = #args;
            #output_item
            #error_item

            fn spec(&self) -> &#krate::__private::ToolSpec {
                static SPEC: #krate::__private::OnceLock<#krate::__private::ToolSpec> =
                    #krate::__private::OnceLock::new();
                #krate::__private::spec_once(&SPEC, || {
                    #[allow(unused_imports)]
                    use #krate::__private::{NoOutputSchema as _, OutputSchemaOf as _};
                    static ROOT: #krate::__private::ArgsRoot = #krate::__private::ArgsRoot {
                        name: #args_name,
                        id: ::core::concat!(::core::module_path!(), "::", #args_name),
                        schema: <#args as #krate::__private::schemars::JsonSchema>::json_schema,
                    };
                    #krate::__private::args_spec(#name, #description, &ROOT)
                        .with_output_schema(
                            (&#krate::__private::Probe::<#output_ty>::new()).output_schema(),
                        )
                        .with_policy(#krate::__private::Policy::DEFAULT #(.with(#krate::__private::RepairRule::#repair))*)
                })
            }

            fn bind_with(
                &self,
                args: &#krate::__private::serde_json::Value,
                policy: #krate::__private::Policy,
            ) -> ::core::result::Result<#krate::__private::Bound<#args>, #krate::__private::BindError> {
                #krate::__private::bind_args(<Self as #krate::__private::Tool>::spec(self), args, policy)
            }

            fn bind_str_with(
                &self,
                args: &::core::primitive::str,
                policy: #krate::__private::Policy,
            ) -> ::core::result::Result<#krate::__private::Bound<#args>, #krate::__private::BindError> {
                #krate::__private::bind_args_str(<Self as #krate::__private::Tool>::spec(self), args, policy)
            }

            #timeout

            #run
            }

            #helper
        };
    }
}
