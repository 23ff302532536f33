"""Collects the benchmark figures into target/bench/summary.json, writes
docs/performance.md (tables, each target met or missed) and docs/performance.svg (chart.py).

`report.py REPO --timeouts-only` (ci/bench.sh --timeouts-only) merges only
target/bench/timeouts.json into summary.json and rewrites only the timeout rows of the
targets table and the Timeouts section of docs/performance.md: the lateness figures are
milliseconds that a busy machine hardly moves, unlike the nanosecond figures beside them.

`report.py REPO --bindings-only` (ci/bench.sh --bindings-only) merges only
target/bench/bindings.json into summary.json and rewrites only the Bindings section of
docs/performance.md (which says when and at what load it was measured).

`report.py REPO --exports-only` (ci/bench.sh --exports-only) merges only the first export
after registering 10,000 functions (criterion's registry/export_first_10k and
target/bench/instructions_exports.json) into summary.json and rewrites only those rows of
docs/performance.md (the target, the Registry scale row and its note, which says when and
at what load they were measured, the instruction counts) and the missed targets' reasons.

`report.py REPO --coldstart-only` (ci/bench.sh --coldstart-only) merges only
target/bench/coldstart.json (ci/bench/coldstart.py) into summary.json and rewrites only the
cold start row of the targets table and the Cold start section.

The Size section is ci/size.py's: every run here keeps it as it is."""
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone

# One of the modes above or none; anything else (--help included) says how to call it and
# writes nothing, so that a mistyped flag cannot rewrite docs/performance.md as a whole run.
MODES = ("--timeouts-only", "--bindings-only", "--dotnet-only", "--coldstart-only", "--exports-only")
if not 2 <= len(sys.argv) <= 3 or sys.argv[1].startswith("-") or any(a not in MODES for a in sys.argv[2:]):
    sys.exit(f"usage: report.py REPO [{' | '.join(MODES)}]\n\n{__doc__}")
REPO = sys.argv[1]
# criterion's estimates of ci/bench.sh's runs (it sets CRITERION_HOME there), never those of
# a `cargo bench` run by hand (target/criterion)
CRIT = os.environ.get("CRITERION_HOME") or os.path.join(REPO, "target", "bench", "criterion")
OUT = os.path.join(REPO, "target", "bench")


def crit_ns(*path):
    f = os.path.join(CRIT, *path, "new", "estimates.json")
    try:
        with open(f) as fh:
            return json.load(fh)["mean"]["point_estimate"]
    except (OSError, KeyError, ValueError):
        return None


def load(name):
    try:
        with open(os.path.join(OUT, name)) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


suite, mcp, bindings = load("suite.json"), load("mcp.json"), load("bindings.json")
instructions = load("instructions.json")
timeouts = load("timeouts.json")
coldstart = load("coldstart.json")
# the bindings' cold starts (ci/bench/coldstart-*.sh, `coldstart.py --binding`): one file each
for _f in sorted(os.listdir(OUT)) if os.path.isdir(OUT) else []:
    if _f.startswith("coldstart_") and _f.endswith(".json"):
        coldstart.update(load(_f))
# kept with their run's figures, so that a partial run has them: the .NET round trip of the C
# figure's call vs the C figure of the same run, and each binding's cold start registration part
# vs the core's registration of the same descriptors from C (the same cold start run)
if bindings.get("dotnet_execute_c_call_ns") and bindings.get("dotnet_c_execute_plain_ns"):
    bindings["dotnet_execute_c_call_vs_c_x"] = round(bindings["dotnet_execute_c_call_ns"] / bindings["dotnet_c_execute_plain_ns"], 2)
if bindings.get("dotnet_execute_c_call_ns") and bindings.get("dotnet_c_same_process_ns"):
    bindings["dotnet_execute_c_call_vs_c_same_process_x"] = round(
        bindings["dotnet_execute_c_call_ns"] / bindings["dotnet_c_same_process_ns"], 2)
def registration_part(s, P):
    """A binding cold start's registration: its `register` step, and for .NET the `container`
    step before it (`AddAppFunctions()` and the container's build, which the registrations need)."""
    reg = s.get(P + "register_part_ms")
    if reg is None or s.get(P + "container_part_ms") is None:
        return reg
    return round(reg + s[P + "container_part_ms"], 3)


def c_register_key(d, P):
    """The C registration a binding's is divided by: the C program's in the binding's own samples
    (coldstart.py --binding --lib), else the C run's, taken at another moment."""
    return P + "c_register_ms" if d.get(P + "c_register_ms") else "coldstart_c_register_ms"


# every binding's cold-start registration (Swift's, the JVM's, .NET's) beside the core's from C
for _l in sorted({k[len("coldstart_"):-len("_register_part_ms")] for k in coldstart if k.endswith("_register_part_ms")}):
    _reg = registration_part(coldstart, f"coldstart_{_l}_")
    _c = coldstart.get(c_register_key(coldstart, f"coldstart_{_l}_"))
    if _reg is not None and _c:
        coldstart[f"coldstart_{_l}_register_vs_c_x"] = round(_reg / _c, 2)
COLDSTART_BINDINGS = [("dotnet_jit", ".NET (JIT)"), ("dotnet_r2r", ".NET (ReadyToRun)"), ("dotnet_aot", ".NET (NativeAOT)"),
                      ("dotnet_aot_detail", ".NET (NativeAOT), step by step"),
                      ("dotnet_aot_static", ".NET (NativeAOT, the core linked statically)"), ("jvm", "Kotlin on the JVM"),
                      ("jvm_detail", "Kotlin on the JVM, step by step"),
                      ("swift", "Swift")]
s = {}
s["execute_floor_ns"] = crit_ns("execute", "floor_serde_json")
s["execute_typed_floor_ns"] = crit_ns("execute", "floor_typed")
s["async_handoff_floor_ns"] = crit_ns("execute", "async_handoff_floor")
s["execute_plain_ns"] = crit_ns("execute", "plain")
s["execute_two_delegates_ns"] = crit_ns("execute", "two_delegates")
s["execute_two_delegates_entity_ns"] = crit_ns("execute", "two_delegates_entity")
s["execute_async_completion_ns"] = crit_ns("execute", "async_completion")
s["execute_async_inline_ns"] = crit_ns("execute", "async_inline")
s["execute_async_inline_untimed_ns"] = crit_ns("execute", "async_inline_untimed")
s["execute_async_inline_token_ns"] = crit_ns("execute", "async_inline_token")
s["execute_refused_ns"] = crit_ns("execute", "refused")
s["execute_invalid_argument_ns"] = crit_ns("execute", "invalid_argument")
def ratio(key, num, den):
    if s.get(num) and s.get(den):
        s[key] = s[num] / s[den]


ratio("execute_floor_ratio", "execute_plain_ns", "execute_floor_ns")
ratio("execute_typed_floor_ratio", "execute_plain_ns", "execute_typed_floor_ns")
ratio("execute_async_vs_floor_ratio", "execute_async_completion_ns", "async_handoff_floor_ns")
formats = ["mcp", "openai", "openai-chat", "anthropic", "gemini", "android-xml"]
for n, label in [(10, "10"), (1000, "1k"), (10000, "10k")]:
    reg = crit_ns("registry", "register", str(n))
    s[f"register_{label}_ms"] = reg / 1e6 if reg else None
    dr = crit_ns("registry", "drop", str(n))
    s[f"drop_{label}_ms"] = dr / 1e6 if dr else None
    s[f"execute_lookup_{label}_ns"] = crit_ns("registry", "execute_lookup", str(n))
    rj = crit_ns("registry", "registry_json", str(n))
    s[f"registry_json_{label}_ms"] = rj / 1e6 if rj else None
    for f in formats:
        v = crit_ns("registry", f"export_{f}", str(n))
        s[f"export_{f.replace('-', '_')}_{label}_ms"] = v / 1e6 if v else None
s["export_10k_ms"] = max((v for k, v in s.items() if k.startswith("export_") and k.endswith("_10k_ms") and v), default=None)
# the first export in each format after registering 10,000 functions, and the slowest
first = {}
for f in formats:
    v = crit_ns("registry", "export_first_10k", f)
    first[f] = s[f"export_first_10k_{f.replace('-', '_')}_ms"] = v / 1e6 if v else None
s["export_first_10k_ms"] = max((v for v in first.values() if v), default=None)
slowest_first = max((f for f in formats if first[f]), key=lambda f: first[f], default=None)
v = crit_ns("registry", "export_mcp_1k_in_50_toolkits")
s["export_mcp_1k_in_50_toolkits_ms"] = v / 1e6 if v else None
v = crit_ns("registry", "view_tools_1k_expanded")
s["view_tools_1k_expanded_ms"] = v / 1e6 if v else None
ratio("view_tools_vs_export_ratio", "view_tools_1k_expanded_ms", "export_mcp_1k_in_50_toolkits_ms")
for k in ["allocs_per_call", "throughput_1thread_calls_per_s", "throughput_2threads_calls_per_s", "threads2_scaling",
          "throughput_1thread_cpu_ns_per_call", "throughput_2threads_cpu_ns_per_call", "throughput_1thread_on_cpu",
          "throughput_2threads_on_cpu", "threads2_cpu_scaling", "threads2_floor_scaling", "threads2_floor_cpu_scaling",
          "threads2_scaling_vs_floor",
          "rss_growth_kib_per_million", "rss_calls", "mcp_inprocess_us", "mcp_inprocess_trivial_handler_us",
          "paced_rounds", "paced_async_after_short_pause_us", "paced_async_after_long_pause_us",
          "paced_short_pause_ms", "paced_long_pause_ms",
          "register_10k_fresh_process_ms", "register_10k_warm_heap_ms", "register_fresh_samples"]:
    s[k] = suite.get(k)
ratio("paced_long_vs_short_ratio", "paced_async_after_long_pause_us", "paced_async_after_short_pause_us")
s["mcp_stdio_us"] = (mcp.get("ours_stdio") or {}).get("stdio_median_us")
fm = mcp.get("fastmcp") or {}
s["fastmcp_inprocess_us"] = fm.get("fastmcp_inprocess_us")
s["fastmcp_stdio_us"] = (mcp.get("fastmcp_stdio_raw") or {}).get("stdio_median_us") or fm.get("fastmcp_stdio_us")
if s["mcp_inprocess_us"] and s["fastmcp_inprocess_us"]:
    s["mcp_inprocess_vs_fastmcp_x"] = s["fastmcp_inprocess_us"] / s["mcp_inprocess_us"]
if s["mcp_stdio_us"] and s["fastmcp_stdio_us"]:
    s["mcp_stdio_vs_fastmcp_x"] = s["fastmcp_stdio_us"] / s["mcp_stdio_us"]
s.update(timeouts)
s.update(coldstart)
s.update(bindings)
s.update(instructions)
# the same ratios in instruction counts (repeatable where the machine is busy)
ratio("instructions_execute_typed_floor_ratio", "instructions_execute_plain", "instructions_floor_typed")
ratio("instructions_execute_floor_ratio", "instructions_execute_plain", "instructions_floor_value")
ratio("instructions_async_vs_floor_ratio", "instructions_execute_async_completion", "instructions_async_handoff_floor")
ratio("instructions_view_tools_vs_export_ratio", "instructions_view_tools_1k_expanded", "instructions_export_mcp_1k")
ratio("instructions_mcp_demo_vs_trivial_ratio", "instructions_mcp_call_demo", "instructions_mcp_call_trivial")
ratio("instructions_patterns_vs_none_ratio", "instructions_execute_patterns", "instructions_execute_patterns_none")
ratio("mcp_demo_vs_trivial_x", "mcp_inprocess_us", "mcp_inprocess_trivial_handler_us")
if s.get("execute_plain_ns"):
    for key, name in [("kotlin_execute_blocking_ns", "kotlin"), ("kotlin_execute_suspend_ns", "kotlin_suspend"),
                      ("swift_execute_ns", "swift"),
                      ("dotnet_execute_json_ns", "dotnet_json"), ("dotnet_execute_ns", "dotnet")]:
        ratio(f"binding_{name}_vs_c_ratio", key, "execute_plain_ns")
# the Swift round trips beside the C figure of their own run (ci/bench.sh's bindings_bench): the
# blocking call with a raw handler, and the C figure's call itself made through the Swift API
# (create_order, a handler without arguments); the latter also beside the same call made through
# the C ABI in the Swift bench's own process, in the same alternating batches (CFigureLoops.swift:
# one moment's machine for both), and in instructions (callgrind: exact where the wall clock is not)
ratio("binding_swift_blocking_raw_vs_c_same_run_ratio", "swift_execute_blocking_raw_ns", "c_execute_plain_ns")
ratio("binding_swift_figure_vs_c_same_run_ratio", "swift_execute_figure_ns", "c_execute_plain_ns")
ratio("binding_swift_figure_vs_c_same_process_ratio", "swift_execute_figure_ns", "swift_c_same_process_ns")
ratio("binding_swift_figure_vs_c_instructions_ratio", "instructions_swift_figure", "instructions_execute_plain")
# (the Swift cold start's registration beside the core's registration of the same app from C:
# coldstart_swift_register_vs_c_x, made with every binding's above)
# the Swift registration in instructions (callgrind, RegisterOnly's registration step alone), against the core's
# own af_* calls inside it (the same descriptors, byte for byte, the C program registers)
ratio("coldstart_swift_register_vs_core_instructions_ratio", "instructions_swift_register_step_50",
      "instructions_swift_register_step_50_core")
# the JNI floor of one Kotlin round trip: the core's call and a downcall calling back once through
# JNI (af_execute_json, whose outcome the binding's JNI library reads and frees in C, and the
# handler, which answers af_call_return in C)
if s.get("execute_plain_ns") and s.get("kotlin_floor_jni_callback_ns"):
    s["kotlin_jni_floor_ns"] = s["execute_plain_ns"] + s["kotlin_floor_jni_callback_ns"]
    ratio("kotlin_jni_floor_vs_c_ratio", "kotlin_jni_floor_ns", "execute_plain_ns")
# the Kotlin round trips beside the C figure's call run in a C loop of the same JVM, in the thread's
# CPU time (Floor.kt: one moment's machine, the waits for a core left out)
ratio("binding_kotlin_vs_c_same_jvm_cpu_ratio", "kotlin_floor_run_execute_blocking_cpu_ns", "kotlin_c_same_jvm_cpu_ns")
ratio("binding_kotlin_c_call_vs_c_same_jvm_cpu_ratio", "kotlin_c_call_cpu_ns", "kotlin_c_same_jvm_cpu_ns")
ratio("binding_kotlin_suspend_vs_c_same_jvm_cpu_ratio", "kotlin_execute_suspend_cpu_ns", "kotlin_c_same_jvm_cpu_ns")
ratio("binding_kotlin_c_call_vs_c_args_same_jvm_cpu_ratio", "kotlin_c_call_cpu_ns", "kotlin_c_args_same_jvm_cpu_ns")
try:
    load_avg = os.getloadavg()[0]
except OSError:
    load_avg = None
meta = {"when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": platform.machine(),
        "cpus": os.cpu_count(), "load_average_1m_at_report": load_avg,
        "commit": subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()}


def with_last_run(fresh, section):
    """A partial run (--timeouts-only and the like): its fresh figures over those the last full
    run left, and its own metadata under `section` beside that run's."""
    prev = load("summary.json")
    if not prev.get("meta", {}).get("when"):
        # a fresh clone: docs/performance.md's figures are not kept, only the report made of them
        sys.exit(f"ci/bench/report.py: a partial run ({section}) merges its figures into the last full run's "
                 f"{os.path.join(OUT, 'summary.json')}, and there is none here: run ci/bench.sh (or "
                 "ci/bench.sh --bindings) once first. This run's own figures are in "
                 f"{OUT}/ (printed above).")
    figures = dict(prev.get("figures") or {})
    figures.update(fresh)
    return figures, dict(prev.get("meta") or {}, **{section: meta})


TIMEOUTS_ONLY = "--timeouts-only" in sys.argv[2:]
if TIMEOUTS_ONLY:
    s, meta = with_last_run(timeouts, "timeouts")
