use canon::tool;

#[tool]
unsafe fn search(query: String) -> String {
    query
}

fn main() {}
