//! Arbitrary bytes as the JSON text of a call, bound by a tool with every
//! kind of tolerant position: it must never panic, a repaired call must
//! bind like its repaired form, and only text serde_json reads binds.
#![no_main]

use std::collections::HashMap;
use std::sync::OnceLock;

use canon::{tool, Canonicalizer, Tool};
use canon::toolbox::ViolationKind;
use libfuzzer_sys::fuzz_target;

#[derive(canon::serde::Deserialize, canon::schemars::JsonSchema)]
#[serde(crate = "canon::serde")]
#[schemars(crate = "canon::schemars")]
pub struct Filter {
    pub labels: Vec<String>,
    pub path: Option<String>,
}

#[derive(canon::serde::Deserialize, canon::schemars::JsonSchema)]
#[serde(crate = "canon::serde", tag = "kind")]
#[schemars(crate = "canon::schemars")]
pub enum Target {
    Repo { names: Vec<String> },
    Org { org: String },
}

/// Every kind of position.
#[tool]
pub fn survey(
    names: Vec<String>,
    maybe: Option<Vec<String>>,
    filter: Filter,
    filters: Vec<Filter>,
    groups: HashMap<String, Vec<String>>,
    target: Option<Target>,
    count: Option<u32>,
    extra: Option<canon::serde_json::Value>,
) -> usize {
    let _ = (maybe, filter, filters, groups, target, count, extra);
    names.len()
}

/// Reads text the way canon does, refusing duplicate keys.
fn reader() -> &'static Canonicalizer {
    static READER: OnceLock<Canonicalizer> = OnceLock::new();
    READER.get_or_init(|| Canonicalizer::new(&serde_json::json!({})).expect("an empty schema"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let from_text = Survey.bind_str(text);
    // Only JSON binds: canon's own reader of the text accepts nothing
    // serde_json refuses.
    if from_text.is_ok() {
        assert!(serde_json::from_str::<serde_json::Value>(text).is_ok(), "{text}");
    }
    match reader().parse(text) {
        Ok(value) => {
            let from_value = Survey.bind(&value);
            // Text and value bind alike.
            assert_eq!(from_text.is_ok(), from_value.is_ok(), "{text}");
            if let (Ok(a), Ok(b)) = (&from_text, &from_value) {
                assert_eq!(a.repairs, b.repairs);
            }
        }
        // Text that gives a key twice, anywhere, is refused by name (the
        // `Value` serde_json parses from it has dropped the first).
        Err(error)
            if error
                .violations()
                .iter()
                .any(|v| v.kind == ViolationKind::Duplicate) =>
        {
            let duplicates = |e: &canon::BindError| -> Vec<String> {
                let mut at: Vec<String> = e
                    .violations()
                    .iter()
                    .filter(|v| v.kind == ViolationKind::Duplicate)
                    .map(|v| v.pointer.clone())
                    .collect();
                at.sort();
                at
            };
            let refused = from_text.as_ref().err();
            assert!(
                refused.is_some_and(|e| duplicates(e) == duplicates(&error)),
                "{text}: {refused:?}"
            );
        }
        Err(_) => {}
    }
    if let Err(error) = from_text {
        // The feedback renders, and never on more than one line.
        let message = error.to_string();
        assert!(!message.contains('\n'), "{message}");
    }
});
