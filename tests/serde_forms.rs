//! serde's derived types take more forms than their schemas publish: a
//! struct from the array of its fields' values, an enum's variant from a
//! one-member object, an internally tagged enum from an array. A call in
//! such a form breaks the published schema, so it is refused where the
//! form was sent, from text and from a `Value` alike, with what the
//! schema expected there.

use canon::{tool, BindError, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// One condition.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filter {
    /// The field compared.
    pub field: String,
    /// How.
    pub op: Op,
    /// With what.
    pub values: Vec<String>,
}

/// How a filter compares.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
}

/// Which page (open: unknown members are ignored).
#[derive(Deserialize, JsonSchema)]
pub struct Page {
    /// Its size.
    pub size: u32,
}

/// What to do with the issues found.
#[derive(Deserialize, JsonSchema)]
pub enum Action {
    /// Label them.
    Label {
        /// The labels.
        names: Vec<String>,
    },
    /// Rename them.
    Rename {
        /// The new title.
        to: String,
    },
    /// Close them.
    Close,
}

/// Where to send the result.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind")]
pub enum Sink {
    /// A file.
    File {
        /// Its path.
        path: String,
    },
    /// A URL.
    Url {
        /// Where.
        url: String,
    },
}

/// In which order.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Oldest first (serde also reads `ascending`, which the schema does
    /// not list).
    #[serde(alias = "ascending")]
    Asc,
    /// Newest first.
    Desc,
}

/// Tag a file (flat: its arguments hold no struct or enum).
#[tool]
fn tag(path: String, labels: Vec<String>, limit: u32) -> usize {
    path.len() + labels.len() + limit as usize
}

/// Who may see the result (serde reads any other name as `Other`, which
/// the schema lists by its own name only).
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    /// The team.
    Team,
    /// Anyone else.
    #[serde(other)]
    Other,
}

/// Query issues.
#[tool]
fn query(
    filters: Vec<Filter>,
    page: Page,
    action: Option<Action>,
    sink: Option<Sink>,
    order: Option<Order>,
    audience: Option<Audience>,
) -> usize {
    let _ = (action, sink, order, audience);
    filters.len() + page.size as usize
}

/// The refusal of `call` by `query`, the same from a `Value` and from text.
fn refused(call: Value) -> BindError {
    refused_by(&Query, call)
}

/// The refusal of `call` by `tool`, the same from a `Value` and from text.
fn refused_by<T: Tool>(tool: &T, call: Value) -> BindError {
    let Err(from_value) = tool.bind(&call) else {
        panic!("bound from a Value: {call}");
    };
    let Err(from_text) = tool.bind_str(&call.to_string()) else {
        panic!("bound from text: {call}");
    };
    assert_eq!(from_value, from_text, "{call}");
    from_value
}

/// The call with `at` set to `value`, from a valid one.
fn with(at: &str, value: Value) -> Value {
    let mut call = json!({
        "filters": [{"field": "label", "op": "eq", "values": ["bug"]}],
        "page": {"size": 10},
        "action": {"Label": {"names": ["triaged"]}},
        "sink": {"kind": "File", "path": "out.json"},
        "order": "asc",
        "audience": "team",
    });
    *call.pointer_mut(at).expect("a position of the call") = value;
    call
}

#[test]
fn every_form_the_schema_publishes_binds() {
    let call = json!({"path": "a", "labels": ["x"], "limit": 3});
    assert_eq!(Tag.bind(&call).map(|b| b.repairs.len()), Ok(0));
    assert_eq!(
        Tag.bind_str(&call.to_string()).map(|b| b.repairs.len()),
        Ok(0)
    );
    for call in [
        with("/page", json!({"size": 10})),
        with("/action", json!("Close")),
        with("/action", Value::Null),
        with("/sink", Value::Null),
        with("/order", json!("desc")),
        with("/audience", json!("other")),
        with("/action", json!({"Rename": {"to": "x"}})),
        with(
            "/sink",
            json!({"kind": "Url", "url": "https://example.com"}),
        ),
    ] {
        let from_value = Query.bind(&call).map(|b| b.repairs.len());
        let from_text = Query.bind_str(&call.to_string()).map(|b| b.repairs.len());
        assert_eq!(from_value, Ok(0), "{call}");
        assert_eq!(from_text, Ok(0), "{call}");
    }
}

