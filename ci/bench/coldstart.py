"""Cold start: a fresh process per sample, from its start to the first outcome, for an app
of N functions (the demo's descriptor bundle plus numbered copies of its functions).

    python3 ci/bench/coldstart.py --demo DEMO --lib LIBRARY --out OUT.json [--samples N] [--functions N]
        [--also LABEL=LIBRARY]...
    python3 ci/bench/coldstart.py --demo DEMO --prepare
    python3 ci/bench/coldstart.py --demo DEMO --binding LABEL --full "CMD ..." --floor "CMD ..." \
        --out OUT.json [--samples N] [--functions N] [--what "TEXT"]
        [--also LABEL2="CMD ..." [--also-what LABEL2="TEXT"]]...

DEMO is the demo example (`demo bundle` prints its descriptor bundle), LIBRARY the shared
library the C program loads with dlopen (ci/bench.sh: the dist profile's, what apps ship).
benches/coldstart/coldstart.c is compiled into target/bench/coldstart and started SAMPLES
times in each of two forms, taken in turn so both see the same load: the full one (load the
library and check its ABI version, register everything, make the first call; then, after the
first outcome, the same call through af_execute_async, its own step) and the floor
(the same program reading the same app file and doing nothing with the library). The parent
reads CLOCK_MONOTONIC just before it starts the process; the program prints the same clock
after each step. Medians go to OUT.json (milliseconds) with the machine's load average.
Each --also library (ci/bench.sh: the Android phone build's) runs the full program in the
same samples, right after those two, into keys `coldstart_c_LABEL_*`. With --binding,
each --also LABEL=CMD is another full program run in the same samples beside the same floor
(ci/bench/coldstart-dotnet.sh: NativeAOT with the core loaded at run time and linked
statically), into keys `coldstart_LABEL_*` of the same OUT.json.

With --binding, the two programs are a binding's (ci/bench.sh: .NET JIT and NativeAOT, the
JVM, Swift): FULL registers the same app through the binding's API and makes the first call,
FLOOR is the same program without appfunctions. Each command is split like a shell line
(shlex), and `{bundle}` / `{app}` in it become the paths of the app's descriptor bundle (JSON:
{"types", "functions", "entities", "toolkits", "metadataSchema"}, the 50 functions) and of the
C program's app file. Each program prints one line on stdout,

    coldstart main=NS STEP=NS STEP=NS ...

NS being CLOCK_MONOTONIC nanoseconds (what the parent reads), `main` first (the program's
first own code) and then the end of each step in order: FULL's last step is its first
outcome, FLOOR's last step the end of its work. Keys of OUT.json, all prefixed
`coldstart_LABEL_`: `steps` and `floor_steps` (the names, in order), `STEP_ms` (median time
from process start to the step's end), `STEP_part_ms` (median of the step's own time, from the
step before), `floor_STEP_part_ms` (the same for the floor's steps, when it prints more than its end),
`first_outcome_ms`, `floor_ms`, `above_floor_ms`, `vs_floor_x`, their p90s,
`samples`, `what` (TEXT: what the programs do) and `load_average_1m`.

With --binding and --lib LIBRARY, the C program (as above, with LIBRARY) also runs in every
sample, after the binding's programs: `coldstart_LABEL_c_register_ms` is its registration in
those samples, what the report divides the binding's registration by (the C run's own samples
come at another moment of a shared machine).

With --prepare it only writes the app's files and compiles the C program, prints their paths
as JSON ({"app", "bundle", "program"}) and measures nothing (ci/startup_order.py runs the
program under callgrind)."""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--demo", required=True)
ap.add_argument("--lib")
ap.add_argument("--also", action="append", default=[], metavar="LABEL=LIBRARY",
                help="another library measured in the same samples (after the full and the floor ones): "
                     "keys coldstart_c_LABEL_*; with --binding, LABEL=CMD: another full program beside the "
                     "same floor, keys coldstart_LABEL_*")
ap.add_argument("--also-what", action="append", default=[], metavar="LABEL=TEXT",
                help="with --binding: what an --also program does, for the report")
