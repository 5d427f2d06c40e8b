// End to end: the official MCP TypeScript SDK drives canon's example servers
// over stdio: examples/mcp_server.rs (a toolbox served with McpServer), then
// examples/tolerant_router.rs (an rmcp server that adopted canon's
// TolerantRouter). Usage: node client.mjs MCP_SERVER TOLERANT_ROUTER
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [server, routerServer] = process.argv.slice(2);
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

// A rejected call to a tool with an output schema: the SDK validates a
// result's structuredContent against that schema (and threw "Structured
// content does not match the tool's output schema" when canon sent the
// violations there), so the error result is canon's feedback as text only.
assert.equal(tools[2].name, "repo_stats");
const rejected = await call("repo_stats", {});
assert.equal(rejected.isError, true);
assert.equal(rejected.structuredContent, undefined);
assert.equal(rejected.content.length, 1);
assert.equal(rejected.content[0].type, "text");
assert.match(rejected.content[0].text, /\/repo: required/);
assert.equal(
  rejected.content[0].text,
  "The call to `repo_stats` was not run. /repo: required, expected a string. Fix these and call `repo_stats` again.",
);
ok("rejected call to a tool with an output schema");

// The server's toolbox has repair notes on: a repaired call's result is
// the tool's output, unaltered, then a second text block saying what to
// send instead.
const note = (pointer) =>
  `(Note: ${pointer} was sent as a string and read as a one-element array; send an array.)`;
const noteBlock = (pointer) => ({ type: "text", text: note(pointer) });

// The dotnet/eshop near miss binds: its first block is the exact call's
// JSON, byte for byte, and parses; the note is the second block.
const exact = await call("search_code", { data_source_names: ["dotnet/eshop"], query: "basket" });
const near = await call("search_code", { data_source_names: "dotnet/eshop", query: "basket" });
assert.equal(near.isError ?? false, false);
assert.equal(exact.content.length, 1);
assert.deepEqual(JSON.parse(exact.content[0].text), [{ repo: "dotnet/eshop", path: "src/basket.cs" }]);
assert.deepEqual(JSON.parse(near.content[0].text), JSON.parse(exact.content[0].text));
assert.deepEqual(near, { ...exact, content: [exact.content[0], noteBlock("/data_source_names")] });
ok("near miss: the output as the exact call's, the repair note in a block of its own");

// A missing required parameter: isError, canon's feedback (the pointer) as
// text, and nothing else, here too.
const missing = await call("search_code", { data_source_names: ["dotnet/eshop"] });
assert.deepEqual(missing, {
  content: [
    {
      type: "text",
      text: "The call to `search_code` was not run. /query: required, expected a string. Fix these and call `search_code` again.",
    },
  ],
  isError: true,
});
ok("missing parameter");

// An unknown tool: the protocol error.
await assert.rejects(call("serch_code", {}), (e) => e.code === -32602 && /Unknown tool: serch_code/.test(e.message));
ok("unknown tool");

// A nested near miss: one label as a string, inside an object.
const nestedExact = await call("create_issue", { repo: "dotnet/eshop", issue: { title: "Flaky", labels: ["bug"] } });
const nested = await call("create_issue", { repo: "dotnet/eshop", issue: { title: "Flaky", labels: "bug" } });
const opened = 'opened "Flaky" in dotnet/eshop with labels [bug]';
assert.equal(nested.isError ?? false, false);
assert.deepEqual(nestedExact, { content: [{ type: "text", text: opened }] });
assert.deepEqual(nested, { content: [{ type: "text", text: opened }, noteBlock("/issue/labels")] });
ok("nested near miss, with its repair note in a block of its own");

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
results.forEach((r, i) =>
  assert.deepEqual(r.content, [{ type: "text", text: `opened "t${i}" in r with labels [bug]` }, noteBlock("/issue/labels")]),
);
const after = rss();
assert.ok(after - before <= BOUND_KB, `server memory grew by ${after - before} kB (bound ${BOUND_KB} kB)`);
ok(`1,000 sequential and 100 concurrent calls (server RSS ${before} kB -> ${after} kB, bound +${BOUND_KB} kB)`);

await client.close();

// examples/tolerant_router.rs: an rmcp server written with rmcp's macros,
// whose `#[tool_handler(router = ...)]` is canon's TolerantRouter.
{
  // rmcp's own schema for `Parameters<SearchArgs>` (schemars, draft 2020-12).
  const SEARCH_SCHEMA = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      data_source_names: {
        description: 'Repositories to search, like "dotnet/eshop".',
        type: "array",
        items: { type: "string" },
      },
      query: { description: "What to look for.", type: "string" },
    },
    required: ["data_source_names", "query"],
  };
  const REFUSED =
    "The call to `search_code` was not run. /data_source_names: expected an array of strings, got a string " +
    'holding a comma-separated list; send each value as its own element (["dotnet/eshop", "dotnet/runtime"]), ' +
    'or ["dotnet/eshop, dotnet/runtime"] if it is one value. Fix these and call `search_code` again.';
  const MISSING = "The call to `star` was not run. /repo: required, expected a string. Fix these and call `star` again.";

  const transport = new StdioClientTransport({ command: routerServer, args: [], stderr: "ignore" });
  const client = new Client({ name: "canon-e2e", version: "1.0.0" });
  await client.connect(transport);
  const ok = (name) => checks.push(`tolerant_router: ${name}`);
  assert.equal(client.getServerVersion().name, "tolerant-router-demo");

  // tools/list is the router's own: rmcp's tools, rmcp's schemas (its
  // draft 2020-12 `$schema`, which canon's own export leaves out).
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["search_code", "star"]);
  assert.equal(tools[0].description, "Search code in the given data sources.");
  assert.deepEqual(tools[0].inputSchema, SEARCH_SCHEMA);
  assert.deepEqual(tools[1].inputSchema.required, ["repo"]);
  ok("tools/list is the server's own");

  const call = (name, args) => client.callTool({ name, arguments: args });
  const valid = await call("search_code", { data_source_names: ["dotnet/eshop"], query: "basket" });
  assert.deepEqual(valid, { content: [{ type: "text", text: "dotnet/eshop: src/basket.cs" }], isError: false });
  ok("valid call");

  // rmcp's Parameters<T> alone refuses this ("failed to deserialize
  // parameters"); canon binds it first, and the tool runs.
  const near = await call("search_code", { data_source_names: "dotnet/eshop", query: "basket" });
  assert.deepEqual(near, valid);
  ok("near miss repaired, the tool ran");

  // What no rule may repair: canon's feedback as an isError result, not a
  // protocol error.
  const refused = await call("search_code", { data_source_names: "dotnet/eshop, dotnet/runtime", query: "basket" });
  assert.deepEqual(refused, { content: [{ type: "text", text: REFUSED }], isError: true });
  const missing = await call("star", {});
  assert.deepEqual(missing, { content: [{ type: "text", text: MISSING }], isError: true });
  ok("unrepairable calls get canon's feedback as isError results");

  await client.close();
}
for (const check of checks) console.log(`ok   typescript sdk: ${check}`);