#[test]
fn a_struct_sent_as_the_array_of_its_values_is_refused_there() {
    let error = refused(with("/filters/0", json!(["label", "eq", ["bug"]])));
    assert_eq!(
        error.to_string(),
        "The call to `query` was not run. \
         /filters/0: expected an object, got the array [\"label\",\"eq\",[\"bug\"]]. \
         Fix these and call `query` again."
    );
    let error = refused(with("/page", json!([10])));
    assert_eq!(error.pointers(), ["/page"]);
    assert_eq!(
        error.violations()[0].message,
        "expected an object, got the array [10]"
    );
}

#[test]
fn the_arguments_sent_as_an_array_are_refused_at_the_root() {
    // Every argument, in order: serde's derive would read it.
    let error = refused(json!([[], {"size": 10}, null, null, null]));
    assert_eq!(error.pointers(), [""]);
    let error = refused_by(&Tag, json!(["a", ["x"], 3]));
    assert_eq!(error.pointers(), [""]);
    assert_eq!(
        error.violations()[0].message,
        "expected an object, got the array [\"a\",[\"x\"],3]"
    );
}

#[test]
fn a_unit_variant_sent_as_a_one_member_object_is_refused_there() {
    let error = refused(with("/filters/0/op", json!({"eq": null})));
    assert_eq!(
        error.to_string(),
        "The call to `query` was not run. \
         /filters/0/op: expected exactly \"eq\" or exactly \"ne\", got the object {\"eq\":null}. \
         Fix these and call `query` again."
    );
    // Where the enum also has variants with content, the object is told
    // by what those objects may hold.
    let error = refused(with("/action", json!({"Close": null})));
    assert_eq!(error.pointers(), ["/action"]);
    assert_eq!(
        error.violations()[0].message,
        "expected an object or exactly \"Close\", got the object {\"Close\":null}"
    );
}

#[test]
fn a_variant_with_content_sent_as_its_name_is_refused_there() {
    let error = refused(with("/action", json!("Label")));
    assert_eq!(error.pointers(), ["/action"]);
}

#[test]
fn an_internally_tagged_enum_sent_as_an_array_is_refused_there() {
    let error = refused(with("/sink", json!(["File", "out.json"])));
    assert_eq!(error.pointers(), ["/sink"]);
}

#[test]
fn a_name_serde_reads_but_the_schema_does_not_list_is_refused() {
    // `#[serde(other)]` would read it as `Other`.
    let error = refused(with("/audience", json!("everyone")));
    assert_eq!(error.pointers(), ["/audience"]);
    let error = refused(with("/order", json!("ascending")));
    assert_eq!(error.pointers(), ["/order"]);
    assert_eq!(
        error.violations()[0].message,
        "expected exactly \"asc\" or exactly \"desc\", got the string \"ascending\""
    );
}

#[test]
fn a_member_of_another_variant_is_refused() {
    // Internally tagged: `url` is a `Url`'s, not a `File`'s (serde's derive
    // would ignore it).
    let error = refused(with(
        "/sink",
        json!({"kind": "File", "path": "out.json", "url": "https://example.com"}),
    ));
    assert_eq!(
        error.to_string(),
        "The call to `query` was not run. \
         /sink/url: unknown property; the properties are `kind`, `path`. \
         Fix these and call `query` again."
    );
    // Externally tagged: one variant a call.
    let error = refused(with(
        "/action",
        json!({"Label": {"names": []}, "Rename": {"to": "x"}}),
    ));
    assert_eq!(error.pointers(), ["/action"]);
}

#[test]
fn a_repair_inside_a_variant_keeps_its_pointer() {
    let call = with("/action", json!({"Label": {"names": "triaged"}}));
    let pointers = |repairs: &[canon::Repair]| -> Vec<String> {
        repairs.iter().map(|r| r.pointer.to_string()).collect()
    };
    let Ok(from_value) = Query.bind(&call) else {
        panic!("refused from a Value: {call}");
    };
    let Ok(from_text) = Query.bind_str(&call.to_string()) else {
        panic!("refused from text: {call}");
    };
    assert_eq!(pointers(&from_value.repairs), ["/action/Label/names"]);
    assert_eq!(pointers(&from_text.repairs), ["/action/Label/names"]);
}
