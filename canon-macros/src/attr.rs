//! The grammar of the three attributes, read into the option types of
//! `ast`: `#[tool(...)]` (`name = "..."`, `description = "..."`,
//! `repair(rule, ...)`, `timeout = "30s"`, `crate = "path"`),
//! `#[canon::tools(crate = "path")]`, and `#[arg(...)]` on a parameter
//! (`rename = "..."`, `description = "..."`, `default = expr`, `context`,
//! `not_context`). Each is read here and nowhere else; a malformed key is
//! reported on its own tokens, and reading goes on with the next one.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{
    Attribute, Expr, ExprLit, FnArg, ImplItem, ItemFn, ItemImpl, Lit, LitStr, Meta, Token, Type,
};

use crate::ast::{
    strip_parameter_attributes, ArgOptions, CratePath, Docs, Param, ToolFn, ToolOptions, ToolsImpl,
    ToolsOptions,
};
use crate::errors::Errors;

/// Why `description = ""` is refused.
pub(crate) const EMPTY_DESCRIPTION: &str = "the tool description must not be empty: a model cannot choose a tool it is not told about; say what the tool does";

/// The keys `#[tool(...)]` takes.
const KEYS: &[&str] = &["name", "description", "repair", "timeout", "crate"];

/// The opt-in rules `repair(...)` takes (the core rule always applies).
const RULES: &[&str] = &["json_text", "number_text", "bool_text", "null_as_absent"];

/// Reads `#[tool(...)]` from the attribute's tokens.
pub(crate) fn tool_options(tokens: proc_macro2::TokenStream, errors: &mut Errors) -> ToolOptions {
    let mut options = ToolOptions::default();
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(metas) => metas,
        Err(e) => {
            errors.push(e);
            return options;
        }
    };
    for meta in metas {
        options.key(&meta, errors);
    }
    options
}