BINDINGS_ONLY = "--bindings-only" in sys.argv[2:]
if BINDINGS_ONLY:
    # the fresh figures and what is made of them above (the ratios to the C figure of this run)
    s, meta = with_last_run({k: v for k, v in {**bindings, **{k: v for k, v in s.items() if k.startswith(
        ("binding_kotlin", "binding_swift", "kotlin_jni_floor"))}}.items() if v is not None}, "bindings")
DOTNET_ONLY = "--dotnet-only" in sys.argv[2:]
if DOTNET_ONLY:
    s, meta = with_last_run({k: v for k, v in bindings.items() if v is not None}, "dotnet")
COLDSTART_ONLY = "--coldstart-only" in sys.argv[2:]
if COLDSTART_ONLY:
    s, meta = with_last_run(coldstart, "coldstart")
EXPORTS_ONLY = "--exports-only" in sys.argv[2:]
exports_instructions = load("instructions_exports.json") if EXPORTS_ONLY else {}
if EXPORTS_ONLY:
    fresh = {k: v for k, v in s.items() if k.startswith("export_first_10k") and v is not None}
    fresh.update(exports_instructions)
    s, meta = with_last_run(fresh, "exports")
with open(os.path.join(OUT, "summary.json"), "w") as fh:
    json.dump({"meta": meta, "figures": s}, fh, indent=2)


def fmt(v, unit=""):
    if v is None:
        return "not measured"
    if isinstance(v, float):
        v = f"{v:,.2f}" if v < 100 else f"{v:,.0f}"
    elif isinstance(v, int) and not isinstance(v, bool):
        v = f"{v:,}"
    return f"{v}{unit}"


targets = [
    ("plain call", "execute_plain_ns", lambda v: v <= 1000, "≤ 1,000 ns"),
    ("plain call vs the Value floor", "execute_floor_ratio", lambda v: v <= 2.5, "≤ 2.5×"),
    ("plain call vs the typed floor", "execute_typed_floor_ratio", lambda v: v <= 5, "≤ 5×"),
    ("plain call vs the typed floor, in instructions (callgrind)", "instructions_execute_typed_floor_ratio", lambda v: v <= 5, "≤ 5×"),
    ("two delegates", "execute_two_delegates_ns", lambda v: v <= 1500, "≤ 1,500 ns"),
    ("two delegates + entity parameter", "execute_two_delegates_entity_ns", lambda v: v <= 1500, "≤ 1,500 ns"),
    ("completed from another thread vs the hand-off floor", "execute_async_vs_floor_ratio", lambda v: v <= 2, "≤ 2×"),
    ("registering 10,000 functions in a fresh process (an app's one registration: every page it takes faulted in)", "register_10k_fresh_process_ms", lambda v: v <= 25, "≤ 25 ms"),
    ("Android XML export of 10,000 functions", "export_android_xml_10k_ms", lambda v: v <= 50, "≤ 50 ms"),
    ("10,000-function export, slowest format", "export_10k_ms", lambda v: v <= 50, "≤ 50 ms"),
    (f"first export after registering 10,000 functions, slowest format ({slowest_first or 'none measured'})", "export_first_10k_ms", lambda v: v <= 50, "≤ 50 ms"),
    ("view of 1,000 functions, every toolkit of 50 expanded", "view_tools_1k_expanded_ms", lambda v: v <= 2, "≤ 2 ms"),
    ("that view vs the cached export of the same functions", "view_tools_vs_export_ratio", lambda v: v <= 3, "≤ 3×"),
    ("2-thread scaling", "threads2_scaling", lambda v: v >= 1.7, "≥ 1.7×"),
    ("2-thread scaling vs a compute floor's in the same rounds (what the machine's two cores allowed)",
     "threads2_scaling_vs_floor", lambda v: v >= 0.85, "≥ 0.85"),
    ("RSS growth", "rss_growth_kib_per_million", lambda v: v <= 64, "flat (≤ 64 KiB per million calls)"),
    ("MCP tools/call in-process (demo app: its handler and two delegates)", "mcp_inprocess_us", lambda v: v <= 3, "≤ 3 µs"),
    ("MCP tools/call in-process (same tool, trivial handler)", "mcp_inprocess_trivial_handler_us", lambda v: v <= 3, "≤ 3 µs"),
    ("MCP in-process vs the Python SDK server", "mcp_inprocess_vs_fastmcp_x", lambda v: v >= 20, "≥ 20×"),
    ("timeout lateness p99 (host callbacks blocking 0 ms)", "timeout_lateness_p99_ms", lambda v: v <= 10, "≤ 10 ms"),
    ("timeout lateness p99 (every on_invoked blocking 100 ms)", "timeout_lateness_p99_ms_blocking_100ms", lambda v: v <= 10, "≤ 10 ms"),
    ("cold start in C: first outcome above the floor (dlopen, ABI check, 50 registrations, first call)",
     "coldstart_c_above_floor_ms", lambda v: v <= 2, "≤ 2 ms"),
    ("cold start in C with the Android phone library (`phone-android`, profile `dist-small`): first outcome above the floor",
     "coldstart_c_phone_android_above_floor_ms", lambda v: v <= 2, "≤ 2 ms"),
    ("Swift `await execute` of the C figure's call (`create_order` through the Swift API, a handler without arguments answering \"ok\") vs the C figure of the same run",
     "binding_swift_figure_vs_c_same_run_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Swift `await execute` of the C figure's call vs the same call through the C ABI in the same process (alternating batches)",
     "binding_swift_figure_vs_c_same_process_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Swift `await execute` of the C figure's call vs `af_execute_json`, in instructions (callgrind, same run)",
     "binding_swift_figure_vs_c_instructions_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Swift `executeBlocking`, raw JSON handler (the C figure's call) vs the C figure of the same run",
     "binding_swift_blocking_raw_vs_c_same_run_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Swift cold start: registration through the Swift API vs the core's registration from C",
     "coldstart_swift_register_vs_c_x", lambda v: v <= 2, "≤ 2×"),
    ("Swift cold start: registration through the Swift API vs the core's `af_*` calls in it, in instructions (callgrind, the same process)",
     "coldstart_swift_register_vs_core_instructions_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Kotlin round trip vs C (`executeBlockingJson`, trivial handler, same run)", "binding_kotlin_vs_c_ratio",
     lambda v: v <= 2, "≤ 2×"),
    ("Kotlin `suspend` `execute` vs C (same run)", "binding_kotlin_suspend_vs_c_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Kotlin `executeBlockingJson` (trivial handler) vs the C figure's call in a C loop of the same JVM (thread CPU time)",
     "binding_kotlin_vs_c_same_jvm_cpu_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Kotlin `executeBlockingJson` of the C figure's call (`create_order`) vs the same in C, same JVM (thread CPU time)",
     "binding_kotlin_c_call_vs_c_same_jvm_cpu_ratio", lambda v: v <= 2, "≤ 2×"),
    ("Kotlin `suspend` `execute` (trivial handler) vs the C figure's call in C, same JVM (thread CPU time)",
     "binding_kotlin_suspend_vs_c_same_jvm_cpu_ratio", lambda v: v <= 2, "≤ 2×"),
    ("cold start on the JVM: registration vs the core's registration of the same descriptors from C",
     "coldstart_jvm_register_vs_c_x", lambda v: v <= 2, "≤ 2×"),
    ("round trip in .NET: `await Execute` of the C figure's call vs C (`execute/plain`, same run)",
     "dotnet_execute_c_call_vs_c_x", lambda v: v <= 2, "≤ 2×"),
    ("round trip in .NET: `await Execute` of the C figure's call vs the same call in a C loop of the same process (BenchmarkDotNet)",
     "dotnet_execute_c_call_vs_c_same_process_x", lambda v: v <= 2, "≤ 2×"),
    ("realistic call in .NET: `await Execute` with a DI scope and the seed's two delegates (BenchmarkDotNet, ns)",
     "dotnet_execute_realistic_ns", lambda v: v <= 2000, "≤ 2,000 ns"),
    ("cold start in .NET (NativeAOT): process start to the first outcome vs the same AOT program without appfunctions",
     "coldstart_dotnet_aot_vs_floor_x", lambda v: v <= 1.5, "≤ 1.5×"),
    ("cold start in .NET (NativeAOT): registration vs the core's registration of the same descriptors from C",
     "coldstart_dotnet_aot_register_vs_c_x", lambda v: v <= 2, "≤ 2×"),
    ("cold start in .NET (NativeAOT, the core linked statically as on iOS): process start to the first outcome vs the same AOT program without appfunctions",
     "coldstart_dotnet_aot_static_vs_floor_x", lambda v: v <= 1.5, "≤ 1.5×"),
    ("cold start in .NET (NativeAOT, the core linked statically as on iOS): registration vs the core's registration of the same descriptors from C",
     "coldstart_dotnet_aot_static_register_vs_c_x", lambda v: v <= 2, "≤ 2×"),
    ("cold start in .NET (JIT): registration vs the core's registration of the same descriptors from C",
     "coldstart_dotnet_jit_register_vs_c_x", lambda v: v <= 2, "≤ 2×"),
    ("cold start in .NET (ReadyToRun): registration vs the core's registration of the same descriptors from C",
     "coldstart_dotnet_r2r_register_vs_c_x", lambda v: v <= 2, "≤ 2×"),
]


def paced_line(s):
    """Asynchronous calls at an assistant's pace (benches/suite.rs, `paced`)."""
    if s.get("paced_async_after_long_pause_us") is None:
        return "Calls at an assistant's pace: not measured in this run."
    return (f"Calls at an assistant's pace: one `af_execute_async` (the default 30 s timeout, the handler "
            f"answering inline: how the bindings call) after a pause, {fmt(s.get('paced_rounds'))} times after "
            f"{fmt(s.get('paced_short_pause_ms'))} ms and after {fmt(s.get('paced_long_pause_ms'))} ms in turn "
            f"(`benches/suite.rs`, medians): {fmt(s.get('paced_async_after_short_pause_us'))} µs and "
            f"{fmt(s.get('paced_async_after_long_pause_us'))} µs ({fmt(s.get('paced_long_vs_short_ratio'))}×). "
            "Each call finds the caches cold after its pause, so both are above a call in a loop. The call's "
            "deadline goes to the timer thread, which since 2026-12-05 waits a minute without deadlines before "
            "it exits (src/engine/timer.rs, `IDLE_EXIT`); it waited a second before, so each call after a longer "
            "pause started it again: 122 µs against 37 µs after the shorter pause, measured the same way that day.")


def threads_cpu_line(s):
    """The throughput rounds' CPU time and the compute floor beside them."""
    c1, c2 = s.get("throughput_1thread_cpu_ns_per_call"), s.get("throughput_2threads_cpu_ns_per_call")
    o1, o2 = s.get("throughput_1thread_on_cpu"), s.get("throughput_2threads_on_cpu")
    if not all((c1, c2, o1, o2)):
        return ""
    text = (f"The threads' CPU time per call: {fmt(c1)} ns on 1 thread, {fmt(c2)} ns on 2 "
            f"({fmt(s.get('threads2_cpu_scaling'))}× the work per CPU-second on 2 threads), each thread on a CPU "
            f"{o1 * 100:.0f}% (1 thread) and {o2 * 100:.0f}% (2 threads) of the wall clock.")
    if s.get("threads2_floor_scaling"):
        text += (f" In the same rounds a compute floor that shares nothing (a hash of the arguments' bytes on "
                 f"each thread) scaled {fmt(s.get('threads2_floor_scaling'))}× ({fmt(s.get('threads2_floor_cpu_scaling'))}× "
                 f"in CPU time): the calls scaled {fmt(s.get('threads2_scaling_vs_floor'))} of what the machine allowed.")
    return text


def aot_reason(s):
    """Where the dynamic NativeAOT program's time above its floor goes, from the same samples'
    step-by-step run (`--detail`) and the C program's steps."""
    D, A = "coldstart_dotnet_aot_detail_", "coldstart_dotnet_aot_"
    parts = [s.get(D + k) for k in ("main_ms", "assembly_part_ms", "dlopen_part_ms", "load_part_ms",
                                    "container_part_ms", "register_part_ms", "call_part_ms", "above_floor_ms")]
    floor_main, floor, c_load = s.get(A + "floor_main_ms"), s.get(A + "floor_ms"), s.get("coldstart_c_load_ms")
    if not all(p is not None for p in parts) or not floor_main or not floor:
        return ""
    main, assembly, dlopen, rest, container, register, call, above = parts
    text = (f"In this run's samples, step by step (the same program with `--detail`, {fmt(above)} ms above the "
            f"floor there): process start to `main` {fmt(main)} ms against the floor's {fmt(floor_main)} "
            f"(a larger binary to start); the binding's assembly object {fmt(assembly)} ms, which NativeAOT's "
            "binding of the first P/Invoke into any native library asks for (`InteropHelpers.FixupModuleCell` "
            "takes the calling assembly's, the first use of the reflection runtime in this program: any library "
            "loaded at run time through `[DllImport]` or `[LibraryImport]` pays it")
    st_container = s.get("coldstart_dotnet_aot_static_container_part_ms")
    if st_container is not None:
        text += (f"; the statically linked program's direct calls ask for none, and its container step, where the "
                 f"container first reflects over the app's types, takes {fmt(st_container)} ms against "
                 f"{fmt(container)} here: part of that first use moves there")
    text += f"); the library's `dlopen` {fmt(dlopen)} ms"
    if c_load:
        text += f" (the C program's `dlopen` and ABI check: {fmt(c_load)} ms)"
    text += (f"; the resolver, the P/Invoke binding and the ABI check {fmt(rest)} ms; the container "
             f"{fmt(container)} ms, registration {fmt(register)} ms")
    c_register, c_call = s.get(c_register_key(s, "coldstart_dotnet_aot_")), s.get("coldstart_c_first_call_ms")
    if c_register:
        text += f" (C: {fmt(c_register)})"
    text += f", the first call {fmt(call)} ms"
    if c_call:
        text += (f" (C's synchronous `af_execute_json`: {fmt(c_call)}; the binding's asynchronous call starts "
                 "the core's timer thread for the default timeout, and the floor's program does its own "
                 f"first call within its {fmt(round(floor - floor_main, 3))} ms after `main`)")
    return text + ". "


def threads_reason(s):
    """Why the 2-thread scaling was missed, from the same rounds' CPU time and floor."""
    c1, c2 = s.get("throughput_1thread_cpu_ns_per_call"), s.get("throughput_2threads_cpu_ns_per_call")
    o2, floor, rel = s.get("throughput_2threads_on_cpu"), s.get("threads2_floor_scaling"), s.get("threads2_scaling_vs_floor")
    if not all((c1, c2, o2, floor, rel)):
        return ("Measured before the rounds recorded their CPU time and a floor: the wall clock alone cannot "
                "tell contention inside the library from a second core the machine did not give.")
    text = (f"In the same alternating rounds a compute floor that shares nothing between its threads scaled "
            f"{floor:.2f}×, and the calls {rel:.2f} of that; a call took {fmt(c1)} ns of CPU on 1 thread and "
            f"{fmt(c2)} ns on 2, the threads on a CPU {o2 * 100:.0f}% of the wall clock. ")
    if rel >= 0.85:
        text += ("The library scaled as far as the machine let it: the second core (or the first one's sibling "
                 "hyperthread) was busy with another tenant's work. On 2026-12-04 at a load of 1.0 both the "
                 "calls and the floor scaled 1.98-2.01×.")
    else:
        text += ("The calls scaled less than the floor: the threads contended inside the library (a lock or a "
                 "cache line both write); a profile of the two threads (perf c2c) says where.")
    return text


