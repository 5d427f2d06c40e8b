#!/usr/bin/env bash
# End to end over MCP, driven over stdio by the official TypeScript and
# Python MCP SDKs, installed pinned under target/mcp_e2e: examples/mcp_server.rs
# (canon's toolbox served with rmcp) and examples/tolerant_router.rs (an rmcp
# server that adopted canon by changing its `#[tool_handler]` line).
# The examples are built in CARGO_TARGET_DIR (target/ when unset), with the
# features in MCP_E2E_FEATURES (rmcp when unset).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/pinned.sh
here=tests/mcp_e2e
work=target/mcp_e2e
examples="${CARGO_TARGET_DIR:-target}/debug/examples"
[[ "$examples" == /* ]] || examples="$PWD/$examples"
cargo build --quiet --example mcp_server --example tolerant_router --features "${MCP_E2E_FEATURES:-rmcp}"
server="$examples/mcp_server"
router="$examples/tolerant_router"
pinned_venv "$here/requirements.txt" "$work/venv"
"$work/venv/bin/python" "$here/client.py" "$server" "$router"
pinned_node "$here" "$work/node" "$here/client.mjs"
# (The SDK's ajv warns that it does not know schemars' `uint32` format.)
node "$work/node/client.mjs" "$server" "$router"
