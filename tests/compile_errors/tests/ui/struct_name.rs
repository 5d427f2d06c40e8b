use canon::tool;

/// No letter to start a type name with.
#[tool]
fn _1(x: u32) -> u32 {
    x
}

/// Nothing left of the name.
#[tool]
fn __(x: u32) -> u32 {
    x
}

/// A keyword.
#[tool]
fn self_(x: u32) -> u32 {
    x
}

fn main() {}
