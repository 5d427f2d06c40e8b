//! What a `#[tool]` costs to compile, counted rather than timed: the LLVM
//! IR that a crate of tools produces (`benches/compile/run.sh ir`, one
//! codegen unit, unoptimized), which is the same on every run of one
//! compiler, however loaded the machine.
//!
//! Each tool takes the same four parameters. What one tool more adds is
//! held to a budget, and to a ratio of what the same tool written with
//! serde's and schemars' derives and `serde_json::from_str` adds: the
//! fixed part (canon's runtime used once) is left out, since it does not
//! grow with the number of tools. The figures behind the budget are in
//! `docs/design.md` ("What a `#[tool]` costs to compile").

use std::process::Command;

/// Lines of LLVM IR one more `#[tool]` may add (5,892 when the budget was
/// set; the slack absorbs a compiler's drift, not a new copy of the
/// binding code).
const LINES_PER_TOOL: u64 = 6_500;

/// What one more `#[tool]` may add, against one more tool written with the
/// plain derives (1.51 when the budget was set).
const RATIO_TO_PLAIN: f64 = 1.75;

/// The counts for a crate of `n` tools each way.
fn ir(n: u32) -> (u64, u64) {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("bash")
        .arg(format!("{root}/benches/compile/run.sh"))
        .arg("ir")
        .arg(n.to_string())
        .output()
        .expect("bash runs benches/compile/run.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "benches/compile/run.sh ir {n} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |name: &str| -> u64 {
        stdout
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {stdout:?}"))
    };
    (field("canon_lines"), field("plain_lines"))
}

#[test]
fn a_tool_adds_ir_within_its_budget() {
    let (canon_one, plain_one) = ir(1);
    let (canon_six, plain_six) = ir(6);
    let canon = canon_six.saturating_sub(canon_one) / 5;
    let plain = plain_six.saturating_sub(plain_one) / 5;
    let ratio = canon as f64 / plain.max(1) as f64;
    println!("one more tool: #[tool] {canon} lines of IR, plain derives {plain} ({ratio:.2}x)");
    assert!(
        canon <= LINES_PER_TOOL,
        "one more #[tool] adds {canon} lines of LLVM IR, over the budget of {LINES_PER_TOOL}: \
         something generic is compiled again for each tool (see `cargo llvm-lines` on \
         target/compile-bench/tools_canon)"
    );
    assert!(
        ratio <= RATIO_TO_PLAIN,
        "one more #[tool] adds {ratio:.2}x the IR of the plain derives, over {RATIO_TO_PLAIN}"
    );
}
