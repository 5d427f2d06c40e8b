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

from anthropic.types import MessageParam, TextBlockParam, ToolResultBlockParam
from anthropic.types.user_message_param import UserMessageParam
from google.genai import types as gemini
from openai.types.chat import ChatCompletionContentPartTextParam, ChatCompletionToolMessageParam
from openai.types.responses.response_input_text_content_param import ResponseInputTextContentParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from pydantic import TypeAdapter

# examples/wire.rs runs its toolbox with repair notes on. The near miss's
# output (search_code's JSON list) and the note are two blocks: the output
# parses, whatever canon says beside it.
OUTPUT = ["dotnet/eshop: basket"]
NOTE = "(Note: /data_source_names was sent as a string and read as a one-element array; send an array.)"

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


def texts_of(content, part_type, what):
    """The texts of a content that is a string or a list of text parts,
    each part checked against the SDK's own part type."""
    if isinstance(content, str):
        return [content]
    texts = []
    for part in content or []:
        validate(part_type, part, f"{what}: content part")
        texts.append(part.get("text"))
    return texts


def check_blocks(name, call, texts):
    """The near miss: its output, then the note; any other call: one block."""
    if call["name"] != "search_code":
        check(len(texts) == 1, f"{name}: {call['name']}: {len(texts)} blocks, one expected: {texts}")
        return
    check(len(texts) == 2, f"{name}: the repaired call has {len(texts)} blocks, not the output and the note: {texts}")
    if len(texts) != 2:
        return
    try:
        check(json.loads(texts[0]) == OUTPUT, f"{name}: the output block is {texts[0]!r}")
    except ValueError as error:
        failures.append(f"{name}: the output block does not parse ({error}): {texts[0]!r}")
    check(texts[1] == NOTE, f"{name}: the note block is {texts[1]!r}")


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
        if name.startswith("openai_chat"):
            check(len(reply) == len(calls), f"{name}: {len(reply)} tool messages")
            for message, call in zip(reply, calls):
                validate(ChatCompletionToolMessageParam, message, f"{name}: tool message")
                check(message.get("tool_call_id") == call["id"], f"{name}: tool_call_id {message.get('tool_call_id')!r}")
                check_blocks(name, call, texts_of(message.get("content"), ChatCompletionContentPartTextParam, name))
            texts = [json.dumps(m.get("content", "")) for m in reply]
        elif name.startswith("openai_responses"):
            check(len(reply) == len(calls), f"{name}: {len(reply)} outputs")
            for item, call in zip(reply, calls):
                validate(FunctionCallOutput, item, f"{name}: function_call_output")
                check(item.get("call_id") == call["id"], f"{name}: call_id {item.get('call_id')!r}")
                check_blocks(name, call, texts_of(item.get("output"), ResponseInputTextContentParam, name))
            texts = [json.dumps(i.get("output", "")) for i in reply]
        elif provider == "anthropic":
            validate(MessageParam, reply, f"{name}: message")
            validate(UserMessageParam, reply, f"{name}: user message")
            blocks = reply.get("content", [])
            check(len(blocks) == len(calls), f"{name}: {len(blocks)} tool_result blocks")
            for block, call in zip(blocks, calls):
                validate(ToolResultBlockParam, block, f"{name}: tool_result")
                check(block.get("tool_use_id") == call["id"], f"{name}: tool_use_id {block.get('tool_use_id')!r}")
                check(not block.get("is_error", False), f"{name}: a call that ran is marked as an error")
                check_blocks(name, call, texts_of(block.get("content"), TextBlockParam, name))
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
                # The output as a value of its own, the note a field beside it.
                body = response.response or {}
                if call["name"] == "search_code":
                    check(body == {"output": OUTPUT, "note": NOTE}, f"{name}: functionResponse response {body!r}")
                else:
                    check(set(body) == {"output"}, f"{name}: functionResponse response {body!r}")
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
