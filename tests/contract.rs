//! The contract between what canon tells a model and what it binds
//! (docs/contract.md, docs/export.md). For every
//! tool and every dialect canon exports:
//! 1. a call valid against the **exported** schema binds and runs under the
//!    default policy, with no repair noted (a `null` the strict export
//!    allows for a defaulted member is "use the default"), and the tool
//!    receives what strict serde binds; where the export dropped a keyword
//!    of the tool's own schema and the call breaks it, 2. applies;
//! 2. a call that breaks a keyword of the tool's **own** schema is refused,
//!    with a violation at its JSON Pointer, even when the dialect had to
//!    drop that keyword;
//! 3. a call valid against the tool's own schema binds to exactly what
//!    strict serde gives for it;
//! 4. a valid call with any one position replaced by anything binds only
//!    where the own schema holds (once the reported repairs are made), and
//!    as strict serde binds it where the schema accepts it as sent.
//!
//! Calls are generated from the schemas themselves (`contract/generate.rs`,
//! every instance checked with `jsonschema` against the schema it came
//! from) and sent to the toolbox that exported the schema, as a value and
//! as JSON text. Each property runs every tool × dialect and lists every
//! failing pair with proptest's minimal call, instead of stopping at the
//! first. Runs are deterministic (a seed per tool, dialect and property;
//! `PROPTEST_RNG_SEED` varies them), so a failure reproduces without a
//! regressions file; cases are counted, never timed.

#[path = "contract/expect.rs"]
mod expect;
#[path = "contract/generate.rs"]
mod generate;
#[path = "contract/schema.rs"]
mod schema;
#[path = "contract/tools.rs"]
mod tools;

use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt::Write as _;

use canon::export::Dialect;
use canon::toolbox::Arguments;
use canon::{ToolCall, ToolOutcome, Toolbox};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::ValueTree;
use proptest::test_runner::{RngSeed, TestCaseError, TestError, TestRunner};
use serde_json::{json, Value};

use expect::{as_serde_sees, breaks, Break};
use schema::{json_schema_of_openapi, strict_validator};
use tools::{subjects, Subject};

/// Calls per tool and dialect generated from an export.
const EXPORTED_CASES: u32 = 64;
/// Calls per tool (and toolbox) generated from the tool's own schema.
const OWN_CASES: u32 = 128;
/// Broken calls per tool, toolbox and keyword broken.
const BROKEN_CASES_PER_KEYWORD: u32 = 32;
/// Samples per schema when the generator is checked alone.
const GENERATOR_SAMPLES: u32 = 64;
/// Shrinking steps allowed for one failure.
const SHRINK_ITERS: u32 = 512;

