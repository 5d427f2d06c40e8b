//! Every compile-time error `#[tool]` can emit, with its exact message.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