impl ToolOptions {
    /// One `key = value` (or `repair(...)`) of `#[tool(...)]`.
    fn key(&mut self, meta: &Meta, errors: &mut Errors) {
        let key = meta.path();
        let Some(ident) = key.get_ident().map(ToString::to_string) else {
            errors.spanned(
                key,
                unknown_key("tool", KEYS, &quote::quote!(#key).to_string()),
            );
            return;
        };
        if ident == "repair" {
            self.parse_repair(meta, errors);
            return;
        }
        if ident == "timeout" {
            self.parse_timeout(meta, errors);
            return;
        }
        if ident == "crate" {
            crate_path(meta, &mut self.krate, errors);
            return;
        }
        let slot = match ident.as_str() {
            "name" => &mut self.name,
            "description" => &mut self.description,
            other => {
                errors.spanned(key, unknown_key("tool", KEYS, other));
                return;
            }
        };
        let Some(value) = string_value(
            meta,
            || format!("`{ident}` takes a string literal: `{ident} = \"...\"`"),
            || format!("expected `{ident} = \"...\"`"),
            errors,
        ) else {
            return;
        };
        if slot.is_some() {
            errors.spanned(key, format!("duplicate key `{ident}`: give it once"));
            return;
        }
        if ident == "name" && value.value().trim().is_empty() {
            errors.spanned(&value, "the tool name must not be empty");
            return;
        }
        if ident == "description" && value.value().trim().is_empty() {
            errors.spanned_whole(&value, EMPTY_DESCRIPTION);
        }
        *slot = Some(value);
    }

    /// `timeout = "30s"`: a whole number above zero and a unit, read into
    /// milliseconds.
    fn parse_timeout(&mut self, meta: &Meta, errors: &mut Errors) {
        let Some(value) = string_value(
            meta,
            || format!("`timeout` takes a string literal; {TIMEOUT_FORM}"),
            || format!("expected `timeout = \"...\"`; {TIMEOUT_FORM}"),
            errors,
        ) else {
            return;
        };
        if self.timeout.is_some() {
            errors.spanned(meta.path(), "duplicate key `timeout`: give it once");
            return;
        }
        match duration_ms(&value.value()) {
            Ok(ms) => self.timeout = Some(ms),
            Err(problem) => errors.spanned(&value, format!("{problem}; {TIMEOUT_FORM}")),
        }
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

/// `crate = "agent_tools"` (serde's and schemars' convention): the path
/// the generated code names canon by, for a crate that depends on canon
/// under another name. Read into `slot`, which must be empty.
fn crate_path(meta: &Meta, slot: &mut Option<CratePath>, errors: &mut Errors) {
    let Some(value) = string_value(
        meta,
        || format!("`crate` takes a string literal; {CRATE_FORM}"),
        || format!("expected `crate = \"...\"`; {CRATE_FORM}"),
        errors,
    ) else {
        return;
    };
    if slot.is_some() {
        errors.spanned(meta.path(), "duplicate key `crate`: give it once");
        return;
    }
    match value.parse_with(syn::Path::parse_mod_style) {
        Ok(path) => *slot = Some(CratePath { lit: value, path }),
        Err(_) => errors.spanned(
            &value,
            format!("`{}` is not a path; {CRATE_FORM}", value.value()),
        ),
    }
}

/// What `crate = "..."` accepts, for its error messages.
const CRATE_FORM: &str = "it names the path canon is reached by when your crate depends \
     on it under another name, like `crate = \"agent_tools\"` for \
     `agent_tools = { package = \"canon\", ... }`";

/// Reads `#[canon::tools(...)]` from the attribute's tokens: only
/// `crate = "..."`; each tool is configured on its own `#[tool]`.
pub(crate) fn tools_options(tokens: proc_macro2::TokenStream, errors: &mut Errors) -> ToolsOptions {
    let mut options = ToolsOptions::default();
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(metas) => metas,
        Err(e) => {
            errors.push(e);
            return options;
        }
    };
    for meta in metas {
        if meta.path().is_ident("crate") {
            crate_path(&meta, &mut options.krate, errors);
        } else {
            errors.spanned(
                meta.path(),
                "#[canon::tools] takes only `crate = \"...\"`; configure each #[tool]",
            );
        }
    }
    options
}

/// What `timeout = "..."` accepts, for its error messages.
const TIMEOUT_FORM: &str = "a timeout is a whole number above zero followed by `ms`, `s` or `m`, \
     like \"500ms\", \"30s\" or \"2m\"";

/// A timeout like `500ms`, `30s` or `2m` (a space may stand before the
/// unit), in milliseconds; or what is wrong with it.
fn duration_ms(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = trimmed.split_at(digits);
    let scale: u64 = match unit.trim_start() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        _ => return Err(format!("`{text}` is not a duration")),
    };
    if number.is_empty() {
        return Err(format!("`{text}` is not a duration"));
    }
    let ms = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{text}` is too long to count in milliseconds"))?;
    if ms == 0 {
        return Err(format!("`{text}` is zero, which would stop every call"));
    }
    Ok(ms)
}

fn rule_list() -> String {
    RULES
        .iter()
        .map(|r| format!("`{r}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The keys `#[arg(...)]` takes.
const ARG_KEYS: &[&str] = &["rename", "description", "default", "context", "not_context"];

/// The keys of `#[arg(...)]` that stand alone (flags).
const ARG_FLAGS: &[&str] = &["context", "not_context"];

/// Reads every `#[arg(...)]` among a parameter's attributes.
pub(crate) fn arg_options(attrs: &[syn::Attribute], errors: &mut Errors) -> ArgOptions {
    let mut options = ArgOptions::default();
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
            options.key(&meta, errors);
        }
    }
    options
}

impl ArgOptions {
    /// One key of `#[arg(...)]`.
    fn key(&mut self, meta: &Meta, errors: &mut Errors) {
        let key = meta.path();
        let name = quote::quote!(#key).to_string();
        if let (Meta::Path(path), true) = (meta, ARG_FLAGS.contains(&name.as_str())) {
            let slot = if name == "context" {
                &mut self.context
            } else {
                &mut self.not_context
            };
            if slot.replace(path.clone()).is_some() {
                errors.spanned(key, format!("duplicate key `{name}`: give it once"));
            }
            return;
        }
        if ARG_FLAGS.contains(&name.as_str()) {
            errors.spanned(
                meta,
                format!("`{name}` stands alone: #[arg({name})], without a value"),
            );
            return;
        }
        let Meta::NameValue(nv) = meta else {
            if ARG_KEYS.contains(&name.as_str()) {
                errors.spanned(meta, format!("expected `{name} = ...`"));
            } else {
                errors.spanned(key, unknown_key("arg", ARG_KEYS, &name));
            }
            return;
        };
        if ["rename", "description", "default"].contains(&name.as_str()) {
            self.property_keys.push(key.clone());
        }
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

/// The string literal of `key = "..."`, or an error spanned on what stands
/// there instead: `not_string` for another value, `not_pair` for another
/// form.
fn string_value(
    meta: &Meta,
    not_string: impl FnOnce() -> String,
    not_pair: impl FnOnce() -> String,
    errors: &mut Errors,
) -> Option<syn::LitStr> {
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.clone()),
            other => {
                errors.spanned(other, not_string());
                None
            }
        },
        _ => {
            errors.spanned(meta, not_pair());
            None
        }
    }
}

impl ToolFn {
    /// Parses a function marked `#[tool]`, with what the attribute says
    /// (`options`) and the `#[arg(...)]` of every parameter.
    pub(crate) fn parse(options: ToolOptions, item: ItemFn, errors: &mut Errors) -> ToolFn {
        let receiver = item.sig.receiver().cloned();
        let params = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Receiver(_) => None,
                FnArg::Typed(arg) => Some(Param {
                    pat: (*arg.pat).clone(),
                    ty: (*arg.ty).clone(),
                    docs: arg
                        .attrs
                        .iter()
                        .filter(|a| a.path().is_ident("doc"))
                        .cloned()
                        .collect(),
                    arg: arg_options(&arg.attrs, errors),
                    foreign: arg
                        .attrs
                        .iter()
                        .filter(|a| !a.path().is_ident("doc") && !a.path().is_ident("arg"))
                        .cloned()
                        .collect(),
                }),
            })
            .collect();
        ToolFn {
            options,
            docs: doc_text(&item.attrs),
            cfgs: item
                .attrs
                .iter()
                .filter(|a| a.path().is_ident("cfg"))
                .cloned()
                .collect(),
            receiver,
            params,
            item,
        }
    }
}