def timeouts_section(s, run):
    out = ["## Timeouts", "",
           f"{fmt(s.get('timeout_lateness_calls'))} asynchronous calls in rounds of 50 started back to back, each with a "
           "20 ms timeout, to a handler that never answers; a telemetry delegate's `on_invoked` blocks 0 ms or 100 ms "
           "in every call (issue 18's scenario; `benches/timeouts.rs`, through the Rust API). *Lateness* runs from the "
           "deadline to the moment host code learns the call timed out (the cancel callback its handler registered "
           "runs); *outcome lateness* runs to the outcome callback, after the call's own `on_invoked`. "
           f"Measured {run.get('when')}, commit {run.get('commit')}, load average {fmt(run.get('load_average_1m_at_report'))}.", "",
           "| host callbacks | lateness median (ms) | lateness p99 (ms) | lateness max (ms) | outcome median (ms) | outcome p99 (ms) | completion threads at peak |",
           "|---|---|---|---|---|---|---|"]
    for label, suf in [("blocking 0 ms", ""), ("`on_invoked` blocking 100 ms", "_blocking_100ms")]:
        out.append(f"| {label} | {fmt(s.get('timeout_lateness_median_ms' + suf))} | {fmt(s.get('timeout_lateness_p99_ms' + suf))} | "
                   f"{fmt(s.get('timeout_lateness_max_ms' + suf))} | {fmt(s.get('timeout_outcome_lateness_median_ms' + suf))} | "
                   f"{fmt(s.get('timeout_outcome_lateness_p99_ms' + suf))} | {fmt(s.get('timeout_completion_threads_peak' + suf))} |")
    out += ["", "Before the timer handed completions to the pool, its one thread ran every timed-out call's "
            "`on_invoked` itself, one after another: with the 100 ms callback the tenth outcome of 50 came after 1.0 s "
            "and the last after 5.0 s. Now the pool grows to one thread per blocked callback (up to 64, "
            "[threads.md](threads.md)), so the 100 ms only delays the call's own outcome. "
            "The p99 is sensitive to the machine: a round of 50 is 2.5% of the calls, so one round held up by "
            "another process (the timer thread or the pool waiting for a core) sets it; on this shared 2-core "
            "machine repeated runs gave 1–6 ms, once 90 ms at a load average of 2.5, while the medians stay "
            "near 0.4 ms.", ""]
    return out





def first_export_row(s):
    return ("| 10,000, first export after registration | | | | | "
            + " | ".join(fmt(s.get(f"export_first_10k_{f.replace('-', '_')}_ms")) for f in formats) + " |")


FIRST_EXPORT_NOTE = "The last row is the first export in each format after registering 10,000 functions"


def first_export_note(s, run):
    """What the first export does, its instructions per function, and when it was measured."""
    per_function = [f"{f} {fmt(round(v / 10000))}" for f in formats
                    if (v := s.get(f"instructions_export_first_10k_{f.replace('-', '_')}"))]
    text = (FIRST_EXPORT_NOTE + " (`registry/export_first_10k`): each entry's tool object or Android "
            "element is written then, straight from its descriptor (a named type's schema once per "
            "export), and kept for the exports after it.")
    if per_function:
        text += (" In instructions per function (callgrind, `export_first_10k_*` over 10,000): "
                 + ", ".join(per_function) + ".")
    text += (f" Measured {run.get('when')}, commit {run.get('commit')}, "
             f"load average {fmt(run.get('load_average_1m_at_report'))}.")
    return text


def dotnet_section(s, run):
    """The .NET round trips (BenchmarkDotNet) beside the C figure of the same run and the same
    functions through AIFunctionFactory; why a target is missed, when one is."""
    ex, fac = s.get("dotnet_execute_ns"), s.get("dotnet_aifunctionfactory_ns")
    exc, facc = s.get("dotnet_execute_c_call_ns"), s.get("dotnet_aifunctionfactory_c_call_ns")
    c = s.get("dotnet_c_execute_plain_ns") or s.get("execute_plain_ns")
    load = s.get("dotnet_load_average_1m")
    def verdict(ok):
        return "met" if ok else "**missed**"
    out = ["## .NET binding (BenchmarkDotNet, same run)", "",
           "Two functions called with the seed's `create_order` arguments and a trivial handler "
           "(`bindings/dotnet/benchmarks`): the seed's `create_order`, which returns its `Order` record "
           "(the core checks the record against its type), and the call the C figure times "
           "(`benches/scenarios.rs`, `execute/plain`: the same three parameters, a string result, a "
           "handler answering `\"ok\"`), so that the ratio to C compares one call with itself. Each "
           "also runs through `AIFunctionFactory.Create(...).InvokeAsync` (the arguments parsed from "
           "the same JSON). The C figure is criterion's `execute/plain` taken just before, and the same call "
           "in a C loop of the BenchmarkDotNet process (`SameCallInC`: `c/same_call.c`, one tool, one moment). The realistic "
           "call (issue 30) is the seed's app as one of its calls feels: `create_order_in_app`, a method of a "
           "class resolved from the call's DI scope with a service its constructor takes, through the seed's "
           "`SignInDelegate` and `TelemetryDelegate` (resolved from the same scope; its `ILogger<T>` from "
           "`AddLogging()` with no provider, so the line's own writing is the provider's cost, not the call's)."
           + (f" Measured {run.get('when')}, commit {run.get('commit')}, load average {fmt(load)} right "
              "after the BenchmarkDotNet run" + (" (a busy shared machine: absolute figures inflated, "
              "compare within the run)." if load >= 1.5 else ".") if load is not None else ""), "",
           "| what | measured | target | |", "|---|---|---|---|",
           f"| `await dispatcher.Execute(...)`, the seed's `create_order` | {fmt(ex)} ns | ≤ 1,500 ns | {verdict(ex <= 1500)} |"]
    if exc:
        out.append(f"| `await dispatcher.Execute(...)`, the C figure's call | {fmt(exc)} ns | ≤ 1,500 ns | {verdict(exc <= 1500)} |")
    if c and exc:
        out.append(f"| the C figure's call vs C (`af_execute_json`, `execute/plain`, {fmt(c)} ns) | {fmt(exc / c)}× | ≤ 2× | {verdict(exc / c <= 2)} |")
    csp = s.get("dotnet_c_same_process_ns")
    if csp and exc:
        out.append(f"| the C figure's call vs the same call in a C loop of the BenchmarkDotNet process "
                   f"(`SameCallInC`, {fmt(csp)} ns) | {fmt(exc / csp)}× | ≤ 2× | {verdict(exc / csp <= 2)} |")
    if c:
        out.append(f"| `create_order` (returns its `Order`) vs the same C figure (a different call) | {fmt(ex / c)}× | | |")
    if fac:
        out.append(f"| `create_order` vs `AIFunctionFactory` of the same method ({fmt(fac)} ns) | {fmt(ex / fac)}× | < 1× | {verdict(ex < fac)} |")
    if exc and facc:
        out.append(f"| the C figure's call vs `AIFunctionFactory` of the same method ({fmt(facc)} ns) | {fmt(exc / facc)}× | < 1× | {verdict(exc < facc)} |")
    out += [f"| `Execute` on a dispatcher without the default 30 s timeout (`create_order`) | {fmt(s.get('dotnet_execute_without_default_timeout_ns'))} ns | | |",
            f"| `ExecuteJson` (blocking, raw outcome JSON; `create_order`) | {fmt(s.get('dotnet_execute_json_ns'))} ns | | |",
            f"| `AsAIFunctions()` tool's `InvokeAsync` (`create_order`) | {fmt(s.get('dotnet_asaifunction_ns'))} ns | | |"]
    real = s.get("dotnet_execute_realistic_ns")
    if real:
        out.append(f"| the realistic call: `await Execute(...)` with a DI scope and the seed's two delegates | {fmt(real)} ns | ≤ 2,000 ns | {verdict(real <= 2000)} |")
    out += [f"| bytes allocated per realistic call (the scope and its services, the call's context and cancellation, the delegates' tasks, the log call's arguments, the request, the `Order`, the outcome) | {fmt(s.get('dotnet_execute_realistic_alloc_bytes'))} | | |",
            f"| bytes allocated per `Execute` of `create_order` (the Task, the outcome, its result's UTF-8, the call, the request, `\"acme\"`, the `Order`) | {fmt(s.get('dotnet_execute_alloc_bytes'))} | | |",
            f"| bytes allocated per `Execute` of the C figure's call | {fmt(s.get('dotnet_execute_c_call_alloc_bytes'))} | | |",
            f"| bytes allocated per `AIFunctionFactory` call (`create_order`) | {fmt(s.get('dotnet_aifunctionfactory_alloc_bytes'))} | | |", ""]
    missed = (ex > 1500 or (exc and exc > 1500) or (c and exc and exc / c > 2) or (real and real > 2000)
              or (fac and ex >= fac) or (exc and facc and exc >= facc))
    if missed:
        out += ["Why a .NET target is missed (measured by the .NET performance work, issue 12):", ""] + [
            "- " + r for r in DOTNET_REASONS] + [""]
    return out


# Measured reasons, printed with the .NET table when one of its targets is missed.
DOTNET_REASONS = [
    "**The C figure moved more than the .NET part.** The call-path work of 2026-11-30 took the C "
    "figure (`execute/plain`) from 469 ns (commit dd01f28, when the same .NET call took 901 ns: "
    "1.92×) to about 322-333 ns (f10b661); the .NET call of the same function went to 839-866 ns. "
    "Then the asynchronous call's own costs were cut in the core and the binding (1236010 and the "
    "string result after it): 866 → 779 ns in one BenchmarkDotNet run at load 1.0-1.2, with "
    "`execute/plain` at 333 ns (2.34×). What the .NET call still adds to the C one, about 450 ns: "
    "the asynchronous form, the handler reading and binding its arguments (the C benchmark's "
    "handler answers `\"ok\"` without reading them), the managed outcome and its `Task`.",
    "**What a call costs on the C side.** `af_execute_async` answering inline "
    "(`execute/async_inline`) costs about 60 ns more than `af_execute_json` (394 vs 333 ns): about "
    "47 ns of it arms the default 30 s deadline on the timer before any host code runs (a handler "
    "blocking inline must be marked timed out on time, docs/threads.md), "
    "`execute/async_inline_untimed` shows the rest. The `Order` result costs about 200-300 ns more "
    "than `\"ok\"` (the core checks the record against its type). Both are in the .NET figures "
    "and in neither C figure.",
    "**What the binding adds** (perf with the runtime's perf map, 2026-12-01): binding the request "
    "record with `Utf8JsonReader` (the largest managed part: about 12% of the call's samples, some "
    "90 ns), writing a record result with `Utf8JsonWriter` (a plain short string result is quoted on "
    "the stack), the UTF-8 copies of the id and the arguments, the outcome, its result's bytes and "
    "its `Task`, and the transitions (into the core, back into the handler, its two reads and its "
    "return, back with the outcome). The core's part of the same call (`af_execute_async` with the "
    "default timeout) is about half of the samples. Issue 30 took out what was per call and not "
    "needed: the pending call and its `GCHandle` are kept by the thread for its next call (96 bytes "
    "and a `GCHandle` allocated and freed less per call), the call's short reads skip the GC "
    "transition, and `OnInvoked` reads only a success's status. In instructions (callgrind, a loop "
    "with the JIT's tiering off) the C figure's call went from 14,398 to 14,127 per call and the "
    "realistic one from 36,133 to 33,778; `execute/async_inline`, the core's share, is about 6,000. "
    "Then the generated binders stopped using `Utf8JsonReader` for the arguments the core writes "
    "(one pass of `ArgumentScanner` over the compact JSON, the reader only for what it does not "
    "expect): 14,167-14,355 -> 12,911-12,995 instructions for the C figure's call, 45,330 -> "
    "40,348 for the realistic one (the same loop and build, commit 5c4280d). What is left of the "
    "managed part (callgrind with the runtime's perf map): the dispatcher's `Run` (the UTF-8 "
    "copies of the id and the arguments, the pending call) about 500 instructions, the outcome's "
    "parse about 220, the scanner about 600, the transitions and stubs of the two callbacks and "
    "four P/Invokes the rest. The realistic call also paid, per call, for the token `OnInvoking` "
    "receives whether it reads it or not: a `CancellationTokenSource`, a `GCHandle`, "
    "`af_call_on_cancel` and, at the call's end, the core's release callback (a transition back "
    "into .NET) freeing the handle; taken out in turn in alternating loops (2026-12-06), the "
    "registration cost about 100 ns and the handle and its release about 70 of a 2,500 ns call. "
    "Since 24f70f3 the token of a call the binding started is connected through the pending call's "
    "cancel slot (no handle, no release: `Interop/CancelSlot.cs`), callbacks made inline on the "
    "thread starting the call find its context without `af_call_invocation_context`, and "
    "`context.Platform` is the invocation's; since 3f0ff8c the core skips the handle look-up "
    "for `af_call_invocation_context` and `af_call_on_cancel` inside the call's own callback: "
    "2,561 -> 2,463 ns in those loops, 30,267 -> 29,682 instructions per realistic call.",
    "**AIFunctionFactory does less.** A reflection-bound method call on arguments the benchmark "
    "already parsed: no native crossing, no validation of arguments or result against a schema, no "
    "delegates, no DI scope, no outcome. For the method returning a string (no record to "
    "serialize) it was the cheaper one (832 vs 866 ns); in the run above it took 802 ns against "
    "the app-function call's 779, which still validates both sides.",
]


def swift_same_process_parts(s):
    """Where the Swift `await execute` goes beyond the C figure, from the loops of one process."""
    swift, c, core = s.get("swift_execute_ns"), s.get("swift_c_same_process_ns"), s.get("swift_c_async_echo_same_process_ns")
    raw, blocking_raw = s.get("swift_execute_raw_ns"), s.get("swift_execute_blocking_raw_ns")
    echo, floor = s.get("swift_c_echo_same_process_ns"), s.get("swift_continuation_floor_ns")
    if not (swift and c and core and raw):
        return ""
    out = (f"The loops of one process, in the same alternating batches (`BenchTests.swift` with "
           f"`CFigureLoops.swift`): the C figure's call through the C ABI {fmt(c)} ns; the core's part of "
           f"`await execute` (the echo through `af_execute_async` with a kept token and the default "
           f"deadline, answered inline, its handler in C) {fmt(core)} ns; `await execute` {fmt(swift)} ns. "
           f"The binding's own part is the difference, {fmt(round(swift - core))} ns "
           f"({fmt(round((swift - core) / c * 100))}% of the C figure): the Codable handler's arguments "
           f"decoded through the `Decoder` protocol {fmt(round(swift - raw))} ns (the same `await` with a "
           f"raw JSON handler: {fmt(raw)} ns), and the raw handler's `await` path over the core's call "
           f"{fmt(round(raw - core))} ns (the task's cancellation record, the `async` frames, the invocation "
           f"handed to C, the arguments and the outcome read: the instruction table's parts"
           + (f"; Swift's own floor, a continuation resumed inline, is {fmt(floor)} ns" if floor else "")
           + f"). Even with no Codable the raw handler's `await` is {fmt(raw / c)}× this C figure. ")
    if blocking_raw and echo:
        out += (f"Without the `async` machinery, `executeBlocking` with the raw handler ({fmt(blocking_raw)} ns) "
                f"is {fmt(round(blocking_raw - echo))} ns over the same echo through `af_execute_json` in C "
                f"({fmt(echo)} ns). ")
    return out


def swift_codable_paragraph(s):
    """Where a Codable handler's call goes beyond the C figure's call made through the same API."""
    typed, figure = s.get("instructions_swift_typed"), s.get("instructions_swift_figure")
    raw, c_i = s.get("instructions_swift_raw"), s.get("instructions_execute_plain")
    parts = swift_same_process_parts(s)
    if not (parts or (typed and figure)):
        return []
    text = ("A Codable handler is not the C figure's call: the Swift rows of the echo (a Codable "
            "handler decoding its one argument into a struct and answering it) time what a typed "
            "handler adds, which a C handler reading nothing does not do. ")
    if typed and figure:
        text += (f"In instructions the echo's `await execute` is {fmt(typed)} against {fmt(figure)} for the "
                 f"C figure's call through the same API"
                 + (f" and {fmt(raw)} for the echo with a raw JSON handler" if raw else "")
                 + (f" ({fmt(round(typed / c_i, 2))}×, {fmt(round(figure / c_i, 2))}× and "
                    f"{fmt(round(raw / c_i, 2))}× `af_execute_json`)" if (raw and c_i) else "")
                 + ": the difference is the arguments read onto the thread's tape and `Echo`'s "
                 "synthesized `init(from:)` through the `Decoder` protocol (its keyed container, the "
                 "generic metadata and witness tables Swift's runtime looks up for it at each call, the "
                 "key found and its value made a `String`). ")
    return ["", text + parts.strip()]


