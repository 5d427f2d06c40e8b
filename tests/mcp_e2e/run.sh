#!/usr/bin/env bash
# End to end over MCP: examples/mcp_server.rs (canon's toolbox served with
# rmcp) driven over stdio by the official TypeScript and Python MCP SDKs,
# installed pinned under target/mcp_e2e.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/pinned.sh
here=tests/mcp_e2e
work=target/mcp_e2e
cargo build --quiet --example mcp_server --features rmcp
server="$PWD/target/debug/examples/mcp_server"
pinned_venv "$here/requirements.txt" "$work/venv"
"$work/venv/bin/python" "$here/client.py" "$server"
pinned_node "$here" "$work/node" "$here/client.mjs"
# (The SDK's ajv warns that it does not know schemars' `uint32` format.)
node "$work/node/client.mjs" "$server"
