use canon::tool;

// Every problem is reported at once, each on its own token.
#[tool(nme = "search")]
fn search<T>(query: &str, filter: impl Fn(&str) -> bool, (a, b): (u8, u8)) -> String {
    let _ = (filter, a, b);
    query.to_owned()
}

fn main() {}
