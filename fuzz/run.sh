#!/usr/bin/env bash
# Fuzzing, bounded: each target runs for FUZZ_SECONDS (default 60) from
# seeds made of the tests' calls and ../shared/corpus. libFuzzer through
# cargo-fuzz, on the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo-fuzz
# wants nightly's -Z flags; no nightly can be installed here), without a
# sanitizer (Rust code that forbids unsafe needs none to find panics).
# Any crash fails the run and leaves its input in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-60}"
tools="$PWD/../target/tools"
if ! "$tools/bin/cargo-fuzz" --version 2>/dev/null | grep -q "0.13.2"; then
  cargo install cargo-fuzz --version 0.13.2 --locked --quiet --force --root "$tools"
fi
export RUSTC_BOOTSTRAP=1
corpus="$PWD/../target/fuzz-corpus"
rm -rf "$corpus"
python3 seeds.py "$corpus"
"$tools/bin/cargo-fuzz" build --sanitizer none -O
for target in bind_text canonicalize export; do
  "$tools/bin/cargo-fuzz" run --sanitizer none -O "$target" "$corpus/$target" -- \
    -max_total_time="$seconds" -print_final_stats=1 2>&1 |
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|Done|panicked|ERROR|SUMMARY" |
    sed "s/^/$target: /"
  test "${PIPESTATUS[0]}" -eq 0
done