fn config(cases: u32, name: &str) -> ProptestConfig {
    let base = ProptestConfig::default();
    // FNV-1a of the run's name: a fixed seed per tool, dialect and property.
    let mut seed: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        seed = (seed ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    if let RngSeed::Fixed(asked) = base.rng_seed {
        seed ^= asked;
    }
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        max_shrink_iters: SHRINK_ITERS,
        max_local_rejects: 100_000,
        max_global_rejects: cases * 32,
        ..base
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().build()
}

/// The parameters schema of the one tool in `export`, from the dialect's
/// wire shape; Gemini's OpenAPI schema is rewritten as the JSON Schema it
/// means.
fn parameters(dialect: Dialect, export: &Value) -> Option<Value> {
    let schema = match dialect {
        Dialect::OpenAi { .. } => export.get(0)?.get("function")?.get("parameters")?,
        Dialect::OpenAiResponses { .. } => export.get(0)?.get("parameters")?,
        Dialect::Anthropic { .. } => export.get(0)?.get("input_schema")?,
        Dialect::Gemini => {
            let declared = export.get("functionDeclarations")?.get(0)?;
            return Some(json_schema_of_openapi(declared.get("parameters")?));
        }
        Dialect::GeminiJsonSchema => export
            .get("functionDeclarations")?
            .get(0)?
            .get("parametersJsonSchema")?,
        Dialect::Mcp => export.get("tools")?.get(0)?.get("inputSchema")?,
        _ => return None,
    };
    Some(schema.clone())
}

/// The call as a value (Anthropic, Gemini, MCP) and as JSON text (OpenAI).
fn forms(call: &Value) -> [(&'static str, Arguments); 2] {
    [
        ("value", Arguments::Json(call.clone())),
        ("text", Arguments::Text(call.to_string())),
    ]
}

fn invoke(
    runtime: &tokio::runtime::Runtime,
    toolbox: &Toolbox,
    name: &str,
    arguments: Arguments,
) -> ToolOutcome {
    runtime
        .block_on(toolbox.call(ToolCall::new("call-1", name, arguments)))
        .outcome
}

fn own_schema(toolbox: &Toolbox, name: &str) -> Option<Value> {
    toolbox
        .get(name)
        .map(|tool| tool.spec().input_schema().clone())
}

fn describe(outcome: &ToolOutcome) -> String {
    match outcome {
        ToolOutcome::Ran { output, repairs } => {
            format!("ran (repairs {repairs:?}), output {output}")
        }
        ToolOutcome::Rejected(error) => format!("refused: {error}"),
        other => format!("{other:?}"),
    }
}

/// The call ran with no repair, and the tool received what strict serde
/// binds from `seen`.
fn ran_as_serde(subject: &Subject, outcome: &ToolOutcome, seen: &Value) -> Result<(), String> {
    match outcome {
        ToolOutcome::Ran { output, repairs } if repairs.is_empty() => (subject.same)(seen, output),
        other => Err(format!(
            "expected to run with no repair; {}",
            describe(other)
        )),
    }
}

/// `pointer` names `location` or a position inside it.
fn at_or_under(pointer: &str, location: &str) -> bool {
    location.is_empty()
        || pointer == location
        || pointer
            .strip_prefix(location)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The call was refused, with a violation at or under each place the
/// tool's own schema says is wrong.
fn refused_under(outcome: &ToolOutcome, locations: &[String]) -> Result<(), String> {
    match outcome {
        ToolOutcome::Rejected(error) => {
            let pointers = error.pointers();
            let missed: Vec<&String> = locations
                .iter()
                .filter(|l| !pointers.iter().any(|p| at_or_under(p, l)))
                .collect();
            if missed.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "refused, but with no violation at or under {missed:?}: {error}"
                ))
            }
        }
        other => Err(format!(
            "the tool's own schema refuses this call at {locations:?}, but it {}",
            describe(other)
        )),
    }
}

/// The tool's own schema in `toolbox`, calls generated from it, and its
/// strict validator; `None`, with the failure reported for `run`, when the
/// tool is missing or its schema does not compile.
fn own_parts(
    report: &mut Report,
    toolbox: &Toolbox,
    name: &str,
    run: &str,
) -> Option<(Value, BoxedStrategy<Value>, jsonschema::Validator)> {
    let Some(own) = own_schema(toolbox, name) else {
        report.failures.push(format!("{run}: not in its toolbox"));
        return None;
    };
    let (Ok(instances), Ok(validator)) = (generate::instances(&own), strict_validator(&own)) else {
        report
            .failures
            .push(format!("{run}: its schema does not compile"));
        return None;
    };
    Some((own, instances, validator))
}

/// Counts and failures of one property over every tool × dialect.
#[derive(Default)]
struct Report {
    lines: Vec<String>,
    failures: Vec<String>,
}

