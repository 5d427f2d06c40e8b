"""End to end: the official MCP Python SDK drives canon's example servers over
stdio: examples/mcp_server.rs (a toolbox served with McpServer), then
examples/tolerant_router.rs (an rmcp server that adopted canon's
TolerantRouter). Usage: python client.py MCP_SERVER TOLERANT_ROUTER
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

SERVER, ROUTER = sys.argv[1:3]

# examples/tolerant_router.rs: rmcp's own schema for `Parameters<SearchArgs>`
# (schemars, draft 2020-12), and canon's feedback for two calls it refuses.
SEARCH_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "data_source_names": {
            "description": 'Repositories to search, like "dotnet/eshop".',
            "type": "array",
            "items": {"type": "string"},
        },
        "query": {"description": "What to look for.", "type": "string"},
    },
    "required": ["data_source_names", "query"],
}
REFUSED = (
    "The call to `search_code` was not run. /data_source_names: expected an array of strings, got a string "
    'holding a comma-separated list; send each value as its own element (["dotnet/eshop", "dotnet/runtime"]), '
    'or ["dotnet/eshop, dotnet/runtime"] if it is one value. Fix these and call `search_code` again.'
)
MISSING = "The call to `star` was not run. /repo: required, expected a string. Fix these and call `star` again."


def note(pointer):
    return f"(Note: {pointer} was sent as a string and read as a one-element array; send an array.)"


async def main():
    checks = []
    params = StdioServerParameters(command=SERVER, args=[])
    with open("/dev/null", "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "canon-demo", init.server_info
                checks.append("initialize")

                tools = (await session.list_tools()).tools
                assert [t.name for t in tools] == ["search_code", "create_issue", "repo_stats"]
                names = tools[0].input_schema["properties"]["data_source_names"]
                assert names["type"] == "array" and names["items"] == {"type": "string"}, names
                checks.append("tools/list")

                # A rejected call to a tool with an output schema: the error
                # result is canon's feedback as text only, nothing that the
                # output schema would refuse.
                assert tools[2].output_schema["type"] == "object", tools[2]
                rejected = await session.call_tool("repo_stats", {})
                assert rejected.is_error is True
                assert rejected.structured_content is None, rejected.structured_content
                assert len(rejected.content) == 1 and rejected.content[0].type == "text", rejected.content
                assert "/repo: required" in rejected.content[0].text, rejected.content[0].text
                assert rejected.content[0].text == (
                    "The call to `repo_stats` was not run. /repo: required, expected a string. "
                    "Fix these and call `repo_stats` again."
                ), rejected.content[0].text
                checks.append("rejected call to a tool with an output schema")

                # The server's toolbox has repair notes on: a repaired call's
                # result is the tool's output, unaltered, then a second text
                # block saying what to send instead.
                exact = await session.call_tool("search_code", {"data_source_names": ["dotnet/eshop"], "query": "basket"})
                near = await session.call_tool("search_code", {"data_source_names": "dotnet/eshop", "query": "basket"})
                assert not near.is_error
                assert len(exact.content) == 1, exact.content
                assert json.loads(exact.content[0].text) == [{"repo": "dotnet/eshop", "path": "src/basket.cs"}]
                assert len(near.content) == 2, near.content
                assert json.loads(near.content[0].text) == json.loads(exact.content[0].text), near.content
                assert near.content[0].text == exact.content[0].text, near.content
                assert near.content[1].type == "text", near.content
                assert near.content[1].text == note("/data_source_names"), near.content
                checks.append("near miss: the output as the exact call's, the repair note in a block of its own")

                missing = await session.call_tool("search_code", {"data_source_names": ["dotnet/eshop"]})
                assert missing.is_error is True
                assert len(missing.content) == 1
                assert missing.content[0].text == (
                    "The call to `search_code` was not run. /query: required, expected a string. "
                    "Fix these and call `search_code` again."
                ), missing.content[0].text
                assert missing.structured_content is None, missing.structured_content
                checks.append("missing parameter")

                try:
                    await session.call_tool("serch_code", {})
                    raise AssertionError("an unknown tool was called")
                except MCPError as e:
                    assert e.error.code == -32602, e.error
                    assert "Unknown tool: serch_code" in e.error.message, e.error.message
                checks.append("unknown tool")

                nested = await session.call_tool(
                    "create_issue", {"repo": "dotnet/eshop", "issue": {"title": "Flaky", "labels": "bug"}}
                )
                assert not nested.is_error
                assert [(c.type, c.text) for c in nested.content] == [
                    ("text", 'opened "Flaky" in dotnet/eshop with labels [bug]'),
                    ("text", note("/issue/labels")),
                ], nested.content
                checks.append("nested near miss, with its repair note in a block of its own")
        await tolerant_router(checks, devnull)
    for check in checks:
        print(f"ok   python sdk: {check}")


async def tolerant_router(checks, devnull):
    """examples/tolerant_router.rs: an rmcp server written with rmcp's macros,
    whose `#[tool_handler(router = ...)]` is canon's TolerantRouter."""
    params = StdioServerParameters(command=ROUTER, args=[])
    async with stdio_client(params, errlog=devnull) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "tolerant-router-demo", init.server_info

            # tools/list is the router's own: rmcp's tools and schemas.
            tools = (await session.list_tools()).tools
            assert [t.name for t in tools] == ["search_code", "star"], tools
            assert tools[0].input_schema == SEARCH_SCHEMA, tools[0].input_schema
            checks.append("tolerant_router: tools/list is the server's own")

            def text(result):
                assert len(result.content) == 1 and result.content[0].type == "text", result.content
                return result.content[0].text

            valid = await session.call_tool("search_code", {"data_source_names": ["dotnet/eshop"], "query": "basket"})
            assert not valid.is_error and text(valid) == "dotnet/eshop: src/basket.cs", valid
            checks.append("tolerant_router: valid call")

            # rmcp's Parameters<T> alone refuses this; canon binds it first.
            near = await session.call_tool("search_code", {"data_source_names": "dotnet/eshop", "query": "basket"})
            assert not near.is_error and text(near) == text(valid), near
            checks.append("tolerant_router: near miss repaired, the tool ran")

            # What no rule may repair: canon's feedback as an isError result,
            # not a protocol error.
            refused = await session.call_tool(
                "search_code", {"data_source_names": "dotnet/eshop, dotnet/runtime", "query": "basket"}
            )
            assert refused.is_error is True and text(refused) == REFUSED, refused
            assert refused.structured_content is None, refused.structured_content
            missing = await session.call_tool("star", {})
            assert missing.is_error is True and text(missing) == MISSING, missing
            checks.append("tolerant_router: unrepairable calls get canon's feedback as isError results")


asyncio.run(main())
