struct Repo;

#[canon::tools]
impl Repo {
    #[tool]
    fn find<T: Default>(&self, query: String) -> String {
        query
    }
}

fn main() {}
