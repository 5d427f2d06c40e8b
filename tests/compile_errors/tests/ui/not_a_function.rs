use canon::tool;

#[tool]
struct Search {
    query: String,
}

#[tool]
enum Mode {
    Fast,
}

fn main() {}
