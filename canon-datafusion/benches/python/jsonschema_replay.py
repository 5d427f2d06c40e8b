"""The baseline of canon replay on Parquet: Python's jsonschema over
pyarrow's reading of the same file, a batch at a time.

Each row's arguments (JSON text, or a JSON string holding JSON text, as
OpenAI sends them) are validated against its schema (JSON text) with the
validator its `$schema` names (Draft 2020-12 by default), each schema
compiled once per distinct text. Prints the seconds from opening the file
to the last row, the process's peak resident set in MiB, the calls, and
how many were valid.

Usage: python jsonschema_replay.py FILE.parquet
"""

import json
import resource
import sys
import time

import jsonschema
import pyarrow.parquet as pq

BATCH_ROWS = 4096


def main(path):
    start = time.perf_counter()
    validators = {}
    calls = valid = 0
    parquet = pq.ParquetFile(path)
    for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=["schema", "arguments"]):
        schemas = batch.column(0).to_pylist()
        arguments = batch.column(1).to_pylist()
        for schema_text, arguments_text in zip(schemas, arguments):
            calls += 1
            if schema_text is None or arguments_text is None:
                continue
            validator = validators.get(schema_text)
            if validator is None:
                try:
                    schema = json.loads(schema_text)
                    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
                    validator = cls(schema)
                except Exception:
                    validator = False
                validators[schema_text] = validator
            if validator is False:
                continue
            try:
                value = json.loads(arguments_text)
                if isinstance(value, str):
                    value = json.loads(value)
                if validator.is_valid(value):
                    valid += 1
            except Exception:
                pass
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{seconds} {peak_mib} {calls} {valid}")


if __name__ == "__main__":
    main(sys.argv[1])
