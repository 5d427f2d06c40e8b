#!/usr/bin/env bash
# Installs the pinned Python baseline of the Parquet replay benchmark
# (jsonschema and pyarrow) in target/bench-python/venv, once while its pins
# do not change. The benchmark runs it; it prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source tests/pinned.sh
pinned_venv canon-datafusion/benches/python/requirements.txt target/bench-python/venv >&2
echo "$PWD/target/bench-python/venv/bin/python"
