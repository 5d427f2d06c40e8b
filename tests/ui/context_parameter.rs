use canon::{tool, Context};

#[tool]
fn find(#[arg(rename = "c")] cx: Context<String>, query: String) -> String {
    let _ = cx;
    query
}

fn main() {}
