struct Repo;

#[canon::tools]
impl Clone for Repo {
    fn clone(&self) -> Self {
        Repo
    }
}

fn main() {}
