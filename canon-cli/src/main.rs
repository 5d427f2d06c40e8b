//! The `canon` command.
#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use canon::Policy;
use canon_cli::formats::{self, Compression, Format};
use canon_cli::{
    merge, render, CallOutcome, LineError, Replay, Report, Tools, SAMPLE_CALLS, SAMPLE_TOOLS,
};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

mod sql;
mod tables;

/// canon: tolerant, schema-derived argument binders for LLM agent tools.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Replay captured tool calls: how many a strict binder rejects, and how
    /// many canon repairs. With no FILE, replays the calls that ship with
    /// canon.
    Replay(ReplayArgs),
    /// Run a SQL query over files of calls (Parquet, Arrow IPC, canon's
    /// JSON Lines), with canon's functions `canon_bind` and
    /// `canon_feedback`.
    Sql(sql::SqlArgs),
}

#[derive(Subcommand)]
enum ReplayCommand {
    /// Combine the `--json` summaries of consecutive shards of one input,
    /// given in input order, into exactly the summary of the whole.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shards' summaries (`canon replay --json` output), in input order.
    #[arg(required = true)]
    summaries: Vec<PathBuf>,
    /// Print the merged summary as one JSON object (mergeable again).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Default)]
#[command(args_conflicts_with_subcommands = true)]
struct ReplayArgs {
    #[command(subcommand)]
    command: Option<ReplayCommand>,
    /// Captured calls: canon's JSON Lines ({"tool", "arguments" (object or
    /// JSON text), "schema" (optional)}), or a log of another format (see
    /// --format); gzip and zstd are read as such. `-` reads standard input.
    /// A table of calls: a Parquet or Arrow IPC file, a directory of them
    /// (Hive partitions included) or a glob (`'traces/*.parquet'`), one
    /// call a row in the columns `tool`, `schema` and `arguments` (JSON
    /// text).
    file: Option<PathBuf>,
    /// The input's format: canon, openai-chat, openai-responses, anthropic
    /// (request/response logs, as proxies and gateways write them) or otlp
    /// (OpenTelemetry traces in OTLP JSON with GenAI spans). Default: told
    /// from the first record.
    #[arg(long, value_name = "FORMAT")]
    format: Option<Format>,
    /// Tool schemas for calls without a `schema`: an OpenAI or Anthropic
    /// `tools` array, an MCP `tools/list` result, or one tool per line.
    #[arg(long)]
    tools: Option<PathBuf>,
    /// The rules canon binds with: `default` (the core rule), `all`,
    /// `strict`, or rule names added to the default
    /// (`number_text,bool_text`).
    #[arg(long, default_value = "default", value_parser = parse_policy)]
    policy: Policy,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Write one JSON line per call (its outcome, repairs and violations)
    /// to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Read schemas as written: accept properties an object does not
    /// declare unless it says `additionalProperties: false`.
    #[arg(long)]
    open_objects: bool,
    /// Bind on N threads (default: all cores; at most 256); the output is the same,
    /// in the same order, whatever N.
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<NonZeroUsize>,
    /// A table's column of the tool's name [default: tool].
    #[arg(long, value_name = "COLUMN")]
    tool_column: Option<String>,
    /// A table's column of the tool's input schema, JSON text [default:
    /// schema].
    #[arg(long, value_name = "COLUMN")]
    schema_column: Option<String>,
    /// A table's column of the call's arguments, JSON text [default:
    /// arguments].
    #[arg(long, value_name = "COLUMN")]
    arguments_column: Option<String>,
    /// A table's column of each call's label, shown with its outcome in
    /// `--out` (as a JSON line's `class` or `note`) [default: none].
    #[arg(long, value_name = "COLUMN")]
    label_column: Option<String>,
    /// The most text, in MiB, that one Parquet row group may hold in the
    /// arguments column: a row group is read whole, so this bounds the
    /// memory a replay takes; a file with a larger one is refused, named
    /// [default: 256].
    #[arg(long, value_name = "MIB")]
    max_row_group: Option<u32>,
}

fn parse_policy(text: &str) -> Result<Policy, String> {
    text.parse()
        .map_err(|e: canon::toolbox::UnknownRule| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (name, result) = match cli.command {
        Some(Command::Sql(args)) => ("canon sql", sql::run(args)),
        Some(Command::Replay(mut args)) => (
            "canon replay",
            match args.command.take() {
                Some(ReplayCommand::Merge(merge)) => merge_summaries(merge),
                None => replay(args),
            },
        ),
        None => ("canon replay", replay(ReplayArgs::default())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of the output stopped reading (`| head`): it has what
        // it wanted.
        Err(Failure::OutputClosed) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            warn(&format!("{name}: {message}"));
            ExitCode::FAILURE
        }
    }
}

/// Why a command stopped.
enum Failure {
    /// Standard output was closed by its reader.
    OutputClosed,
    /// Anything else, said to the user.
    Message(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Message(message)
    }
}

/// Writes a line to standard error; a closed standard error is no reason
/// to stop (nor to panic, as `eprintln!` would).
fn warn(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

fn replay(args: ReplayArgs) -> Result<(), Failure> {
    if let Some(path) = args.file.as_deref().filter(|path| path.as_os_str() != "-") {
        if let Some(input) = tables::input(path)? {
            return tables::replay(&args, &input);
        }
    }
    let tools = match (&args.tools, &args.file) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Tools::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, None) => Tools::parse(SAMPLE_TOOLS).map_err(|e| format!("bundled tools: {e}"))?,
        (None, Some(_)) => Tools::default(),
    };
    let (input, size, source): (Box<dyn BufRead>, Option<u64>, String) = match &args.file {
        None => (
            Box::new(SAMPLE_CALLS.as_bytes()),
            None,
            "the bundled sample (canon-replay/data/sample-calls.jsonl)".to_owned(),
        ),
        Some(path) if path.as_os_str() == "-" => {
            let (_, input) = formats::decompress(io::stdin().lock())
                .map_err(|e| format!("reading standard input: {e}"))?;
            (input, None, "standard input".to_owned())
        }
        Some(path) => {
            let file =
                File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            let size = file_size(&file);
            let (compression, input) = formats::decompress(BufReader::with_capacity(1 << 16, file))
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            // The bar counts the bytes read, decompressed.
            let size = size.filter(|_| compression == Compression::None);
            (input, size, path.display().to_string())
        }
    };
    let (format, input) = match args.format {
        Some(format) => (format, input),
        None => {
            let (found, input) =
                formats::sniff(input).map_err(|e| format!("reading {source}: {e}"))?;
            let format = found.unwrap_or_else(|| {
                warn(
                    "canon replay: could not tell the format from the first records; \
                     reading canon JSON Lines (name it with --format)",
                );
                Format::Canon
            });
            (format, input)
        }
    };
    if let (Some(out), Some(input)) = (&args.out, &args.file) {
        let same = if input.as_os_str() == "-" {
            stdin_is(out)
        } else {
            same_file(out, input)
        };
        if same {
            return Err(format!(
                "--out is the input file ({}): writing it would cut the input short; name another file",
                out.display()
            )
            .into());
        }
    }
    let mut out = Out::create(args.out.as_deref())?;
    let progress = progress_bar(size, "bytes");
    let jobs = jobs(args.jobs);
    let mut replay = Replay::new(args.policy, tools)
        .open_objects(args.open_objects)
        .jobs(jobs);
    let on_call = |outcome: &CallOutcome| Out::write(&mut out, outcome);
    let on_malformed = |error: &LineError| {
        // The reason may quote the input (a tool's name): escaped, short.
        let reason = formats::shown(&error.reason, 240);
        progress.suspend(|| warn(&format!("line {}: skipped: {reason}", error.line)));
    };
    // A hidden bar is not told of each line: nothing would be drawn.
    let hidden = progress.is_hidden();
    let on_progress = |bytes| {
        if !hidden {
            progress.inc(bytes);
        }
    };
    let report = match format {
        Format::Canon => replay.run_with(input, on_progress, on_call, on_malformed),
        format => replay.run_trace(format, input, on_progress, on_call, on_malformed),
    }
    .map_err(|e| match Out::failed(&out) {
        Some(path) => format!("writing --out {}: {e}", path.display()),
        None => format!("reading {source}: {e}"),
    })?;
    // The compiled schemas are left to the process's exit: freeing them one
    // by one (1,491 validators on the real corpus) would add a fifth to the
    // time of the whole replay.
    std::mem::forget(replay);
    progress.finish_and_clear();
    Out::finish(out)?;
    print_report(&report, &source, args.json)
}

/// The threads to bind on: `requested`, or one a core.
fn jobs(requested: Option<NonZeroUsize>) -> usize {
    requested
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get)
}

