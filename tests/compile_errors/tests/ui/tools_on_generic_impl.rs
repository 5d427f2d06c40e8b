struct Repo<T>(T);

#[canon::tools]
impl<T> Repo<T> {
    /// Find the query.
    #[tool]
    fn find(&self, query: String) -> String {
        query
    }
}

fn main() {}