def bindings_section(s, run, only_measured=False):
    """Each binding's round trip beside the C figure of the same run; Kotlin and Swift also through
    an agent view (the model's tool call), their loops taken in turn with execute's."""
    c_ns = s.get("c_execute_plain_ns") or s.get("execute_plain_ns")
    load = s.get("bindings_load_average_1m")
    def vs_c(v):
        return fmt(v / c_ns) + "×" if (v and c_ns) else ""
    out = ["## Bindings", "",
           "Each binding's round trip of the plain call (a trivial handler), measured by its own warmed-up loop "
           "in the same `ci/bench.sh --bindings` run as the C figure "
           f"(`af_execute_json`, plain: {fmt(c_ns)} ns). Kotlin and Swift also run the same call as a model's "
           "tool call through an agent view, their loops taken in turn with execute's so both see the same load "
           "(`bindings/kotlin/src/test/kotlin/dev/appfunctions/bench/Bench.kt`: best of 5 rounds of 200,000 calls each; "
           "`bindings/swift/Tests/AppFunctionsTests/BenchTests.swift`, release: best of alternating batches of "
           "2,000 for a second). A view call does what execute does plus the view's own work (visibility, the "
           "tool name, the confirmation of a void function) and, in the bindings, a read of the view's change "
           "counter after each call."]
    if load is not None:
        # (the loops' own time and commit, recorded by ci/bench.sh, where bindings.json has them:
        # a report regenerated later from the same file keeps them)
        when = s.get("bindings_measured_at") or run.get("when")
        commit = s.get("bindings_commit") or run.get("commit")
        out[-1] += (f" The Kotlin and Swift figures: measured {when}, commit {commit}, "
                    f"load average {fmt(load)} right after their loops"
                    + (" (a busy shared machine: absolute figures inflated, compare within a row)." if load >= 1.5 else "."))
    out += ["", "| binding | what is timed | ns per call | vs C | through an agent view (ns) | vs C |",
            "|---|---|---|---|---|---|"]
    # the Kotlin bench says which callbacks its binding used (Bench.kt: "bench callbacks: jni")
    kotlin = {"jni": "Kotlin (JNI both ways: the binding's libappfunctions_jni)"}.get(s.get("kotlin_callbacks"), "Kotlin")
    # the realistic calls, each beside the same call made in C where the binding's bench runs
    same_call_in_c = {
        "kotlin_realistic_ns": ("kotlin_c_realistic_same_jvm_ns", "same JVM"),
        "kotlin_realistic_suspend_ns": ("kotlin_c_realistic_same_jvm_ns", "same JVM"),
        "swift_execute_realistic_ns": ("swift_c_realistic_same_process_ns", "same process"),
    }
    for label, what, key, view in [
            ("C (Rust calling the C ABI)", "`af_execute_json` + `af_string_free`", "c_execute_plain_ns", None),
            (kotlin, "`executeBlockingJson`, DSL `blockingHandler`", "kotlin_execute_blocking_ns", "kotlin_view_execute_blocking_ns"),
            (kotlin, "`suspend` `execute` in `runBlocking`", "kotlin_execute_suspend_ns", "kotlin_view_execute_suspend_ns"),
            (kotlin, "`executeBlockingJson` of the C figure's call (`create_order`, three arguments, which the DSL copies for its handler and scans and makes into entries when it first reads them)", "kotlin_c_call_ns", None),
            (kotlin, "`executeBlockingJson` of the realistic call (`Realistic.kt`: the seed's `create_order` as an `@AppFunction` method answering its record, its store from the call's scope opened by scope hooks, through the seed's SignIn and Telemetry delegates)", "kotlin_realistic_ns", None),
            (kotlin, "`suspend` `execute` of the realistic call (its calls made from one `runBlocking`)", "kotlin_realistic_suspend_ns", None),
            ("Swift", "`await execute` of the C figure's call: `create_order` declared through the Swift API (three parameters, the enum), its handler taking no arguments (nothing decoded) and answering `\"ok\"` inline, as the C one does (release)", "swift_execute_figure_ns", None),
            ("Swift", "`await execute`, a Codable handler without `await` echoing its one argument (it answers inline; release)", "swift_execute_ns", "swift_view_execute_ns"),
            ("Swift", "`await execute`, the same handler `async` (it runs on a task of its own)", "swift_execute_async_handler_ns", None),
            ("Swift", "`await execute`, a raw JSON handler (`register(descriptorJSON:)`: no Codable, like the C figure's handler)", "swift_execute_raw_ns", None),
            ("Swift", "`executeBlocking` (synchronous code: no task, no async frames), the Codable handler", "swift_execute_blocking_ns", None),
            ("Swift", "`executeBlocking`, the raw JSON handler", "swift_execute_blocking_raw_ns", None),
            ("Swift", "`await execute` of the realistic call (`BenchTests.swift`: scope hooks opening a store the Codable handler reads, the seed's sign-in as an `AppFunctionSynchronousDelegate` reading the function id, its telemetry as a plain `AppFunctionDelegate` implementing only `onInvoked`, reading the id, the platform and the outcome)", "swift_execute_realistic_ns", None),
            ("Swift", "floor: an `async` call awaiting a continuation resumed inline (`withUnsafeContinuation`; `withCheckedContinuation` in the next column)", "swift_continuation_floor_ns", "swift_checked_continuation_floor_ns"),
            ("Swift (the C ABI alone, same process)", "the C figure's call: `af_execute_json` + `af_string_free` of `create_order` from Swift, its handler a `@convention(c)` function (`CFigureLoops.swift`, in the same alternating batches)", "swift_c_same_process_ns", None),
            ("Swift (the C ABI alone, same process)", "the core's part of `executeBlocking`: the echo through `af_execute_json`, its handler in C", "swift_c_echo_same_process_ns", None),
            ("Swift (the C ABI alone, same process)", "the core's part of `await execute`: the echo through `af_execute_async` with a kept cancel token and the default deadline, answered inline", "swift_c_async_echo_same_process_ns", None),
            (".NET (P/Invoke, BenchmarkDotNet)", "`ExecuteJson` (blocking, raw outcome JSON), the seed's `create_order` (returns its `Order`)", "dotnet_execute_json_ns", None),
            (".NET (P/Invoke, BenchmarkDotNet)", "`await Execute(...)`, the seed's `create_order` (returns its `Order`)", "dotnet_execute_ns", None),
            (".NET (P/Invoke, BenchmarkDotNet)", "`await Execute(...)`, the C figure's call (returns `\"ok\"`)", "dotnet_execute_c_call_ns", None)]:
        v = c_ns if key == "c_execute_plain_ns" else s.get(key)
        w = s.get(view) if view else None
        if only_measured and not v:
            continue  # --bindings-only: the other bindings keep their own sections
        if key.startswith("dotnet_") and s.get("dotnet_c_execute_plain_ns") and v:
            # BenchmarkDotNet runs apart from the other bindings: beside its own run's C figure
            out.append(f"| {label} | {what} | {fmt(v)} | {fmt(v / s['dotnet_c_execute_plain_ns'])}× (C {fmt(s['dotnet_c_execute_plain_ns'])} ns in its run) |  |  |")
            continue
        if key in same_call_in_c and v:
            # beside the same realistic call made in C in the bench's own JVM or process, not the
            # plain C figure
            c_key, where = same_call_in_c[key]
            c_r = s.get(c_key)
            out.append(f"| {label} | {what} | {fmt(v)} | "
                       + (f"{fmt(v / c_r)}× (the same call in C, {where}: {fmt(c_r)} ns)" if c_r else "") + " |  |  |")
            continue
        out.append(f"| {label} | {what} | {fmt(v) if v else 'not measured in this run'} | {vs_c(v)} | "
                   f"{fmt(w) if w else ''} | {vs_c(w)} |")
    out += kotlin_floor_table(s, c_ns)
    out += swift_instructions_table(s)
    out += swift_codable_paragraph(s)
    out += ["", "A binding without a figure was not measured in this run: `ci/bench.sh --bindings` runs the "
            "Kotlin, Swift and .NET benchmarks when their toolchains are present (`--dotnet` runs the "
            ".NET one alone, `--bindings-only` the Kotlin and Swift ones and the C figure alone, "
            "`--dotnet-only` the .NET one and the C figure alone).", ""]
    return out

def swift_instructions_table(s):
    """The Swift round trips in instructions (callgrind, exact however busy the machine), beside the
    C calls counted in the same run."""
    if not s.get("instructions_swift_typed"):
        return []
    c_i, a_i = s.get("instructions_execute_plain"), s.get("instructions_execute_async_inline")
    def vs(v):
        return fmt(round(v / c_i, 2)) + "×" if (v and c_i) else ""
    out = ["", "The Swift round trips in instructions per call (callgrind, exact on a busy machine: "
           "`ci/bench/instructions-swift.sh`, the `RoundTrip` program of `bindings/swift/Benchmarks`, release; "
           "the difference of two runs of 2,000 and 4,000 calls over 2,000), beside the C calls counted in "
           f"the same run: `af_execute_json` (`execute_plain`) {fmt(c_i)}, `af_execute_async` answering "
           f"inline with the default timeout {fmt(a_i)}.", "",
           "| Swift | instructions per call | vs `af_execute_json` |", "|---|---|---|"]
    for label, key in [
            ("`await execute` of the C figure's call (`create_order`, a handler without arguments, inline)", "instructions_swift_figure"),
            ("`await execute`, the Codable handler without `await` (inline)", "instructions_swift_typed"),
            ("`await execute`, a raw JSON handler (no Codable)", "instructions_swift_raw"),
            ("`await execute`, the Codable handler `async` (its own task)", "instructions_swift_async"),
            ("`executeBlocking`, the Codable handler", "instructions_swift_blocking"),
            ("`executeBlocking`, the raw JSON handler", "instructions_swift_blocking_raw"),
            ("`await execute`, the Codable handler and one `AppFunctionSynchronousDelegate` (inline)", "instructions_swift_delegate"),
            ("`await execute`, the Codable handler and one `AppFunctionDelegate` implementing `onInvoking` (on a task)", "instructions_swift_async_delegate"),
            ("`await execute`, the Codable handler and one `AppFunctionDelegate` implementing only `onInvoked` (the seed's telemetry; its default `onInvoking` answered inline once learned)", "instructions_swift_telemetry"),
            ("the realistic call: `await execute` of a Codable handler reading its scope, scope hooks, the seed's sign-in as an `AppFunctionSynchronousDelegate` and its telemetry as above", "instructions_swift_realistic")]:
        v = s.get(key)
        if v:
            out.append(f"| {label} | {fmt(v)} | {vs(v)} |")
    per, core = s.get("instructions_swift_register_per_function"), s.get("instructions_register_10k")
    if per:
        line = (f"Registering through the Swift API (`RegisterOnly`, the demo app's functions): {fmt(per)} "
                "instructions per function past the 50th (100 functions against 50)")
        if core:
            line += f", against {fmt(round(core / 10000))} for the core's own registration from C (`register_10k` over 10,000)"
        out += ["", line + f"; the whole process of 50: {fmt(s.get('instructions_swift_register_50'))}."]
        step, step_core = s.get("instructions_swift_register_step_50"), s.get("instructions_swift_register_step_50_core")
        if step and step_core:
            out[-1] += (f" The registration step of 50 alone (`--toggle-collect` on the demo's `registerApp`): "
                        f"{fmt(step)}, of which the core's own `af_*` calls {fmt(step_core)} "
                        f"({fmt(round(step / step_core, 2))}×).")
    return out

def kotlin_floor_table(s, c_ns):
    """What JNI itself costs (Floor.kt, in the Kotlin bench's JVM after its loops), the way the
    binding crosses to C and back: the floors a Kotlin round trip cannot go below, beside the round
    trip again, in wall and in the thread's CPU time."""
    if not s.get("kotlin_floor_jni_callback_ns"):
        return []
    out = ["", "What JNI itself costs, measured in the same JVM right after the loops above "
           "(`bindings/kotlin/src/test/kotlin/dev/appfunctions/bench/Floor.kt` and `bindings/kotlin/src/test/c/floor_jni.c`, the "
           "loops in turn, best of 5 rounds; the thread's CPU time beside the wall clock, which on a loaded "
           "machine also counts the waits for a core). Since issue 30 the binding crosses to C through its own "
           "JNI library only (`libappfunctions_jni`; before, JNA's direct mapping carried the downcalls): a "
           "Kotlin round trip is one JNI downcall (`af_execute_json`, whose outcome the library reads and "
           "frees in C) and one JNI callback (the handler; the library answers `af_call_return` in C).", "",
           "| what is timed | ns per call | CPU ns per call |", "|---|---|---|"]
    for label, key in [("a JNI downcall (`strlen` of 12 bytes)", "kotlin_floor_downcall"),
                       ("a JNI downcall calling back once through JNI (`GetEnv`, `CallStaticVoidMethod` of a cached method id with two pointer arguments, like `af_handler_fn`, as the library's trampolines do)", "kotlin_floor_jni_callback"),
                       ("reading a 12-byte C string into a `ByteArray` made in C and a `String` (how the binding reads the core's lent strings)", "kotlin_floor_get_string"),
                       ("checking the C figure's arguments with the DSL's scanner (what the DSL does when its handler first reads them, and then makes their entries; until the second round of 2026-12-01 before every handler ran; the C handler does neither)", "kotlin_floor_scan_args"),
                       ("parsing the C figure's arguments with kotlinx.serialization (what the DSL did before its handler ran until 2026-12-01; now only for a text its scanner does not expect)", "kotlin_floor_parse_args"),
                       ("`executeBlockingJson`, DSL `blockingHandler`, again beside them", "kotlin_floor_run_execute_blocking")]:
        if not s.get(key + "_ns"):
            continue
        out.append(f"| {label} | {fmt(s.get(key + '_ns'))} | {fmt(s.get(key + '_cpu_ns'))} |")
    jni = s.get("kotlin_floor_jni_callback_ns")
    if c_ns and jni:
        g = c_ns + jni
        out += ["", f"The JNI floor of one round trip: the C figure ({fmt(c_ns)} ns) + a downcall calling back once "
                f"through JNI = {fmt(round(g))} ns, {fmt(g / c_ns)}× the C figure; "
                "the rest of the Kotlin figure above it is the binding's own work (the invocation block, the "
                "handle table, the context, encoding the result, decoding the outcome)."]
    c_cpu = s.get("kotlin_c_same_jvm_cpu_ns")
    if c_cpu:
        def vs(key, base="kotlin_c_same_jvm_cpu_ns"):
            v, b = s.get(key), s.get(base)
            if not v or not b:
                return "not measured"
            return f"{fmt(v)} ns ({fmt(v / b)}×)" if base == "kotlin_c_same_jvm_cpu_ns" else f"{fmt(v / b)}×"
        out += ["", "The same machine at the same moment: the C figure's call (`create_order` with its three arguments, "
                "a C handler answering `\"ok\"`, `af_execute_json` and `af_string_free`, as `benches/execute.rs` "
                f"times it) in a C loop of the Kotlin bench's JVM (`bindings/kotlin/src/test/c/floor_jni.c`) took {fmt(c_cpu)} ns of "
                f"the thread's CPU per call ({fmt(s.get('kotlin_c_same_jvm_ns'))} ns of wall clock). Beside it, in CPU "
                f"time: `executeBlockingJson` with the trivial handler {vs('kotlin_floor_run_execute_blocking_cpu_ns')}, "
                f"the C figure's own call through Kotlin {vs('kotlin_c_call_cpu_ns')}, and `suspend` `execute` "
                f"with the trivial handler {vs('kotlin_execute_suspend_cpu_ns')}. A DSL handler gets its arguments "
                f"read, which the C figure's handler never asks for: the same C loop with its handler reading them "
                f"(`af_call_args`, the bound request) took {fmt(s.get('kotlin_c_args_same_jvm_cpu_ns'))} ns, "
                f"so the Kotlin call is {vs('kotlin_c_call_cpu_ns', 'kotlin_c_args_same_jvm_cpu_ns')} a C handler "
                f"doing that; the DSL's scanner reads them in {fmt(s.get('kotlin_floor_scan_args_cpu_ns'))} ns "
                f"when the handler first reads them (this one never does), where kotlinx.serialization's parse, "
                f"which the DSL made before 2026-12-01, takes {fmt(s.get('kotlin_floor_parse_args_cpu_ns'))} ns."]
        if s.get("kotlin_c_realistic_same_jvm_cpu_ns") and s.get("kotlin_realistic_cpu_ns"):
            out[-1] += (" The realistic call (`Realistic.kt`, the table's rows) made the same way in C in that JVM "
                        "(`floor_jni.c`: the scope hooks attaching host data with a release, SignIn's `on_invoking` "
                        "reading the function id, Telemetry's `on_invoked` reading the id and the platform, the handler "
                        f"reading its arguments and its scope and answering the `Order` record) took "
                        f"{fmt(s['kotlin_c_realistic_same_jvm_cpu_ns'])} ns of CPU; through Kotlin "
                        f"{vs('kotlin_realistic_cpu_ns', 'kotlin_c_realistic_same_jvm_cpu_ns')} that blocking "
                        f"({fmt(s['kotlin_realistic_cpu_ns'])} ns) and "
                        f"{vs('kotlin_realistic_suspend_cpu_ns', 'kotlin_c_realistic_same_jvm_cpu_ns')} with `suspend` "
                        f"`execute` ({fmt(s.get('kotlin_realistic_suspend_cpu_ns'))} ns): five JNI callbacks a call "
                        "(the scope's begin and end, the two delegates, the handler), where the trivial call makes one.")
        if s.get("kotlin_c_ping_same_jvm_cpu_ns") and s.get("kotlin_c_async_ping_same_jvm_cpu_ns"):
            out[-1] += (f" The trivial call itself in C (dsl_ping: no arguments, a handler answering 1) took "
                        f"{fmt(s['kotlin_c_ping_same_jvm_cpu_ns'])} ns through `af_execute_json` and "
                        f"{fmt(s['kotlin_c_async_ping_same_jvm_cpu_ns'])} ns through `af_execute_async` with a kept "
                        "cancel token and the outcome callback answered inline (what the suspend `execute` asks of the core).")
    return out


