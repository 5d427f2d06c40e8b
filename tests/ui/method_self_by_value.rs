use std::sync::Arc;

struct Repo;

#[canon::tools]
impl Repo {
    #[tool]
    fn close(self, reason: String) -> String {
        reason
    }

    #[tool]
    fn share(self: Arc<Self>, reason: String) -> String {
        reason
    }
}

fn main() {}
