#!/usr/bin/env bash
# The benchmark suite. Writes target/bench/summary.json (figures under stable names,
# units in the names), docs/performance.md (tables, targets met or missed) and
# docs/performance.svg (per-call cost against registry size and thread count).
#
#   ci/bench.sh                 everything (about 10 minutes on 2 cores)
#   ci/bench.sh --quick         shorter criterion runs and 1M calls for RSS
#   ci/bench.sh --bindings      also the Kotlin, Swift and .NET round trips (their lanes must run);
#                               Kotlin and Swift: execute and the same call through an agent view
#   ci/bench.sh --dotnet        also the .NET round trips (BenchmarkDotNet), without Kotlin and Swift
#   ci/bench.sh --no-instructions   skip the callgrind instruction counts (about 3 minutes)
#   ci/bench.sh --timeouts-only only the timeout lateness (about 15 s; with --quick 5 s):
#                               rewrites that part of docs/performance.md and summary.json
#   ci/bench.sh --bindings-only only the Kotlin and Swift round trips and the C figure they stand
#                               beside (about 5 minutes): rewrites the Bindings section of
#                               docs/performance.md and merges into target/bench/summary.json
#   ci/bench.sh --dotnet-only   only the .NET round trips (BenchmarkDotNet) and the C figure they
#                               stand beside (about 6 minutes): rewrites the .NET rows and section
#                               of docs/performance.md and merges into target/bench/summary.json
#   ci/bench.sh --coldstart-only  only the cold start (about a minute after the builds): a fresh C
#                               process per sample to the first outcome of an app of 50 functions,
#                               beside the same program doing nothing with the library; rewrites
#                               that row and the Cold start section of docs/performance.md and
#                               merges into target/bench/summary.json
#   ci/bench.sh --exports-only  only the first export in every format after registering 10,000
#                               functions, in time (criterion) and in instructions (callgrind,
#                               unless --no-instructions), about 4 minutes: rewrites those rows
#                               of docs/performance.md and merges into target/bench/summary.json
#
# Benchmarks are measured, never timed tests: run on a quiet machine and compare ratios
# taken in the same run. Criterion's estimates of these runs are kept in
# target/bench/criterion (CRITERION_HOME), apart from a `cargo bench` run by hand.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup
mapfile -t MAVEN_OFFLINE < <(af_maven_args)
QUICK=0; BINDINGS=0; DOTNET=0; INSTRUCTIONS=1; TIMEOUTS_ONLY=0; BINDINGS_ONLY=0; EXPORTS_ONLY=0; DOTNET_ONLY=0; COLDSTART_ONLY=0
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --bindings) BINDINGS=1; DOTNET=1 ;;
    --dotnet) DOTNET=1 ;;
    --no-instructions) INSTRUCTIONS=0 ;;
    --timeouts-only) TIMEOUTS_ONLY=1 ;;
    --bindings-only) BINDINGS_ONLY=1 ;;
    --exports-only) EXPORTS_ONLY=1 ;;
    --dotnet-only) DOTNET_ONLY=1 ;;
    --coldstart-only) COLDSTART_ONLY=1 ;;
    *) echo "usage: ci/bench.sh [--quick] [--bindings] [--dotnet] [--no-instructions] [--timeouts-only] [--bindings-only] [--exports-only] [--dotnet-only] [--coldstart-only]" >&2; exit 2 ;;
  esac
done
OUT="$REPO/target/bench"; mkdir -p "$OUT"
# criterion's estimates of this script's runs go beside its other figures, where
# ci/bench/report.py reads them: a `cargo bench` run by hand writes target/criterion and
# cannot slip its figures into a report regenerated afterwards
export CRITERION_HOME="$OUT/criterion"
if [[ $QUICK == 1 ]]; then CRIT=(--warm-up-time 1 --measurement-time 2); RSS_CALLS=1000000; SECONDS_T=2; TIMEOUT_ROUNDS=10; PACED_ROUNDS=5; REGISTER_SAMPLES=5
else CRIT=(--warm-up-time 2 --measurement-time 5); RSS_CALLS=10000000; SECONDS_T=4; TIMEOUT_ROUNDS=40; PACED_ROUNDS=15; REGISTER_SAMPLES=11; fi

