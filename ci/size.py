#!/usr/bin/env python3
"""What each part of the shipped library costs: the symbol sizes of an unstripped build of
the dist profile (what ci/dist.sh ships, stripped), summed by crate and by module of
appfunctions, and the stripped size of each build ci/dist.sh checks (the full one and the
phone builds, cargo features phone-android and phone-ios), written as the Size section of
docs/performance.md.

    python3 ci/size.py              builds the phone builds, then the full one, with the dist
                                    profile unstripped into target/size-build
                                    (CARGO_PROFILE_DIST_STRIP=false), writes the section
    python3 ci/size.py --so PATH    reads PATH instead of building the full library (an
                                    unstripped libappfunctions.so; the phone builds are
                                    still built, unless --no-phones)
    python3 ci/size.py --print      prints the section instead of writing it

Only the section headed "## Size" is rewritten; ci/bench/report.py owns the rest of the file
and keeps this section as it is. Exit: 0 written, 1 a build or a tool failed."""
import os
import re
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(REPO, "docs", "performance.md")
HEADING = "## Size"
BEFORE = ("## Why the missed targets are missed", "## Chart")  # where a new section goes

# what a part is for, and what cutting it would cost a user
CRATES = {
    "appfunctions": "the crate itself (by module below)",
    "core": "generic code of core instantiated for the crate's types (formatting, iterators, slices, `drop_in_place`, `Option`/`Result`)",
    "alloc": "generic code of alloc instantiated for the crate's types (`Vec`, `String`, `BTreeMap`, `Arc`, `format!`)",
    "std": "std's runtime: threads, mutexes, `HashMap`, I/O, the panic machinery (precompiled: not optimised for size by any setting here)",
    "std's backtrace symbolizer": "gimli, addr2line, rustc_demangle, miniz_oxide: the backtrace std's panic hook prints; precompiled with std, it goes only with a rebuilt std (nightly `-Z build-std`)",
    "serde_json": "every JSON text read and written: descriptors, arguments, outcomes, exports, MCP",
    "serde": "the serialization framework's generic code (serde_json's visitors and derives)",
    "parking_lot": "the registry's and the calls' locks and condition variables",
    "parking_lot_core": "parking_lot's thread parking",
    "schemars": "`descriptor_schema()`: the JSON Schema of descriptors (include/appfunctions.descriptor.schema.json)",
    "indexmap": "serde_json's `preserve_order` maps: a descriptor's keys stay in the app's order",
    "hashbrown": "hash tables (std's `HashMap` and indexmap)",
    "memchr": "byte searches of serde_json",
    "itoa": "integer formatting of serde_json",
    "zmij": "float formatting of serde_json (shortest round trip)",
    "serde_core": "serde's core traits and their generic code",
    "ryu": "float formatting of serde_json",
    "libc": "the C library's declarations",
    "af_* exports": "the C ABI's functions (src/ffi): the `extern \"C\"` entry points",
    "the unwinder (libgcc_eh)": "what unwinds a panic to the ABI's boundary (`_Unwind_*`, the frame tables' search), linked into the library on GNU/Linux (build.rs, `static_unwinder`) as Android's build links LLVM's libunwind, so it needs no `libgcc_s.so.1`",
    "other (C runtime, linker)": "symbols without a Rust path: the C runtime's, the linker's",
}
MODULES = {
    "model": "descriptors, types, schemas, constraints and the `pattern` matcher (ecma_regex: cargo feature `patterns`), binding the arguments, outcomes",
    "engine": "the dispatcher, registry, calls, pipeline, handles, timer, threads, bundles, publication",
    "export": "the export formats: MCP, OpenAI, OpenAI chat, Anthropic, Gemini, Android XML, App Intents Swift",
    "mcp": "the MCP server: sessions, negotiation, tools, subscriptions, stdio (cargo feature `mcp`)",
    "http": "MCP Streamable HTTP and the debug page API (cargo feature `http`)",
    "view": "agent views: visibility, toolkits collapsed and expanded, output tools",
    "platform": "the OS bridges: Android assets and GenericDocument images, App Intents (cargo features `android`, `apple`)",
    "ffi": "the C ABI's Rust side (beyond the `af_*` entry points)",
}
BACKTRACE = ("gimli", "addr2line", "rustc_demangle", "miniz_oxide", "object", "adler2", "adler")

