use canon::tool;

/// Search for the query.
#[tool(descripton = "Search.", retries = 3)]
fn search(query: String) -> String {
    query
}

fn main() {}
