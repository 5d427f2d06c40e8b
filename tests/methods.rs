//! `#[canon::tools]`: `&self` methods become tools bound to a shared
//! instance, with the same binding, telemetry and errors as free functions.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use canon::{Tool, ToolCall, ToolOutcome, Toolbox};
use serde_json::json;

/// A repository with state shared by every call.
struct Repo {
    root: String,
    reads: AtomicUsize,
}

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
struct File {
    path: String,
}

#[canon::tools]
impl Repo {
    /// Look up files by path.
    #[tool]
    async fn read_files(
        &self,
        /// Paths under the root.
        paths: Vec<String>,
    ) -> Result<Vec<File>, String> {
        if paths.iter().any(|p| p.contains("..")) {
            return Err("paths may not leave the root".into());
        }
        self.reads.fetch_add(paths.len(), Ordering::SeqCst);
        Ok(paths
            .into_iter()
            .map(|p| File {
                path: format!("{}/{p}", self.root),
            })
            .collect())
    }

    /// Count the reads so far.
    #[canon::tool(name = "read_count")]
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    /// Read the first lines of a file.
    #[tool(repair(number_text))]
    fn head(&self, path: String, lines: u32) -> String {
        format!("{}/{path}: {lines} lines", self.root)
    }

    /// Not a tool: plain helper, left untouched.
    fn helper(&self) -> &str {
        &self.root
    }
}

fn repo() -> Arc<Repo> {
    Arc::new(Repo {
        root: "/srv".into(),
        reads: AtomicUsize::new(0),
    })
}

#[tokio::test]
async fn methods_are_tools_on_a_shared_instance() {
    let repo = repo();
    assert_eq!(repo.helper(), "/srv");
    let tools = repo.clone().tools();
    let names: Vec<&str> = tools.iter().map(|t| t.spec().name()).collect();
    assert_eq!(names, ["read_files", "read_count", "head"]);

    let read = RepoReadFiles(repo.clone());
    assert_eq!(read.description(), "Look up files by path.");
    assert_eq!(
        read.input_schema()["properties"]["paths"],
        json!({"type": "array", "items": {"type": "string"}, "description": "Paths under the root."})
    );
    assert!(read.output_schema().is_some());
    let bound = read.bind(&json!({"paths": "README.md"})).unwrap();
    assert_eq!(bound.args.paths, ["README.md"]);
    assert_eq!(bound.repairs[0].pointer, "/paths");

    let mut toolbox = Toolbox::new();
    for tool in tools {
        toolbox.add_shared(tool).unwrap();
    }
    let results = toolbox
        .call_batch([
            ToolCall::new("1", "read_files", r#"{"paths": "README.md"}"#),
            ToolCall::new("2", "read_files", json!({"paths": ["a", "b"]})),
            ToolCall::new("3", "read_files", json!({"paths": ["../etc/passwd"]})),
            ToolCall::new("4", "read_files", json!({})),
        ])
        .await;
    assert_eq!(
        results[0].outcome,
        ToolOutcome::Ran {
            output: json!([{"path": "/srv/README.md"}]),
            repairs: canon::Repair::new("/paths", canon::RepairRule::ScalarToArray).into(),
        }
    );
    assert!(matches!(results[1].outcome, ToolOutcome::Ran { .. }));
    assert_eq!(
        results[2].outcome,
        ToolOutcome::Failed {
            message: "paths may not leave the root".into()
        }
    );
    match &results[3].outcome {
        ToolOutcome::Rejected(error) => assert_eq!(error.pointers(), ["/paths"]),
        other => panic!("{other:?}"),
    }
    // State is shared: the count tool sees the reads of the other tool.
    let count = toolbox.call(ToolCall::new("5", "read_count", "")).await;
    match count.outcome {
        ToolOutcome::Ran { output, .. } => assert_eq!(output, json!(3)),
        other => panic!("{other:?}"),
    }
    assert_eq!(repo.reads.load(Ordering::SeqCst), 3);
}

#[test]
fn a_method_takes_its_own_repair_rules() {
    let head = RepoHead(repo());
    let bound = head.bind(&json!({"path": "a.rs", "lines": "20"})).unwrap();
    assert_eq!(bound.args.lines, 20);
    assert_eq!(
        bound.repairs,
        [canon::Repair::new("/lines", canon::RepairRule::NumberText)]
    );
    // The other tools of the impl keep the default policy.
    assert_eq!(
        RepoReadFiles(repo()).spec().policy(),
        canon::Policy::DEFAULT
    );
}

/// A type whose tool methods are named like methods of `Arc` and its
/// traits, take and return `Self`, read an associated constant in a
/// default, and one of which is left out by `#[cfg]`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Git {
    url: String,
}

#[canon::tools]
impl Git {
    const DEPTH: u32 = 1;

    /// Clone the repository.
    #[tool]
    async fn clone(&self, #[arg(default = Self::DEPTH)] depth: u32) -> String {
        format!("{} at depth {depth}", self.url)
    }

    /// The URL, as text.
    #[tool]
    #[allow(clippy::inherent_to_string)]
    fn to_string(&self) -> String {
        self.url.clone()
    }

    /// This repository, moved to another URL.
    #[tool]
    fn moved(&self, to: Self) -> Self {
        Git {
            url: format!("{} -> {}", self.url, to.url),
        }
    }

    /// Never compiled in.
    #[cfg(any())]
    #[tool]
    fn gated(&self) -> u32 {
        0
    }
}

mod inner {
    /// A type reached by its path.
    pub struct Counter;
}

#[canon::tools]
impl inner::Counter {
    /// Count one.
    #[tool]
    fn count(&self) -> u32 {
        1
    }
}

#[tokio::test]
async fn methods_are_called_on_the_type_whatever_their_names() {
    let git = Arc::new(Git {
        url: "https://example.com/r.git".into(),
    });
    let mut toolbox = Toolbox::new();
    let tools = Arc::clone(&git).tools();
    // `gated` is left out with its method.
    let names: Vec<_> = tools.iter().map(|t| t.spec().name().to_owned()).collect();
    assert_eq!(names, ["clone", "to_string", "moved"]);
    for tool in tools {
        toolbox.add_shared(tool).unwrap();
    }
    for tool in Arc::new(inner::Counter).tools() {
        toolbox.add_shared(tool).unwrap();
    }
    let results = toolbox
        .call_batch([
            ToolCall::new("1", "clone", json!({})),
            ToolCall::new("2", "to_string", json!({})),
            ToolCall::new("3", "moved", json!({"to": {"url": "b"}})),
            ToolCall::new("4", "count", json!({})),
        ])
        .await;
    let outputs: Vec<_> = results
        .iter()
        .map(|r| match &r.outcome {
            ToolOutcome::Ran { output, .. } => output.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        outputs,
        [
            json!("https://example.com/r.git at depth 1"),
            json!("https://example.com/r.git"),
            json!({"url": "https://example.com/r.git -> b"}),
            json!(1),
        ]
    );
    // `Self` in a parameter is the type, with its schema.
    assert_eq!(
        GitMoved(git).input_schema()["properties"]["to"],
        json!({"$ref": "#/$defs/Git"})
    );
}