ap.add_argument("--binding", help="a binding's label (letters, digits, _): measure its FULL and FLOOR programs")
ap.add_argument("--full", help="with --binding: the program registering the app and making the first call")
ap.add_argument("--floor", help="with --binding: the same program without appfunctions")
ap.add_argument("--what", default="", help="with --binding: what the programs do, for the report")
ap.add_argument("--out")
ap.add_argument("--samples", type=int, default=200)
ap.add_argument("--functions", type=int, default=50)
ap.add_argument("--prepare", action="store_true",
                help="write the app's files and compile the C program, print their paths, measure nothing")
a = ap.parse_args()
if not (a.prepare or a.out):
    ap.error("--out is required (or --prepare)")
if a.prepare:
    pass
elif a.binding:
    if not (a.full and a.floor) or not a.binding.replace("_", "").isalnum():
        ap.error("--binding LABEL (letters, digits, _) needs --full and --floor")
elif not a.lib:
    ap.error("--lib is required (or --binding with --full and --floor)")
also = []
for spec in a.also:
    label, _, path = spec.partition("=")
    if not (label.replace("_", "").isalnum() and path):
        ap.error(f"--also LABEL=LIBRARY (LABEL letters, digits, _): {spec}")
    also.append((label, path))
a.also_what = dict(w.partition("=")[::2] for w in a.also_what)
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
app_bundle = dict(bundle)
app_bundle["functions"] = functions
bundle_path = os.path.join(work, "coldstart-bundle.json")
with open(bundle_path, "w") as fh:
    json.dump(app_bundle, fh, indent=1)


def run_once(argv):
    """Starts argv, returns {step: ms since the parent started the process}, in printed order."""
    t0 = time.monotonic_ns()  # CLOCK_MONOTONIC on Linux, the clock the program prints
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"coldstart: {' '.join(argv)} failed ({r.returncode}): {r.stderr.strip()[-2000:]}")
    line = next((l for l in r.stdout.splitlines() if l.startswith("coldstart ")), None)
    if line is None:
        sys.exit(f"coldstart: {' '.join(argv)} printed no `coldstart main=NS ...` line: {r.stdout.strip()[-500:]}")
    t = {}
    for kv in line.split()[1:]:
        k, _, v = kv.partition("=")
        t[k] = (int(v) - t0) / 1e6
    if next(iter(t), None) != "main":
        sys.exit(f"coldstart: {' '.join(argv)}: the line must start with main=NS: {line}")
    return t


def med(xs):
    return round(statistics.median(xs), 3)


def p90(xs):
    return round(statistics.quantiles(xs, n=10)[-1], 3)


exe = os.path.join(work, "coldstart")
if a.lib or not a.binding:  # a binding's samples run it only with --lib
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-std=c11", "-Wall", "-Werror", "-I", os.path.join(REPO, "include"),
                    "-o", exe, os.path.join(REPO, "benches", "coldstart", "coldstart.c"), "-ldl"], check=True)

