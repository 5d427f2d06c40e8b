//! Numbers bound exactly: a value the model sent is bound as it was sent,
//! or refused at its pointer; never silently changed into another number.

mod common;

use canon::toolbox::{ToolSpec, ViolationKind};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Ratio {
    ratio: f32,
}

fn ratio() -> ToolSpec {
    ToolSpec::of::<Ratio>("ratio", "A 32-bit ratio.")
}

// `3.4028235e38` is how Rust prints `f32::MAX`. As a double it is a little
// over `f32::MAX`, and it rounds to it: it is in range.
#[test]
fn the_largest_f32_as_rust_prints_it_binds_from_text_and_from_a_value() {
    for sent in ["3.4028235e38", "-3.4028235e38", "3.4028235677973362e38"] {
        let want: f32 = sent.parse().unwrap();
        assert!(want.is_finite());
        let text = format!(r#"{{"ratio": {sent}}}"#);
        let from_text = ratio().bind_str::<Ratio>(&text).unwrap();
        assert_eq!(from_text.args.ratio, want, "{sent}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let from_value = ratio().bind::<Ratio>(&value).unwrap();
        assert_eq!(from_value.args.ratio, want, "{sent}");
        assert!(from_value.repairs.is_empty());
    }
}

#[test]
fn a_number_past_the_f32_range_is_refused_with_the_range() {
    for sent in ["3.4029e38", "-3.5e38", "1e39"] {
        let text = format!(r#"{{"ratio": {sent}}}"#);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        for error in [
            ratio().bind_str::<Ratio>(&text).unwrap_err(),
            ratio().bind::<Ratio>(&value).unwrap_err(),
        ] {
            let [violation] = error.violations() else {
                panic!("{error}")
            };
            assert_eq!(violation.pointer, "/ratio");
            assert_eq!(violation.kind, ViolationKind::Constraint, "{error}");
            assert!(
                violation
                    .expected
                    .starts_with("a number from -3.4028235e38 to 3.4028235e38"),
                "{error}"
            );
        }
    }
}

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Wide {
    signed: i128,
    unsigned: u128,
}

fn wide() -> ToolSpec {
    ToolSpec::of::<Wide>("wide", "128-bit integers.")
}

// A `Value` holds an integer past 64 bits as a double. canon cannot tell
// what the model sent, so it refuses without naming another number.
#[test]
fn a_value_past_64_bits_at_a_128_bit_position_names_no_other_number() {
    let value = json!({"signed": 1, "unsigned": 18_446_744_073_709_551_616.0_f64});
    let error = wide().bind::<Wide>(&value).unwrap_err();
    let [violation] = error.violations() else {
        panic!("{error}")
    };
    assert_eq!(violation.pointer, "/unsigned");
    let text = error.to_string();
    assert!(!text.contains("send it as 18446744073709551616"), "{text}");
    assert!(!text.contains("1.8446744073709552e+19"), "{text}");
}

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Signed {
    signed: i64,
}

// `-9223372036854775809` is one below `i64::MIN`. As a double it is
// `-2^63`, which is in range: read through a double, it bound as
// `i64::MIN`.
#[test]
fn an_integer_written_past_the_range_is_refused_never_rounded() {
    let spec = ToolSpec::of::<Signed>("signed", "A signed integer.");
    for sent in [
        "-9223372036854775809",
        "-9223372036854776832",
        "9223372036854775808",
    ] {
        let text = format!(r#"{{"signed": {sent}}}"#);
        let error = spec.bind_str::<Signed>(&text).unwrap_err();
        let [violation] = error.violations() else {
            panic!("{error}")
        };
        assert_eq!(violation.pointer, "/signed");
        assert_eq!(violation.kind, ViolationKind::Constraint);
        assert_eq!(
            violation.message,
            format!(
                "expected an integer from -9223372036854775808 to 9223372036854775807, got the number {sent}"
            )
        );
    }
    // A `Value` holds only the double (see docs/contract.md).
    let value: serde_json::Value =
        serde_json::from_str(r#"{"signed": -9223372036854775809}"#).unwrap();
    assert_eq!(spec.bind::<Signed>(&value).unwrap().args.signed, i64::MIN);
}

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Mixed {
    a: u32,
    b: u8,
    r: f32,
    d: i128,
}

/// Above the midpoint of `1` and the next `f32`, by less than a double
/// can tell: read directly it rounds up; through the double (the
/// midpoint itself) it rounds to even, down to `1`.
const NEAR_MIDPOINT: &str = "1.0000000596046447753906251";

// One field that takes the cold path (`1.0` at an integer) must not send
// the others through a double.
#[test]
fn the_cold_path_reads_every_other_number_from_its_digits() {
    let direct: f32 = NEAR_MIDPOINT.parse().unwrap();
    assert_ne!(direct, 1.0);
    assert_eq!(NEAR_MIDPOINT.parse::<f64>().unwrap() as f32, 1.0);
    let spec = ToolSpec::of::<Mixed>("mixed", "Numbers of several kinds.");
    let want = Mixed {
        a: 1,
        b: 0,
        r: direct,
        d: -9_223_372_036_854_775_809,
    };
    for a in ["1", "1.0", "1e0", "-0.0e0 "] {
        let want = Mixed {
            a: if a == "-0.0e0 " { 0 } else { 1 },
            ..want
        };
        let text = format!(r#"{{"a":{a},"b":0,"r":{NEAR_MIDPOINT},"d":-9223372036854775809}}"#);
        let bound = spec.bind_str::<Mixed>(&text).unwrap();
        assert_eq!(bound.args, want, "{text}");
        assert!(bound.repairs.is_empty());
    }
}

// The opt-in rules repair a `Value`; the call is then bound from its text
// with the repairs written in.
#[test]
fn a_call_repaired_on_the_cold_path_keeps_its_numbers_as_written() {
    let spec = ToolSpec::of::<Mixed>("mixed", "Numbers of several kinds.")
        .with_policy(canon::Policy::DEFAULT.with(canon::RepairRule::NumberText));
    let text =
        format!(r#"{{"a": "7", "b": 2.0, "r": {NEAR_MIDPOINT}, "d": -9223372036854775809}}"#);
    let bound = spec.bind_str::<Mixed>(&text).unwrap();
    assert_eq!(
        bound.args,
        Mixed {
            a: 7,
            b: 2,
            r: NEAR_MIDPOINT.parse().unwrap(),
            d: -9_223_372_036_854_775_809
        }
    );
    assert_eq!(bound.repairs.len(), 1);
    assert_eq!(bound.repairs[0].pointer, "/a");
}

#[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
struct Exact {
    a: u32,
    f: f32,
    d: f64,
    big: i128,
    ubig: u128,
    list: Vec<f32>,
    raw: common::Raw,
}

/// Numbers as models write them: integers of any length, fractions,
/// exponents.
fn number() -> impl proptest::strategy::Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,2})?"
}

fn integer() -> impl proptest::strategy::Strategy<Value = String> {
    "-?[1-9][0-9]{0,39}"
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

    // Every number is bound as serde_json's typed reading of the same text
    // reads it, on the first pass (`a` as an integer) and on the cold path
    // (`a` as a whole double, valid, which the Rust type refuses).
    #[test]
    fn every_number_binds_as_serde_json_reads_it_on_every_path(
        a in 0..1000u32,
        written in 0..3usize,
        f in number(),
        d in number(),
        big in integer(),
        ubig in integer(),
        list in proptest::collection::vec(number(), 0..3),
        raw in "[a-z \"\\\\/\u{0}-\u{1f}é\u{2028}\u{1F600}]{0,8}",
        escape in proptest::bool::ANY,
    ) {
        let spec = ToolSpec::of::<Exact>("exact", "Numbers.");
        let list = list.join(", ");
        // The bytes of a string, with escapes of every form.
        let mut raw = serde_json::Value::from(raw).to_string();
        if escape {
            raw = raw.replace('é', "\\u00e9").replace('\u{1F600}', "\\ud83d\\ude00");
        }
        let text = |a: &str| {
            format!(r#"{{"a": {a}, "f": {f}, "d": {d}, "big": {big}, "ubig": {ubig}, "list": [{list}], "raw": {raw}}}"#)
        };
        let plain = text(&a.to_string());
        let Ok(want) = serde_json::from_str::<Exact>(&plain) else {
            // What serde_json refuses, canon refuses, on either path.
            let sent = text(&format!("{a}.0"));
            proptest::prop_assert!(spec.bind_str::<Exact>(&plain).is_err(), "{}", plain);
            proptest::prop_assert!(spec.bind_str::<Exact>(&sent).is_err(), "{}", sent);
            return Ok(());
        };
        // An `f32` past its range is refused by canon (the schema's
        // `format: float`), where serde_json reads infinity.
        proptest::prop_assume!(want.f.is_finite() && want.list.iter().all(|x| x.is_finite()));
        let sent = match written {
            0 => plain.clone(),
            1 => text(&format!("{a}.0")),
            _ => text(&format!("{a}e0")),
        };
        let bound = spec.bind_str::<Exact>(&sent);
        proptest::prop_assert!(bound.is_ok(), "{}: {:?}", sent, bound);
        let bound = bound.unwrap();
        proptest::prop_assert_eq!(&bound.args, &want, "{}", sent);
        proptest::prop_assert!(bound.repairs.is_empty());
    }
}
