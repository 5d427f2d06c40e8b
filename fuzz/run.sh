#!/usr/bin/env bash
# Fuzzing, bounded and repeatable: each target runs a fixed number of
# inputs (about 20 seconds each; FUZZ_SCALE=3 gives a minute each) from a
# fixed seed, starting from seeds made of the tests' calls and the real
# corpus CANON_CORPUS names, so a run that passes here passes in CI.
#
# libFuzzer (libfuzzer-sys), built the way `cargo fuzz build -O
# --sanitizer none` builds it, with the same coverage instrumentation,
# but by cargo directly on the stable toolchain: nothing to install, and
# the crates compile in parallel codegen units (cargo-fuzz forces one
# unit per crate, which made this build take minutes longer). No
# sanitizer: Rust code that forbids unsafe needs none to find panics.
# Any crash fails the run and leaves its input in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
scale="${FUZZ_SCALE:-1}"
triple="$(rustc -vV | sed -n 's/^host: //p')"
flags="-Cpasses=sancov-module"
flags+=" -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
flags+=" -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares"
flags+=" -Cllvm-args=-simplifycfg-branch-fold-threshold=0"
case "$triple" in *-linux-*) flags+=" -Cllvm-args=-sanitizer-coverage-stack-depth" ;; esac
flags+=" --cfg fuzzing"
# --target keeps these flags off build scripts and proc macros.
RUSTFLAGS="$flags" cargo build --quiet --release --bins --target "$triple" \
  --config 'profile.release.debug=false'
bin="$PWD/target/$triple/release"
corpus="$PWD/../target/fuzz-corpus"
rm -rf "$corpus"
python3 seeds.py "$corpus"
for run in bind_text:500000 canonicalize:400000 export:700000; do
  target="${run%%:*}"
  runs=$(( ${run##*:} * scale ))
  mkdir -p "artifacts/$target"
  "$bin/$target" "$corpus/$target" -artifact_prefix="$PWD/artifacts/$target/" \
    -seed=1 -runs="$runs" -max_total_time=600 -print_final_stats=1 2>&1 |
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done|panicked|ERROR|SUMMARY" |
    sed "s/^/$target: /"
  test "${PIPESTATUS[0]}" -eq 0
done
