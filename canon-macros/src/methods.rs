//! `#[canon::tools]` on an impl block: its `#[tool]` methods become tools
//! bound to a shared instance, through the same model and code generation
//! as free functions.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemImpl;

use crate::ast::ToolsImpl;
use crate::check;
use crate::errors::Errors;
use crate::expand::{self, Target};
use crate::model::Tool;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let options = crate::attr::tools_options(attr, &mut errors);
    let block: ItemImpl = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(_) => {
            errors.push(syn::Error::new_spanned(
                &item,
                "#[canon::tools] goes on an impl block whose methods are tools",
            ));
            let errors = errors.into_compile_errors();
            return quote! { #item #errors };
        }
    };
    let tools = ToolsImpl::parse(options, block, &mut errors);
    check::tools_impl(&tools, &mut errors);
    let krate = crate::model::crate_path(tools.options.krate.as_ref());
    let block = &tools.block;
    let (Some(self_ty), false) = (&tools.self_ty, errors.stops_generation()) else {
        let errors = errors.into_compile_errors();
        return quote! { #block #errors };
    };
    let target = Target::Method { self_ty };
    let mut generated = Vec::new();
    let mut units = Vec::new();
    let mut cfgs = Vec::new();
    for method in &tools.methods {
        let model = Tool::new(method, krate.clone());
        units.push(expand::unit_name(&model, &target));
        cfgs.push(&method.cfgs);
        generated.push(expand::tool(&model, &target));
    }
    let list = syn::Ident::new("tools", proc_macro2::Span::mixed_site());
    let count = units.len();
    let errors = errors.into_compile_errors();
    quote! {
        #block
        #errors

        #(#generated)*

        const _: () = {
            impl #self_ty {
                /// The tools of this instance, ready for a `canon::Toolbox`.
                #[allow(dead_code)]
                pub fn tools(
                    self: ::std::sync::Arc<Self>,
                ) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::__private::DynTool>> {
                    let mut #list: ::std::vec::Vec<::std::sync::Arc<dyn #krate::__private::DynTool>> =
                        ::std::vec::Vec::with_capacity(#count);
                    // A method left out by its `#[cfg]` is left out here.
                    #(
                        #(#cfgs)*
                        #list.push(::std::sync::Arc::new(#units(::std::sync::Arc::clone(&self))));
                    )*
                    #list
                }
            }
        };
    }
}
