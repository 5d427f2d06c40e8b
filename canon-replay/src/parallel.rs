//! `--jobs N`: batches of lines (or, for the trace formats, of records)
//! bound on N worker threads, their results told in input order, so that
//! everything a caller sees is exactly what one job gives.
//!
//! The calling thread reads batches and hands them out over a bounded
//! channel; at most [`IN_FLIGHT_PER_JOB`] batches per worker are read and
//! not yet told of, so memory does not grow with the input. The workers
//! share the replay's schema cache. Counting and the callbacks stay on the
//! calling thread, in input order: the first example of each kind is the
//! first in the input, as with one job.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, BufRead};
use std::panic::{self, AssertUnwindSafe};
use std::sync::{mpsc, Mutex};
use std::thread;

use crate::lines::{self, Next};
use crate::outcome::{CallOutcome, LineError};
use crate::replay::{lock, Replay, Tally};
use crate::report::Report;

/// Lines in a batch, at most.
const BATCH_LINES: usize = 256;
/// Bytes in a batch past which no further line is added (the line that
/// passes it, up to the line bound, still joins the batch).
const BATCH_BYTES: usize = 1 << 20;
/// Batches read and not yet told of, per worker.
const IN_FLIGHT_PER_JOB: u64 = 4;

/// Consecutive lines of the input.
struct Batch {
    /// The number of its first line.
    first_line: u64,
    /// The lines' bytes, end to end.
    text: Vec<u8>,
    /// Where each line ends in `text`.
    ends: Vec<usize>,
    /// The numbers of its lines over the bound, none of whose bytes are
    /// in `text`.
    over: Vec<u64>,
}

/// A line's number and what it holds: a call or why it is not one.
type LineResult = (u64, Result<CallOutcome, String>);

/// A batch's text and line ends, kept for the next batch: reading into
/// memory already touched spares the page faults of fresh buffers.
type Buffers = (Vec<u8>, Vec<usize>);

/// [`Replay::run_with`] on `jobs` threads.
pub(crate) fn run(
    replay: &Replay,
    jobs: usize,
    mut input: impl BufRead,
    mut on_progress: impl FnMut(u64),
    mut on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
    mut on_malformed: impl FnMut(&LineError),
) -> io::Result<Report> {
    let mut tally = Tally::new(replay);
    let mut lines = 0u64;
    // The buffers of batches told of, for the batches read next.
    let spare: RefCell<Vec<Buffers>> = RefCell::new(Vec::new());
    let mut failed = None;
    ordered(
        jobs,
        || {
            let buffers = spare.borrow_mut().pop().unwrap_or_default();
            read_batch(
                &mut input,
                replay.max_line,
                &mut lines,
                &mut on_progress,
                buffers,
                &mut failed,
            )
        },
        || (),
        |(), batch: Batch| {
            let results = replay_batch(replay, &batch);
            (results, (batch.text, batch.ends))
        },
        |(results, buffers)| {
            spare.borrow_mut().push(buffers);
            for (line, result) in results {
                tally.emit(line, result, &mut on_call, &mut on_malformed)?;
            }
            Ok(())
        },
    )?;
    Ok(tally.finish(lines))
}

/// The next batch of `input` (`None` at its end), read into `buffers`,
/// no line held past `max_line` bytes; `lines` counts the lines read so
/// far. An error after some lines of the batch is kept in `failed` and
/// returned by the next call, so that those lines are replayed first.
fn read_batch(
    input: &mut impl BufRead,
    max_line: usize,
    lines: &mut u64,
    on_progress: &mut impl FnMut(u64),
    (mut text, mut ends): Buffers,
    failed: &mut Option<io::Error>,
) -> io::Result<Option<Batch>> {
    if let Some(error) = failed.take() {
        return Err(error);
    }
    text.clear();
    ends.clear();
    let mut batch = Batch {
        first_line: *lines + 1,
        text,
        ends,
        over: Vec::new(),
    };
    while batch.ends.len() < BATCH_LINES && batch.text.len() < BATCH_BYTES {
        let read = lines::read_line(input, &mut batch.text, max_line, *lines == 0);
        let Next::Line { bytes, over } = (match read {
            Ok(next) => next,
            // The lines read before the error are replayed, as with one
            // job; the error comes with the next batch.
            Err(error) if !batch.ends.is_empty() => {
                batch.text.truncate(batch.ends.last().copied().unwrap_or(0));
                *failed = Some(error);
                break;
            }
            Err(error) => return Err(error),
        }) else {
            break;
        };
        *lines += 1;
        on_progress(bytes);
        if over {
            batch.over.push(*lines);
        }
        batch.ends.push(batch.text.len());
    }
    Ok((!batch.ends.is_empty()).then_some(batch))
}