timeouts_bench() {
  echo "== timeouts: lateness beyond the deadline, on_invoked blocking 0 ms and 100 ms ($TIMEOUT_ROUNDS rounds of 50 calls)"
  cargo bench -q -p appfunctions-benches --bench timeouts -- --rounds "$TIMEOUT_ROUNDS" 2>/dev/null | tail -1 > "$OUT/timeouts.json"
  cat "$OUT/timeouts.json"
}
if [[ $TIMEOUTS_ONLY == 1 ]]; then
  timeouts_bench
  python3 ci/bench/report.py "$REPO" --timeouts-only
  exit 0
fi

# The cold start of a C process (ci/bench/coldstart.py) into $OUT/coldstart.json: the library
# of the dist profile (what apps ship; built where ci/dist.sh builds it) and the demo's bundle.
coldstart_bench() {
  local samples=200; [[ $QUICK == 1 ]] && samples=50
  echo "== cold start: a fresh C process per sample to the first outcome, 50 functions ($samples samples, and as many of the floor)"
  cargo build -q --release --example demo
  # the Android phone library (profile dist-small, features phone-android: what a phone ships)
  # first, so that the full build's library is the one left in target/dist-build/dist
  local phone="$REPO/target/dist-build/bench-phone/libappfunctions.so"
  CARGO_TARGET_DIR="$REPO/target/dist-build" cargo build -q --profile dist-small --lib --no-default-features --features phone-android
  mkdir -p "$(dirname "$phone")"; cp "$REPO/target/dist-build/dist-small/libappfunctions.so" "$phone"
  # the same dist library linked without the startup order (build.rs, link/startup-order.ld):
  # what the order saves, in the same samples
  local unordered="$REPO/target/dist-build/bench-unordered/libappfunctions.so"
  APPFUNCTIONS_STARTUP_ORDER=0 CARGO_TARGET_DIR="$REPO/target/dist-build" cargo build -q --profile dist --lib
  mkdir -p "$(dirname "$unordered")"; cp "$REPO/target/dist-build/dist/libappfunctions.so" "$unordered"
  CARGO_TARGET_DIR="$REPO/target/dist-build" cargo build -q --profile dist --lib
  python3 ci/bench/coldstart.py --demo "$REPO/target/release/examples/demo" \
    --lib "$REPO/target/dist-build/dist/libappfunctions.so" --also "phone_android=$phone" --also "unordered=$unordered" \
    --out "$OUT/coldstart.json" --samples "$samples" \
    || { echo "!!! the cold start benchmark failed" >&2; echo "{}" > "$OUT/coldstart.json"; }
  # The bindings' cold starts: each ci/bench/coldstart-NAME.sh builds its binding's two programs
  # (the app through the binding's API, and the same program without appfunctions) and runs
  # `ci/bench/coldstart.py --binding` on them into $OUT/coldstart_LABEL.json, or says loudly
  # that its toolchain is missing. They see REPO, OUT, SAMPLES, DEMO and LIB.
  rm -f "$OUT"/coldstart_*.json
  local script
  for script in "$REPO"/ci/bench/coldstart-*.sh; do
    [[ -e $script ]] || continue
    echo "== cold start: $(basename "$script" .sh | sed 's/^coldstart-//')"
    SAMPLES="$samples" DEMO="$REPO/target/release/examples/demo" LIB="$REPO/target/dist-build/dist/libappfunctions.so" \
      OUT="$OUT" bash "$script" || echo "!!! $(basename "$script") failed: its cold start is not in this run" >&2
  done
}
if [[ $COLDSTART_ONLY == 1 ]]; then
  coldstart_bench
  python3 ci/bench/report.py "$REPO" --coldstart-only
  exit 0
fi

