//! Properties over generated schemas and calls: the acceptance check never
//! accepts what `jsonschema` rejects, and canonicalizing never touches a
//! valid call and never returns a call that does not validate.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::check::Check;
use crate::{Canonicalizer, Policy};

const NAMES: [&str; 4] = ["a", "b", "c", "d/e"];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "number"})),
        Just(json!({"type": "boolean"})),
        Just(json!({"type": "null"})),
        Just(json!({"type": ["string", "null"]})),
        Just(json!({"type": ["integer", "boolean"]})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"enum": [1, "a", null]})),
        Just(json!({"const": "a"})),
        Just(json!({"type": "integer", "minimum": 0, "maximum": 10})),
        Just(json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 2.5})),
        Just(json!({"type": "string", "minLength": 1, "maxLength": 3})),
        Just(json!({"type": "string", "pattern": "^a"})),
        Just(json!({"type": "string", "format": "date"})),
        Just(json!({"type": "array", "items": {"type": "string"}})),
        Just(json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2})),
        Just(json!({"type": "array", "items": {"type": "integer"}})),
        Just(json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})),
        Just(json!({"type": "integer", "nullable": true})),
        Just(json!({"$ref": "#/$defs/Names"})),
        Just(json!({"$ref": "https://example.com/x.json"})),
        Just(json!({})),
        Just(json!(true)),
        Just(json!({"not": {"type": "string"}})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                proptest::collection::btree_map(
                    proptest::sample::select(&NAMES[..]),
                    inner.clone(),
                    0..4
                ),
                proptest::collection::btree_set(proptest::sample::select(&NAMES[..]), 0..3),
                prop_oneof![
                    Just(None),
                    Just(Some(json!(false))),
                    Just(Some(json!(true))),
                    Just(Some(json!({"type": "integer"}))),
                ],
                any::<bool>(),
            )
                .prop_map(|(properties, required, additional, typed)| {
                    let mut schema = Map::new();
                    if typed {
                        schema.insert("type".into(), json!("object"));
                    }
                    let properties: Map<String, Value> = properties
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect();
                    schema.insert("properties".into(), Value::Object(properties));
                    schema.insert(
                        "required".into(),
                        json!(required.into_iter().collect::<Vec<_>>()),
                    );
                    if let Some(additional) = additional {
                        schema.insert("additionalProperties".into(), additional);
                    }
                    Value::Object(schema)
                }),
            inner.prop_map(|items| json!({"type": "array", "items": items})),
        ]
    })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..20).prop_map(Value::from),
        prop_oneof![Just(0.5), Just(2.0), Just(-1.5), Just(1e20)].prop_map(Value::from),
        proptest::sample::select(vec![
            "",
            "a",
            "b",
            "ab",
            "abcd",
            "3",
            "2.5",
            "-1",
            "true",
            "false",
            "null",
            "[\"a\"]",
            "[1, 2]",
            "{\"a\": 1}",
            "['a']",
            " 3",
            "2020-01-01",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(proptest::sample::select(&NAMES[..]), inner, 0..4)
                .prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
        ]
    })
}

fn with_defs(schema: Value) -> Value {
    match schema {
        Value::Object(mut obj) => {
            obj.insert(
                "$defs".into(),
                json!({"Names": {"type": "array", "items": {"type": "string"}}}),
            );
            Value::Object(obj)
        }
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn the_check_accepts_only_what_the_validator_accepts(schema in schema(), value in value()) {
        let schema = crate::canonical::normalize(&with_defs(schema), false);
        let validator = jsonschema::validator_for(&schema).unwrap();
        if Check::compile(&schema).accepts(&value) {
            prop_assert!(validator.is_valid(&value), "{schema} accepted {value}");
        }
    }

    #[test]
    fn canonicalizing_keeps_valid_calls_and_returns_valid_ones(schema in schema(), value in value()) {
        let schema = with_defs(schema);
        let canon = Canonicalizer::options().policy(Policy::all()).compile(&schema).unwrap();
        let validator = jsonschema::validator_for(canon.schema()).unwrap();
        let mut repaired = value.clone();
        match canon.canonicalize(&mut repaired) {
            Ok(repairs) => {
                prop_assert!(validator.is_valid(&repaired), "{schema}: {value} became {repaired}");
                if validator.is_valid(&value) {
                    prop_assert!(repairs.is_empty());
                    prop_assert_eq!(&repaired, &value);
                } else {
                    prop_assert!(!repairs.is_empty());
                    // The repaired call is one a strict binder accepts as is.
                    let mut again = repaired.clone();
                    prop_assert_eq!(canon.canonicalize(&mut again).unwrap(), vec![]);
                }
            }
            Err(error) => {
                prop_assert!(!validator.is_valid(&value));
                prop_assert!(!error.violations().is_empty());
                prop_assert_eq!(&repaired, &value);
            }
        }
    }
}

#[test]
fn the_check_accepts_typical_calls() {
    let schema = json!({
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string"}},
            "query": {"type": "string"},
            "limit": {"type": ["integer", "null"], "minimum": 0},
            "order": {"type": "string", "enum": ["asc", "desc"]},
            "exact": {"type": "boolean"}
        },
        "required": ["names", "query"],
        "additionalProperties": false
    });
    let check = Check::compile(&schema);
    assert!(check.accepts(
        &json!({"names": ["a"], "query": "q", "limit": 5, "order": "asc", "exact": true})
    ));
    assert!(check.accepts(&json!({"names": [], "query": "q", "limit": null})));
    assert!(!check.accepts(&json!({"names": "a", "query": "q"})));
    assert!(!check.accepts(&json!({"names": ["a"]})));
    assert!(!check.accepts(&json!({"names": ["a"], "query": "q", "extra": 1})));
    assert!(!check.accepts(&json!({"names": ["a"], "query": "q", "limit": -1})));
}

#[test]
fn canonicalizing_a_valid_call_does_not_allocate() {
    let schema = json!({
        "type": "object",
        "properties": {
            "data_source_names": {"type": "array", "items": {"type": "string"}},
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "order": {"type": "string", "enum": ["relevance", "recent"]},
            "exact": {"type": "boolean"},
            "filters": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 64}}}
        },
        "required": ["data_source_names", "query"],
        "additionalProperties": false
    });
    let mut call = json!({
        "data_source_names": ["dotnet/eshop", "dotnet/runtime"], "query": "basket",
        "limit": 10, "order": "recent", "exact": false, "filters": {"path": "src/"}
    });
    for policy in [Policy::DEFAULT, Policy::all()] {
        let canon = Canonicalizer::options()
            .policy(policy)
            .compile(&schema)
            .unwrap();
        let info = allocation_counter::measure(|| {
            assert_eq!(canon.canonicalize(&mut call).map(|r| r.len()), Ok(0));
        });
        assert_eq!(info.count_total, 0, "{policy}");
        // The counter counts: a repair allocates.
        let mut near = json!({"data_source_names": "dotnet/eshop", "query": "basket"});
        let info = allocation_counter::measure(|| {
            canon.canonicalize(&mut near).unwrap();
        });
        assert!(info.count_total > 0);
    }
}
