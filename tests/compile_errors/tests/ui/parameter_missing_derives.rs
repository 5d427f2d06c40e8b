use canon::tool;

#[derive(serde::Deserialize)]
pub struct NoSchema {
    pub a: u32,
}

#[derive(schemars::JsonSchema)]
pub struct NoDeserialize {
    pub a: u32,
}

pub struct Neither;

/// Inspect the values: one error per parameter, naming what to derive.
#[tool]
fn inspect(
    no_schema: NoSchema,
    no_deserialize: NoDeserialize,
    list: Vec<Neither>,
    maybe: Option<NoSchema>,
    fine: String,
) -> u32 {
    let _ = (no_schema, no_deserialize, list, maybe, fine);
    0
}

pub struct Service;

#[canon::tools]
impl Service {
    /// Look at the value.
    #[tool]
    fn look(&self, neither: Neither) {
        let _ = neither;
    }
}

fn main() {}