impl Report {
    fn outcome<T>(
        &mut self,
        run: &str,
        counts: String,
        result: Result<(), TestError<T>>,
        show: impl Fn(&T) -> String,
    ) {
        match result {
            Ok(()) => self.lines.push(format!("ok    {run}: {counts}")),
            Err(TestError::Fail(why, minimal)) => {
                // Counts include the cases tried while shrinking.
                self.lines.push(format!("FAIL  {run}: {counts}"));
                self.failures.push(format!(
                    "{run}\n    {why}\n    minimal input: {}",
                    show(&minimal)
                ));
            }
            Err(TestError::Abort(why)) => {
                self.lines.push(format!("ABORT {run}: {counts}"));
                self.failures
                    .push(format!("{run}\n    aborted: {why} (the generator?)"));
            }
        }
    }

    fn finish(self, property: &str) {
        let mut text = format!("{property}:\n");
        for line in &self.lines {
            let _ = writeln!(text, "  {line}");
        }
        println!("{text}");
        assert!(
            self.failures.is_empty(),
            "{property}: {} of {} runs fail:\n\n{}\n",
            self.failures.len(),
            self.lines.len(),
            self.failures.join("\n\n")
        );
    }
}

/// Property 1: calls valid against each export.
#[test]
fn calls_valid_against_an_export_bind_and_run_without_repair() {
    let runtime = runtime().expect("a current-thread tokio runtime");
    let mut report = Report::default();
    let mut skipped = Vec::new();
    for subject in subjects() {
        for dialect in Dialect::ALL {
            let run = format!("{} / {}", subject.name, dialect.name());
            // A fresh toolbox per dialect: the one that exported is the one
            // called.
            let toolbox = subject.toolbox();
            let export = match toolbox.export(dialect) {
                Ok(export) => export,
                Err(error) => {
                    skipped.push(format!("{run}: {error}"));
                    continue;
                }
            };
            let (Some(exported), Some(own)) = (
                parameters(dialect, &export),
                own_schema(&toolbox, subject.name),
            ) else {
                report
                    .failures
                    .push(format!("{run}: no parameters in {export}"));
                continue;
            };
            // Calls of the export alone, and calls of the export that keep
            // to the own schema too (which a lossy export seldom gives by
            // chance), with `null` where the export admits it.
            let (strategy, own_validator) = match (
                generate::instances(&exported),
                generate::instances_within(&exported, &own),
                strict_validator(&own),
            ) {
                (Ok(alone), Ok(within), Ok(v)) => (prop_oneof![alone, within], v),
                (a, w, v) => {
                    report.failures.push(format!(
                        "{run}: a schema does not compile: {:?} {:?} {:?}",
                        a.err(),
                        w.err(),
                        v.err()
                    ));
                    continue;
                }
            };
            let (ran, refused, nulls) = (Cell::new(0u32), Cell::new(0u32), Cell::new(0u32));
            let mut runner = TestRunner::new(config(EXPORTED_CASES, &format!("1 {run}")));
            let result = runner.run(&strategy, |call| {
                let seen = as_serde_sees(&own, &call);
                if seen != call {
                    nulls.set(nulls.get() + 1);
                }
                let wrong: Vec<String> = own_validator
                    .iter_errors(&seen)
                    .map(|e| e.instance_path().as_str().to_owned())
                    .collect();
                for (form, arguments) in forms(&call) {
                    let outcome = invoke(&runtime, &toolbox, subject.name, arguments);
                    let verdict = if !wrong.is_empty() {
                        refused_under(&outcome, &wrong)
                    } else if let Err(e) = (subject.serde)(&seen) {
                        Err(format!(
                            "valid against the export and the tool's own schema, \
                             but strict serde refuses it ({e}); canon {}",
                            describe(&outcome)
                        ))
                    } else {
                        ran_as_serde(&subject, &outcome, &seen)
                    };
                    verdict.map_err(|why| {
                        TestCaseError::fail(format!("[{form}] call {call}: {why}"))
                    })?;
                }
                if wrong.is_empty() {
                    ran.set(ran.get() + 1);
                } else {
                    refused.set(refused.get() + 1);
                }
                Ok(())
            });
            let counts = format!(
                "{} ran as serde binds, {} refused as the own schema does (a dropped keyword), \
                 {} with a null or 3.0 for serde to read otherwise",
                ran.get(),
                refused.get(),
                nulls.get()
            );
            report.outcome(&run, counts, result, Value::to_string);
        }
    }
    println!(
        "exports refused ({}, skipped):\n  {}",
        skipped.len(),
        skipped.join("\n  ")
    );
    report.finish("1. calls valid against an export bind and run, with no repair");
}

