//! Tolerant positions are derived from the published schema, at any depth
//! and through `$ref`/`$defs`, and the schema itself stays exact.

mod common;

use canon::toolbox::{Plan, ToolSpec};
use canon::{RepairRule, Tool};
use common::{Action, Lang, OneOrMany, Rich, Survey, Target};
use serde_json::json;

#[test]
fn every_kind_of_position_is_found_in_the_schema() {
    let positions = Survey.spec().plan().positions();
    assert_eq!(
        positions,
        [
            "/action/Label/names",
            "/filter/labels",
            "/filter/path~1globs~0",
            "/filters/[]/labels",
            "/filters/[]/path~1globs~0",
            "/groups/{}",
            "/langs",
            "/maybe_filter/labels",
            "/maybe_filter/path~1globs~0",
            "/maybe_names",
            "/names",
            "/ordered",
            "/query/fields",
            "/set",
            "/target/names",
            "/tree/children/[]/children/...",
            "/tree/children/[]/tags",
            "/tree/tags",
        ]
    );
}

#[test]
fn a_union_that_accepts_a_string_is_left_alone() {
    let positions = Survey.spec().plan().positions();
    assert!(!positions.iter().any(|p| p.starts_with("/either")));
    let bound = Survey
        .bind(&json!({
            "names": [], "set": [], "ordered": [], "langs": [], "filter": {"labels": []},
            "filters": [], "groups": {}, "query": {"text": "t", "fields": []},
            "either": "one", "count": 1
        }))
        .unwrap();
    assert_eq!(bound.args.either, OneOrMany::One("one".into()));
    assert!(bound.repairs.is_empty());
}

#[test]
fn the_published_schema_keeps_plain_arrays() {
    insta::assert_json_snapshot!("survey_schema", Survey.input_schema());
    insta::assert_json_snapshot!("search_code_schema", common::SearchCode.input_schema());
    // No union is introduced at any tolerant position.
    let text = Survey.input_schema().to_string();
    assert!(!text.contains("\"oneOf\":[{\"type\":\"string\"}"));
}

#[test]
fn rich_serde_type_and_tool_have_the_same_positions() {
    let spec = ToolSpec::of::<Rich>("rich", "");
    let mut positions = spec.plan().positions();
    positions.retain(|p| !p.starts_with("/sorted_groups") && !p.starts_with("/renamed"));
    assert_eq!(positions, Survey.spec().plan().positions());
    let all = spec.plan().positions();
    assert!(all.contains(&"/sorted_groups/{}".to_owned()));
    assert!(all.contains(&"/renamed".to_owned()));
    assert!(!all.contains(&"/original".to_owned()));
}

fn near_miss() -> serde_json::Value {
    json!({
        "names": "a",
        "maybe_names": "b",
        "set": "c",
        "ordered": "d",
        "langs": "rust",
        "filter": {"labels": "bug", "path/globs~": "src/**"},
        "maybe_filter": {"labels": "p1"},
        "filters": [{"labels": ["x"]}, {"labels": "y", "path/globs~": "*.rs"}],
        "groups": {"team/a": "alice", "team~b": ["bob"]},
        "query": {"text": "t", "cursor": "c1", "fields": "title"},
        "either": "one",
        "tree": {"name": "root", "tags": "r", "children": [
            {"name": "kid", "tags": "k", "children": [
                {"name": "grandkid", "tags": "g", "children": []}
            ]}
        ]},
        "action": {"Label": {"names": "triage"}},
        "target": {"kind": "Repo", "names": "canon"},
        "count": 3
    })
}

#[test]
fn every_position_kind_is_repaired_with_an_exact_pointer() {
    for bound in [
        Survey.bind(&near_miss()).unwrap(),
        Survey.bind_str(&near_miss().to_string()).unwrap(),
    ] {
        let mut pointers: Vec<&str> = bound.repairs.iter().map(|r| &*r.pointer).collect();
        pointers.sort();
        assert_eq!(
            pointers,
            [
                "/action/Label/names",
                "/filter/labels",
                "/filter/path~1globs~0",
                "/filters/1/labels",
                "/filters/1/path~1globs~0",
                "/groups/team~1a",
                "/langs",
                "/maybe_filter/labels",
                "/maybe_names",
                "/names",
                "/ordered",
                "/query/fields",
                "/set",
                "/target/names",
                "/tree/children/0/children/0/tags",
                "/tree/children/0/tags",
                "/tree/tags",
            ]
        );
        assert!(bound
            .repairs
            .iter()
            .all(|r| r.rule == RepairRule::ScalarToArray));
        let a = bound.args;
        assert_eq!(a.names, ["a"]);
        assert_eq!(a.maybe_names.as_deref(), Some(&["b".to_owned()][..]));
        assert!(a.set.contains("c") && a.set.len() == 1);
        assert_eq!(a.ordered.into_iter().collect::<Vec<_>>(), ["d"]);
        assert_eq!(a.langs, [Lang::Rust]);
        assert_eq!(a.filter.labels, ["bug"]);
        assert_eq!(a.filter.globs, Some(vec!["src/**".to_owned()]));
        assert_eq!(a.maybe_filter.unwrap().labels, ["p1"]);
        assert_eq!(a.filters[0].labels, ["x"]);
        assert_eq!(a.filters[1].labels, ["y"]);
        assert_eq!(a.groups["team/a"], ["alice"]);
        assert_eq!(a.groups["team~b"], ["bob"]);
        assert_eq!(a.query.paging.fields, ["title"]);
        assert_eq!(a.query.paging.cursor.as_deref(), Some("c1"));
        assert_eq!(a.either, OneOrMany::One("one".into()));
        let tree = a.tree.unwrap();
        assert_eq!(tree.tags, ["r"]);
        assert_eq!(tree.children[0].children[0].tags, ["g"]);
        assert_eq!(
            a.action,
            Some(Action::Label {
                names: vec!["triage".into()]
            })
        );
        assert_eq!(
            a.target,
            Some(Target::Repo {
                names: vec!["canon".into()]
            })
        );
        assert_eq!(a.count, 3);
    }
}

