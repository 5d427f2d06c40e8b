//! The grammar of `#[tool(...)]` (`name = "..."`, `description = "..."`,
//! `repair(rule, ...)`) and
//! of `#[arg(...)]` on a parameter (`rename = "..."`, `description = "..."`,
//! `default = expr`).

use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, Lit, LitStr, Meta, Token};

use crate::errors::Errors;

/// The keys `#[tool(...)]` takes.
const KEYS: &[&str] = &["name", "description", "repair"];

/// The opt-in rules `repair(...)` takes (the core rule always applies).
const RULES: &[&str] = &["json_text", "number_text", "bool_text", "null_as_absent"];

/// What `#[tool(...)]` says.
#[derive(Default)]
pub(crate) struct ToolAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// The opt-in rules named in `repair(...)`, in order, each once.
    pub(crate) repair: Vec<syn::Ident>,
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
            if ident == "repair" {
                attr.parse_repair(&meta, errors);
                continue;
            }
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
            if ident == "description" && value.value().trim().is_empty() {
                errors.spanned_whole(&value, crate::check::EMPTY_DESCRIPTION);
            }
            *slot = Some(value);
        }
        attr
    }

    /// `repair(json_text, number_text)`: each an opt-in rule, given once.
    fn parse_repair(&mut self, meta: &Meta, errors: &mut Errors) {
        let Meta::List(list) = meta else {
            errors.spanned(
                meta,
                format!(
                    "expected `repair(rule, ...)` with rules among {}",
                    rule_list()
                ),
            );
            return;
        };
        let rules = match Punctuated::<syn::Ident, Token![,]>::parse_terminated
            .parse2(list.tokens.clone())
        {
            Ok(rules) => rules,
            Err(e) => {
                errors.push(syn::Error::new(
                    e.span(),
                    format!("`repair(...)` takes rule names: {}", rule_list()),
                ));
                return;
            }
        };
        if rules.is_empty() {
            errors.spanned(
                meta,
                format!(
                    "`repair()` names no rule; name some of {} or remove it",
                    rule_list()
                ),
            );
        }
        for rule in rules {
            let name = rule.to_string();
            if name == "scalar_to_array" {
                errors.spanned(
                    &rule,
                    "`scalar_to_array` always applies; `repair(...)` lists only opt-in rules",
                );
            } else if !RULES.contains(&name.as_str()) {
                let hint = match closest(RULES, &name) {
                    Some(k) => format!("; did you mean `{k}`?"),
                    None => String::new(),
                };
                errors.spanned(
                    &rule,
                    format!(
                        "`{name}` is not a repair rule{hint} (rules: {})",
                        rule_list()
                    ),
                );
            } else if self.repair.contains(&rule) {
                errors.spanned(&rule, format!("duplicate rule `{name}`: give it once"));
            } else {
                self.repair.push(rule);
            }
        }
    }
}

fn rule_list() -> String {
    RULES
        .iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ")
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
