use canon::{tool, Tool};

/// Search for the query (but the attribute wins, and says nothing).
#[tool(description = " ")]
fn search(query: String) -> String {
    query
}

fn main() {
    let _ = Search.name();
}