# the builds ci/dist.sh checks: (name, cargo feature arguments, the variable of its budget,
# the profile, whether its relocations are packed as the Android build packs them)
PACK_ANDROID = "-C link-arg=-Wl,--pack-dyn-relocs=android"
TARGET = 1_500_000  # issue 30: the library a phone ships, per ABI
BUILDS = [
    ("full (the default features: everything)", [], "AF_DIST_MAX_SO_BYTES", "dist", False),
    ("Android phone (`phone-android`: android, patterns), as a glibc library", ["--no-default-features", "--features", "phone-android"],
     "AF_DIST_MAX_ANDROID_SO_BYTES", "dist-small", False),
    ("Android phone as Android links it (its relocations packed: APS2, `--pack-dyn-relocs=android`)",
     ["--no-default-features", "--features", "phone-android"], "AF_DIST_MAX_ANDROID_PACKED_SO_BYTES", "dist-small", True),
    ("iOS phone (`phone-ios`: apple, patterns)", ["--no-default-features", "--features", "phone-ios"],
     "AF_DIST_MAX_IOS_SO_BYTES", "dist-small", False),
]


RELR_ROW = ("| regex-syntax at `\"z\"` on the next commit (the Android conversion landed: +41,680) | 2,343,648 | | **taken: today's profile** |\n"
            "| and `-Wl,-z,pack-relative-relocs` (RELR relocations, `.rela.dyn` packed) | 2,272,848 | −70,800 vs the row above | no: a "
            "desktop library would need glibc 2.36 (Ubuntu 22.04 has 2.35) to load; Android packs its own (the phone rows below) |")

