#!/usr/bin/env bash
# Installs the pinned third-party environments that tests/conformance,
# tests/wire_sdk and tests/mcp_e2e use (Python venvs and npm packages under
# target/), so that .ci/run can fetch them while it compiles. Each run.sh
# installs what it needs itself when this has not run.
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/pinned.sh
pinned_venv tests/conformance/requirements.txt target/conformance/venv
pinned_node tests/conformance target/conformance/node
pinned_venv tests/mcp_e2e/requirements.txt target/mcp_e2e/venv
pinned_node tests/mcp_e2e target/mcp_e2e/node