/// The toolboxes the own-schema properties call: one that never exported,
/// and one that exported every dialect it could.
fn toolboxes(subject: &Subject) -> [(&'static str, Toolbox); 2] {
    let exported = subject.toolbox();
    for dialect in Dialect::ALL {
        let _ = exported.export(dialect);
    }
    [("fresh", subject.toolbox()), ("exported", exported)]
}

/// Property 2: a call broken at one position is refused there. One run per
/// tool, toolbox and keyword broken (those the tool's calls offer), so a
/// failure for one keyword hides no other.
#[test]
fn calls_breaking_the_own_schema_are_refused_at_the_broken_position() {
    let runtime = runtime().expect("a current-thread tokio runtime");
    let mut report = Report::default();
    for subject in subjects() {
        for (which, toolbox) in toolboxes(&subject) {
            let tool_run = format!("{} ({which} toolbox)", subject.name);
            let Some((own, instances, own_validator)) =
                own_parts(&mut report, &toolbox, subject.name, &tool_run)
            else {
                continue;
            };
            // The keywords the tool's calls can break.
            let keywords: BTreeSet<String> = samples(&instances, &format!("2 probe {tool_run}"))
                .iter()
                .flatten()
                .flat_map(|call| breaks(&own, call))
                .map(|b| b.keyword().to_owned())
                .collect();
            for keyword in keywords {
                let run = format!("{tool_run}, {keyword}");
                let broken = Cell::new(0u32);
                let of_keyword = |call: &Value| -> Vec<Break> {
                    breaks(&own, call)
                        .into_iter()
                        .filter(|b| b.keyword() == keyword)
                        .collect()
                };
                let mut runner =
                    TestRunner::new(config(BROKEN_CASES_PER_KEYWORD, &format!("2 {run}")));
                let strategy = (instances.clone(), any::<Index>());
                let result = runner.run(&strategy, |(call, index)| {
                    let options = of_keyword(&call);
                    if options.is_empty() {
                        return Err(TestCaseError::reject("nothing to break"));
                    }
                    let chosen = index.get(&options);
                    if own_validator.is_valid(&chosen.call) {
                        return Err(TestCaseError::reject("the edit left the call valid"));
                    }
                    for (form, arguments) in forms(&chosen.call) {
                        let outcome = invoke(&runtime, &toolbox, subject.name, arguments);
                        // An object sent for a union's string (an enum's
                        // map form) is told by the object branch's own
                        // violations, inside it.
                        let named = |pointer: &str| {
                            pointer == chosen.pointer
                                || (keyword == "type" && at_or_under(pointer, &chosen.pointer))
                        };
                        let verdict = match &outcome {
                            ToolOutcome::Rejected(error)
                                if error.pointers().iter().any(|p| named(p)) =>
                            {
                                Ok(())
                            }
                            other => Err(describe(other)),
                        };
                        verdict.map_err(|why| {
                            TestCaseError::fail(format!(
                                "[{form}] broke {} at {:?}: call {}; expected a violation at {:?}, {why}",
                                chosen.what, chosen.pointer, chosen.call, chosen.pointer
                            ))
                        })?;
                    }
                    broken.set(broken.get() + 1);
                    Ok(())
                });
                let counts = format!("{} broken calls refused at the position", broken.get());
                report.outcome(&run, counts, result, |(call, index)| {
                    let options = of_keyword(call);
                    if options.is_empty() {
                        return call.to_string();
                    }
                    let chosen = index.get(&options);
                    format!("{call}, broken as {} at {:?}", chosen.what, chosen.pointer)
                });
            }
        }
    }
    report.finish("2. calls breaking the own schema are refused at the broken position");
}

/// Property 3: calls valid against the own schema bind as strict serde.
#[test]
fn calls_valid_against_the_own_schema_bind_as_strict_serde() {
    let runtime = runtime().expect("a current-thread tokio runtime");
    let mut report = Report::default();
    for subject in subjects() {
        for (which, toolbox) in toolboxes(&subject) {
            let run = format!("{} ({which} toolbox)", subject.name);
            let Some((own, instances, _)) = own_parts(&mut report, &toolbox, subject.name, &run)
            else {
                continue;
            };
            let (ran, refused) = (Cell::new(0u32), Cell::new(0u32));
            let mut runner = TestRunner::new(config(OWN_CASES, &format!("3 {run}")));
            let result = runner.run(&instances, |call| {
                let seen = as_serde_sees(&own, &call);
                let serde = (subject.serde)(&seen);
                for (form, arguments) in forms(&call) {
                    let outcome = invoke(&runtime, &toolbox, subject.name, arguments);
                    let verdict = match (&serde, &outcome) {
                        (Ok(()), _) => ran_as_serde(&subject, &outcome, &seen),
                        (Err(_), ToolOutcome::Rejected(_)) => Ok(()),
                        (Err(e), other) => Err(format!(
                            "strict serde refuses it ({e}), but canon {}",
                            describe(other)
                        )),
                    };
                    verdict.map_err(|why| {
                        TestCaseError::fail(format!("[{form}] call {call}: {why}"))
                    })?;
                }
                if serde.is_ok() {
                    ran.set(ran.get() + 1);
                } else {
                    refused.set(refused.get() + 1);
                }
                Ok(())
            });
            let counts = format!(
                "{} bound as serde binds, {} refused as serde refuses",
                ran.get(),
                refused.get()
            );
            report.outcome(&run, counts, result, Value::to_string);
        }
    }
    report.finish("3. calls valid against the own schema bind as strict serde");
}

/// Every position of `value` as a JSON Pointer, the root first.
fn positions(value: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_owned());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                positions(item, &format!("{at}/{i}"), out);
            }
        }
        Value::Object(members) => {
            for (key, member) in members {
                positions(member, &format!("{at}/{}", schema::escape(key)), out);
            }
        }
        _ => {}
    }
}