# Measured by hand on 2026-12-04 (commit 1544b38): the phone builds' profile.
PHONE_ROWS = [
    "",
    "**The phone builds' profile** (2026-12-04, commit 1544b38, stripped, x86_64-linux; instructions by callgrind, "
    "`benches/instructions.rs` built at the same opt-level, and the cold-start program of `ci/bench/coldstart.py`, "
    "the 50-function app from `dlopen` to its first outcome):", "",
    "| `phone-android` built with | bytes | a warm call (`execute_plain`) | registering 10,000 | MCP demo call | a whole cold start in C | taken |",
    "|---|---|---|---|---|---|---|",
    "| `--profile dist` (opt-level 3) | 1,786,704 | 5,748 | 160 M | 28,077 | 2.04 M | the full build's |",
    "| opt-level `\"s\"` | 1,639,568 | 7,044 | 187 M | 33,840 | | no: half the saving |",
    "| opt-level `\"z\"` (**`--profile dist-small`**) | 1,550,120 | 12,179 | 341 M | 54,151 | 3.84 M | **yes, for the phone builds** |",
    "| `\"z\"` with `-C llvm-args=-inline-threshold=75` | 1,579,704 | 8,303 | 265 M | 38,033 | | no: over 1.5 MB as Android links it |",
    "| `\"z\"`, relocations packed as Android packs them (APS2, `--pack-dyn-relocs=android`, read from API 23) | 1,478,768 | | | | | what Android ships |",
    "| `\"z\"`, RELR (`-z pack-relative-relocs`; glibc 2.36, Android 9 with its own tags) | 1,472,024 | | | | | |",
    "| `phone-ios` at `\"z\"` (**`--profile dist-small`**) | 1,493,824 | | | | | **yes** |",
    "| `\"z\"` with `lto = \"fat\"` | 1,550,104 | | | | | no: −16 bytes |",
    "| `-Wl,--icf=safe` / `--icf=all` (opt-level 3) | 1,786,704 / 1,778,176 | | | | | no: nothing / folds functions whose addresses may be compared |",
    "",
    "A phone's process often starts for one call (Siri or Gemini starts the app for it) and every ABI the app "
    "ships carries the library, so the phone builds trade the warm call's speed for size: `dist-small` doubles "
    "the instructions of a warm call (about 3 µs more on a phone's core per call, against the milliseconds of "
    "the OS's own delivery) and of registration, and in three rounds of 60 cold starts of each library in turn "
    "(load 0.97) the first outcome above the floor took 1.58-2.17 ms with the dist profile's phone library and "
    "1.81-2.12 ms with `dist-small`'s: the extra instructions of a cold start (1.8 M) hide among its page "
    "faults and first-run cache misses. `ci/bench.sh` measures the C cold start with both libraries in the same "
    "samples (the Cold start section).",
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def self_type(name):
    """`<X as Trait>::f` and `<X>::f`: X; anything else as it is."""
    if not name.startswith("<"):
        return name
    depth = 0
    for i, c in enumerate(name):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
            if depth == 0:
                return name[1:i]
        if depth == 1 and name.startswith(" as ", i):
            return name[1:i]
    return name[1:]


def path_of(name):
    """The Rust path a symbol belongs to (the implementing type for trait methods)."""
    for _ in range(8):
        n = self_type(name)
        n = re.sub(r"^(&(mut )?|\*(const|mut) |dyn |\[|\()+", "", n)
        if n == name:
            break
        name = n
    return name


# libgcc_eh's symbols (unwind-dw2.c, unwind-dw2-fde*.c), linked in by build.rs
UNWINDER = re.compile(
    r"^(_Unwind_|__(de)?register_frame|__frame_state_for|uw_|execute_cfa_program|execute_stack_op|"
    r"search_object|linear_search_fdes|classify_object_over_fdes|add_fdes|fde_|frame_(down)?heap|"
    r"get_cie_encoding|init_dwarf_reg_size_table|dwarf_reg_size_table|read_encoded_value|"
    r"(un)?seen_objects|any_objects_registered|object_mutex|once_regsizes|terminator\.|marker\.)"
)


def owner(name):
    """(crate, appfunctions module or None) of a demangled symbol."""
    if name.startswith("af_") and "::" not in name:
        return "af_* exports", None
    p = path_of(name)
    if "::" not in p:
        if UNWINDER.match(name):
            return "the unwinder (libgcc_eh)", None
        return "other (C runtime, linker)", None
    parts = p.split("::")
    crate = parts[0].split("<")[0]
    if crate in BACKTRACE or p.startswith("std::backtrace_rs") or p.startswith("std::sys::backtrace"):
        return "std's backtrace symbolizer", None
    if crate == "appfunctions":
        return crate, (parts[1].split("<")[0] if len(parts) > 2 else "(crate root)")
    return crate, None


def kib(n):
    return f"{n / 1024:,.0f}"


def main():
    args = sys.argv[1:]
    so = args[args.index("--so") + 1] if "--so" in args else None
    build = os.path.join(REPO, "target", "size-build")
    env = dict(os.environ, CARGO_TARGET_DIR=build, CARGO_PROFILE_DIST_STRIP="false")
    built = os.path.join(build, "dist", "libappfunctions.so")

    host = next(l.split(": ", 1)[1] for l in run(["rustc", "-vV"]).splitlines() if l.startswith("host: "))

    def cargo_build(features, profile="dist", packed=False):
        """Builds the library unstripped; returns its path."""
        extra = ["--target", host] if packed else []
        print(f"[size] cargo build --profile {profile} --lib {' '.join(features + extra)}"
              + (f" (RUSTFLAGS={PACK_ANDROID})" if packed else "") + ", unstripped (into target/size-build)",
              file=sys.stderr)
        e = dict(env, **{f"CARGO_PROFILE_{profile.upper().replace('-', '_')}_STRIP": "false"})
        if packed:
            e["RUSTFLAGS"] = PACK_ANDROID
        subprocess.run(["cargo", "build", "--profile", profile, "--lib", "--locked", "-q"] + features + extra,
                       check=True, env=e, cwd=REPO)
        return os.path.join(build, *([host] if packed else []), profile, "libappfunctions.so")

    def stripped_size(path):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "lib.so")
            run(["strip", "--strip-all", "-o", out, path])
            return os.path.getsize(out)

    with open(os.path.join(REPO, "ci", "dist.sh")) as fh:
        dist_sh = fh.read()

    def budget_of(var):
        m = re.search(var + r":-(\d+)", dist_sh)
        return int(m.group(1)) if m else None

    phones = []  # (name, cargo arguments, stripped bytes, budget), built before the full one
    if "--no-phones" not in args:
        for name, features, var, profile, packed in BUILDS[1:]:
            path = cargo_build(features, profile, packed)
            shown = (["--profile", profile] + features + (["--target", host] if packed else [])
                     + ([f'RUSTFLAGS="{PACK_ANDROID}"'] if packed else []))
            phones.append((name, shown, stripped_size(path), budget_of(var)))
    if so is None:
        cargo_build([])
        so = built
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "lib.so")
        run(["strip", "--strip-all", "-o", stripped, so])
        stripped_bytes = os.path.getsize(stripped)
        sections = {}
        for line in run(["readelf", "-SW", stripped]).splitlines():
            m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
            if m:
                sections[m.group(1)] = int(m.group(2), 16)
    by_crate, by_module = {}, {}
    text_syms = 0
    for line in run(["nm", "-S", "--size-sort", "-C", "--defined-only", so]).splitlines():
        f = line.split(" ", 3)
        if len(f) < 4 or f[2] not in "tTwWrRdDbBvV":
            continue
        size, kind, name = int(f[1], 16), f[2], f[3]
        crate, module = owner(name)
        by_crate[crate] = by_crate.get(crate, 0) + size
        if module:
            by_module[module] = by_module.get(module, 0) + size
        if kind in "tTwW":
            text_syms += size
    total_syms = sum(by_crate.values())
    budget = budget_of("AF_DIST_MAX_SO_BYTES")
    rustc = run(["rustc", "--version"]).strip()
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")

    out = [HEADING, "",
           "Generated by `ci/size.py` (not by `ci/bench.sh`, which keeps this section as it is). Issue 30's target "
           "is 1.5 MB for the library a phone ships, per ABI: the phone builds (`phone-android`, `phone-ios`, with "
           "the size-first `dist-small` profile: docs/distribution.md, \"The phone builds\"). The full build, every "
           "part included at opt-level 3 (desktops, servers, the CLI), is the dist profile's: "
           f"**{stripped_bytes:,} bytes ({stripped_bytes / 1e6:.2f} MB)** here"
           + (f", budget {budget:,} bytes" if budget else "") + ". Every size is the stripped library (`ci/dist.sh` "
           f"checks each against its budget). Measured {when}, commit {commit}, {rustc}, x86_64-linux.", "",
           "The builds `ci/dist.sh` checks (the phone builds leave out size-optional parts: docs/distribution.md, "
           "\"Size-optional features\"; every build keeps the whole C ABI):", "",
           "| build | cargo arguments | bytes, stripped | budget | vs the full build | 1.5 MB |", "|---|---|---|---|---|---|",
           f"| {BUILDS[0][0]} | `--profile dist` | {stripped_bytes:,} | " + (f"{budget:,}" if budget else "")
           + " | | (not a phone's) |"]
    for name, shown, size, b in phones:
        out.append(f"| {name} | `{' '.join(shown)}` | {size:,} | " + (f"{b:,}" if b else "")
                   + f" | {size - stripped_bytes:+,} ({(size - stripped_bytes) / stripped_bytes * 100:+.1f}%) | "
                   + ("met" if size <= TARGET else "over" if "glibc" in name else "**over**") + " |")
    if not phones:
        out.append("| (the phone builds: not built in this run, `--no-phones`) | | | | |")
    out += ["", "The rest of this section is the full build.", "",
           "What each part costs: the sizes of the symbols of the same build unstripped (`nm -S -C`), by the "
           "crate a symbol's path names (a trait method counts for the implementing type's crate, so `core` and "
           "`alloc` are their generic code instantiated for this library's types). Symbols cover "
           f"{total_syms / stripped_bytes * 100:.0f}% of the file; the rest is unwind tables "
           f"(`.eh_frame` {kib(sections.get('.eh_frame', 0))} KiB, `.gcc_except_table` "
           f"{kib(sections.get('.gcc_except_table', 0))} KiB: `panic = \"unwind\"`, so no panic crosses the ABI), "
           "string literals without a symbol, relocations and the dynamic symbol table.", "",
           "| crate | KiB | share of symbols | what it is for |", "|---|---|---|---|"]
    for crate, size in sorted(by_crate.items(), key=lambda kv: -kv[1]):
        if size < 4096 and crate not in CRATES:
            continue
        out.append(f"| {crate} | {kib(size)} | {size / total_syms * 100:.1f}% | {CRATES.get(crate, '')} |")
    small = sum(v for k, v in by_crate.items() if v < 4096 and k not in CRATES)
    if small:
        out.append(f"| (other crates under 4 KiB each) | {kib(small)} | {small / total_syms * 100:.1f}% | |")
    out += ["", "appfunctions by module:", "", "| module | KiB | what it is |", "|---|---|---|"]
    for module, size in sorted(by_module.items(), key=lambda kv: -kv[1]):
        out.append(f"| appfunctions::{module} | {kib(size)} | {MODULES.get(module, '')} |")
    out += ["", "Sections of the stripped file: " + ", ".join(
        f"`{k}` {kib(v)} KiB" for k, v in sorted(sections.items(), key=lambda kv: -kv[1]) if v >= 8192) + ".", ""]
    out += NOTES
    text = "\n".join(out)
    if "--print" in args:
        print(text)
        return
    with open(DOC) as fh:
        doc = fh.read().split("\n")
    at = next((i for i, l in enumerate(doc) if l.startswith(HEADING)), None)
    if at is not None:
        end = next((i for i in range(at + 1, len(doc)) if doc[i].startswith("## ")), len(doc))
        doc[at:end] = out
    else:
        end = next((i for i, l in enumerate(doc) if l.startswith(BEFORE)), len(doc))
        doc[end:end] = out
    with open(DOC, "w") as fh:
        fh.write("\n".join(doc))
    print(f"[size] {stripped_bytes:,} bytes stripped; wrote the Size section of docs/performance.md", file=sys.stderr)


