//! `canon::testing`, as a user calls it in their own tests: every dialect
//! checked at once with each refusal named, snapshots of what the tools
//! publish, and a toolbox left binding as it did.

use std::collections::HashMap;

use canon::export::Dialect;
use canon::{testing, tool, ToolCall, ToolOutcome, Toolbox};
use serde_json::json;

/// Search the notes.
#[tool]
fn search(
    /// What to look for.
    query: String,
    /// Tags to look in.
    tags: Vec<String>,
    /// At most this many hits.
    limit: Option<u32>,
    /// Whether to match exactly.
    #[arg(default = false)]
    exact: bool,
) -> String {
    format!("{query} {tags:?} {limit:?} {exact}")
}

/// Say hello.
#[tool]
fn greet(name: String) -> String {
    format!("hello {name}")
}

/// Search with free-form filters.
#[tool]
fn filtered(
    /// What to look for.
    query: String,
    /// Field and value pairs.
    filters: HashMap<String, String>,
) -> String {
    format!("{query} {}", filters.len())
}

fn clean() -> Toolbox {
    let mut toolbox = Toolbox::new();
    toolbox.add(Search).unwrap().add(Greet).unwrap();
    toolbox
}

fn with_map() -> Toolbox {
    let mut toolbox = clean();
    toolbox.add(Filtered).unwrap();
    toolbox
}

#[test]
fn a_clean_toolbox_passes_every_dialect() {
    testing::check_exports(&clean(), &Dialect::ALL).unwrap();
    testing::check_exports(&clean(), &[]).unwrap();
    testing::check_exports(&Toolbox::new(), &Dialect::ALL).unwrap();
}

#[test]
fn an_inexpressible_tool_is_named_with_its_dialect_and_pointer() {
    let strict = Dialect::OpenAi { strict: true };
    let failures = testing::check_exports(&with_map(), &[strict]).unwrap_err();
    assert_eq!(failures.tools(), ["filtered"]);
    assert_eq!(failures.failures().len(), 1);
    let failure = &failures.failures()[0];
    assert_eq!(
        (
            failure.tool.as_str(),
            failure.dialect,
            failure.pointer.as_str()
        ),
        ("filtered", strict, "/properties/filters")
    );
    insta::assert_snapshot!("openai_strict_failure", failures.to_string());
    // What `unwrap()` shows: a count, then the same lines.
    insta::assert_snapshot!("openai_strict_failure_debug", format!("{failures:?}"));
    // The relaxed dialect takes the map.
    testing::check_exports(&with_map(), &[Dialect::OpenAi { strict: false }]).unwrap();
}

#[test]
fn every_refusal_is_listed_not_only_the_first() {
    // A dialect named twice is checked once.
    let mut dialects = Dialect::ALL.to_vec();
    dialects.push(Dialect::OpenAi { strict: true });
    let failures = testing::check_exports(&with_map(), &dialects).unwrap_err();
    assert_eq!(failures.tools(), ["filtered"]);
    insta::assert_snapshot!("all_dialects_failures", failures.to_string());
}

#[test]
fn failures_are_errors_a_test_can_return() {
    fn check(toolbox: &Toolbox) -> Result<(), Box<dyn std::error::Error>> {
        testing::check_exports(toolbox, &[Dialect::Anthropic { strict: true }])?;
        Ok(())
    }
    assert!(check(&clean()).is_ok());
    let error = check(&with_map()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("`filtered` in anthropic (strict): /properties/filters: "),
        "{error}"
    );
}

/// The call a model following a strict OpenAI declaration sends for
/// `search` when it leaves `exact` at its default.
async fn null_outcome(toolbox: &Toolbox) -> ToolOutcome {
    let call = json!({"query": "q", "tags": ["a"], "limit": null, "exact": null});
    toolbox
        .call(ToolCall::new("1", "search", call))
        .await
        .outcome
}

#[tokio::test]
async fn checking_strict_exports_leaves_the_binding_as_it_was() {
    let toolbox = clean();
    let before = null_outcome(&toolbox).await;
    // Undeclared, the defaulted parameter's `null` is refused.
    match &before {
        ToolOutcome::Rejected(error) => assert_eq!(error.pointers(), ["/exact"]),
        other => panic!("{other:?}"),
    }
    testing::check_exports(&toolbox, &Dialect::ALL).unwrap();
    let _ = testing::schemas(&toolbox, Dialect::OpenAi { strict: true });
    let _ = testing::schemas(&toolbox, Dialect::OpenAiResponses { strict: true });
    assert!(!toolbox.policy().nulls_declared());
    assert_eq!(null_outcome(&toolbox).await, before);

    // Exporting the toolbox itself does change it: the check above would
    // have seen it.
    toolbox.export(Dialect::OpenAi { strict: true }).unwrap();
    assert!(matches!(
        null_outcome(&toolbox).await,
        ToolOutcome::Ran { .. }
    ));
}

#[test]
fn schemas_snapshot_each_tool_by_name() {
    let toolbox = clean();
    insta::assert_json_snapshot!(
        "openai_strict_schemas",
        testing::schemas(&toolbox, Dialect::OpenAi { strict: true })
    );
    insta::assert_json_snapshot!("published_schemas", testing::published_schemas(&toolbox));
}

#[test]
fn schemas_are_sorted_whatever_the_registration_order() {
    let mut reversed = Toolbox::new();
    reversed.add(Greet).unwrap().add(Search).unwrap();
    for dialect in Dialect::ALL {
        let schemas = testing::schemas(&reversed, dialect);
        assert_eq!(schemas, testing::schemas(&clean(), dialect));
        let names: Vec<&String> = schemas.as_object().unwrap().keys().collect();
        assert_eq!(names, ["greet", "search"]);
        // Text, as a snapshot stores it, is the same too.
        assert_eq!(
            serde_json::to_string(&schemas).unwrap(),
            serde_json::to_string(&testing::schemas(&clean(), dialect)).unwrap()
        );
    }
    assert_eq!(
        testing::published_schemas(&reversed),
        testing::published_schemas(&clean())
    );
}

#[test]
fn a_refused_tool_shows_in_the_snapshot_in_its_place() {
    let schemas = testing::schemas(&with_map(), Dialect::OpenAi { strict: true });
    let refused = &schemas["filtered"]["error"];
    assert_eq!(refused["pointer"], "/properties/filters");
    assert!(refused["reason"].as_str().is_some_and(|r| !r.is_empty()));
    assert_eq!(schemas["greet"]["function"]["name"], "greet");
    // Declared without strict mode, it is an ordinary entry.
    let relaxed = testing::schemas(&with_map(), Dialect::OpenAi { strict: false });
    assert_eq!(relaxed["filtered"]["function"]["name"], "filtered");
}
