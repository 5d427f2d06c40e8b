use canon::{tool, Context};

pub struct Handle(std::rc::Rc<u32>);

/// Find the query.
#[tool]
fn find(handle: Context<Handle>, query: String) -> String {
    let _ = handle;
    query
}

fn main() {}
