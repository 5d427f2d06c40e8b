"""Checks canon's exported tool declarations with code the providers wrote.

Usage: python check.py OUT_DIR   (the directory `cargo run --example export` wrote)

Every validator is first shown a deliberately bad declaration and must
reject it, so a check that cannot fail is itself a failure.
"""

import copy
import json
import pathlib
import sys

import jsonschema
from anthropic.lib._parse._transform import transform_schema
from google.ai import generativelanguage as glm
from google.genai import types as genai_types
from google.protobuf import json_format
from openai.lib._pydantic import _ensure_strict_json_schema

OUT = pathlib.Path(sys.argv[1])
failures = []
checked = {}


def entries(dialect):
    files = sorted((OUT / dialect).glob("*.json"))
    if not files:
        failures.append(f"{dialect}: no exported tools in {OUT / dialect}")
    return [(f.stem, json.loads(f.read_text())) for f in files]


def check(name, label, fn):
    try:
        fn()
        checked[name] = checked.get(name, 0) + 1
    except Exception as e:  # noqa: BLE001 - every failure is reported
        failures.append(f"{name}: {label}: {type(e).__name__}: {e}")


def must_reject(name, fn):
    try:
        fn()
    except Exception:  # noqa: BLE001
        return
    failures.append(f"{name}: the deliberately bad declaration was accepted: the check cannot fail")


# 1. Draft 2020-12 metaschema (what Anthropic and MCP apply).
def metaschema(schema):
    jsonschema.Draft202012Validator.check_schema(schema)


must_reject("draft2020-12", lambda: metaschema({"type": "objekt"}))
for dialect, key in [
    ("anthropic", "input_schema"),
    ("anthropic-strict", "input_schema"),
    ("gemini-json", "parametersJsonSchema"),
]:
    for tool, entry in entries(dialect):
        check("draft2020-12", f"{dialect}/{tool}", lambda e=entry, k=key: metaschema(e[k]))
for tool, entry in entries("mcp"):
    check("draft2020-12", f"mcp/{tool} inputSchema", lambda e=entry: metaschema(e["inputSchema"]))
    if "outputSchema" in entry:
        check("draft2020-12", f"mcp/{tool} outputSchema", lambda e=entry: metaschema(e["outputSchema"]))
for dialect in ["openai", "openai-strict"]:
    for tool, entry in entries(dialect):
        check("draft2020-12", f"{dialect}/{tool}", lambda e=entry: metaschema(e["function"]["parameters"]))


# 2. Gemini: the generativelanguage protobuf (types upper-cased, as its enum
#    spells them) and google-genai's pydantic models.
def upper_types(schema):
    if isinstance(schema, dict):
        out = {}
        for k, v in schema.items():
            if k == "type" and isinstance(v, str):
                out[k] = v.upper()
            elif k == "properties" and isinstance(v, dict):
                out[k] = {name: upper_types(sub) for name, sub in v.items()}
            else:
                out[k] = upper_types(v)
        return out
    if isinstance(schema, list):
        return [upper_types(v) for v in schema]
    return schema


def gemini_proto(entry):
    declaration = {
        "name": entry["name"],
        "description": entry["description"],
        "parameters": upper_types(entry["parameters"]),
    }
    json_format.ParseDict(declaration, glm.FunctionDeclaration.pb()())


def genai(entry):
    genai_types.FunctionDeclaration.model_validate(entry)


bad_gemini = {"name": "bad", "description": "", "parameters": {"type": "object", "additionalProperties": False}}
must_reject("gemini protobuf", lambda: gemini_proto(bad_gemini))
must_reject("google-genai", lambda: genai({"name": "bad", "parameters": {"type": "object", "const": "x"}}))
for tool, entry in entries("gemini"):
    check("gemini protobuf", f"gemini/{tool}", lambda e=entry: gemini_proto(e))
    check("google-genai", f"gemini/{tool}", lambda e=entry: genai(e))
for tool, entry in entries("gemini-json"):
    check("google-genai", f"gemini-json/{tool}", lambda e=entry: genai(e))


# 3. Anthropic strict: transform_schema must leave the schema as it is, so
#    nothing is moved into a description.
def anthropic_fixed_point(schema):
    out = transform_schema(copy.deepcopy(schema))
    if out != schema:
        raise AssertionError(f"transform_schema changed it:\n  {json.dumps(schema)}\n  {json.dumps(out)}")


must_reject(
    "anthropic transform_schema",
    lambda: anthropic_fixed_point({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
                                   "additionalProperties": False}),
)
for tool, entry in entries("anthropic-strict"):
    check("anthropic transform_schema", f"anthropic-strict/{tool}",
          lambda e=entry: anthropic_fixed_point(e["input_schema"]))


# 4. OpenAI strict: its own strict-schema helper must leave it unchanged.
def openai_fixed_point(schema):
    work = copy.deepcopy(schema)
    out = _ensure_strict_json_schema(work, path=(), root=work)
    if out != schema:
        raise AssertionError(f"_ensure_strict_json_schema changed it:\n  {json.dumps(schema)}\n  {json.dumps(out)}")


must_reject(
    "openai strict helper",
    lambda: openai_fixed_point({"type": "object", "properties": {"n": {"type": "integer"}},
                                "additionalProperties": False}),
)
for dialect, get in [
    ("openai-strict", lambda e: e["function"]["parameters"]),
    ("openai-responses-strict", lambda e: e["parameters"]),
]:
    for tool, entry in entries(dialect):
        check("openai strict helper", f"{dialect}/{tool}", lambda e=entry, g=get: openai_fixed_point(g(e)))

for name, n in sorted(checked.items()):
    print(f"ok   {name}: {n} declarations, and the bad one rejected")
for failure in failures:
    print(f"FAIL {failure}")
sys.exit(1 if failures else 0)
