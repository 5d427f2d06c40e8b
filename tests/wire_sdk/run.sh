#!/usr/bin/env bash
# The provider wire formats against the official SDKs: payloads serialized
# by the SDKs' own models (make.py) are read and answered by canon
# (examples/wire.rs), and canon's replies are validated by the same SDKs
# (check.py). Uses the pinned SDKs of the conformance checks, in the same
# throwaway environment under target/conformance.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/pinned.sh
here=tests/wire_sdk
work=target/wire_sdk
rm -rf "$work"
pinned_venv tests/conformance/requirements.txt target/conformance/venv
python=target/conformance/venv/bin/python
"$python" "$here/make.py" "$work/in"
cargo run --quiet --example wire --features openai,anthropic,gemini -- "$work/in" "$work/out"
"$python" "$here/check.py" "$work/in" "$work/out"
