struct Repo;

#[canon::tools]
impl Repo {
    /// Find the query.
    #[tool(nmae = "find")]
    fn find(&self, query: &str) -> String {
        query.to_owned()
    }
}

fn main() {}
