//! `Canonicalizer` on foreign schemas, and the opt-in rules on both binding
//! paths: exact repairs, exact results, and what no rule may touch.

use canon::toolbox::ViolationKind;
use canon::{tool, Canonicalizer, Policy, RepairRule, Tool, ToolCall, ToolOutcome, Toolbox};
use serde_json::{json, Value};

fn canon(schema: Value, policy: Policy) -> Canonicalizer {
    Canonicalizer::options()
        .tool("t")
        .policy(policy)
        .compile(&schema)
        .unwrap()
}

/// Canonicalizes `args`; the repairs as `(pointer, rule)` and the result.
/// The repairs as `(pointer, rule)`, and the canonical call.
type Canonical = (Vec<(String, &'static str)>, Value);

fn run(c: &Canonicalizer, args: Value) -> Result<Canonical, Vec<String>> {
    let mut value = args.clone();
    match c.canonicalize(&mut value) {
        Ok(repairs) => Ok((
            repairs
                .iter()
                .map(|r| (r.pointer.to_string(), r.rule.as_str()))
                .collect(),
            value,
        )),
        Err(e) => {
            assert_eq!(value, args, "a rejected call is left as sent");
            Err(e.violations().iter().map(|v| v.to_string()).collect())
        }
    }
}

fn weather() -> Value {
    json!({
        "type": "object",
        "properties": {
            "cities": {"type": "array", "items": {"type": "string"}},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "scale": {"type": "number"},
            "metric": {"type": "boolean"},
            "units": {"type": "string", "enum": ["c", "f"]},
            "note": {"type": "string"},
            "filters": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
            "points": {"type": "array", "items": {"type": "number"}}
        },
        "required": ["cities"]
    })
}

#[test]
fn the_default_policy_is_the_core_rule_alone() {
    let c = canon(weather(), Policy::DEFAULT);
    assert_eq!(
        run(&c, json!({"cities": "Oslo", "filters": {"tags": "rain"}})).unwrap(),
        (
            vec![
                ("/cities".to_owned(), "scalar_to_array"),
                ("/filters/tags".to_owned(), "scalar_to_array")
            ],
            json!({"cities": ["Oslo"], "filters": {"tags": ["rain"]}})
        )
    );
    assert_eq!(
        run(
            &c,
            json!({"cities": ["Oslo"], "days": "3", "metric": "true", "note": null})
        )
        .unwrap_err(),
        [
            "/days: expected an integer, got the string \"3\"",
            "/metric: expected a boolean (true or false), got the string \"true\"",
            "/note: expected a string, got null",
        ]
    );
    assert_eq!(
        run(&c, json!({"cities": "[\"Oslo\", \"Bergen\"]"})).unwrap_err(),
        ["/cities: expected an array of strings, got a string holding the text of a list; send the array itself, not a string"]
    );
}

#[test]
fn a_valid_call_is_untouched_and_reports_nothing() {
    let c = canon(weather(), Policy::all());
    let call = json!({"cities": ["Oslo"], "days": 3, "scale": 1.5, "metric": true, "units": "c", "note": "x"});
    assert_eq!(run(&c, call.clone()).unwrap(), (vec![], call));
}

#[test]
fn each_opt_in_rule_repairs_only_where_the_schema_says_so() {
    let c = canon(weather(), Policy::all());
    let (repairs, value) = run(
        &c,
        json!({
            "cities": "[\"Oslo\", \"Bergen\"]",
            "days": "3",
            "scale": "2.5",
            "metric": "false",
            "note": null,
            "filters": "{\"tags\": \"rain\"}",
            "points": "[1, \"2\"]"
        }),
    )
    .unwrap();
    assert_eq!(
        repairs,
        [
            ("/cities".to_owned(), "json_text"),
            ("/days".to_owned(), "number_text"),
            ("/scale".to_owned(), "number_text"),
            ("/metric".to_owned(), "bool_text"),
            ("/note".to_owned(), "null_as_absent"),
            ("/filters".to_owned(), "json_text"),
            ("/filters/tags".to_owned(), "scalar_to_array"),
            ("/points".to_owned(), "json_text"),
            ("/points/1".to_owned(), "number_text"),
        ]
    );
    assert_eq!(
        value,
        json!({
            "cities": ["Oslo", "Bergen"], "days": 3, "scale": 2.5, "metric": false,
            "filters": {"tags": ["rain"]}, "points": [1, 2]
        })
    );
}

#[test]
fn rules_never_guess() {
    let c = canon(weather(), Policy::all());
    for (args, violation) in [
        // No comma splitting, no Python literals, no case folding, no
        // number words or padded numbers, no other spelling of booleans.
        (json!({"cities": "Oslo, Bergen", "days": "three"}), "/days: expected an integer, got the string \"three\""),
        (json!({"cities": "['Oslo', 'Bergen']"}), "/cities: expected an array of strings, got a string holding the text of a list; send the array itself, not a string"),
        (json!({"cities": ["Oslo"], "units": "C"}), "/units: expected one of \"c\", \"f\", got the string \"C\""),
        (json!({"cities": ["Oslo"], "days": " 3"}), "/days: expected an integer, got the string \" 3\""),
        (json!({"cities": ["Oslo"], "days": "2.5"}), "/days: expected an integer, got the string \"2.5\""),
        (json!({"cities": ["Oslo"], "metric": "True"}), "/metric: expected a boolean (true or false), got the string \"True\""),
        (json!({"cities": ["Oslo"], "metric": "yes"}), "/metric: expected a boolean (true or false), got the string \"yes\""),
        // A required property is never dropped.
        (json!({"cities": null}), "/cities: expected an array of strings, got null"),
        // JSON text of the wrong kind is not parsed.
        (json!({"cities": ["Oslo"], "filters": "[1]"}), "/filters: expected an object, got the string \"[1]\""),
    ] {
        let violations = run(&c, args.clone()).unwrap_err();
        assert!(violations.contains(&violation.to_owned()), "{args}: {violations:?}");
    }
    // A string where a string is admitted stays a string.
    let c = canon(
        json!({"properties": {"id": {"type": ["string", "integer"]}}}),
        Policy::all(),
    );
    assert_eq!(
        run(&c, json!({"id": "5"})).unwrap(),
        (vec![], json!({"id": "5"}))
    );
}

#[test]
fn a_repair_that_does_not_validate_is_undone() {
    let c = canon(weather(), Policy::all());
    // "30" is a number, but not one of 1..=14: the model is told what it
    // sent, and nothing is repaired.
    assert_eq!(
        run(&c, json!({"cities": "Oslo", "days": "30"})).unwrap_err(),
        ["/days: expected an integer, got the string \"30\""]
    );
    // Parsed text whose items do not fit is left as sent.
    assert_eq!(
        run(&c, json!({"cities": "[1, 2]"})).unwrap_err(),
        ["/cities: expected an array of strings, got a string holding the text of a list; send the array itself, not a string"]
    );
    // A nullable property keeps its null; null_as_absent only drops what
    // the schema does not admit.
    let c = canon(
        json!({"properties": {"n": {"type": "integer", "nullable": true}}}),
        Policy::all(),
    );
    assert_eq!(
        run(&c, json!({"n": null})).unwrap(),
        (vec![], json!({"n": null}))
    );
}

#[test]
fn a_wrap_that_does_not_validate_is_taken_back_out() {
    let c = canon(
        json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "tags": {"type": "array", "items": {"type": "string"}}
            }
        }),
        Policy::DEFAULT,
    );
    // One string cannot be a pair: that wrap is undone, the other kept.
    assert_eq!(
        run(&c, json!({"tags": "x"})).unwrap().1,
        json!({"tags": ["x"]})
    );
    // Refused, the call is left as sent (`run` checks it): both strings
    // are taken back out of the arrays they were made.
    assert_eq!(
        run(&c, json!({"pair": "a", "tags": "x"})).unwrap_err(),
        ["/pair: expected an array of strings, got the string \"a\""]
    );
}

