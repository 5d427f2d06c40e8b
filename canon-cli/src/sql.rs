//! `canon sql`: a query over files of calls, with canon's functions.

use std::path::PathBuf;

/// `canon sql QUERY FILES...`.
#[derive(clap::Args)]
pub(crate) struct SqlArgs {
    /// The query: DataFusion's SQL, with `canon_bind` and `canon_feedback`.
    /// Each input is a table named after its file or directory (`corpus`
    /// for `corpus.parquet` or `corpus.jsonl.gz`); a single input is also
    /// the table `calls`.
    query: String,
    /// The inputs: Parquet or Arrow IPC files, directories or globs of
    /// them, and canon's JSON Lines (gzip and zstd read as such).
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Write the result to this file, Parquet or CSV by its extension
    /// (`.parquet`, `.csv`), instead of printing it.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Tool schemas for JSON Lines calls without a `schema`: as `canon
    /// replay --tools` takes them.
    #[arg(long)]
    tools: Option<PathBuf>,
    /// Print at most this many rows of the result (`--out` writes them
    /// all).
    #[arg(long, default_value_t = 50, value_name = "N")]
    max_rows: usize,
    /// Run on N threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<std::num::NonZeroUsize>,
}

#[cfg(not(feature = "datafusion"))]
pub(crate) fn run(_: SqlArgs) -> Result<(), crate::Failure> {
    Err(
        "this canon was built without its `datafusion` feature, which runs SQL: build it with \
         default features"
            .to_owned()
            .into(),
    )
}

#[cfg(feature = "datafusion")]
pub(crate) use with_datafusion::run;

#[cfg(feature = "datafusion")]
mod with_datafusion {
    use std::collections::HashMap;
    use std::io::{self, Write};
    use std::path::Path;

    use canon_cli::Tools;
    use canon_datafusion::datafusion::arrow::array::RecordBatch;
    use canon_datafusion::datafusion::arrow::util::pretty::pretty_format_batches;
    use canon_datafusion::datafusion::dataframe::DataFrameWriteOptions;
    use canon_datafusion::datafusion::prelude::SessionContext;
    use canon_datafusion::{
        check_files, register_json_lines, register_table, table_format, MAX_ROW_GROUP_TEXT,
    };
    use futures::StreamExt;

    use super::SqlArgs;
    use crate::tables::message;
    use crate::Failure;

    /// The table name of `path`: its file or directory name without its
    /// extensions (`corpus` for `corpus.jsonl.gz`); a glob's, its
    /// directory's.
    pub(crate) fn table_name(path: &Path) -> Option<String> {
        let text = path.to_str()?;
        let named = if text.contains(['*', '?', '[']) && !path.exists() {
            // The last directory before the glob's first special character.
            let fixed = &text[..text.find(['*', '?', '['])?];
            Path::new(fixed.trim_end_matches(|c| c != '/'))
                .file_name()?
                .to_str()?
                .to_owned()
        } else {
            path.file_name()?.to_str()?.to_owned()
        };
        let stem = named.split('.').next().unwrap_or(&named);
        (!stem.is_empty()).then(|| stem.to_owned())
    }

    /// Runs the query over the inputs: the result printed, or written.
    pub(crate) fn run(args: SqlArgs) -> Result<(), Failure> {
        let tools = match &args.tools {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Tools::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => Tools::default(),
        };
        let jobs = crate::jobs(args.jobs);
        let (runtime, ctx) = crate::tables::session(jobs)?;
        let mut named: HashMap<String, &Path> = HashMap::new();
        runtime.block_on(async {
            let single = args.files.len() == 1;
            for path in &args.files {
                let name = match table_name(path) {
                    Some(name) => name,
                    // A lone glob such as `*.parquet` is `calls` alone.
                    None if single => "calls".to_owned(),
                    None => {
                        return Err(format!(
                            "{}: no file or directory name to name its table after",
                            path.display()
                        )
                        .into())
                    }
                };
                if let Some(other) = named.insert(name.clone(), path) {
                    return Err(format!(
                        "{} and {} would both be the table `{name}`: rename one",
                        other.display(),
                        path.display()
                    )
                    .into());
                }
                register(&ctx, &name, path, &tools).await?;
                if single && name != "calls" {
                    // The same table under a second name, read once.
                    let table = ctx.table_provider(name.as_str()).await.map_err(message)?;
                    ctx.register_table("calls", table).map_err(message)?;
                }
            }
            query(&ctx, &args).await
        })
    }

