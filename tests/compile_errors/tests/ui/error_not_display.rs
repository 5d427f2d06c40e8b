use canon::tool;

#[derive(Debug)]
pub struct Failure;

/// Report on the query.
#[tool]
fn report(query: String) -> Result<String, Failure> {
    Ok(query)
}

fn main() {}
