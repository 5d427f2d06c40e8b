//! Calls that cannot be bound: every violation at once, with its pointer,
//! what the schema expects and what came, phrased for the model.

mod common;

use canon::{BindError, JsonType, Tool, ViolationKind};
use common::{SearchCode, Survey};
use serde_json::json;

fn reject(args: serde_json::Value) -> BindError {
    let from_value = SearchCode.bind(&args).err().expect("must be rejected");
    let from_text = SearchCode
        .bind_str(&args.to_string())
        .err()
        .expect("must be rejected");
    assert_eq!(from_value, from_text, "both entries report the same");
    from_value
}

#[test]
fn every_violation_is_listed_with_its_pointer() {
    let error = reject(json!({"data_source_names": ["dotnet/eshop"], "limit": "ten"}));
    assert_eq!(error.pointers(), ["/limit", "/query"]);
    let [limit, query] = error.violations() else {
        panic!()
    };
    assert_eq!(limit.kind, ViolationKind::WrongType);
    assert_eq!(limit.expected, "an integer or null");
    let received = limit.received.as_ref().unwrap();
    assert_eq!(received.json_type, JsonType::String);
    assert_eq!(received.preview, "\"ten\"");
    assert_eq!(
        limit.message,
        "expected an integer or null, got the string \"ten\""
    );
    assert_eq!(query.kind, ViolationKind::Missing);
    assert_eq!(query.expected, "a string");
    assert_eq!(query.received, None);
    assert_eq!(query.message, "required, expected a string");
    assert_eq!(
        error.to_string(),
        "The call to `search_code` was not run. \
         /limit: expected an integer or null, got the string \"ten\". \
         /query: required, expected a string. \
         Fix these and call `search_code` again."
    );
}

#[test]
fn the_json_form_carries_the_same_content() {
    let error = reject(json!({"data_source_names": ["a"], "limit": "ten"}));
    assert_eq!(
        error.to_json(),
        json!({
            "error": "invalid_arguments",
            "tool": "search_code",
            "violations": [
                {
                    "pointer": "/limit",
                    "kind": "wrong_type",
                    "expected": "an integer or null",
                    "received": {"type": "string", "preview": "\"ten\""},
                    "message": "expected an integer or null, got the string \"ten\""
                },
                {
                    "pointer": "/query",
                    "kind": "missing",
                    "expected": "a string",
                    "message": "required, expected a string"
                }
            ],
            "instruction": "Fix these and call `search_code` again."
        })
    );
}

#[test]
fn unknown_parameters_name_the_closest_known_one() {
    let error = reject(json!({"data_source_names": "a", "query": "q", "limt": 5}));
    assert_eq!(error.pointers(), ["/limt"]);
    let unknown = &error.violations()[0];
    assert_eq!(unknown.kind, ViolationKind::Unknown);
    assert_eq!(unknown.message, "unknown parameter; did you mean `limit`?");
    let error = reject(json!({"data_source_names": "a", "query": "q", "zzz": 5}));
    assert_eq!(
        error.violations()[0].message,
        "unknown parameter; the parameters are `data_source_names`, `query`, `limit`"
    );
}

#[test]
fn blank_strings_and_json_array_text_are_not_wrapped() {
    let error = reject(json!({"data_source_names": "  ", "query": "q"}));
    let [blank] = error.violations() else {
        panic!()
    };
    assert_eq!(blank.pointer, "/data_source_names");
    assert_eq!(blank.kind, ViolationKind::BlankString);
    assert_eq!(
        blank.message,
        "expected an array of strings, got a blank string; send [] for none, or the values as a list"
    );
    let error = reject(json!({"data_source_names": "[\"a\", \"b\"]", "query": "q"}));
    let [text] = error.violations() else { panic!() };
    assert_eq!(text.pointer, "/data_source_names");
    assert_eq!(text.kind, ViolationKind::JsonText);
    assert_eq!(
        text.message,
        "expected an array of strings, got a string holding the text of a list; \
         send the array itself, not a string"
    );
    assert_eq!(
        text.received.as_ref().unwrap().preview,
        r#""[\"a\", \"b\"]""#
    );
}

#[test]
fn list_literal_text_is_refused_like_json_array_text() {
    // Seen in captured calls: the text of a Python list, never parsed.
    for text in ["['I', 'V', 'vi', 'IV']", "[\"a\"]", " [] ", "['a', 'b',]"] {
        let error = reject(json!({"data_source_names": text, "query": "q"}));
        let [v] = error.violations() else {
            panic!("{text}")
        };
        assert_eq!(v.kind, ViolationKind::JsonText, "{text}");
        assert_eq!(v.pointer, "/data_source_names");
    }
    // Brackets that do not make a list are ordinary text.
    for text in ["[draft] notes", "[wip]", "[05]"] {
        let bound = SearchCode
            .bind(&json!({"data_source_names": text, "query": "q"}))
            .unwrap();
        assert_eq!(bound.args.data_source_names, [text]);
    }
}

