use canon::tool;

#[tool]
fn count(query: &str, names: &[String], limit: &mut u32) -> usize {
    query.len() + names.len() + *limit as usize
}

fn main() {}
