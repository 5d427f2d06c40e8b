//! `canon replay` on the real corpus: calls per second of the engine that
//! reads lines borrowing, beside the engine that parsed every line into a
//! `Value` (kept in `tests/old_replay`), on one core and with `--jobs 2`.
//!
//! `CANON_CORPUS=/path/to/bfcl-open.jsonl cargo bench -p canon-cli --bench replay`
//! (skipped, saying so, when `CANON_CORPUS` is unset).
//!
//! "Cold" is a fresh engine per run, as `canon replay FILE` is: every
//! distinct schema compiled (once by the new engine; more often by the old
//! one, whose cache of 1,024 was cleared when full). The engine is freed
//! outside the timing, as the command leaves it to the process's exit.
//! "Warm" keeps the engine between runs, so only reading and binding are
//! timed.
//!
//! After criterion's figures (wall clock), a summary gives each variant's
//! calls per second, best of 5 rounds (the variants run in turn in each),
//! and the ratio to the old engine: by the wall clock, and for one job also
//! by the CPU time of the thread replaying (`/proc/thread-self/schedstat`,
//! Linux), which waiting for a core does not inflate. It adds the corpus
//! ten times over (concatenated in memory), replayed by a fresh engine.

#[path = "../tests/old_replay/mod.rs"]
mod old_replay;

use std::hint::black_box;
use std::time::{Duration, Instant};

use canon::Policy;
use canon_cli::{Replay, Report, Tools};
use criterion::{BatchSize, Criterion, SamplingMode, Throughput};
use old_replay::OldReplay;

fn old(replay: &mut OldReplay, corpus: &[u8]) -> Report {
    replay
        .run_with(
            corpus,
            |_| {},
            |o| {
                black_box(o);
                Ok(())
            },
            |_| {},
        )
        .unwrap_or_default()
}

fn new(replay: &mut Replay, corpus: &[u8]) -> Report {
    replay
        .run(
            corpus,
            |_| {},
            |o| {
                black_box(o);
                Ok(())
            },
        )
        .unwrap_or_default()
}

fn fresh_old() -> OldReplay {
    OldReplay::new(Policy::DEFAULT, Tools::default())
}

fn fresh(jobs: usize) -> Replay {
    Replay::new(Policy::DEFAULT, Tools::default()).jobs(jobs)
}

/// Nanoseconds this thread has run on a CPU, if the system tells.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// One run of a variant: an engine made untimed, its run timed (wall
/// clock, and CPU time of this thread if known), the engine freed untimed.
fn timed<E>(make: impl FnOnce() -> E, run: impl FnOnce(&mut E)) -> (Duration, Option<u64>) {
    let mut engine = make();
    let (start, start_cpu) = (Instant::now(), thread_cpu_ns());
    run(&mut engine);
    let wall = start.elapsed();
    let cpu = match (start_cpu, thread_cpu_ns()) {
        (Some(start), Some(end)) => Some(end - start),
        _ => None,
    };
    drop(engine);
    (wall, cpu)
}

/// A variant of the summary: its name, the calls it replays, the variant
/// it is compared with, whether it runs on this thread alone, and one run.
struct Variant<'a> {
    name: &'static str,
    calls: u64,
    base: usize,
    one_thread: bool,
    run: Box<dyn FnMut() -> (Duration, Option<u64>) + 'a>,
}