if a.binding:
    def argv_of(cmd):
        return [w.replace("{bundle}", bundle_path).replace("{app}", app) for w in shlex.split(cmd)]

    full_argv, floor_argv = argv_of(a.full), argv_of(a.floor)
    # --also LABEL=CMD: another full program run in the same samples, beside the same floor
    also_argv = [(label, argv_of(cmd)) for label, cmd in also]
    # --lib: the C program with this library in the same samples, so that the registration
    # ratios divide by a C figure of the same moment (the C run's own samples come earlier)
    c_argv = [exe, a.lib, app] if a.lib else None
    run_once(full_argv), run_once(floor_argv)  # warm the page cache (and any JIT cache) alike
    for _, argv in also_argv:
        run_once(argv)
    if c_argv:
        run_once(c_argv)
    full, floor, c_same = [], [], []
    others = {label: [] for label, _ in also_argv}
    for _ in range(a.samples):
        full.append(run_once(full_argv))
        floor.append(run_once(floor_argv))
        for label, argv in also_argv:
            others[label].append(run_once(argv))
        if c_argv:
            c_same.append(run_once(c_argv))
    floor_steps = list(floor[0])
    if any(list(s) != floor_steps for s in floor):
        sys.exit("coldstart: the floor printed different steps in different samples")

    def summary(label, full, what):
        steps = list(full[0])
        if any(list(s) != steps for s in full):
            sys.exit(f"coldstart: {label}'s program printed different steps in different samples")
        P = f"coldstart_{label}_"
        res = {P + "steps": steps, P + "floor_steps": floor_steps, P + "samples": a.samples, P + "what": what,
               P + "functions": len(functions) + len(bundle.get("entities", []))}
        for i, k in enumerate(steps):
            res[P + k + "_ms"] = med([s[k] for s in full])
            if i:
                res[P + k + "_part_ms"] = med([s[k] - s[steps[i - 1]] for s in full])
        res[P + "first_outcome_ms"] = med([s[steps[-1]] for s in full])
        if len(floor_steps) > 2:  # the floor's own steps, when it prints more than its end
            for i, k in enumerate(floor_steps[1:], 1):
                res[P + "floor_" + k + "_part_ms"] = med([s[k] - s[floor_steps[i - 1]] for s in floor])
        res[P + "floor_ms"] = med([s[floor_steps[-1]] for s in floor])
        res[P + "floor_main_ms"] = med([s["main"] for s in floor])
        res[P + "first_outcome_p90_ms"] = p90([s[steps[-1]] for s in full])
        res[P + "floor_p90_ms"] = p90([s[floor_steps[-1]] for s in floor])
        res[P + "above_floor_ms"] = round(res[P + "first_outcome_ms"] - res[P + "floor_ms"], 3)
        res[P + "vs_floor_x"] = round(res[P + "first_outcome_ms"] / res[P + "floor_ms"], 3) if res[P + "floor_ms"] > 0 else None
        if c_same:
            res[P + "c_register_ms"] = med([s["register"] - s["load"] for s in c_same])
        res[P + "load_average_1m"] = round(os.getloadavg()[0], 2)
        return res

    res = summary(a.binding, full, a.what)
    for label, _ in also_argv:
        res.update(summary(label, others[label], a.also_what.get(label, "")))
    with open(a.out, "w") as fh:
        json.dump(res, fh, indent=1)
    print(json.dumps(res, indent=1))
    sys.exit(0)

if a.prepare:
    print(json.dumps({"app": app, "bundle": bundle_path, "program": exe}))
    sys.exit(0)


def sample(floor, lib=None):
    # the full program then makes a first asynchronous call, after its first outcome (`async`)
    return run_once([exe, lib or a.lib, app] + (["--floor"] if floor else ["--async"]))


sample(False), sample(True)  # warm the page cache: every sample starts from the same files
for _, path in also:
    sample(False, path)
full, floor = [], []
others = {label: [] for label, _ in also}
for _ in range(a.samples):
    full.append(sample(False))
    floor.append(sample(True))
    for label, path in also:
        others[label].append(sample(False, path))


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
    "coldstart_c_first_async_ms": med([s["async"] - s["call"] for s in full]),
    "coldstart_c_library_ms": med([s["call"] - s["read"] for s in full]),
    "coldstart_c_floor_p90_ms": round(statistics.quantiles([s["read"] for s in floor], n=10)[-1], 3),
    "coldstart_c_first_outcome_p90_ms": round(statistics.quantiles([s["call"] for s in full], n=10)[-1], 3),
    "coldstart_load_average_1m": round(os.getloadavg()[0], 2),
}
res["coldstart_c_above_floor_ms"] = round(res["coldstart_c_first_outcome_ms"] - res["coldstart_c_floor_ms"], 3)
res["coldstart_c_also"] = [label for label, _ in also]
for label, path in also:
    o, P = others[label], f"coldstart_c_{label}_"
    res[P + "library"] = os.path.relpath(path, REPO)
    res[P + "library_bytes"] = os.path.getsize(path)
    res[P + "start_to_main_ms"] = med([s["read"] for s in o])
    res[P + "load_ms"] = med([s["load"] - s["read"] for s in o])
    res[P + "register_ms"] = med([s["register"] - s["load"] for s in o])
    res[P + "first_call_ms"] = med([s["call"] - s["register"] for s in o])
    res[P + "first_async_ms"] = med([s["async"] - s["call"] for s in o])
    res[P + "library_ms"] = med([s["call"] - s["read"] for s in o])
    res[P + "first_outcome_ms"] = med([s["call"] for s in o])
    res[P + "first_outcome_p90_ms"] = round(statistics.quantiles([s["call"] for s in o], n=10)[-1], 3)
    res[P + "above_floor_ms"] = round(res[P + "first_outcome_ms"] - res["coldstart_c_floor_ms"], 3)
with open(a.out, "w") as fh:
    json.dump(res, fh, indent=1)
print(json.dumps(res, indent=1))
