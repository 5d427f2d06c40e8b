//! Properties over generated schemas and calls: the acceptance check never
//! accepts what `jsonschema` rejects, and canonicalizing never touches a
//! valid call and never returns a call that does not validate.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use crate::schema::accept::Check;
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
                    Just(Some(json!({"type": "array", "items": {"type": "string"}}))),
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
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            // Unions, such as an internally tagged enum's objects, one of
            // which may leave its other members open.
            (inner.clone(), inner).prop_map(|(a, b)| json!({"anyOf": [a, b]})),
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
        let schema = crate::bind::canonical::normalize(&with_defs(schema), false);
        let validator = jsonschema::validator_for(&schema).unwrap();
        if Check::compile(&schema, 128, false).accepts(&value) {
            prop_assert!(validator.is_valid(&value), "{schema} accepted {value}");
        }
    }

    #[test]
    fn binding_plans_guard_without_moving_a_tolerant_position(schema in schema()) {
        let schema = with_defs(schema);
        prop_assert_eq!(
            crate::schema::plan::Plan::binding(&schema, false).positions(),
            crate::schema::plan::Plan::compile(&schema).positions()
        );
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
    let check = Check::compile(&schema, 64, false);
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

/// A schema shape whose valid values can be generated.
#[derive(Debug, Clone)]
enum Shape {
    String,
    Integer,
    Boolean,
    StringEnum,
    StringArray,
    Nullable(Box<Shape>),
    Array(Box<Shape>),
    Object(Vec<(String, Shape, bool)>),
    /// The same shape behind `$ref` (defined in `$defs`).
    Ref(Box<Shape>),
}

fn shape() -> impl Strategy<Value = Shape> {
    let leaf = prop_oneof![
        Just(Shape::String),
        Just(Shape::Integer),
        Just(Shape::Boolean),
        Just(Shape::StringEnum),
        Just(Shape::StringArray),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            inner.clone().prop_map(|s| Shape::Nullable(Box::new(s))),
            inner.clone().prop_map(|s| Shape::Array(Box::new(s))),
            inner.clone().prop_map(|s| Shape::Ref(Box::new(s))),
            proptest::collection::vec((inner, any::<bool>()), 1..5).prop_map(|members| {
                Shape::Object(
                    members
                        .into_iter()
                        .enumerate()
                        .map(|(i, (s, required))| (format!("p{i}"), s, required))
                        .collect(),
                )
            }),
        ]
    })
}

/// The JSON Schema of `shape`; `defs` collects what `$ref`s point to.
fn schema_of(shape: &Shape, defs: &mut Map<String, Value>) -> Value {
    match shape {
        Shape::String => json!({"type": "string"}),
        Shape::Integer => json!({"type": "integer"}),
        Shape::Boolean => json!({"type": "boolean"}),
        Shape::StringEnum => json!({"type": "string", "enum": ["red", "green"]}),
        Shape::StringArray => json!({"type": "array", "items": {"type": "string"}}),
        Shape::Nullable(inner) => json!({"anyOf": [schema_of(inner, defs), {"type": "null"}]}),
        Shape::Array(inner) => json!({"type": "array", "items": schema_of(inner, defs)}),
        Shape::Object(members) => {
            let properties: Map<String, Value> = members
                .iter()
                .map(|(name, s, _)| (name.clone(), schema_of(s, defs)))
                .collect();
            let required: Vec<&String> = members.iter().filter(|m| m.2).map(|m| &m.0).collect();
            json!({"type": "object", "properties": properties, "required": required,
                   "additionalProperties": false})
        }
        Shape::Ref(inner) => {
            let name = format!("D{}", defs.len());
            defs.insert(name.clone(), Value::Null);
            let target = schema_of(inner, defs);
            defs.insert(name.clone(), target);
            json!({"$ref": format!("#/$defs/{name}")})
        }
    }
}

/// A strategy for the values valid under `shape`.
fn valid(shape: &Shape) -> BoxedStrategy<Value> {
    let word =
        proptest::sample::select(vec!["a", "dotnet/eshop", "x y", "é", "[draft] notes", "1"]);
    match shape {
        Shape::String => word.prop_map(Value::from).boxed(),
        Shape::Integer => (-5i64..5).prop_map(Value::from).boxed(),
        Shape::Boolean => any::<bool>().prop_map(Value::from).boxed(),
        Shape::StringEnum => proptest::sample::select(vec!["red", "green"])
            .prop_map(Value::from)
            .boxed(),
        // Mostly one string: the arrays a near miss can stand for.
        Shape::StringArray => prop_oneof![
            3 => word.clone().prop_map(|w| Value::Array(vec![Value::from(w)])),
            1 => proptest::collection::vec(word.prop_map(Value::from), 0..3).prop_map(Value::Array),
        ]
        .boxed(),
        Shape::Nullable(inner) => prop_oneof![Just(Value::Null), valid(inner)].boxed(),
        Shape::Array(inner) => proptest::collection::vec(valid(inner), 0..3)
            .prop_map(Value::Array)
            .boxed(),
        Shape::Ref(inner) => valid(inner),
        Shape::Object(members) => {
            let parts: Vec<BoxedStrategy<Option<(String, Value)>>> = members
                .iter()
                .map(|(name, s, required)| {
                    let name = name.clone();
                    let present = valid(s).prop_map(move |v| Some((name.clone(), v)));
                    if *required {
                        present.boxed()
                    } else {
                        prop_oneof![Just(None), present].boxed()
                    }
                })
                .collect();
            parts
                .prop_map(|members| Value::Object(members.into_iter().flatten().collect()))
                .boxed()
        }
    }
}

