struct Repo;

#[canon::tools]
impl Repo {
    #[tool = "find"]
    fn find(
        &self,
        /// What to find: the parameter's attributes are still taken off.
        #[arg(rename = "q")]
        query: String,
    ) -> String {
        query
    }
}

fn main() {}