#[test]
fn repaired_positions_are_never_reported() {
    // The near miss is repaired, and only the real problem is listed.
    let error = reject(json!({"data_source_names": "dotnet/eshop", "query": 5}));
    assert_eq!(error.pointers(), ["/query"]);
    assert_eq!(
        error.violations()[0].message,
        "expected a string, got the number 5"
    );
}

#[test]
fn nested_violations_point_into_the_structure() {
    let args = json!({
        "names": [], "set": [], "ordered": [], "langs": ["rust", "cobol"],
        "filter": {"labels": "fine", "min_stars": -1, "colour": "red"},
        "maybe_filter": {"labels": 3},
        "filters": [{"labels": []}, {}],
        "groups": {"a": [1]},
        "query": {"text": "t", "fields": ""},
        "either": ["x"], "count": 1
    });
    let error = Survey.bind(&args).err().unwrap();
    let found: Vec<(&str, ViolationKind, &str)> = error
        .violations()
        .iter()
        .map(|v| (v.pointer.as_str(), v.kind, v.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("/filter/colour", ViolationKind::Unknown, "unknown property; the properties are `labels`, `path/globs~`, `min_stars`"),
            ("/filter/min_stars", ViolationKind::Constraint, "expected a number of at least 0, got the number -1"),
            ("/filters/1/labels", ViolationKind::Missing, "required, expected an array of strings"),
            ("/groups/a/0", ViolationKind::WrongType, "expected a string, got the number 1"),
            ("/langs/1", ViolationKind::NotAllowed, "expected one of \"rust\", \"go\", \"python\", got the string \"cobol\""),
            ("/maybe_filter/labels", ViolationKind::WrongType, "expected an array of strings, got the number 3"),
            ("/query/fields", ViolationKind::BlankString, "expected an array of strings, got a blank string; send [] for none, or the values as a list"),
        ]
    );
    assert_eq!(Survey.bind_str(&args.to_string()).err().unwrap(), error);
}

#[test]
fn malformed_text_is_one_violation_without_positions() {
    for text in [
        "{",
        "",
        "not json",
        "{\"query\": \"q\"} trailing",
        "{\"a\":1,}",
    ] {
        let error = SearchCode.bind_str(text).err().unwrap();
        let [v] = error.violations() else {
            panic!("{text}")
        };
        assert_eq!(v.kind, ViolationKind::Malformed, "{text}");
        assert_eq!(v.pointer, "");
        assert!(
            v.message.starts_with("the arguments are not valid JSON ("),
            "{}",
            v.message
        );
        assert!(!v.message.contains("line"), "{}", v.message);
        assert!(!v.message.contains("column"), "{}", v.message);
        assert!(error
            .to_string()
            .contains("(arguments): the arguments are not valid JSON"));
    }
}

#[test]
fn non_object_arguments_are_a_type_violation_at_the_root() {
    for args in [json!(null), json!("dotnet/eshop"), json!([1]), json!(3)] {
        let error = reject(args.clone());
        let [v] = error.violations() else {
            panic!("{args}")
        };
        assert_eq!(v.pointer, "", "{args}");
        assert_eq!(v.kind, ViolationKind::WrongType, "{args}");
        assert_eq!(v.expected, "an object");
    }
}

#[test]
fn what_only_the_rust_type_rejects_is_reported_at_its_path() {
    let error =
        reject(json!({"data_source_names": ["a"], "query": "q", "limit": 5_000_000_000u64}));
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.pointer, "/limit");
    assert_eq!(v.kind, ViolationKind::Invalid);
    assert_eq!(v.expected, "an integer or null");
    assert_eq!(
        v.message,
        "invalid value: got the number 5000000000, expected u32"
    );
    assert_eq!(v.received.as_ref().unwrap().preview, "5000000000");
}

#[test]
fn long_values_are_previewed_in_64_characters() {
    let long = "x".repeat(500);
    let error = reject(json!({"data_source_names": ["a"], "query": long.clone(), "limit": long}));
    let preview = &error.violations()[0].received.as_ref().unwrap().preview;
    assert_eq!(preview.chars().count(), 64);
    assert!(preview.ends_with('…'));
    assert!(error.to_string().len() < 300);
}

#[test]
fn the_messages_carry_no_serde_positions() {
    for args in [
        json!({"data_source_names": 1}),
        json!({"data_source_names": ["a"], "query": "q", "limit": 1.5}),
        json!({"data_source_names": [null], "query": "q"}),
    ] {
        let text = SearchCode
            .bind_str(&args.to_string())
            .err()
            .unwrap()
            .to_string();
        assert!(!text.contains(" at line "), "{text}");
    }
}
