"""The schema lane's judge: an independent validator (Python `jsonschema`) checks every
schema the core emits against the draft 2020-12 meta-schema, and must agree with our
binder on every argument document (valid and invalid) of the corpus.

Input: the JSON printed by `cargo run --example schema_corpus` (stdin).
"""
import json
import sys

from jsonschema import Draft202012Validator, FormatChecker

doc = json.load(sys.stdin)
passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print(f"  ok    {name}")


def bad(name, why):
    global failed
    failed += 1
    print(f"  FAIL  {name}: {why}")


checker = FormatChecker()
# date-time needs the rfc3339-validator package; make sure it is really checked.
if "date-time" not in checker.checkers:
    bad("format checker", "date-time is not checked (install rfc3339-validator)")

validators = {}
for f in doc["functions"]:
    for kind in ("parameters", "result"):
        schema = f[kind]
        if schema is None:
            continue
        try:
            Draft202012Validator.check_schema(schema)
            ok(f"{f['id']}.{kind} schema is valid draft 2020-12")
        except Exception as e:  # noqa: BLE001
            bad(f"{f['id']}.{kind} schema", str(e).splitlines()[0])
    validators[f["id"]] = Draft202012Validator(f["parameters"], format_checker=checker)

for i, case in enumerate(doc["cases"]):
    v = validators[case["function"]]
    errors = sorted(v.iter_errors(case["args"]), key=lambda e: list(e.path))
    theirs = not errors
    ours = case["bound"]
    label = f"case {i} {case['function']} {json.dumps(case['args'])[:90]}"
    if theirs == ours:
        ok(f"{label} -> {'valid' if ours else 'invalid'} (both)")
    else:
        why = errors[0].message if errors else "jsonschema accepts it"
        bad(label, f"binder says {'valid' if ours else 'invalid: ' + str(case['message'])}; jsonschema: {why}")

print(f"schema: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
