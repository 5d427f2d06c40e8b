struct Repo;

#[canon::tools]
impl Repo {
    /// Find the query.
    #[tool]
    fn find<T: Default>(&self, query: String) -> String {
        query
    }
}

fn main() {}