impl ToolsImpl {
    /// Parses an impl block marked `#[canon::tools]`, with what the
    /// attribute says (`options`), and every method marked `#[tool]`,
    /// `#[canon::tool]` or `#[<crate path>::tool]`, with its `#[tool(...)]`.
    pub(crate) fn parse(
        options: ToolsOptions,
        mut block: ItemImpl,
        errors: &mut Errors,
    ) -> ToolsImpl {
        let canon: syn::Path = syn::parse_quote!(canon);
        let krate = options.krate.as_ref().map_or(&canon, |k| &k.path);
        let self_ty = match &*block.self_ty {
            Type::Path(path)
                if path.qself.is_none()
                    && path.path.segments.iter().all(|s| s.arguments.is_empty()) =>
            {
                Some(path.path.clone())
            }
            _ => None,
        };
        let mut methods = Vec::new();
        for item in &mut block.items {
            let ImplItem::Fn(method) = item else { continue };
            let Some(position) = method
                .attrs
                .iter()
                .position(|attr| is_tool_attr(attr, krate))
            else {
                continue;
            };
            let tool_attr = method.attrs.remove(position);
            let sig = method.sig.clone();
            // The block is emitted without the parameters' attributes,
            // which rustc does not take there, whatever else is wrong.
            strip_parameter_attributes(&mut method.sig);
            let tokens = match &tool_attr.meta {
                syn::Meta::Path(_) => TokenStream::new(),
                syn::Meta::List(list) => list.tokens.clone(),
                syn::Meta::NameValue(nv) => {
                    errors.spanned(nv, "expected #[tool] or #[tool(key = \"...\", ...)]");
                    continue;
                }
            };
            // What is generated outside the block names the type where the
            // method says `Self`.
            let sig = match &self_ty {
                Some(self_ty) => replace_self(sig, self_ty),
                None => sig,
            };
            let func = ItemFn {
                attrs: method.attrs.clone(),
                vis: method.vis.clone(),
                sig,
                block: Box::new(method.block.clone()),
            };
            let tool_options = tool_options(tokens, errors);
            methods.push(ToolFn::parse(tool_options, func, errors));
        }
        ToolsImpl {
            options,
            block,
            self_ty,
            methods,
        }
    }
}

