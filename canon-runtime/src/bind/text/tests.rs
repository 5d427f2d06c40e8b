//! canon's reader against serde_json's: wherever canon's reader decides
//! (it did not fail), serde_json decides the same, with the same value.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use super::Reader;

/// What a reader made of `text` as a `T`: `None` when canon's reader left
/// it to serde_json.
fn ours<'a, T: Deserialize<'a>>(text: &'a str) -> Option<Result<T, ()>> {
    let mut reader = Reader::new(text);
    let value = T::deserialize(&mut reader).map_err(drop);
    // As the binding pass: the end is checked after a value only.
    let value = value.and_then(|value| reader.end().map(|()| value).map_err(drop));
    if reader.failed() {
        return None;
    }
    Some(value)
}

/// serde_json's reading of `text` as a `T`.
fn theirs<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, ()> {
    serde_json::from_str(text).map_err(drop)
}

/// Holds canon's reader to serde_json's on `text`; true when it decided.
fn agree<'a, T: Deserialize<'a> + std::fmt::Debug>(
    text: &'a str,
    same: impl Fn(&T, &T) -> bool,
) -> bool {
    let Some(ours) = ours::<T>(text) else {
        return false;
    };
    match (&ours, &theirs::<T>(text)) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "{text:?}: {a:?} and {b:?}"),
        (Err(()), Err(())) => {}
        (a, b) => panic!("{text:?}: canon's reader {a:?}, serde_json {b:?}"),
    }
    true
}

/// Values compared by their text, so that `-0.0` and `0.0` differ.
fn same_value(a: &Value, b: &Value) -> bool {
    serde_json::to_string(a).ok() == serde_json::to_string(b).ok()
}

fn agree_value(text: &str) -> bool {
    agree::<Value>(text, same_value)
}

#[test]
fn reads_what_serde_json_reads() {
    for text in [
        r#"{"a": [1, -2, 3.5, -0, 0, 1e3, 18446744073709551615, -9223372036854775808]}"#,
        r#"{"a": 18446744073709551616, "b": -9223372036854775809, "c": 1E-2}"#,
        r#"["\"\\\/\b\f\n\r\t", "\u00e9\ud83d\ude00", "é😀", ""]"#,
        " \t\r\n{ \"k\" : null , \"t\" : true, \"f\": false } \n",
        "[[[[[]]]]]",
        "{}",
    ] {
        assert!(agree_value(text), "left to serde_json: {text}");
    }
}

#[test]
fn leaves_to_serde_json_what_it_refuses() {
    for text in [
        "01",
        "-",
        "1.",
        "1e",
        "1e+",
        "-01",
        ".5",
        "+1",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{1: 2}",
        "nul",
        "tru",
        "\"a",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\u{1}\"",
        "\"\\ud83d\"",
        "\"\\ude00\"",
        "\"\\ud83d\\u0041\"",
        "\u{feff}{}",
        "{} x",
        "[",
        "1e400",
        "",
    ] {
        assert!(ours::<Value>(text).is_none(), "decided: {text:?}");
        assert!(theirs::<Value>(text).is_err(), "serde_json reads {text:?}");
    }
}

#[test]
fn nests_as_deep_as_serde_json() {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(agree_value(&nested(127)));
    assert!(ours::<Value>(&nested(128)).is_none());
    assert!(theirs::<Value>(&nested(128)).is_err());
    // A skipped value as well.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct A {
        a: u8,
    }
    let skipped = format!(r#"{{"b": {}, "a": 1}}"#, nested(100));
    assert!(agree::<A>(&skipped, |a, b| a.a == b.a));
}

