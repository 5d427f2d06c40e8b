use std::sync::Arc;

struct Repo;

#[canon::tools]
impl Repo {
    /// Close the repository.
    #[tool]
    fn close(self, reason: String) -> String {
        reason
    }

    /// Share the repository.
    #[tool]
    fn share(self: Arc<Self>, reason: String) -> String {
        reason
    }
}

fn main() {}
