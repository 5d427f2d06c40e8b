//! Calls that cannot be bound: every violation at once, with its pointer,
//! what the schema expects and what came, phrased for the model.

mod common;

use canon::toolbox::{JsonType, ViolationKind};
use canon::{BindError, Tool};
use common::{SearchCode, Survey};
use serde_json::json;

fn reject(args: serde_json::Value) -> BindError {
    let from_value = SearchCode.bind(&args).expect_err("must be rejected");
    let from_text = SearchCode
        .bind_str(&args.to_string())
        .expect_err("must be rejected");
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
            ("/filter/min_stars", ViolationKind::Constraint, "expected an integer from 0 to 4294967295 or null, got the number -1"),
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
fn what_only_the_rust_type_rejects_is_reported_at_its_path_with_its_range() {
    let error =
        reject(json!({"data_source_names": ["a"], "query": "q", "limit": 5_000_000_000u64}));
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.pointer, "/limit");
    assert_eq!(v.kind, ViolationKind::Constraint);
    assert_eq!(v.expected, "an integer from 0 to 4294967295 or null");
    assert_eq!(
        v.message,
        "expected an integer from 0 to 4294967295 or null, got the number 5000000000"
    );
    assert_eq!(v.received.as_ref().unwrap().preview, "5000000000");
}

#[test]
fn long_values_are_previewed_in_64_characters() {
    let long = "x".repeat(500);
    let error = reject(json!({"data_source_names": ["a"], "query": long.clone(), "limit": long}));
    let preview = &error.violations()[0].received.as_ref().unwrap().preview;
    assert_eq!(preview.chars().count(), 64);
    // The string is cut inside its quotes: the closing one stays.
    assert_eq!(*preview, format!("\"{}…\"", "x".repeat(61)));
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

/// Rejects `args` against a foreign schema, under the default policy.
fn reject_foreign(schema: serde_json::Value, mut args: serde_json::Value) -> BindError {
    let canon = canon::Canonicalizer::options()
        .tool("lookup")
        .closed_objects(true)
        .compile(&schema)
        .unwrap();
    canon.canonicalize(&mut args).expect_err("must be rejected")
}

#[test]
fn comma_separated_lists_are_refused_not_wrapped() {
    let error = reject(json!({"data_source_names": "points, assists, minutes", "query": "q"}));
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.pointer, "/data_source_names");
    assert_eq!(v.kind, ViolationKind::CommaList);
    assert_eq!(
        v.message,
        "expected an array of strings, got a string holding a comma-separated list; \
         send each value as its own element ([\"points\", \"assists\", \"minutes\"]), \
         or [\"points, assists, minutes\"] if it is one value"
    );
    // One value with a comma is refused too, and told how to send it.
    let error = reject(json!({"data_source_names": "Paris, France", "query": "q"}));
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.kind, ViolationKind::CommaList);
    assert!(v
        .message
        .ends_with(", or [\"Paris, France\"] if it is one value"));
    // A comma without text on both sides is no list.
    for text in ["dotnet/eshop", "eshop,", ", eshop", "a;b"] {
        let bound = SearchCode
            .bind(&json!({"data_source_names": text, "query": "q"}))
            .unwrap();
        assert_eq!(bound.args.data_source_names, [text]);
    }
}

#[test]
fn bracketed_text_that_is_not_json_is_list_text() {
    for text in [
        "[points, assists]",
        "['Can you purchase a cashier's check?', 'I need a cashier's check, how?']",
    ] {
        let error = reject(json!({"data_source_names": text, "query": "q"}));
        let [v] = error.violations() else {
            panic!("{text}")
        };
        assert_eq!(v.kind, ViolationKind::JsonText, "{text}");
    }
}

#[test]
fn the_comma_list_message_quotes_at_most_a_preview() {
    let long: Vec<String> = (0..200).map(|i| format!("value number {i}")).collect();
    let error = reject(json!({"data_source_names": long.join(", "), "query": "q"}));
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.kind, ViolationKind::CommaList);
    assert!(v.message.chars().count() < 300, "{}", v.message);
    assert!(v.message.contains("…"));
    // Control characters in the value stay escaped.
    let error = reject(json!({"data_source_names": "a\nHuman: b, c", "query": "q"}));
    assert!(!error.to_string().contains('\n'));
}

#[test]
fn an_integer_enum_given_a_string_is_one_violation() {
    // Corpus line 17812: the type and the enum keyword both failed, and the
    // same sentence was listed twice.
    let error = reject_foreign(
        json!({"type": "object",
               "properties": {"service_id": {"type": "integer", "enum": [1, 2]},
                              "unit": {"type": "integer", "default": 1}},
               "required": ["service_id"]}),
        json!({"service_id": "1", "unit": "1"}),
    );
    assert_eq!(error.pointers(), ["/service_id", "/unit"]);
    let v = &error.violations()[0];
    assert_eq!(v.kind, ViolationKind::WrongType);
    assert_eq!(v.message, "expected one of 1, 2, got the string \"1\"");
}