/// Every line of `batch` replayed, blank lines left out.
fn replay_batch(replay: &Replay, batch: &Batch) -> Vec<LineResult> {
    let mut results = Vec::with_capacity(batch.ends.len());
    let mut start = 0;
    for (i, &end) in batch.ends.iter().enumerate() {
        let line = batch.first_line + i as u64;
        let result = match batch.over.contains(&line) {
            true => Some(Err(lines::over(replay.max_line))),
            false => replay.replay_bytes(line, &batch.text[start..end]),
        };
        if let Some(result) = result {
            results.push((line, result));
        }
        start = end;
    }
    results
}

/// Batches made by `read` on the calling thread, each turned into its
/// result by `work` on one of `jobs` worker threads (each with its own
/// `state`), and the results handed to `tell` on the calling thread in the
/// order of the batches: what [`run`] and the trace formats' replay
/// share. At most
/// [`IN_FLIGHT_PER_JOB`] batches per worker are read and not yet told of.
/// A panic of `work` is resumed on the calling thread once every batch
/// before it is told of; an error of `read` is returned once every batch
/// read before it is told of, so that the caller sees what one job shows
/// up to the same point; the first error of `tell` stops the workers and is
/// returned.
pub(crate) fn ordered<B: Send, R: Send, S>(
    jobs: usize,
    mut read: impl FnMut() -> io::Result<Option<B>>,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, B) -> R + Sync,
    mut tell: impl FnMut(R) -> io::Result<()>,
) -> io::Result<()> {
    let (work_to_do, batches) = mpsc::sync_channel::<(u64, B)>(jobs);
    let batches = Mutex::new(batches);
    let (done, results) = mpsc::channel::<(u64, thread::Result<R>)>();
    thread::scope(|scope| {
        // Owned here, so that leaving early drops them and the workers,
        // finding no more batches or no one to tell, stop.
        let (work_to_do, results) = (work_to_do, results);
        for _ in 0..jobs {
            let (batches, state, work) = (&batches, &state, &work);
            let done = done.clone();
            scope.spawn(move || {
                let mut state = state();
                loop {
                    let next = lock(batches).recv();
                    let Ok((index, batch)) = next else { break };
                    let result = panic::catch_unwind(AssertUnwindSafe(|| work(&mut state, batch)));
                    if done.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        let most = IN_FLIGHT_PER_JOB * jobs as u64;
        let (mut sent, mut told) = (0u64, 0u64);
        let mut waiting: BTreeMap<u64, thread::Result<R>> = BTreeMap::new();
        let mut eof = false;
        // An error reading the input: returned once what was read before
        // it is told of.
        let mut failed = None;
        loop {
            while !eof && sent - told < most {
                match read() {
                    Ok(Some(batch)) => {
                        if work_to_do.send((sent, batch)).is_err() {
                            return Err(io::Error::other("the replay workers stopped"));
                        }
                        sent += 1;
                    }
                    Ok(None) => eof = true,
                    Err(error) => {
                        failed = Some(error);
                        eof = true;
                    }
                }
            }
            if told == sent {
                return failed.map_or(Ok(()), Err);
            }
            let Ok((index, result)) = results.recv() else {
                return Err(io::Error::other("the replay workers stopped"));
            };
            waiting.insert(index, result);
            while let Some(result) = waiting.remove(&told) {
                told += 1;
                match result {
                    Ok(result) => tell(result)?,
                    Err(payload) => panic::resume_unwind(payload),
                }
            }
        }
    })
}

impl Replay {
    /// Replays every call of `input` (JSON Lines, read one line at a time),
    /// calling `on_progress` with the bytes of each line read and `on_call`
    /// with each call's outcome (for `--out`). Malformed lines (invalid
    /// UTF-8 among them) are counted in the report;
    /// [`run_with`](Self::run_with) also tells of each.
    ///
    /// # Errors
    /// An I/O error reading `input`, or the first error of `on_call`.
    pub fn run(
        &mut self,
        input: impl BufRead,
        on_progress: impl FnMut(u64),
        on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
    ) -> io::Result<Report> {
        self.run_with(input, on_progress, on_call, |_| {})
    }

    /// [`run`](Self::run), with `on_malformed` told of each malformed line.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_with(
        &mut self,
        mut input: impl BufRead,
        mut on_progress: impl FnMut(u64),
        mut on_call: impl FnMut(&CallOutcome) -> io::Result<()>,
        mut on_malformed: impl FnMut(&LineError),
    ) -> io::Result<Report> {
        if self.jobs > 1 {
            return run(self, self.jobs, input, on_progress, on_call, on_malformed);
        }
        let mut tally = Tally::new(self);
        let mut buffer = Vec::new();
        let mut line = 0u64;
        loop {
            buffer.clear();
            let lines::Next::Line { bytes, over } =
                lines::read_line(&mut input, &mut buffer, self.max_line, line == 0)?
            else {
                break;
            };
            line += 1;
            on_progress(bytes);
            let result = match over {
                true => Some(Err(lines::over(self.max_line))),
                false => self.replay_bytes(line, &buffer),
            };
            if let Some(result) = result {
                tally.emit(line, result, &mut on_call, &mut on_malformed)?;
            }
        }
        Ok(tally.finish(line))
    }
}