#[test]
fn draft_07_and_openapi_schemas_are_understood() {
    let c = canon(
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "labels": {"$ref": "#/definitions/Labels"},
                "owner": {"type": "string", "nullable": true},
                "kind": {"type": ["string", "null"], "enum": ["a", "b", null]}
            },
            "definitions": {"Labels": {"type": "array", "items": {"type": "string"}}}
        }),
        Policy::DEFAULT,
    );
    assert_eq!(
        run(&c, json!({"labels": "bug", "owner": null, "kind": null})).unwrap(),
        (
            vec![("/labels".to_owned(), "scalar_to_array")],
            json!({"labels": ["bug"], "owner": null, "kind": null})
        )
    );
}

#[test]
fn schemas_it_cannot_follow_leave_their_positions_alone() {
    let schema = json!({
        "type": "object",
        "properties": {
            "remote": {"$ref": "https://example.com/schemas/labels.json"},
            "dangling": {"$ref": "#/$defs/Nowhere"},
            "names": {"type": "array", "items": {"type": "string"}},
            "tree": {"$ref": "#/$defs/Tree"}
        },
        "required": ["names"],
        "$defs": {"Tree": {
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}},
                           "kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}
        }}
    });
    let c = canon(schema, Policy::all());
    assert_eq!(
        c.plan().positions(),
        // `/`: json_text may parse arguments sent as the text of an object.
        [
            "/",
            "/names",
            "/tree",
            "/tree/kids",
            "/tree/kids/[]/...",
            "/tree/tags"
        ]
    );
    let (repairs, value) = run(
        &c,
        json!({"remote": "x", "dangling": 5, "names": "a",
               "tree": {"tags": "t", "kids": [{"kids": [{"tags": "deep"}]}]}}),
    )
    .unwrap();
    assert_eq!(
        repairs,
        [
            ("/names".to_owned(), "scalar_to_array"),
            ("/tree/tags".to_owned(), "scalar_to_array"),
            ("/tree/kids/0/kids/0/tags".to_owned(), "scalar_to_array"),
        ]
    );
    assert_eq!(value["remote"], "x");
    // The rest of the schema still validates.
    assert_eq!(
        run(&c, json!({"remote": "x"})).unwrap_err(),
        ["/names: required, expected an array of strings"]
    );
}

