//! No input makes canon panic: arbitrary text and values through the binder
//! and the toolbox always come back as a result for the model.

mod common;

use canon::{Tool, ToolCall, ToolOutcome, Toolbox};
use common::{SearchCode, Survey};
use proptest::prelude::*;
use serde_json::Value;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        let key = prop_oneof![
            Just("data_source_names".to_owned()),
            Just("query".to_owned()),
            Just("limit".to_owned()),
            Just("names".to_owned()),
            Just("filter".to_owned()),
            Just("labels".to_owned()),
            "\\PC{0,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(key, inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn arbitrary_text_binds_or_is_rejected(text in "\\PC{0,64}") {
        let errors = [SearchCode.bind_str(&text).err(), Survey.bind_str(&text).err()];
        for error in errors.into_iter().flatten() {
            prop_assert!(!error.violations().is_empty());
            prop_assert!(error.to_string().starts_with("The call to `"));
        }
    }

    #[test]
    fn arbitrary_values_bind_or_are_rejected_with_violations(value in json_value()) {
        for error in [SearchCode.bind(&value).err(), Survey.bind(&value).err()].into_iter().flatten() {
            prop_assert!(!error.violations().is_empty());
            for violation in error.violations() {
                prop_assert!(violation.pointer.is_empty() || violation.pointer.starts_with('/'));
                prop_assert!(violation.received.as_ref().is_none_or(|r| r.preview.chars().count() <= 64));
            }
        }
        // Text and value entries agree.
        prop_assert_eq!(
            SearchCode.bind(&value).is_ok(),
            SearchCode.bind_str(&value.to_string()).is_ok()
        );
    }

    #[test]
    fn a_toolbox_answers_every_call_in_order(
        calls in prop::collection::vec(
            (prop_oneof![Just("search_code"), Just("survey"), Just("nope")], json_value(), any::<bool>()),
            0..6,
        )
    ) {
        let mut toolbox = Toolbox::new();
        toolbox.add(SearchCode).unwrap().add(Survey).unwrap();
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, args, as_text))| {
                if as_text {
                    ToolCall::new(i.to_string(), name, args.to_string())
                } else {
                    ToolCall::new(i.to_string(), name, args)
                }
            })
            .collect();
        let expected: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let results = runtime.block_on(toolbox.call_batch(calls));
        let ids: Vec<String> = results.iter().map(|r| r.id.clone()).collect();
        prop_assert_eq!(ids, expected);
        for result in &results {
            let message = toolbox.message(result);
            prop_assert_eq!(message.is_error, !matches!(result.outcome, ToolOutcome::Ran { .. }));
            prop_assert!(!message.text.is_empty());
        }
    }
}
