use canon::tool;

pub struct Opaque(u32);

#[tool]
fn inspect(names: Vec<String>, opaque: Opaque) -> u32 {
    names.len() as u32 + opaque.0
}

fn main() {}
