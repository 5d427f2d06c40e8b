use std::sync::Arc;

use canon::{tool, Tool};

#[tool]
fn search(query: String) -> String {
    query
}

///
#[tool]
fn blank(query: String) -> String {
    query
}

struct Repo;

#[canon::tools]
impl Repo {
    #[tool]
    fn read_files(&self, paths: Vec<String>) -> usize {
        paths.len()
    }
}

fn main() {
    // The tools are still generated, so using them adds no error.
    let _ = (Search.name(), Blank.name(), search(String::new()));
    let _ = Arc::new(Repo).tools();
}
