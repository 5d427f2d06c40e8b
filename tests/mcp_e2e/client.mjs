// End to end: the official MCP TypeScript SDK drives canon's example server
// (examples/mcp_server.rs) over stdio. Usage: node client.mjs SERVER_BINARY
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const server = process.argv[2];
const transport = new StdioClientTransport({ command: server, args: [], stderr: "ignore" });
const client = new Client({ name: "canon-e2e", version: "1.0.0" });
await client.connect(transport);
const checks = [];
const ok = (name) => checks.push(name);

// initialize
assert.equal(client.getServerVersion().name, "canon-demo");
assert.ok(client.getServerCapabilities().tools);
ok("initialize");

// tools/list: the strict schemas, exactly.
const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name), ["search_code", "create_issue", "repo_stats"]);
const search = tools[0];
assert.equal(search.inputSchema.type, "object");
assert.deepEqual(search.inputSchema.properties.data_source_names.type, "array");
assert.deepEqual(search.inputSchema.properties.data_source_names.items, { type: "string" });
assert.deepEqual(search.inputSchema.required, ["data_source_names", "query"]);
const labels = tools[1].inputSchema;
assert.ok(JSON.stringify(labels).includes('"labels":{"type":"array","items":{"type":"string"}'));
assert.equal(tools[2].outputSchema.type, "object");
ok("tools/list");

const call = (name, args) => client.callTool({ name, arguments: args });

// The dotnet/eshop near miss binds, and equals the exact call.
const exact = await call("search_code", { data_source_names: ["dotnet/eshop"], query: "basket" });
const near = await call("search_code", { data_source_names: "dotnet/eshop", query: "basket" });
assert.equal(near.isError ?? false, false);
assert.deepEqual(near, exact);
assert.deepEqual(JSON.parse(near.content[0].text), [{ repo: "dotnet/eshop", path: "src/basket.cs" }]);
ok("near miss");

// A missing required parameter: isError, the pointer in the text, the
// violations as structured content.
const missing = await call("search_code", { data_source_names: ["dotnet/eshop"] });
assert.equal(missing.isError, true);
assert.equal(
  missing.content[0].text,
  "The call to `search_code` was not run. /query: required, expected a string. Fix these and call `search_code` again.",
);
assert.equal(missing.structuredContent.error, "invalid_arguments");
assert.deepEqual(missing.structuredContent.violations.map((v) => [v.pointer, v.kind]), [["/query", "missing"]]);
ok("missing parameter");

// An unknown tool: the protocol error.
await assert.rejects(call("serch_code", {}), (e) => e.code === -32602 && /Unknown tool: serch_code/.test(e.message));
ok("unknown tool");

// A nested near miss: one label as a string, inside an object.
const nestedExact = await call("create_issue", { repo: "dotnet/eshop", issue: { title: "Flaky", labels: ["bug"] } });
const nested = await call("create_issue", { repo: "dotnet/eshop", issue: { title: "Flaky", labels: "bug" } });
assert.equal(nested.isError ?? false, false);
assert.deepEqual(nested, nestedExact);
assert.equal(nested.content[0].text, 'opened "Flaky" in dotnet/eshop with labels [bug]');
ok("nested near miss");

// Structured output, validated by the SDK against the outputSchema.
const stats = await call("repo_stats", { repo: "dotnet/eshop" });
assert.deepEqual(stats.structuredContent, { repo: "dotnet/eshop", stars: 1200, languages: ["C#", "TypeScript"] });
ok("structured output");

// Load: 1,000 sequential calls, then 100 concurrent, from this one client;
// the server's resident memory may not grow by more than the bound.
const rss = () => {
  const status = readFileSync(`/proc/${transport.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]);
};
const BOUND_KB = 16 * 1024;
for (let i = 0; i < 100; i++) await call("search_code", { data_source_names: "dotnet/eshop", query: `w${i}` });
const before = rss();
for (let i = 0; i < 1000; i++) {
  const r = await call("search_code", { data_source_names: "dotnet/eshop", query: `q${i}` });
  assert.equal(r.isError ?? false, false);
}
const results = await Promise.all(
  Array.from({ length: 100 }, (_, i) => call("create_issue", { repo: "r", issue: { title: `t${i}`, labels: "bug" } })),
);
results.forEach((r, i) => assert.equal(r.content[0].text, `opened "t${i}" in r with labels [bug]`));
const after = rss();
assert.ok(after - before <= BOUND_KB, `server memory grew by ${after - before} kB (bound ${BOUND_KB} kB)`);
ok(`1,000 sequential and 100 concurrent calls (server RSS ${before} kB -> ${after} kB, bound +${BOUND_KB} kB)`);

await client.close();
for (const check of checks) console.log(`ok   typescript sdk: ${check}`);