/// The pointers where the schema says array of strings and `value` holds
/// one string that the core rule would wrap: the positions a near miss can
/// hide.
fn wrappable(shape: &Shape, value: &Value, at: String, out: &mut Vec<String>) {
    let strings = matches!(shape, Shape::StringArray)
        || matches!(shape, Shape::Array(inner) if matches!(**inner, Shape::String | Shape::StringEnum));
    match (shape, value) {
        (_, Value::Array(items)) if strings => {
            if let [Value::String(s)] = items.as_slice() {
                if crate::bind::rule::string_at_string_array(s) == crate::bind::rule::Verdict::Wrap
                {
                    out.push(at);
                }
            }
        }
        (Shape::Array(inner), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                wrappable(inner, item, format!("{at}/{i}"), out);
            }
        }
        (Shape::Nullable(inner) | Shape::Ref(inner), value) => wrappable(inner, value, at, out),
        (Shape::Object(members), Value::Object(values)) => {
            for (name, s, _) in members {
                if let Some(v) = values.get(name) {
                    wrappable(s, v, format!("{at}/{name}"), out);
                }
            }
        }
        _ => {}
    }
}

/// A shape, its schema, and a value valid under it.
fn valid_shaped_call() -> impl Strategy<Value = (Shape, Value, Value)> {
    shape()
        .prop_map(|s| Shape::Object(vec![("root".into(), s, true)]))
        .prop_flat_map(|s| {
            let mut defs = Map::new();
            let mut schema = schema_of(&s, &mut defs);
            schema["$defs"] = Value::Object(defs);
            let values = valid(&s);
            (Just(s), Just(schema), values)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, ..ProptestConfig::default() })]

    #[test]
    fn a_valid_call_against_a_foreign_schema_is_left_alone((_, schema, value) in valid_shaped_call()) {
        let canon = Canonicalizer::options().policy(Policy::all()).compile(&schema).unwrap();
        let mut call = value.clone();
        prop_assert_eq!(canon.canonicalize(&mut call), Ok(vec![]));
        prop_assert_eq!(&call, &value);
        // The single pass, guarded (keys and depth), binds its text as sent.
        let spec = crate::toolbox::ToolSpec::new("t", "", schema);
        let bound = spec.bind_str::<Value>(&value.to_string()).unwrap();
        prop_assert_eq!(bound.repairs, vec![]);
        prop_assert_eq!(bound.args, value);
    }

    #[test]
    fn near_misses_are_restored_exactly((shape, schema, value) in valid_shaped_call(), mask in any::<u16>()) {
        let mut positions = Vec::new();
        wrappable(&shape, &value, String::new(), &mut positions);
        // Some of the string-array positions hold a lone string instead
        // (the first always, when there is one).
        let chosen: Vec<String> = positions
            .iter()
            .enumerate()
            .filter(|(i, _)| *i == 0 || (mask >> (i % 16)) & 1 == 1)
            .map(|(_, p)| p.clone())
            .collect();
        let mut near = value.clone();
        for at in chosen.iter().rev() {
            let slot = near.pointer_mut(at).unwrap();
            let lone = slot[0].clone();
            *slot = lone;
        }
        // The single pass over the text, guarded, repairs the same.
        let spec = crate::toolbox::ToolSpec::new("t", "", schema.clone());
        let bound = spec.bind_str::<Value>(&near.to_string()).unwrap();
        prop_assert_eq!(&bound.args, &value);
        let canon = Canonicalizer::new(&schema).unwrap();
        let repairs = canon.canonicalize(&mut near).unwrap();
        prop_assert_eq!(&near, &value);
        let mut repaired: Vec<String> = repairs.iter().map(|r| r.pointer.to_string()).collect();
        let mut expected = chosen.clone();
        repaired.sort();
        expected.sort();
        prop_assert_eq!(&repaired, &expected);
        let mut single: Vec<String> = bound.repairs.iter().map(|r| r.pointer.to_string()).collect();
        single.sort();
        prop_assert_eq!(single, expected);
    }
}
