//! `canon replay`'s memory as its input grows tenfold: the real corpus
//! replayed once, and ten times over (concatenated in memory), by the
//! engine that reads lines borrowing and by the old one (`tests/old_replay`).
//!
//! `CANON_CORPUS=/path/to/bfcl-open.jsonl cargo bench -p canon-cli --bench memory`
//! (skipped, saying so, when `CANON_CORPUS` is unset).
//!
//! One job is measured by counting: the peak of bytes allocated and not yet
//! freed while the replay runs (the input, allocated before, is not
//! counted), and the number of allocations. The counting allocator sees
//! the calling thread only, so `--jobs 2` is measured by the process's
//! peak resident memory above what it held before the run (Linux; reset
//! through `/proc/self/clear_refs` before each run).

#[path = "../tests/old_replay/mod.rs"]
mod old_replay;

use std::hint::black_box;

use canon::Policy;
use canon_cli::{Replay, Report, Tools};
use old_replay::OldReplay;

fn old(corpus: &[u8]) -> Report {
    OldReplay::new(Policy::DEFAULT, Tools::default())
        .run_with(corpus, |_| {}, |_| Ok(()), |_| {})
        .unwrap_or_default()
}

fn new(corpus: &[u8], jobs: usize) -> Report {
    Replay::new(Policy::DEFAULT, Tools::default())
        .jobs(jobs)
        .run(corpus, |_| {}, |_| Ok(()))
        .unwrap_or_default()
}

/// A field of `/proc/self/status`, in kB.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Peak resident memory of `run` above the resident memory before it, in
/// MB, if the system tells.
fn peak_rss_mb(run: impl FnOnce() -> Report) -> Option<f64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    let before = status_kb("VmRSS:")?;
    black_box(run());
    let peak = status_kb("VmHWM:")?;
    Some(peak.saturating_sub(before) as f64 / 1024.0)
}

fn main() {
    let Some(path) = std::env::var_os("CANON_CORPUS") else {
        eprintln!(
            "SKIPPED: set CANON_CORPUS to the path of bfcl-open.jsonl to measure replay's memory"
        );
        return;
    };
    let once = std::fs::read(&path).expect("CANON_CORPUS names a readable file");
    let ten = once.repeat(10);
    let mb = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    println!(
        "  {:<22}{:>10}{:>16}{:>16}{:>22}",
        "", "calls", "peak live MB", "allocations", "peak RSS +MB, 2 jobs"
    );
    for (name, input) in [("corpus x1", &once), ("corpus x10", &ten)] {
        let mut calls = 0;
        let counted = allocation_counter::measure(|| calls = black_box(old(input)).totals.calls);
        println!(
            "  {:<22}{calls:>10}{:>16.1}{:>16}{:>22}",
            format!("old, {name}"),
            mb(counted.bytes_max),
            counted.count_total,
            "-"
        );
        let counted = allocation_counter::measure(|| calls = black_box(new(input, 1)).totals.calls);
        let rss =
            peak_rss_mb(|| new(input, 2)).map_or_else(|| "n/a".to_owned(), |mb| format!("{mb:.1}"));
        println!(
            "  {:<22}{calls:>10}{:>16.1}{:>16}{:>22}",
            format!("new, {name}"),
            mb(counted.bytes_max),
            counted.count_total,
            rss
        );
    }
}
