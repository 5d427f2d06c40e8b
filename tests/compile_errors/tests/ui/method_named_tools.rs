struct Repo;

#[canon::tools]
impl Repo {
    /// Count.
    #[tool]
    fn count(&self) -> u32 {
        1
    }

    fn tools(&self) -> u32 {
        2
    }
}

fn main() {}