/// `--out`: each call's outcome written to a file, a JSON line each.
struct Out {
    path: PathBuf,
    writer: BufWriter<File>,
    /// Set when a write failed, so that the error is told as such, not as
    /// one reading the input.
    failed: bool,
}

impl Out {
    /// The file at `path` created, when there is one.
    fn create(path: Option<&Path>) -> Result<Option<Out>, Failure> {
        let Some(path) = path else { return Ok(None) };
        let file =
            File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        Ok(Some(Out {
            path: path.to_path_buf(),
            writer: BufWriter::new(file),
            failed: false,
        }))
    }

    /// Writes `outcome`'s line, if there is an `--out`.
    fn write(out: &mut Option<Out>, outcome: &CallOutcome) -> io::Result<()> {
        let Some(out) = out else { return Ok(()) };
        serde_json::to_writer(&mut out.writer, outcome)
            .map_err(io::Error::from)
            .and_then(|()| out.writer.write_all(b"\n"))
            .inspect_err(|_| out.failed = true)
    }

    /// The file a write failed to, if one did.
    fn failed(out: &Option<Out>) -> Option<&Path> {
        out.as_ref()
            .filter(|out| out.failed)
            .map(|out| out.path.as_path())
    }

    /// Flushes what is left to write.
    fn finish(out: Option<Out>) -> Result<(), Failure> {
        let Some(mut out) = out else { return Ok(()) };
        out.writer
            .flush()
            .map_err(|e| format!("writing --out {}: {e}", out.path.display()).into())
    }
}

