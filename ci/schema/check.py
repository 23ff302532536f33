"""The schema lane's judge: an independent validator (Python `jsonschema`) checks every
schema the core emits against the draft 2020-12 meta-schema, and must agree with our
binder on every argument document (valid and invalid) of the corpus.

Input: the JSON printed by `cargo run --example schema_corpus` (stdin). Each case carries
its arguments as the exact JSON text the binder saw (`text`), so numbers are judged as
written: the validator reads them exactly (integers as Python ints, every other number as a
`Decimal`, never a float) and counts a number as an integer when its value has no fraction
(`2.0`, `1e2`), as JSON Schema says.

`pattern` means an ECMA-262 regular expression (with the `u` flag: code points). Python's
`re` is not that dialect (`\\d` matches every Unicode digit there, `\\s` differs, ...), so
patterns are judged by node's own `RegExp(pattern, "u")` when node is on PATH; without
node, every case that reaches a `pattern` is reported as SKIPPED (loudly) instead of being
judged by the wrong dialect.
"""
import json
import shutil
import subprocess
import sys
from decimal import Decimal

from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validators
from jsonschema import _types

doc = json.load(sys.stdin, parse_float=Decimal)
passed = failed = skipped = 0


def ok(name):
    global passed
    passed += 1
    print(f"  ok    {name}")


def bad(name, why):
    global failed
    failed += 1
    print(f"  FAIL  {name}: {why}")


# -- exact numbers ---------------------------------------------------------------------
def is_integer(checker, instance):
    if isinstance(instance, Decimal):
        return instance.is_finite() and instance == instance.to_integral_value()
    return _types.is_integer(checker, instance)


def is_number(checker, instance):
    return isinstance(instance, Decimal) or _types.is_number(checker, instance)


type_checker = Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"integer": is_integer, "number": is_number}
)


# -- ECMA-262 patterns through node --------------------------------------------------------
class NoEcma(Exception):
    pass


NODE_PROGRAM = r"""
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (line) => {
  const [p, s] = JSON.parse(line);
  let answer;
  try { answer = new RegExp(p, 'u').test(s) ? 'match' : 'no'; }
  catch (e) { answer = 'error: ' + e.message; }
  process.stdout.write(JSON.stringify(answer) + '\n');
});
"""


