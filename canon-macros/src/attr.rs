//! The grammar of `#[tool(...)]` (`name = "..."`, `description = "..."`) and
//! of `#[arg(...)]` on a parameter (`rename = "..."`, `description = "..."`,
//! `default = expr`).

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
                errors.spanned(
                    key,
                    unknown_key("tool", KEYS, &quote::quote!(#key).to_string()),
                );
                continue;
            };
            let slot = match ident.as_str() {
                "name" => &mut attr.name,
                "description" => &mut attr.description,
                other => {
                    errors.spanned(key, unknown_key("tool", KEYS, other));
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

/// The keys `#[arg(...)]` takes.
const ARG_KEYS: &[&str] = &["rename", "description", "default"];

/// What the `#[arg(...)]` attributes of one parameter say.
#[derive(Default, Clone)]
pub(crate) struct ArgAttr {
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
}

impl ArgAttr {
    /// Reads every `#[arg(...)]` among `attrs`.
    pub(crate) fn parse(attrs: &[syn::Attribute], errors: &mut Errors) -> ArgAttr {
        let mut arg = ArgAttr::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("arg")) {
            let tokens = match &attr.meta {
                Meta::List(list) => list.tokens.clone(),
                other => {
                    errors.spanned(other, "expected #[arg(key = value, ...)]");
                    continue;
                }
            };
            let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
                Ok(metas) => metas,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            for meta in metas {
                arg.key(&meta, errors);
            }
        }
        arg
    }

    fn key(&mut self, meta: &Meta, errors: &mut Errors) {
        let key = meta.path();
        let name = quote::quote!(#key).to_string();
        let Meta::NameValue(nv) = meta else {
            if ARG_KEYS.contains(&name.as_str()) {
                errors.spanned(meta, format!("expected `{name} = ...`"));
            } else {
                errors.spanned(key, unknown_key("arg", ARG_KEYS, &name));
            }
            return;
        };
        let duplicate = match name.as_str() {
            "rename" | "description" => {
                let Expr::Lit(ExprLit {
                    lit: Lit::Str(value),
                    ..
                }) = &nv.value
                else {
                    errors.spanned(
                        &nv.value,
                        format!("`{name}` takes a string literal: `{name} = \"...\"`"),
                    );
                    return;
                };
                if name == "rename" && value.value().is_empty() {
                    errors.spanned(value, "a parameter name must not be empty");
                    return;
                }
                let slot = if name == "rename" {
                    &mut self.rename
                } else {
                    &mut self.description
                };
                slot.replace(value.clone()).is_some()
            }
            "default" => self.default.replace(nv.value.clone()).is_some(),
            other => {
                errors.spanned(key, unknown_key("arg", ARG_KEYS, other));
                return;
            }
        };
        if duplicate {
            errors.spanned(key, format!("duplicate key `{name}`: give it once"));
        }
    }
}

fn unknown_key(attr: &str, keys: &[&'static str], key: &str) -> String {
    let known = keys
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match closest(keys, key) {
        Some(k) => {
            format!("`{key}` is not a key of #[{attr}]; did you mean `{k}`? (keys: {known})")
        }
        None => format!("`{key}` is not a key of #[{attr}] (keys: {known})"),
    }
}

/// The known key closest to `key`, if it is close enough to be a typo.
fn closest(keys: &[&'static str], key: &str) -> Option<&'static str> {
    keys.iter()
        .map(|k| (strsim::levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 4))
        .min()
        .map(|(_, k)| k)
}
