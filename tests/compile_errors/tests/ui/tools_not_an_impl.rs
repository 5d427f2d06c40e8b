#[canon::tools]
fn find(query: String) -> String {
    query
}

#[canon::tools(strict)]
impl Find {}

struct Find;

fn main() {}
