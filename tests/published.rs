//! What canon publishes is exactly what it accepts: every assertion of the
//! published schema is enforced on the typed path, integral doubles bind at
//! integer positions, a strict declaration's nulls bind, and unknown members
//! are refused at every depth where the schema closes the object.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use canon::export::Dialect;
use canon::toolbox::{ToolSpec, ViolationKind};
use canon::{tool, Policy, Tool, ToolCall, ToolOutcome, Toolbox};
use serde_json::{json, Value};

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Where {
    city: String,
    #[serde(default)]
    country: Option<String>,
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    #[schemars(range(min = 1, max = 11))]
    level: u32,
    #[schemars(range(max = 2.5))]
    #[serde(default)]
    ratio: f32,
    #[schemars(length(min = 2, max = 8))]
    #[serde(default = "name")]
    name: String,
    #[schemars(length(max = 3))]
    #[serde(default)]
    tags: Vec<String>,
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    #[serde(default = "name")]
    slug: String,
    #[schemars(email)]
    #[serde(default)]
    mail: Option<String>,
    #[serde(default)]
    set: HashSet<String>,
    #[serde(default)]
    ids: BTreeSet<u32>,
    #[serde(default)]
    place: Option<Where>,
}

fn name() -> String {
    "ab".into()
}

fn spec() -> ToolSpec {
    ToolSpec::of::<Args>("tune", "Tune the engine.")
}

/// Binds `call` from a `Value` and from its text: both paths agree.
fn bind(call: Value) -> Result<Args, canon::BindError> {
    let from_value = spec().bind::<Args>(&call);
    let from_text = spec().bind_str::<Args>(&call.to_string());
    match (from_value, from_text) {
        (Ok(a), Ok(b)) => {
            assert!(a.repairs.is_empty() && b.repairs.is_empty(), "{call}");
            assert_eq!(a.args, b.args);
            Ok(a.args)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.pointers(), b.pointers(), "{call}");
            Err(a)
        }
        (a, b) => panic!("{call}: value {:?}, text {:?}", a.is_ok(), b.is_ok()),
    }
}

fn refused_at(call: Value) -> Vec<String> {
    let error = bind(call.clone()).expect_err(&call.to_string());
    error.pointers().iter().map(|p| p.to_string()).collect()
}

#[test]
fn every_published_bound_is_enforced_on_the_typed_path() {
    assert_eq!(bind(json!({"level": 11})).unwrap().level, 11);
    assert_eq!(refused_at(json!({"level": 200})), ["/level"]);
    assert_eq!(refused_at(json!({"level": 0})), ["/level"]);
    let error = bind(json!({"level": 200})).unwrap_err();
    assert_eq!(error.violations()[0].kind, ViolationKind::Constraint);
    assert!(error.to_string().contains("from 1 to 11"), "{error}");
    assert!(bind(json!({"level": 1, "ratio": 2.5})).is_ok());
    assert_eq!(refused_at(json!({"level": 1, "ratio": 2.6})), ["/ratio"]);
}

#[test]
fn lengths_patterns_formats_and_sets_are_enforced() {
    assert!(bind(json!({"level": 1, "name": "abcdefgh"})).is_ok());
    assert_eq!(refused_at(json!({"level": 1, "name": "a"})), ["/name"]);
    assert_eq!(
        refused_at(json!({"level": 1, "name": "abcdefghi"})),
        ["/name"]
    );
    assert_eq!(
        refused_at(json!({"level": 1, "tags": ["a", "b", "c", "d"]})),
        ["/tags"]
    );
    assert!(bind(json!({"level": 1, "tags": ["a", "b", "c"]})).is_ok());
    assert_eq!(
        refused_at(json!({"level": 1, "slug": "Not-A-Slug"})),
        ["/slug"]
    );
    assert!(bind(json!({"level": 1, "mail": "ada@example.com"})).is_ok());
    assert_eq!(refused_at(json!({"level": 1, "mail": "ada"})), ["/mail"]);
    // serde would keep one of two equal items silently.
    assert_eq!(refused_at(json!({"level": 1, "set": ["a", "a"]})), ["/set"]);
    assert_eq!(refused_at(json!({"level": 1, "ids": [1, 1.0]})), ["/ids"]);
    assert_eq!(
        bind(json!({"level": 1, "set": ["a", "b"]}))
            .unwrap()
            .set
            .len(),
        2
    );
}

#[test]
fn the_core_repair_still_applies_beside_the_checks() {
    let bound = spec()
        .bind::<Args>(&json!({"level": 3, "tags": "urgent"}))
        .unwrap();
    assert_eq!(bound.args.tags, ["urgent"]);
    assert_eq!(bound.repairs[0].pointer, "/tags");
    // The repaired array is held to the array's bounds too.
    let five = json!({"level": 3, "tags": "a", "name": "x"});
    let error = spec().bind::<Args>(&five).unwrap_err();
    assert_eq!(error.pointers(), ["/name"]);
}

