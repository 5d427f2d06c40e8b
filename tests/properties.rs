//! The binding invariants, as properties over generated calls:
//! - a call the strict binder accepts binds identically, with no repair;
//! - a call whose string-array positions were replaced by one of their
//!   strings binds to the strict binding of the corrected call, with exactly
//!   those repairs.

mod common;

use std::collections::BTreeMap;

use canon::toolbox::ToolSpec;
use canon::RepairRule;
use common::{Action, Filter, Lang, OneOrMany, Paging, Query, Rich, Target, Tree};
use proptest::prelude::*;
use proptest::sample::Index;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

fn text() -> impl Strategy<Value = String> {
    // Slashes, tildes, brackets and quotes exercise pointers and the rule.
    "[a-z0-9/~ \\[\\]\",]{0,8}"
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 0..4)
}

fn filter() -> impl Strategy<Value = Filter> {
    (
        texts(),
        prop::option::of(texts()),
        prop::option::of(any::<u32>()),
    )
        .prop_map(|(labels, globs, min_stars)| Filter {
            labels,
            globs,
            min_stars,
        })
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = (text(), texts()).prop_map(|(name, tags)| Tree {
        name,
        tags,
        children: vec![],
    });
    leaf.prop_recursive(3, 12, 3, |inner| {
        (text(), texts(), prop::collection::vec(inner, 0..3)).prop_map(|(name, tags, children)| {
            Tree {
                name,
                tags,
                children,
            }
        })
    })
}

