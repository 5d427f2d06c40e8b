//! The tools the contract is checked on: one per family of shapes, each
//! answering with the arguments it received, serialized back, so the test
//! can compare them with what strict serde binds from the same call.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;

use canon::toolbox::ToolSpec;
use canon::{tool, Tool, Toolbox};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool for an arguments type of the test's own: the spec is
/// `ToolSpec::of::<A>`, the output the arguments as JSON.
pub struct Echo<A> {
    spec: ToolSpec,
    args: PhantomData<fn() -> A>,
}

impl<A: JsonSchema> Echo<A> {
    pub fn new(name: &'static str, description: &'static str) -> Self {
        Echo {
            spec: ToolSpec::of::<A>(name, description),
            args: PhantomData,
        }
    }
}

impl<A> Tool for Echo<A>
where
    A: DeserializeOwned + Serialize + Send + 'static,
{
    type Args = A;
    type Output = Value;
    type Error = String;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn run(&self, args: A) -> impl Future<Output = Result<Value, String>> + Send {
        let output = serde_json::to_value(&args).map_err(|e| e.to_string());
        async move { output }
    }
}

/// One tool under test: how to add it to a toolbox, and how to compare
/// what it received with strict serde.
pub struct Subject {
    pub name: &'static str,
    /// The shapes it covers, for the report.
    pub shapes: &'static str,
    pub add: fn(&mut Toolbox),
    /// `Ok` when strict serde binds the call (into the arguments type, or
    /// for a `#[tool]` its mirror).
    pub serde: fn(&Value) -> Result<(), String>,
    /// `Ok` when the tool's output equals what strict serde binds from the
    /// call.
    pub same: fn(call: &Value, output: &Value) -> Result<(), String>,
}

impl Subject {
    /// A toolbox holding this tool only.
    pub fn toolbox(&self) -> Toolbox {
        let mut toolbox = Toolbox::new();
        (self.add)(&mut toolbox);
        toolbox
    }
}

pub fn serde_binds<A: DeserializeOwned>(call: &Value) -> Result<(), String> {
    serde_json::from_value::<A>(call.clone())
        .map(drop)
        .map_err(|e| e.to_string())
}

pub fn same_as_serde<A>(call: &Value, output: &Value) -> Result<(), String>
where
    A: DeserializeOwned + PartialEq + Debug,
{
    let expected: A = serde_json::from_value(call.clone())
        .map_err(|e| format!("strict serde refuses the call: {e}"))?;
    let received: A = serde_json::from_value(output.clone())
        .map_err(|e| format!("the tool's output {output} does not read back: {e}"))?;
    if expected == received {
        Ok(())
    } else {
        Err(format!(
            "the tool received {received:?}, strict serde binds {expected:?}"
        ))
    }
}