    /// Registers the input `path` as the table `name`.
    async fn register(
        ctx: &SessionContext,
        name: &str,
        path: &Path,
        tools: &Tools,
    ) -> Result<(), Failure> {
        let text = path.to_str();
        let format = match text {
            Some(text) => table_format(text).map_err(|e| format!("{}: {e}", path.display()))?,
            None => None,
        };
        match (format, text) {
            (Some(_), Some(text)) => {
                // The footers read first, so that a file that cannot be
                // read is named; a row group over the bound is refused.
                check_files(ctx, text, "arguments", MAX_ROW_GROUP_TEXT)
                    .await
                    .map_err(message)?;
                register_table(ctx, name, text)
                    .await
                    .map(|_| ())
                    .map_err(message)
            }
            _ => register_json_lines(ctx, name, path, tools).map_err(message),
        }
    }

    /// Runs the query: the rows printed (at most `--max-rows`), or written
    /// to `--out`.
    async fn query(ctx: &SessionContext, args: &SqlArgs) -> Result<(), Failure> {
        let frame = ctx.sql(&args.query).await.map_err(message)?;
        let progress = crate::spinner("running the query");
        if let Some(out) = &args.out {
            let path = out
                .to_str()
                .ok_or_else(|| format!("--out {}: the path must be UTF-8", out.display()))?;
            let extension = out
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            let options = DataFrameWriteOptions::new().with_single_file_output(true);
            let written = match extension.as_deref() {
                Some("parquet") => frame.write_parquet(path, options, None).await,
                Some("csv") => frame.write_csv(path, options, None).await,
                _ => {
                    return Err(format!(
                        "--out {}: name a `.parquet` or `.csv` file",
                        out.display()
                    )
                    .into())
                }
            };
            progress.finish_and_clear();
            written.map_err(|e| format!("writing --out {}: {e}", out.display()))?;
            return Ok(());
        }
        let mut stream = frame.execute_stream().await.map_err(message)?;
        let mut shown: Vec<RecordBatch> = Vec::new();
        let (mut kept, mut more) = (0usize, 0usize);
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(message)?;
            let take = batch.num_rows().min(args.max_rows - kept);
            if take > 0 {
                shown.push(batch.slice(0, take));
                kept += take;
            }
            more += batch.num_rows() - take;
        }
        progress.finish_and_clear();
        let table = pretty_format_batches(&shown).map_err(|e| e.to_string())?;
        let stdout = io::stdout();
        let mut stdout = stdout.lock();
        let mut printed = writeln!(stdout, "{table}");
        if more > 0 && printed.is_ok() {
            printed = writeln!(
                stdout,
                "({more} more rows: --max-rows to print more, --out to write them all)"
            );
        }
        printed.map_err(|e| match e.kind() {
            io::ErrorKind::BrokenPipe => Failure::OutputClosed,
            _ => Failure::Message(format!("writing the result: {e}")),
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn tables_are_named_after_files_directories_and_globs() {
            for (path, name) in [
                ("corpus.parquet", "corpus"),
                ("data/calls.jsonl.gz", "calls"),
                ("exports/traces/", "traces"),
                ("exports/traces/*.parquet", "traces"),
                ("exports/traces/year=*/x.parquet", "traces"),
            ] {
                assert_eq!(table_name(Path::new(path)).as_deref(), Some(name), "{path}");
            }
            assert_eq!(table_name(Path::new("/")), None);
        }
    }
}
