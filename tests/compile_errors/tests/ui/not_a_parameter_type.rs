use canon::tool;

pub struct Opaque(u32);

/// Inspect the names.
#[tool]
fn inspect(names: Vec<String>, opaque: Opaque) -> u32 {
    names.len() as u32 + opaque.0
}

fn main() {}
