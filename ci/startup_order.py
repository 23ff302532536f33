#!/usr/bin/env python3
"""The shared library's startup order (issue 30): the code a cold start runs, placed together.

A process that starts for one call (Siri or Gemini starting the app for it) runs a few
hundred of the library's functions once: the ABI check, registration, the first call. The
linker scatters them over the whole of `.text` (1.6 MB), so the first run touches nearly every
64 KB of it and faults each piece in (a page fault per 16 pages of the page cache on Linux,
and a read from flash on a phone whose page cache does not hold the library yet).
`link/startup-order.ld` lists them; build.rs hands it to lld, the linker of every
release-profile shared library on x86_64 Linux (Rust's default since 1.90) and on Android (the
NDK's), which then puts them first in `.text`, between the hidden symbols
`__af_startup_start` and `__af_startup_end`. Nothing else changes: the same code, the same size,
one `.text` as before (valgrind and other tools read functions only from a section of that name).

    python3 ci/startup_order.py record     rewrite link/startup-order.ld from this tree's code
    python3 ci/startup_order.py check LIBRARY [--min-coverage F]
                                           how much of what a cold start runs in LIBRARY lies
                                           first in .text (an unstripped library)

`record` builds the release library and the demo, runs benches/coldstart/coldstart.c (the demo's
app of 50 functions: load and ABI check, registration, the first call synchronously and again
through af_execute_async, as the bindings call) under callgrind, three times per build (what
runs varies a little with the threads' timing), and writes a pattern for each function any
of them ran. A pattern is the function's section name with what varies between builds
left open: a legacy symbol's hash (`17h` and 16 hex digits) and a v0 symbol's crate
disambiguators (`Cs..._`), so one list serves every build (features, targets, profiles) whose
code has the same functions. A generic function whose instantiations differ only by that hash
would match all of them: such a pattern is left out when the other instantiations it
would also move weigh more than --max-extra bytes (in the recorded build).

`check` runs the same cold start under callgrind with LIBRARY (unstripped: the release profile's)
and counts the pages of code it runs: how many lie between those two symbols, and how many
64 KB windows they span. It fails below --min-coverage (the part of those pages in the
ordered part; 0.8 unless told), the sign that the list went stale: run `record` again and
commit the file.

Exit: 0 done, 1 failed (or below the coverage), 3 cannot run here (no valgrind)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(REPO, "link", "startup-order.ld")
PAGE, WINDOW = 4096, 65536  # Linux's fault-around maps up to 16 pages of the page cache


def run(argv, **kw):
    r = subprocess.run(argv, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit(f"startup_order: {' '.join(argv)} failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return r.stdout


def cannot(why):
    print(f"\n!!! startup_order: cannot run here: {why}\n", file=sys.stderr)
    sys.exit(3)


def prepare():
    """Builds the demo and compiles the cold-start program; returns (program, app file)."""
    run(["cargo", "build", "-q", "--release", "--example", "demo"], cwd=REPO)
    out = run([sys.executable, os.path.join(REPO, "ci", "bench", "coldstart.py"),
               "--demo", os.path.join(REPO, "target", "release", "examples", "demo"), "--prepare"])
    paths = json.loads(out.strip().splitlines()[-1])
    return paths["program"], paths["app"]


def base_name(symbol):
    """SYMBOL without ThinLTO's `.llvm.N` suffix (a promoted local's), which varies by build."""
    return re.sub(r"\.llvm\.\d+$", "", symbol)


# How many cold starts `record` profiles per build: what runs varies a little with the threads'
# timing (whether the timer thread, started by the first asynchronous call, finds its lock
# free; parking_lot's park and wake paths when not), and one run left that code out as often
# as not, so the list is the union of a few.
RECORD_RUNS = 3


def profile(program, app, lib, runs=1):
    """The functions of LIB a cold start runs (the union of `runs` cold starts): {name:
    instructions}; a name is `0x...` where LIB has no symbol for the code (its PLT, for one)."""
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        cannot("no valgrind (callgrind) on PATH")
    lib = os.path.realpath(lib)
    funcs = {}
    # "  169,668 ( 8.34%)  ???:NAME [/path/lib.so]" (a file's path before the colon when known)
    line_re = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(?:.*?):(\S+?)(?:'\d+)?\s+\[(.+)\]\s*$")
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "callgrind.out")
            run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
                 program, lib, app, "--async"])
            text = run(["callgrind_annotate", "--threshold=100", "--inclusive=no", out])
        seen = {}
        for line in text.splitlines():
            m = line_re.match(line)
            if m and os.path.realpath(m.group(3)) == lib:
                name = base_name(m.group(2))
                seen[name] = seen.get(name, 0) + int(m.group(1).replace(",", ""))
        for name, n in seen.items():
            funcs[name] = max(funcs.get(name, 0), n)
    if not funcs:
        sys.exit(f"startup_order: callgrind saw no code of {lib} run")
    return funcs


def text_symbols(lib):
    """{base name: (address, size)} of LIB's functions (none for a stripped library)."""
    syms = {}
    for line in run(["nm", "-S", "--defined-only", lib]).splitlines():
        p = line.split()
        if len(p) == 3:  # no size: the script's markers
            p = [p[0], "0"] + p[1:]
        if len(p) == 4 and p[2] in "tTwW":
            syms[base_name(p[3])] = (int(p[0], 16), int(p[1], 16))
    return syms


