struct Repo;

#[canon::tools]
impl Repo {
    #[tool = "find"]
    fn find(&self, query: String) -> String {
        query
    }
}

fn main() {}
