use canon::tool;

/// Search for the query.
#[tool]
fn search(#[allow(unused)] query: String) -> String {
    query
}

fn main() {}