fn main() {
    let Some(path) = std::env::var_os("CANON_CORPUS") else {
        eprintln!("SKIPPED: set CANON_CORPUS to the path of bfcl-open.jsonl to benchmark replay");
        return;
    };
    let corpus = std::fs::read(&path).expect("CANON_CORPUS names a readable file");
    let corpus = &corpus[..];
    let calls = new(&mut fresh(1), corpus).totals.calls;
    assert_eq!(
        old(&mut fresh_old(), corpus),
        new(&mut fresh(2), corpus),
        "the engines disagree"
    );

    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(6));
    let mut group = c.benchmark_group("replay corpus");
    group.throughput(Throughput::Elements(calls));
    // A run takes a tenth of a second or more: as many runs in each sample.
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("old, cold", |b| {
        b.iter_batched(
            fresh_old,
            |mut r| {
                old(&mut r, corpus);
                r
            },
            BatchSize::PerIteration,
        )
    });
    for jobs in [1, 2] {
        group.bench_function(format!("new, {jobs} job(s), cold"), |b| {
            b.iter_batched(
                || fresh(jobs),
                |mut r| {
                    new(&mut r, corpus);
                    r
                },
                BatchSize::PerIteration,
            )
        });
    }
    let mut warm_old = fresh_old();
    group.bench_function("old, warm", |b| b.iter(|| old(&mut warm_old, corpus)));
    for jobs in [1, 2] {
        let mut warm = fresh(jobs);
        group.bench_function(format!("new, {jobs} job(s), warm"), |b| {
            b.iter(|| new(&mut warm, corpus))
        });
    }
    group.finish();

    // The summary: calls per second and the ratio to the old engine, the
    // variants run in turn, round after round, so that each meets the same
    // machine; the best round of each counts.
    let ten = corpus.repeat(10);
    let ten = &ten[..];
    let warmed_old = || {
        let mut r = fresh_old();
        old(&mut r, corpus);
        r
    };
    let warmed = |jobs| {
        move || {
            let mut r = fresh(jobs);
            new(&mut r, corpus);
            r
        }
    };
    let mut variants = [
        Variant {
            name: "old, cold",
            calls,
            base: 0,
            one_thread: true,
            run: Box::new(|| timed(fresh_old, |r| drop(old(r, corpus)))),
        },
        Variant {
            name: "new, 1 job, cold",
            calls,
            base: 0,
            one_thread: true,
            run: Box::new(|| timed(|| fresh(1), |r| drop(new(r, corpus)))),
        },
        Variant {
            name: "new, 2 jobs, cold",
            calls,
            base: 0,
            one_thread: false,
            run: Box::new(|| timed(|| fresh(2), |r| drop(new(r, corpus)))),
        },
        Variant {
            name: "old, warm",
            calls,
            base: 3,
            one_thread: true,
            run: Box::new(|| timed(warmed_old, |r| drop(old(r, corpus)))),
        },
        Variant {
            name: "new, 1 job, warm",
            calls,
            base: 3,
            one_thread: true,
            run: Box::new(|| timed(warmed(1), |r| drop(new(r, corpus)))),
        },
        Variant {
            name: "new, 2 jobs, warm",
            calls,
            base: 3,
            one_thread: false,
            run: Box::new(|| timed(warmed(2), |r| drop(new(r, corpus)))),
        },
        Variant {
            name: "old, corpus x10",
            calls: 10 * calls,
            base: 6,
            one_thread: true,
            run: Box::new(|| timed(fresh_old, |r| drop(old(r, ten)))),
        },
        Variant {
            name: "new, 1 job, x10",
            calls: 10 * calls,
            base: 6,
            one_thread: true,
            run: Box::new(|| timed(|| fresh(1), |r| drop(new(r, ten)))),
        },
        Variant {
            name: "new, 2 jobs, x10",
            calls: 10 * calls,
            base: 6,
            one_thread: false,
            run: Box::new(|| timed(|| fresh(2), |r| drop(new(r, ten)))),
        },
    ];
    let rounds = 5;
    let mut best = vec![(Duration::MAX, None::<u64>); variants.len()];
    for _ in 0..rounds {
        for (variant, best) in variants.iter_mut().zip(&mut best) {
            let (wall, cpu) = (variant.run)();
            best.0 = best.0.min(wall);
            if let Some(cpu) = cpu {
                best.1 = Some(best.1.map_or(cpu, |b| b.min(cpu)));
            }
        }
    }
    println!("\nbest of {rounds} rounds; calls per second, and the ratio to the old engine");
    println!(
        "  {:<20}{:>10}{:>14}{:>9}{:>14}{:>9}",
        "", "calls", "wall clock", "vs old", "CPU time", "vs old"
    );
    for (variant, &(wall, cpu)) in variants.iter().zip(&best) {
        let (old_wall, old_cpu) = best[variant.base];
        let per_second = |seconds: f64| variant.calls as f64 / seconds;
        let by_cpu = match (variant.one_thread, cpu, old_cpu) {
            (true, Some(cpu), Some(old_cpu)) => format!(
                "{:>14.0}{:>8.2}x",
                per_second(cpu as f64 / 1e9),
                old_cpu as f64 / cpu as f64
            ),
            _ => format!("{:>14}{:>9}", "-", ""),
        };
        println!(
            "  {:<20}{:>10}{:>14.0}{:>8.2}x{by_cpu}",
            variant.name,
            variant.calls,
            per_second(wall.as_secs_f64()),
            old_wall.as_secs_f64() / wall.as_secs_f64()
        );
    }
    c.final_summary();
}