/// The size of the file read, for the progress bar: none for a pipe or a
/// device (`<(...)`, `/dev/stdin`), whose length is no size.
fn file_size(file: &File) -> Option<u64> {
    file.metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// True when standard input is the file at `path` (redirected from it).
fn stdin_is(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let stdin = io::stdin();
        let Ok(fd) = stdin.as_fd().try_clone_to_owned() else {
            return false;
        };
        let (Ok(input), Ok(out)) = (File::from(fd).metadata(), std::fs::metadata(path)) else {
            return false;
        };
        input.is_file() && (input.dev(), input.ino()) == (out.dev(), out.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// Whether `a` and `b` name one file (through links too); false when
/// either does not exist.
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(a_meta), Ok(b_meta)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if (a_meta.dev(), a_meta.ino()) == (b_meta.dev(), b_meta.ino()) {
            return true;
        }
    }
    let _ = (a_meta, b_meta);
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(a), Ok(b)) if a == b
    )
}

/// `canon replay merge`: the shards' summaries, read and merged in order.
fn merge_summaries(args: MergeArgs) -> Result<(), Failure> {
    let mut reports = Vec::with_capacity(args.summaries.len());
    for path in &args.summaries {
        let text = if path.as_os_str() == "-" {
            io::read_to_string(io::stdin()).map_err(|e| format!("reading standard input: {e}"))?
        } else {
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        };
        let report: Report = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{}: not a `canon replay --json` summary ({e})",
                path.display()
            )
        })?;
        reports.push(report);
    }
    let report = merge(reports).map_err(|e| e.to_string())?;
    let source = format!("{} merged summaries", args.summaries.len());
    print_report(&report, &source, args.json)
}

/// Prints the report: the table, or one JSON object.
fn print_report(report: &Report, source: &str, json: bool) -> Result<(), Failure> {
    let stdout = io::stdout();
    let mut stdout = stdout.lock();
    let printed = if json {
        serde_json::to_writer_pretty(&mut stdout, report)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        write!(stdout, "{}", render(report, source))
    };
    printed.map_err(|e| match e.kind() {
        io::ErrorKind::BrokenPipe => Failure::OutputClosed,
        _ => Failure::Message(format!("writing the report: {e}")),
    })
}

/// A spinner on standard error saying `what` is being done and for how
/// long, while it is, when standard error is a terminal; hidden otherwise.
#[cfg_attr(not(feature = "datafusion"), allow(dead_code))]
fn spinner(what: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template(&format!("{{spinner}} {what} ({{elapsed}})")) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// A byte-count bar when the size is known, a spinner otherwise counting
/// `unit` (`bytes` read, or `calls`); hidden when standard error is not a
/// terminal.
fn progress_bar(size: Option<u64>, unit: &str) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(size, ProgressDrawTarget::hidden());
    }
    match size {
        Some(size) => {
            let bar = ProgressBar::new(size);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} replaying [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        }
        None => {
            let bar = ProgressBar::new_spinner();
            let template = match unit {
                "bytes" => "{spinner} replaying {bytes} read".to_owned(),
                unit => format!("{{spinner}} replaying {{human_pos}} {unit}"),
            };
            if let Ok(style) = ProgressStyle::with_template(&template) {
                bar.set_style(style);
            }
            bar
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_file_has_a_size_to_count_towards() {
        let path = std::env::temp_dir().join(format!("canon-size-{}", std::process::id()));
        std::fs::write(&path, "12345").unwrap();
        assert_eq!(file_size(&File::open(&path).unwrap()), Some(5));
        std::fs::remove_file(&path).unwrap();
        if Path::new("/dev/null").exists() {
            assert_eq!(file_size(&File::open("/dev/null").unwrap()), None);
        }
    }
}