#[test]
fn closed_objects_refuse_undeclared_properties() {
    let schema = json!({"type": "object", "properties": {"key": {"type": "string"}}});
    let open = canon(schema.clone(), Policy::DEFAULT);
    assert!(run(&open, json!({"key": "C", "type": "major"})).is_ok());
    let closed = Canonicalizer::options()
        .tool("t")
        .closed_objects(true)
        .compile(&schema)
        .unwrap();
    assert!(closed.closes_objects());
    assert_eq!(
        run(&closed, json!({"key": "C", "keys": "major"})).unwrap_err(),
        ["/keys: unknown parameter; did you mean `key`?"]
    );
}

#[test]
fn a_schema_that_is_not_one_is_an_error() {
    let error = Canonicalizer::new(&json!({"type": 5})).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the schema is not a valid JSON Schema: "),
        "{error}"
    );
}

#[test]
fn violations_carry_kinds_and_the_tool_name() {
    let c = canon(weather(), Policy::DEFAULT);
    let error = c.canonicalize(&mut json!({"days": 3})).unwrap_err();
    assert_eq!(error.tool(), "t");
    assert_eq!(error.violations()[0].kind, ViolationKind::Missing);
    assert_eq!(
        error.to_string(),
        "The call to `t` was not run. /cities: required, expected an array of strings. Fix these and call `t` again."
    );
}

/// Forecast.
#[tool(repair(number_text, null_as_absent))]
fn forecast(city: String, days: u32, #[arg(default = false)] metric: bool) -> String {
    format!("{city} {days} {metric}")
}

/// Forecast, default policy.
#[tool]
fn plain_forecast(city: String, days: u32, #[arg(default = false)] metric: bool) -> String {
    format!("{city} {days} {metric}")
}