#[test]
fn list_text_at_any_array_gets_the_hint() {
    // Corpus line 15045: numbers.
    let error = reject_foreign(
        json!({"type": "object",
               "properties": {"function": {"type": "string"},
                              "interval": {"type": "array", "items": {"type": "number"}}},
               "required": ["function", "interval"]}),
        json!({"function": "lambda x: x**2", "interval": "[1, 3]"}),
    );
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.kind, ViolationKind::JsonText);
    assert_eq!(
        v.message,
        "expected an array of numbers, got a string holding the text of a list; \
         send the array itself, not a string"
    );
    // Corpus line 17807: objects, as a Python literal.
    let error = reject_foreign(
        json!({"type": "object",
               "properties": {"data": {"type": "array", "items": {"type": "object"}}}}),
        json!({"data": "[{'name': '李雷', 'age': 18}, {'name': '李丽', 'age': 21}]"}),
    );
    assert_eq!(error.violations()[0].kind, ViolationKind::JsonText);
    // Corpus line 4084: a comma-separated list for numbers.
    let error = reject_foreign(
        json!({"type": "object",
               "properties": {"coordinates": {"type": "array", "items": {"type": "number"}}}}),
        json!({"coordinates": "43.653225, -79.383186"}),
    );
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.kind, ViolationKind::CommaList);
    assert!(
        v.message.ends_with("([43.653225, -79.383186])"),
        "{}",
        v.message
    );
    // A string that is no list stays a type violation.
    let error = reject_foreign(
        json!({"type": "object",
               "properties": {"ids": {"type": "array", "items": {"type": "integer"}}}}),
        json!({"ids": "all"}),
    );
    assert_eq!(error.violations()[0].kind, ViolationKind::WrongType);
}

#[test]
fn a_number_out_of_range_in_text_is_not_called_invalid_json() {
    let error = SearchCode
        .bind_str(r#"{"data_source_names": ["a"], "query": "q", "limit": 1e400}"#)
        .err()
        .unwrap();
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.pointer, "/limit");
    assert_eq!(v.kind, ViolationKind::Constraint);
    assert_eq!(v.received.as_ref().unwrap().preview, "1e400");
    assert!(v
        .message
        .ends_with("got the number 1e400, which is out of range"));
    assert!(!error.to_string().contains("not valid JSON"));
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Numbers {
    ratio: f32,
    level: u8,
    count: u32,
    offset: i64,
}

fn numbers(args: serde_json::Value) -> BindError {
    let spec = canon::toolbox::ToolSpec::of::<Numbers>("numbers", "Numbers of every width.");
    let from_value = spec.bind::<Numbers>(&args).expect_err("must be rejected");
    let from_text = spec.bind_str::<Numbers>(&args.to_string()).err().unwrap();
    assert_eq!(from_value, from_text);
    from_value
}

#[test]
fn numbers_out_of_their_rust_range_are_one_violation_each_with_the_range() {
    let error = numbers(json!({
        "ratio": 1.797_693_134_862_315_7e308, "level": 300, "count": -1, "offset": 3.5
    }));
    let found: Vec<(&str, ViolationKind, &str)> = error
        .violations()
        .iter()
        .map(|v| (v.pointer.as_str(), v.kind, v.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("/count", ViolationKind::Constraint, "expected an integer from 0 to 4294967295, got the number -1"),
            ("/level", ViolationKind::Constraint, "expected an integer from 0 to 255, got the number 300"),
            ("/offset", ViolationKind::Constraint, "expected an integer from -9223372036854775808 to 9223372036854775807, got the number 3.5"),
            ("/ratio", ViolationKind::Constraint, "expected a number from -3.4028235e38 to 3.4028235e38 (a 32-bit float), got the number 1.7976931348623157e+308"),
        ]
    );
    // Within range, nothing is said of them.
    let error = numbers(json!({"ratio": 0.5, "level": 255, "count": 4_294_967_295u64}));
    assert_eq!(error.pointers(), ["/offset"]);
    assert_eq!(error.violations()[0].kind, ViolationKind::Missing);
}

#[test]
fn an_empty_enum_is_described_as_accepting_nothing() {
    let error = reject_foreign(
        json!({"type": "object", "properties": {"mode": {"enum": []}}}),
        json!({"mode": "fast"}),
    );
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.expected, "nothing (no value is allowed here)");
    assert!(!v.message.contains("one of"), "{}", v.message);
}

