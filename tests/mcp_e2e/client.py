"""End to end: the official MCP Python SDK drives canon's example server
(examples/mcp_server.rs) over stdio. Usage: python client.py SERVER_BINARY
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

SERVER = sys.argv[1]


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

                exact = await session.call_tool("search_code", {"data_source_names": ["dotnet/eshop"], "query": "basket"})
                near = await session.call_tool("search_code", {"data_source_names": "dotnet/eshop", "query": "basket"})
                assert not near.is_error
                assert near.content[0].text == exact.content[0].text
                assert json.loads(near.content[0].text) == [{"repo": "dotnet/eshop", "path": "src/basket.cs"}]
                checks.append("near miss")

                missing = await session.call_tool("search_code", {"data_source_names": ["dotnet/eshop"]})
                assert missing.is_error is True
                assert missing.content[0].text == (
                    "The call to `search_code` was not run. /query: required, expected a string. "
                    "Fix these and call `search_code` again."
                ), missing.content[0].text
                assert [(v["pointer"], v["kind"]) for v in missing.structured_content["violations"]] == [("/query", "missing")]
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
                assert nested.content[0].text == 'opened "Flaky" in dotnet/eshop with labels [bug]', nested.content
                checks.append("nested near miss")
    for check in checks:
        print(f"ok   python sdk: {check}")


asyncio.run(main())