def pattern(name):
    """NAME with what varies between builds left open, as a linker-script glob."""
    name = re.sub(r"17h[0-9a-f]{16}E$", "17h" + "?" * 16 + "E", name)  # legacy symbol hash
    return re.sub(r"Cs[0-9A-Za-z]*_(?=\d)", "Cs*_", name)  # v0 crate disambiguators


# The builds recorded: the release profile (what the dist library is, symbols kept) and the
# Android phone build (profile dist-small at opt-level "z", which inlines differently, so its
# cold start runs functions of its own). The script is their union: a pattern matches nothing
# in a build without that function.
BUILDS = [
    ("release", ["cargo", "build", "-q", "--release", "--lib"], {},
     os.path.join(REPO, "target", "release", "libappfunctions.so")),
    ("phone-android (dist-small)",
     ["cargo", "build", "-q", "--profile", "dist-small", "--lib", "--no-default-features", "--features", "phone-android"],
     {"CARGO_PROFILE_DIST_SMALL_STRIP": "false", "CARGO_TARGET_DIR": os.path.join(REPO, "target", "startup-order")},
     os.path.join(REPO, "target", "startup-order", "dist-small", "libappfunctions.so")),
]


def hot_patterns(name, lib, program, app, max_extra):
    """The patterns of the functions LIB's cold start runs, in LIB's order; and a summary."""
    funcs = profile(program, app, lib, RECORD_RUNS)
    syms = text_symbols(lib)
    hot = sorted((n for n in funcs if n in syms), key=lambda n: syms[n][0])  # the compiler's order
    hot_set = set(hot)
    by_pattern = {}
    for n in syms:
        by_pattern.setdefault(pattern(n), []).append(n)
    kept, dropped, seen = [], [], set()
    for n in hot:
        p = pattern(n)
        if p in seen:
            continue
        seen.add(p)
        extra = sum(syms[m][1] for m in by_pattern[p] if m not in hot_set)  # what the glob also moves
        if extra <= max_extra:
            kept.append(p)
        else:
            dropped.append((p, n, extra))
    kept_set = set(kept)
    summary = {"build": name, "functions": len(hot), "bytes": sum(syms[n][1] for n in hot),
               "kept_bytes": sum(syms[n][1] for n in hot if pattern(n) in kept_set),
               "dropped": dropped, "unnamed": len(funcs) - len(hot)}
    return kept, summary


