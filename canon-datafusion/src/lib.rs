//! canon in SQL: `canon_bind` and `canon_feedback` as Apache DataFusion
//! scalar functions, for captured tool calls where trace stores keep them.
//!
//! ```
//! use canon_datafusion::register;
//! use datafusion::prelude::SessionContext;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> datafusion::error::Result<()> {
//! let ctx = SessionContext::new();
//! register(&ctx);
//! let schema = r#"{"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}"#;
//! let sql = format!(
//!     "SELECT canon_bind('{schema}', '{{\"names\": \"a\"}}')['outcome'] AS outcome, \
//!             canon_feedback('{schema}', '{{\"names\": 1}}', 'search') AS feedback"
//! );
//! let batches = ctx.sql(&sql).await?.collect().await?;
//! let shown = datafusion::arrow::util::pretty::pretty_format_batches(&batches)?.to_string();
//! assert!(shown.contains("repaired"));
//! assert!(shown.contains("The call to `search` was not run."));
//! # Ok(())
//! # }
//! ```
//!
//! - `canon_bind(schema, arguments)` and `canon_bind(schema, arguments,
//!   policy)` bind each call as `canon replay` does, with the opt-in rules
//!   `policy` names (`--policy`'s syntax: `default`, `all`, `strict`, or
//!   rules such as `json_text,number_text`; a policy canon does not know
//!   is the query's error). The result is a struct:
//!   `outcome` (`strict`, `repaired`, `rejected` or `schema_error`),
//!   `repairs` (a list of `pointer`, `rule`), `violations` (a list of
//!   `pointer`, `kind`, `message`; at most [`LISTED`], the schema's error
//!   for `schema_error`) and `arguments` (the bound arguments as JSON text,
//!   NULL unless the call bound).
//! - `canon_feedback(schema, arguments, tool_name)` is the text a model
//!   would have been sent for a refused call, NULL when the call binds (or
//!   its schema does not compile: no model is offered that tool).
//!
//! - [`replay_table`] replays a whole table of calls (Parquet files, say,
//!   with the columns `tool`, `schema` and `arguments`, each renamable by
//!   [`Columns`]) into the [`Report`](canon_replay::Report) `canon replay`
//!   gives for the same calls as JSON Lines.
//!
//! Inputs may be `Utf8`, `LargeUtf8` or `Utf8View` (what Parquet strings
//! read as). NULL in gives NULL out. A schema that does not compile and
//! arguments that are not JSON are per-row outcomes, never a query error.
//! Arguments whose text is over [`canon_replay::MAX_ARGUMENTS_TEXT`] (1 MiB,
//! canon's bound on a call's text) are `rejected` with one `too_large`
//! violation, without being read.
//! Schemas compile once per distinct text, in the replay engine's bounded
//! cache, shared by every batch and partition of the session.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::any::Any;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use canon::{BindError, Policy};
use canon_replay::{Binding, CallRef, Recent, Replay, Tools};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, ListArray, StringArray, StringBuilder, StructArray,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Fields};
use datafusion::common::{exec_err, Result};
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use datafusion::prelude::SessionContext;

mod files;
mod lines;
mod replay;

/// The DataFusion this crate is built on, for sessions and tables of the
/// same version.
pub use datafusion;

pub use files::{check_files, register_table, table_format, TableFormat, MAX_ROW_GROUP_TEXT};
pub use lines::{register_json_lines, MAX_OTHER_COLUMNS, SNIFFED_LINES};
pub use replay::{replay_table, replay_table_with, Columns};

/// The violations `canon_bind` lists for a call at most (the rest are
/// counted in the model's text, as canon's feedback counts them).
pub const LISTED: usize = BindError::LISTED;

/// Registers `canon_bind` and `canon_feedback` on `ctx`, beside the
/// functions it has (each is added; none is replaced). They share one
/// engine per policy, so each distinct schema text compiles once.
pub fn register(ctx: &SessionContext) {
    let engines = Engines::default();
    ctx.register_udf(ScalarUDF::from(Canon::new(Function::Bind, engines.clone())));
    ctx.register_udf(ScalarUDF::from(Canon::new(Function::Feedback, engines)));
}

/// The replay engines of a session, one per policy, made when first used.
#[derive(Debug, Clone, Default)]
struct Engines(Arc<Mutex<HashMap<String, Arc<Replay>>>>);

impl Engines {
    /// The engine binding with `policy` (its text as `--policy` takes it).
    fn get(&self, policy: &str) -> std::result::Result<Arc<Replay>, String> {
        let mut engines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(engine) = engines.get(policy) {
            return Ok(engine.clone());
        }
        let parsed: Policy = policy
            .parse()
            .map_err(|e| format!("the policy `{policy}` is not one canon knows ({e})"))?;
        // A few distinct policy texts at most in a query; more are not kept.
        let engine = Arc::new(Replay::new(parsed, Tools::default()));
        if engines.len() < 16 {
            engines.insert(policy.to_owned(), engine.clone());
        }
        Ok(engine)
    }

