use canon::tool;

#[tool(name = "search" description = "Search.")]
fn search(query: String) -> String {
    query
}

fn main() {}
