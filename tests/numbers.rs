//! Numbers bound exactly: a value the model sent is bound as it was sent,
//! or refused at its pointer; never silently changed into another number.

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
