#!/usr/bin/env bash
# Conformance: canon's tool declarations, checked by the providers' own
# validators. Exports the fixture toolbox (tests/shapes) in every dialect,
# then installs the pinned validators into throwaway environments under
# target/conformance and runs check.py (Gemini, Anthropic, OpenAI, JSON
# Schema) and check.mjs (MCP).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/pinned.sh
here=tests/conformance
work=target/conformance
rm -rf "$work/out"
cargo run --quiet --example export -- "$work/out"
pinned_venv "$here/requirements.txt" "$work/venv"
"$work/venv/bin/python" "$here/check.py" "$work/out"
pinned_node "$here" "$work/node" "$here/check.mjs"
node "$work/node/check.mjs" "$work/out"