#[test]
fn integral_doubles_bind_at_integer_positions() {
    let args = bind(json!({"level": 3.0, "ids": [1.0, 2]})).unwrap();
    assert_eq!(args.level, 3);
    assert_eq!(args.ids, BTreeSet::from([1, 2]));
    assert_eq!(refused_at(json!({"level": 3.5})), ["/level"]);
    // `-0` is 0, as JSON Schema compares numbers: in range where 0 is,
    // and refused with the range where it is not.
    let args = bind(json!({"level": 3, "ids": [-0.0, 2]})).unwrap();
    assert_eq!(args.ids, BTreeSet::from([0, 2]));
    let args = spec()
        .bind_str::<Args>(r#"{"level": 3, "ids": [-0]}"#)
        .unwrap()
        .args;
    assert_eq!(args.ids, BTreeSet::from([0]));
    assert_eq!(refused_at(json!({"level": -0.0})), ["/level"]);
    assert_eq!(refused_at(json!({"level": 5e9})), ["/level"]);
    let error = spec().bind_str::<Args>(r#"{"level": 1e400}"#).unwrap_err();
    assert_eq!(error.violations().len(), 1, "{error}");
}

#[test]
fn numbers_beyond_f32_are_refused_at_their_pointer_on_every_path() {
    let call = json!({"level": 1, "ratio": -1.7976931348623157e308});
    assert_eq!(refused_at(call), ["/ratio"]);
}

#[test]
fn unknown_members_are_refused_at_every_depth() {
    let schema = spec().input_schema().clone();
    assert_eq!(
        schema["$defs"]["Where"]["additionalProperties"],
        json!(false),
        "the published schema says what canon refuses"
    );
    assert!(bind(json!({"level": 1, "place": {"city": "Paris"}})).is_ok());
    let error = bind(json!({"level": 1, "place": {"city": "Paris", "contry": "FR"}})).unwrap_err();
    assert_eq!(error.pointers(), ["/place/contry"]);
    assert_eq!(error.violations()[0].kind, ViolationKind::Unknown);
    assert!(
        error.to_string().contains("did you mean `country`?"),
        "{error}"
    );
}

/// A struct that takes extra members says so, and gets them.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Open {
    id: u32,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Holder {
    open: Open,
}

#[test]
fn a_type_opts_in_to_extra_members_explicitly() {
    let spec = ToolSpec::of::<Holder>("hold", "Hold things.");
    let open = &spec.input_schema()["$defs"]["Open"];
    assert_eq!(open["additionalProperties"], json!(true));
    let bound = spec
        .bind::<Holder>(&json!({"open": {"id": 1, "colour": "red"}}))
        .unwrap();
    assert_eq!(bound.args.open.extra["colour"], "red");
}

/// Forecast the weather.
#[tool]
fn forecast(
    /// Where.
    city: String,
    /// How many days.
    #[arg(default = 3)]
    days: u32,
    /// The unit.
    unit: Option<String>,
) -> String {
    format!("{city} {days} {}", unit.unwrap_or_default())
}

async fn run(toolbox: &Toolbox, args: Value) -> ToolOutcome {
    toolbox
        .call(ToolCall::new("1", "forecast", args.to_string()))
        .await
        .outcome
}

#[tokio::test]
async fn a_toolbox_binds_the_nulls_its_strict_declaration_allows() {
    let strict_call = json!({"city": "Paris", "days": null, "unit": null});
    let mut toolbox = Toolbox::new().with_repair_notes(true);
    toolbox.add(Forecast).unwrap();
    assert!(matches!(
        run(&toolbox, strict_call.clone()).await,
        ToolOutcome::Rejected(_)
    ));
    let exported = toolbox.export(Dialect::OpenAi { strict: true }).unwrap();
    assert_eq!(
        exported[0]["function"]["parameters"]["properties"]["days"]["type"],
        json!(["integer", "null"])
    );
    match run(&toolbox, strict_call.clone()).await {
        ToolOutcome::Ran { output, repairs } => {
            assert_eq!(output, json!("Paris 3 "));
            assert!(repairs.is_empty(), "{repairs:?}");
        }
        other => panic!("{other:?}"),
    }
    let result = toolbox
        .call(ToolCall::new("2", "forecast", strict_call.to_string()))
        .await;
    let message = toolbox.message(&result);
    assert!(!message.text.contains("omit"), "{}", message.text);

    // One switch for a toolbox whose tools are declared elsewhere.
    let mut elsewhere = Toolbox::new().declared_in(Dialect::OpenAi { strict: true });
    elsewhere.add(Forecast).unwrap();
    assert!(matches!(
        run(&elsewhere, strict_call.clone()).await,
        ToolOutcome::Ran { .. }
    ));
    // A non-strict declaration changes nothing.
    let mut plain = Toolbox::new().declared_in(Dialect::OpenAi { strict: false });
    plain.add(Forecast).unwrap();
    assert!(matches!(
        run(&plain, strict_call).await,
        ToolOutcome::Rejected(_)
    ));
}

#[test]
fn a_strict_policy_binds_declared_nulls_without_a_repair() {
    let policy = Policy::DEFAULT.declared_in(Dialect::OpenAiResponses { strict: true });
    let bound = Forecast
        .spec()
        .bind_str_with::<ForecastArgs>(r#"{"city": "Oslo", "days": null, "unit": null}"#, policy)
        .unwrap();
    assert_eq!(bound.args.days, 3);
    assert!(bound.repairs.is_empty());
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    point: (u8, String),
}

#[test]
fn integral_doubles_bind_inside_tuples_too() {
    let spec = ToolSpec::of::<Pair>("pair", "Pair things.");
    let bound = spec.bind::<Pair>(&json!({"point": [3.0, "x"]})).unwrap();
    assert_eq!(bound.args.point, (3, "x".to_owned()));
    let error = spec
        .bind::<Pair>(&json!({"point": [300, "x"]}))
        .unwrap_err();
    assert_eq!(error.pointers(), ["/point/0"]);
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Target {
    Repo {
        #[schemars(length(max = 8))]
        name: String,
    },
    Org {
        #[schemars(range(max = 9))]
        depth: u8,
    },
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
struct Aim {
    target: Target,
}

#[test]
fn a_tagged_variant_is_checked_and_explained_inside_its_variant() {
    let spec = ToolSpec::of::<Aim>("aim", "Aim at something.");
    let bind = |call: Value| spec.bind::<Aim>(&call).map(|b| b.args);
    assert_eq!(
        bind(json!({"target": {"kind": "org", "depth": 9}})).unwrap(),
        Aim {
            target: Target::Org { depth: 9 }
        }
    );
    let error = bind(json!({"target": {"kind": "org", "depth": 10}})).unwrap_err();
    assert_eq!(error.pointers(), ["/target/depth"], "{error}");
    let error = bind(json!({"target": {"kind": "repo", "name": "x", "zz": 1}})).unwrap_err();
    assert_eq!(error.pointers(), ["/target/zz"], "{error}");
    let error = bind(json!({"target": {"kind": "team", "name": "x"}})).unwrap_err();
    assert_eq!(error.pointers(), ["/target/kind"], "{error}");
    assert!(
        error.to_string().contains(r#"one of "repo", "org""#),
        "{error}"
    );
}

/// Bounds past 2^53, which a double cannot hold exactly.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Big {
    #[schemars(range(min = 9_007_199_254_740_993u64))]
    a: u64,
}

#[test]
fn integers_past_two_to_the_53_are_compared_exactly() {
    let spec = ToolSpec::of::<Big>("big", "Big numbers.");
    // 2^53 is below the minimum 2^53 + 1, though equal to it as a double.
    assert!(spec
        .bind::<Big>(&json!({"a": 9_007_199_254_740_992u64}))
        .is_err());
    assert!(spec.bind_str::<Big>(r#"{"a": 9007199254740992}"#).is_err());
    assert_eq!(
        spec.bind::<Big>(&json!({"a": 9_007_199_254_740_993u64}))
            .unwrap()
            .args
            .a,
        9_007_199_254_740_993
    );
    // And a value past 2^53 against a bound below it, on a foreign schema.
    let canon = canon::Canonicalizer::new(&json!({"type": "object",
        "properties": {"n": {"type": "integer", "maximum": 9_007_199_254_740_992u64}}}))
    .unwrap();
    assert!(!canon.is_valid(&json!({"n": 9_007_199_254_740_993u64})));
    assert!(canon
        .canonicalize(&mut json!({"n": 9_007_199_254_740_993u64}))
        .is_err());
    assert!(canon.is_valid(&json!({"n": 9_007_199_254_740_992u64})));
}

/// An integer and a double, as Gemini sends both.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Zero {
    n: u32,
    x: f64,
}

#[test]
fn negative_zero_keeps_its_sign_where_the_type_is_a_double() {
    let spec = ToolSpec::of::<Zero>("zero", "Zeros.");
    let bound = spec
        .bind::<Zero>(&json!({"n": 3.0, "x": -0.0}))
        .unwrap()
        .args;
    assert_eq!(bound.n, 3);
    assert!(bound.x == 0.0 && bound.x.is_sign_negative());
    let bound = spec
        .bind::<Zero>(&json!({"n": -0.0, "x": 1.5}))
        .unwrap()
        .args;
    assert_eq!((bound.n, bound.x), (0, 1.5));
}
