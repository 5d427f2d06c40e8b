use canon::tool;

/// Search for the query.
#[tool]
fn search(
    #[arg(rename = "q", renam = "x", descripton = "typo", strict)] query: String,
    #[arg(rename = "l")]
    #[arg(rename = "m", description = 5, default)]
    limit: u32,
    #[arg(rename = "")] cursor: Option<String>,
    #[arg] page: u32,
    #[arg = "x"] size: u32,
) -> String {
    let _ = (limit, cursor, page, size);
    query
}

fn main() {}
