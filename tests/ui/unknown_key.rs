use canon::tool;

#[tool(descripton = "Search.", retries = 3)]
fn search(query: String) -> String {
    query
}

fn main() {}
