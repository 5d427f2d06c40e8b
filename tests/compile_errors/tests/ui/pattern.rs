use canon::tool;

/// Measure a span.
#[tool]
fn span((start, end): (u32, u32), _: String, ref name: String) -> u32 {
    let _ = name;
    end - start
}

fn main() {}
