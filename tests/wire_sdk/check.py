"""What canon read from the SDKs' payloads, and what it wrote back, checked
against the official SDKs' own types.

IN holds make.py's payloads and expected.json; OUT holds, for each payload,
`calls/NAME` (the calls canon read: id, name, arguments) and `replies/NAME`
(the results canon wrote in the provider's shape, after a toolbox ran the
calls). Every reply must validate as the SDK's request type, name exactly
the calls it answers, and carry canon's repair of the near miss.

Usage: check.py IN OUT
"""

import json
import sys
import typing
from pathlib import Path

from anthropic.types import MessageParam, ToolResultBlockParam
from anthropic.types.user_message_param import UserMessageParam
from google.genai import types as gemini
from openai.types.chat import ChatCompletionToolMessageParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def keys_within(typed_dict, value, what):
    """A TypedDict ignores unknown keys; the API does not."""
    if not isinstance(typed_dict, type):
        return  # a union: its members are checked where they are named
    allowed = set(typing.get_type_hints(typed_dict))
    extra = set(value) - allowed
    check(not extra, f"{what}: keys the SDK type does not have: {sorted(extra)}")


def validate(typed_dict, value, what):
    try:
        TypeAdapter(typed_dict).validate_python(value)
    except Exception as error:  # pydantic's ValidationError, shown in full
        failures.append(f"{what}: {error}")
        return
    keys_within(typed_dict, value, what)


def main():
    inputs, outputs = Path(sys.argv[1]), Path(sys.argv[2])
    expected = json.loads((inputs / "expected.json").read_text())
    for name, calls in expected.items():
        read = json.loads((outputs / "calls" / name).read_text())
        reply = json.loads((outputs / "replies" / name).read_text())
        # Read: the same calls, in order, with the arguments as sent.
        check(len(read) == len(calls), f"{name}: {len(read)} calls read, {len(calls)} sent")
        for got, want in zip(read, calls):
            check(got["name"] == want["name"], f"{name}: name {got['name']!r}, sent {want['name']!r}")
            check(got["arguments"] == want["arguments"], f"{name}: arguments {got['arguments']!r}")
            if want["id"] is not None:
                check(got["id"] == want["id"], f"{name}: id {got['id']!r}, sent {want['id']!r}")
        provider = name.split("_")[0]
        ids = [c["id"] for c in calls]
        if name.startswith("openai_chat"):
            check(len(reply) == len(calls), f"{name}: {len(reply)} tool messages")
            for message, call_id in zip(reply, ids):
                validate(ChatCompletionToolMessageParam, message, f"{name}: tool message")
                check(message.get("tool_call_id") == call_id, f"{name}: tool_call_id {message.get('tool_call_id')!r}")
            texts = [m.get("content", "") for m in reply]
        elif name.startswith("openai_responses"):
            check(len(reply) == len(calls), f"{name}: {len(reply)} outputs")
            for item, call_id in zip(reply, ids):
                validate(FunctionCallOutput, item, f"{name}: function_call_output")
                check(item.get("call_id") == call_id, f"{name}: call_id {item.get('call_id')!r}")
            texts = [i.get("output", "") for i in reply]
        elif provider == "anthropic":
            validate(MessageParam, reply, f"{name}: message")
            validate(UserMessageParam, reply, f"{name}: user message")
            blocks = reply.get("content", [])
            check(len(blocks) == len(calls), f"{name}: {len(blocks)} tool_result blocks")
            for block, call_id in zip(blocks, ids):
                validate(ToolResultBlockParam, block, f"{name}: tool_result")
                check(block.get("tool_use_id") == call_id, f"{name}: tool_use_id {block.get('tool_use_id')!r}")
                check(not block.get("is_error", False), f"{name}: a call that ran is marked as an error")
            texts = [json.dumps(b.get("content")) for b in blocks]
        elif provider == "gemini":
            try:
                content = gemini.Content.model_validate(reply)
            except Exception as error:
                failures.append(f"{name}: Content: {error}")
                continue
            parts = content.parts or []
            check(len(parts) == len(calls), f"{name}: {len(parts)} parts")
            for part, call in zip(parts, calls):
                response = part.function_response
                check(response is not None, f"{name}: a part without functionResponse")
                if response is None:
                    continue
                check(response.name == call["name"], f"{name}: functionResponse name {response.name!r}")
                # A made-up id is not sent back; a real one is.
                check(response.id == call["id"], f"{name}: functionResponse id {response.id!r}, call id {call['id']!r}")
            texts = [json.dumps(reply)]
        else:
            failures.append(f"{name}: no check for this payload")
            continue
        # The near miss ran, repaired: its result holds the repository.
        check(any("dotnet/eshop" in t for t in texts), f"{name}: the repaired call's result is missing: {texts}")
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"{len(expected)} payloads read and answered in the SDKs' own shapes")


if __name__ == "__main__":
    main()
