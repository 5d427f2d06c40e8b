//! `#[canon::tools]` on an impl block: its `#[tool]` methods become tools
//! bound to a shared instance, through the same model and code generation
//! as free functions.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, ItemFn, ItemImpl, Type};

use crate::attr::ToolAttr;
use crate::check::{self, Place};
use crate::errors::Errors;
use crate::expand::{self, Target};
use crate::model::ToolFn;

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let krate: syn::Path =
        crate::attr::tools_attr(attr, &mut errors).unwrap_or_else(|| syn::parse_quote!(::canon));
    let mut block: ItemImpl = match syn::parse2(item.clone()) {
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
    if let Some((_, path, _)) = &block.trait_ {
        errors.spanned(
            path,
            "#[canon::tools] goes on an inherent impl (`impl Repo`), not a trait impl",
        );
    }
    if !block.generics.params.is_empty() {
        errors.spanned(
            &block.generics,
            "#[canon::tools] cannot be used on a generic impl: each tool's schema must be known \
             where it is declared",
        );
    }
    let self_ty = match &*block.self_ty {
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .filter(|s| s.arguments.is_empty())
            .map(|s| s.ident.clone()),
        _ => None,
    };
    if self_ty.is_none() {
        errors.spanned(
            &block.self_ty,
            "#[canon::tools] needs a plain type name (`impl Repo`), without generic arguments",
        );
    }

    let mut found = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
        let Some(position) = method
            .attrs
            .iter()
            .position(|attr| is_tool_attr(attr, &krate))
        else {
            continue;
        };
        let tool_attr = method.attrs.remove(position);
        let args = match &tool_attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                errors.spanned(nv, "expected #[tool] or #[tool(key = \"...\", ...)]");
                continue;
            }
        };
        let mut attr = ToolAttr::parse(args, &mut errors);
        if let Some(path) = &attr.krate {
            errors.spanned(
                path,
                "`crate` is given once, for every tool of the impl block: \
                 #[canon::tools(crate = \"...\")]",
            );
        }
        attr.krate = Some(krate.clone());
        let func = ItemFn {
            attrs: method.attrs.clone(),
            vis: method.vis.clone(),
            sig: method.sig.clone(),
            block: Box::new(method.block.clone()),
        };
        check::description(&func, &attr, &mut errors);
        check::signature(&func, Place::Method, &mut errors);
        // Parameter doc comments move to the arguments struct.
        let stripped = crate::without_parameter_attributes(func.clone());
        method.sig = stripped.sig;
        found.push((attr, func));
    }

    let (Some(self_ty), false) = (self_ty, errors.stops_generation()) else {
        let errors = errors.into_compile_errors();
        return quote! { #block #errors };
    };
    let target = Target::Method { self_ty: &self_ty };
    let mut generated = Vec::new();
    let mut units = Vec::new();
    for (attr, func) in found {
        let model = ToolFn::new(attr, &func);
        units.push(expand::unit_name(&model, &target));
        generated.push(expand::tool(&model, &target));
    }
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
                ) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::DynTool>> {
                    ::std::vec![
                        #(::std::sync::Arc::new(#units(::std::sync::Arc::clone(&self)))
                            as ::std::sync::Arc<dyn #krate::DynTool>),*
                    ]
                }
            }
        };
    }
}

/// `#[tool]`, `#[canon::tool]`, or `#[<crate path>::tool]` (leading `::`
/// or not).
fn is_tool_attr(attr: &syn::Attribute, krate: &syn::Path) -> bool {
    let path = attr.path();
    if path.is_ident("tool") {
        return true;
    }
    let Some(last) = path.segments.last() else {
        return false;
    };
    let prefix: Vec<_> = path.segments.iter().map(|s| &s.ident).collect();
    let prefix = &prefix[..prefix.len() - 1];
    let krate: Vec<_> = krate.segments.iter().map(|s| &s.ident).collect();
    last.ident == "tool" && last.arguments.is_empty() && (prefix == ["canon"] || prefix == krate)
}
