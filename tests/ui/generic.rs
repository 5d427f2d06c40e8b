use canon::tool;

#[tool]
fn pick<T: Clone>(items: Vec<String>) -> usize {
    items.len()
}

fn main() {}