# Measured by hand (each a full dist build, stripped size, x86_64-linux, 2026-12-01, on the
# commit before the Android conversion landed): kept true by whoever measures again.
NOTES = [
    "**What was measured** (the stripped dist library, each row a full build, 2026-12-01: commit 3c71d35 up to the "
    "whole-library row, the last two rows on its successor, where the Android conversion had landed):", "",
    "| setting | bytes | vs the profile before | taken |", "|---|---|---|---|",
    "| the dist profile before (thin LTO, opt-level 3, one codegen unit) | 2,343,536 | | |",
    "| `lto = \"fat\"` | 2,343,640 | +104 | no |",
    "| regex-syntax at `opt-level = \"z\"` (it parses patterns only at registration) | 2,301,968 | −41,568 | **yes** |",
    "| and schemars at `\"z\"` (its code is the derives, instantiated in appfunctions) | 2,305,648 | −37,888 | no |",
    "| and regex-automata at `\"s\"`, schemars at `\"z\"` (regex-automata matches patterns at every call of a constrained parameter) | 2,280,992 | −62,544 | no: the call path |",
    "| and `-Wl,--icf=all` (identical code folding) | 2,286,096 | −57,440 | no: folds functions whose addresses Rust code may compare, for 0.7% |",
    "| the whole library at `opt-level = \"s\"` / `\"z\"` (measured before, on 2.26 MB) | 2.10 / 2.03 MB | −7% / −10% | no: the call path at opt-level 3 |",
    RELR_ROW,
] + PHONE_ROWS + [
    "",
    "**The size-optional features** (Cargo.toml `[features]`, docs/distribution.md): each left out alone from "
    "the full build, and the phone builds; stripped dist library, x86_64-linux, 2026-12-01, on commit 64f6a7d "
    "(2,580,536 bytes with everything). Every build keeps the whole C ABI; what a left-out part did answers an "
    "error naming its feature.", "",
    "| build | bytes | vs the full build | what a user of that build loses |", "|---|---|---|---|",
    "| without `patterns` | 2,112,352 | −468,184 (−18.1%) | `pattern` constraints: a descriptor that declares one is refused at registration |",
    "| without `http` | 2,409,680 | −170,856 (−6.6%) | MCP Streamable HTTP and the debug page (`af_http_server_new` answers NULL) |",
    "| without `mcp` (and so `http`) | 2,269,696 | −310,840 (−12.0%) | MCP clients cannot call the app (`af_mcp_*` answer an error) |",
    "| without `android` | 2,457,912 | −122,624 (−4.8%) | Android's AppFunctions calls (`af_android_*` answer `2000`) and the Android asset exports |",
    "| without `apple` | 2,522,424 | −58,112 (−2.3%) | the `swift-app-intents` export (a build step can take it from the full build's `appfunctions export`) |",
    "| none of them (`--no-default-features`) | 1,614,784 | −965,752 (−37.4%) | all of the above |",
    "| `phone-android` (android, patterns) | 2,208,856 | −371,680 (−14.4%) | MCP, HTTP, App Intents |",
    "| `phone-android` and `mcp` | 2,349,176 | −231,360 (−9.0%) | HTTP, App Intents |",
    "| `phone-ios` (apple, patterns) | 2,146,848 | −433,688 (−16.8%) | MCP, HTTP, the Android bridge |",
    "| `android` only | 1,737,608 | −842,928 (−32.7%) | the phone build without pattern constraints |",
    "| `apple` only | 1,678,528 | −902,008 (−35.0%) | the phone build without pattern constraints |",
    "| `phone-android` with regex's PikeVM only (no backtracker, one-pass DFA or inlined loops) | 2,155,104 | −53,752 vs `phone-android` | not taken: 2.4% for slower matching on the call path of every constrained parameter |",
    "",
    "**The core's own matcher** (src/model/ecma_regex.rs, 2026-12-01): the ECMA-262 parse compiled into a small "
    "program (classes as sorted code-point ranges) run by a backtracker with a visited set on short strings and a "
    "Pike VM on long ones, in place of regex-syntax and regex-automata (regex stays a dev-dependency, the "
    "differential test's judge). Stripped dist library, x86_64-linux:", "",
    "| build | with the regex crates | with the core's matcher | saved |", "|---|---|---|---|",
    "| full | 2,580,536 | 2,157,128 | −423,408 |",
    "| `phone-android` | 2,208,856 | 1,785,504 | −423,352 |",
    "| `phone-ios` | 2,146,848 | 1,722,896 | −423,952 |",
    "| `patterns` itself (`phone-android` − `android` only) | 471,248 | 44,704 | |",
    "",
    "The rows above this table were measured with the regex crates. A call with three pattern-constrained "
    "strings (benches: `execute_patterns`, an id, an email and a date) counts 11,796 instructions "
    "against 11,849 with regex (0.996×), beside 5,704 for the same call without the patterns (callgrind, one run).",
    "",
    "**Is 1.5 MB reachable?** For the library a phone ships, yes: the phone builds at `dist-small` are 1.48 MB "
    "(iOS) and 1.47 MB (Android, as Android links it, its unwinder linked in as Android's build links its own; "
    "1.54 MB as a glibc library), with every part a phone uses "
    "kept (the OS bridge, pattern constraints, agent views, every tool-list export). For the full build, no: "
    "what every build keeps is itself above 1.5 MB at opt-level 3 (1.61 MB with every size-optional part left "
    "out), and the full build at `\"z\"` is still 1.84 MB. What else would have to go from the full build, and "
    "what each part costs a user if cut:",
    "",
    "- *Pattern constraints* (`patterns`, 45 KB since the core matches them itself; 468 KB with the regex crates): a "
    "string parameter's `pattern` (ECMA-262, the JSON Schema keyword every export format carries) could not be "
    "declared: each handler would check its own input.",
    "- *The export formats* (`appfunctions::export`): agent views and MCP serve the tool lists (`mcp`, `openai`, "
    "`anthropic`, `gemini`) at run time, in two twin writers (the text one, and the tree one where it declines); "
    "a format cut is an assistant or a model vendor the app's in-app agent cannot reach.",
    "- *The MCP server and HTTP* (`mcp`, `http`): MCP clients could no longer call the app; the phone builds "
    "leave them out.",
    "- *The OS bridges* (`android`, `apple`): a phone build keeps only its own platform's.",
    "- *Unwinding* (`.eh_frame`, `.gcc_except_table`, the landing pads: about 10% of the file): with "
    "`panic = \"abort\"` a bug in the library would end the host app instead of becoming an "
    "`InternalError` outcome: the ABI promises no panic crosses it.",
    "- *std's backtrace symbolizer* (gimli, addr2line, miniz_oxide): only a rebuilt std (nightly "
    "`-Z build-std`) leaves it out; the panic message would lose its backtrace.",
    "",
    "So the full build's budget is its size plus about 2.5% (2,210,000 bytes), the Android phone build's as a "
    "glibc library 1,590,000, and the two phone libraries as their platforms link them are held to the target "
    "itself (1,500,000 bytes: the iOS phone build, and the Android one with its relocations packed): "
    "`ci/dist.sh` fails above them, and a change that grows a library past its budget says why in the commit "
    "that raises it.",
    "",
]

if __name__ == "__main__":
    main()