    /// How many schemas the engine of `policy` compiled: a count of work,
    /// for tests.
    fn compiled(&self, policy: &str) -> u64 {
        let engines = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        engines.get(policy).map_or(0, |e| e.schemas_compiled())
    }
}

/// How many schemas `ctx`'s `canon_bind` compiled with the default policy:
/// a count of work, for tests.
#[doc(hidden)]
pub fn schemas_compiled(ctx: &SessionContext) -> u64 {
    ctx.udf("canon_bind")
        .ok()
        .and_then(|udf| {
            let inner: &dyn Any = udf.inner().as_ref();
            inner
                .downcast_ref::<Canon>()
                .map(|bind| bind.engines.compiled("default"))
        })
        .unwrap_or(0)
}

/// A string column of any of Arrow's three string types, read a row at a
/// time.
enum Strings<'a> {
    Utf8(&'a datafusion::arrow::array::GenericStringArray<i32>),
    Large(&'a datafusion::arrow::array::GenericStringArray<i64>),
    View(&'a datafusion::arrow::array::StringViewArray),
}

impl<'a> Strings<'a> {
    /// Whether a column of `data_type` is read as text.
    fn takes(data_type: &DataType) -> bool {
        matches!(
            data_type,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        )
    }

    fn of(array: &'a ArrayRef) -> Result<Strings<'a>> {
        Ok(match array.data_type() {
            DataType::Utf8 => Strings::Utf8(array.as_string::<i32>()),
            DataType::LargeUtf8 => Strings::Large(array.as_string::<i64>()),
            DataType::Utf8View => Strings::View(array.as_string_view()),
            other => return exec_err!("canon: expected a string column, got {other}"),
        })
    }

    /// Row `i`, `None` when it is NULL.
    fn get(&self, i: usize) -> Option<&'a str> {
        match self {
            Strings::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
        }
    }
}

/// The arguments of a call as arrays of `rows` rows (a constant repeated).
fn arrays(args: &ScalarFunctionArgs) -> Result<Vec<ArrayRef>> {
    ColumnarValue::values_to_arrays(&args.args)
}

/// A bind of each row: `None` where an input is NULL.
fn bind_rows(
    engines: &Engines,
    arrays: &[ArrayRef],
    rows: usize,
    tool: Option<&Strings<'_>>,
) -> Result<Vec<Option<Binding>>> {
    let schemas = Strings::of(&arrays[0])?;
    let arguments = Strings::of(&arrays[1])?;
    let policies = match arrays.get(2) {
        Some(array) if tool.is_none() => Some(Strings::of(array)?),
        _ => None,
    };
    let mut out = Vec::with_capacity(rows);
    // The engine of the policy of the row before, and the schema it bound
    // last: rows of a batch most often share both, found again without a
    // lock.
    let mut current: Option<(&str, Arc<Replay>, Recent)> = None;
    for i in 0..rows {
        let (Some(schema), Some(arguments)) = (schemas.get(i), arguments.get(i)) else {
            out.push(None);
            continue;
        };
        let policy = match &policies {
            Some(policies) => match policies.get(i) {
                Some(policy) => policy,
                None => {
                    out.push(None);
                    continue;
                }
            },
            None => "default",
        };
        let name = match tool {
            Some(tool) => match tool.get(i) {
                Some(name) => name,
                None => {
                    out.push(None);
                    continue;
                }
            },
            None => "tool",
        };
        let (engine, recent) = match &mut current {
            Some((p, engine, recent)) if *p == policy => (engine, recent),
            current => {
                // A policy is a query's choice, not a call's: one canon
                // does not know is the query's error.
                let engine = match engines.get(policy) {
                    Ok(engine) => engine,
                    Err(message) => return exec_err!("canon_bind: {message}"),
                };
                let (_, engine, recent) = current.insert((policy, engine, Recent::default()));
                (engine, recent)
            }
        };
        let call = CallRef {
            tool: name,
            schema,
            arguments,
            label: None,
        };
        out.push(Some(engine.bind_call_after(recent, i as u64 + 1, call)));
    }
    Ok(out)
}

/// `canon_bind`'s outcome names: `canon replay`'s, with `accepted` said as
/// what it means here.
fn outcome_name(outcome: &str) -> &str {
    match outcome {
        "accepted" => "strict",
        other => other,
    }
}

/// The type of `canon_bind`'s result.
fn bind_type() -> DataType {
    DataType::Struct(bind_fields())
}

fn bind_fields() -> Fields {
    let string = |name: &str| Field::new(name, DataType::Utf8, true);
    let list = |name: &str, of: Vec<Field>| {
        Field::new(
            name,
            DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(of.into()),
                true,
            ))),
            true,
        )
    };
    Fields::from(vec![
        string("outcome"),
        list("repairs", vec![string("pointer"), string("rule")]),
        list(
            "violations",
            vec![string("pointer"), string("kind"), string("message")],
        ),
        string("arguments"),
    ])
}

