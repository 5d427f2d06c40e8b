struct Repo;

#[canon::tools]
impl Repo {
    /// Say which version this is.
    #[tool]
    fn version(query: String) -> String {
        query
    }
}

fn main() {}
