use canon::tool;

/// Count the names.
#[tool]
fn count(query: &str, names: &[String], limit: &mut u32) -> usize {
    query.len() + names.len() + *limit as usize
}

fn main() {}
