use canon::tool;

/// Search for the query.
#[tool(name = "search" description = "Search.")]
fn search(query: String) -> String {
    query
}

fn main() {}
