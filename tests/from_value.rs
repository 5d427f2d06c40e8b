//! Binding a `#[tool]`'s arguments from a `serde_json::Value`, as agent
//! frameworks hand them over. Where the type was derived with its schema
//! and checks everything the schema asks (types alone, no bounds or
//! patterns), the call is read as plain serde reads it first; these tests
//! hold that path to the answers binding the same call as text gives.

use canon::toolbox::ViolationKind;
use canon::{tool, Limits, Policy, Tool};
use serde_json::{json, Value};

/// Edits a value in place, for a call built in one expression.
trait Tap: Sized {
    fn tap(self, edit: impl FnOnce(&mut Self)) -> Self;
}

impl Tap for Value {
    fn tap(mut self, edit: impl FnOnce(&mut Self)) -> Self {
        edit(&mut self);
        self
    }
}

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

/// `call` with `value` at `pointer`: in place of what is there, or as a
/// new member of the object the pointer's parent names.
fn edited(call: &Value, pointer: &str, value: Value) -> Value {
    let mut call = call.clone();
    match call.pointer_mut(pointer) {
        Some(slot) => *slot = value,
        None => {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            call.pointer_mut(parent).unwrap()[key] = value;
        }
    }
    call
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
        json!({"path": "a", "labels": [], "groups": {"a/b~c": "m"}}),
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
    assert_eq!(
        answer(&Tag, &calls[3]).0,
        r#"bound, repairs [("/groups/a~1b~0c", ScalarToArray)]"#
    );
    assert!(answer(&Tag, &calls[0]).0.starts_with("bound, repairs []"));
}

#[test]
fn a_call_read_plainly_from_a_value_holds_what_it_said() {
    // Members in another order than the fields, an escaped string, a map.
    let call = json!({
        "limit": 7,
        "groups": {"g": ["m", "n"], "h": []},
        "labels": ["x", "y"],
        "path": "a/\"b\""
    });
    let bound = Tag.bind(&call).unwrap();
    assert!(bound.repairs.is_empty());
    let args = bound.args;
    assert_eq!(args.path, "a/\"b\"");
    assert_eq!(args.labels, ["x", "y"]);
    assert_eq!(args.groups["g"], ["m", "n"]);
    assert!(args.groups["h"].is_empty());
    assert_eq!(args.groups.len(), 2);
    assert_eq!(args.limit, Some(7));
    // Each field as the same call read as text binds it.
    let text = Tag.bind_str(&call.to_string()).unwrap().args;
    assert_eq!(
        (text.path, text.labels, text.groups, text.limit),
        (args.path, args.labels, args.groups, args.limit)
    );
    // A member given as `null` is an absent `Option`, as serde reads it.
    let call = json!({"path": "a", "labels": [], "groups": {}, "limit": null});
    assert_eq!(Tag.bind(&call).unwrap().args.limit, None);
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

/// One condition on issues.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Filter {
    field: String,
    op: Op,
    values: Vec<String>,
}

/// How a filter compares.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Op {
    Eq,
    #[serde(alias = "neq")]
    Ne,
}

/// Which page.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Page {
    #[schemars(range(min = 1, max = 100))]
    size: u32,
    after: Option<String>,
}

/// Query the issues of a repository.
#[tool]
fn query(
    repo: String,
    filters: Vec<Filter>,
    page: Page,
    ids: Option<std::collections::BTreeSet<u8>>,
) -> usize {
    repo.len() + filters.len() + page.size as usize + ids.map_or(0, |ids| ids.len())
}

