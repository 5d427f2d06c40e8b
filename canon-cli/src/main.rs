//! The `canon` command.
#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;

use canon::Policy;
use canon_cli::{render, Replay, Tools, SAMPLE_CALLS, SAMPLE_TOOLS};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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
}

#[derive(clap::Args, Default)]
struct ReplayArgs {
    /// Captured calls, JSON Lines: {"tool", "arguments" (object or JSON
    /// text), "schema" (optional)}; `-` reads standard input.
    file: Option<PathBuf>,
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
    /// Bind on N threads (default: all cores); the output is the same,
    /// in the same order, whatever N.
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<NonZeroUsize>,
}

fn parse_policy(text: &str) -> Result<Policy, String> {
    text.parse()
        .map_err(|e: canon::toolbox::UnknownRule| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = match cli.command {
        Some(Command::Replay(args)) => args,
        None => ReplayArgs::default(),
    };
    match replay(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("canon replay: {message}");
            ExitCode::FAILURE
        }
    }
}

fn replay(args: ReplayArgs) -> Result<(), String> {
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
            "the bundled sample (canon-cli/data/sample-calls.jsonl)".to_owned(),
        ),
        Some(path) if path.as_os_str() == "-" => (
            Box::new(io::stdin().lock()),
            None,
            "standard input".to_owned(),
        ),
        Some(path) => {
            let file =
                File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            let size = file.metadata().ok().map(|m| m.len());
            (
                Box::new(BufReader::with_capacity(1 << 16, file)),
                size,
                path.display().to_string(),
            )
        }
    };
    let mut out = match &args.out {
        Some(path) => {
            Some(BufWriter::new(File::create(path).map_err(|e| {
                format!("cannot create {}: {e}", path.display())
            })?))
        }
        None => None,
    };
    let progress = progress_bar(size);
    let jobs = args
        .jobs
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    let mut replay = Replay::new(args.policy, tools)
        .open_objects(args.open_objects)
        .jobs(jobs);
    let report = replay
        .run_with(
            input,
            |bytes| progress.inc(bytes),
            |outcome| match out.as_mut() {
                Some(out) => {
                    serde_json::to_writer(&mut *out, outcome)?;
                    out.write_all(b"\n")
                }
                None => Ok(()),
            },
            |error| {
                progress.suspend(|| eprintln!("line {}: skipped: {}", error.line, error.reason));
            },
        )
        .map_err(|e| format!("reading {source}: {e}"))?;
    // The compiled schemas are left to the process's exit: freeing them one
    // by one (1,491 validators on the real corpus) would add a fifth to the
    // time of the whole replay.
    std::mem::forget(replay);
    progress.finish_and_clear();
    if let Some(mut out) = out {
        out.flush().map_err(|e| format!("writing --out: {e}"))?;
    }
    let stdout = io::stdout();
    let mut stdout = stdout.lock();
    let printed = if args.json {
        serde_json::to_writer_pretty(&mut stdout, &report)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(stdout))
    } else {
        write!(stdout, "{}", render(&report, &source))
    };
    printed.map_err(|e| format!("writing the report: {e}"))
}

/// A byte-count bar when the size is known, a spinner otherwise; hidden
/// when standard error is not a terminal.
fn progress_bar(size: Option<u64>) -> ProgressBar {
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
            if let Ok(style) = ProgressStyle::with_template("{spinner} replaying {bytes} read") {
                bar.set_style(style);
            }
            bar
        }
    }
}
