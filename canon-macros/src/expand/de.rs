//! The arguments struct's `Deserialize`, and the `BindArgs` impl that lets
//! the runtime bind it through its plan.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::tokens::{default_fn, respan};
use crate::model::Param;

/// The arguments struct's `Deserialize`, by field index: it accepts and
/// rejects exactly what serde's derive with `deny_unknown_fields` does
/// (unknown, duplicate and missing fields; `None` for a missing `Option`;
/// positional arrays), and, when binding, routes each field's value through
/// the plan without a second lookup of its key.
pub(super) fn deserialize(
    krate: &syn::Path,
    args: &syn::Ident,
    params: &[Param<'_>],
) -> TokenStream {
    let wire: Vec<&str> = params.iter().map(|p| p.wire.as_str()).collect();
    let names: Vec<_> = params.iter().map(|p| p.ident).collect();
    let types: Vec<_> = params.iter().map(|p| p.ty).collect();
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
        .map(|p| {
            let ty = p.ty;
            let wire = &p.wire;
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
    let struct_name = args.to_string();
    let expecting = format!("struct {struct_name}");
    let expecting_seq = format!("struct {struct_name} with {count} elements");
    let de = quote! { #krate::__private::serde::de };
    // An array that ends early binds the defaults of the fields it leaves
    // out, as serde's derive does with `#[serde(default = ...)]`.
    let seq_missing: Vec<TokenStream> = params
        .iter()
        .enumerate()
        .map(|(index, p)| match &p.ast.arg.default {
            Some(_) => {
                let name = default_fn(p);
                quote! { #args::#name() }
            }
            None => quote! {
                return ::core::result::Result::Err(
                    <__S::Error as #de::Error>::invalid_length(#index, &#expecting_seq),
                )
            },
        })
        .collect();
    let next_element = params.iter().map(|p| {
        let ty = p.ty;
        let krate = respan(krate, ty.span());
        quote_spanned! {ty.span()=>
            (&#krate::__private::ParamProbe::<#ty>::new()).next_value(&mut seq)
        }
    });
    let probes = params.iter().enumerate().map(|(index, p)| {
        let ty = p.ty;
        let krate = respan(krate, ty.span());
        quote_spanned! {ty.span()=>
            #index => (&#krate::__private::ParamProbe::<#ty>::new()).probe(key, value),
        }
    });
    quote! {
        #[automatically_derived]
        impl<'de> #de::Deserialize<'de> for #args {
            fn deserialize<__D: #de::Deserializer<'de>>(
                de: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                <Self as #krate::__private::BindArgs>::bind_fields(
                    de,
                    #krate::__private::Fields::PLAIN,
                )
            }
        }

        #[automatically_derived]
        impl #krate::__private::BindArgs for #args {
            const FIELDS: &'static [&'static ::core::primitive::str] = &[#(#wire),*];
            const POINTERS: &'static [&'static ::core::primitive::str] = &[#(#pointers),*];

            fn probe_field(
                index: ::core::primitive::usize,
                key: &::core::primitive::str,
                value: &#krate::__private::serde_json::Value,
            ) -> ::core::result::Result<(), #krate::__private::ProbeError> {
                #[allow(unused_imports)]
                use #krate::__private::{ParamDeserialize as _, ParamNoDeserialize as _};
                match index {
                    #(#probes)*
                    _ => ::core::result::Result::Ok(()),
                }
            }

            #[inline]
            fn bind_fields<'de, __D: #de::Deserializer<'de>>(
                de: __D,
                fields: #krate::__private::Fields<'_>,
            ) -> ::core::result::Result<Self, __D::Error> {
                #[allow(unused_imports)]
                use #krate::__private::{ParamDeserialize as _, ParamNoDeserialize as _};

                struct __Visitor<'__f>(#krate::__private::Fields<'__f>);

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
                        if !self.0.positional() {
                            return ::core::result::Result::Err(<__S::Error as #de::Error>::invalid_type(
                                #de::Unexpected::Seq,
                                &self,
                            ));
                        }
                        #(let #slots: #types = match #next_element? {
                            ::core::option::Option::Some(value) => value,
                            ::core::option::Option::None => { #seq_missing }
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