#[test]
fn strings_that_merely_begin_with_a_bracket_are_wrapped() {
    let bound = common::SearchCode
        .bind(&json!({"data_source_names": "[draft] notes", "query": "q"}))
        .unwrap();
    assert_eq!(bound.args.data_source_names, ["[draft] notes"]);
    assert_eq!(bound.repairs.len(), 1);
}

#[test]
fn no_other_rewrite_happens() {
    let tool = common::SearchCode;
    // No comma splitting, and no guess that a list is one value: the
    // model is asked which it meant.
    let Err(error) = tool.bind(&json!({"data_source_names": "a, b", "query": "q"})) else {
        panic!("a comma-separated list is not one value");
    };
    assert_eq!(error.pointers(), ["/data_source_names"]);
    assert_eq!(
        error.violations()[0].kind,
        canon::toolbox::ViolationKind::CommaList
    );
    // No number/bool/string coercion, no null-to-empty, no renaming.
    for bad in [
        json!({"data_source_names": ["a"], "query": 5}),
        json!({"data_source_names": ["a"], "query": "q", "limit": "5"}),
        json!({"data_source_names": null, "query": "q"}),
        json!({"data_source_names": 7, "query": "q"}),
        json!({"data_source_names": true, "query": "q"}),
        json!({"data_source_names": {"a": "b"}, "query": "q"}),
        json!({"data_sources": ["a"], "query": "q"}),
        json!({"data_source_names": [1], "query": "q"}),
    ] {
        assert!(tool.bind(&bad).is_err(), "{bad} must be rejected");
        assert!(
            tool.bind_str(&bad.to_string()).is_err(),
            "{bad} must be rejected"
        );
    }
}

#[test]
fn a_missing_optional_parameter_binds_to_none_without_a_default() {
    let bound = common::SearchCode
        .bind(&json!({"data_source_names": "r", "query": "q"}))
        .unwrap();
    assert_eq!(bound.args.limit, None);
    let schema = common::SearchCode.input_schema();
    assert!(schema["properties"]["limit"].get("default").is_none());
    assert!(!schema.to_string().contains("\"default\""));
    let bound = Survey
        .bind(&json!({
            "names": [], "set": [], "ordered": [], "langs": [], "filter": {"labels": []},
            "filters": [], "groups": {}, "query": {"text": "t", "fields": []},
            "either": ["x"], "count": 1
        }))
        .unwrap();
    assert_eq!(bound.args.maybe_names, None);
    assert_eq!(bound.args.tree, None);
    assert!(bound.repairs.is_empty());
}

#[test]
fn null_for_an_optional_array_binds_to_none() {
    let bound = Survey
        .bind(&json!({
            "names": [], "maybe_names": null, "set": [], "ordered": [], "langs": [],
            "filter": {"labels": [], "path/globs~": null}, "filters": [], "groups": {},
            "query": {"text": "t", "fields": []}, "either": ["x"], "count": 1
        }))
        .unwrap();
    assert_eq!(bound.args.maybe_names, None);
    assert_eq!(bound.args.filter.globs, None);
}

#[test]
fn schemas_from_json_get_the_same_plan() {
    // Draft 2020-12 `$defs`, a nullable type array and a recursive `$ref`.
    let schema = json!({
        "type": "object",
        "properties": {
            "node": {"$ref": "#/$defs/Node"},
            "ids": {"type": ["array", "null"], "items": {"type": "string", "enum": ["a", "b"]}},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "string"}},
            "many": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "mixed": {"type": ["array", "string"], "items": {"type": "string"}},
            "numbers": {"type": "array", "items": {"type": "integer"}},
            "remote": {"$ref": "https://example.com/schema.json"}
        },
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}},
                    "next": {"$ref": "#/$defs/Node"}
                }
            },
            "Tag": {"type": "string"}
        }
    });
    let spec = ToolSpec::new("json", "", schema);
    assert_eq!(
        spec.plan().positions(),
        ["/ids", "/node/next/...", "/node/tags"]
    );
}

#[test]
fn the_guards_of_a_binding_plan_move_no_tolerant_position() {
    // A spec binds with guards on every array and object (depth, repeated
    // keys); its tolerant positions are those of the plain plan.
    for spec in [Survey.spec(), &ToolSpec::of::<Rich>("rich", "")] {
        assert_eq!(
            spec.plan().positions(),
            Plan::compile(spec.input_schema()).positions()
        );
    }
    // Maps, free JSON and nested objects guarded, nothing tolerant: the
    // plan is still empty.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Untolerant {
        labels: std::collections::HashMap<String, u32>,
        payload: serde_json::Value,
        hit: common::Hit,
    }
    let spec = ToolSpec::of::<Untolerant>("u", "");
    assert!(spec.plan().is_empty());
    assert!(spec.plan().positions().is_empty());
}
