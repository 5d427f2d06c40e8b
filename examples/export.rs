//! Exports the fixture toolbox (every schemars shape some provider rejects,
//! plus the examples' tool) in every dialect, one file per tool, for the
//! conformance checks in `tests/conformance/` to feed to the providers' own
//! validators.
//!
//! Run: `cargo run --example export -- DIR` (default `target/conformance/out`).

#[path = "../tests/shapes/mod.rs"]
mod shapes;

use std::fs;
use std::path::PathBuf;

use canon::export::Dialect;
use canon::Toolbox;

const DIALECTS: [(&str, Dialect); 9] = [
    ("openai", Dialect::OpenAi { strict: false }),
    ("openai-strict", Dialect::OpenAi { strict: true }),
    (
        "openai-responses",
        Dialect::OpenAiResponses { strict: false },
    ),
    (
        "openai-responses-strict",
        Dialect::OpenAiResponses { strict: true },
    ),
    ("anthropic", Dialect::Anthropic { strict: false }),
    ("anthropic-strict", Dialect::Anthropic { strict: true }),
    ("gemini", Dialect::Gemini),
    ("gemini-json", Dialect::GeminiJsonSchema),
    ("mcp", Dialect::Mcp),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/conformance/out"));
    let mut toolbox: Toolbox = shapes::toolbox();
    toolbox.add(shapes::annotated())?;
    let mut written = 0;
    for (dir, dialect) in DIALECTS {
        let dir = out.join(dir);
        fs::create_dir_all(&dir)?;
        for spec in toolbox.specs() {
            let path = dir.join(spec.name());
            match spec.export(dialect) {
                Ok(entry) => {
                    fs::write(
                        path.with_extension("json"),
                        serde_json::to_string_pretty(&entry)?,
                    )?;
                    written += 1;
                }
                Err(error) => fs::write(path.with_extension("refused.txt"), error.to_string())?,
            }
        }
    }
    // The whole `tools/list` result, as an MCP server answers it.
    let list = toolbox.export(Dialect::Mcp)?;
    fs::write(
        out.join("mcp-list.json"),
        serde_json::to_string_pretty(&list)?,
    )?;
    let tools = toolbox.specs().count();
    println!(
        "wrote {written} tool declarations for {tools} tools to {}",
        out.display()
    );
    Ok(())
}
