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