fn rich() -> impl Strategy<Value = Rich> {
    let lang = prop_oneof![Just(Lang::Rust), Just(Lang::Go), Just(Lang::Python)];
    let first = (
        texts(),
        prop::option::of(texts()),
        prop::collection::hash_set(text(), 0..3),
        prop::collection::btree_set(text(), 0..3),
        prop::collection::vec(lang, 0..3),
        filter(),
        prop::option::of(filter()),
        prop::collection::vec(filter(), 0..3),
        prop::collection::hash_map(text(), texts(), 0..3),
        prop::collection::btree_map(text(), texts(), 0..3),
    );
    let second = (
        texts(),
        (text(), prop::option::of(text()), texts()),
        prop_oneof![
            text().prop_map(OneOrMany::One),
            texts().prop_map(OneOrMany::Many)
        ],
        prop::option::of(tree()),
        prop::option::of(prop_oneof![
            texts().prop_map(|names| Action::Label { names }),
            Just(Action::Close)
        ]),
        prop::option::of(prop_oneof![
            texts().prop_map(|names| Target::Repo { names }),
            text().prop_map(|org| Target::Org { org })
        ]),
        any::<u32>(),
        text(),
    );
    (first, second).prop_map(
        |(
            (
                names,
                maybe_names,
                set,
                ordered,
                langs,
                filter,
                maybe_filter,
                filters,
                groups,
                sorted,
            ),
            (original, (qtext, cursor, fields), either, tree, action, target, count, note),
        )| Rich {
            names,
            maybe_names,
            set,
            ordered,
            langs,
            filter,
            maybe_filter,
            filters,
            groups,
            sorted_groups: sorted,
            original,
            query: Query {
                text: qtext,
                paging: Paging { cursor, fields },
            },
            either,
            tree,
            action,
            target,
            count,
            note,
        },
    )
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The string-array positions of a `Rich` value, written out from the type
/// by hand (independently of the plan under test).
fn string_arrays(value: &Value) -> Vec<String> {
    let mut out = vec![];
    let mut push_if_array = |at: String| {
        if value.pointer(&at).is_some_and(Value::is_array) {
            out.push(at);
        }
    };
    for at in [
        "/names",
        "/maybe_names",
        "/set",
        "/ordered",
        "/langs",
        "/renamed",
        "/query/fields",
    ] {
        push_if_array(at.into());
    }
    let mut filters = vec!["/filter".to_owned(), "/maybe_filter".to_owned()];
    for i in 0..value["filters"].as_array().map_or(0, Vec::len) {
        filters.push(format!("/filters/{i}"));
    }
    for f in filters {
        push_if_array(format!("{f}/labels"));
        push_if_array(format!("{f}/path~1globs~0"));
    }
    for map in ["groups", "sorted_groups"] {
        for key in value[map].as_object().unwrap().keys() {
            push_if_array(format!("/{map}/{}", escape(key)));
        }
    }
    push_if_array("/action/Label/names".into());
    if value["target"]["kind"] == "Repo" {
        push_if_array("/target/names".into());
    }
    let mut trees = vec!["/tree".to_owned()];
    while let Some(at) = trees.pop() {
        push_if_array(format!("{at}/tags"));
        if let Some(Value::Array(children)) = value.pointer(&format!("{at}/children")) {
            trees.extend((0..children.len()).map(|i| format!("{at}/children/{i}")));
        }
    }
    out
}

/// True for strings the rule wraps: not blank, not the text of a list. The
/// generated strings use only `[a-z0-9/~ [],"]`, so a list is JSON array
/// text, possibly with one trailing comma after an item.
fn wrappable(s: &str) -> bool {
    let t = s.trim();
    // A comma with text on both sides: a comma-separated list, refused.
    let comma_list = |t: &str| {
        let part = |c: char| c != ',' && !c.is_whitespace();
        matches!((t.find(part), t.rfind(part)), (Some(a), Some(b)) if t[a..b].contains(','))
    };
    let json = |t: &str| serde_json::from_str::<Value>(t).is_ok_and(|v| v.is_array());
    !(t.is_empty() || comma_list(t) || (t.starts_with('[') && json(t)))
}

fn spec() -> &'static ToolSpec {
    static SPEC: std::sync::OnceLock<ToolSpec> = std::sync::OnceLock::new();
    SPEC.get_or_init(|| ToolSpec::of::<Rich>("rich", "every position kind"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn valid_calls_bind_identically_without_repairs(rich in rich()) {
        let value = serde_json::to_value(&rich).unwrap();
        let bound = spec().bind::<Rich>(&value).unwrap();
        prop_assert_eq!(&bound.args, &rich);
        prop_assert!(bound.repairs.is_empty());
        let bound = spec().bind_str::<Rich>(&value.to_string()).unwrap();
        prop_assert_eq!(&bound.args, &rich);
        prop_assert!(bound.repairs.is_empty());
    }

    #[test]
    fn near_misses_bind_to_the_corrected_call_with_exactly_those_repairs(
        rich in rich(),
        picks in prop::collection::vec((any::<bool>(), any::<Index>()), 64),
    ) {
        let value = serde_json::to_value(&rich).unwrap();
        let mut sent = value.clone();
        let mut corrected = value.clone();
        let mut expected = vec![];
        for (i, at) in string_arrays(&value).into_iter().enumerate() {
            let (replace, index) = picks[i % picks.len()];
            let items = value.pointer(&at).unwrap().as_array().unwrap();
            if !replace || items.is_empty() {
                continue;
            }
            let s = items[index.index(items.len())].as_str().unwrap().to_owned();
            if !wrappable(&s) {
                continue;
            }
            *sent.pointer_mut(&at).unwrap() = json!(s);
            *corrected.pointer_mut(&at).unwrap() = json!([s]);
            expected.push(at);
        }
        expected.sort();
        let strict: Rich = serde_json::from_value(corrected).unwrap();
        for bound in [
            spec().bind::<Rich>(&sent).unwrap(),
            spec().bind_str::<Rich>(&sent.to_string()).unwrap(),
        ] {
            prop_assert_eq!(&bound.args, &strict);
            let mut pointers: Vec<String> = bound.repairs.iter().map(|r| r.pointer.to_string()).collect();
            pointers.sort();
            prop_assert_eq!(&pointers, &expected);
            prop_assert!(bound.repairs.iter().all(|r| r.rule == RepairRule::ScalarToArray));
        }
    }
}

/// A small type for arbitrary JSON, where strict binding sometimes fails.
#[derive(Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Small {
    names: Vec<String>,
    tags: Option<Vec<String>>,
    note: Option<String>,
    n: Option<u8>,
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i16>().prop_map(Value::from),
        text().prop_map(Value::from),
        prop::collection::vec(text().prop_map(Value::from), 0..3).prop_map(Value::from),
        prop::collection::vec(any::<i8>().prop_map(Value::from), 0..3).prop_map(Value::from),
    ]
}

