//! The tools of a crate that names canon `agent_tools`: bound, called, and
//! run by a toolbox with a call context.

use std::sync::Arc;

use agent_tools::serde_json::json;
use agent_tools::toolbox::{CallContext, ContextError};
use agent_tools::{Tool, ToolCall, ToolOutcome, Toolbox};
use canon_renamed_fixture::{Caller, Greet, RequestId, SearchCode, Service};

#[test]
fn a_free_tool_binds_with_its_repairs_and_defaults() {
    assert_eq!(SearchCode.name(), "search_code");
    assert_eq!(
        SearchCode.timeout(),
        Some(std::time::Duration::from_secs(5))
    );
    let schema = SearchCode.input_schema();
    assert_eq!(schema["properties"]["repos"]["type"], "array");
    assert_eq!(schema["properties"]["line"]["default"], 1);
    assert_eq!(schema["required"], json!(["repos"]));
    let bound = SearchCode
        .bind(&json!({"repos": "dotnet/eshop", "scope": {"paths": "src"}}))
        .unwrap();
    assert_eq!(bound.args.repos, ["dotnet/eshop"]);
    assert_eq!(bound.args.line, 1);
    assert_eq!(bound.args.scope.unwrap().paths, ["src"]);
    let pointers: Vec<&str> = bound.repairs.iter().map(|r| &*r.pointer).collect();
    assert_eq!(pointers, ["/repos", "/scope/paths"]);
    // The tool's own opt-in rule.
    let bound = SearchCode
        .bind_str(r#"{"repos": [], "line": "7"}"#)
        .unwrap();
    assert_eq!(bound.args.line, 7);
    let error = SearchCode.bind(&json!({"line": 2})).unwrap_err();
    assert_eq!(error.pointers(), ["/repos"]);
}

#[tokio::test]
async fn tools_run_with_the_context() {
    let out = SearchCode
        .call(json!({"repos": "a", "line": 3}))
        .await
        .unwrap();
    assert_eq!(out, json!([{"repo": "a", "line": 3}]));

    let context = CallContext::new()
        .with(Caller("ada".into()))
        .with(RequestId(7));
    let args = Greet.bind(&json!({"greeting": "hi"})).unwrap().args;
    assert_eq!(
        Greet.run_with(args, &context).await,
        Ok("#7 hi, ada".to_owned())
    );
    let args = Greet.bind(&json!({"greeting": "hi"})).unwrap().args;
    assert_eq!(Greet.run(args).await, Err(ContextError::Missing("Caller")));

    let mut toolbox = Toolbox::new();
    toolbox.add(Greet).unwrap();
    for tool in Arc::new(Service { prefix: ">".into() }).tools() {
        toolbox.add_shared(tool).unwrap();
    }
    let results = toolbox
        .call_batch_with(
            [
                ToolCall::new("1", "answer", r#"{"topic-list": "rust"}"#),
                ToolCall::new("2", "count", json!({"topics": ["a", "b"]})),
                ToolCall::new("3", "greet", json!({"greeting": ""})),
            ],
            &context,
        )
        .await;
    match &results[0].outcome {
        ToolOutcome::Ran { output, repairs } => {
            assert_eq!(output, &json!("> ada: rust"));
            assert_eq!(&*repairs[0].pointer, "/topic-list");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        results[1].outcome,
        ToolOutcome::Ran {
            output: json!(3),
            repairs: Default::default()
        }
    );
    assert_eq!(
        results[2].outcome,
        ToolOutcome::Failed {
            message: "no greeting".into()
        }
    );
}
