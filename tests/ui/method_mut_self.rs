struct Counter {
    count: u32,
}

#[canon::tools]
impl Counter {
    #[tool]
    fn bump(&mut self, by: u32) -> u32 {
        self.count += by;
        self.count
    }
}

fn main() {}
