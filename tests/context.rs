//! `Context<T>` parameters: per-call state from the caller, never in the
//! schema, never from the model.

use std::sync::Arc;

use canon::toolbox::{CallContext, ContextError};
use canon::{tool, Context, Tool, ToolCall, ToolOutcome, Toolbox};
use serde_json::json;

#[derive(Clone, Debug, PartialEq)]
struct RequestId(u64);

#[derive(Clone, Debug, PartialEq)]
struct User(String);

/// Say who asked what.
#[tool]
async fn whoami(
    request: Context<RequestId>,
    /// What to echo.
    text: String,
    user: canon::Context<User>,
) -> Result<String, String> {
    if text.is_empty() {
        return Err("nothing to say".into());
    }
    Ok(format!("#{} {}: {text}", request.0 .0, user.0 .0))
}

struct Service;

#[canon::tools]
impl Service {
    /// Tag the request.
    #[tool]
    fn tag(&self, request: Context<RequestId>, tags: Vec<String>) -> String {
        format!("#{} {}", request.0 .0, tags.join(","))
    }
}

#[test]
fn context_parameters_are_not_in_the_schema() {
    assert_eq!(
        Whoami.input_schema(),
        &json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"text": {"type": "string", "description": "What to echo."}},
            "required": ["text"]
        })
    );
    let error = Whoami
        .bind(&json!({"text": "hi", "user": "mallory"}))
        .err()
        .unwrap();
    assert_eq!(error.pointers(), ["/user"]);
}

#[tokio::test]
async fn the_caller_supplies_the_context() {
    let context = CallContext::new()
        .with(RequestId(7))
        .with(User("ada".into()));
    let args = Whoami.bind(&json!({"text": "hi"})).unwrap().args;
    assert_eq!(
        Whoami.run_with(args, &context).await,
        Ok("#7 ada: hi".to_owned())
    );
    let args = Whoami.bind(&json!({"text": ""})).unwrap().args;
    assert_eq!(
        Whoami.run_with(args, &context).await,
        Err(ContextError::Tool("nothing to say".to_owned()))
    );
    let args = Whoami.bind(&json!({"text": "hi"})).unwrap().args;
    assert_eq!(
        Whoami.run(args).await,
        Err(ContextError::Missing("RequestId"))
    );

    let mut toolbox = Toolbox::new();
    toolbox.add(Whoami).unwrap();
    for tool in Arc::new(Service).tools() {
        toolbox.add_shared(tool).unwrap();
    }
    let results = toolbox
        .call_batch_with(
            [
                ToolCall::new("1", "whoami", json!({"text": "hi"})),
                ToolCall::new("2", "tag", json!({"tags": "urgent"})),
            ],
            &context,
        )
        .await;
    assert_eq!(
        results[0].outcome,
        ToolOutcome::Ran {
            output: json!("#7 ada: hi"),
            repairs: canon::Repairs::new()
        }
    );
    match &results[1].outcome {
        ToolOutcome::Ran { output, repairs } => {
            assert_eq!(output, &json!("#7 urgent"));
            assert_eq!(repairs.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    // Without the context, the tool does not run and says why.
    let missing = toolbox
        .call_with(
            ToolCall::new("3", "whoami", json!({"text": "hi"})),
            &CallContext::new().with(RequestId(1)),
        )
        .await;
    assert_eq!(
        missing.outcome,
        ToolOutcome::Failed {
            message: "the caller supplied no `User` in the call context, so the tool did not run"
                .into()
        }
    );
    assert_eq!(
        format!("{:?}", CallContext::new().with(User("secret".into()))),
        "CallContext { values: 1 }"
    );
}
