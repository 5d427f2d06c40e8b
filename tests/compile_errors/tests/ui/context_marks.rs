use canon::{tool, Context};

pub type Caller = Context<String>;

/// Both marks.
#[tool]
fn both(#[arg(context, not_context)] caller: Caller, query: String) -> String {
    let _ = caller;
    query
}

/// `not_context` on a type not named `Context`.
#[tool]
fn not_named(#[arg(not_context)] query: String) -> String {
    query
}

/// A property key on a context parameter.
#[tool]
fn keys(
    #[arg(context, rename = "c")] caller: Caller,
    #[arg(description = "who")] user: Context<u64>,
    query: String,
) -> String {
    let _ = (caller, user);
    query
}

/// A flag with a value, and given twice.
#[tool]
fn flags(#[arg(context = true)] caller: Caller, #[arg(context, context)] other: Caller) {
    let _ = (caller, other);
}

fn main() {}
