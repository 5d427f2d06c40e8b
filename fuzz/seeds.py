"""Seed corpora for the fuzz targets: the bundled sample calls, near misses
from the tests, and (when CANON_CORPUS names it) the first calls of the
real corpus.

Usage: python3 seeds.py OUT_DIR
"""

import json
import os
import pathlib
import sys

out = pathlib.Path(sys.argv[1])
root = pathlib.Path(__file__).resolve().parent.parent
for target in ["bind_text", "canonicalize", "export"]:
    (out / target).mkdir(parents=True, exist_ok=True)

n = 0


def seed(target, data: bytes):
    global n
    n += 1
    (out / target / f"seed-{n:05}").write_bytes(data)


survey = [
    {"names": "a", "filter": {"labels": "bug"}, "filters": [{"labels": "x"}], "groups": {"g": "y"},
     "target": {"kind": "Repo", "names": "canon"}},
    {"names": ["a"], "filter": {"labels": [], "path": None}, "filters": [], "groups": {}, "count": 3},
    {"names": "[\"a\"]", "filter": {"labels": " "}, "filters": [], "groups": {}},
    {"names": ["a"], "filter": {}, "filters": [], "groups": {}, "nmaes": 1},
]
for call in survey:
    seed("bind_text", json.dumps(call).encode())

tools = json.loads((root / "canon-replay/data/sample-tools.json").read_text())
schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
for line in (root / "canon-replay/data/sample-calls.jsonl").read_text().splitlines():
    call = json.loads(line)
    args = call["arguments"] if isinstance(call["arguments"], str) else json.dumps(call["arguments"])
    schema = json.dumps(schemas[call["tool"]])
    seed("canonicalize", schema.encode() + b"\xff" + args.encode())
for schema in schemas.values():
    seed("export", json.dumps(schema).encode())

shared = pathlib.Path(os.environ.get("CANON_CORPUS", "/nonexistent"))
if shared.exists():
    with shared.open() as lines:
        for i, line in enumerate(lines):
            if i >= 400:
                break
            call = json.loads(line)
            schema = json.dumps(call["schema"])
            args = json.dumps(call["arguments"])
            seed("canonicalize", schema.encode() + b"\xff" + args.encode())
            if i % 4 == 0:
                seed("export", schema.encode())
                seed("bind_text", args.encode())
print(f"{n} seeds in {out}")