# The callgrind instruction counts of benches/instructions.rs into $2 (scenarios whose
# names start with one of the prefixes after it; none: every scenario).
instruction_counts() {
  local out="$1"; shift
  echo "{}" > "$out"
  [[ $INSTRUCTIONS == 1 ]] || return 0
  if ! command -v valgrind >/dev/null; then
    echo "!!! no valgrind: the instruction counts are not measured" >&2
    return 0
  fi
  local bin
  bin=$(cargo bench -q -p appfunctions-benches --bench instructions --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("executable") and j["target"]["name"] == "instructions"][-1])')
  local args=(); [[ $QUICK == 1 ]] && args=(--quick)
  for p in "$@"; do args+=(--only "$p"); done
  python3 ci/bench/instructions.py "$bin" "$out" "${args[@]}" \
    || echo "!!! the instruction counts failed" >&2
}

if [[ $EXPORTS_ONLY == 1 ]]; then
  echo "== criterion: the first export in every format after registering 10,000 functions"
  cargo bench -q -p appfunctions-benches --bench registry -- export_first_10k "${CRIT[@]}" 2>&1 | grep -E "^registry|time:" || true
  echo "== instruction counts (callgrind) of the same"
  instruction_counts "$OUT/instructions_exports.json" export_first_10k_
  python3 ci/bench/report.py "$REPO" --exports-only
  exit 0
fi