#[test]
fn a_call_the_plan_checks_is_read_from_a_value_as_from_text() {
    // The type does not check all the schema asks (closed objects, an
    // `enum`, bounds): the call is read from the `Value` while the plan
    // checks each position the type reaches, and must answer as text does.
    let valid = json!({
        "repo": "r",
        "filters": [{"field": "f", "op": "eq", "values": ["a"]}, {"field": "g", "op": "ne", "values": []}],
        "page": {"size": 10, "after": null},
    });
    let with = |pointer: &str, value: Value| edited(&valid, pointer, value);
    let calls = [
        valid.clone(),
        with("/ids", json!([1, 2])),
        with("/ids", json!([1, 1])),
        with("/filters/0/values", json!("a")),
        with("/filters/0/op", json!("neq")),
        with("/filters/0/op", json!({"eq": null})),
        with("/filters/0/other", json!(1)),
        with("/filters/0", json!(["f", "eq", ["a"]])),
        with("/filters", json!({"field": "f", "op": "eq", "values": []})),
        with("/page/size", json!(0)),
        with("/page/size", json!(101)),
        with("/page/size", json!("10")),
        with("/page/after", json!(3)),
        with("/page/more", json!(true)),
        with("/extra", json!(1)),
        json!(["r", [], {"size": 10}]),
        json!({"repo": "r", "filters": []}),
        with("/filters/1/values", json!("")),
        with("/filters/1/values", json!("x, y")),
        with("/filters/1/values", json!("z")),
        with("/page/size", json!(0)).tap(|call| call["filters"][1]["values"] = json!("z")),
    ];
    for call in &calls {
        let (from_value, from_text) = answer(&Query, call);
        assert_eq!(from_value, from_text, "{call}");
    }
    assert_eq!(answer(&Query, &calls[0]).0, "bound, repairs []");
    assert_eq!(
        answer(&Query, &calls[3]).0,
        r#"bound, repairs [("/filters/0/values", ScalarToArray)]"#
    );
    assert_eq!(
        answer(&Query, &calls[19]).0,
        r#"bound, repairs [("/filters/1/values", ScalarToArray)]"#
    );
    for refused in [2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20] {
        assert!(
            answer(&Query, &calls[refused]).0.starts_with("refused"),
            "{}",
            calls[refused]
        );
    }
}

/// One condition on issues, whose type checks its names.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Condition {
    field: String,
    op: Comparison,
    values: Vec<String>,
}

/// How a condition compares.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Comparison {
    Eq,
    Ne,
}

/// Which page, from a struct that ignores members it does not declare.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Window {
    size: u32,
    after: Option<String>,
}

/// The order of results: documented variants, which the schema lists as
/// one `const` each.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Order {
    /// Oldest first.
    Asc,
    /// Newest first.
    Desc,
}

/// Search the issues of a repository.
#[tool]
fn search(
    repo: String,
    conditions: Vec<Condition>,
    window: Option<Window>,
    by: std::collections::BTreeMap<String, Comparison>,
    order: Option<Order>,
) -> usize {
    let order = order.map_or(0, |order| order as usize);
    repo.len() + conditions.len() + window.map_or(0, |w| w.size as usize) + by.len() + order
}

#[test]
fn a_call_whose_type_checks_the_plan_is_read_from_a_value_as_from_text() {
    // The plan asserts closed objects and a list of strings, which the
    // types were seen to check: the call is read plainly, without the
    // look, and must answer as text does, forms serde takes and the schema
    // does not admit included.
    let valid = json!({
        "repo": "r",
        "conditions": [{"field": "f", "op": "eq", "values": ["a"]}, {"field": "g", "op": "ne", "values": []}],
        "window": {"size": 10, "after": null},
        "by": {"x": "eq"},
    });
    let with = |pointer: &str, value: Value| edited(&valid, pointer, value);
    let calls = [
        valid.clone(),
        with("/conditions/0/values", json!("a")),
        with("/conditions/1/values", json!("z"))
            .tap(|call| call["conditions"][0]["values"] = json!("y")),
        with("/conditions/0/op", json!("neq")),
        with("/conditions/0/op", json!("Eq")),
        with("/conditions/0/op", json!({"eq": null})),
        with("/conditions/0/op", json!(["eq"])),
        with("/conditions/0/other", json!(1)),
        with("/conditions/0", json!(["f", "eq", ["a"]])),
        with("/window", json!([10, null])),
        with("/window/more", json!(true)),
        with("/window/size", json!("10")),
        with("/window", json!(null)),
        with("/by/y", json!("in")),
        with("/by/y", json!({"ne": null})),
        with("/extra", json!(1)),
        with("/conditions/1/values", json!("x, y")),
        with("/window/more", json!(true)).tap(|call| call["conditions"][1]["values"] = json!("z")),
        with("/order", json!("desc")),
        with("/order", json!("Desc")),
        with("/order", json!({"asc": null})),
        with("/order", json!(["asc"])),
    ];
    for call in &calls {
        let (from_value, from_text) = answer(&Search, call);
        assert_eq!(from_value, from_text, "{call}");
    }
    assert_eq!(answer(&Search, &calls[0]).0, "bound, repairs []");
    assert_eq!(answer(&Search, &calls[12]).0, "bound, repairs []");
    assert_eq!(
        answer(&Search, &calls[1]).0,
        r#"bound, repairs [("/conditions/0/values", ScalarToArray)]"#
    );
    assert_eq!(
        answer(&Search, &calls[2]).0,
        r#"bound, repairs [("/conditions/0/values", ScalarToArray), ("/conditions/1/values", ScalarToArray)]"#
    );
    assert_eq!(answer(&Search, &calls[18]).0, "bound, repairs []");
    for refused in [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 19, 20, 21] {
        assert!(
            answer(&Search, &calls[refused]).0.starts_with("refused"),
            "{}",
            calls[refused]
        );
    }
}

