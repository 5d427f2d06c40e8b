use canon::tool;

/// Two parameters would be one property of the arguments.
#[tool]
fn dup(#[arg(rename = "b")] a: u32, b: u32) -> u32 {
    a + b
}

/// The same, by a parameter's own name.
#[tool]
fn dup_again(a: u32, #[arg(rename = "a")] b: u32) -> u32 {
    a + b
}

fn main() {}
