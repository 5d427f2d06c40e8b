// Checks canon's MCP `tools/list` entries with the official TypeScript SDK's
// own schemas (protocol revision 2025-11-25).
// Usage: node check.mjs OUT_DIR
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  ToolSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { validateToolName } from "@modelcontextprotocol/sdk/shared/toolNameValidation.js";

const out = process.argv[2];

// JSON with object keys sorted: equal for equal values, whatever the order.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
const failures = [];
const ok = [];

function mustReject(name, accepted) {
  if (accepted) failures.push(`${name}: the deliberately bad declaration was accepted: the check cannot fail`);
}

if (LATEST_PROTOCOL_VERSION !== "2025-11-25") {
  failures.push(`the SDK speaks ${LATEST_PROTOCOL_VERSION}, not 2025-11-25`);
}

mustReject("ToolSchema", ToolSchema.safeParse({ name: "bad", inputSchema: { type: "string" } }).success);
mustReject("ListToolsResultSchema", ListToolsResultSchema.safeParse({ tools: [{ name: "bad" }] }).success);
mustReject("validateToolName", validateToolName("bad name!").isValid);

const dir = join(out, "mcp");
const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
if (files.length === 0) failures.push(`no MCP entries in ${dir}`);
for (const file of files) {
  const entry = JSON.parse(readFileSync(join(dir, file), "utf8"));
  const parsed = ToolSchema.safeParse(entry);
  if (!parsed.success) failures.push(`ToolSchema: ${file}: ${parsed.error.message}`);
  // Nothing of the entry may be lost to the SDK's schema.
  else if (canonical(parsed.data) !== canonical(entry)) {
    failures.push(`ToolSchema: ${file}: the SDK's parse differs from the entry`);
  }
  const name = validateToolName(entry.name);
  if (!name.isValid || name.warnings.length > 0) {
    failures.push(`validateToolName: ${entry.name}: ${name.warnings.join("; ")}`);
  }
}
ok.push(`ToolSchema and validateToolName: ${files.length} entries, and the bad ones rejected`);

const list = JSON.parse(readFileSync(join(out, "mcp-list.json"), "utf8"));
const parsedList = ListToolsResultSchema.safeParse(list);
if (!parsedList.success) failures.push(`ListToolsResultSchema: ${parsedList.error.message}`);
else ok.push(`ListToolsResultSchema: ${list.tools.length} tools, and the bad list rejected`);

for (const line of ok) console.log(`ok   ${line}`);
for (const failure of failures) console.log(`FAIL ${failure}`);
process.exit(failures.length ? 1 : 0);