BIND_JSON="{}"
# The Kotlin and Swift round trips: each binding's own warmed-up loop (trivial handler), the
# dispatcher's execute and the same call through an agent view, beside the C figure of this run.
bindings_bench() {
  echo "== bindings' round trips (each binding's own warmed-up loop): execute, and through an agent view"
  local k_out="" s_out="" swift_log=""
  if command -v mvn >/dev/null; then
    k_out=$( (cd bindings/kotlin && mvn -q -B "${MAVEN_OFFLINE[@]}" -Pbench verify -Dappfunctions.library.path="$REPO/target/release" 2>&1) || true)
    echo "$k_out" | grep -E '^bench ' || { echo "!!! the Kotlin bench did not run; its output:" >&2; echo "$k_out" | tail -30 >&2; }
  else
    echo "!!! no Maven (mvn): the Kotlin round trips are not measured" >&2
  fi
  s_out=$(SWIFT_TEST_ARGS="-c release --filter BenchTests" bash ci/lanes/swift.sh 2>&1 || true)
  swift_log=$(echo "$s_out" | grep -oE '/tmp/swift-lane[^ ;]*\.log' | head -1)
  s_out=$( { echo "$s_out"; [[ -n "$swift_log" ]] && cat "$swift_log"; } | grep -E '^BENCH swift' | sort -u)
  echo "${s_out:-!!! the Swift bench did not run}"
  BIND_JSON=$(K_OUT="$k_out" S_OUT="$s_out" C_NS="$(crit_plain_ns)" python3 - <<'PY'
import json, os, re, subprocess
from datetime import datetime, timezone
def ns(text, label):  # "bench <label>   1980 ns/call" / "BENCH swift <label>: 7841 ns/call"
    m = re.search(re.escape(label) + r"[: ]+(\d+) ns/call", text)
    return int(m.group(1)) if m else None
def cpu(text, label):  # "bench <label>   1980 ns/call  (... cpu 1432 ns/call; ...)": the thread's CPU time
    m = re.search(re.escape(label) + r"[: ]+\d+ ns/call[^\n]*?cpu (\d+) ns/call", text)
    return int(m.group(1)) if m else None
k, s = os.environ["K_OUT"], os.environ["S_OUT"]
c = os.environ.get("C_NS")
print(json.dumps({
    "kotlin_execute_blocking_ns": ns(k, "bench executeBlockingJson, DSL blockingHandler (paired)"),
    "kotlin_view_execute_blocking_ns": ns(k, "bench view executeBlockingJson, DSL blockingHandler"),
    "kotlin_execute_suspend_ns": ns(k, "bench suspend execute (runBlocking), DSL"),
    "kotlin_view_execute_suspend_ns": ns(k, "bench suspend view execute (runBlocking), DSL"),
    # what JNI itself costs (Floor.kt, the same JVM after the loops above), wall and CPU time
    "kotlin_floor_downcall_ns": ns(k, "bench floor JNI downcall (strlen)"),
    "kotlin_execute_blocking_cpu_ns": cpu(k, "bench executeBlockingJson, DSL blockingHandler (paired)"),
    "kotlin_execute_suspend_cpu_ns": cpu(k, "bench suspend execute (runBlocking), DSL"),
    # the C figure's call in a C loop of the Kotlin bench's JVM, and in Kotlin beside it (Floor.kt)
    "kotlin_c_same_jvm_ns": ns(k, "bench C af_execute_json, the C figure's call (same JVM)"),
    "kotlin_c_same_jvm_cpu_ns": cpu(k, "bench C af_execute_json, the C figure's call (same JVM)"),
    "kotlin_c_args_same_jvm_ns": ns(k, "bench C af_execute_json, handler reading its arguments"),
    "kotlin_c_args_same_jvm_cpu_ns": cpu(k, "bench C af_execute_json, handler reading its arguments"),
    "kotlin_c_ping_same_jvm_ns": ns(k, "bench C af_execute_json, the trivial call (dsl_ping)"),
    "kotlin_c_ping_same_jvm_cpu_ns": cpu(k, "bench C af_execute_json, the trivial call (dsl_ping)"),
    "kotlin_c_async_ping_same_jvm_ns": ns(k, "bench C af_execute_async, the trivial call, inline"),
    "kotlin_c_async_ping_same_jvm_cpu_ns": cpu(k, "bench C af_execute_async, the trivial call, inline"),
    "kotlin_c_call_ns": ns(k, "bench executeBlockingJson, the C figure's call"),
    "kotlin_realistic_ns": ns(k, "bench realistic call: executeBlockingJson"),
    "kotlin_realistic_cpu_ns": cpu(k, "bench realistic call: executeBlockingJson"),
    "kotlin_realistic_suspend_ns": ns(k, "bench realistic call: suspend execute (in runBlocking)"),
    "kotlin_realistic_suspend_cpu_ns": cpu(k, "bench realistic call: suspend execute (in runBlocking)"),
    "kotlin_c_realistic_same_jvm_ns": ns(k, "bench C af_execute_json, the realistic call (same JVM)"),
    "kotlin_c_realistic_same_jvm_cpu_ns": cpu(k, "bench C af_execute_json, the realistic call (same JVM)"),
    "kotlin_c_call_cpu_ns": cpu(k, "bench executeBlockingJson, the C figure's call"),
    "kotlin_floor_parse_args_ns": ns(k, "bench parse the C figure's arguments (kotlinx)"),
    "kotlin_floor_parse_args_cpu_ns": cpu(k, "bench parse the C figure's arguments (kotlinx)"),
    "kotlin_floor_scan_args_ns": ns(k, "bench scan the C figure's arguments (the DSL's reader)"),
    "kotlin_floor_scan_args_cpu_ns": cpu(k, "bench scan the C figure's arguments (the DSL's reader)"),
    "kotlin_floor_jni_callback_ns": ns(k, "bench floor JNI downcall + 1 JNI callback"),
    "kotlin_floor_jni_callback_cpu_ns": cpu(k, "bench floor JNI downcall + 1 JNI callback"),
    # how the bench's binding crosses to C: "jni" (its own JNI library, both ways, since issue 30)
    "kotlin_callbacks": (re.search(r"^bench callbacks: (\w+)", k, re.M) or [None, None])[1],
    "kotlin_floor_get_string_ns": ns(k, "bench floor read a 12-byte C string (JNI byte[])"),
    "kotlin_floor_run_execute_blocking_ns": ns(k, "bench executeBlockingJson, DSL blockingHandler (floor run)"),
    "kotlin_floor_downcall_cpu_ns": cpu(k, "bench floor JNI downcall (strlen)"),
    "kotlin_floor_get_string_cpu_ns": cpu(k, "bench floor read a 12-byte C string (JNI byte[])"),
    "kotlin_floor_run_execute_blocking_cpu_ns": cpu(k, "bench executeBlockingJson, DSL blockingHandler (floor run)"),
    "swift_execute_ns": ns(s, "BENCH swift execute round trip"),
    "swift_view_execute_ns": ns(s, "BENCH swift view execute round trip"),
    # the C figure's call itself through the Swift API: create_order, a handler without arguments
    "swift_execute_figure_ns": ns(s, "BENCH swift execute, the C figure's call (a handler without arguments)"),
    "swift_execute_async_handler_ns": ns(s, "BENCH swift execute async handler round trip"),
    "swift_execute_raw_ns": ns(s, "BENCH swift execute raw JSON handler round trip"),
    "swift_execute_blocking_ns": ns(s, "BENCH swift executeBlocking round trip"),
    "swift_execute_blocking_raw_ns": ns(s, "BENCH swift executeBlocking raw JSON handler round trip"),
    "swift_continuation_floor_ns": ns(s, "BENCH swift continuation floor"),
    "swift_checked_continuation_floor_ns": ns(s, "BENCH swift checked continuation floor"),
    # the C figure's call and the core's part of `await execute`, through the C ABI alone in the
    # Swift bench's process, in the same alternating batches (CFigureLoops.swift)
    "swift_c_same_process_ns": ns(s, "BENCH swift C af_execute_json, the C figure's call (same process)"),
    "swift_c_echo_same_process_ns": ns(s, "BENCH swift C af_execute_json, the echo (same process)"),
    "swift_c_async_echo_same_process_ns": ns(s, "BENCH swift C af_execute_async, the echo with a kept token, inline (same process)"),
    # the realistic call (BenchTests.realisticDispatcher) and the same call in C in that process
    "swift_execute_realistic_ns": ns(s, "BENCH swift execute realistic call"),
    "swift_c_realistic_same_process_ns": ns(s, "BENCH swift C af_execute_async, the realistic call (same process)"),
    "c_execute_plain_ns": round(float(c)) if c else None,
    "bindings_load_average_1m": round(os.getloadavg()[0], 2),  # right after the loops ran
    # when and at which commit the loops ran: a report regenerated later from this file says so
    "bindings_measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    "bindings_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or None,
}))
PY
)
  # the Swift round trips in instructions, beside the C calls' of this run (exact under load)
  echo "== the Swift binding in instructions (callgrind; ci/bench/instructions-swift.sh), beside the C calls'"
  bash ci/bench/instructions-swift.sh "$OUT/instructions_swift.json" || echo "{}" > "$OUT/instructions_swift.json"
  instruction_counts "$OUT/instructions_bindings.json" execute_plain execute_async_inline register_10k
  BIND_JSON=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); [d.update(json.load(open(f))) for f in sys.argv[2:]]; print(json.dumps(d))' \
    "$BIND_JSON" "$OUT/instructions_swift.json" "$OUT/instructions_bindings.json")
  echo "$BIND_JSON"
}
crit_plain_ns() { # the C figure (criterion's execute/plain) of this run, from its estimates
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["mean"]["point_estimate"])' \
    "$CRITERION_HOME/execute/plain/new/estimates.json" 2>/dev/null || true
}
# BenchmarkDotNet: Execute (the seed's create_order and the C figure's call), ExecuteJson,
# AIFunctionFactory of both, AsAIFunctions, the realistic call (a DI scope, the seed's two delegates); merged into BIND_JSON beside the C figure of this run.
dotnet_bench() {
  echo "== .NET: BenchmarkDotNet (Execute, ExecuteJson, AIFunctionFactory, AsAIFunctions, the realistic call), same run as the C figure above"
  if command -v dotnet >/dev/null; then
    cargo build -q --release --lib
    rm -rf "$OUT/dotnet-bdn"
    # the C figure's call in a C loop of the BenchmarkDotNet process (SameCallInC)
    mkdir -p "$OUT/dotnet-same-call"
    cc -O2 -std=c11 -Wall -Werror -shared -fPIC -I "$REPO/include" \
      bindings/dotnet/benchmarks/AppFunctions.Benchmarks/c/same_call.c -L "$REPO/target/release" -lappfunctions \
      -Wl,-rpath,"$REPO/target/release" -o "$OUT/dotnet-same-call/libafb_same_call.so"
    export APPFUNCTIONS_BENCH_SAME_CALL="$OUT/dotnet-same-call/libafb_same_call.so"
    local job=(); [[ $QUICK == 1 ]] && job=(--job short)
    (cd bindings/dotnet && dotnet run -c Release --project benchmarks/AppFunctions.Benchmarks -- \
        --filter '*' --exporters json --artifacts "$OUT/dotnet-bdn" "${job[@]}") | grep -E '^\|' || true
    BIND_JSON=$(python3 ci/bench/dotnet_figures.py "$OUT/dotnet-bdn" "$BIND_JSON")
    local c; c=$(crit_plain_ns)
    [[ -n "$c" ]] && BIND_JSON=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); d["dotnet_c_execute_plain_ns"]=round(float(sys.argv[2])); print(json.dumps(d))' "$BIND_JSON" "$c")
  else
    echo "!!! no .NET SDK: the .NET round trips are not measured" >&2
  fi
}
if [[ $DOTNET_ONLY == 1 ]]; then
  echo "== criterion: execute/plain (the C figure the .NET round trips stand beside)"
  cargo bench -q -p appfunctions-benches --bench execute -- plain "${CRIT[@]}" 2>&1 | grep -E "^execute|time:" || true
  dotnet_bench
  echo "$BIND_JSON" > "$OUT/bindings.json"
  python3 ci/bench/report.py "$REPO" --dotnet-only
  exit 0