/// A list column of structs of string fields: row `i` holds the tuples
/// `rows[i]`, NULL where `valid` says.
fn list_of(field: &Field, rows: &[Vec<Vec<String>>], valid: &NullBuffer) -> Result<ArrayRef> {
    let DataType::List(item) = field.data_type() else {
        return exec_err!("canon: {} is not a list", field.name());
    };
    let DataType::Struct(members) = item.data_type() else {
        return exec_err!("canon: the items of {} are not structs", field.name());
    };
    let mut columns: Vec<StringBuilder> = members.iter().map(|_| StringBuilder::new()).collect();
    for row in rows {
        for tuple in row {
            for (column, value) in columns.iter_mut().zip(tuple) {
                column.append_value(value);
            }
        }
    }
    let columns: Vec<ArrayRef> = columns
        .into_iter()
        .map(|mut c| Arc::new(c.finish()) as ArrayRef)
        .collect();
    let items = StructArray::try_new(members.clone(), columns, None)?;
    let offsets = OffsetBuffer::<i32>::from_lengths(rows.iter().map(Vec::len));
    Ok(Arc::new(ListArray::try_new(
        item.clone(),
        offsets,
        Arc::new(items),
        Some(valid.clone()),
    )?))
}

/// `canon_bind`'s result column for the bindings of a batch.
fn bind_column(bindings: &[Option<Binding>]) -> Result<ArrayRef> {
    let fields = bind_fields();
    let valid = NullBuffer::from(bindings.iter().map(Option::is_some).collect::<Vec<_>>());
    let mut outcome = StringBuilder::new();
    let mut arguments = StringBuilder::new();
    let mut repairs = Vec::with_capacity(bindings.len());
    let mut violations = Vec::with_capacity(bindings.len());
    for binding in bindings {
        let Some(binding) = binding else {
            outcome.append_null();
            arguments.append_null();
            repairs.push(Vec::new());
            violations.push(Vec::new());
            continue;
        };
        let o = &binding.outcome;
        outcome.append_value(outcome_name(o.outcome));
        match &binding.arguments {
            Some(bound) => arguments.append_value(bound.to_string()),
            None => arguments.append_null(),
        }
        repairs.push(
            o.repairs
                .iter()
                .map(|r| vec![r.pointer.to_string(), r.rule.as_str().to_owned()])
                .collect(),
        );
        let mut listed: Vec<Vec<String>> = o
            .violations
            .iter()
            .take(LISTED)
            .map(|v| {
                let kind = serde_json::to_value(v.kind)
                    .ok()
                    .and_then(|k| k.as_str().map(str::to_owned))
                    .unwrap_or_default();
                vec![v.pointer.clone(), kind, v.message.clone()]
            })
            .collect();
        if let Some(error) = &o.schema_error {
            listed.push(vec![String::new(), "schema_error".into(), error.clone()]);
        }
        violations.push(listed);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(outcome.finish()),
        list_of(&fields[1], &repairs, &valid)?,
        list_of(&fields[2], &violations, &valid)?,
        Arc::new(arguments.finish()),
    ];
    Ok(Arc::new(StructArray::try_new(
        fields,
        columns,
        Some(valid),
    )?))
}

/// Which of canon's functions a [`Canon`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Function {
    /// `canon_bind(schema, arguments[, policy])`.
    Bind,
    /// `canon_feedback(schema, arguments, tool_name)`.
    Feedback,
}

/// One of canon's functions, over the session's engines.
#[derive(Debug)]
struct Canon {
    function: Function,
    signature: Signature,
    engines: Engines,
}

impl Canon {
    fn new(function: Function, engines: Engines) -> Self {
        let signature = match function {
            Function::Bind => Signature::one_of(
                vec![TypeSignature::String(2), TypeSignature::String(3)],
                Volatility::Immutable,
            ),
            Function::Feedback => Signature::string(3, Volatility::Immutable),
        };
        Canon {
            function,
            signature,
            engines,
        }
    }
}

/// Two are the same function over the same engines.
impl PartialEq for Canon {
    fn eq(&self, other: &Self) -> bool {
        self.function == other.function && Arc::ptr_eq(&self.engines.0, &other.engines.0)
    }
}

impl Eq for Canon {}

impl Hash for Canon {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.function.hash(state);
    }
}

impl ScalarUDFImpl for Canon {
    fn name(&self) -> &str {
        match self.function {
            Function::Bind => "canon_bind",
            Function::Feedback => "canon_feedback",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(match self.function {
            Function::Bind => bind_type(),
            Function::Feedback => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = arrays(&args)?;
        if self.function == Function::Bind {
            let bindings = bind_rows(&self.engines, &arrays, rows, None)?;
            return Ok(ColumnarValue::Array(bind_column(&bindings)?));
        }
        let tools = Strings::of(&arrays[2])?;
        let bindings = bind_rows(&self.engines, &arrays, rows, Some(&tools))?;
        let texts: StringArray = bindings
            .iter()
            .map(|binding| {
                let o = &binding.as_ref()?.outcome;
                (o.outcome == "rejected")
                    .then(|| BindError::new(o.tool.clone(), o.violations.clone()).to_string())
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(texts)))
    }
}
