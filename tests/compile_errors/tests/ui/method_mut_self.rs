struct Counter {
    count: u32,
}

#[canon::tools]
impl Counter {
    /// Bump the counter.
    #[tool]
    fn bump(&mut self, by: u32) -> u32 {
        self.count += by;
        self.count
    }
}

fn main() {}
