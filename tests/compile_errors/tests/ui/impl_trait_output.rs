use canon::tool;

/// An output whose type has no name.
#[tool]
fn opaque(x: u32) -> impl serde::Serialize {
    x
}

fn main() {}