/// Copy files between folders.
#[tool]
fn copy(
    #[arg(rename = "from/dirs~")] from: Vec<String>,
    to: Option<Vec<String>>,
    only: std::collections::BTreeSet<String>,
    dry_run: bool,
) -> usize {
    from.len() + to.map_or(0, |to| to.len()) + only.len() + usize::from(dry_run)
}

#[test]
fn a_string_for_a_list_parameter_is_bound_from_a_value_as_from_text() {
    // A string at a list parameter is bound in the plain read of the
    // `Value`: each answer, repair pointers (escaped) and refusals alike,
    // must be the one the same call as text gets.
    let calls = [
        json!({"from/dirs~": "src", "to": "out", "only": "a.rs", "dry_run": true}),
        json!({"from/dirs~": ["src"], "to": null, "only": [], "dry_run": false}),
        json!({"from/dirs~": "src", "only": ["a.rs"], "dry_run": false}),
        json!({"from/dirs~": "", "only": [], "dry_run": false}),
        json!({"from/dirs~": "a, b", "only": "[\"x\"]", "dry_run": false}),
        json!({"from/dirs~": "src", "only": [], "dry_run": "no"}),
        json!({"from/dirs~": "src", "only": [], "dry_run": false, "extra": "x"}),
        json!({"from/dirs~": 3, "only": "x", "dry_run": false}),
    ];
    for call in &calls {
        let (from_value, from_text) = answer(&Copy, call);
        assert_eq!(from_value, from_text, "{call}");
    }
    // Each pointer escaped; in the order of the members as the `Value`
    // holds them, as from text.
    let mut pointers: Vec<_> = Copy
        .bind(&calls[0])
        .unwrap()
        .repairs
        .into_iter()
        .map(|r| r.pointer)
        .collect();
    pointers.sort();
    assert_eq!(pointers, ["/from~1dirs~0", "/only", "/to"]);
    let bound = Copy.bind(&calls[0]).unwrap().args;
    assert_eq!(
        (
            bound.from,
            bound.to,
            bound.only.into_iter().collect::<Vec<_>>()
        ),
        (
            vec!["src".to_owned()],
            Some(vec!["out".to_owned()]),
            vec!["a.rs".to_owned()]
        )
    );
    // Past the bound on repairs, the call is refused as from text.
    let spec = canon::__private::ToolSpec::of::<CopyArgs>("copy", "Copy.").with_limits(Limits {
        max_repairs: 2,
        ..Limits::default()
    });
    let bind = |args: &Value| canon::__private::bind_args::<CopyArgs>(&spec, args, Policy::DEFAULT);
    let error = bind(&calls[0]).unwrap_err();
    let text =
        canon::__private::bind_args_str::<CopyArgs>(&spec, &calls[0].to_string(), Policy::DEFAULT)
            .unwrap_err();
    assert_eq!(error.violations(), text.violations());
    assert_eq!(bind(&calls[2]).unwrap().repairs.len(), 1);
}

/// Route messages by topic, in layers.
#[tool]
fn route(
    layers: Vec<std::collections::BTreeMap<String, Vec<String>>>,
    rows: Vec<Vec<String>>,
) -> usize {
    layers.len() + rows.len()
}

#[test]
fn a_string_for_a_list_below_a_parameter_is_bound_from_a_value_as_from_text() {
    let calls = [
        json!({"layers": [{"a": "x", "b": ["y"]}, {"c": "z"}], "rows": ["r", ["s"]]}),
        json!({"layers": [{"a": ""}], "rows": []}),
        json!({"layers": [{"a": "p, q"}], "rows": [["s"], "t"]}),
        json!({"layers": {"a": "x"}, "rows": "r"}),
        json!({"layers": [{"a~/": ["x"]}], "rows": [["1"]]}),
        json!({"layers": [{"a~/": "x"}], "rows": [[1]]}),
    ];
    for call in &calls {
        let (from_value, from_text) = answer(&Route, call);
        assert_eq!(from_value, from_text, "{call}");
    }
    let pointers = |call: &Value| -> Vec<String> {
        let mut pointers: Vec<_> = Route
            .bind(call)
            .unwrap()
            .repairs
            .into_iter()
            .map(|r| r.pointer.into_owned())
            .collect();
        pointers.sort();
        pointers
    };
    assert_eq!(
        pointers(&calls[0]),
        ["/layers/0/a", "/layers/1/c", "/rows/0"]
    );
    assert_eq!(pointers(&calls[4]).len(), 0);
    // More strings than the plain read looks for: the pass binds the rest.
    let many = json!({"layers": vec![json!({"a": "x"}); 12], "rows": []});
    let (from_value, from_text) = answer(&Route, &many);
    assert_eq!(from_value, from_text);
    assert_eq!(pointers(&many).len(), 12);
    let bound = Route.bind(&calls[0]).unwrap().args;
    assert_eq!(bound.layers[1]["c"], ["z"]);
    assert_eq!(bound.rows, [vec!["r".to_owned()], vec!["s".to_owned()]]);
}

