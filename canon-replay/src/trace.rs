//! The calls of a trace of another format than canon's own (OpenAI Chat
//! Completions and Responses, Anthropic Messages, OTLP) replayed in input
//! order, on the calling thread or, with `--jobs N`, bound on N worker
//! threads and told of in input order, so that everything a caller sees
//! is exactly what one job gives.
//!
//! With N jobs the calling thread reads the records and hands out
//! batches of them (at most [`BATCH_RECORDS`] records, or
//! [`BATCH_BYTES`] bytes past which no further record is added), a bounded
//! number in flight ([`parallel::ordered`]); the workers extract the calls
//! and bind them, sharing the replay's schema cache. OTLP calls are paired
//! with definitions across records, so an OTLP record's calls are
//! extracted on the calling thread, in order, and only bound on the
//! workers.

use std::collections::HashMap;
use std::io::{self, BufRead};
use std::sync::Arc;

use crate::formats::{Extractor, Format, Located, Records, Schema};
use crate::outcome::{CallOutcome, LineError};
use crate::parallel;
use crate::replay::{Last, Replay, Tally};
use crate::report::Report;

/// Records in a batch, at most.
const BATCH_RECORDS: usize = 256;
/// Bytes of records in a batch past which no further record is added (the
/// record that passes it, up to the record bound, still joins the batch).
const BATCH_BYTES: u64 = 1 << 20;

/// A call found in a record, with its schema text shared.
type Found = Located<Arc<str>>;

/// A record with more calls than this has them bound by the thread that
/// tells of them, one at a time, rather than by a worker: a batch then
/// never holds the outcomes of a huge record (one job holds one outcome
/// at a time), only its calls, as one job does.
const WORKER_CALLS: usize = 1024;

/// What a worker gives for a record, in input order.
enum Worked {
    /// A call bound, skipped or a malformed record.
    Event(Event),
    /// The calls of a record with more than [`WORKER_CALLS`] calls, to be
    /// bound as they are told of.
    Unbound(Vec<Found>),
}

/// What one record (or the end of the input) gives, in input order.
enum Event {
    /// A call bound.
    Call(CallOutcome),
    /// A call that could not be replayed, and why.
    Skipped(&'static str),
    /// A record that is not one of the format's.
    Malformed(LineError),
}

/// A record handed to a worker.
enum Item {
    /// A record's text (or why it cannot be read), its calls to be
    /// extracted by the worker.
    Record {
        line: u64,
        text: Result<String, String>,
    },
    /// The calls already extracted (OTLP), or why the record on `line`
    /// is malformed.
    Extracted {
        line: u64,
        found: Result<Vec<Found>, String>,
    },
}

/// What extracts and binds calls on one thread: the extractor, the
/// `--tools` schemas made text (once per tool called), and the schema of
/// the last call bound.
struct Binder<'r> {
    replay: &'r Replay,
    extractor: Extractor,
    /// The tools file's schemas as text, made once per tool called.
    from_tools: HashMap<String, Option<Arc<str>>>,
    last: Last,
}

