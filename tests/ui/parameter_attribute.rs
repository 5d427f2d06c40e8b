use canon::tool;

#[tool]
fn search(#[allow(unused)] query: String) -> String {
    query
}

fn main() {}
