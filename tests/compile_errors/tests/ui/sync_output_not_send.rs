use std::rc::Rc;

use canon::tool;

/// Output that must stay on its thread.
pub struct Handle(Rc<String>);

impl serde::Serialize for Handle {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A sync tool runs on the blocking pool: its output must be `Send`.
#[tool]
fn local(name: String) -> Handle {
    Handle(Rc::new(name))
}

/// An async tool runs on the caller's task: it may return it.
#[tool]
async fn local_async(name: String) -> Handle {
    Handle(Rc::new(name))
}

fn main() {}
