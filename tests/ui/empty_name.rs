use canon::tool;

#[tool(name = "  ")]
fn search(query: String) -> String {
    query
}

fn main() {}
