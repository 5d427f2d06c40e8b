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
//! calls per second, best of 7 runs, and the ratio to the old engine: by
//! the wall clock, and for one job also by the CPU time of the thread
//! replaying (`/proc/thread-self/schedstat`, Linux), which other processes
//! on the machine do not inflate.

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

/// The best of `runs` runs of `run` on engines `make` gives (made and
/// freed untimed): (wall clock, CPU time of this thread if known), in
/// seconds.
fn best<E>(
    runs: usize,
    mut make: impl FnMut() -> E,
    mut run: impl FnMut(&mut E),
) -> (f64, Option<f64>) {
    let (mut wall, mut cpu) = (Duration::MAX, None::<u64>);
    for _ in 0..runs {
        let mut engine = make();
        let (start, start_cpu) = (Instant::now(), thread_cpu_ns());
        run(&mut engine);
        wall = wall.min(start.elapsed());
        if let (Some(start), Some(end)) = (start_cpu, thread_cpu_ns()) {
            cpu = Some(cpu.map_or(end - start, |cpu| cpu.min(end - start)));
        }
        drop(engine);
    }
    (wall.as_secs_f64(), cpu.map(|ns| ns as f64 / 1e9))
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

    // The summary: calls per second and the ratio to the old engine.
    let runs = 7;
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
    let old_cold = best(runs, fresh_old, |r| {
        black_box(old(r, corpus));
    });
    let old_warm = best(runs, warmed_old, |r| {
        black_box(old(r, corpus));
    });
    let rows = [
        ("old, cold", old_cold, old_cold, true),
        (
            "new, 1 job, cold",
            best(
                runs,
                || fresh(1),
                |r| {
                    black_box(new(r, corpus));
                },
            ),
            old_cold,
            true,
        ),
        (
            "new, 2 jobs, cold",
            best(
                runs,
                || fresh(2),
                |r| {
                    black_box(new(r, corpus));
                },
            ),
            old_cold,
            false,
        ),
        ("old, warm", old_warm, old_warm, true),
        (
            "new, 1 job, warm",
            best(runs, warmed(1), |r| {
                black_box(new(r, corpus));
            }),
            old_warm,
            true,
        ),
        (
            "new, 2 jobs, warm",
            best(runs, warmed(2), |r| {
                black_box(new(r, corpus));
            }),
            old_warm,
            false,
        ),
    ];
    println!(
        "\n{calls} calls, best of {runs} runs; calls per second, and the ratio to the old engine"
    );
    println!(
        "  {:<20}{:>14}{:>9}{:>16}{:>9}",
        "", "wall clock", "vs old", "CPU time", "vs old"
    );
    for (name, (wall, cpu), (old_wall, old_cpu), one_thread) in rows {
        let per_second = |seconds: f64| calls as f64 / seconds;
        let by_cpu = match (one_thread, cpu, old_cpu) {
            (true, Some(cpu), Some(old_cpu)) => {
                format!("{:>16.0}{:>8.2}x", per_second(cpu), old_cpu / cpu)
            }
            _ => format!("{:>16}{:>9}", "-", ""),
        };
        println!(
            "  {name:<20}{:>14.0}{:>8.2}x{by_cpu}",
            per_second(wall),
            old_wall / wall
        );
    }
    c.final_summary();
}