def record(a):
    program, app = prepare()
    kept, summaries = [], []
    for name, cmd, env, lib in BUILDS:
        run(cmd, cwd=REPO, env={**os.environ, **env})
        patterns, summary = hot_patterns(name, lib, program, app, a.max_extra)
        kept += [p for p in patterns if p not in kept]
        summaries.append(summary)
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    lines = [
        "/* The library's startup order: the functions a cold start runs, first in .text",
        "   (ci/startup_order.py says why; build.rs passes this script to lld for",
        "   release-profile shared libraries on x86_64 Linux and Android).",
        "   Generated by `python3 ci/startup_order.py record` at commit %s: do not edit by hand."
        % commit,
    ] + [
        "   %s: %d functions ran (%d bytes of code), %d bytes of them kept; %d left out because they"
        " would also move other instantiations (over %d bytes)."
        % (m["build"], m["functions"], m["bytes"], m["kept_bytes"], len(m["dropped"]), a.max_extra)
        for m in summaries
    ] + [
        "   %d patterns, the builds' union." % len(kept),
        "   A pattern leaves open a legacy symbol's hash and a v0 symbol's crate disambiguators;",
        "   each is also matched as a cold function (.text.unlikely.) and with ThinLTO's .llvm.N. */",
        "SECTIONS",
        "{",
        "  .text :",
        "  {",
        "    HIDDEN(__af_startup_start = .);",
    ]
    for p in kept:
        lines.append("    *(.text.%s .text.%s.llvm.* .text.unlikely.%s .text.unlikely.%s.llvm.*)" % (p, p, p, p))
    # every other function follows in the same section (lld adds `.text.*` there); the
    # anchor is the read-only section lld puts last before the code
    lines += ["    HIDDEN(__af_startup_end = .);", "  }", "}", "INSERT AFTER .eh_frame;", ""]
    os.makedirs(os.path.dirname(SCRIPT), exist_ok=True)
    with open(SCRIPT, "w") as fh:
        fh.write("\n".join(lines))
    print(f"startup_order: {len(kept)} patterns written to {os.path.relpath(SCRIPT, REPO)}")
    for m in summaries:
        print(f"  {m['build']}: {m['functions']} functions ran ({m['bytes']} bytes), {m['kept_bytes']} bytes kept, "
              f"{m['unnamed']} pieces of code without a symbol")
        for p, n, extra in m["dropped"]:
            print(f"    left out: {n} (would move {extra} more bytes)")


def check(a):
    program, app = prepare()
    lib = a.library
    syms = text_symbols(lib)
    if "__af_startup_start" not in syms or "__af_startup_end" not in syms:
        sys.exit(f"startup_order: {lib} has no __af_startup_start/__af_startup_end: stripped, or built "
                 "without link/startup-order.ld (not a release profile, not lld, or APPFUNCTIONS_STARTUP_ORDER=0)")
    funcs = profile(program, app, lib)
    pages = set()
    for n in funcs:
        if n in syms:
            addr, size = syms[n]
            pages.update(range(addr // PAGE, (addr + max(size, 1) - 1) // PAGE + 1))
        elif n.startswith("0x"):
            pages.add(int(n, 16) // PAGE)  # code without a symbol: its first address
    start, size = syms["__af_startup_start"][0], syms["__af_startup_end"][0] - syms["__af_startup_start"][0]
    inside = {p for p in pages if start // PAGE <= p <= (start + size - 1) // PAGE}
    coverage = len(inside) / len(pages)
    windows = len({p * PAGE // WINDOW for p in pages})
    res = {"library": os.path.relpath(lib, REPO) if lib.startswith(REPO) else lib,
           "ordered_bytes": size, "code_pages_run": len(pages), "pages_in_section": len(inside),
           "coverage": round(coverage, 3), "windows_64k": windows}
    print(json.dumps(res))
    if coverage < a.min_coverage:
        sys.exit(f"startup_order: only {coverage:.0%} of the code pages a cold start runs in {lib} lie in "
                 f"the ordered part of .text (at least {a.min_coverage:.0%} expected): the list is stale; run "
                 "`python3 ci/startup_order.py record` and commit link/startup-order.ld")


ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
sub = ap.add_subparsers(dest="cmd", required=True)
r = sub.add_parser("record", help="rewrite link/startup-order.ld")
r.add_argument("--max-extra", type=int, default=8192,
               help="leave out a pattern that would also move more than this many bytes of other code")
c = sub.add_parser("check", help="how much of a cold start's code lies in the section")
c.add_argument("library")
c.add_argument("--min-coverage", type=float, default=0.8)
args = ap.parse_args()
record(args) if args.cmd == "record" else check(args)
