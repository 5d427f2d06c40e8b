//! `canon replay` on tables of calls: Parquet and Arrow IPC files,
//! directories of them and globs, read by Apache DataFusion.

use std::path::Path;

use crate::Failure;

/// The input as DataFusion is given it, when `path` is a table of calls;
/// `None` for anything the JSON Lines reader reads (which says why a file
/// it cannot open cannot be opened).
#[cfg(feature = "datafusion")]
pub(crate) fn input(path: &Path) -> Result<Option<String>, Failure> {
    let Some(input) = path.to_str() else {
        return Ok(None);
    };
    match canon_datafusion::table_format(input) {
        Ok(Some(_)) => Ok(Some(input.to_owned())),
        Ok(None) => Ok(None),
        Err(e) if path.is_dir() => Err(format!("{}: {e}", path.display()).into()),
        Err(_) => Ok(None),
    }
}

/// Without DataFusion, a table is refused with what to do.
#[cfg(not(feature = "datafusion"))]
pub(crate) fn input(path: &Path) -> Result<Option<String>, Failure> {
    let named = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["parquet", "arrow", "ipc", "feather"].contains(&e.to_ascii_lowercase().as_str())
    });
    if named || path.is_dir() {
        return Err(format!(
            "{}: this canon was built without its `datafusion` feature, which reads Parquet and \
             Arrow IPC: build it with default features",
            path.display()
        )
        .into());
    }
    Ok(None)
}

#[cfg(not(feature = "datafusion"))]
pub(crate) fn replay(_: &crate::ReplayArgs, _: &str) -> Result<(), Failure> {
    unreachable!("no input is a table without the `datafusion` feature")
}

#[cfg(feature = "datafusion")]
pub(crate) use with_datafusion::{message, replay, session};

#[cfg(feature = "datafusion")]
mod with_datafusion {
    use std::path::Path;

    use canon_cli::{CallOutcome, Replay, Tools};
    use canon_datafusion::datafusion::prelude::{SessionConfig, SessionContext};

    use std::sync::Arc;

    use canon_datafusion::datafusion::error::DataFusionError;
    use canon_datafusion::{
        check_files, register_table, replay_table, replay_table_with, Columns, MAX_ROW_GROUP_TEXT,
    };

    use crate::{jobs, print_report, progress_bar, same_file, Failure, Out, ReplayArgs};

    /// A DataFusion error as the command says it: its message, without the
    /// kind DataFusion prefixes it with.
    pub(crate) fn message(error: DataFusionError) -> Failure {
        Failure::Message(error.message().into_owned())
    }

    /// The runtime and session a command reads tables on, with `jobs`
    /// threads and partitions: every file under a directory (not only
    /// Hive's `key=value` levels), files from 1 MiB on split between the
    /// jobs (DataFusion's default waits for 10 MB), canon's functions
    /// registered.
    pub(crate) fn session(
        jobs: usize,
    ) -> Result<(tokio::runtime::Runtime, SessionContext), Failure> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(jobs)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the runtime DataFusion runs on: {e}"))?;
        let mut config = SessionConfig::new().with_target_partitions(jobs);
        let options = config.options_mut();
        options.execution.listing_table_ignore_subdirectory = false;
        options.optimizer.repartition_file_min_size = 1 << 20;
        let ctx = SessionContext::new_with_config(config);
        canon_datafusion::register(&ctx);
        Ok((runtime, ctx))
    }

    /// The table's columns that `columns` names and it lacks, said with the
    /// flag that names each and the columns it has.
    async fn check_columns(
        ctx: &SessionContext,
        input: &str,
        columns: &Columns,
    ) -> Result<(), Failure> {
        let table = ctx.table_provider("calls").await.map_err(message)?.schema();
        let mut wanted = vec![
            (&columns.tool, "--tool-column"),
            (&columns.schema, "--schema-column"),
            (&columns.arguments, "--arguments-column"),
        ];
        if let Some(label) = &columns.label {
            wanted.push((label, "--label-column"));
        }
        for (name, flag) in wanted {
            if table.field_with_name(name).is_err() {
                let names: Vec<String> = table
                    .fields()
                    .iter()
                    .take(20)
                    .map(|f| format!("`{}`", canon_cli::formats::shown(f.name(), 64)))
                    .collect();
                return Err(format!(
                    "{input} has no column `{}` (its columns: {}{}): name the column with {flag}",
                    canon_cli::formats::shown(name, 64),
                    names.join(", "),
                    if table.fields().len() > 20 {
                        ", ..."
                    } else {
                        ""
                    }
                )
                .into());
            }
        }
        Ok(())
    }

    /// `canon replay INPUT` for a table of calls: the same report, `--json`
    /// and `--out` as for JSON Lines.
    pub(crate) fn replay(args: &ReplayArgs, input: &str) -> Result<(), Failure> {
        if args.format.is_some() {
            return Err(format!(
                "--format names a log's format, and {input} is a table of calls (Parquet or \
                 Arrow IPC): name its columns with --tool-column, --schema-column and \
                 --arguments-column"
            )
            .into());
        }
        if args.tools.is_some() {
            return Err(format!(
                "--tools: the calls of a table ({input}) carry their tool's schema in a column \
                 (--schema-column)"
            )
            .into());
        }
        if let Some(out) = &args.out {
            if same_file(out, Path::new(input)) {
                return Err(format!(
                    "--out is the input file ({}): writing it would destroy the input; name \
                     another file",
                    out.display()
                )
                .into());
            }
        }
        let defaults = Columns::default();
        let columns = Columns {
            tool: args.tool_column.clone().unwrap_or(defaults.tool),
            schema: args.schema_column.clone().unwrap_or(defaults.schema),
            arguments: args.arguments_column.clone().unwrap_or(defaults.arguments),
            label: args.label_column.clone(),
        };
        let mut out = Out::create(args.out.as_deref())?;
        let jobs = jobs(args.jobs);
        let (runtime, ctx) = session(jobs)?;
        let replay = Arc::new(
            Replay::new(args.policy, Tools::default())
                .open_objects(args.open_objects)
                .jobs(jobs),
        );
        // Calls counted as they are written in order; partitions binding at
        // once tell no count, only that they are at work.
        let progress = match &out {
            Some(_) => progress_bar(None, "calls"),
            None => crate::spinner("replaying"),
        };
        let hidden = progress.is_hidden();
        let limit = args
            .max_row_group
            .map_or(MAX_ROW_GROUP_TEXT, |mib| u64::from(mib) << 20);
        let report = runtime.block_on(async {
            check_files(&ctx, input, &columns.arguments, limit)
                .await
                .map_err(message)?;
            register_table(&ctx, "calls", input)
                .await
                .map_err(message)?;
            check_columns(&ctx, input, &columns).await?;
            let replayed = if out.is_some() {
                // Each call's line in the table's order: one partition.
                let on_call = |outcome: &CallOutcome| {
                    if !hidden {
                        progress.inc(1);
                    }
                    Out::write(&mut out, outcome)
                };
                replay_table_with(&ctx, "calls", &columns, &replay, on_call).await
            } else {
                // Partitions bound at once; their reports merged in order.
                replay_table(&ctx, "calls", &columns, replay.clone()).await
            };
            replayed.map_err(|e| match Out::failed(&out) {
                Some(path) => {
                    Failure::Message(format!("writing --out {}: {}", path.display(), e.message()))
                }
                None => message(e),
            })
        })?;
        progress.finish_and_clear();
        Out::finish(out)?;
        std::mem::forget(replay);
        print_report(&report, input, args.json)
    }
}
