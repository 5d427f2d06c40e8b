//! The main demo: `canon replay` on the captured calls that ship with canon
//! (`canon-replay/data/`), under the default policy and with every rule.
//!
//! Run: `cargo run --example replay` (the same as `cargo run -p canon-cli`,
//! which takes a file of your own: `canon replay calls.jsonl --tools tools.json`).

use canon::Policy;
use canon_cli::{render, Replay, Tools, SAMPLE_CALLS, SAMPLE_TOOLS};

fn main() {
    let source = "the bundled sample (canon-replay/data/sample-calls.jsonl)";
    for policy in [Policy::DEFAULT, Policy::all()] {
        let tools = Tools::parse(SAMPLE_TOOLS).expect("the bundled tools parse");
        let mut repaired = Vec::new();
        let report = Replay::new(policy, tools)
            .run(
                SAMPLE_CALLS.as_bytes(),
                |_| {},
                |call| {
                    if call.outcome == "repaired" {
                        let what: Vec<String> = call
                            .repairs
                            .iter()
                            .map(|r| format!("{} {}", r.pointer, r.rule))
                            .collect();
                        repaired.push(format!(
                            "  line {:>2} {:<13} {}",
                            call.line,
                            call.tool,
                            what.join(", ")
                        ));
                    }
                    Ok(())
                },
            )
            .expect("the bundled sample is in memory");
        println!("{}", render(&report, source));
        println!("repairs, call by call");
        for line in repaired {
            println!("{line}");
        }
        println!("\n{}\n", "-".repeat(72));
    }
    println!("Your own calls: cargo run -p canon-cli -- replay calls.jsonl --tools tools.json [--policy all] [--json] [--out outcomes.jsonl]");
}
