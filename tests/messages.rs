//! Every kind of message a model is shown when a call is refused, as
//! snapshots: the `Display` text (what is sent back) and `to_json()`.
//!
//! Regenerate with `INSTA_UPDATE=always cargo test --test messages`, then
//! read each `tests/snapshots/messages__*.snap`: it must read well to a
//! model.

mod common;

use canon::toolbox::ToolSpec;
use canon::{tool, BindError, Canonicalizer, Limits, Policy, Tool};
use common::SearchCode;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// The text sent back to the model, then the same as JSON.
fn shown(error: &BindError) -> String {
    format!(
        "{error}\n\n{}",
        serde_json::to_string_pretty(&error.to_json()).unwrap()
    )
}

/// The refusal of `args` by `search_code`, from a value and from text
/// alike.
fn search(args: Value) -> String {
    let from_value = SearchCode.bind(&args).expect_err("must be refused");
    let from_text = SearchCode.bind_str(&args.to_string()).err().unwrap();
    assert_eq!(from_value, from_text);
    shown(&from_value)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Look up a player's statistics.
#[tool]
fn player_stats(
    /// The player's name.
    player: String,
    /// Which statistics, such as "points".
    stats: Vec<String>,
) -> usize {
    player.len() + stats.len()
}

/// Tune the engine; every number has the range of its Rust type.
#[tool]
#[allow(clippy::too_many_arguments)]
fn tune(
    /// How many runs.
    runs: u32,
    /// A level.
    level: u8,
    /// A signed offset.
    offset: i8,
    /// A 32-bit ratio.
    ratio: f32,
    /// Weights.
    weights: Vec<f64>,
    /// Sample ids.
    ids: Vec<u64>,
    /// Points.
    points: Vec<Point>,
    /// Rows of a matrix.
    rows: Vec<Vec<i64>>,
) -> usize {
    let _ = (runs, level, offset, ratio, weights, points, rows);
    ids.len()
}

/// Take nothing.
#[tool]
fn ping() -> usize {
    0
}

fn tune_args(changes: Value) -> Value {
    let mut args = json!({
        "runs": 1, "level": 1, "offset": 0, "ratio": 0.5,
        "weights": [], "ids": [], "points": [], "rows": []
    });
    for (k, v) in changes.as_object().unwrap() {
        match v {
            Value::Null => args.as_object_mut().unwrap().remove(k),
            v => args.as_object_mut().unwrap().insert(k.clone(), v.clone()),
        };
    }
    args
}

fn tune_refuses(changes: Value) -> String {
    let args = tune_args(changes);
    let from_value = Tune.bind(&args).expect_err("must be refused");
    let from_text = Tune.bind_str(&args.to_string()).err().unwrap();
    assert_eq!(from_value, from_text);
    shown(&from_value)
}

fn stats_refuses(stats: Value) -> String {
    let args = json!({"player": "LeBron James", "stats": stats});
    let error = PlayerStats.bind(&args).expect_err("must be refused");
    assert_eq!(
        PlayerStats.bind_str(&args.to_string()).err().unwrap(),
        error
    );
    shown(&error)
}

fn foreign(schema: Value, args: Value) -> String {
    let canon = Canonicalizer::options()
        .tool("lookup")
        .compile(&schema)
        .unwrap();
    let mut args = args;
    shown(&canon.canonicalize(&mut args).expect_err("must be refused"))
}

// The core rule's refusals at an array of strings.

#[test]
fn comma_separated_list() {
    insta::assert_snapshot!(stats_refuses(json!("points, assists, minutes")));
}

#[test]
fn comma_separated_list_of_one_value() {
    insta::assert_snapshot!(search(
        json!({"data_source_names": "Paris, France", "query": "q"})
    ));
}

#[test]
fn comma_separated_list_cut_to_the_preview() {
    let long: Vec<String> = (0..40).map(|i| format!("statistic_{i}")).collect();
    insta::assert_snapshot!(stats_refuses(json!(long.join(", "))));
}

#[test]
fn json_array_text() {
    insta::assert_snapshot!(stats_refuses(json!("[\"points\", \"assists\"]")));
}

#[test]
fn list_literal_text() {
    insta::assert_snapshot!(stats_refuses(json!("['points', 'assists']")));
}

#[test]
fn bracketed_text_that_is_not_json() {
    insta::assert_snapshot!(stats_refuses(json!("[points, assists]")));
}

#[test]
fn blank_string() {
    insta::assert_snapshot!(stats_refuses(json!("  ")));
}

// List text at arrays of other items.

#[test]
fn list_text_at_an_array_of_numbers() {
    insta::assert_snapshot!(tune_refuses(json!({"weights": "[0.4, 0.6]"})));
}

#[test]
fn list_text_at_an_array_of_objects() {
    insta::assert_snapshot!(tune_refuses(
        json!({"points": "[{'x': 1, 'y': 2}, {'x': 3, 'y': 4}]"})
    ));
}

#[test]
fn list_text_at_an_array_of_arrays() {
    insta::assert_snapshot!(tune_refuses(json!({"rows": "[[1, 2], [3, 4]]"})));
}

#[test]
fn comma_separated_list_at_an_array_of_numbers() {
    insta::assert_snapshot!(tune_refuses(json!({"weights": "43.653225, -79.383186"})));
}

// Ranges of Rust number types.

#[test]
fn integer_above_its_range() {
    insta::assert_snapshot!(tune_refuses(json!({"runs": 5_000_000_000u64})));
}

#[test]
fn integer_above_a_published_maximum() {
    insta::assert_snapshot!(tune_refuses(json!({"level": 300})));
}

#[test]
fn negative_for_unsigned() {
    insta::assert_snapshot!(tune_refuses(json!({"level": -1})));
}

#[test]
fn negative_zero_for_unsigned() {
    // `-0` is 0, as JSON Schema compares numbers: only the missing
    // `offset` is reported.
    insta::assert_snapshot!(tune_refuses(json!({"runs": -0.0, "offset": null})));
}

#[test]
fn fraction_for_an_integer() {
    insta::assert_snapshot!(tune_refuses(json!({"runs": 3.5})));
}

#[test]
fn signed_integer_below_its_range() {
    insta::assert_snapshot!(tune_refuses(json!({"offset": -129})));
}

#[test]
fn integer_items_out_of_range() {
    insta::assert_snapshot!(tune_refuses(json!({"ids": [1, -2, 3.25]})));
}

#[test]
fn double_for_a_32_bit_float() {
    insta::assert_snapshot!(tune_refuses(
        json!({"ratio": 1.797_693_134_862_315_7e308, "offset": null})
    ));
}

#[test]
fn number_out_of_range_in_text() {
    let text = r#"{"data_source_names": ["a"], "query": "q", "limit": 1e400}"#;
    insta::assert_snapshot!(shown(&SearchCode.bind_str(text).err().unwrap()));
}

// The validator's violations, phrased.

#[test]
fn missing_and_wrong_type() {
    insta::assert_snapshot!(search(json!({"data_source_names": ["a"], "limit": "ten"})));
}

#[test]
fn unknown_with_did_you_mean() {
    insta::assert_snapshot!(search(
        json!({"data_source_names": ["a"], "query": "q", "limt": 5})
    ));
}

#[test]
fn unknown_listing_the_parameters() {
    insta::assert_snapshot!(search(
        json!({"data_source_names": ["a"], "query": "q", "zzz": 5})
    ));
}

#[test]
fn unknown_for_a_tool_without_parameters() {
    let error = Ping.bind(&json!({"host": "example.com"})).err().unwrap();
    insta::assert_snapshot!(shown(&error));
}

#[test]
fn not_an_object() {
    insta::assert_snapshot!(search(json!("dotnet/eshop")));
}

#[test]
fn long_value_preview() {
    insta::assert_snapshot!(search(json!({
        "data_source_names": ["a"],
        "query": "q",
        "limit": "a limit written out in words at great length, far longer than any preview"
    })));
}

#[test]
fn string_enum_not_allowed() {
    let args = json!({
        "names": [], "set": [], "ordered": [], "langs": ["cobol"],
        "filter": {"labels": []}, "filters": [], "groups": {},
        "query": {"text": "t", "fields": []}, "either": "x", "count": 1
    });
    let error = common::Survey.bind(&args).err().unwrap();
    insta::assert_snapshot!(shown(&error));
}

#[test]
fn constraint() {
    let args = json!({
        "names": [], "set": [], "ordered": [], "langs": [],
        "filter": {"labels": [], "min_stars": -1}, "filters": [], "groups": {},
        "query": {"text": "t", "fields": []}, "either": "x", "count": 1
    });
    let error = common::Survey.bind(&args).err().unwrap();
    insta::assert_snapshot!(shown(&error));
}

#[test]
fn integer_enum_given_a_string() {
    // Line 4239's kind in the corpus: one violation, not a type and an enum
    // violation saying the same.
    insta::assert_snapshot!(foreign(
        json!({"type": "object", "properties": {"season": {"type": "integer", "enum": [2019, 2020, 2021]}}}),
        json!({"season": "2020"})
    ));
}

#[test]
fn empty_enum() {
    insta::assert_snapshot!(foreign(
        json!({"type": "object", "properties": {"mode": {"enum": []}, "tags": {"type": "array", "items": {"enum": []}}}}),
        json!({"mode": "fast", "tags": ["a"]})
    ));
}

#[test]
fn schema_sent_as_arguments() {
    let schema = SearchCode.input_schema().clone();
    insta::assert_snapshot!(search(schema));
}

#[test]
fn schema_sent_to_a_tool_without_parameters() {
    let error = Ping
        .bind(&json!({"type": "object", "properties": {}}))
        .err()
        .unwrap();
    insta::assert_snapshot!(shown(&error));
}

// What the text itself breaks.

#[test]
fn duplicate_keys() {
    let text = r#"{"data_source_names": ["a"], "query": "q", "query": "r"}"#;
    insta::assert_snapshot!(shown(&SearchCode.bind_str(text).err().unwrap()));
}

#[test]
fn duplicate_nested_keys() {
    let text = r#"{"player": "p", "stats": [], "extra": {"a": 1, "a": 2}}"#;
    insta::assert_snapshot!(shown(&PlayerStats.bind_str(text).err().unwrap()));
}

#[test]
fn malformed_json() {
    insta::assert_snapshot!(shown(
        &SearchCode
            .bind_str(r#"{"query": "q", "data_source_names": ["a"]"#)
            .err()
            .unwrap()
    ));
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Echo {
    /// Words to repeat.
    pub words: Vec<String>,
}

fn echo(limits: Limits) -> ToolSpec {
    ToolSpec::of::<Echo>("echo", "Repeat words.").with_limits(limits)
}

#[test]
fn too_large() {
    let spec = echo(Limits {
        max_text_bytes: 32,
        ..Limits::default()
    });
    let text = json!({"words": vec!["a"; 20]}).to_string();
    insta::assert_snapshot!(shown(&spec.bind_str::<Echo>(&text).err().unwrap()));
}

#[test]
fn too_deep() {
    let spec = echo(Limits {
        max_depth: 3,
        ..Limits::default()
    });
    let text = r#"{"words": [[["a"]]]}"#;
    insta::assert_snapshot!(shown(&spec.bind_str::<Echo>(text).err().unwrap()));
}

#[test]
fn too_many_repairs() {
    let canon = Canonicalizer::options()
        .tool("lookup")
        .policy(Policy::all())
        .limits(Limits {
            max_repairs: 2,
            ..Limits::default()
        })
        .compile(&json!({"type": "object", "properties": {
            "a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}
        }}))
        .unwrap();
    let mut args = json!({"a": "1", "b": "2", "c": "3"});
    insta::assert_snapshot!(shown(&canon.canonicalize(&mut args).err().unwrap()));
}

#[test]
fn more_violations_than_listed() {
    let mut args = json!({"data_source_names": ["a"], "query": "q"});
    for i in 0..25 {
        args[format!("extra_{i:02}")] = json!(i);
    }
    insta::assert_snapshot!(search(args));
}
