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
//! the calling thread only, so `--jobs 2` is measured by the peak resident
//! memory of a fresh process above what it held once its input was in
//! memory (Linux).

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

/// Peak resident memory above what the process held before `run`, in MB:
/// run in a fresh process (this benchmark again, told `--rss-child` and
/// the repeat count), so that nothing freed earlier hides in the baseline.
fn peak_rss_mb(repeat: usize, jobs: usize) -> Option<f64> {
    let output = std::process::Command::new(std::env::current_exe().ok()?)
        .args(["--rss-child", &repeat.to_string(), &jobs.to_string()])
        .output()
        .ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
}

/// The child of [`peak_rss_mb`]: replays the corpus `repeat` times over
/// (concatenated in memory before measuring) with `jobs` jobs, and prints
/// its peak resident memory above the resident memory before the run.
fn rss_child(corpus: &[u8], repeat: usize, jobs: usize) {
    let input = corpus.repeat(repeat);
    let Some(before) = status_kb("VmRSS:") else {
        return;
    };
    black_box(new(&input, jobs));
    if let Some(peak) = status_kb("VmHWM:") {
        println!("{:.1}", peak.saturating_sub(before) as f64 / 1024.0);
    }
}

fn main() {
    let Some(path) = std::env::var_os("CANON_CORPUS") else {
        eprintln!(
            "SKIPPED: set CANON_CORPUS to the path of bfcl-open.jsonl to measure replay's memory"
        );
        return;
    };
    let once = std::fs::read(&path).expect("CANON_CORPUS names a readable file");
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, repeat, jobs] = &args[..] {
        if flag == "--rss-child" {
            if let (Ok(repeat), Ok(jobs)) = (repeat.parse(), jobs.parse()) {
                rss_child(&once, repeat, jobs);
            }
            return;
        }
    }
    let ten = once.repeat(10);
    let mb = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
    println!(
        "  {:<22}{:>10}{:>16}{:>16}{:>22}",
        "", "calls", "peak live MB", "allocations", "peak RSS MB, 2 jobs"
    );
    for (name, input, repeat) in [("corpus x1", &once, 1), ("corpus x10", &ten, 10)] {
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
        let rss = peak_rss_mb(repeat, 2).map_or_else(|| "n/a".to_owned(), |mb| format!("{mb:.1}"));
        println!(
            "  {:<22}{calls:>10}{:>16.1}{:>16}{:>22}",
            format!("new, {name}"),
            mb(counted.bytes_max),
            counted.count_total,
            rss
        );
    }
}
