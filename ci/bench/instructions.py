"""Instruction counts of the benchmark scenarios (benches/instructions.rs) under callgrind:
repeatable whatever else the machine runs, where wall-clock figures are not.

    python3 ci/bench/instructions.py BINARY OUT.json [--quick] [--only PREFIX]...

Each scenario runs under `valgrind --tool=callgrind`, counting only its measured part
(`--toggle-collect=instructions::measured*`, on every thread that enters it); the count
per iteration goes to OUT.json as `instructions_<scenario>`. With `--only`, only the scenarios
whose names start with one of the prefixes given."""
import json
import os
import subprocess
import sys
import tempfile

binary, out = sys.argv[1], sys.argv[2]
quick = "--quick" in sys.argv[3:]
only = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--only" and i >= 3]


def iterations(name):
    if name.startswith(("register_", "export_first_", "export_android_xml")):
        return 1
    if name.startswith(("export_mcp_1k", "view_")):
        return 3 if quick else 10
    return 500 if quick else 2000


figures = {}
names = subprocess.run([binary, "--list"], capture_output=True, text=True, check=True).stdout.split()
if only:
    names = [n for n in names if n.startswith(tuple(only))]
with tempfile.TemporaryDirectory() as tmp:
    for name in names:
        n = iterations(name)
        cg = os.path.join(tmp, f"callgrind.{name}")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}",
                            "--collect-atstart=no", "--toggle-collect=instructions::measured*",
                            binary, name, str(n)], capture_output=True, text=True)
        total = None
        if r.returncode == 0 and os.path.exists(cg):
            with open(cg) as fh:
                for line in fh:
                    if line.startswith("totals:"):
                        total = int(line.split()[1])
        if total is None:
            print(f"!!! {name}: callgrind failed: {r.stderr[-500:]}", file=sys.stderr)
            continue
        figures[f"instructions_{name}"] = round(total / n)
        print(f"{name}: {total / n:,.0f} instructions per iteration ({n} iterations)")
with open(out, "w") as fh:
    json.dump(figures, fh, indent=1)
