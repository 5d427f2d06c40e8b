use canon::tool;

struct Repo;

impl Repo {
    /// Read files by path.
    #[tool]
    fn read_files(&self, paths: Vec<String>) -> usize {
        paths.len()
    }
}

fn main() {}