fi
if [[ $BINDINGS_ONLY == 1 ]]; then
  echo "== criterion: execute/plain (the C figure the bindings stand beside)"
  cargo bench -q -p appfunctions-benches --bench execute -- plain "${CRIT[@]}" 2>&1 | grep -E "^execute|time:" || true
  cargo build -q --release --lib
  bindings_bench
  echo "$BIND_JSON" > "$OUT/bindings.json"
  python3 ci/bench/report.py "$REPO" --bindings-only
  exit 0
fi

echo "== criterion: execute"
cargo bench -q -p appfunctions-benches --bench execute -- "${CRIT[@]}" 2>&1 | grep -E "^execute|time:" || true
echo "== criterion: registry scale"
cargo bench -q -p appfunctions-benches --bench registry -- "${CRIT[@]}" 2>&1 | grep -E "^registry|time:" || true
echo "== suite: threads, allocations, RSS over $RSS_CALLS calls, MCP in-process, $PACED_ROUNDS rounds of paced calls, $REGISTER_SAMPLES fresh processes registering 10,000 functions"
cargo bench -q -p appfunctions-benches --bench suite -- --rss-calls "$RSS_CALLS" --seconds "$SECONDS_T" --paced-rounds "$PACED_ROUNDS" --register-samples "$REGISTER_SAMPLES" 2>/dev/null | tail -1 > "$OUT/suite.json"
cat "$OUT/suite.json"