/// Small JSON values of every type, nested up to two levels.
fn small_json() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..300).prop_map(Value::from),
        Just(json!(1.5)),
        Just(json!(2.0)),
        "[a-z]{0,3}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

/// `call` with the value at `at` replaced by `value`.
fn replaced(call: &Value, at: &str, value: Value) -> Option<Value> {
    let mut out = call.clone();
    *out.pointer_mut(at)? = value;
    Some(out)
}

/// `call` without the object member at `at`; `None` when `at` is not one.
fn without(call: &Value, at: &str) -> Option<Value> {
    let (parent, key) = at.rsplit_once('/')?;
    let key = key.replace("~1", "/").replace("~0", "~");
    let mut out = call.clone();
    out.pointer_mut(parent)?.as_object_mut()?.remove(&key)?;
    Some(out)
}

/// `call` with the repairs canon reported made: `None` when one is not a
/// string wrapped into an array (the rules this property checks).
fn repaired(call: &Value, repairs: &[canon::Repair]) -> Option<Value> {
    let mut out = call.clone();
    for repair in repairs {
        if repair.rule != canon::RepairRule::ScalarToArray {
            return None;
        }
        let at = out.pointer_mut(&repair.pointer)?;
        *at = Value::Array(vec![at.take()]);
    }
    Some(out)
}

