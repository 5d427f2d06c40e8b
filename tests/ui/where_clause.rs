use canon::tool;

#[tool]
fn pick(items: Vec<String>) -> usize
where
    String: Clone,
{
    items.len()
}

fn main() {}