DOC_PATH = os.path.join(REPO, "docs", "performance.md")
COLDSTART_HEADING = "## Cold start"
SIZE_HEADING = "## Size"


def coldstart_section(s, run):
    """The cold start of a C process (ci/bench/coldstart.py): each part's median beside the floor."""
    out = [COLDSTART_HEADING, ""]
    if s.get("coldstart_c_first_outcome_ms") is None:
        return out + ["The C program was not measured in this run (`ci/bench.sh --coldstart-only` measures it).", ""] \
            + binding_coldstart_tables(s)
    out += ["A fresh process per sample, from the moment its parent starts it to the first outcome, for an app of "
            f"{fmt(s.get('coldstart_declared_functions'))} functions and {fmt(s.get('coldstart_entities'))} entity "
            "(the demo's descriptor bundle, `demo bundle`, and numbered copies of its functions; its metadata "
            "schema, toolkit and types too): `benches/coldstart/coldstart.c` reads the app's descriptors from a file, "
            "loads the library with `dlopen` and checks `af_abi_version`, registers everything, and calls "
            "`create_order`, whose handler answers at once (then, past the first outcome, calls it once more through "
            "`af_execute_async`, as the bindings do: the table's last row). The floor is the same program reading the same file and "
            "not touching the library; the two run in turn, "
            f"{fmt(s.get('coldstart_samples'))} samples each (`ci/bench/coldstart.py`, medians; the parent and the "
            "program read the same monotonic clock). Library: "
            f"`{s.get('coldstart_library')}` ({fmt(s.get('coldstart_library_bytes'))} bytes). "
            f"Measured {run.get('when')}, commit {run.get('commit')}, load average "
            f"{fmt(s.get('coldstart_load_average_1m'))} right after the samples"
            + (" (a busy shared machine: figures inflated, the p90 most)." if (s.get("coldstart_load_average_1m") or 0) >= 1.5 else "."),
            ""]
    also = [l for l in (s.get("coldstart_c_also") or []) if s.get(f"coldstart_c_{l}_first_outcome_ms") is not None]
    if also:
        out += ["Beside it, in the same samples (each run right after the full program and the floor): "
                + "; ".join(f"`{s.get(f'coldstart_c_{l}_library')}` ({fmt(s.get(f'coldstart_c_{l}_library_bytes'))} bytes)"
                            for l in also)
                + ". The Android phone library is what a phone ships (docs/distribution.md, \"The phone builds\": "
                "opt-level `\"z\"`, the MCP server, HTTP and App Intents left out)."
                + (" The unordered library is the dist library linked without the startup order "
                   "(`APPFUNCTIONS_STARTUP_ORDER=0`; docs/distribution.md, \"The startup order\"): "
                   "the functions a cold start runs are first in `.text` in the others, scattered over it in this one."
                   if "unordered" in also else ""), ""]
    names = {"phone_android": "Android phone library (ms)", "unordered": "without the startup order (ms)"}
    out += ["| part | median (ms) |" + "".join(f" {names.get(l, l)} |" for l in also),
            "|---|---|" + "---|" * len(also)]
    for label, key in [("floor: process start to `main`, the app's file read (no library)", "floor_ms"),
                       ("the full program: process start to `main`, the file read", "start_to_main_ms"),
                       ("library load (`dlopen`, its symbols) and ABI check", "load_ms"),
                       ("registration: metadata schema, toolkit, types, entity, 50 functions", "register_ms"),
                       ("first call (`af_execute_json`, the handler answering an `Order`)", "first_call_ms"),
                       ("the library's part (load, ABI check, registration, first call)", "library_ms"),
                       ("**process start to the first outcome**", "first_outcome_ms"),
                       ("**first outcome above the floor** (target ≤ 2 ms)", "above_floor_ms"),
                       ("then, after the first outcome: a first asynchronous call (`af_execute_async`, how the "
                        "bindings call; its default 30 s deadline, the process's first, starts the library's "
                        "timer thread)", "first_async_ms")]:
        cells = [fmt(s.get(f"coldstart_c_{key}"))]
        cells += [fmt(s.get("coldstart_c_floor_ms")) if key == "floor_ms" else fmt(s.get(f"coldstart_c_{l}_{key}"))
                  for l in also]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", f"90th percentiles: floor {fmt(s.get('coldstart_c_floor_p90_ms'))} ms, first outcome "
            f"{fmt(s.get('coldstart_c_first_outcome_p90_ms'))} ms"
            + "".join(f", {names.get(l, l).replace(' (ms)', '')} {fmt(s.get(f'coldstart_c_{l}_first_outcome_p90_ms'))} ms"
                      for l in also) + ".", "",
            ]
    out += binding_coldstart_tables(s)
    return out


def binding_coldstart_tables(s):
    """One table per binding measured by `coldstart.py --binding`: its steps beside its floor."""
    out, missing = [], []
    labels = [l for l, _ in COLDSTART_BINDINGS]
    labels += sorted({k[len("coldstart_"):-len("_steps")] for k in s
                      if k.startswith("coldstart_") and k.endswith("_steps") and not k.endswith("_floor_steps")
                      and k[len("coldstart_"):-len("_steps")] not in labels})
    names = dict(COLDSTART_BINDINGS)
    for label in labels:
        P = f"coldstart_{label}_"
        c_register = s.get(c_register_key(s, P))
        c_where = "in the same samples" if s.get(P + "c_register_ms") else "the C run's"
        steps = s.get(P + "steps")
        name = names.get(label, label)
        if not steps:
            missing.append(name)
            continue
        out += [f"### {name}", "", (s.get(P + "what") or "").strip()
                + f" {fmt(s.get(P + 'samples'))} samples of each program, in turn; load average "
                f"{fmt(s.get(P + 'load_average_1m'))} right after them.", "",
                "| part | median (ms) |", "|---|---|",
                f"| floor: the same program without appfunctions, process start to its end | {fmt(s.get(P + 'floor_ms'))} |"]
        floor_steps = s.get(P + "floor_steps") or []
        for i, k in enumerate(floor_steps[1:] if len(floor_steps) > 2 else []):  # the .NET floors: `container`, `done`
            since = "from `main`" if i == 0 else f"from its `{floor_steps[i]}`"
            out.append(f"| floor: its `{k}` ({since}) | {fmt(s.get(P + 'floor_' + k + '_part_ms'))} |")
        out.append(f"| process start to `main` | {fmt(s.get(P + 'main_ms'))} |")
        for k in steps[1:]:
            out.append(f"| {k} | {fmt(s.get(P + k + '_part_ms'))} |")
        out += [f"| **process start to the first outcome** | {fmt(s.get(P + 'first_outcome_ms'))} |",
                f"| **first outcome above the floor** | {fmt(s.get(P + 'above_floor_ms'))} |",
                f"| first outcome vs the floor | {fmt(s.get(P + 'vs_floor_x'))}× |"]
        reg = registration_part(s, P)
        if reg is not None and c_register:
            both = " (`container` and `register`)" if s.get(P + "container_part_ms") is not None else ""
            out.append(f"| registration{both} vs the core's registration of the same descriptors from C ({fmt(c_register)} ms, {c_where}) "
                       f"| {fmt(round(reg / c_register, 2))}× |")
        floor_container = s.get(P + "floor_container_part_ms")
        before = [s.get(P + k + "_part_ms") for k in ("load", "container", "register")]
        if floor_container is not None and None not in before:
            # The floor builds the app's container too, and a runtime's first uses (its type
            # loads, its first UTF-8 decoding, ...) fall in whichever step comes first, which in
            # the full program is `load`: what appfunctions adds before its first call is the
            # three steps together beside the floor's one.
            out.append(f"| `load`, `container` and `register` above the floor's `container` (what appfunctions adds "
                       f"before its first call) | {fmt(round(sum(before) - floor_container, 3))} |")
            last = floor_steps[-1]
            rest = s.get(P + "floor_" + last + "_part_ms")  # the floor's scope, resolution and direct call
            call = s.get(P + "call_part_ms")
            if None not in (rest, call):
                out.append(f"| `call` above the floor's `{last}` (its scope, resolution and direct call: "
                           f"{fmt(rest)} ms) | {fmt(round(call - rest, 3))} |")
        out += ["", f"90th percentiles: floor {fmt(s.get(P + 'floor_p90_ms'))} ms, first outcome "
                f"{fmt(s.get(P + 'first_outcome_p90_ms'))} ms.", ""]
    if missing:
        out += ["Not measured in this run: " + ", ".join(missing)
                + " (each `ci/bench/coldstart-*.sh` says why when its toolchain is missing).", ""]
    return out


def old_section(heading):
    """The section of the current docs/performance.md under `heading` (up to the next `## `),
    or nothing: what another script owns, carried over by a full run."""
    try:
        doc = read_doc()
    except OSError:
        return []
    at = next((i for i, l in enumerate(doc) if l.startswith(heading)), None)
    if at is None:
        return []
    end = next((i for i in range(at + 1, len(doc)) if doc[i].startswith("## ")), len(doc))
    return doc[at:end]


def read_doc():
    """docs/performance.md as lines, for a partial run to rewrite its own parts."""
    with open(DOC_PATH) as fh:
        return fh.read().split("\n")


def put_section(doc, heading, section, before):
    """The section whose heading starts with `heading` (up to the next `## `) replaced by
    `section`; without one, `section` goes before the first heading starting with one of
    `before` (or at the end)."""
    at = next((i for i, l in enumerate(doc) if l.startswith(heading)), None)
    if at is not None:
        end = next((i for i in range(at + 1, len(doc)) if doc[i].startswith("## ")), len(doc))
        doc[at:end] = section
    else:
        end = next((i for i, l in enumerate(doc) if l.startswith(before)), len(doc))
        doc[end:end] = section


PARTIAL = []


def finish_partial(doc, what, figures):
    """Ends a partial run's rewrite of the doc: written, with the fresh figures printed, once
    the targets' verdicts are known (`write_partial`, below the reasons: a target this run
    measured may have been met or missed before it)."""
    PARTIAL.append((doc, what, figures))


def write_partial():
    """Writes the doc a partial run rewrote, its missed targets' section made again from the
    merged figures, and ends the run."""
    doc, what, figures = PARTIAL[0]
    put_section(doc, MISSED_HEADING, missed_section(), ("## Chart",))
    with open(DOC_PATH, "w") as fh:
        fh.write("\n".join(doc))
    print(f"wrote {what} into target/bench/summary.json and docs/performance.md")
    print(json.dumps(figures, indent=1))
    sys.exit(0)


MISSED_HEADING = "## Why the missed targets are missed"


def rows_of_targets():
    """The Targets table's rows: each target's figure and verdict."""
    out = []
    for name, key, ok, target in targets:
        v = s.get(key)
        verdict = "not measured" if v is None else ("met" if ok(v) else "**missed**")
        out.append(f"| {name} | {fmt(v)} | {target} | {verdict} |")
    return out

if BINDINGS_ONLY:
    doc = read_doc()
    section = bindings_section(s, meta["bindings"], only_measured=True)
    # this run measured no .NET (--dotnet-only does): the .NET rows of the Bindings table stay as
    # they were, with the figures of their own run (the .NET binding section says which)
    if not any(l.startswith("| .NET") for l in section) and "## Bindings" in doc:
        a = doc.index("## Bindings")
        b = next((i for i in range(a + 1, len(doc)) if doc[i].startswith("## ")), len(doc))
        kept = [l for l in doc[a:b] if l.startswith("| .NET")]
        # the end of the section's first table (the round trips), where the .NET rows were
        first = next((i for i, l in enumerate(section) if l.startswith("| ")), None)
        if kept and first is not None:
            end = next((i for i in range(first, len(section)) if not section[i].startswith("|")), len(section))
            section[end:end] = kept
    put_section(doc, "## Bindings", section, ("## .NET binding", MISSED_HEADING))
    # the Kotlin and Swift rows of the Targets table (their keys: binding_*), in place
    fresh_rows = {f"| {name} |": row for (name, key, _, _), row in zip(targets, rows_of_targets())
                  if key.startswith("binding_")}
    doc = [next((r for p, r in fresh_rows.items() if l.startswith(p)), l) for l in doc]
    # a Swift or Kotlin row whose target is no longer in the table (renamed or dropped since the
    # doc's last full run) goes: left, it would keep an old figure under an old label
    def stale(l):
        return (l.startswith(("| Swift ", "| Kotlin "))
                and l.rstrip().endswith(("| met |", "| **missed** |", "| not measured |"))
                and not any(l.startswith(f"| {name} |") for name, _, _, _ in targets))
    doc = [l for l in doc if not stale(l)]
    # a binding row the doc does not have yet (a target added since its last full run): after the
    # row of the target before it
    all_rows = rows_of_targets()
    for i, (name, key, _, _) in enumerate(targets):
        if not key.startswith("binding_") or any(l.startswith(f"| {name} |") for l in doc):
            continue
        before = next((j for k in range(i - 1, -1, -1) for j, l in enumerate(doc)
                       if l.startswith(f"| {targets[k][0]} |")), None)
        if before is not None:
            doc.insert(before + 1, all_rows[i])
    finish_partial(doc, "the bindings' figures", bindings)

