//! The grammar of `#[tool(...)]`: `name = "..."`, `description = "..."`.

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Token};

use crate::errors::Errors;

/// The keys `#[tool(...)]` takes.
const KEYS: &[&str] = &["name", "description"];

/// What `#[tool(...)]` says.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
}

impl ToolAttr {
    pub(crate) fn parse(tokens: proc_macro2::TokenStream, errors: &mut Errors) -> ToolAttr {
        let mut attr = ToolAttr::default();
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(metas) => metas,
            Err(e) => {
                errors.push(e);
                return attr;
            }
        };
        for meta in metas {
            let key = meta.path();
            let Some(ident) = key.get_ident().map(ToString::to_string) else {
                errors.spanned(key, unknown_key(&quote::quote!(#key).to_string()));
                continue;
            };
            let slot = match ident.as_str() {
                "name" => &mut attr.name,
                "description" => &mut attr.description,
                other => {
                    errors.spanned(key, unknown_key(other));
                    continue;
                }
            };
            let value = match &meta {
                Meta::NameValue(nv) => match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => s.clone(),
                    other => {
                        errors.spanned(
                            other,
                            format!("`{ident}` takes a string literal: `{ident} = \"...\"`"),
                        );
                        continue;
                    }
                },
                _ => {
                    errors.spanned(&meta, format!("expected `{ident} = \"...\"`"));
                    continue;
                }
            };
            if slot.is_some() {
                errors.spanned(key, format!("duplicate key `{ident}`: give it once"));
                continue;
            }
            if ident == "name" && value.value().trim().is_empty() {
                errors.spanned(&value, "the tool name must not be empty");
                continue;
            }
            *slot = Some(value);
        }
        attr
    }
}

fn unknown_key(key: &str) -> String {
    let known = KEYS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match closest(key) {
        Some(k) => format!("`{key}` is not a key of #[tool]; did you mean `{k}`? (keys: {known})"),
        None => format!("`{key}` is not a key of #[tool] (keys: {known})"),
    }
}

/// The known key closest to `key`, if it is close enough to be a typo.
fn closest(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .map(|k| (strsim::levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k)
}
