//! `canon replay` over a table DataFusion reads (Parquet files above all):
//! each row a call, bound by the replay engine in the table's order and
//! counted into the same [`Report`] the JSON Lines reader gives.

use std::sync::Arc;

use canon_replay::{merge, CallOutcome, CallRef, Recent, Replay, Report, Tally};
use datafusion::arrow::array::RecordBatch;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{exec_err, DataFusionError, Result};
use datafusion::dataframe::DataFrame;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::physical_plan::ExecutionPlanProperties;
use datafusion::prelude::SessionContext;
use futures::StreamExt;

use canon_replay::formats::{shown, SHOWN_CHARS};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, BinaryViewArray, GenericBinaryArray};
use datafusion::arrow::datatypes::DataType;

use crate::Strings;

/// The columns of a table of calls: the plain layout, `tool`, `schema`
/// (the tool's input schema as JSON text) and `arguments` (the call's
/// arguments as JSON text), each renamable, and optionally a column of
/// each call's label (what `canon replay` takes from a line's `class` or
/// `note`, and shows with each call's outcome).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// The column of the tool's name.
    pub tool: String,
    /// The column of the tool's input schema, JSON text.
    pub schema: String,
    /// The column of the call's arguments, JSON text.
    pub arguments: String,
    /// The column of each call's label, if any: none by default.
    pub label: Option<String>,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            tool: "tool".into(),
            schema: "schema".into(),
            arguments: "arguments".into(),
            label: None,
        }
    }
}

