//! The repair rules are named twice: by the runtime (`RepairRule`,
//! `Policy::RULES`) and by the names `#[tool(repair(...))]` accepts, which
//! the macro crate (a proc-macro crate cannot depend on the runtime) lists
//! itself. They must be the same list.

use canon::{Policy, RepairRule};

#[test]
fn the_macro_accepts_exactly_the_runtimes_opt_in_rules() {
    let source = include_str!("../canon-macros/src/attr.rs");
    let line = source
        .lines()
        .find(|l| l.starts_with("const RULES: &[&str] = &["))
        .expect("the macro's list of rule names");
    let accepted: Vec<&str> = line.split('"').skip(1).step_by(2).collect();
    let opt_in: Vec<&str> = Policy::RULES
        .iter()
        .filter(|r| !Policy::DEFAULT.contains(**r))
        .map(|r| r.as_str())
        .collect();
    assert_eq!(accepted, opt_in);
    // And each names a rule the runtime knows.
    for name in accepted {
        assert!(RepairRule::from_name(name).is_some(), "{name}");
    }
}