/// Property 4: a valid call with one position replaced by anything (a
/// small value of any type, a value from elsewhere in a valid call, or
/// the other forms serde takes for that value) is bound only when the own
/// schema accepts it once the reported repairs are made; and when the own
/// schema accepts it as sent, it binds as strict serde does.
#[test]
fn calls_with_any_position_replaced_bind_only_where_the_own_schema_holds() {
    let runtime = runtime().expect("a current-thread tokio runtime");
    let mut report = Report::default();
    for subject in subjects() {
        for (which, toolbox) in toolboxes(&subject) {
            let run = format!("{} ({which} toolbox)", subject.name);
            let Some((own, instances, own_validator)) =
                own_parts(&mut report, &toolbox, subject.name, &run)
            else {
                continue;
            };
            // The exported toolbox also takes what its exports publish (a
            // `null` for a defaulted member, where a strict export made
            // every member required).
            let exports: Vec<jsonschema::Validator> = match which {
                "exported" => Dialect::ALL
                    .iter()
                    .filter_map(|&d| parameters(d, &toolbox.export(d).ok()?))
                    .filter_map(|schema| strict_validator(&schema).ok())
                    .collect(),
                _ => Vec::new(),
            };
            let published = |call: &Value, at: &str| {
                own_validator.is_valid(call)
                    || exports.iter().any(|v| v.is_valid(call))
                    // A `null` for an optional member, which a strict
                    // export made required and nullable, is the member
                    // left out (docs/contract.md).
                    || (!exports.is_empty()
                        && call.pointer(at).is_some_and(Value::is_null)
                        && without(call, at).is_some_and(|c| own_validator.is_valid(&c)))
            };
            let (bound, refused) = (Cell::new(0u32), Cell::new(0u32));
            let mut runner = TestRunner::new(config(OWN_CASES, &format!("4 {run}")));
            let strategy = (
                instances.clone(),
                instances.clone(),
                any::<Index>(),
                any::<Index>(),
                0..3u8,
                small_json(),
            );
            let result = runner.run(&strategy, |(call, other, at, from, how, small)| {
                let mut at_all = Vec::new();
                positions(&call, "", &mut at_all);
                let at = at.get(&at_all).clone();
                let old = call.pointer(&at).cloned().unwrap_or(Value::Null);
                let value = match how {
                    0 => small,
                    1 => {
                        let mut elsewhere = Vec::new();
                        positions(&other, "", &mut elsewhere);
                        other
                            .pointer(from.get(&elsewhere).as_str())
                            .cloned()
                            .unwrap_or(small)
                    }
                    _ => match old {
                        Value::Object(members) => Value::Array(members.into_values().collect()),
                        Value::String(s) => json!({ s: null }),
                        _ => small,
                    },
                };
                let Some(mutated) = replaced(&call, &at, value) else {
                    return Err(TestCaseError::reject("no such position"));
                };
                // The own schema and strict serde both accept it as sent.
                let seen = as_serde_sees(&own, &mutated);
                let valid = own_validator.is_valid(&mutated) && (subject.serde)(&seen).is_ok();
                for (form, arguments) in forms(&mutated) {
                    let outcome = invoke(&runtime, &toolbox, subject.name, arguments);
                    let verdict = match &outcome {
                        ToolOutcome::Ran { repairs, .. } => match repaired(&mutated, repairs) {
                            Some(fixed) if !published(&fixed, &at) => Err(format!(
                                "bound, but every schema published refuses the call \
                                 repaired as reported ({fixed}): {}",
                                describe(&outcome)
                            )),
                            _ if valid => ran_as_serde(&subject, &outcome, &seen),
                            _ => Ok(()),
                        },
                        ToolOutcome::Rejected(_) if valid => Err(format!(
                            "the own schema and strict serde accept it, but canon {}",
                            describe(&outcome)
                        )),
                        _ => Ok(()),
                    };
                    verdict.map_err(|why| {
                        TestCaseError::fail(format!("[{form}] {at:?} in {mutated}: {why}"))
                    })?;
                    if matches!(outcome, ToolOutcome::Ran { .. }) {
                        bound.set(bound.get() + 1);
                    } else {
                        refused.set(refused.get() + 1);
                    }
                }
                Ok(())
            });
            let counts = format!(
                "{} bound where the schema holds, {} refused",
                bound.get(),
                refused.get()
            );
            report.outcome(&run, counts, result, |(call, _, at, _, how, small)| {
                let mut at_all = Vec::new();
                positions(call, "", &mut at_all);
                format!(
                    "{call}, at {:?}, form {how}, small {small}",
                    at.get(&at_all)
                )
            });
        }
    }
    report.finish("4. calls with any position replaced bind only where the own schema holds");
}