/// Replays every row of the table `table` registered on `ctx` as a call,
/// with `replay`'s policy, and counts them as `canon replay` counts the
/// lines of a JSON Lines file: row *n* of the table (in the order the
/// table is read, its files' rows in turn) is line *n*, so the same calls
/// as JSON Lines and as a table give the same report. A row whose tool,
/// schema or arguments is NULL is a malformed line.
///
/// The rows are read a batch at a time, never the whole table, on as
/// many partitions as the session's `target_partitions`, each bound on a
/// task of its own: a partition reads a contiguous run of the table's
/// row groups, its report counts its rows from 1, and the partitions'
/// reports are [`merge`]d in order into exactly the report of the whole,
/// as shards' are. A partition holds the row groups it is reading, so
/// memory is bounded by the largest row groups, not by the table.
///
/// # Errors
/// DataFusion's, when the table cannot be read; a column `columns` names
/// that the table lacks, or that is not a string column, is named.
pub async fn replay_table(
    ctx: &SessionContext,
    table: &str,
    columns: &Columns,
    replay: Arc<Replay>,
) -> Result<Report> {
    let partitions = ctx.state().config().target_partitions();
    let frame = calls(ctx, table, columns, partitions).await?;
    let task = Arc::new(frame.task_ctx());
    let config = task.session_config().options().clone();
    // Each file scan split into up to `partitions` contiguous runs of row
    // groups (byte ranges, in the files' order), whether or not the
    // optimizer would have found it worth it for a plain projection.
    let plan = frame
        .create_physical_plan()
        .await?
        .transform_up(|node| {
            Ok(match node.repartitioned(partitions, &config)? {
                Some(split) => Transformed::yes(split),
                None => Transformed::no(node),
            })
        })?
        .data;
    let tasks = (0..plan.output_partitioning().partition_count())
        .map(|partition| {
            let stream = plan.execute(partition, task.clone())?;
            Ok(SpawnedTask::spawn(replay_partition(stream, replay.clone())))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut reports = Vec::with_capacity(tasks.len());
    for task in tasks {
        let report = task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::External(Box::new(e)))??;
        reports.push(report);
    }
    if reports.is_empty() {
        return Ok(Tally::new(&replay).finish(0));
    }
    merge(reports).map_err(|e| DataFusionError::Execution(format!("canon replay: {e}")))
}

/// The rows of one partition, bound and counted from line 1.
async fn replay_partition(
    mut stream: SendableRecordBatchStream,
    replay: Arc<Replay>,
) -> Result<Report> {
    let mut tally = Tally::new(&replay);
    let mut recent = Recent::default();
    let mut rows = 0u64;
    while let Some(batch) = stream.next().await {
        rows = bind_batch(&replay, &mut recent, &mut tally, rows, &batch?, &mut |_| {
            Ok(())
        })?;
    }
    Ok(tally.finish(rows))
}

/// The columns of `table` that `columns` names, checked, read in the
/// table's order on at most `partitions` partitions, each a contiguous
/// run of its rows: the session's tables, on a session that does not
/// deal batches out round robin.
async fn calls(
    ctx: &SessionContext,
    table: &str,
    columns: &Columns,
    partitions: usize,
) -> Result<DataFrame> {
    let provider = ctx.table_provider(table).await?;
    let schema = provider.schema();
    let mut names = vec![&columns.tool, &columns.schema, &columns.arguments];
    names.extend(&columns.label);
    for name in names.iter().copied() {
        match schema.field_with_name(name) {
            Ok(field) if Texts::takes(field.data_type()) => {}
            Ok(field) => {
                return exec_err!(
                    "canon replay: the column `{name}` of `{table}` is {}, not text",
                    field.data_type()
                )
            }
            Err(_) => {
                let columns: Vec<String> = schema
                    .fields()
                    .iter()
                    .take(20)
                    .map(|field| format!("`{}`", shown(field.name(), SHOWN_CHARS)))
                    .collect();
                let more = schema.fields().len().saturating_sub(columns.len());
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                return exec_err!(
                    "canon replay: `{table}` has no column `{name}`; its columns: {}{more}",
                    columns.join(", ")
                );
            }
        }
    }
    let mut state = ctx.state();
    let options = state.config_mut().options_mut();
    options.execution.target_partitions = partitions.max(1);
    // Dealt round robin, a partition's rows would not follow each other;
    // and a partition that went idle would read files or byte ranges of
    // another's, its rows then counted as its own.
    options.optimizer.enable_round_robin_repartition = false;
    options.execution.enable_file_stream_work_stealing = false;
    let ordered = SessionContext::new_with_state(state);
    let names: Vec<&str> = names.iter().map(|name| name.as_str()).collect();
    ordered.table(table).await?.select_columns(&names)
}

/// [`replay_table`], telling `on_call` of each call's outcome in the
/// table's order (as `canon replay --out` writes them): on one partition.
///
/// # Errors
/// As [`replay_table`]'s, and the first error `on_call` returns, which
/// stops the replay.
pub async fn replay_table_with(
    ctx: &SessionContext,
    table: &str,
    columns: &Columns,
    replay: &Replay,
    mut on_call: impl FnMut(&CallOutcome) -> std::io::Result<()>,
) -> Result<Report> {
    let frame = calls(ctx, table, columns, 1).await?;
    let mut stream = frame.execute_stream().await?;
    let mut tally = Tally::new(replay);
    let mut recent = Recent::default();
    let mut rows = 0u64;
    while let Some(batch) = stream.next().await {
        rows = bind_batch(replay, &mut recent, &mut tally, rows, &batch?, &mut on_call)?;
    }
    Ok(tally.finish(rows))
}

/// Binds and counts the rows of `batch`, the first being row `rows + 1`:
/// the rows counted after it.
fn bind_batch(
    replay: &Replay,
    recent: &mut Recent,
    tally: &mut Tally,
    mut rows: u64,
    batch: &RecordBatch,
    on_call: &mut impl FnMut(&CallOutcome) -> std::io::Result<()>,
) -> Result<u64> {
    let tools = Texts::of(batch.column(0))?;
    let schemas = Texts::of(batch.column(1))?;
    let arguments = Texts::of(batch.column(2))?;
    let labels = match batch.columns().get(3) {
        Some(column) => Some(Texts::of(column)?),
        None => None,
    };
    for i in 0..batch.num_rows() {
        rows += 1;
        match (tools.get(i), schemas.get(i), arguments.get(i)) {
            (Some(tool), Some(schema), Some(arguments)) => {
                let call = CallRef {
                    tool,
                    schema,
                    arguments,
                    label: labels.as_ref().and_then(|labels| labels.get(i)),
                };
                let outcome = replay.bind_call_after(recent, rows, call).outcome;
                tally.call(&outcome);
                on_call(&outcome)?;
            }
            _ => tally.malformed(),
        }
    }
    Ok(rows)
}

/// A column of a table of calls read as text: strings, or bytes read as
/// UTF-8, where a row whose bytes are not UTF-8 reads as NULL (a malformed
/// line, as a line that is not UTF-8 is).
enum Texts<'a> {
    Strings(Strings<'a>),
    Binary(&'a GenericBinaryArray<i32>),
    LargeBinary(&'a GenericBinaryArray<i64>),
    BinaryView(&'a BinaryViewArray),
}

impl<'a> Texts<'a> {
    /// Whether a column of `data_type` is read as text.
    fn takes(data_type: &DataType) -> bool {
        Strings::takes(data_type)
            || matches!(
                data_type,
                DataType::Binary | DataType::LargeBinary | DataType::BinaryView
            )
    }

    fn of(array: &'a ArrayRef) -> Result<Texts<'a>> {
        Ok(match array.data_type() {
            DataType::Binary => Texts::Binary(array.as_binary::<i32>()),
            DataType::LargeBinary => Texts::LargeBinary(array.as_binary::<i64>()),
            DataType::BinaryView => Texts::BinaryView(array.as_binary_view()),
            _ => Texts::Strings(Strings::of(array)?),
        })
    }

    /// Row `i`, `None` when it is NULL or not UTF-8.
    fn get(&self, i: usize) -> Option<&'a str> {
        let bytes = match self {
            Texts::Strings(strings) => return strings.get(i),
            Texts::Binary(a) => a.is_valid(i).then(|| a.value(i)),
            Texts::LargeBinary(a) => a.is_valid(i).then(|| a.value(i)),
            Texts::BinaryView(a) => a.is_valid(i).then(|| a.value(i)),
        }?;
        std::str::from_utf8(bytes).ok()
    }
}
