//! Binding a `#[tool]`'s arguments from a `serde_json::Value`, as agent
//! frameworks hand them over. Where the type was derived with its schema
//! and checks everything the schema asks (types alone, no bounds or
//! patterns), the call is read as plain serde reads it first; these tests
//! hold that path to the answers binding the same call as text gives.

use canon::toolbox::ViolationKind;
use canon::{tool, Limits, Policy, Tool};
use serde_json::{json, Value};

/// Tag a file with labels, in groups.
#[tool]
fn tag(
    path: String,
    labels: Vec<String>,
    groups: std::collections::HashMap<String, Vec<String>>,
    limit: Option<u32>,
) -> usize {
    path.len() + labels.len() + groups.len() + limit.unwrap_or(0) as usize
}

/// Arrange names in a grid.
#[tool]
fn grid(rows: Vec<Vec<String>>) -> usize {
    rows.len()
}

/// What a bind of `args` answered: the repairs' pointers and rules, or the
/// violations' pointers, kinds and messages.
fn answer<T: Tool>(tool: &T, args: &Value) -> (String, String) {
    let shown = |r: Result<canon::Bound<T::Args>, canon::BindError>| match r {
        Ok(bound) => format!(
            "bound, repairs {:?}",
            bound
                .repairs
                .iter()
                .map(|r| (r.pointer.clone(), r.rule))
                .collect::<Vec<_>>()
        ),
        Err(error) => format!(
            "refused: {:?}",
            error
                .violations()
                .iter()
                .map(|v| (v.pointer.clone(), v.kind, v.message.clone()))
                .collect::<Vec<_>>()
        ),
    };
    (
        shown(tool.bind(args)),
        shown(tool.bind_str(&args.to_string())),
    )
}

#[test]
fn a_call_from_a_value_binds_as_the_same_call_as_text() {
    let calls = [
        json!({"path": "a", "labels": ["x", "y"], "groups": {"g": ["m"]}, "limit": 3}),
        json!({"path": "a", "labels": [], "groups": {}}),
        json!({"path": "a", "labels": "x", "groups": {"g": "m", "h": ["n"]}}),
        json!({"path": "a", "labels": ["x"], "groups": {}, "extra": 1}),
        json!({"path": "a", "labels": [1], "groups": {}}),
        json!({"path": "a", "labels": "", "groups": {}}),
        json!({"path": "a", "labels": ["x"], "groups": {"g": [["m"]]}}),
        json!({"path": "a", "labels": ["x"], "groups": {}, "limit": -1}),
        json!({"labels": ["x"], "groups": {}}),
        json!(["a"]),
    ];
    for call in &calls {
        let (from_value, from_text) = answer(&Tag, call);
        assert_eq!(from_value, from_text, "{call}");
    }
    assert_eq!(
        answer(&Tag, &calls[2]).0,
        r#"bound, repairs [("/labels", ScalarToArray), ("/groups/g", ScalarToArray)]"#
    );
    assert!(answer(&Tag, &calls[0]).0.starts_with("bound, repairs []"));
}

#[test]
fn a_value_nested_past_the_bound_is_refused_not_read() {
    // Deeper than any bound: the type refuses the first inner array, and
    // the call is refused for its depth, without recursing through it.
    let mut deep = json!("leaf");
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    let args = Value::Object([("rows".to_owned(), deep)].into_iter().collect());
    let error = Grid.bind(&args).unwrap_err();
    assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge);
    // Dropped without recursing.
    let mut stack = vec![args];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(members) => stack.extend(members.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[test]
fn a_depth_bound_below_what_the_type_nests_is_held() {
    // `rows` nests three levels (the arguments, the rows, a row): with a
    // bound of two, a call the type would read is still refused.
    let spec =
        canon::__private::ToolSpec::of::<GridArgs>("grid", "Arrange names.").with_limits(Limits {
            max_depth: 2,
            ..Limits::default()
        });
    let args = json!({"rows": [["a"]]});
    let error = canon::__private::bind_args::<GridArgs>(&spec, &args, Policy::DEFAULT).unwrap_err();
    assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge);
    let flat =
        canon::__private::bind_args::<GridArgs>(&spec, &json!({"rows": []}), Policy::DEFAULT)
            .unwrap();
    assert!(flat.repairs.is_empty());
}