#[test]
fn tool_attribute_enables_rules_for_one_tool() {
    assert!(Forecast.spec().policy().contains(RepairRule::NumberText));
    let bound = Forecast
        .bind(&json!({"city": "Oslo", "days": "3", "metric": null}))
        .unwrap();
    assert_eq!((bound.args.days, bound.args.metric), (3, false));
    let rules: Vec<&str> = bound.repairs.iter().map(|r| r.rule.as_str()).collect();
    assert_eq!(rules, ["number_text", "null_as_absent"]);
    // Text arguments take the same way.
    let bound = Forecast
        .bind_str(r#"{"city": "Oslo", "days": "3"}"#)
        .unwrap();
    assert_eq!(bound.args.days, 3);
    // bool_text is not enabled for this tool.
    let Err(error) = Forecast.bind(&json!({"city": "Oslo", "days": 3, "metric": "true"})) else {
        panic!("bool_text is not enabled")
    };
    assert_eq!(error.pointers(), ["/metric"]);
    // The Rust type still has the last word: "5000000000" is a number but
    // not a u32.
    let Err(error) = Forecast.bind(&json!({"city": "Oslo", "days": "5000000000"})) else {
        panic!("5000000000 is not a u32")
    };
    assert_eq!(error.pointers(), ["/days"]);
    assert!(PlainForecast
        .bind(&json!({"city": "Oslo", "days": "3"}))
        .is_err());
}

#[tokio::test]
async fn a_toolbox_policy_applies_to_every_tool() {
    let mut toolbox = Toolbox::new().with_policy(Policy::DEFAULT.with(RepairRule::BoolText));
    toolbox.add(PlainForecast).unwrap().add(Forecast).unwrap();
    let result = toolbox
        .call(ToolCall::new(
            "1",
            "plain_forecast",
            r#"{"city": "Oslo", "days": 2, "metric": "true"}"#,
        ))
        .await;
    assert_eq!(
        result.outcome,
        ToolOutcome::Ran {
            output: json!("Oslo 2 true"),
            repairs: vec![canon::Repair::new("/metric", RepairRule::BoolText)].into()
        }
    );
    // The tool's own rules and the toolbox's add up.
    let result = toolbox
        .call(ToolCall::new(
            "2",
            "forecast",
            json!({"city": "Oslo", "days": "2", "metric": "true"}),
        ))
        .await;
    assert!(matches!(result.outcome, ToolOutcome::Ran { ref repairs, .. } if repairs.len() == 2));
    assert_eq!(
        toolbox.stats()["forecast"]
            .repairs
            .keys()
            .copied()
            .collect::<Vec<_>>(),
        [RepairRule::NumberText, RepairRule::BoolText]
    );
    let message = Toolbox::new().with_repair_notes(true).message(&result);
    assert_eq!(message.text, "Oslo 2 true");
    assert_eq!(message.note.as_deref(), Some("(Note: /days was sent as a string and read as a number; send a number; /metric was sent as a string and read as a boolean; send true or false.)"));
}

/// Calls the original schema refuses, which a reading of it that dropped
/// a reference or took a keyword for an annotation let through: each is
/// refused, and the call the schema takes binds.
#[test]
fn references_and_drafts_are_read_as_the_validator_reads_them() {
    let integer = json!({"type": "integer"});
    let cases = [
        // A reference through the schema's own `$id`.
        json!({
            "$id": "https://example.com/tool.json",
            "type": "object",
            "properties": {"n": {"$ref": "https://example.com/tool.json#/$defs/N"}},
            "$defs": {"N": integer}
        }),
        // A percent-encoded pointer.
        json!({
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/Page%20Size"}},
            "$defs": {"Page Size": integer}
        }),
        // A reference resolved against a nested `$id`.
        json!({
            "type": "object",
            "properties": {"n": {
                "$id": "https://example.com/size.json",
                "$ref": "#/$defs/Size",
                "$defs": {"Size": integer}
            }}
        }),
        // A relative reference under the root's `$id`.
        json!({
            "$id": "https://example.com/tool.json",
            "type": "object",
            "properties": {"n": {"$ref": "tool.json#/$defs/N"}},
            "$defs": {"N": integer}
        }),
    ];
    for schema in cases {
        let canon = Canonicalizer::new(&schema).unwrap();
        assert!(
            canon.canonicalize(&mut json!({"n": "DROP TABLE"})).is_err(),
            "{schema}"
        );
        assert_eq!(
            canon.canonicalize(&mut json!({"n": 3})),
            Ok(vec![]),
            "{schema}"
        );
    }

    // A reference to another document is still read as anything, beside
    // the root's `$id`, a nested one, or an `$id` that is only data.
    for schema in [
        json!({"$id": "https://example.com/tool.json", "type": "object",
               "properties": {"n": {"$ref": "common.json#/$defs/N"}}}),
        json!({"type": "object", "properties": {
            "a": {"$id": "https://example.com/a.json", "type": "string"},
            "n": {"$ref": "https://other.example/defs.json#/N"}}}),
        json!({"type": "object", "properties": {
            "cfg": {"type": "object", "default": {"$id": "abc"}},
            "n": {"$ref": "https://other.example/defs.json#/N"}}}),
    ] {
        let canon = Canonicalizer::new(&schema).unwrap();
        assert_eq!(
            canon.canonicalize(&mut json!({"n": "anything"})),
            Ok(vec![]),
            "{schema}"
        );
    }

    // Draft 4 counts no number with a fraction as an integer, `1.0`
    // included, at the root's draft or an embedded one.
    let draft4 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"]
    });
    let canon = Canonicalizer::new(&draft4).unwrap();
    assert!(!canon.is_valid(&json!({"n": 1.0})));
    assert!(canon.canonicalize(&mut json!({"n": 1.0})).is_err());
    assert_eq!(canon.canonicalize(&mut json!({"n": 1})), Ok(vec![]));

    // Drafts 6 and 7 assert `contentEncoding` and `contentMediaType`.
    for (keyword, value, valid) in [
        ("contentEncoding", "base64", "e30="),
        ("contentMediaType", "application/json", "{}"),
    ] {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"b": {"type": "string", keyword: value}}
        });
        let canon = Canonicalizer::new(&schema).unwrap();
        assert!(!canon.is_valid(&json!({"b": "%%%{"})), "{schema}");
        assert!(
            canon.canonicalize(&mut json!({"b": "%%%{"})).is_err(),
            "{schema}"
        );
        assert_eq!(
            canon.canonicalize(&mut json!({"b": valid})),
            Ok(vec![]),
            "{schema}"
        );
    }
}
