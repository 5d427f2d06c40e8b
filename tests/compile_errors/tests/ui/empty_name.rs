use canon::tool;

/// Search for the query.
#[tool(name = "  ")]
fn search(query: String) -> String {
    query
}

fn main() {}
