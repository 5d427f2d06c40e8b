//! `canon replay` over a table DataFusion reads (Parquet files above all):
//! each row a call, bound by the replay engine in the table's order and
//! counted into the same [`Report`] the JSON Lines reader gives.

use canon_replay::{CallOutcome, CallRef, Recent, Replay, Report, Tally};
use datafusion::arrow::array::RecordBatch;
use datafusion::common::{exec_err, Result};
use datafusion::prelude::SessionContext;
use futures::StreamExt;

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
/// schema or arguments is NULL is a malformed line. The rows are read a
/// batch at a time, never the whole table, on one partition (in order)
/// whatever `ctx`'s configuration.
///
/// # Errors
/// DataFusion's, when the table cannot be read; a column `columns` names
/// that the table lacks, or that is not a string column, is named.
pub async fn replay_table(
    ctx: &SessionContext,
    table: &str,
    columns: &Columns,
    replay: &Replay,
) -> Result<Report> {
    replay_table_with(ctx, table, columns, replay, |_| Ok(())).await
}

/// [`replay_table`], telling `on_call` of each call's outcome in the
/// table's order (as `canon replay --out` writes them).
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
    let provider = ctx.table_provider(table).await?;
    let schema = provider.schema();
    let mut names = vec![&columns.tool, &columns.schema, &columns.arguments];
    names.extend(&columns.label);
    for name in names.iter().copied() {
        match schema.field_with_name(name) {
            Ok(field) if Strings::takes(field.data_type()) => {}
            Ok(field) => {
                return exec_err!(
                    "canon replay: the column `{name}` of `{table}` is {}, not text",
                    field.data_type()
                )
            }
            Err(_) => return exec_err!("canon replay: `{table}` has no column `{name}`"),
        }
    }
    // One partition, so that the rows come in the table's order: the
    // lines' numbers are the rows'. The session's tables are shared.
    let mut state = ctx.state();
    state.config_mut().options_mut().execution.target_partitions = 1;
    let ordered = SessionContext::new_with_state(state);
    let names: Vec<&str> = names.iter().map(|name| name.as_str()).collect();
    let frame = ordered.table(table).await?.select_columns(&names)?;
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
    let tools = Strings::of(batch.column(0))?;
    let schemas = Strings::of(batch.column(1))?;
    let arguments = Strings::of(batch.column(2))?;
    let labels = match batch.columns().get(3) {
        Some(column) => Some(Strings::of(column)?),
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