#[test]
fn fails_after_an_error_inside_an_array_or_object() {
    // A visitor could catch the error and read on, from where serde_json's
    // reader would stand after closing the array: the reader does not
    // decide.
    for text in [r#"[1, 300]"#, r#"{"a": [1, 300]}"#, r#"[[1, 300], 2]"#] {
        assert!(ours::<Vec<u8>>(text).is_none(), "decided: {text}");
        assert!(
            ours::<BTreeMap<String, Vec<u8>>>(text).is_none(),
            "decided: {text}"
        );
    }
    // A visitor's error outside any array or object is decided.
    assert_eq!(ours::<u8>("300").map(|r| r.is_err()), Some(true));
    assert!(theirs::<u8>("300").is_err());
}

#[test]
fn lends_only_strings_without_escapes() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct B<'a> {
        s: &'a str,
    }
    assert!(agree::<B<'_>>(r#"{"s": "plain"}"#, PartialEq::eq));
    // A borrowed string cannot hold an unescaped one: serde_json refuses,
    // and the reader, refused inside an object, leaves it to serde_json.
    assert!(ours::<B<'_>>(r#"{"s": "a\nb"}"#).is_none());
    assert!(theirs::<B<'_>>(r#"{"s": "a\nb"}"#).is_err());
    assert_eq!(ours::<&str>(r#""a\nb""#).map(|r| r.is_err()), Some(true));
    assert!(theirs::<&str>(r#""a\nb""#).is_err());
}

/// A type that asks for every form serde's data model has.
#[derive(Debug, Deserialize, PartialEq)]
#[allow(dead_code)]
enum Kind {
    Unit,
    Newtype(u8),
    Tuple(i32, String),
    Struct { a: Option<bool> },
}

#[derive(Debug, Deserialize, PartialEq)]
#[allow(dead_code)]
struct Typed {
    s: String,
    c: Option<char>,
    u: Option<u8>,
    i: Option<i16>,
    big: Option<i128>,
    ubig: Option<u128>,
    f: Option<f32>,
    d: Option<f64>,
    kinds: Option<Vec<Kind>>,
    map: Option<BTreeMap<String, Vec<String>>>,
    tuple: Option<(u8, String)>,
    unit: Option<()>,
    bytes: Option<Bytes>,
    nums: Option<BTreeMap<u8, u8>>,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

/// Bytes as serde_json hands them over, and whether they were lent.
#[derive(Debug, PartialEq)]
struct Bytes(Vec<u8>, bool);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec(), false))
            }
            fn visit_borrowed_bytes<E>(self, v: &'de [u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.to_vec(), true))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Bytes, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(Bytes(out, false))
            }
        }
        de.deserialize_bytes(Visit)
    }
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(untagged)]
#[allow(dead_code)]
enum Either {
    Number(u32),
    Words(Vec<String>),
    Tagged(Kind),
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(tag = "t", deny_unknown_fields)]
#[allow(dead_code)]
enum Internal {
    A { x: u8 },
    B { y: String },
}

/// Numbers as text: integers of any length, fractions, exponents.
fn number() -> impl Strategy<Value = String> {
    "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?"
}

fn string() -> impl Strategy<Value = String> {
    "[a-z \"\\\\/\u{0}-\u{1f}é\u{2028}\u{1F600}]{0,10}"
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<u64>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f)
            .map(Value::Number)),
        string().prop_map(Value::String),
        prop_oneof![Just("Unit"), Just("A"), Just("B"), Just("t")].prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// Keys: the names of the types above, and others.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "s", "c", "u", "i", "big", "ubig", "f", "d", "kinds", "map", "tuple", "unit", "bytes",
            "Unit", "Newtype", "Tuple", "Struct", "a", "t", "x", "y",
        ])
        .prop_map(str::to_owned),
        string(),
    ]
}

