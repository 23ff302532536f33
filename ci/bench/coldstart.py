"""Cold start: a fresh process per sample, from its start to the first outcome, for an app
of N functions (the demo's descriptor bundle plus numbered copies of its functions).

    python3 ci/bench/coldstart.py --demo DEMO --lib LIBRARY --out OUT.json [--samples N] [--functions N]

DEMO is the demo example (`demo bundle` prints its descriptor bundle), LIBRARY the shared
library the C program loads with dlopen (ci/bench.sh: the dist profile's, what apps ship).
benches/coldstart/coldstart.c is compiled into target/bench/coldstart and started SAMPLES
times in each of two forms, taken in turn so both see the same load: the full one (load the
library and check its ABI version, register everything, make the first call) and the floor
(the same program reading the same app file and doing nothing with the library). The parent
reads CLOCK_MONOTONIC just before it starts the process; the program prints the same clock
after each step. Medians go to OUT.json (milliseconds) with the machine's load average."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--demo", required=True)
ap.add_argument("--lib", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--samples", type=int, default=200)
ap.add_argument("--functions", type=int, default=50)
a = ap.parse_args()
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
work = os.path.join(REPO, "target", "bench")
os.makedirs(work, exist_ok=True)

bundle = json.loads(subprocess.run([a.demo, "bundle"], capture_output=True, text=True, check=True).stdout)


def compact(v):
    return json.dumps(v, separators=(",", ":"))


def with_id_first(f, new_id, n):
    g = {"id": new_id}
    g.update((k, v) for k, v in f.items() if k != "id")
    if n and g.get("symbol"):
        g["symbol"] = f"{g['symbol']}{n}"
    if n and g.get("title"):
        g["title"] = f"{g['title']} {n}"
    return g


functions = [with_id_first(f, f["id"], 0) for f in bundle.get("functions", [])]
base = list(functions)
n = 2
while len(functions) < a.functions:  # numbered copies: create_order_2, cancel_order_2, ...
    for f in base:
        if len(functions) >= a.functions:
            break
        functions.append(with_id_first(f, f"{f['id']}_{n}", n))
    n += 1
lines = []
if "metadataSchema" in bundle:
    lines.append("M " + compact(bundle["metadataSchema"]))
lines += ["K " + compact(k) for k in bundle.get("toolkits", [])]
if "types" in bundle:
    lines.append("T " + compact(bundle["types"]))
lines += ["E " + compact(e) for e in bundle.get("entities", [])]
lines += ["F " + compact(f) for f in functions]
# the first call: the demo's create_order, its handler answering an Order
lines.append("X create_order\t" + compact({"customer": "acme", "quantity": 2}) + "\t"
             + compact({"id": "o-1", "customer": "acme", "quantity": 2, "priority": "Normal", "status": "open"}))
app = os.path.join(work, "coldstart-app.txt")
with open(app, "w") as fh:
    fh.write("\n".join(lines) + "\n")

exe = os.path.join(work, "coldstart")
subprocess.run([os.environ.get("CC", "cc"), "-O2", "-std=c11", "-Wall", "-Werror", "-I", os.path.join(REPO, "include"),
                "-o", exe, os.path.join(REPO, "benches", "coldstart", "coldstart.c"), "-ldl"], check=True)


def sample(floor):
    argv = [exe, a.lib, app] + (["--floor"] if floor else [])
    t0 = time.monotonic_ns()  # CLOCK_MONOTONIC on Linux, the clock the program prints
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"coldstart: {' '.join(argv)} failed ({r.returncode}): {r.stderr.strip()}")
    t = {k: int(v) for k, v in (kv.split("=") for kv in r.stdout.split()[1:])}
    return {k: (v - t0) / 1e6 for k, v in t.items()}  # ms since the parent started the process


sample(False), sample(True)  # warm the page cache: every sample starts from the same files
full, floor = [], []
for _ in range(a.samples):
    full.append(sample(False))
    floor.append(sample(True))


def med(xs):
    return round(statistics.median(xs), 3)


res = {
    "coldstart_functions": len(functions) + len(bundle.get("entities", [])),
    "coldstart_declared_functions": len(functions),
    "coldstart_entities": len(bundle.get("entities", [])),
    "coldstart_samples": a.samples,
    "coldstart_library": os.path.relpath(a.lib, REPO),
    "coldstart_library_bytes": os.path.getsize(a.lib),
    "coldstart_c_floor_ms": med([s["read"] for s in floor]),
    "coldstart_c_first_outcome_ms": med([s["call"] for s in full]),
    "coldstart_c_start_to_main_ms": med([s["read"] for s in full]),
    "coldstart_c_load_ms": med([s["load"] - s["read"] for s in full]),
    "coldstart_c_register_ms": med([s["register"] - s["load"] for s in full]),
    "coldstart_c_first_call_ms": med([s["call"] - s["register"] for s in full]),
    "coldstart_c_library_ms": med([s["call"] - s["read"] for s in full]),
    "coldstart_c_floor_p90_ms": round(statistics.quantiles([s["read"] for s in floor], n=10)[-1], 3),
    "coldstart_c_first_outcome_p90_ms": round(statistics.quantiles([s["call"] for s in full], n=10)[-1], 3),
    "coldstart_load_average_1m": round(os.getloadavg()[0], 2),
}
res["coldstart_c_above_floor_ms"] = round(res["coldstart_c_first_outcome_ms"] - res["coldstart_c_floor_ms"], 3)
with open(a.out, "w") as fh:
    json.dump(res, fh, indent=1)
print(json.dumps(res, indent=1))