if DOTNET_ONLY:
    # the .NET rows of the Bindings table and the .NET section; everything else as it was
    doc = read_doc()
    fresh = bindings_section(s, meta.get("bindings") or {})
    rows = [l for l in fresh if l.startswith("| .NET")]
    note = [l for l in fresh if l.startswith("A binding without a figure")]
    doc = [note[0] if (note and l.startswith("A binding without a figure")) else l for l in doc]
    old = [i for i, l in enumerate(doc) if l.startswith("| .NET")]
    if old:
        doc[old[0]:old[-1] + 1] = rows
    elif "## Bindings" in doc:
        a = doc.index("## Bindings")
        last = max(i for i in range(a, len(doc)) if doc[i].startswith("| ") and all(not doc[j].startswith("## ") for j in range(a + 1, i + 1)))
        doc[last + 1:last + 1] = rows
    put_section(doc, "## .NET binding", dotnet_section(s, meta["dotnet"]), (MISSED_HEADING,))
    # the .NET rows of the Targets table: replaced, or added at the table's end
    dotnet_rows = tuple(f"| {name} |" for name, key, _, _ in targets if key.startswith("dotnet_"))
    new_rows = [r for r in rows_of_targets() if r.startswith(dotnet_rows)]
    doc = [l for l in doc if not l.startswith(dotnet_rows)]
    if "## Targets" in doc:
        at = doc.index("## Targets")
        while not doc[at].startswith("|"):
            at += 1
        while at < len(doc) and doc[at].startswith("|"):
            at += 1
        doc[at:at] = new_rows
    finish_partial(doc, "the .NET figures", bindings)

rows = rows_of_targets()

if COLDSTART_ONLY:
    doc = read_doc()
    # the cold start rows of the Targets table (C and each binding's) whose figure this run
    # measured, each in its place (a new one at the table's end); a row this mode does not
    # measure (the Swift registration in instructions: ci/bench.sh --bindings) keeps the last
    # run's figure instead of turning "not measured"
    names = [f"| {name} |" for name, key, _, _ in targets if key.startswith("coldstart_") and coldstart.get(key) is not None]
    fresh = {n: next(r for r in rows if r.startswith(n)) for n in names}
    placed = set()
    for i, line in enumerate(doc):
        n = next((n for n in names if line.startswith(n)), None)
        if n is not None:
            doc[i] = fresh[n]
            placed.add(n)
    at = doc.index("## Targets")
    while not doc[at].startswith("|"):
        at += 1
    while at < len(doc) and doc[at].startswith("|"):
        at += 1
    doc[at:at] = [fresh[n] for n in names if n not in placed]
    put_section(doc, COLDSTART_HEADING, coldstart_section(s, meta["coldstart"]), (SIZE_HEADING, MISSED_HEADING, "## Chart"))
    finish_partial(doc, "the cold start figures", coldstart)

if TIMEOUTS_ONLY:
    doc = read_doc()
    # the timeout rows of the targets table: replaced, or added at the table's end
    new_rows = [r for r in rows if r.startswith("| timeout lateness")]
    doc = [l for l in doc if not l.startswith("| timeout lateness")]
    at = doc.index("## Targets")
    while not doc[at].startswith("|"):
        at += 1
    while at < len(doc) and doc[at].startswith("|"):
        at += 1
    doc[at:at] = new_rows
    # the Timeouts section: replaced, or added before the Bindings / missed-targets ones
    put_section(doc, "## Timeouts", timeouts_section(s, meta["timeouts"]), ("## Bindings", MISSED_HEADING))
    finish_partial(doc, "the timeout figures", timeouts)

def speed_line():
    """The machine's speed in this run: the plain call's time over its instruction count, both
    of this run. Shared machines differ by several times from one day to the next at the same
    load; a run's absolute figures scale with this, its ratios of like with like (instructions,
    one loop's CPU time beside another's) do not."""
    ns, ins = s.get("execute_plain_ns"), s.get("instructions_execute_plain")
    if not ns or not ins:
        return []
    return ["", f"Machine speed: the plain call took {fmt(ns)} ns for {ins:,} instructions "
            f"({ns / ins:.3f} ns per instruction). Compare it between runs before their absolute figures: "
            "a slower machine inflates every figure in time, and unevenly (criterion's means more than "
            "the bindings' best-of-rounds loops), while the instruction counts stay exact."]


lines = [
    "# Performance",
    "",
    "Generated by `ci/bench.sh` (criterion underneath) — do not edit by hand. Figures are",
    "means on the machine below; ratios compare figures taken in the same run. The",
    "machine is shared: the 1-minute load average at report time is recorded, and a",
    "busy machine inflates absolute figures (ratios hold better).",
    "",
    f"Run: {meta['when']}, commit {meta['commit']}, {meta['cpus']} CPUs ({meta['machine']}), "
    f"load average {fmt(load_avg)}. Raw figures: `target/bench/summary.json`.",
    *speed_line(),
    "",
    "## Targets",
    "",
    "| what | measured | target | |",
    "|---|---|---|---|",
    *rows,
    "",
    "## af_execute_json through the C ABI (called from Rust)",
    "",
    "| form | ns per call |",
    "|---|---|",
]
for label, key in [("Value floor: serde_json parses the arguments into a tree, serialises the outcome from one", "execute_floor_ns"),
                   ("typed floor: serde derives a borrowed struct of the arguments, `write!` of the outcome", "execute_typed_floor_ns"),
                   ("plain: trivial synchronous handler, three arguments", "execute_plain_ns"),
                   ("two allowing delegates", "execute_two_delegates_ns"),
                   ("two delegates and one entity parameter", "execute_two_delegates_entity_ns"),
                   ("`af_execute_async`, the handler answering inline, the outcome callback before it returns (the bindings' asynchronous call)", "execute_async_inline_ns"),
                   ("the same without any timeout (`AF_TIMEOUT_NONE`: no deadline on the timer)", "execute_async_inline_untimed_ns"),
                   ("the same with the default timeout and a cancel token kept for many calls (Kotlin's `suspend` execute and Swift's `await` carry one)", "execute_async_inline_token_ns"),
                   ("completed asynchronously from another thread", "execute_async_completion_ns"),
                   ("hand-off floor: one message to a worker thread and back (an mpsc channel, a parking_lot mutex and condvar)", "async_handoff_floor_ns"),
                   ("refused by a delegate", "execute_refused_ns"),
                   ("invalid argument", "execute_invalid_argument_ns")]:
    lines.append(f"| {label} | {fmt(s.get(key))} |")
lines += ["", f"Allocations per plain call (counting allocator): {fmt(s.get('allocs_per_call'))}.", ""]
if instructions:
    lines += ["## Instruction counts (callgrind)", "",
              "The same scenarios (`benches/scenarios.rs`) counted by `valgrind --tool=callgrind` "
              "(`benches/instructions.rs`, `ci/bench/instructions.py`): repeatable to a fraction of a "
              "percent however busy the machine, unlike the wall-clock figures above. They count work, "
              "not time: no cache misses, no waiting for another thread, so a ratio of counts can differ "
              "from the ratio of times.", "",
              "| scenario | instructions per iteration |", "|---|---|"]
    lines += [f"| {k[len('instructions_'):]} | {fmt(v)} |" for k, v in instructions.items()]
    lines += ["", "Ratios in instructions: plain call vs typed floor "
              f"{fmt(s.get('instructions_execute_typed_floor_ratio'))}×, vs Value floor "
              f"{fmt(s.get('instructions_execute_floor_ratio'))}×; completed from another thread vs the "
              f"hand-off floor {fmt(s.get('instructions_async_vs_floor_ratio'))}×; view vs cached export "
              f"{fmt(s.get('instructions_view_tools_vs_export_ratio'))}×; three pattern-constrained strings "
              f"(an id, an email, a date; the core's own matcher) vs the same call without the patterns "
              f"{fmt(s.get('instructions_patterns_vs_none_ratio'))}× (11,849 vs 5,676 when the regex "
              "crates matched them, 2026-12-01).", ""]
lines += [
          "## Registry scale", "",
          "Registering all the functions into a new dispatcher is timed without dropping it, as the "
          "callgrind row `register_10k` counts it (until 2026-12-05 the criterion figure also held "
          "the drop); dropping that dispatcher, every entry freed, is timed on its own. Both "
          "depend on the state of the allocator's heap the run leaves (glibc here): compare them "
          "within a run. An app registers once, in a fresh process: registering 10,000 functions "
          f"there took {fmt(s.get('register_10k_fresh_process_ms'))} ms, and the same process's second "
          f"registration, its heap warm, {fmt(s.get('register_10k_warm_heap_ms'))} ms "
          f"(`benches/suite.rs`, medians of {fmt(s.get('register_fresh_samples'))} processes; the "
          "target row).", "",
          "| functions | register all (ms) | drop them (ms) | execute one (ns) | registry JSON (ms) | "
          + " | ".join(f"export {f} (ms)" for f in formats) + " |", "|---|---|---|---|---|" + "---|" * len(formats)]
for label, n in [("10", "10"), ("1k", "1,000"), ("10k", "10,000")]:
    lines.append(f"| {n} | {fmt(s.get(f'register_{label}_ms'))} | {fmt(s.get(f'drop_{label}_ms'))} | "
                 f"{fmt(s.get(f'execute_lookup_{label}_ns'))} | "
                 f"{fmt(s.get(f'registry_json_{label}_ms'))} | "
                 + " | ".join(fmt(s.get(f"export_{f.replace('-', '_')}_{label}_ms")) for f in formats) + " |")
lines.append(first_export_row(s))
lines += ["", first_export_note(s, meta)]
lines += ["", f"An agent view of 1,000 functions in 50 toolkits, every toolkit expanded: "
          f"{fmt(s.get('view_tools_1k_expanded_ms'))} ms for its MCP tool list, against "
          f"{fmt(s.get('export_mcp_1k_in_50_toolkits_ms'))} ms for the cached MCP export of the same "
          f"functions ({fmt(s.get('view_tools_vs_export_ratio'))}×)."]
lines += ["", "## Threads and memory", "",
          f"Throughput: {fmt(s.get('throughput_1thread_calls_per_s'))} calls/s on 1 thread, "
          f"{fmt(s.get('throughput_2threads_calls_per_s'))} on 2 (scaling {fmt(s.get('threads2_scaling'))}×; the best of "
          "alternating one-second rounds of each, `benches/suite.rs`). " + threads_cpu_line(s), "",
          f"RSS over {fmt(s.get('rss_calls'))} calls: growth after warm-up {fmt(s.get('rss_growth_kib_per_million'))} KiB per million calls "
          f"(samples: {suite.get('rss_samples_kib')}).", "",
          paced_line(s), "",
          "## MCP", "", "| path | µs per tools/call | instructions (callgrind) |", "|---|---|---|",
          f"| ours, in-process (`Session::handle`, demo app) | {fmt(s.get('mcp_inprocess_us'))} | {fmt(s.get('instructions_mcp_call_demo'))} |",
          f"| ours, in-process, the same tool with a trivial handler and no delegates | {fmt(s.get('mcp_inprocess_trivial_handler_us'))} | {fmt(s.get('instructions_mcp_call_trivial'))} |",
          f"| ours, over stdio (raw JSON-RPC client, demo binary) | {fmt(s.get('mcp_stdio_us'))} | |",
          f"| official Python SDK server (MCPServer, formerly FastMCP), in-process | {fmt(s.get('fastmcp_inprocess_us'))} | |",
          f"| official Python SDK server, over stdio (same raw client) | {fmt(s.get('fastmcp_stdio_us'))} | |",
          "", f"Ratios: in-process {fmt(s.get('mcp_inprocess_vs_fastmcp_x'))}×, over stdio {fmt(s.get('mcp_stdio_vs_fastmcp_x'))}× faster than the peer. "
          f"The demo app's call against the trivial handler's: {fmt(s.get('mcp_demo_vs_trivial_x'))}× in time, "
          f"{fmt(s.get('instructions_mcp_demo_vs_trivial_ratio'))}× in instructions (`benches/scenarios.rs`, `McpCall`: "
          "the same calls in `benches/suite.rs` and in callgrind's `mcp_call_demo`, `mcp_call_trivial`).", ""]
lines += timeouts_section(s, meta.get("timeouts") or meta)
lines += bindings_section(s, meta.get("bindings") or meta)
if s.get("dotnet_execute_ns"):
    lines += dotnet_section(s, meta.get("dotnet") or meta)
def kotlin_c_call_reason(s):
    """Where `create_order` through Kotlin spends its time over the trivial call, from this run's same-JVM loops."""
    text = ("A DSL handler is given its arguments, which the C figure's handler never asks for: the "
            "binding copies the bound request (`af_call_args`; a C handler reading it costs the core nothing "
            "measurable, the Bindings section's C loop beside) through the JNI shim to a per-thread scratch "
            "memory (one JNI crossing, a memcpy: no JNI function called, no array made in C) and into a "
            "`ByteArray` behind the handler's `JsonObject`. Its scanner reads the text and its entries are "
            "made only when the handler first reads them (since 2026-12-01, where kotlinx.serialization "
            "parsed every request first; the check before the handler went in the second round: the core "
            "writes that text itself, compact JSON in UTF-8, so it cannot fail), and this handler never "
            "does. And the call itself costs the core more than the trivial one: three arguments bound and "
            "checked (the trivial call in C beside the C figure's, same JVM).")
    k, kb = s.get("kotlin_c_call_cpu_ns"), s.get("kotlin_floor_run_execute_blocking_cpu_ns")
    c, cp = s.get("kotlin_c_same_jvm_cpu_ns"), s.get("kotlin_c_ping_same_jvm_cpu_ns")
    if all((k, kb, c, cp)):
        rest = (k - kb) - (c - cp)
        text += (f" In this run's CPU time: the Kotlin call is {fmt(round(k - kb))} ns over the trivial one; of that "
                 f"the core's three arguments are {fmt(round(c - cp))} ns, leaving {fmt(round(rest))} ns: the "
                 "request's copy (the shim's crossing to the scratch memory and the `ByteArray`: about 130 ns "
                 "in `bindings/kotlin/src/test/kotlin/dev/appfunctions/bench/ArgsCost.kt`'s steps, 2026-12-01) "
                 "and the `JsonObject` around it, and the noise of two loops of a loaded machine.")
    return text


# Why a target is missed: measured reasons, written where the work goes (callgrind
# profiles of benches/instructions.rs). Printed for the targets missed in this run.
def ratio_text(a, b):
    """'2.08 times' for a and b, or 'beside' when either is missing."""
    return f"{a / b:.2f} times" if a and b else "beside"


# Said of every binding's ratio to the C figure since the core's call got cheaper.
CORE_SMALLER = (
    " Since 24d78c3 (2026-12-06) the core binds compact arguments in normal form by one scan of "
    "their bytes instead of a parse and a rewrite: the C figure's call fell from 5,780 to 4,485 "
    "instructions, and every binding's call by the same work, so a binding's own cost, unchanged, "
    "is a larger multiple of the smaller C figure. Measured the same afternoon (`ci/bench.sh "
    "--bindings-only`, before and after): the C figure 582 -> 473 ns, Kotlin's `suspend` execute "
    "1,180 -> 1,101 ns (2.03 -> 2.33×), Swift's `await execute` 1,382 -> 1,423 ns (2.37 -> 3.01×).")


def async_parts(s):
    """What the core's asynchronous call with a kept token costs beyond the blocking C figure."""
    plain, timed = s.get("execute_plain_ns"), s.get("execute_async_inline_ns")
    untimed, token = s.get("execute_async_inline_untimed_ns"), s.get("execute_async_inline_token_ns")
    if not (plain and timed and untimed and token):
        return ""
    return (f" The core's share of that call is itself above the C figure: this run's criterion "
            f"times the plain call through `af_execute_async` with a kept token (as this binding "
            f"makes it) at {fmt(token)} ns, against {fmt(plain)} ns for the C figure's "
            f"`af_execute_json`. Without a deadline or a token the asynchronous call costs "
            f"{fmt(untimed)} ns; the default deadline, which every asynchronous call arms, adds "
            f"about {fmt(round(timed - untimed))} ns (`async_inline` {fmt(timed)}: a clock read and "
            f"eight atomic instructions, 168 instructions in all), and the token's subscription "
            f"about {fmt(round(token - timed))} ns (its lock taken once and a weak reference made: "
            f"since 2026-12-06 an ended call's entry is taken over by the next call instead of being "
            f"unsubscribed, which took the lock a second time), neither of which the C figure's "
            f"blocking call pays.")