timeouts_bench

echo "== instruction counts (callgrind): the same scenarios, repeatable on a busy machine"
instruction_counts "$OUT/instructions.json"

echo "== MCP over stdio (ours), and the official Python SDK server beside it"
cargo build -q --release --example demo
MCP_JSON="{}"
if bash ci/mcp/setup.sh >/dev/null 2>&1; then
  PY="$REPO/ci/.cache/mcp-venv/bin/python"
  OURS=$("$PY" ci/mcp/bench_stdio.py -- "$REPO/target/release/examples/demo" mcp 2>/dev/null | tail -1 || echo '{}')
  PEER=$("$PY" ci/mcp/bench_fastmcp.py 2>/dev/null | tail -1 || echo '{}')
  PEER_STDIO=$("$PY" ci/mcp/bench_stdio.py -- "$PY" ci/mcp/fastmcp_demo.py 2>/dev/null | tail -1 || echo '{}')
  MCP_JSON=$(printf '{"ours_stdio": %s, "fastmcp": %s, "fastmcp_stdio_raw": %s}' "${OURS:-{\}}" "${PEER:-{\}}" "${PEER_STDIO:-{\}}")
else
  echo "!!! the MCP peer benchmark cannot run: ci/mcp/setup.sh failed (PyPI/npm unreachable?)" >&2
fi
echo "$MCP_JSON" > "$OUT/mcp.json"
cat "$OUT/mcp.json"

coldstart_bench

if [[ $BINDINGS == 1 ]]; then bindings_bench; fi
if [[ $DOTNET == 1 ]]; then dotnet_bench; fi
echo "$BIND_JSON" > "$OUT/bindings.json"

echo "== report"
python3 ci/bench/report.py "$REPO"