/// Ten lists deep.
type Lists = Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<String>>>>>>>>>>;

/// Stack names in a cube ten lists deep.
#[tool]
fn cube(cube: Lists) -> usize {
    cube.len()
}

/// Nine lists deep.
type Nine = Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<String>>>>>>>>>;

/// Stack names nine lists deep.
#[tool]
fn stack(stack: Nine, rows: Vec<Vec<String>>) -> usize {
    stack.len() + rows.len()
}

#[test]
fn a_string_eight_lists_deep_is_bound_from_a_value_with_its_pointer() {
    // Two strings in one list eight lists deep, and one at a parameter's
    // list of lists: each found in the call, with its pointer.
    let nest = |lists: usize, inner: Value| (0..lists).fold(inner, |inner, _| json!([inner]));
    let call = json!({
        "rows": [["a"], "b"],
        "stack": nest(7, json!([["x"], "y", ["z"], "w"])),
    });
    let (from_value, from_text) = answer(&Stack, &call);
    assert_eq!(from_value, from_text);
    let pointers: Vec<_> = Stack
        .bind(&call)
        .unwrap()
        .repairs
        .into_iter()
        .map(|r| r.pointer.into_owned())
        .collect();
    assert_eq!(
        pointers,
        [
            "/rows/1",
            "/stack/0/0/0/0/0/0/0/1",
            "/stack/0/0/0/0/0/0/0/3"
        ],
        "{call}"
    );
}

#[test]
fn a_string_deep_below_a_parameter_is_bound_from_a_value_with_its_whole_pointer() {
    let nest = |lists: usize, inner: Value| (0..lists).fold(inner, |inner, _| json!([inner]));
    // A string for the innermost list: nine steps below the parameter.
    let deep = json!({"cube": nest(9, json!("x"))});
    // The eleventh item of the last list but one.
    let mut items: Vec<Value> = (0..10).map(|i| json!([i.to_string()])).collect();
    items.push(json!("k"));
    let wide = json!({"cube": nest(8, Value::Array(items))});
    for (call, pointer) in [
        (&deep, "/cube/0/0/0/0/0/0/0/0/0"),
        (&wide, "/cube/0/0/0/0/0/0/0/0/10"),
    ] {
        let (from_value, from_text) = answer(&Cube, call);
        assert_eq!(from_value, from_text);
        let repairs = Cube.bind(call).unwrap().repairs;
        assert_eq!(repairs.len(), 1);
        assert_eq!(repairs[0].pointer, pointer);
    }
}

/// Two names or more, and short tags.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Pair {
    #[schemars(length(min = 2))]
    names: Vec<String>,
    #[schemars(inner(length(max = 3)))]
    tags: Vec<String>,
}

/// Match pairs of names.
#[tool]
fn pairs(pairs: Vec<Pair>) -> usize {
    pairs.len()
}

#[test]
fn a_string_for_a_list_the_schema_bounds_is_bound_from_a_value_as_from_text() {
    // The adapter wraps a string only where the list of one it makes, and
    // its one item, meet the schema's assertions: the plain read after the
    // look must answer the same.
    let calls = [
        json!({"pairs": [{"names": ["a", "b"], "tags": "abc"}]}),
        json!({"pairs": [{"names": ["a", "b"], "tags": "abcd"}]}),
        json!({"pairs": [{"names": "a", "tags": []}]}),
        json!({"pairs": [{"names": ["a", "b"], "tags": ["x"]}, {"names": ["c", "d"], "tags": "y"}]}),
    ];
    for call in &calls {
        let (from_value, from_text) = answer(&Pairs, call);
        assert_eq!(from_value, from_text, "{call}");
    }
    assert_eq!(
        answer(&Pairs, &calls[3]).0,
        r#"bound, repairs [("/pairs/1/tags", ScalarToArray)]"#
    );
    assert!(answer(&Pairs, &calls[1]).0.starts_with("refused"));
    assert!(answer(&Pairs, &calls[2]).0.starts_with("refused"));
}