impl<'r> Binder<'r> {
    fn new(replay: &'r Replay, format: Format) -> Binder<'r> {
        Binder {
            replay,
            extractor: Extractor::new(format),
            from_tools: HashMap::new(),
            last: None,
        }
    }

    /// The record on `line` (its text, or why it cannot be read): its
    /// calls extracted and bound, each told to `sink`.
    fn record(
        &mut self,
        line: u64,
        text: Result<String, String>,
        sink: &mut impl FnMut(Event) -> io::Result<()>,
    ) -> io::Result<()> {
        let found = text.and_then(|text| self.extractor.record_shared(line, &text));
        self.extracted(line, found, sink)
    }

    /// The calls extracted from the record on `line` (or why it is
    /// malformed), bound, each told to `sink`.
    fn extracted(
        &mut self,
        line: u64,
        found: Result<Vec<Found>, String>,
        sink: &mut impl FnMut(Event) -> io::Result<()>,
    ) -> io::Result<()> {
        match found {
            Ok(found) => {
                for located in found {
                    sink(self.bind(located))?;
                }
                Ok(())
            }
            Err(reason) => sink(Event::Malformed(LineError { line, reason })),
        }
    }

    /// One call: bound with its schema (the tools file's when the trace
    /// has none), or skipped, and why.
    fn bind(&mut self, located: Found) -> Event {
        let Located { line, mut call } = located;
        if matches!(call.schema, Schema::Unknown) {
            let known = match self.from_tools.get(&call.tool) {
                Some(known) => known.clone(),
                None => {
                    let known = self
                        .replay
                        .tools()
                        .get(&call.tool)
                        .map(|schema| Arc::from(schema.to_string()));
                    // Only names of the tools file are kept: bounded.
                    if known.is_some() {
                        self.from_tools.insert(call.tool.clone(), known.clone());
                    }
                    known
                }
            };
            if let Some(schema) = known {
                call.schema = Schema::Declared(schema);
            }
        }
        // The schema text is shared by the record's calls to the tool (or
        // by every call taking the tools file's), so a run of calls with
        // one schema is told by its pointer, not by comparing the text.
        match self.replay.shared_outcome(&mut self.last, line, &call) {
            Some(outcome) => Event::Call(outcome),
            // Not bound as it stands: `skip_reason` says why (it is
            // `Some` here), save that `--tools` was searched too.
            None => Event::Skipped(match (&call.schema, &call.arguments) {
                (Schema::Unknown, Some(_)) => "no schema in the trace or --tools",
                _ => call.skip_reason().unwrap_or("arguments not captured"),
            }),
        }
    }
}

/// Counts `event` and tells the callback of it.
fn tell(
    tally: &mut Tally,
    event: Event,
    on_call: &mut impl FnMut(&CallOutcome) -> io::Result<()>,
    on_malformed: &mut impl FnMut(&LineError),
) -> io::Result<()> {
    match event {
        Event::Call(outcome) => {
            tally.call(&outcome);
            on_call(&outcome)
        }
        Event::Skipped(reason) => {
            tally.skipped(reason);
            Ok(())
        }
        Event::Malformed(error) => {
            tally.malformed();
            on_malformed(&error);
            Ok(())
        }
    }
}

/// [`Replay::run_trace`]: on the calling thread with one job, else on
/// `replay.jobs` worker threads.
pub(crate) fn run(
    replay: &Replay,
    last: &mut Last,
    format: Format,
    input: impl BufRead,
    mut on_progress: impl FnMut(u64),
    mut on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
    mut on_malformed: impl FnMut(&LineError),
) -> io::Result<Report> {
    let mut tally = Tally::new(replay);
    let mut records = Records::new(input);
    let mut binder = Binder::new(replay, format);
    binder.last = last.take();
    let mut sink = |event| tell(&mut tally, event, &mut on_call, &mut on_malformed);
    if replay.jobs <= 1 {
        for record in records.by_ref() {
            let record = record?;
            on_progress(record.bytes);
            binder.record(record.line, record.text, &mut sink)?;
        }
        let rest = binder.extractor.finish_shared();
        binder.extracted(0, Ok(rest), &mut sink)?;
        *last = binder.last;
        return Ok(tally.finish(records.lines()));
    }
    // The calling thread's extractor: it extracts the calls of a format
    // that pairs them across records, and gives those still held at the
    // end.
    let extract_here = Extractor::pairs_across_records(format);
    let mut ended = false;
    // An error reading a record, after some records of the batch: those are
    // replayed first, as with one job, and the error comes next.
    let mut failed = None;
    let read = || -> io::Result<Option<Vec<Item>>> {
        if let Some(error) = failed.take() {
            return Err(error);
        }
        let mut batch = Vec::new();
        let mut bytes = 0u64;
        while batch.len() < BATCH_RECORDS && bytes < BATCH_BYTES {
            let record = match records.next().transpose() {
                Ok(Some(record)) => record,
                Ok(None) => break,
                Err(error) if !batch.is_empty() => {
                    failed = Some(error);
                    return Ok(Some(batch));
                }
                Err(error) => return Err(error),
            };
            on_progress(record.bytes);
            bytes = bytes.saturating_add(record.bytes);
            batch.push(match extract_here {
                true => Item::Extracted {
                    line: record.line,
                    found: record
                        .text
                        .and_then(|text| binder.extractor.record_shared(record.line, &text)),
                },
                false => Item::Record {
                    line: record.line,
                    text: record.text,
                },
            });
        }
        if batch.is_empty() && !ended {
            ended = true;
            let rest = binder.extractor.finish_shared();
            if !rest.is_empty() {
                batch.push(Item::Extracted {
                    line: 0,
                    found: Ok(rest),
                });
            }
        }
        Ok((!batch.is_empty()).then_some(batch))
    };
    let work = |binder: &mut Binder<'_>, batch: Vec<Item>| -> Vec<Worked> {
        let mut worked = Vec::new();
        for item in batch {
            let (line, found) = match item {
                Item::Record { line, text } => (
                    line,
                    text.and_then(|text| binder.extractor.record_shared(line, &text)),
                ),
                Item::Extracted { line, found } => (line, found),
            };
            match found {
                Ok(found) if found.len() > WORKER_CALLS => worked.push(Worked::Unbound(found)),
                found => {
                    // Keeping an event never fails.
                    let _ = binder.extracted(line, found, &mut |event| {
                        worked.push(Worked::Event(event));
                        Ok(())
                    });
                }
            }
        }
        worked
    };
    // Binds the calls of huge records as they are told of.
    let mut teller = Binder::new(replay, format);
    parallel::ordered(
        replay.jobs,
        read,
        || Binder::new(replay, format),
        work,
        |worked| {
            worked.into_iter().try_for_each(|worked| match worked {
                Worked::Event(event) => sink(event),
                Worked::Unbound(found) => found
                    .into_iter()
                    .try_for_each(|located| sink(teller.bind(located))),
            })
        },
    )?;
    Ok(tally.finish(records.lines()))
}

