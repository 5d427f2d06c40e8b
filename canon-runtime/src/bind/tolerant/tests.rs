//! The tolerant adapter's tests.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use serde_json::json;

use super::keys::{Seen, SPILLED};
use super::{Ctx, Mode};
use crate::toolbox::{ToolSpec, ViolationKind};
use serde::Deserialize;

thread_local! {
    /// Every key hashes to 0: each object of two keys or more collides.
    pub(crate) static COLLIDE: Cell<bool> = const { Cell::new(false) };
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    labels: HashMap<String, String>,
    ids: BTreeMap<u32, String>,
    payload: serde_json::Value,
    names: Vec<String>,
}

fn spec() -> ToolSpec {
    ToolSpec::of::<Args>("label", "Label things.")
}

fn wide(n: usize, repeat: Option<usize>) -> String {
    let mut members: Vec<String> = (0..n).map(|i| format!(r#""k{i}": "v""#)).collect();
    if let Some(i) = repeat {
        members.push(format!(r#""k{i}": "w""#));
    }
    format!(
        r#"{{"labels": {{{}}}, "ids": {{"1": "a", "2": "b"}}, "payload": {{"a": [{{"b": 1, "c": 2}}]}}, "names": "x"}}"#,
        members.join(", ")
    )
}

#[test]
fn keys_are_told_apart_inline_and_after_spilling() {
    for n in [0, 1, 7, 8, 9, 100] {
        let bound = spec().bind_str::<Args>(&wide(n, None)).unwrap();
        assert_eq!(bound.args.labels.len(), n);
        assert_eq!(bound.repairs.len(), 1);
        for repeat in [0, n.saturating_sub(1)] {
            if n == 0 {
                continue;
            }
            let error = spec().bind_str::<Args>(&wide(n, Some(repeat))).unwrap_err();
            assert_eq!(error.pointers(), [format!("/labels/k{repeat}")], "{n}");
            assert_eq!(error.violations()[0].kind, ViolationKind::Duplicate);
        }
    }
    SPILLED.with(|stack| assert!(stack.borrow().is_empty()));
}

#[test]
fn colliding_hashes_go_to_the_exact_path_and_bind_alike() {
    COLLIDE.with(|c| c.set(true));
    for n in [2, 8, 9, 40] {
        let text = wide(n, None);
        let bound = spec().bind_str::<Args>(&text).unwrap();
        COLLIDE.with(|c| c.set(false));
        let expected = spec().bind_str::<Args>(&text).unwrap();
        COLLIDE.with(|c| c.set(true));
        assert_eq!(bound, expected, "{n}");
        let error = spec().bind_str::<Args>(&wide(n, Some(1))).unwrap_err();
        assert_eq!(error.pointers(), ["/labels/k1"]);
    }
    COLLIDE.with(|c| c.set(false));
    SPILLED.with(|stack| assert!(stack.borrow().is_empty()));
}

#[test]
fn integer_keys_repeat_by_value() {
    let text = r#"{"labels": {}, "ids": {"1": "a", "1": "b"}, "payload": null, "names": []}"#;
    let error = spec().bind_str::<Args>(text).unwrap_err();
    assert_eq!(error.pointers(), ["/ids/1"]);
    let bound = spec()
        .bind::<Args>(&json!({"labels": {}, "ids": {"1": "a"}, "payload": null, "names": []}))
        .unwrap();
    assert_eq!(bound.args.ids[&1], "a");
}

#[test]
fn nested_wide_objects_keep_their_keys_apart() {
    let object = |prefix: &str, inner: Option<&str>, repeat: bool| {
        let mut members: Vec<String> = (0..12)
            .map(|i| match inner {
                Some(inner) => format!(r#""{prefix}{i}": {inner}"#),
                None => format!(r#""{prefix}{i}": {i}"#),
            })
            .collect();
        if repeat {
            members.push(format!(r#""{prefix}3": 0"#));
        }
        format!("{{{}}}", members.join(", "))
    };
    let call = |payload: String| {
        format!(r#"{{"labels": {{}}, "ids": {{}}, "payload": {payload}, "names": []}}"#)
    };
    // Twelve objects of twelve keys under twelve keys: the inner keys
    // repeat from object to object, never within one.
    let inner = object("i", None, false);
    let ok = call(object("o", Some(&inner), false));
    assert!(spec().bind_str::<Args>(&ok).is_ok());
    let inner_repeats = object("i", None, true);
    let error = spec()
        .bind_str::<Args>(&call(object("o", Some(&inner_repeats), false)))
        .unwrap_err();
    assert_eq!(error.pointers().len(), 12, "{error}");
    assert!(error.pointers().contains(&"/payload/o11/i3"));
    let error = spec()
        .bind_str::<Args>(&call(object("o", Some(&inner), true)))
        .unwrap_err();
    assert_eq!(error.pointers(), ["/payload/o3"]);
    SPILLED.with(|stack| assert!(stack.borrow().is_empty()));
}

#[test]
fn a_depth_bound_of_zero_refuses_the_arguments_object() {
    let spec = spec().with_limits(crate::Limits {
        max_depth: 0,
        ..crate::Limits::default()
    });
    let error = spec.bind_str::<Args>("{}").unwrap_err();
    assert_eq!(error.violations()[0].kind, ViolationKind::TooLarge);
}

#[test]
fn a_spilled_object_left_early_gives_its_hashes_back() {
    let mut seen = Seen::default();
    for i in 0..20 {
        assert!(seen.add(i));
    }
    SPILLED.with(|stack| assert_eq!(stack.borrow().len(), 20));
    drop(seen);
    SPILLED.with(|stack| assert!(stack.borrow().is_empty()));
    let mut seen = Seen::default();
    for i in 0..20 {
        seen.add(i % 19);
    }
    assert!(!seen.finish());
    SPILLED.with(|stack| assert!(stack.borrow().is_empty()));
}

/// Arguments with a position of each kind the look over a `Value` checks.
#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Checked {
    #[schemars(range(min = 1, max = 11))]
    level: u32,
    #[schemars(length(min = 2, max = 8))]
    name: String,
    #[schemars(length(max = 3))]
    tags: Vec<String>,
    set: std::collections::BTreeSet<u8>,
    ratio: f32,
    inner: Option<Inner>,
    groups: HashMap<String, Vec<String>>,
    kind: Kind,
    #[serde(default)]
    payload: serde_json::Value,
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Inner {
    names: Vec<String>,
    #[schemars(range(max = 5))]
    count: i64,
}

#[derive(Debug, PartialEq, serde::Deserialize, schemars::JsonSchema)]
enum Kind {
    Plain,
    Sized { names: Vec<String> },
}

#[test]
fn a_value_vouched_for_binds_as_the_adapter_binds_it() {
    let spec = ToolSpec::of::<Checked>("checked", "Check things.");
    let valid = json!({
        "level": 3, "name": "ab", "tags": ["x"], "set": [1, 2], "ratio": 0.5,
        "inner": {"names": ["a"], "count": -2}, "groups": {"a": ["b"]},
        "kind": {"Sized": {"names": ["n"]}}, "payload": {"deep": [[1]]}
    });
    let with = |pointer: &str, value: serde_json::Value| {
        let mut call = valid.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        call.pointer_mut(parent).unwrap()[key] = value;
        call
    };
    let calls = [
        (valid.clone(), true),
        (with("/kind", json!("Plain")), true),
        (with("/inner", json!(null)), true),
        (with("/level", json!(12)), false),
        (with("/level", json!(0)), false),
        (with("/level", json!(2.0)), true),
        (with("/name", json!("a")), false),
        (with("/tags", json!(["a", "b", "c", "d"])), false),
        (with("/tags", json!("a")), false),
        (with("/set", json!([1, 1])), false),
        (with("/set", json!([1, [1]])), false),
        (with("/ratio", json!(1e300)), false),
        (with("/inner/count", json!(6)), false),
        (with("/inner/names", json!("a")), false),
        (with("/inner/other", json!(1)), false),
        (with("/groups/a", json!("b")), false),
        (with("/kind", json!({"Sized": {"names": "n"}})), false),
        (with("/kind", json!("Other")), false),
        (with("/level", json!("3")), false),
        (
            with("/payload", json!({"a": {"b": {"c": {"d": [[[[[[1]]]]]]}}}})),
            true,
        ),
    ];
    for (call, vouched) in calls {
        for max_depth in [usize::MAX, 1, 3, 6] {
            let ctx = Ctx::new(spec.plan(), Mode::Fast).with_max_depth(max_depth);
            let vouches = super::vouches(spec.plan(), max_depth, &call, false);
            if max_depth == usize::MAX {
                assert_eq!(vouches, vouched, "{call}");
            }
            // The read that checks as it goes reads exactly what the look
            // vouches for and plain serde reads.
            let read = super::read_value::<Checked>(spec.plan(), max_depth, &call, false);
            let expected = Checked::deserialize(&call).ok().filter(|_| vouches);
            assert_eq!(read, expected, "{call} at depth {max_depth}");
            if !vouches {
                continue;
            }
            let plain = Checked::deserialize(&call).ok();
            let adapted = ctx.deserialize::<Checked, _>(&call).ok();
            assert_eq!(plain, adapted, "{call} at depth {max_depth}");
            assert!(ctx.into_repairs().0.is_empty(), "{call}");
            // What binds at once binds so through the spec (what does not
            // goes the way the adapter's failure goes).
            if plain.is_none() {
                continue;
            }
            let spec =
                ToolSpec::of::<Checked>("checked", "Check things.").with_limits(crate::Limits {
                    max_depth,
                    ..crate::Limits::default()
                });
            assert_eq!(spec.bind::<Checked>(&call).ok().map(|b| b.args), plain);
        }
    }
}
