#!/usr/bin/env bash
# Fuzzing, bounded and repeatable: each target runs a fixed number of
# inputs (about 20 seconds each; FUZZ_SCALE=3 gives a minute each) from a
# fixed seed, starting from seeds made of the tests' calls and the real
# corpus CANON_CORPUS names, so a run that passes here passes in CI. libFuzzer through
# cargo-fuzz, on the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz
# wants nightly's -Z flags; no nightly can be installed here), without a
# sanitizer (Rust code that forbids unsafe needs none to find panics).
# Any crash fails the run and leaves its input in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
scale="${FUZZ_SCALE:-1}"
tools="$PWD/../target/tools"
if ! "$tools/bin/cargo-fuzz" --version 2>/dev/null | grep -q "0.13.2"; then
  cargo install cargo-fuzz --version 0.13.2 --locked --quiet --force --root "$tools"
fi
export RUSTC_BOOTSTRAP=1
corpus="$PWD/../target/fuzz-corpus"
rm -rf "$corpus"
python3 seeds.py "$corpus"
"$tools/bin/cargo-fuzz" build --sanitizer none -O
for run in bind_text:500000 canonicalize:400000 export:700000; do
  target="${run%%:*}"
  runs=$(( ${run##*:} * scale ))
  "$tools/bin/cargo-fuzz" run --sanitizer none -O "$target" "$corpus/$target" -- \
    -seed=1 -runs="$runs" -max_total_time=600 -print_final_stats=1 2>&1 |
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done|panicked|ERROR|SUMMARY" |
    sed "s/^/$target: /"
  test "${PIPESTATUS[0]}" -eq 0
done
