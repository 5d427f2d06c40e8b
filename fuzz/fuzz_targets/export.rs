//! Arbitrary JSON schemas exported in every dialect: never a panic.
#![no_main]

use canon::export::Dialect;
use canon::toolbox::ToolSpec;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let spec = ToolSpec::new("fuzzed", "A fuzzed tool.", schema);
    for dialect in Dialect::ALL {
        let _ = spec.export(dialect);
    }
});
