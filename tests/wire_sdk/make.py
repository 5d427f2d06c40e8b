"""Provider payloads as the official SDKs serialize them.

Each payload has the shape the provider's API sends (parallel tool calls,
text beside tool calls, streams whose argument fragments split a string
and a \\u escape). It is validated by the SDK's own model, then written as
that model serializes it, into DIR. expected.json says which calls canon
must read out of each file: id, name and arguments.

Usage: make.py DIR
"""

import json
import sys
from pathlib import Path

from anthropic.types import Message, RawMessageStreamEvent
from google.genai import types as gemini
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

# The arguments of the calls every payload carries: a near miss (one
# string where the tool declares an array of strings), and a call whose
# text holds an escape that the streams split in the middle.
SEARCH = {"data_source_names": "dotnet/eshop", "query": "basket"}
WEATHER = {"city": "Bogot\u00e1", "unit": "celsius"}
SEARCH_TEXT = json.dumps(SEARCH)
# As models write it: non-ASCII escaped, so a fragment can end inside
# the escape.
WEATHER_TEXT = json.dumps(WEATHER, ensure_ascii=True)
assert "\\u00e1" in WEATHER_TEXT


def pieces(text, size=7):
    """`text` in fragments of `size` characters, as streams deliver them:
    one cut falls inside the \\u escape, or else inside a string."""
    cut = text.index("\\u00") + 4 if "\\u00" in text else text.index("dotnet") + 3
    head, tail = text[:cut], text[cut:]
    return [head[i : i + size] for i in range(0, len(head), size)] + [
        tail[i : i + size] for i in range(0, len(tail), size)
    ]


def dump_model(model, **kwargs):
    return model.model_dump(mode="json", exclude_unset=True, **kwargs)


def chat():
    raw = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764750000,
        "model": "gpt-4.1-mini",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "logprobs": None,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": "call_search",
                            "type": "function",
                            "function": {"name": "search_code", "arguments": SEARCH_TEXT},
                        },
                        {
                            "id": "call_weather",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": WEATHER_TEXT},
                        },
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 90, "completion_tokens": 40, "total_tokens": 130},
    }
    return dump_model(ChatCompletion.model_validate(raw))


def chat_stream():
    def chunk(delta, finish=None):
        return {
            "id": "chatcmpl-2",
            "object": "chat.completion.chunk",
            "created": 1764750001,
            "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }

    events = [chunk({"role": "assistant", "content": None})]
    calls = [("call_search", "search_code", SEARCH_TEXT), ("call_weather", "get_weather", WEATHER_TEXT)]
    for index, (call_id, name, text) in enumerate(calls):
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        for piece in pieces(text):
            events.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            )
    events.append(chunk({}, finish="tool_calls"))
    return [dump_model(ChatCompletionChunk.model_validate(e)) for e in events]


def responses():
    raw = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1764750002,
        "model": "gpt-4.1-mini",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
            },
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_search",
                "name": "search_code",
                "arguments": SEARCH_TEXT,
                "status": "completed",
            },
            {
                "type": "function_call",
                "id": "fc_2",
                "call_id": "call_weather",
                "name": "get_weather",
                "arguments": WEATHER_TEXT,
                "status": "completed",
            },
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    return dump_model(Response.model_validate(raw))


def responses_stream():
    events = []
    seq = 0

    def add(event):
        nonlocal seq
        event["sequence_number"] = seq
        seq += 1
        events.append(event)

    calls = [("fc_1", "call_search", "search_code", SEARCH_TEXT), ("fc_2", "call_weather", "get_weather", WEATHER_TEXT)]
    for index, (item_id, call_id, name, text) in enumerate(calls):
        item = {"type": "function_call", "id": item_id, "call_id": call_id, "name": name}
        add({"type": "response.output_item.added", "output_index": index, "item": {**item, "arguments": "", "status": "in_progress"}})
        for piece in pieces(text):
            add({"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index, "delta": piece})
        add({"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": index, "arguments": text, "name": name})
        add({"type": "response.output_item.done", "output_index": index, "item": {**item, "arguments": text, "status": "completed"}})
    adapter = TypeAdapter(ResponseStreamEvent)
    return [adapter.dump_python(adapter.validate_python(e), mode="json", exclude_unset=True) for e in events]


def anthropic_message():
    raw = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 90, "output_tokens": 40},
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_search", "name": "search_code", "input": SEARCH},
            {"type": "tool_use", "id": "toolu_weather", "name": "get_weather", "input": WEATHER},
        ],
    }
    return dump_model(Message.model_validate(raw))


def anthropic_stream():
    events = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_02",
                "type": "message",
                "role": "assistant",
                "model": "claude-haiku-4-5",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 90, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me look."}},
        {"type": "content_block_stop", "index": 0},
    ]
    calls = [("toolu_search", "search_code", SEARCH_TEXT), ("toolu_weather", "get_weather", WEATHER_TEXT)]
    for offset, (call_id, name, text) in enumerate(calls):
        index = offset + 1
        events.append(
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        )
        for piece in pieces(text):
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
            )
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 40},
        }
    )
    events.append({"type": "message_stop"})
    adapter = TypeAdapter(RawMessageStreamEvent)
    return [adapter.dump_python(adapter.validate_python(e), mode="json", exclude_unset=True) for e in events]


def gemini_response():
    raw = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "search_code", "args": SEARCH}},
                        # Gemini sends every number as a double, and some
                        # endpoints give calls ids.
                        {"functionCall": {"id": "gem_weather", "name": "get_weather", "args": WEATHER}},
                    ],
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
        "modelVersion": "gemini-2.5-flash",
    }
    model = gemini.GenerateContentResponse.model_validate(raw)
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "openai_chat.json": chat(),
        "openai_chat_stream.json": chat_stream(),
        "openai_responses.json": responses(),
        "openai_responses_stream.json": responses_stream(),
        "anthropic_message.json": anthropic_message(),
        "anthropic_stream.json": anthropic_stream(),
        "gemini_response.json": gemini_response(),
    }
    for name, payload in files.items():
        (out / name).write_text(json.dumps(payload, indent=1))
    ids = {
        "openai": ["call_search", "call_weather"],
        "anthropic": ["toolu_search", "toolu_weather"],
        # The first Gemini call has no id: canon makes one up, and answers
        # it without an id.
        "gemini": [None, "gem_weather"],
    }
    expected = {
        name: [
            {"id": call_id, "name": tool, "arguments": args}
            for call_id, tool, args in zip(
                ids[name.split("_")[0]], ["search_code", "get_weather"], [SEARCH, WEATHER]
            )
        ]
        for name in files
    }
    (out / "expected.json").write_text(json.dumps(expected, indent=1))


if __name__ == "__main__":
    main()
