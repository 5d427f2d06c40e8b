use canon::tool;

#[derive(Debug)]
pub struct Failure;

#[tool]
fn report(query: String) -> Result<String, Failure> {
    Ok(query)
}

fn main() {}
