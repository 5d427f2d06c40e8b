use canon::tool;

#[tool(name = 5, description)]
fn search(query: String) -> String {
    query
}

fn main() {}
