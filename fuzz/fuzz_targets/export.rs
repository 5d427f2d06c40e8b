//! Arbitrary JSON schemas exported in every dialect: never a panic.
#![no_main]

use canon::{Dialect, ToolSpec};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const DIALECTS: [Dialect; 9] = [
    Dialect::OpenAi { strict: false },
    Dialect::OpenAi { strict: true },
    Dialect::OpenAiResponses { strict: false },
    Dialect::OpenAiResponses { strict: true },
    Dialect::Anthropic { strict: false },
    Dialect::Anthropic { strict: true },
    Dialect::Gemini,
    Dialect::GeminiJsonSchema,
    Dialect::Mcp,
];

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else { return };
    let spec = ToolSpec::new("fuzzed", "A fuzzed tool.", schema);
    for dialect in DIALECTS {
        let _ = spec.export(dialect);
    }
});