#[test]
fn a_schema_sent_as_arguments_is_one_violation_naming_the_parameters() {
    let error = reject(SearchCode.input_schema().clone());
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.pointer, "");
    assert_eq!(v.kind, ViolationKind::SchemaAsArguments);
    assert_eq!(
        v.message,
        "got the tool's JSON Schema instead of its arguments; send the arguments themselves: \
         an object with `data_source_names` (required), `query` (required), `limit`"
    );
    // Corpus line 2782: BFCL's own form of the schema (`"type": "dict"`).
    let schema = json!({"type": "object",
        "properties": {"function": {"type": "string"}, "start_x": {"type": "integer"},
                       "end_x": {"type": "integer"}, "method": {"type": "string"}},
        "required": ["function", "start_x", "end_x"]});
    let mut sent = schema.clone();
    sent["type"] = json!("dict");
    let error = reject_foreign(schema, sent);
    let [v] = error.violations() else { panic!() };
    assert_eq!(v.kind, ViolationKind::SchemaAsArguments);
    assert!(v.message.ends_with("`end_x` (required), `method`"));
    // A tool whose parameters are named like keywords is told as usual.
    let error = reject_foreign(
        json!({"type": "object",
               "properties": {"type": {"type": "string"}, "properties": {"type": "object"},
                              "name": {"type": "string"}},
               "required": ["name"]}),
        json!({"type": "object", "properties": {}}),
    );
    assert_eq!(error.pointers(), ["/name"]);
    assert_eq!(error.violations()[0].kind, ViolationKind::Missing);
}

#[test]
fn a_refused_string_inside_a_tagged_enum_is_the_one_violation() {
    // Not also "/target: expected an object, got the object {...}".
    for (names, kind) in [
        ("a, b", ViolationKind::CommaList),
        ("['a', 'b']", ViolationKind::JsonText),
        (" ", ViolationKind::BlankString),
    ] {
        let args = json!({
            "names": [], "set": [], "ordered": [], "langs": [],
            "filter": {"labels": []}, "filters": [], "groups": {},
            "query": {"text": "t", "fields": []}, "either": "x", "count": 1,
            "target": {"kind": "Repo", "names": names}
        });
        let error = Survey.bind(&args).err().unwrap();
        let [v] = error.violations() else {
            panic!("{names}: {error}")
        };
        assert_eq!(v.pointer, "/target/names", "{names}");
        assert_eq!(v.kind, kind, "{names}");
        assert_eq!(Survey.bind_str(&args.to_string()).err().unwrap(), error);
    }
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Maps {
    ports: std::collections::BTreeMap<u16, String>,
    flags: Option<std::collections::BTreeMap<bool, u8>>,
    nested: Option<Vec<std::collections::BTreeMap<bool, u8>>>,
}

fn maps(args: serde_json::Value) -> BindError {
    let spec = canon::toolbox::ToolSpec::of::<Maps>("maps", "Maps keyed by numbers and booleans.");
    let from_value = spec.bind::<Maps>(&args).expect_err("must be rejected");
    let from_text = spec.bind_str::<Maps>(&args.to_string()).err().unwrap();
    assert_eq!(from_value, from_text);
    from_value
}

#[test]
fn a_map_key_the_rust_type_refuses_is_pointed_at_as_sent() {
    let one = |args: serde_json::Value| {
        let error = maps(args);
        let [v] = error.violations() else {
            panic!("{error}")
        };
        (v.pointer.clone(), v.received.clone().map(|r| r.preview))
    };
    let ports = json!({"80": "web"});
    let (at, got) = one(json!({"ports": ports, "flags": {"true": 1, "a/b~c": 2, "yes": 3}}));
    assert_eq!(at, "/flags/a~1b~0c");
    assert_eq!(got.as_deref(), Some("\"a/b~c\""));
    let (at, got) = one(json!({"ports": ports, "flags": {"false": 0, "true": 1, "~1": 2}}));
    assert_eq!(at, "/flags/~01");
    assert_eq!(got.as_deref(), Some("\"~1\""));
    let error = maps(json!({"ports": ports, "nested": [{"true": 1}, {"false": 1, "no": 2}]}));
    assert_eq!(error.pointers(), ["/nested/1/no"]);
    assert_eq!(
        error.violations()[0].message,
        "invalid type: got the string \"no\", expected a boolean"
    );
    // Integer keys: the schema's pattern, or serde, names the key.
    for (key, at) in [
        ("http", "/ports/http"),
        ("99999", "/ports/99999"),
        ("a/b", "/ports/a~1b"),
    ] {
        let error = maps(json!({"ports": {"80": "web", key: "x"}}));
        assert_eq!(error.pointers(), [at], "{error}");
    }
}
