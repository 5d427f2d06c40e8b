use canon::tool;

/// Search for the query.
#[tool(repair(number_txt, scalar_to_array, bool_text, bool_text, comma_split))]
fn search(limit: u32) -> u32 {
    limit
}

/// Search up to a limit.
#[tool(repair)]
fn plain(limit: u32) -> u32 {
    limit
}

/// Search up to a limit.
#[tool(repair())]
fn empty(limit: u32) -> u32 {
    limit
}

/// Search up to a limit.
#[tool(repair("number_text"))]
fn quoted(limit: u32) -> u32 {
    limit
}

fn main() {}