mod random_edits {
    use super::*;
    use proptest::prelude::*;

    /// A value a model might send anywhere: scalars, a listed or unlisted
    /// string, a list of them, an object of one.
    fn sent() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(json!(null)),
            Just(json!(true)),
            Just(json!(3)),
            Just(json!(-1)),
            Just(json!("eq")),
            Just(json!("ne")),
            Just(json!("asc")),
            Just(json!("x, y")),
            Just(json!("")),
            Just(json!("z")),
            // Forms serde reads and the schema does not admit: a struct
            // from an array of its fields, a unit variant from an object.
            Just(json!([10, null])),
            Just(json!(["f", "eq", ["a"]])),
            Just(json!({"eq": null})),
        ];
        leaf.prop_recursive(2, 6, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                ("[a-z]{1,2}|size|after|op|field|values", inner).prop_map(|(k, v)| json!({ k: v })),
            ]
        })
    }

    /// Where to put it: a member of the call, of a condition, of the
    /// window, of the map, or a whole condition or window.
    fn at() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("/repo".to_owned()),
            Just("/conditions/0".to_owned()),
            Just("/window".to_owned()),
            Just("/by".to_owned()),
            "/conditions/[01]/(field|op|values|other)",
            "/window/(size|after|more)",
            "/by/[xy]",
            Just("/order".to_owned()),
            "/[a-z]{1,5}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// A call whose type checks the plan, with one or two edits: from a
        /// `Value`, read plainly, it answers as the same call as text.
        #[test]
        fn an_edited_call_answers_from_a_value_as_from_text(
            edits in prop::collection::vec((at(), sent()), 1..3)
        ) {
            let mut call = json!({
                "repo": "r",
                "conditions": [{"field": "f", "op": "eq", "values": ["a"]}, {"field": "g", "op": "ne", "values": []}],
                "window": {"size": 10, "after": null},
                "by": {"x": "eq"},
            });
            for (pointer, value) in edits {
                let (parent, key) = pointer.rsplit_once('/').unwrap();
                match call.pointer_mut(parent) {
                    Some(Value::Object(members)) => {
                        members.insert(key.to_owned(), value);
                    }
                    Some(Value::Array(items)) => {
                        if let Some(item) = key.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                            *item = value;
                        }
                    }
                    _ => {}
                }
            }
            let (from_value, from_text) = answer(&Search, &call);
            prop_assert_eq!(from_value, from_text, "{}", call);
        }
    }
}

/// Name someone, with aliases (the parameters of `alias`, in the other
/// order).
#[tool]
fn swapped(count: u32, aliases: Vec<String>, name: String) -> usize {
    name.len() + aliases.len() + count as usize
}

/// Name someone, with aliases.
#[tool]
fn alias(name: String, aliases: Vec<String>, count: u32) -> usize {
    name.len() + aliases.len() + count as usize
}

#[test]
fn a_spec_asked_for_another_types_fields_binds_each_by_its_name() {
    // `alias`'s spec, its fields routed for `AliasArgs` on a first call,
    // then asked to bind `SwappedArgs`, whose fields come in another
    // order: no field may take another's route (the count, sent as text
    // under an opt-in rule, is read through the plan, by its name).
    let spec = Alias.spec();
    let policy = Policy::DEFAULT.with(canon::RepairRule::NumberText);
    let call = json!({"name": "ana", "aliases": "an", "count": "3"});
    let own = canon::__private::bind_args::<AliasArgs>(spec, &call, policy).unwrap();
    assert_eq!(
        (
            own.args.name.as_str(),
            own.args.aliases.len(),
            own.args.count
        ),
        ("ana", 1, 3)
    );
    for _ in 0..2 {
        let other = canon::__private::bind_args::<SwappedArgs>(spec, &call, policy).unwrap();
        assert_eq!((other.args.name.as_str(), other.args.count), ("ana", 3));
        assert_eq!(other.args.aliases, ["an"]);
        let mut pointers: Vec<_> = other.repairs.iter().map(|r| r.pointer.as_ref()).collect();
        pointers.sort();
        assert_eq!(pointers, ["/aliases", "/count"]);
        // The near miss alone, as a plain read binds it.
        let near = json!({"name": "ana", "aliases": "an", "count": 3});
        let other =
            canon::__private::bind_args::<SwappedArgs>(spec, &near, Policy::DEFAULT).unwrap();
        assert_eq!(other.args.aliases, ["an"]);
        let args = other.args;
        assert_eq!(swapped(args.count, args.aliases, args.name), 3 + 1 + 3);
    }
}