impl Replay {
    /// Replays the calls of a trace of another format than canon's own
    /// (OpenAI Chat Completions or Responses, Anthropic Messages, OTLP:
    /// see [`formats`](crate::formats)), read a record at a time
    /// ([`formats::Records`](crate::formats::Records)):
    /// each record's calls in order, a call with no schema in the record
    /// taking the tools file's, and one that cannot be bound (no schema,
    /// or no arguments captured) counted as skipped, with the reason.
    /// `on_progress` is told of the bytes of each record read, `on_call`
    /// of each call's outcome and `on_malformed` of each record that is
    /// not of `format` or cannot be read (not UTF-8, over the record
    /// bound, cut short). With [`jobs`](Self::jobs) over 1, batches of
    /// records are bound on that many worker threads, a bounded number in
    /// flight, and told of in input order: the report and every callback
    /// are exactly those of one job. (For canon's own JSON Lines, use
    /// [`run_with`](Self::run_with).)
    ///
    /// ```
    /// use canon::Policy;
    /// use canon_replay::formats::Format;
    /// use canon_replay::{Replay, Tools};
    ///
    /// let log = r#"{"request": {"tools": [{"name": "t", "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}]}, "response": {"type": "message", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {"n": "1"}}]}}"#;
    /// let mut replay = Replay::new(Policy::all(), Tools::default()).jobs(2);
    /// let report = replay
    ///     .run_trace(Format::Anthropic, log.as_bytes(), |_| {}, |_| Ok(()), |_| {})
    ///     .unwrap();
    /// assert_eq!(report.totals.accepted_after_repair, 1);
    /// ```
    ///
    /// # Errors
    /// An I/O error reading `input`, or the first error of `on_call`.
    pub fn run_trace(
        &mut self,
        format: Format,
        input: impl BufRead,
        on_progress: impl FnMut(u64),
        on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
        on_malformed: impl FnMut(&LineError),
    ) -> io::Result<Report> {
        let mut last = self.last.take();
        let report = run(
            self,
            &mut last,
            format,
            input,
            on_progress,
            on_call,
            on_malformed,
        );
        self.last = last;
        report
    }
}