class Ecma:
    def __init__(self):
        node = shutil.which("node")
        self.proc = None
        if node:
            self.proc = subprocess.Popen(
                [node, "-e", NODE_PROGRAM],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
        self.cache = {}

    def refuses(self, pattern):
        """node's verdict on the pattern itself (None without node)."""
        if self.proc is None:
            return None
        self.proc.stdin.write(json.dumps([pattern, ""]) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline()).startswith("error")

    def test(self, pattern, s):
        if self.proc is None:
            raise NoEcma()
        key = (pattern, s)
        if key not in self.cache:
            self.proc.stdin.write(json.dumps([pattern, s]) + "\n")
            self.proc.stdin.flush()
            answer = json.loads(self.proc.stdout.readline())
            if answer.startswith("error"):
                raise ValueError(f"node refuses the pattern {pattern!r}: {answer}")
            self.cache[key] = answer == "match"
        return self.cache[key]


ecma = Ecma()
if ecma.proc is None:
    print("!!! schema: node is not on PATH: cases reaching a `pattern` are SKIPPED, not judged")


def ecma_pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not ecma.test(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r} (ECMA-262)")


Validator = validators.extend(
    Draft202012Validator,
    validators={"pattern": ecma_pattern},
    type_checker=type_checker,
)

checker = FormatChecker()
# The meta-schema's "regex" format is ECMA-262 too: jsonschema checks it with Python's `re`,
# which refuses ECMA's \cJ, \u{1F600} and (?<name>...); node judges it instead.
schema_checker = FormatChecker()
if ecma.proc is not None:
    schema_checker.checks("regex")(lambda p: not isinstance(p, str) or not ecma.refuses(p))
# date-time needs the rfc3339-validator package; make sure it is really checked.
if "date-time" not in checker.checkers:
    bad("format checker", "date-time is not checked (install rfc3339-validator)")

validators_by_id = {}
for f in doc["functions"]:
    for kind in ("parameters", "result"):
        schema = f[kind]
        if schema is None:
            continue
        try:
            Draft202012Validator.check_schema(schema, format_checker=schema_checker)
            ok(f"{f['id']}.{kind} schema is valid draft 2020-12")
        except Exception as e:  # noqa: BLE001
            bad(f"{f['id']}.{kind} schema", str(e).splitlines()[0])
    validators_by_id[f["id"]] = {
        kind: Validator(f[kind], format_checker=checker)
        for kind in ("parameters", "result")
        if f[kind] is not None
    }

for i, case in enumerate(doc["cases"]):
    kind = case.get("against", "parameters")
    v = validators_by_id[case["function"]][kind]
    text = case["text"]
    label = f"case {i} {case['function']}.{kind} {text[:90]}"
    try:
        instance = json.loads(text, parse_float=Decimal)
        errors = sorted(v.iter_errors(instance), key=lambda e: list(e.path))
    except NoEcma:
        skipped += 1
        print(f"  SKIP  {label}: needs node for its ECMA-262 pattern")
        continue
    theirs = not errors
    ours = case["bound"]
    if theirs == ours:
        ok(f"{label} -> {'valid' if ours else 'invalid'} (both)")
    else:
        why = errors[0].message if errors else "jsonschema accepts it"
        bad(label, f"binder says {'valid' if ours else 'invalid: ' + str(case['message'])}; jsonschema: {why}")

# The published descriptor schema agrees with the core: every descriptor the core accepted
# is valid against it, and the ones the core refuses for a stated reason are invalid.
descriptor_validator = Draft202012Validator(doc["descriptor_schema"])
try:
    Draft202012Validator.check_schema(doc["descriptor_schema"])
    ok("the descriptor schema is valid draft 2020-12")
except Exception as e:  # noqa: BLE001
    bad("the descriptor schema", str(e).splitlines()[0])
for i, d in enumerate(doc["descriptors"]):
    errors = list(descriptor_validator.iter_errors(d["doc"]))
    label = f"descriptor {i} {json.dumps(d['doc'], default=str)[:90]}"
    if d["accepted"] and not errors:
        ok(f"{label} -> accepted (both)")
    elif not d["accepted"] and errors:
        ok(f"{label} -> refused (both)")
    else:
        why = errors[0].message[:200] if errors else "the descriptor schema accepts it"
        bad(label, f"core {'accepts' if d['accepted'] else 'refuses'} it; descriptor schema: {why}")

# Patterns the core refuses (examples/schema_corpus.rs draws them with a fixed generator):
# node refuses each too, or the core's message names a construct docs/descriptors.md says it
# refuses, with its position and the pattern; never an engine's own error.
REFUSED_BY_DESIGN = ("lookahead", "lookbehind", "backreference", '"\\B"', "Unicode property escape",
                     "inline modifiers", "used twice", "lone surrogate")
for r in doc.get("refused_patterns", []):
    p, message = r["pattern"], r["message"]
    label = f"refused pattern {json.dumps(p, ensure_ascii=False)}"
    if "refuses the pattern" in message or "position" not in message or json.dumps(p, ensure_ascii=False)[:30].rstrip('"') not in message:
        bad(label, f"the message does not name the construct, its position and the pattern: {message}")
        continue
    if ecma.proc is None:
        skipped += 1
        print(f"  SKIP  {label}: needs node")
        continue
    if ecma.refuses(p):
        ok(f"{label} -> refused (both)")
    elif any(k in message for k in REFUSED_BY_DESIGN):
        ok(f"{label} -> refused by design: {message.split(': ', 2)[-1][:80]}")
    else:
        bad(label, f"node accepts it and the core refuses it for a reason docs/descriptors.md does not give: {message}")

print(f"schema: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
