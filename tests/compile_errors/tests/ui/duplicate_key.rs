use canon::tool;

/// Search for the query.
#[tool(name = "search", name = "find")]
fn search(query: String) -> String {
    query
}

fn main() {}
