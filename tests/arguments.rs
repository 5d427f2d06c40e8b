//! `#[arg(...)]` on tool parameters: wire names, descriptions and defaults.

use canon::{tool, Tool};
use serde_json::json;

/// Search with every parameter attribute.
#[tool]
fn search(
    /// Ignored: the attribute's description wins.
    #[arg(rename = "q", description = "What to look for.")]
    query: String,
    /// At most this many hits.
    #[arg(default = 10)]
    limit: u32,
    /// Where to look.
    #[arg(rename = "data/sources", default = vec!["main".to_owned()])]
    sources: Vec<String>,
) -> String {
    format!("{query}:{limit}:{}", sources.join(","))
}

#[test]
fn attributes_shape_the_schema() {
    insta::assert_json_snapshot!("arguments_schema", Search.input_schema());
    let schema = Search.input_schema();
    assert_eq!(schema["required"], json!(["q"]));
    assert_eq!(
        schema["properties"]["q"]["description"],
        "What to look for."
    );
    assert_eq!(schema["properties"]["limit"]["default"], json!(10));
    assert_eq!(
        schema["properties"]["data/sources"]["default"],
        json!(["main"])
    );
    assert!(schema["properties"].get("query").is_none());
}

#[tokio::test]
async fn renamed_and_defaulted_parameters_bind() {
    assert_eq!(
        Search.call(json!({"q": "basket"})).await.unwrap(),
        json!("basket:10:main")
    );
    assert_eq!(
        Search
            .call(json!({"q": "basket", "limit": 3, "data/sources": "a"}))
            .await
            .unwrap(),
        json!("basket:3:a")
    );
    // The repair's pointer uses the wire name, escaped.
    let bound = Search
        .bind(&json!({"q": "x", "data/sources": "a"}))
        .unwrap();
    assert_eq!(bound.repairs[0].pointer, "/data~1sources");
    let bound = Search
        .bind_str(r#"{"q": "x", "data/sources": "a"}"#)
        .unwrap();
    assert_eq!(bound.repairs[0].pointer, "/data~1sources");
    // The Rust name is not a parameter name.
    let error = Search.bind(&json!({"query": "x"})).err().unwrap();
    assert_eq!(error.pointers(), ["/q", "/query"]);
    assert_eq!(
        error.violations()[1].message,
        "unknown parameter; did you mean `q`?"
    );
}
