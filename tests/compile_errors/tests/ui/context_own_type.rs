use canon::tool;

/// A type of the user's own that happens to be named `Context`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Context<T>(pub T);

/// Find the query in the given context.
#[tool]
fn find(context: Context<String>, query: String) -> String {
    format!("{}: {query}", context.0)
}

fn main() {}
