#!/usr/bin/env bash
# Conformance: canon's tool declarations, checked by the providers' own
# validators. Exports the fixture toolbox (tests/shapes) in every dialect,
# then installs the pinned validators into throwaway environments under
# target/conformance (nothing is cached outside the project) and runs
# check.py (Gemini, Anthropic, OpenAI, JSON Schema) and check.mjs (MCP).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tests/conformance
work=target/conformance
rm -rf "$work/out"
cargo run --quiet --example export -- "$work/out"

# Python: a venv rebuilt whenever the pins change; pip's cache is off.
if ! cmp -s "$here/requirements.txt" "$work/venv/requirements.txt" 2>/dev/null; then
  rm -rf "$work/venv"
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check \
    -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$work/venv/requirements.txt"
fi
"$work/venv/bin/python" "$here/check.py" "$work/out"

# Node: the pinned MCP SDK from the lock file; npm's cache under target/.
mkdir -p "$work/node"
cp "$here/package.json" "$here/package-lock.json" "$here/check.mjs" "$work/node/"
(cd "$work/node" && npm ci --silent --no-audit --no-fund --cache ../npm-cache)
node "$work/node/check.mjs" "$work/out"