/// Every schema the properties generate from: each tool's own, and each
/// export's parameters.
fn every_schema() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for subject in subjects() {
        let toolbox = subject.toolbox();
        if let Some(own) = own_schema(&toolbox, subject.name) {
            out.push((format!("{} (own)", subject.name), own));
        }
        for dialect in Dialect::ALL {
            let parameters = toolbox
                .export(dialect)
                .ok()
                .and_then(|export| parameters(dialect, &export));
            if let Some(schema) = parameters {
                out.push((format!("{} / {}", subject.name, dialect.name()), schema));
            }
        }
    }
    out
}

/// Draws `GENERATOR_SAMPLES` values of `strategy`; `None` for a draw the
/// strategy's own filters gave up on.
fn samples(strategy: &BoxedStrategy<Value>, name: &str) -> Vec<Option<Value>> {
    let mut runner = TestRunner::new(config(GENERATOR_SAMPLES, name));
    (0..GENERATOR_SAMPLES)
        .map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current()))
        .collect()
}

/// Schemas with what the tools' schemas lack: every keyword the generator
/// claims, Gemini's OpenAPI form, formats checked as formats.
fn generator_fixtures() -> Vec<(&'static str, Value)> {
    vec![
        (
            "numbers",
            json!({"type": "object", "additionalProperties": false,
                   "properties": {
                       "a": {"type": "integer", "exclusiveMinimum": 3, "exclusiveMaximum": 9},
                       "b": {"type": "integer", "multipleOf": 5, "minimum": -20, "maximum": 20},
                       "c": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5},
                       "d": {"type": "number", "multipleOf": 0.25, "maximum": 3},
                       "e": {"type": "integer", "format": "uint64"},
                       "f": {"type": "integer", "format": "int8"},
                       "g": {"type": ["integer", "string", "null"]}},
                   "required": ["a", "b", "c", "d", "e", "f", "g"]}),
        ),
        (
            "strings",
            json!({"type": "object",
                   "properties": {
                       "when": {"type": "string", "format": "date-time"},
                       "day": {"type": "string", "format": "date"},
                       "at": {"type": "string", "format": "time"},
                       "id": {"type": "string", "format": "uuid"},
                       "ip": {"type": "string", "format": "ipv4"},
                       "ip6": {"type": "string", "format": "ipv6"},
                       "host": {"type": "string", "format": "hostname"},
                       "mail": {"type": "string", "format": "email"},
                       "link": {"type": "string", "format": "uri"},
                       "code": {"type": "string", "pattern": "^(ab|cd)-[0-9]{2}$", "maxLength": 5},
                       "word": {"type": "string", "minLength": 3, "maxLength": 3}},
                   "required": ["when", "day", "at", "id", "ip", "ip6", "host", "mail", "link", "code", "word"]}),
        ),
        (
            "arrays",
            json!({"type": "object",
                   "properties": {
                       "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                                "items": false, "minItems": 2},
                       "set": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3},
                               "uniqueItems": true, "minItems": 2, "maxItems": 4},
                       "some": {"type": "array", "items": {"const": "x"}, "minItems": 1, "maxItems": 1}},
                   "required": ["pair", "set", "some"],
                   "minProperties": 3, "maxProperties": 4}),
        ),
        (
            "unions",
            json!({"$defs": {"A": {"type": "object", "properties": {"a": {"type": "integer"}},
                                   "required": ["a"]},
                             "B": {"type": "object", "properties": {"b": {"type": "string"}},
                                   "required": ["b"], "additionalProperties": false}},
                   "type": "object",
                   "properties": {
                       "one": {"oneOf": [{"type": "integer"}, {"type": "number", "maximum": 10}]},
                       "any": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"type": "null"}]},
                       "all": {"allOf": [{"$ref": "#/$defs/A"}, {"properties": {"c": {"type": "boolean"}},
                                                                  "required": ["c"]}]},
                       "tag": {"enum": ["x", 1, null]}},
                   "required": ["one", "any", "all", "tag"]}),
        ),
        (
            "gemini openapi",
            json_schema_of_openapi(&json!({
                "type": "OBJECT",
                "properties": {
                    "n": {"type": "INTEGER", "nullable": true, "minimum": 1, "maximum": 3},
                    "s": {"type": "STRING", "enum": ["a", "b"], "nullable": true},
                    "o": {"type": "OBJECT", "nullable": true,
                          "properties": {"x": {"type": "ARRAY", "items": {"type": "STRING"}}},
                          "required": ["x"]}},
                "required": ["n", "s", "o"]})),
        ),
    ]
}

