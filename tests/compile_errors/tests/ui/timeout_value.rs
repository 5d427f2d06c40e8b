use canon::tool;

/// Malformed: no unit.
#[tool(timeout = "30")]
fn no_unit() {}

/// Malformed: not a whole number.
#[tool(timeout = "1.5s")]
fn fraction() {}

/// Malformed: an hour is not a unit.
#[tool(timeout = "1h")]
fn hours() {}

/// Zero.
#[tool(timeout = "0ms")]
fn zero() {}

/// Too long to count.
#[tool(timeout = "99999999999999999999s")]
fn overflow() {}

/// Not a string.
#[tool(timeout = 30)]
fn number() {}

/// Not a key and value.
#[tool(timeout)]
fn bare() {}

/// Given twice.
#[tool(timeout = "1s", timeout = "2s")]
fn twice() {}

/// Accepted.
#[tool(timeout = "500 ms")]
fn fine() {}

fn main() {
    let _ = Fine;
}