def swift_figure_parts(s):
    """Where the Swift `await execute` of the C figure's call goes beyond that call in C."""
    figure, c = s.get("swift_execute_figure_ns"), s.get("swift_c_same_process_ns")
    echo, core = s.get("swift_c_echo_same_process_ns"), s.get("swift_c_async_echo_same_process_ns")
    ins, c_ins = s.get("instructions_swift_figure"), s.get("instructions_execute_plain")
    if not (figure and c):
        return ""
    out = (f"The same call, the same arguments and a handler that reads none of them, as the C one: "
           f"nothing is decoded, so what is left over the C call ({fmt(c)} ns in this process) is "
           f"the `await` path, {fmt(round(figure - c))} ns. ")
    if echo and core:
        out += (f"Of it the core's own asynchronous call (`af_execute_async` with the kept cancel token "
                f"and the default deadline, against `af_execute_json`: the echo's two C loops, {fmt(core)} "
                f"and {fmt(echo)} ns) is {fmt(round(core - echo))} ns: the token's subscription and the "
                f"deadline's arming, atomic operations more than instructions. ")
    if ins and c_ins:
        out += (f"In instructions the call is {fmt(ins)} against {fmt(c_ins)} "
                f"({fmt(round(ins / c_ins, 2))}×, the instructions row). ")
    out += ("The binding's part, counted 2026-12-06 after that day's cuts (`ROUNDTRIP_MODE=figure`, "
            "callgrind, 7,460 instructions a call): the core's `af_execute_async` about 4,800 of them "
            "(against 4,504 for the blocking call in C), the handler's callback about 540 (the "
            "context, the answer quoted and handed over), the outcome's callback about 370 (the "
            "result made a `String`), the task's cancellation record added and removed about 340 "
            "(the runtime's status record, its allocation and two atomic updates of the task's "
            "status) and the rest of the `await` path about 1,400 (the `async` frames of `execute` "
            "and its caller with their executor hops, the thread's outcome box, the invocation's "
            "strings made C strings). The record is what lets a cancellation of the calling task "
            "reach the core while an inline handler runs (the README's promise, `ExecutePathTests`); "
            "without it the binding would have to poll the task at each callback, which changes "
            "what a cancellation during a delegate or a scope hook does. The same day's cuts, "
            "8,266 -> 7,460 instructions and 1,062 -> 915 ns against 470 in the bench's process: "
            "the context's call facts read when asked (four handle look-ups a call before), no "
            "retain or release of the outcome box, the handler's box or its closure (about ten "
            "atomic updates a call before), a flag for the host context (testing the optional "
            "existential copied it), and the core's token entry taken over by the next call.")
    return out


REASONS = {
    "binding_swift_figure_vs_c_same_process_ratio": swift_figure_parts(s),
    "binding_swift_figure_vs_c_same_run_ratio":
        "The same call in the Swift bench's own process (the row below) is one moment's; this one "
        "divides by criterion's C figure of another minute. " + swift_figure_parts(s),
    "threads2_scaling": threads_reason(s),
    "threads2_scaling_vs_floor": threads_reason(s),
    "binding_kotlin_vs_c_ratio":
        "The Kotlin round trip crosses JNI once each way (the callbacks since 2026-12-01, every "
        "downcall since issue 30 took JNA out): the floor, the C call plus one JNI downcall calling "
        "back once through JNI (about 80 ns of CPU), is about 1.1× the C figure (JNA's callback alone "
        "cost about 540 ns, more than the C call). Above the floor "
        "is the binding's own work: the invocation block, the C string of the id, the handle table's "
        "lookup, the context, the result's encoding, the outcome's decoding into a String. On a "
        "loaded machine this ratio of two runs' wall clocks is noise; the same-JVM row below (the C "
        "call in a C loop beside the Kotlin one, in the thread's CPU time) is one moment's." + CORE_SMALLER,
    "binding_kotlin_suspend_vs_c_ratio":
        "A handler that answers inline is answered without suspending (since 2026-12-01): the JNI "
        "shim's `nativeExecuteAsync` keeps the outcome that comes before `af_execute_async` returns "
        "and answers it (no outcome upcall, no continuation or cancellation hook, no handle table "
        "entry), and the outcome is read by a scanner of the core's fixed shape, its result parsed "
        "on first read. What the suspend form adds to the blocking round trip is "
        "`af_execute_async`'s own work in the core (the call's cancel token attached and detached, "
        "the outcome callback: the trivial call's two C loops in the Bindings section) and the "
        "binding's per-call record and kept token. This ratio compares two runs' wall clocks; the "
        "same-JVM row below is one moment's." + async_parts(s) + CORE_SMALLER,
    "binding_kotlin_suspend_vs_c_same_jvm_cpu_ratio":
        "As the row above says for the wall clock: over the blocking round trip, `af_execute_async`'s "
        "own work in the core (the trivial call in C through `af_execute_async` against "
        "`af_execute_json`, the Bindings section's C loops) and the binding's per-call record and "
        "token; the outcome is no longer parsed by kotlinx.serialization, nor is the caller suspended "
        "when the handler answers inline." + async_parts(s) + CORE_SMALLER,
    "binding_kotlin_c_call_vs_c_same_jvm_cpu_ratio": kotlin_c_call_reason(s) + CORE_SMALLER,
    "coldstart_jvm_register_vs_c_x":
        "The core's share of the JVM's registration is a fraction of a millisecond, as in C; the rest "
        "is the JVM running the DSL and kotlinx.serialization for the first time, in the interpreter "
        "(the step-by-step table: the dispatcher's creation, the types and the first function hold "
        "most of it; the other 49 functions 5-8 ms). No binding change brings an interpreted "
        "first run to a figure set by native code. Phones do not run HotSpot: on Android the "
        "binding's baseline profile (`bindings/kotlin/src/main/baseline-prof.txt`, in the AAR; the "
        "Kotlin README's Android, step 5) has ART compile the classes and methods this path runs "
        "when the app is installed, which only a device build can measure. The library's load is "
        "not part of this ratio: "
        "since issue 30 it is the binding's own JNI library, the core's `dlopen`, its functions "
        "looked up and `RegisterNatives` (`native` and `load` in the step-by-step table: about 25 ms "
        "at a load average of 3.6, against 285 ms for JNA's start, `Native.register` and the check "
        "before it; the Kotlin README's Cold start).",
    "coldstart_swift_register_vs_c_x":
        "In instructions (callgrind, `RegisterOnly`'s registration of the 50 functions alone, "
        "2026-12-05): 1.98 million, of which the core's own `af_*` calls 1.19 million (1.67×; "
        "2.64 million, 2.19×, before the binding's writer, builders and first-use cuts of that day; "
        "3.04 million, 2.54×, before the JSON was first written straight into bytes). Past the 50th "
        "a function costs 26,700 instructions against the core's 16,900 inside it (the descriptor's "
        "JSON about 3,400, the result builders about 1,900, the demo's numbered ids and titles about "
        "1,400); first use is about 0.31 million more, most of it Swift's runtime making type "
        "metadata for what the app's own declarations instantiate through the API (its result and "
        "optional parameter types, the arrays of parameters and fields, its `memberDescriptions`) "
        "and the dynamic loader binding symbols at their first call, which no binding change "
        "removes. The wall clock is a moment's: at a load of 2.9 to 4.1 (2026-12-05, ten rounds, "
        "the program before and after the change in turn with the C one) the C figure swelled to "
        "1.23 ms (0.54 ms on a quiet machine) and the rounds' ratios moved between 1.36× and 2.44× "
        "before (median 1.69×) and between 1.10× and 1.86× after (median 1.49×), the program after "
        "the change the faster in all ten; on a quiet machine the ratio is about the instructions' "
        "(2.52-2.60× at a load of 1.9 on 2026-12-01 beside 2.54× in instructions), the page faults of "
        "code run for the first time included. Since the startup order (8a29c61, docs/distribution.md) "
        "the C figure is smaller by what the library's own code faults cost (the C table's column "
        "without the order, in the same samples): the Swift program loads the same ordered library, "
        "but its registration's wall clock also holds the Swift runtime's first run (libswiftCore's "
        "and Foundation's own pages), which no order of ours reaches, so the same Swift time now "
        "stands against a smaller C one (run of 2026-12-05T17:15: 1.58 ms against 0.75; the "
        "unordered library's C registration took 0.98 there).",
    "coldstart_swift_register_vs_core_instructions_ratio":
        "Measured 2026-12-05 at 1.67× (1.98 million instructions against 1.19 million for the "
        "core's own `af_*` calls in the same step): see the wall-clock row's reason for its parts. "
        "Above 2× means the binding's registration path grew: compare `ci/bench/instructions-swift.sh`'s "
        "register counts with the Swift README's.",
    "coldstart_c_above_floor_ms":
        "See the Cold start section: its parts say where the time went. On a loaded machine the "
        "process start itself (the floor) and the page faults of loading the library grow most.",
    "execute_two_delegates_entity_ns":
        "An entity lookup is a call of its own that goes through the delegates (seed 000: entity "
        "lookups expose app data, so a sign-in gate must see them). On the quiet run of "
        "2026-11-30 the plain call took 635 ns and two delegates 879 ns; the entity parameter "
        "added 1.12 µs: a second call (its scope, a C handle, the two delegates' gates through C, "
        "the lookup handler's answer), the answer checked against the entity type (a parse of the "
        "list, about 3,100 instructions; since 0ef7489, 2026-12-06, one scan of an answer in "
        "normal form: 15,086 -> 13,589 instructions for the call) and spliced into the arguments "
        "(since 2026-12-06 compact arguments holding an entity id are scanned, not parsed, and the "
        "lookup's answer is kept rather than copied, its ids read in place: 13,604 -> 12,219 "
        "instructions, 20 -> 14 allocations). In instructions: 19,543 "
        "against 9,332 for two delegates (callgrind). Skipping any of it would skip what the seed "
        "asks for (the gates see the lookup) or the check of what the host returned. Where the "
        "time goes beyond the instruction count, measured 2026-12-05 (perf, `cpu-clock`, the "
        "scenarios of `benches/instructions.rs` run natively): a blocking call reads the clock at "
        "its start and at every inline answer of a host callback, its deadline's check (docs/"
        "threads.md, \"Timeouts\"): twice for the plain call, four times with two delegates, five "
        "with the entity parameter. Here the clock is kvm-clock read through the vDSO, and those "
        "reads hold 14% of the two-delegate call's samples against 6% of the plain call's "
        "(callgrind counts about 20 instructions for each, valgrind not running the vDSO). The "
        "call also allocated 20 times then (the plain call 3; 23 before the entity paths were "
        "written in place, 2026-12-05; 14 since 2026-12-06): the lookup's own call and its "
        "resolution, the answers copied in, the entity list bound; malloc and free held 11% of "
        "its samples.",
    "execute_typed_floor_ratio":
        "In instructions the call is within the target (5,585 against 1,688: 3.3×, callgrind), "
        "and in time it met it on 2026-11-30 at a load of 1.0 to 1.5 (334 to 346 ns beside a "
        "typed floor of 81 to 86 ns: 4.0 to 4.2×); a busier machine widens the ratio. In time it "
        "costs more per instruction than the floor: the floor is one borrowed parse and "
        "one `write!` with one allocation, no clock and no synchronisation, while a call through "
        "the C ABI also takes a snapshot of the registry (so registration can go on meanwhile), "
        "reads the clock for its deadline, opens a scope the host reaches from any thread through "
        "a generation-checked handle (a slot of the handle table, taken and released under the "
        "slot's lock), hands the handler's answer over through an atomic wait word (the handler "
        "may answer from another thread), checks the result against the declared type, counts "
        "the call in flight (for a draining shutdown) and hands the outcome over as an owned C "
        "string: 14 atomic read-modify-writes and 3 allocations per call (the arguments' "
        "normalised JSON, the call, the result's buffer that becomes the outcome). In a perf profile "
        "of 2026-11-30 the handle table's functions held about 11% of the call's samples and the "
        "clock read 5%; giving handles back without the slot's lock (14 atomics down to 12) did "
        "not change the time measurably, so it was left out. Binding the arguments into the "
        "normalised JSON the handler reads was 43% of the instructions until 24d78c3 (2026-12-06), "
        "which binds compact arguments in normal form by one scan of their bytes (5,780 -> 4,485 "
        "instructions a call).",
    "instructions_execute_typed_floor_ratio":
        "See the row above.",
    "register_10k_fresh_process_ms":
        f"In a fresh process, as an app registers its functions once, this run took "
        f"{fmt(s.get('register_10k_fresh_process_ms'))} ms for the first registration of the 10,000 and "
        f"{fmt(s.get('register_10k_warm_heap_ms'))} ms for the same process's second, after dropping the "
        "first (`benches/suite.rs`, medians of fresh processes): the difference is the memory, "
        "not the work. Registration reads each descriptor straight from its text into small structs "
        "(no JSON tree; a descriptor it declines is parsed into one and walked for the message) and "
        "validates it (every key checked, types resolved, constraints, conditions, placeholders, "
        "defaults bound): about 15,800 instructions per function (callgrind; 37,000 with the tree), "
        "56% of them reading the text (serde_json's string scan and the descriptor's own strings "
        "allocated), 11% the entry and its index slot, 5% binding the default. The memory: a fresh "
        "4 KB page costs 10.3 µs to fault in on this machine (measured 2026-12-05: a nested virtual "
        "machine, where the kernel's fault path shows in perf as `pvm_irq_enable`; bare metal takes "
        "well under 1 µs), and the first 10,000 registrations of a process fault in about 3,200 "
        "pages (`perf stat -e page-faults`; dhat: 984 bytes kept and 1,742 allocated in 15 blocks per "
        "function). Criterion's figure (Registry scale: registration after registration in one "
        "process) lies between the two and moves with what glibc kept of the last iteration: the "
        "same code measured 13.6 and 33 ms there on 2026-12-05, which is why the target row is "
        "the fresh process's. Cut on 2026-12-05: an entry allocates what exports make of it on "
        "first use (760 bytes an entry before, 400 after), a parameter keeps its default in a box "
        "made only when it declares one (176 bytes a parameter before, 88 after), and the index "
        "shares the entry's id instead of a copy (one allocation fewer, 32 bytes): dhat counted "
        "1,194 bytes kept and 1,956 allocated per function before them (1,016 and 1,788 in 17 blocks "
        "before the last).",
    "export_first_10k_ms":
        "Each entry's tool object (Android: its element) is written as text straight from its "
        "descriptor and kept, a named type's schema once per export: 5,900 to 9,300 instructions "
        "per function (callgrind, `export_first_10k_*`; 77,000 to 133,000 when the schemas were "
        "serde_json trees, copied and rewritten per vendor). Beyond that count the time goes to "
        "memory the first export touches for the first time (10,000 kept fragments of 1 to 3 KB, "
        "the list joined in one allocation of its size), which a busy machine slows most: at a "
        "load average of 7.4 the slowest format (Android XML) took 29 ms. When this row is "
        "missed, compare the instruction counts: if they have not grown, the machine was busy.",
    "export_android_xml_10k_ms":
        "See the first export: an entry renders its Android XML element once and keeps it.",
    "export_10k_ms":
        "See the Android XML row.",
    "execute_async_vs_floor_ratio":
        "Besides the hand-off itself, the worker thread drives the rest of the call (the result "
        "checked, the outcome written, the scope closed) before the caller wakes.",
    "dotnet_execute_c_call_vs_c_x":
        "See the .NET binding section: what the binding adds to the core's call, measured. This row "
        "sets a BenchmarkDotNet mean beside criterion's mean taken minutes before it, by another tool "
        "on another moment's machine; the row below compares the same call in a C loop of the "
        "BenchmarkDotNet process, measured by the same tool in the same run.",
    "dotnet_execute_c_call_vs_c_same_process_x":
        "See the .NET binding section: what the binding adds to the core's call (the asynchronous "
        "form, the handler's arguments read and bound, the managed outcome and its `Task`, the "
        "transitions), measured.",
    "dotnet_execute_realistic_ns":
        f"This run: {fmt(s.get('dotnet_execute_realistic_ns'))} ns, "
        f"{ratio_text(s.get('dotnet_execute_realistic_ns'), s.get('dotnet_execute_c_call_ns'))} the "
        "binding's own call of the C figure (`ExecuteSameCallAsC`, "
        f"{fmt(s.get('dotnet_execute_c_call_ns'))} ns). It moves with this machine's speed as that "
        "call does: 2,124 ns against 876 at the run of 2026-12-05 (the plain call 0.079 ns per "
        "instruction; 1,770 and 1,841 ns in that day's two other runs, before 24f70f3), 2,466 "
        "against 1,187 in a `--dotnet-only` run of 2026-12-06 with it (the C figure 575 ns): "
        "compare the machine speed line between runs. Where its time goes (perf "
        "with the runtime's perf map and frame pointers in the core, 2026-12-06 at c3e3c66): the "
        "core's `af_execute_async` about 85% of the samples with the callbacks inside it (the "
        "handler 21%, of which the `Order` written 6% and the core's check of it about 5%; the "
        "delegate's `OnInvoking` 16%; `OnInvoked` 9%; the outcome 6%); the core's own code 39%, "
        "of which its atomic instructions (locks, reference counts) about a third: one costs 8 "
        "to 16 ns on this machine, a lock taken and let go 15 ns; the container's work (the DI "
        "scope made and disposed, the two scoped delegates and the function's class resolved, "
        "its dictionary of resolved services) about 10%; the runtime's transitions into the four "
        "callbacks and its allocations most of the 15% in libcoreclr. The call's deadline (the "
        "30 s default, which every asynchronous call arms and the C figure's blocking call does "
        "not) measured 88 ns in criterion the same day (`execute/async_inline` 521 ns against "
        "`execute/async_inline_untimed` 433 ns, 168 instructions apart: a clock read and eight "
        "atomic instructions). Costs that are gone: the call's token (`OnInvoking` receives one) "
        "about 170 ns until 24f70f3 and 3f0ff8c; an IL stub about 250 ns until 657d728 (the JIT "
        "does not inline a P/Invoke inside a try region, where the generated SafeHandle wrapper "
        "made `af_execute_async`; the .NET binding section); and about 170 ns until c3e3c66 and "
        "47cc617 (alternating loops, min 1,965 -> 1,793 ns): `SignInDelegate`'s "
        "`context.FunctionId` asked the core and decoded a string, the delegates' resolution looked "
        "`typeof` up in shared generic code, `OnInvoked` measured the outcome's length, "
        "`af_call_args` went through an IL stub, the context took a lock at its end, and the "
        "core took the host data's lock and allocated a list for the token's one cancel callback.",
    "coldstart_dotnet_aot_vs_floor_x": aot_reason(s) +
        "Most of the difference is page faults, which cost 10-16 µs each on this machine (a nested "
        "virtual machine; a 16-page `mmap` and its faults took 265 µs): measured 2026-12-05 at "
        "d8a3818 (`perf stat -e page-faults`, 30 starts each), the full program faulted in 423 pages "
        "against the floor's 262; by where they happened (`perf record -e page-faults`): the binary's "
        "data rehydrated at start 112 against 79 (its size), the dynamic loader 66 against 54 and "
        "`dlopen` 8 (the library mapped and relocated), the library's code 26 (its first run "
        "touched 20 of the 64 KB pieces of its `.text`), the core's heap about 25, the managed "
        "allocations of the binding and the container about 36. The startup order (8a29c61: "
        "the functions a cold start runs first in `.text`, docs/distribution.md) cut the library's "
        "code to 8 pieces; the C table above measures what it saves in the same samples "
        "(the unordered library). "
        "Measured with perf over 150 NativeAOT starts and coldstart.py's samples (2026-12-01, after "
        "the core's handle table stopped making 640 KiB at the first call, 9b2a86e; load 1.8-4.2): "
        "2.63 ms to the first outcome against the floor's 1.72 ms (1.53×). The floor is a small "
        "program, most of it the runtime's own start (the binary's data rehydrated, the GC heap "
        "made). Beside it the full program spends: to `main` about 0.1 ms more (a 3.1 MB binary "
        "against 2.2 MB: appfunctions, System.Text.Json and the generated code of 50 functions, "
        "more data to rehydrate); the library load 0.35 ms against the C program's 0.18 (dlopen of "
        "the same library, NativeAOT's lazy P/Invoke binding, and the resolver: "
        "`NativeLibrary.SetDllImportResolver` needs the assembly's reflection object, about 60 µs "
        "to make in NativeAOT; installing the resolver only when the runtime's own probing fails "
        "was tried and measured slower, because that probing first tries `appfunctions.so` in every "
        "system library directory); registration 0.33 ms against C's 0.28 (the core's own work is "
        "most of it); the first call 0.14 ms against C's 0.02 (the function's class resolved from "
        "the DI scope for the first time, which the floor pays too, the core's timer thread started "
        "for the default 30 s timeout, the first use of the JSON reader and writer). Cut by issue "
        "30: registration 0.60 -> 0.31-0.35 ms (descriptors no longer parsed a second time, which "
        "also ran ArrayPool's processor-speed check; no LINQ), the first call's "
        "`JavaScriptEncoder.Default` (about 0.1 ms) no longer built. A NativeAOT app that links "
        "the core into its executable (`AppFunctionsLinkStatic=true`, the statically linked row; "
        "how an iOS app has it) has no library load at all: in one run of both at load 2.4-6.6 "
        "(2026-12-02, 100-200 samples each, alternated) the load step went from 0.51-0.57 ms to "
        "0.005 ms (the ABI check alone), process start to `main` grew by 0.07-0.1 ms (the "
        "executable 1.2 MB larger, 4.3 MB against 3.2 MB and the library's 2.2 MB: the linker keeps "
        "only the part of the core the binding's calls reach; 1,250 more relocations at exec, where "
        "dlopen did the library's 2,050), and the "
        "ratio went from 1.62-1.64× to 1.43-1.46× against the same floor.",
    "coldstart_dotnet_aot_static_vs_floor_x":
        "The core is part of the executable here: no dlopen, no resolver, no lazy binding (the "
        "load step is the ABI check alone, about 5 µs). What stays above the floor is what the "
        "dynamic row's reason lists after the load: a larger binary to start (appfunctions, "
        "System.Text.Json, the generated code of 50 functions, and now the part of the core the "
        "calls reach, 0.07-0.1 ms more to `main` than the dynamic program), registration (the "
        "core's own work most of it) and the first call (the DI scope's first resolution, the "
        "timer thread, the JSON reader's and writer's first use). The two NativeAOT programs run in "
        "the same samples beside one floor (since 2026-12-04; before, one after the other), so their "
        "two rows compare one moment's machine.",
    "coldstart_dotnet_aot_static_register_vs_c_x":
        "See the dynamic NativeAOT row: registration does the same work whichever way the core "
        "is linked (a direct call saves nanoseconds per call, against the 0.3-0.6 ms the 50 "
        "registrations take).",
    "coldstart_dotnet_jit_register_vs_c_x":
        "The same registrations take 0.25-0.35 ms in the NativeAOT build of the same program: the "
        "rest is the JIT compiling what registration runs for the first time (`AddAppFunctions`, the "
        "container's build, the dispatcher, the generated units and their handlers' delegates) and "
        "the runtime loading their assemblies. The program compiles 535 methods in all, 558 before "
        "the cuts of 2026-12-07 (the ReadyToRun row's reason lists them), which took its registration "
        "from 33.9 to 24.5 ms (medians of 30 samples of each build in turn, load 2), and its first "
        "call from 27.5 to 21.2 ms once the generated writers stopped making `JsonEncodedText` "
        "(20 samples of each build in turn, the same day); 602 before "
        "issue 30 took out the registrar's value-tuple lists, a lambda per generated unit, LINQ and "
        "`ArrayBufferWriter<byte>`. The container's first build is the app's own: the floor builds "
        "its container too (the floor's `container` row). No change to the binding brings a JIT "
        "process to a figure set by native code: phones do not run plain JIT (Android's release "
        "builds precompile their startup, iOS is fully AOT), and the ReadyToRun and NativeAOT rows "
        "show what compiling ahead of time leaves.",
    "coldstart_dotnet_r2r_register_vs_c_x":
        "ReadyToRun precompiles the code but not what CoreCLR does at a type's or a method's first "
        "use: each type's method table is built from metadata at run time, each precompiled method's "
        "fixups (its callees, string literals, type handles) are resolved at its first call, the "
        "first use of an assembly loads it, and the JIT still compiles what ReadyToRun cannot hold "
        "(generic instantiations over other assemblies' value types, such as the container's "
        "`Dictionary<ServiceCacheKey, ...>`): 80 methods in this program, 70 in its floor. "
        "Most of the registration part is the container's first build, which is the app's own: "
        "the floor's `container` step took 25.3 ms, the full program's `load` and `container` "
        "25.9 ms (2026-12-07, medians of 30 samples of each program in turn, load 2). Timed inside "
        "the program the same day, the binding's own part went to first uses that a process pays "
        "once, and four of them are gone: the logging assembly and the container's look-up of a "
        "logger factory (about 2 ms; the logger is now made at the first message), the JIT "
        "compiling the ordinal string comparison under a `SortedSet<string>` (about 1.5 ms; now a "
        "plain list), System.Text.Json's assembly (about 0.7 ms; a registration without "
        "`requiresPermission` no longer loads it) and the JIT compiling the JSON encoder's "
        "`SearchValues` in the first call (about 2 ms; now made only for values longer than 64 "
        "characters). `register` went from 13.7 to 8.7 ms and the first call from 18.2 to 14.5 ms "
        "in those samples. Of the first outcome's rest, the first UTF-8 decoding of the process "
        "takes 4-6 ms in `load` (`Marshal.PtrToStringUTF8` of the core's version string; in a "
        "ReadyToRun program without appfunctions the first `Encoding.UTF8.GetString` took 4-6 ms "
        "too, a copy of the same ASCII bytes by hand 30 µs), which the floor never does and an app "
        "that has read a text file has paid already. The first call no longer pays System.Text.Json's "
        "first `JsonEncodedText.Encode` (its UTF-8 transcoding, array pool and escaping set-up, "
        "which also had the JIT compile a `SearchValues<char>` and `SpanHelpers.Fill<char>`): the "
        "generated writers name properties and enum members with UTF-8 literals, and the first "
        "call went from 15.2 to 8.5 ms (30 samples of each build in turn, 2026-12-07); in the table "
        "beside it the call takes no longer than the floor's scope, resolution and direct call. "
        "No change to the binding brings "
        "CoreCLR's first run of these to a figure set by native code; NativeAOT, what iOS runs, "
        "meets the target (its row).",
    "mcp_inprocess_trivial_handler_us":
        "The same tools/call as the demo's row without the demo's handler and delegates: what the "
        "MCP adapter and the core cost (the demo row's reason says where its instructions go: the "
        "request read, the arguments bound, the `Order` result checked against its record, the text "
        "content, the pipeline and the view). Timed by a plain loop of 20,000 calls in "
        "`benches/suite.rs`, whose mean a busy second suffices to move.",
    "mcp_inprocess_us":
        "Where the instructions go (callgrind, `mcp_call_demo` and `mcp_call_trivial`, 2026-12-04): "
        "the trivial handler's call is about 18,300 instructions: reading the request 5,600 (the "
        "nesting check, the parse, the in-flight entry), binding the arguments 2,800, checking the "
        "`Order` result against its record about 2,000 (a one-pass scan of a result already in the "
        "binder's normal form, its `minimum` checked by the binder's own check; 4,600 through the "
        "binder, which the trivial call took to 20,800 before 2026-12-04), the text content escaped "
        "1,600, the pipeline and the view the rest. The demo's call adds about 7,300: its handler 4,500 (the arguments read "
        "into a struct, the `Order` written by serde, the dialog), the outcome JSON the telemetry "
        "delegate's `on_invoked` is given 1,000, the dialog's text content, the telemetry line 450 "
        "(before: 46,100 instructions, of which the handler's JSON trees took 19,000).",
}
# The absolute wall-clock targets whose work has an exact instruction count: for each, the
# instructions (benches/instructions.rs), the target in the row's unit, the unit in ns, and
# what the quiet run of 2026-12-01T17:30 (commit ab64251, the plain call 345 ns) measured.
WALL_CLOCK_ROWS = {
    "execute_plain_ns": ("instructions_execute_plain", 1000, 1, "345 ns"),
    "execute_two_delegates_ns": ("instructions_execute_two_delegates", 1500, 1, "421 ns"),
    "execute_two_delegates_entity_ns": ("instructions_execute_two_delegates_entity", 1500, 1, "1,006 ns"),
    "register_10k_fresh_process_ms": ("instructions_register_10k", 25, 1e6, "15.56 ms (criterion, one process)"),
    "mcp_inprocess_us": ("instructions_mcp_call_demo", 3, 1e3, "1.91 µs"),
    "mcp_inprocess_trivial_handler_us": ("instructions_mcp_call_trivial", 3, 1e3, "1.26 µs"),
}


