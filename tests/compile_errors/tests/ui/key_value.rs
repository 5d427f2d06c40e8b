use canon::tool;

/// Search for the query.
#[tool(name = 5, description)]
fn search(query: String) -> String {
    query
}

fn main() {}