/// Text of a value: compact or pretty, with `\u` escapes for some
/// characters, and numbers from `number()` where placeholders stand.
fn text() -> impl Strategy<Value = String> {
    (
        json(),
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(number(), 4),
    )
        .prop_map(|(value, pretty, escape, numbers)| {
            let mut text = if pretty {
                serde_json::to_string_pretty(&value).unwrap_or_default()
            } else {
                serde_json::to_string(&value).unwrap_or_default()
            };
            if escape {
                text = text
                    .replace('é', "\\u00E9")
                    .replace('\u{1F600}', "\\ud83d\\ude00")
                    .replace('\u{2028}', "\\u2028");
            }
            // Numbers serde_json does not write: replace some nulls.
            for number in numbers {
                text = text.replacen("null", &number, 1);
            }
            text
        })
}

/// A small edit of `text` at a character boundary.
fn edited(text: &str, at: usize, cut: usize, insert: &str) -> String {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut end = (at + cut).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{insert}{}", &text[..at], &text[end..])
}

fn edit() -> impl Strategy<Value = (usize, usize, &'static str)> {
    (
        any::<usize>(),
        0..3usize,
        prop::sample::select(vec![
            "", ",", "]", "}", "[", "{", ":", "\"", "\\", "\\u", "\\ud83d", "\\ude00", "0", "-",
            ".", "e", " ", "null", "1e400", "\u{0}", "\u{feff}", "01", "true",
        ]),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn values_read_as_serde_json_reads_them(text in text()) {
        // Whatever serde_json reads as a `Value`, canon's reader reads too.
        let decided = agree_value(&text);
        prop_assert!(decided || theirs::<Value>(&text).is_err(), "left to serde_json: {}", text);
    }

    #[test]
    fn edited_values_read_as_serde_json_reads_them(text in text(), (at, cut, insert) in edit()) {
        let _ = agree_value(&edited(&text, at, cut, insert));
    }

    #[test]
    fn types_read_as_serde_json_reads_them(
        value in json(),
        s in string(),
        (at, cut, insert) in edit(),
        edit_it in any::<bool>(),
    ) {
        // A `Typed` object whose members are anything, so that some are of
        // the wrong type.
        let mut object = match value {
            Value::Object(object) => object,
            other => [("kinds".to_owned(), other)].into_iter().collect(),
        };
        object.insert("s".to_owned(), Value::String(s));
        let mut text = Value::Object(object).to_string();
        if edit_it {
            text = edited(&text, at, cut, insert);
        }
        let _ = agree::<Typed>(&text, PartialEq::eq);
        let _ = agree::<Either>(&text, PartialEq::eq);
        let _ = agree::<Internal>(&text, PartialEq::eq);
        let _ = agree::<Vec<Kind>>(&text, PartialEq::eq);
    }

    #[test]
    fn typed_members_read_as_serde_json_reads_them(
        kinds in prop::collection::vec(prop_oneof![
            Just(r#""Unit""#.to_owned()),
            Just(r#"{"Unit": null}"#.to_owned()),
            (0..300u32).prop_map(|n| format!(r#"{{"Newtype": {n}}}"#)),
            (number(), string()).prop_map(|(n, s)| format!(r#"{{"Tuple": [{n}, {}]}}"#, Value::from(s))),
            any::<Option<bool>>().prop_map(|a| format!(r#"{{"Struct": {{"a": {}}}}}"#, Value::from(a))),
            Just(r#""Newtype""#.to_owned()),
        ], 0..4),
        numbers in prop::collection::vec(number(), 6),
        bytes in prop_oneof![string().prop_map(|s| Value::from(s).to_string()), Just("[1, 2, 300]".to_owned())],
        c in string(),
        nums in prop_oneof![Just(""), Just(r#", "nums": {"1": 2}"#)],
    ) {
        let text = format!(
            r#"{{"s": "x", "c": {}, "u": {}, "i": {}, "big": {}, "ubig": {}, "f": {}, "d": {}, "kinds": [{}], "map": {{"k": ["v"]}}, "tuple": [1, "t"], "unit": null, "bytes": {bytes}, "other": 1{nums}}}"#,
            Value::from(c), numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5],
            kinds.join(", "),
        );
        let _ = agree::<Typed>(&text, PartialEq::eq);
    }
}
