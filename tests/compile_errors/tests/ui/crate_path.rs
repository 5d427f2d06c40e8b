use canon::tool;

/// Not a string.
#[tool(crate = canon)]
fn unquoted(query: String) -> String {
    query
}

/// Not a path.
#[tool(crate = "agent tools")]
fn not_a_path(query: String) -> String {
    query
}

/// A path with generic arguments.
#[tool(crate = "canon<u8>")]
fn generic_path(query: String) -> String {
    query
}

/// Given twice.
#[tool(crate = "canon", crate = "canon")]
fn twice(query: String) -> String {
    query
}

/// A bare key.
#[tool(crate)]
fn bare(query: String) -> String {
    query
}

struct Service;

#[canon::tools(crate = 5)]
impl Service {
    /// Find the query.
    #[tool]
    fn find(&self, query: String) -> String {
        query
    }
}

struct Other;

#[canon::tools(crate = "canon")]
impl Other {
    /// Find the query.
    #[tool(crate = "canon")]
    fn find(&self, query: String) -> String {
        query
    }
}

fn main() {}
