use canon::tool;

/// Pick one of the items.
#[tool]
fn pick(items: Vec<String>) -> usize
where
    String: Clone,
{
    items.len()
}

fn main() {}