def speed_reason(key):
    """Says how far this run's machine speed explains a missed wall-clock row: the row's work
    in instructions (exact under load), the time per instruction the target allows, this
    row's and the plain call's in this run."""
    ins_key, limit, to_ns, quiet = WALL_CLOCK_ROWS[key]
    ins, measured = s.get(ins_key), s.get(key)
    plain_ns, plain_ins = s.get("execute_plain_ns"), s.get("instructions_execute_plain")
    if not ins or not measured:
        return ""
    text = (f"The row's work is {ins:,} instructions (callgrind, exact under load); the target "
            f"allows {limit * to_ns / ins:.3f} ns per instruction, and this run took "
            f"{measured * to_ns / ins:.3f}")
    if plain_ns and plain_ins:
        text += f" (the plain call {plain_ns / plain_ins:.3f}: the Machine speed line)"
    return text + (f". The run of 2026-12-01T17:30 (commit ab64251), on a machine at about 0.06 ns "
                   f"per instruction, measured {quiet}: met. ")


def reason(key):
    text = (speed_reason(key) if key in WALL_CLOCK_ROWS else "") + (REASONS.get(key) or "")
    return text.strip() or "(no reason recorded yet)"


missed = [(name, key) for name, key, ok, _ in targets if s.get(key) is not None and not ok(s[key])]


def missed_section():
    out = [MISSED_HEADING, ""]
    if not missed:
        out += ["Every target measured in this run is met.", ""]
    for name, key in missed:
        out.append(f"- **{name}.** " + reason(key))
    out.append("")
    return out


if EXPORTS_ONLY:
    doc = read_doc()

    def replace(prefix, new):
        at = next((i for i, l in enumerate(doc) if l.startswith(prefix)), None)
        if at is not None:
            doc[at] = new
        return at

    replace("| first export after registering 10,000 functions",
            next(r for r in rows if r.startswith("| first export after registering 10,000 functions")))
    row_at = replace("| 10,000, first export after registration |", first_export_row(s))
    for k, v in exports_instructions.items():
        replace(f"| {k[len('instructions_'):]} |", f"| {k[len('instructions_'):]} | {fmt(v)} |")
    note = first_export_note(s, meta["exports"])
    if replace(FIRST_EXPORT_NOTE, note) is None and row_at is not None:
        doc[row_at + 1:row_at + 1] = ["", note]
    finish_partial(doc, "the first exports' figures", {k: v for k, v in s.items() if "export_first_10k" in k})
if PARTIAL:
    write_partial()
lines += coldstart_section(s, meta)
lines += old_section(SIZE_HEADING)  # ci/size.py's
lines += missed_section()
lines += ["## Chart", "", "![per-call cost against registry size and thread count](performance.svg)", ""]
with open(os.path.join(REPO, "docs", "performance.md"), "w") as fh:
    fh.write("\n".join(lines))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chart  # noqa: E402  (beside this script)
with open(os.path.join(REPO, "docs", "performance.svg"), "w") as fh:
    fh.write(chart.svg(s, f"ci/bench.sh, {meta['when']}, commit {meta['commit']}, load average {fmt(meta['load_average_1m_at_report'])}"))
print("wrote docs/performance.svg")
print("wrote target/bench/summary.json and docs/performance.md")
print(json.dumps(s, indent=1))
