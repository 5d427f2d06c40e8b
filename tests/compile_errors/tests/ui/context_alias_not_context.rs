use canon::tool;

/// Not canon's `Context`, whatever the mark says.
pub type Caller = String;

/// Find the query for the caller.
#[tool]
fn find(#[arg(context)] caller: Caller, query: String) -> String {
    format!("{caller}: {query}")
}

fn main() {}
