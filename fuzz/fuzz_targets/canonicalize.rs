//! Arbitrary JSON schemas (before the first 0xFF byte) compiled, then
//! arbitrary JSON values (after it) canonicalized with every rule: never a
//! panic, and what comes out repaired validates and canonicalizes to itself.
#![no_main]

use canon::{Canonicalizer, Policy};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |b| *b == 0xFF);
    let (Some(schema), Some(value)) = (parts.next(), parts.next()) else {
        return;
    };
    let (Ok(schema), Ok(mut value)) = (
        serde_json::from_slice::<Value>(schema),
        serde_json::from_slice::<Value>(value),
    ) else {
        return;
    };
    for policy in [Policy::DEFAULT, Policy::all()] {
        let Ok(canon) = Canonicalizer::options().policy(policy).compile(&schema) else {
            return;
        };
        let sent = value.clone();
        match canon.canonicalize(&mut value) {
            Ok(repairs) => {
                assert!(canon.is_valid(&value), "{schema} {sent} -> {value}");
                if repairs.is_empty() {
                    assert_eq!(value, sent);
                }
                let mut again = value.clone();
                assert_eq!(canon.canonicalize(&mut again).map(|r| r.len()), Ok(0));
            }
            Err(error) => {
                assert_eq!(value, sent, "a rejected call is left as sent");
                assert!(!error.violations().is_empty());
            }
        }
        value = sent;
    }
});
