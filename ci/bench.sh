#!/usr/bin/env bash
# The benchmark suite. Writes target/bench/summary.json (figures under stable names,
# units in the names), docs/performance.md (tables, targets met or missed) and
# docs/performance.png (per-call cost against registry size and thread count).
#
#   ci/bench.sh                 everything (about 10 minutes on 2 cores)
#   ci/bench.sh --quick         shorter criterion runs and 1M calls for RSS
#   ci/bench.sh --bindings      also the Kotlin, Swift and .NET round trips (their lanes must run)
#   ci/bench.sh --dotnet        also the .NET round trips (BenchmarkDotNet), without Kotlin and Swift
#   ci/bench.sh --no-instructions   skip the callgrind instruction counts (about 3 minutes)
#   ci/bench.sh --timeouts-only only the timeout lateness (about 15 s; with --quick 5 s):
#                               rewrites that part of docs/performance.md and summary.json
#
# Benchmarks are measured, never timed tests: run on a quiet machine and compare ratios
# taken in the same run.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup
mapfile -t MAVEN_OFFLINE < <(af_maven_args)
QUICK=0; BINDINGS=0; DOTNET=0; INSTRUCTIONS=1; TIMEOUTS_ONLY=0
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    --bindings) BINDINGS=1; DOTNET=1 ;;
    --dotnet) DOTNET=1 ;;
    --no-instructions) INSTRUCTIONS=0 ;;
    --timeouts-only) TIMEOUTS_ONLY=1 ;;
    *) echo "usage: ci/bench.sh [--quick] [--bindings] [--dotnet] [--no-instructions] [--timeouts-only]" >&2; exit 2 ;;
  esac
done
OUT="$REPO/target/bench"; mkdir -p "$OUT"
if [[ $QUICK == 1 ]]; then CRIT=(--warm-up-time 1 --measurement-time 2); RSS_CALLS=1000000; SECONDS_T=2; TIMEOUT_ROUNDS=10
else CRIT=(--warm-up-time 2 --measurement-time 5); RSS_CALLS=10000000; SECONDS_T=4; TIMEOUT_ROUNDS=40; fi

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

echo "== criterion: execute"
cargo bench -q -p appfunctions-benches --bench execute -- "${CRIT[@]}" 2>&1 | grep -E "^execute|time:" || true
echo "== criterion: registry scale"
cargo bench -q -p appfunctions-benches --bench registry -- "${CRIT[@]}" 2>&1 | grep -E "^registry|time:" || true
echo "== suite: threads, allocations, RSS over $RSS_CALLS calls, MCP in-process"
cargo bench -q -p appfunctions-benches --bench suite -- --rss-calls "$RSS_CALLS" --seconds "$SECONDS_T" 2>/dev/null | tail -1 > "$OUT/suite.json"
cat "$OUT/suite.json"

timeouts_bench

echo "== instruction counts (callgrind): the same scenarios, repeatable on a busy machine"
echo "{}" > "$OUT/instructions.json"
if [[ $INSTRUCTIONS == 1 ]]; then
  if command -v valgrind >/dev/null; then
    INSTR_BIN=$(cargo bench -q -p appfunctions-benches --bench instructions --no-run --message-format=json 2>/dev/null \
      | python3 -c 'import json,sys; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("executable") and j["target"]["name"] == "instructions"][-1])')
    INSTR_ARGS=(); [[ $QUICK == 1 ]] && INSTR_ARGS=(--quick)
    python3 ci/bench/instructions.py "$INSTR_BIN" "$OUT/instructions.json" "${INSTR_ARGS[@]}" \
      || echo "!!! the instruction counts failed" >&2
  else
    echo "!!! no valgrind: the instruction counts are not measured" >&2
  fi
fi

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

BIND_JSON="{}"
if [[ $BINDINGS == 1 ]]; then
  echo "== bindings' round trips (each binding's own warmed-up loop)"
  K_NS=""; S_NS=""
  if command -v mvn >/dev/null; then
    K_NS=$( (cd bindings/kotlin && mvn -q -B "${MAVEN_OFFLINE[@]}" -Pbench verify -Djna.library.path="$REPO/target/release" 2>&1) \
      | awk '/^bench executeBlockingJson, DSL blockingHandler/ {for (i=1;i<=NF;i++) if ($(i+1)=="ns/call") print $i}' | head -1)
  fi
  SWIFT_OUT=$(SWIFT_TEST_ARGS="-c release --filter BenchTests" bash ci/lanes/swift.sh 2>&1 || true)
  SWIFT_LOG=$(echo "$SWIFT_OUT" | grep -oE '/tmp/swift-lane[^ ;]*\.log' | head -1)
  S_NS=$( { echo "$SWIFT_OUT"; [[ -n "$SWIFT_LOG" ]] && cat "$SWIFT_LOG"; } | grep -oE 'BENCH swift execute round trip: [0-9]+' | grep -oE '[0-9]+$' | head -1)
  echo "kotlin: ${K_NS:-not measured} ns/call, swift: ${S_NS:-not measured} ns/call"
  BIND_JSON=$(printf '{"kotlin_execute_blocking_ns": %s, "swift_execute_ns": %s}' "${K_NS:-null}" "${S_NS:-null}")
fi
if [[ $DOTNET == 1 ]]; then
  echo "== .NET: BenchmarkDotNet (Execute, ExecuteJson, AIFunctionFactory, AsAIFunctions), same run as the C figure above"
  if command -v dotnet >/dev/null; then
    cargo build -q --release --lib
    rm -rf "$OUT/dotnet-bdn"
    BDN_JOB=(); [[ $QUICK == 1 ]] && BDN_JOB=(--job short)
    (cd bindings/dotnet && dotnet run -c Release --project benchmarks/AppFunctions.Benchmarks -- \
        --filter '*' --exporters json --artifacts "$OUT/dotnet-bdn" "${BDN_JOB[@]}") | grep -E '^\|' || true
    BIND_JSON=$(python3 ci/bench/dotnet_figures.py "$OUT/dotnet-bdn" "$BIND_JSON")
  else
    echo "!!! no .NET SDK: the .NET round trips are not measured" >&2
  fi
fi
echo "$BIND_JSON" > "$OUT/bindings.json"

echo "== report"
VENV="$REPO/ci/.cache/bench-venv"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import matplotlib" 2>/dev/null; then
  python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "matplotlib==3.11.2" \
    || echo "!!! matplotlib could not be installed: the chart is not regenerated" >&2
fi
PYREPORT="$VENV/bin/python"; [[ -x "$PYREPORT" ]] || PYREPORT=python3
"$PYREPORT" ci/bench/report.py "$REPO"
