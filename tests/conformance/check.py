"""Checks canon's exported tool declarations with code the providers wrote,
and with the two rules their APIs enforce that no library of theirs checks
(Gemini's non-empty OBJECT properties, Anthropic's property-name pattern).

Usage: python check.py OUT_DIR   (the directory `cargo run --example export` wrote)

Every validator is first shown a deliberately bad declaration and must
reject it, so a check that cannot fail is itself a failure.
"""

import copy
import json
import logging
import pathlib
import re
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
    declaration = {"name": entry["name"], "description": entry["description"]}
    if "parameters" in entry:
        declaration["parameters"] = upper_types(entry["parameters"])
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


# 2b. Gemini's API refuses an OBJECT without properties ("parameters.properties:
#     should be non-empty for OBJECT type"), which neither library checks: no
#     object schema may lack them, and a tool without parameters is declared
#     as google-genai declares a parameterless function itself, without
#     `parameters`.
def schemas(schema):
    """Every dict under `schema`: the schemas, and the maps that hold them."""
    if isinstance(schema, dict):
        yield schema
        for value in schema.values():
            yield from schemas(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from schemas(value)


def gemini_objects_have_properties(entry):
    for schema in schemas(entry.get("parameters", {})):
        if str(schema.get("type", "")).lower() == "object" and not schema.get("properties"):
            raise AssertionError(f"an OBJECT without properties: {json.dumps(schema)}")


def ping():
    """Ping the service."""


def gemini_no_parameters(entry):
    # `parameters` (OpenAPI Schema), not `parametersJsonSchema`: the SDK
    # warns that JSON Schema is preferred, which is `GeminiJsonSchema`.
    logging.getLogger("google_genai.types").setLevel(logging.ERROR)
    own = genai_types.FunctionDeclaration.from_callable_with_api_option(callable=ping)
    own_fields = set(own.model_dump(exclude_none=True)) - {"name", "description"}
    fields = set(entry) - {"name", "description"}
    if fields != own_fields:
        raise AssertionError(f"fields {sorted(fields)}, where google-genai declares {sorted(own_fields)}")
    gemini_proto(entry)
    genai(entry)


must_reject(
    "gemini OBJECT properties",
    lambda: gemini_objects_have_properties(
        {"name": "bad", "parameters": {"type": "object", "properties": {"m": {"type": "object"}}}}
    ),
)
must_reject(
    "gemini without parameters",
    lambda: gemini_no_parameters({"name": "bad", "description": "", "parameters": {"type": "object", "properties": {}}}),
)
without = 0
for tool, entry in entries("gemini"):
    check("gemini OBJECT properties", f"gemini/{tool}", lambda e=entry: gemini_objects_have_properties(e))
    if "parameters" not in entry:
        without += 1
        check("gemini without parameters", f"gemini/{tool}", lambda e=entry: gemini_no_parameters(e))
if not without:
    failures.append("gemini without parameters: no tool declared without parameters in the export")


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


# 3b. Anthropic's API refuses a request whose input schema has a property
#     name outside "^[a-zA-Z0-9_.-]{1,64}$" ("Property keys should match
#     pattern"), which the SDK does not check: every name, at any depth.
PROPERTY_NAME = re.compile(r"[a-zA-Z0-9_.-]{1,64}")


def anthropic_property_names(schema):
    for sub in schemas(schema):
        properties = sub.get("properties")
        for name in properties if isinstance(properties, dict) else ():
            if not PROPERTY_NAME.fullmatch(name):
                raise AssertionError(f"the property name {name!r}")


must_reject(
    "anthropic property names",
    lambda: anthropic_property_names(
        {"type": "object", "properties": {"f": {"type": "object", "properties": {"filter[id]": {"type": "string"}}}}}
    ),
)
for dialect in ["anthropic", "anthropic-strict"]:
    for tool, entry in entries(dialect):
        check("anthropic property names", f"{dialect}/{tool}", lambda e=entry: anthropic_property_names(e["input_schema"]))


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
