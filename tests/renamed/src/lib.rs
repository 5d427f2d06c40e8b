//! A user crate with canon renamed: `agent_tools = { package = "canon", ... }`
//! and no other dependency. It compiles only if the code `#[tool]` and
//! `#[tools]` generate name canon through the path given with
//! `crate = "agent_tools"`, never `::canon`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use agent_tools::Context;

/// A hit, serialized through the renamed crate's re-export of serde.
#[derive(agent_tools::serde::Serialize)]
#[serde(crate = "agent_tools::serde")]
pub struct Hit {
    /// The repository.
    pub repo: String,
    /// The line.
    pub line: u32,
}

/// A parameter type of the user's own, derived through the re-exports.
#[derive(agent_tools::serde::Deserialize, agent_tools::schemars::JsonSchema)]
#[serde(crate = "agent_tools::serde")]
#[schemars(crate = "agent_tools::schemars")]
pub struct Scope {
    /// Paths to look under.
    pub paths: Vec<String>,
}

/// Search code in the given repositories.
#[agent_tools::tool(crate = "agent_tools", repair(number_text), timeout = "5s")]
pub fn search_code(
    /// Repositories to search.
    repos: Vec<String>,
    /// Where to look.
    scope: Option<Scope>,
    /// The line to report.
    #[arg(default = 1)]
    line: u32,
) -> Vec<Hit> {
    let _ = scope;
    repos.into_iter().map(|repo| Hit { repo, line }).collect()
}

/// The caller's identity, supplied per call.
#[derive(Clone, Debug, PartialEq)]
pub struct Caller(pub String);

/// A request id, supplied per call.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestId(pub u64);

/// Greet the caller; fails on an empty greeting.
#[agent_tools::tool(crate = "agent_tools")]
pub async fn greet(
    caller: agent_tools::Context<Caller>,
    request: Context<RequestId>,
    /// The greeting.
    greeting: String,
) -> Result<String, String> {
    if greeting.is_empty() {
        return Err("no greeting".to_owned());
    }
    Ok(format!("#{} {greeting}, {}", request.0 .0, caller.0 .0))
}

/// A service with state.
pub struct Service {
    /// A prefix for every answer.
    pub prefix: String,
}

#[agent_tools::tools(crate = "agent_tools")]
impl Service {
    /// Answer the caller.
    #[agent_tools::tool]
    pub async fn answer(
        &self,
        caller: Context<Caller>,
        /// Topics to answer about.
        #[arg(rename = "topic-list", default = Vec::new())]
        topics: Vec<String>,
    ) -> String {
        format!("{} {}: {}", self.prefix, caller.0 .0, topics.join(","))
    }

    /// Count the topics (sync: runs on the blocking pool).
    #[tool(name = "count")]
    pub fn count_topics(&self, topics: Vec<String>) -> usize {
        self.prefix.len() + topics.len()
    }
}
