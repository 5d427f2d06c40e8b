//! Timing cases side by side: every case runs in each round, one after
//! the other, so a machine that slows down slows them all alike, and the
//! fastest round of each is kept. Ratios between cases of one run are what
//! the benchmarks that use it report.

use std::time::{Duration, Instant};

/// Times every case interleaved, `rounds` times, each case running about
/// `round` in a round (at least three calls when calibrating, then at
/// least one a round); the fastest round of each, in ns a call.
pub fn interleaved(cases: &[&dyn Fn()], rounds: usize, round: Duration) -> Vec<f64> {
    // Calls a round, from a first timing of each case (which also warms
    // it).
    let calls: Vec<u32> = cases
        .iter()
        .map(|case| {
            let start = Instant::now();
            let mut calls = 0u32;
            while calls < 3 || start.elapsed() < round {
                case();
                calls += 1;
            }
            let per_call = start.elapsed() / calls;
            (round.as_nanos() / per_call.as_nanos().max(1)).clamp(1, 1_000_000) as u32
        })
        .collect();
    let mut best = vec![f64::MAX; cases.len()];
    for _ in 0..rounds {
        for (i, case) in cases.iter().enumerate() {
            let start = Instant::now();
            for _ in 0..calls[i] {
                case();
            }
            let ns = start.elapsed().as_nanos() as f64 / f64::from(calls[i]);
            best[i] = best[i].min(ns);
        }
    }
    best
}