fn small_call() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("names"),
        Just("tags"),
        Just("note"),
        Just("n"),
        Just("other")
    ];
    prop::collection::btree_map(key, json_leaf(), 0..5).prop_map(|m: BTreeMap<&str, Value>| {
        Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn arbitrary_calls_agree_with_the_strict_binder(call in small_call()) {
        let spec = ToolSpec::of::<Small>("small", "");
        let canon = spec.bind::<Small>(&call);
        let text = spec.bind_str::<Small>(&call.to_string());
        match serde_json::from_value::<Small>(call.clone()) {
            Ok(strict) => {
                let bound = canon.unwrap();
                prop_assert_eq!(&bound.args, &strict);
                prop_assert!(bound.repairs.is_empty());
                prop_assert_eq!(text.unwrap().args, strict);
            }
            Err(_) => match canon {
                Ok(bound) => {
                    // Accepted only through repairs, each of which turned a
                    // string into a one-element array.
                    prop_assert!(!bound.repairs.is_empty());
                    let mut corrected = call.clone();
                    for repair in &bound.repairs {
                        let slot = corrected.pointer_mut(&repair.pointer).unwrap();
                        prop_assert!(slot.is_string());
                        *slot = json!([slot.take()]);
                    }
                    let strict: Small = serde_json::from_value(corrected).unwrap();
                    prop_assert_eq!(&bound.args, &strict);
                    prop_assert_eq!(text.unwrap().args, strict);
                }
                Err(error) => {
                    prop_assert!(!error.violations().is_empty());
                    prop_assert_eq!(text.err().unwrap(), error);
                }
            },
        }
    }
}

/// `#[tool]` implements `Deserialize` for its arguments by field index; it
/// must accept and reject exactly what serde's derive does.
#[canon::tool]
fn small_tool(names: Vec<String>, tags: Option<Vec<String>>, note: Option<String>, n: Option<u8>) {
    let _ = (names, tags, note, n);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn generated_arguments_bind_like_serde_derive(call in small_call()) {
        use canon::Tool;
        let text = call.to_string();
        let derived = serde_json::from_str::<Small>(&text);
        let generated = serde_json::from_str::<SmallToolArgs>(&text);
        prop_assert_eq!(derived.is_ok(), generated.is_ok(), "{}", text);
        if let (Ok(d), Ok(g)) = (&derived, &generated) {
            prop_assert_eq!(&d.names, &g.names);
            prop_assert_eq!(&d.tags, &g.tags);
            prop_assert_eq!(&d.note, &g.note);
            prop_assert_eq!(&d.n, &g.n);
        }
        // And binding through the tool agrees with binding the derived twin.
        let spec = ToolSpec::of::<Small>("small", "");
        let twin = spec.bind_str::<Small>(&text);
        let tool = SmallTool.bind_str(&text);
        prop_assert_eq!(twin.is_ok(), tool.is_ok(), "{}", text);
        match (twin, tool) {
            (Ok(t), Ok(b)) => {
                prop_assert_eq!(&t.args.names, &b.args.names);
                prop_assert_eq!(&t.args.tags, &b.args.tags);
                prop_assert_eq!(&t.repairs, &b.repairs);
            }
            (Err(t), Err(b)) => prop_assert_eq!(t.violations(), b.violations()),
            _ => unreachable!(),
        }
    }
}

#[test]
fn duplicate_and_positional_arguments_follow_serde() {
    use canon::Tool;
    for text in [
        r#"{"names": ["a"], "names": ["b"]}"#,
        r#"{"names": "a", "names": "b"}"#,
        r#"{"names": ["a"], "n": 1, "n": 2}"#,
    ] {
        assert!(serde_json::from_str::<Small>(text).is_err(), "{text}");
        assert!(
            serde_json::from_str::<SmallToolArgs>(text).is_err(),
            "{text}"
        );
        assert!(SmallTool.bind_str(text).is_err(), "{text}");
    }
    let positional = r#"[["a"], null, "x", 3]"#;
    let derived: Small = serde_json::from_str(positional).unwrap();
    let generated: SmallToolArgs = serde_json::from_str(positional).unwrap();
    assert_eq!(derived.names, generated.names);
    assert_eq!(derived.n, generated.n);
    assert!(serde_json::from_str::<SmallToolArgs>(r#"[["a"], null]"#).is_err());
}
