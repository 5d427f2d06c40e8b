use canon::tool;

/// Pick one of the items.
#[tool]
fn pick<T: Clone>(items: Vec<String>) -> usize {
    items.len()
}

fn main() {}