/// Every tool, with the shapes it covers.
pub fn subjects() -> Vec<Subject> {
    vec![
        Subject {
            name: "bounds",
            shapes: "schemars range on u32/u8/i64/f64/f32/Option<u16>, Vec<u8> items, implicit i8/u8 bounds",
            add: |t| add(t, Echo::<Bounds>::new("bounds", "Numbers with bounds.")),
            serde: serde_binds::<Bounds>,
            same: same_as_serde::<Bounds>,
        },
        Subject {
            name: "formats",
            shapes: "integer/float formats without bounds: u16, u32, u64, usize, i32, i64, f32, Option<u32>",
            add: |t| add(t, Echo::<Formats>::new("formats", "Numbers of every width.")),
            serde: serde_binds::<Formats>,
            same: same_as_serde::<Formats>,
        },
        Subject {
            name: "texts",
            shapes: "schemars length on String/Vec<String>/Option<Vec<String>>, inner lengths, regex patterns, email, url",
            add: |t| add(t, Echo::<Texts>::new("texts", "Strings with constraints.")),
            serde: serde_binds::<Texts>,
            same: same_as_serde::<Texts>,
        },
        Subject {
            name: "collections",
            shapes: "Vec<String>, Option<Vec<String>>, Vec<Vec<String>>, HashSet/BTreeSet (uniqueItems), set lengths",
            add: |t| add(t, Echo::<Collections>::new("collections", "Lists and sets.")),
            serde: serde_binds::<Collections>,
            same: same_as_serde::<Collections>,
        },
        Subject {
            name: "choices",
            shapes: "unit enums, Vec/Option of enums, internally tagged enum, Option of it, untagged enums, externally tagged enum",
            add: |t| add(t, Echo::<Choices>::new("choices", "Enums of every kind.")),
            serde: serde_binds::<Choices>,
            same: same_as_serde::<Choices>,
        },
        Subject {
            name: "nested",
            shapes: "closed and open nested structs, Option<struct>, Vec<struct> with maxItems, #[serde(flatten)], nested defaults",
            add: |t| add(t, Echo::<Nested>::new("nested", "Structs in structs.")),
            serde: serde_binds::<Nested>,
            same: same_as_serde::<Nested>,
        },
        Subject {
            name: "defaults",
            shapes: "#[serde(default)] and default = \"fn\" on u8, bool, Vec<String>, enum, struct",
            add: |t| add(t, Echo::<Defaults>::new("defaults", "Fields with defaults.")),
            serde: serde_binds::<Defaults>,
            same: same_as_serde::<Defaults>,
        },
        Subject {
            name: "maps",
            shapes: "BTreeMap<String, u8 | enum | Vec<String> | struct>, a tuple",
            add: |t| add(t, Echo::<Maps>::new("maps", "Maps and a tuple.")),
            serde: serde_binds::<Maps>,
            same: same_as_serde::<Maps>,
        },
        Subject {
            name: "schedule",
            shapes: "#[tool]: #[arg(default = ...)], #[arg(rename)], Option<T>, Vec<String>, BTreeSet, nested struct with bounds",
            add: |t| add(t, Schedule),
            serde: serde_binds::<ScheduleMirror>,
            same: same_as_serde::<ScheduleMirror>,
        },
    ]
}

fn add(toolbox: &mut Toolbox, tool: impl canon::toolbox::DynTool + 'static) {
    // Each toolbox holds one tool: no name can be taken twice.
    let _ = toolbox.add(tool);
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    #[schemars(range(min = 1, max = 11))]
    pub count: u32,
    #[schemars(range(min = 1, max = 11))]
    pub small: u8,
    #[schemars(range(min = -5, max = 5))]
    pub delta: i64,
    #[schemars(range(min = 0.5, max = 2.5))]
    pub ratio: f64,
    #[schemars(range(min = 0, max = 1))]
    pub share: f32,
    #[schemars(range(min = 1, max = 11))]
    pub maybe: Option<u16>,
    pub level: i8,
    pub percent: u8,
    #[schemars(inner(range(min = 1, max = 9)))]
    pub steps: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Formats {
    pub port: u16,
    pub id: u32,
    pub big: u64,
    pub size: usize,
    pub offset: i32,
    pub wide: i64,
    pub scale: f32,
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Texts {
    #[schemars(length(min = 2, max = 8))]
    pub name: String,
    #[schemars(length(min = 2, max = 8))]
    pub tags: Vec<String>,
    #[schemars(regex(pattern = r"^[a-z]{2,5}$"))]
    pub code: String,
    #[schemars(regex(pattern = r"^[A-Z][0-9]{3}$"))]
    pub id: Option<String>,
    #[schemars(length(max = 3), inner(length(min = 1, max = 4)))]
    pub words: Option<Vec<String>>,
    #[schemars(email)]
    pub email: String,
    #[schemars(url)]
    pub site: Option<String>,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Collections {
    pub names: Vec<String>,
    pub maybe_names: Option<Vec<String>>,
    pub matrix: Vec<Vec<String>>,
    pub set: HashSet<String>,
    #[schemars(length(max = 4))]
    pub sorted: BTreeSet<String>,
    pub numbers: BTreeSet<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Rust,
    Go,
    Python,
}

fn go() -> Lang {
    Lang::Go
}

/// Internally tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Target {
    Repo {
        names: Vec<String>,
    },
    Org {
        #[schemars(length(min = 1, max = 8))]
        org: String,
        #[schemars(range(max = 9))]
        depth: Option<u8>,
    },
    Everything,
}

/// Untagged, already accepting a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// Untagged, a number or an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Amount {
    Exact(u8),
    Between { low: u8, high: u8 },
}

/// Externally tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub enum Action {
    Label { names: Vec<String> },
    Close,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Choices {
    pub lang: Lang,
    pub langs: Vec<Lang>,
    pub maybe_lang: Option<Lang>,
    pub target: Target,
    pub maybe_target: Option<Target>,
    pub either: OneOrMany,
    pub amount: Amount,
    pub action: Action,
}

/// Closed: unknown members are refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Inner {
    #[schemars(length(min = 1, max = 6))]
    pub label: String,
    #[serde(default)]
    pub weight: u8,
    pub lang: Option<Lang>,
}

