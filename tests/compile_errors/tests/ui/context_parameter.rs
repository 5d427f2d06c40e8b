use canon::{tool, Context};

/// Find the query.
#[tool]
fn find(#[arg(rename = "c")] cx: Context<String>, query: String) -> String {
    let _ = cx;
    query
}

fn main() {}
