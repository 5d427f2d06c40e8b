use canon::tool;

/// Search for the query.
#[tool]
unsafe fn search(query: String) -> String {
    query
}

fn main() {}