/// The generator alone: nearly everything it makes is valid before the
/// check (so the check rarely has to drop a call), its formats are valid
/// formats, optional members are sometimes left out and sometimes sent,
/// and `null` is sent where an export admits it.
#[test]
fn the_generator_makes_valid_instances_of_every_schema() {
    let mut problems = Vec::new();
    let mut lines: Vec<String> = subjects()
        .iter()
        .map(|s| format!("tool {}: {}", s.name, s.shapes))
        .collect();
    let mut schemas = every_schema();
    schemas.extend(
        generator_fixtures()
            .into_iter()
            .map(|(name, schema)| (format!("fixture {name}"), schema)),
    );
    for (name, schema) in &schemas {
        let validator = strict_validator(schema);
        let (Ok(validator), Ok(filtered)) = (validator, generate::instances(schema)) else {
            problems.push(format!("{name}: the schema does not compile"));
            continue;
        };
        let raw = samples(&generate::raw(schema), &format!("raw {name}"));
        let valid = raw
            .iter()
            .flatten()
            .filter(|v| validator.is_valid(v))
            .count();
        lines.push(format!(
            "{name}: {valid} of {GENERATOR_SAMPLES} valid as generated"
        ));
        // At least 90% before the check.
        if valid * 10 < GENERATOR_SAMPLES as usize * 9 {
            let invalid = raw.iter().flatten().find(|v| !validator.is_valid(v));
            problems.push(format!(
                "{name}: only {valid} of {GENERATOR_SAMPLES} generated instances are valid; one that is not: {invalid:?}"
            ));
        }
        let checked = samples(&filtered, &format!("checked {name}"));
        for value in checked.iter().flatten() {
            if !validator.is_valid(value) {
                problems.push(format!("{name}: the checked strategy made {value}"));
            }
        }
        if checked.iter().any(Option::is_none) {
            problems.push(format!("{name}: the checked strategy gave up on a draw"));
        }
        // Optional members: absent and present; nullable ones: null too.
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            continue;
        };
        let required: Vec<&Value> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().collect())
            .unwrap_or_default();
        let doc = schema::Doc::new(schema);
        for (key, sub) in properties {
            let values: Vec<Option<&Value>> =
                checked.iter().flatten().map(|v| v.get(key)).collect();
            if !required.contains(&&Value::String(key.clone())) {
                if !values.iter().any(Option::is_none) {
                    problems.push(format!("{name}: optional /{key} is never left out"));
                }
                if !values.iter().any(Option::is_some) {
                    problems.push(format!("{name}: optional /{key} is never sent"));
                }
            }
            if doc.admits_null(sub) && !values.iter().any(|v| v.is_some_and(Value::is_null)) {
                problems.push(format!("{name}: nullable /{key} is never null"));
            }
        }
    }
    println!("the generator:\n  {}", lines.join("\n  "));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