/// `#[tool]`, `#[canon::tool]`, or `#[<crate path>::tool]` (leading `::`
/// or not).
fn is_tool_attr(attr: &Attribute, krate: &syn::Path) -> bool {
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

/// A method's signature with every `Self` replaced by the impl's type
/// (spanned on the `Self` it replaces): the types and defaults it holds
/// are used outside the impl block, where `Self` is another type.
fn replace_self(sig: syn::Signature, self_ty: &syn::Path) -> syn::Signature {
    fn replace(tokens: TokenStream, self_ty: &syn::Path) -> TokenStream {
        tokens
            .into_iter()
            .flat_map(|token| -> Vec<proc_macro2::TokenTree> {
                match token {
                    proc_macro2::TokenTree::Ident(ident) if ident == "Self" => {
                        let span = ident.span();
                        quote::quote!(#self_ty)
                            .into_iter()
                            .map(|mut t| {
                                t.set_span(span);
                                t
                            })
                            .collect()
                    }
                    proc_macro2::TokenTree::Group(group) => {
                        let mut new = proc_macro2::Group::new(
                            group.delimiter(),
                            replace(group.stream(), self_ty),
                        );
                        new.set_span(group.span());
                        vec![proc_macro2::TokenTree::Group(new)]
                    }
                    token => vec![token],
                }
            })
            .collect()
    }
    let tokens = replace(quote::ToTokens::into_token_stream(&sig), self_ty);
    // A path stands wherever `Self` did; should it not parse, the
    // signature is kept as written.
    syn::parse2(tokens).unwrap_or(sig)
}

/// Doc comment text, as schemars reads it: one leading space dropped from
/// each line, lines joined with newlines, then trimmed. A line written by
/// a macro (`#[doc = concat!(...)]`) cannot be read here: then every line
/// is kept as an expression.
fn doc_text(attrs: &[Attribute]) -> Docs {
    let lines = doc_lines(attrs);
    let literal = |line: &Expr| match line {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    };
    match lines.iter().map(literal).collect::<Option<Vec<String>>>() {
        Some(text) => Docs::Text(text.join("\n").trim().to_owned()),
        None => Docs::Lines(lines),
    }
}

/// The lines of a doc comment as schemars' derive reads them: a literal
/// line with one leading space dropped, a line written by a macro as its
/// expression.
pub(crate) fn doc_lines(attrs: &[Attribute]) -> Vec<Expr> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(&nv.value),
            _ => None,
        })
        .map(|value| match value {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => {
                let line = s.value();
                let line = LitStr::new(line.strip_prefix(' ').unwrap_or(&line), s.span());
                syn::parse_quote!(#line)
            }
            other => other.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::duration_ms;

    #[test]
    fn timeouts_read_into_milliseconds() {
        assert_eq!(duration_ms("500ms"), Ok(500));
        assert_eq!(duration_ms("30s"), Ok(30_000));
        assert_eq!(duration_ms("2m"), Ok(120_000));
        assert_eq!(duration_ms(" 5 s "), Ok(5_000));
        assert_eq!(duration_ms("18446744073709551615ms"), Ok(u64::MAX));
    }

    #[test]
    fn malformed_zero_and_overflowing_timeouts_are_refused() {
        for text in [
            "", "s", "30", "1.5s", "30h", "-1s", "30 sec", "ms30", "3 0s",
        ] {
            assert_eq!(
                duration_ms(text),
                Err(format!("`{text}` is not a duration")),
                "{text}"
            );
        }
        assert_eq!(
            duration_ms("0s"),
            Err("`0s` is zero, which would stop every call".to_owned())
        );
        for text in ["18446744073709551616ms", "307445734561825861m"] {
            assert_eq!(
                duration_ms(text),
                Err(format!("`{text}` is too long to count in milliseconds")),
                "{text}"
            );
        }
    }
}
