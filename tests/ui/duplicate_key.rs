use canon::tool;

#[tool(name = "search", name = "find")]
fn search(query: String) -> String {
    query
}

fn main() {}
