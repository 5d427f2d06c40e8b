//! The public contract of `#[tool]` and `canon::Tool`, as the README
//! shows it.

mod common;

use canon::toolbox::{CallError, ViolationKind};
use canon::{tool, Tool};
use common::{Hit, SearchCode};
use serde_json::json;

#[test]
fn the_readme_example_verbatim() -> Result<(), Box<dyn std::error::Error>> {
    let tool = SearchCode;
    assert_eq!(tool.name(), "search_code");
    assert_eq!(tool.description(), "Search code in the given data sources.");
    let schema: &serde_json::Value = tool.input_schema();
    assert_eq!(
        schema["properties"]["data_source_names"],
        json!({
            "type": "array",
            "items": {"type": "string"},
            "description": "Repositories to search, like \"dotnet/eshop\"."
        })
    );
    assert_eq!(schema["additionalProperties"], json!(false));
    assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    let bound = tool.bind(&json!({"data_source_names": "dotnet/eshop", "query": "basket"}))?;
    assert_eq!(bound.args.data_source_names, vec!["dotnet/eshop"]);
    assert_eq!(bound.repairs[0].pointer, "/data_source_names");
    assert_eq!(bound.repairs.len(), 1);
    Ok(())
}

#[tokio::test]
async fn call_binds_runs_and_serializes() {
    let out = SearchCode
        .call(json!({"data_source_names": "dotnet/eshop", "query": "basket"}))
        .await
        .unwrap();
    let strict = SearchCode
        .call(json!({"data_source_names": ["dotnet/eshop"], "query": "basket"}))
        .await
        .unwrap();
    assert_eq!(out, strict);
    assert_eq!(
        out,
        serde_json::to_value(vec![Hit {
            repo: "dotnet/eshop".into(),
            path: "src/basket.cs".into()
        }])
        .unwrap()
    );
    match SearchCode.call(json!({"query": "basket"})).await {
        Err(CallError::Rejected(e)) => assert_eq!(e.pointers(), ["/data_source_names"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn bind_str_takes_openai_style_argument_text() {
    let bound = SearchCode
        .bind_str(r#"{"data_source_names": "dotnet/eshop", "query": "basket", "limit": 3}"#)
        .unwrap();
    assert_eq!(bound.args.data_source_names, ["dotnet/eshop"]);
    assert_eq!(bound.args.limit, Some(3));
    assert_eq!(bound.repairs[0].pointer, "/data_source_names");
    // Escaped text reaches the visitor as an owned string: still repaired.
    let bound = SearchCode
        .bind_str(r#"{"data_source_names": "dotnet\/eshop\u0021", "query": "q"}"#)
        .unwrap();
    assert_eq!(bound.args.data_source_names, ["dotnet/eshop!"]);
    assert_eq!(bound.repairs.len(), 1);
}

/// Ignored doc text.
#[tool(name = "find", description = "Find things.")]
fn find_things(things: Vec<String>) -> usize {
    things.len()
}

#[test]
fn name_and_description_can_be_overridden() {
    assert_eq!(FindThings.name(), "find");
    assert_eq!(FindThings.description(), "Find things.");
    let error = FindThings.bind(&json!({})).err().unwrap();
    assert_eq!(
        error.to_string(),
        "The call to `find` was not run. /things: required, expected an array of strings. \
         Fix these and call `find` again."
    );
}

/// First line.
///
/// Second paragraph, with `code`.
#[tool]
async fn read_later(
    /// The URL
    /// to read.
    url: String,
) -> Result<String, std::io::Error> {
    if url.is_empty() {
        Err(std::io::Error::other("empty url"))
    } else {
        Ok(url.to_uppercase())
    }
}

#[tokio::test]
async fn async_functions_and_results() {
    assert_eq!(
        ReadLater.description(),
        "First line.\n\nSecond paragraph, with `code`."
    );
    assert_eq!(
        ReadLater.input_schema()["properties"]["url"]["description"],
        "The URL\nto read."
    );
    assert_eq!(
        ReadLater.call(json!({"url": "a"})).await.unwrap(),
        json!("A")
    );
    match ReadLater.call(json!({"url": ""})).await {
        Err(CallError::Failed { tool, message }) => {
            assert_eq!(tool, "read_later");
            assert_eq!(message, "empty url");
        }
        other => panic!("{other:?}"),
    }
    // The error type is the function's own.
    let failed: Result<String, std::io::Error> =
        ReadLater.run(ReadLaterArgs { url: String::new() }).await;
    assert_eq!(failed.unwrap_err().kind(), std::io::ErrorKind::Other);
}

mod outcome {
    /// An alias whose last segment is `Result` is a result, like `io::Result`.
    pub type Result<T> = std::result::Result<T, String>;
}

/// Count one more, failing past 100.
#[tool]
fn alias_result(mut count: u8) -> outcome::Result<u8> {
    count += 1;
    if count > 100 {
        Err(format!("{count} is too many"))
    } else {
        Ok(count)
    }
}

/// Do nothing, with no parameters.
#[tool]
fn no_parameters() {}

/// Echo the matches (raw identifiers as names).
#[tool]
fn r#type(r#match: Vec<String>) -> Vec<String> {
    r#match
}

#[tokio::test]
async fn other_signatures() {
    assert_eq!(
        AliasResult.call(json!({"count": 1})).await.unwrap(),
        json!(2)
    );
    assert!(matches!(
        AliasResult.call(json!({"count": 100})).await,
        Err(CallError::Failed { .. })
    ));
    assert_eq!(NoParameters.call(json!({})).await.unwrap(), json!(null));
    assert_eq!(
        NoParameters.input_schema(),
        &json!({"type": "object", "additionalProperties": false})
    );
    let error = NoParameters.bind(&json!({"x": 1})).err().unwrap();
    assert_eq!(error.violations()[0].kind, ViolationKind::Unknown);
    assert_eq!(error.violations()[0].pointer, "/x");
    assert_eq!(
        error.violations()[0].message,
        "unknown parameter; this tool takes no parameters"
    );
    let error = NoParameters.bind(&json!({"x": 1, "y/z": 2})).err().unwrap();
    assert_eq!(error.pointers(), ["/x", "/y~1z"]);
    assert_eq!(Type.name(), "type");
    assert_eq!(
        Type.call(json!({"match": "m"})).await.unwrap(),
        json!(["m"])
    );
    // The function stays callable as written.
    assert_eq!(r#type(vec!["x".into()]), ["x"]);
    assert_eq!(alias_result(1), Ok(2));
}

struct NotSerializable;

impl serde::Serialize for NotSerializable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("refused"))
    }
}

/// Return an output that refuses to serialize.
#[tool]
fn opaque() -> NotSerializable {
    NotSerializable
}

#[tokio::test]
async fn output_that_cannot_be_serialized_is_reported() {
    match Opaque.call(json!({})).await {
        Err(CallError::Output { tool, message }) => {
            assert_eq!(tool, "opaque");
            assert_eq!(message, "refused");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn generated_items_are_plain_types() {
    fn assert_traits<T: Copy + Default + std::fmt::Debug + Send + Sync + 'static>() {}
    assert_traits::<SearchCode>();
    let args = common::SearchCodeArgs {
        data_source_names: vec![],
        query: String::new(),
        limit: None,
    };
    assert!(args.data_source_names.is_empty());
}

/// A parameter type without `Debug`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Window {
    /// First line.
    pub from: u32,
}

/// Show a window of lines.
#[canon::tool]
fn show_window(window: Window, label: String) -> u32 {
    window.from + label.len() as u32
}

#[test]
fn generated_arguments_are_debug_whatever_their_fields() {
    use canon::Tool;
    let bound = ShowWindow
        .bind(&serde_json::json!({"window": {"from": 1}, "label": "x"}))
        .unwrap();
    assert_eq!(
        format!("{:?}", bound.args),
        r#"ShowWindowArgs { window: _, label: "x" }"#
    );
    // What a user's test writes: it compiles and says why.
    let error = ShowWindow.bind(&serde_json::json!({})).unwrap_err();
    assert_eq!(error.pointers(), ["/label", "/window"]);
}

/// Count the words, naming canon by an explicit path.
#[tool(crate = "::canon", name = "count_words")]
fn explicit_crate_path(words: Vec<String>) -> usize {
    words.len()
}

struct Shelf;

#[canon::tools(crate = "canon")]
impl Shelf {
    /// Count the books.
    #[canon::tool]
    fn books(&self, titles: Vec<String>) -> usize {
        titles.len()
    }
}

#[tokio::test]
async fn an_explicit_crate_path_changes_nothing() {
    assert_eq!(ExplicitCratePath.name(), "count_words");
    assert_eq!(
        ExplicitCratePath
            .call(json!({"words": "one"}))
            .await
            .unwrap(),
        json!(1)
    );
    let tools = std::sync::Arc::new(Shelf).tools();
    assert_eq!(tools[0].spec().name(), "books");
    assert_eq!(
        ShelfBooks(std::sync::Arc::new(Shelf))
            .call(json!({"titles": ["a", "b"]}))
            .await
            .unwrap(),
        json!(2)
    );
}

/// Names the user's code may use, which the generated code must not take
/// for its own: every path it writes is absolute.
mod shadowing {
    #![allow(dead_code, non_camel_case_types)]
    use ::canon::{tool, Context};

    mod canon {}
    mod core {}
    mod std {}
    mod serde {}
    mod schemars {}
    pub struct Option;
    pub struct Some;
    pub struct None;
    pub struct Ok;
    pub struct Err;
    pub struct Send;
    pub struct Sync;
    pub struct Clone;
    pub struct Copy;
    pub struct Default;
    pub struct Debug;
    pub struct Vec;
    pub struct Box;
    pub struct Arc;
    pub struct Future;
    pub struct Deserialize;
    pub struct JsonSchema;
    pub struct usize;
    pub struct u64;
    pub struct u8;

    /// Echo the text: the parameter has the function's name.
    #[tool]
    pub fn echo(echo: ::std::string::String) -> ::std::string::String {
        echo
    }

    /// Shout the text, asynchronously, with parameters named like the
    /// generated code's own variables.
    #[tool]
    #[allow(clippy::too_many_arguments)]
    pub async fn shout(
        shout: ::std::string::String,
        args: ::core::primitive::u8,
        context: ::core::primitive::u8,
        de: ::core::primitive::u8,
        map: ::core::primitive::u8,
        seq: ::core::primitive::u8,
        f: ::core::primitive::u8,
        fields: ::core::primitive::u8,
        value: ::core::primitive::u8,
    ) -> ::std::string::String {
        let _ = (args, context, de, map, seq, f, fields, value);
        shout.to_uppercase()
    }

    /// Tag the request: context parameters named like the generated code's
    /// variables.
    #[tool]
    pub fn tag(
        args: Context<::core::primitive::u64>,
        context: Context<::std::string::String>,
        tag: ::std::string::String,
    ) -> ::std::string::String {
        ::std::format!("{}#{} {tag}", context.0, args.0)
    }

    pub struct Shelf;

    #[::canon::tools]
    impl Shelf {
        /// Count the books.
        #[tool]
        pub fn count(&self, count: u32, __canon_self: u32) -> u32 {
            count + __canon_self
        }
    }
}

#[tokio::test]
async fn generated_code_is_hygienic() {
    use canon::toolbox::CallContext;
    use shadowing::{Echo, Shelf, ShelfCount, Shout, Tag};
    assert_eq!(Echo.call(json!({"echo": "a"})).await.unwrap(), json!("a"));
    let all = json!({"shout": "a", "args": 1, "context": 2, "de": 3, "map": 4,
                     "seq": 5, "f": 6, "fields": 7, "value": 8});
    assert_eq!(Shout.call(all).await.unwrap(), json!("A"));
    let args = Tag.bind(&json!({"tag": "t"})).unwrap().args;
    let context = CallContext::new().with(7_u64).with(String::from("req"));
    assert_eq!(Tag.run_with(args, &context).await, Ok("req#7 t".to_owned()));
    assert_eq!(
        ShelfCount(std::sync::Arc::new(Shelf))
            .call(json!({"count": 1, "__canon_self": 2}))
            .await
            .unwrap(),
        json!(3)
    );
}

/// A type of the user's own named `Context`, read from the model's
/// arguments, and `canon::Context` under an alias.
mod own_context {
    use canon::tool;

    /// The user's own context: where to look.
    #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    pub struct Context<T> {
        /// What the context is about.
        pub topic: T,
    }

    /// The caller, supplied per call.
    #[derive(Clone, Debug, PartialEq)]
    pub struct User(pub String);

    /// canon's context type, under another name.
    pub type Caller = canon::Context<User>;

    /// Look in the user's own context: an ordinary parameter.
    #[tool]
    pub fn look(
        /// Where to look.
        #[arg(not_context)]
        context: Context<String>,
        /// The caller.
        #[arg(context)]
        caller: Caller,
    ) -> String {
        format!("{}: {}", caller.0 .0, context.topic)
    }

    /// Marked, though its type already says it.
    #[tool]
    pub fn whoami(#[arg(context)] user: canon::Context<User>) -> String {
        user.0 .0
    }
}

#[tokio::test]
async fn context_parameters_are_canons_context_only() {
    use canon::toolbox::{CallContext, ContextError};
    use own_context::{Look, User, Whoami};
    let properties = Look.input_schema()["properties"].as_object().unwrap();
    assert_eq!(properties.keys().collect::<Vec<_>>(), ["context"]);
    assert_eq!(Look.input_schema()["required"], json!(["context"]));
    let context = CallContext::new().with(User("ada".into()));
    let args = Look
        .bind(&json!({"context": {"topic": "rust"}}))
        .unwrap()
        .args;
    assert_eq!(args.context.topic, "rust");
    assert_eq!(
        Look.run_with(args, &context).await,
        Ok("ada: rust".to_owned())
    );
    // The alias's value is named as a written-out type would be.
    let args = Look
        .bind(&json!({"context": {"topic": "rust"}}))
        .unwrap()
        .args;
    assert_eq!(Look.run(args).await, Err(ContextError::Missing("User")));
    assert!(Look.bind(&json!({"caller": "mallory"})).is_err());
    let args = Whoami.bind(&json!({})).unwrap().args;
    assert_eq!(Whoami.run_with(args, &context).await, Ok("ada".to_owned()));
}

/// A tool whose arguments' schema is compared with schemars' own derive.
#[allow(dead_code)]
mod schema_fidelity {
    use super::Window;

    /// Show lines.
    #[canon::tool]
    pub fn show_lines(
        /// Where to look.
        window: Window,
        /// Which windows, maybe.
        windows: Option<Vec<Window>>,
        /// A label.
        #[arg(rename = "the-label", default = String::from("x"))]
        label: String,
        #[arg(description = "A count.")] count: Option<u8>,
        tags: std::collections::BTreeSet<String>,
    ) -> u32 {
        let _ = (windows, label, count, tags);
        window.from
    }

    /// The same fields, derived by schemars alone.
    pub mod reference {
        use super::super::Window;

        fn default_label() -> String {
            String::from("x")
        }

        #[derive(schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct ShowLinesArgs {
            /// Where to look.
            pub window: Window,
            /// Which windows, maybe.
            pub windows: Option<Vec<Window>>,
            /// A label.
            #[serde(rename = "the-label", default = "default_label")]
            pub label: String,
            #[schemars(description = "A count.")]
            pub count: Option<u8>,
            pub tags: std::collections::BTreeSet<String>,
        }
    }
}

#[test]
fn argument_schemas_are_the_types_own() {
    for generator in [
        schemars::generate::SchemaSettings::draft2020_12(),
        schemars::generate::SchemaSettings::draft07(),
        schemars::generate::SchemaSettings::openapi3(),
    ]
    .map(|settings| settings.for_deserialize().into_generator())
    {
        assert_eq!(
            generator
                .clone()
                .into_root_schema_for::<schema_fidelity::ShowLinesArgs>(),
            generator.into_root_schema_for::<schema_fidelity::reference::ShowLinesArgs>()
        );
    }
}

// A tool whose doc comment is partly written by macros.
#[doc = concat!("Add ", "numbers.")]
///
/// Both of them.
#[tool]
fn add_up(x: u32, #[arg(default = 2)] y: u32) -> u32 {
    x + y
}

macro_rules! greeter {
    ($name:ident, $context:ty, $text:ty) => {
        /// Greet the caller.
        #[tool]
        fn $name(user: $context, greeting: $text) -> String {
            format!("{greeting} {}", user.0)
        }
    };
}

greeter!(greet, canon::Context<String>, String);

#[tokio::test]
async fn doc_macros_fragments_and_positional_defaults() {
    assert_eq!(AddUp.spec().description(), "Add numbers.\n\nBoth of them.");
    // An array that ends before a field with a default binds the default,
    // as serde's derive does (a call is an object: this is the type's own
    // `Deserialize`).
    let args: AddUpArgs = serde_json::from_value(json!([1])).unwrap();
    assert_eq!((args.x, args.y), (1, 2));
    let error = serde_json::from_value::<AddUpArgs>(json!([])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid length 0, expected struct AddUpArgs with 2 elements"
    );
    // A `$t:ty` fragment is a context parameter as the type written out is.
    assert_eq!(
        Greet.input_schema()["properties"],
        json!({"greeting": {"type": "string"}})
    );
    let args = Greet.bind(&json!({"greeting": "hi"})).unwrap().args;
    let context = canon::toolbox::CallContext::new().with(String::from("ada"));
    assert_eq!(
        Greet.run_with(args, &context).await,
        Ok("hi ada".to_owned())
    );
}
