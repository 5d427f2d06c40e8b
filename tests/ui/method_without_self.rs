struct Repo;

#[canon::tools]
impl Repo {
    #[tool]
    fn version(query: String) -> String {
        query
    }
}

fn main() {}