/// Open: unknown members are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Open {
    pub a: String,
    #[schemars(range(max = 20))]
    pub b: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Paging {
    pub cursor: Option<String>,
    #[schemars(range(min = 1, max = 50))]
    pub size: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Nested {
    pub inner: Inner,
    pub maybe_inner: Option<Inner>,
    #[schemars(length(max = 3))]
    pub inners: Vec<Inner>,
    pub open: Open,
    #[serde(flatten)]
    pub paging: Paging,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Window {
    #[schemars(range(max = 23))]
    pub start_hour: u8,
    #[schemars(range(min = 1, max = 12))]
    pub hours: u8,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            start_hour: 9,
            hours: 8,
        }
    }
}

fn five() -> u8 {
    5
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    pub name: String,
    #[serde(default = "five")]
    pub retries: u8,
    #[serde(default)]
    pub verbose: bool,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default = "go")]
    pub lang: Lang,
    #[serde(default)]
    pub window: Window,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Maps {
    pub counts: BTreeMap<String, u8>,
    pub by_lang: BTreeMap<String, Lang>,
    pub groups: BTreeMap<String, Vec<String>>,
    pub windows: BTreeMap<String, Window>,
    pub point: (u8, String),
}

/// Schedule a job: parameters with defaults, options, a set and a nested
/// struct with bounds.
#[tool]
#[allow(clippy::too_many_arguments)]
pub fn schedule(
    /// The job's name.
    #[arg(rename = "job")]
    name: String,
    /// Hosts to run on.
    hosts: Vec<String>,
    /// How many times to retry.
    #[arg(default = 3)]
    retries: u8,
    /// The job's language.
    #[arg(default = Lang::Rust)]
    lang: Lang,
    /// Labels to attach.
    #[arg(default = Vec::new())]
    labels: Vec<String>,
    /// When to run.
    window: Option<Window>,
    /// Whether to notify.
    notify: Option<bool>,
    /// Tags, each once.
    tags: BTreeSet<String>,
) -> ScheduleMirror {
    ScheduleMirror {
        name,
        hosts,
        retries,
        lang,
        labels,
        window,
        notify,
        tags,
    }
}

fn three() -> u8 {
    3
}

fn rust() -> Lang {
    Lang::Rust
}

/// What strict serde binds for `schedule`: its parameters as a derived
/// struct, and the tool's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleMirror {
    #[serde(rename = "job")]
    pub name: String,
    pub hosts: Vec<String>,
    #[serde(default = "three")]
    pub retries: u8,
    #[serde(default = "rust")]
    pub lang: Lang,
    #[serde(default)]
    pub labels: Vec<String>,
    pub window: Option<Window>,
    pub notify: Option<bool>,
    pub tags: BTreeSet<String>,
}
