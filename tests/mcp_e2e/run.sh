#!/usr/bin/env bash
# End to end over MCP: examples/mcp_server.rs (canon's toolbox served with
# rmcp) driven over stdio by the official TypeScript and Python MCP SDKs,
# installed pinned under target/mcp_e2e (nothing cached outside the project).
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tests/mcp_e2e
work=target/mcp_e2e
cargo build --quiet --example mcp_server --features rmcp
server="$PWD/target/debug/examples/mcp_server"
mkdir -p "$work"

# Python: the mcp package in a venv rebuilt whenever the pins change.
if ! cmp -s "$here/requirements.txt" "$work/venv/requirements.txt" 2>/dev/null; then
  rm -rf "$work/venv"
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check \
    -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$work/venv/requirements.txt"
fi
"$work/venv/bin/python" "$here/client.py" "$server"

# Node: @modelcontextprotocol/sdk from the lock file; npm's cache under target/.
mkdir -p "$work/node"
cp "$here/package.json" "$here/package-lock.json" "$here/client.mjs" "$work/node/"
(cd "$work/node" && npm ci --silent --no-audit --no-fund --cache ../npm-cache)
# (The SDK's ajv warns that it does not know schemars' `uint32` format.)
node "$work/node/client.mjs" "$server"
