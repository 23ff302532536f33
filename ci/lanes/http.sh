#!/usr/bin/env bash
# http lane: MCP over Streamable HTTP, judged by independent clients against the sample web
# host (bindings/dotnet/samples/AppFunctions.WebSample: ASP.NET Core, AppFunctions.AspNetCore
# over the core's exchange), in each protocol era the client speaks:
#   - the official TypeScript SDK's StreamableHTTPClientTransport (npm): handshake era;
#   - the official Python SDK's streamable HTTP client (mcp 2.3.0, ../shared/wheels):
#     handshake era and 2026-07-28;
#   - the official C# SDK's HttpClientTransport (ModelContextProtocol 2.4.0, NuGet): both;
#   - the MCP Inspector CLI's HTTP transport (npm): both;
#   - a hostile client (ci/http/hostile_check.py): refusals with the spec's statuses, and
#     the server keeps serving;
#   - and the .NET binding's one-call stdio serving (the same program with --stdio,
#     dispatcher.ServeMcpStdio()) with the Python SDK's stdio client (ci/http/stdio_check.py).
# Every SDK client talks through a logging proxy (ci/http/proxy.py); every server message
# it saw is validated against its revision's JSON schema (ci/mcp/schema_check.py). The
# hostile client talks to the host directly (it checks statuses, and a proxy would keep
# the streams of its flood open upstream after it closed them).
#
# Exit: 0 passed, 1 failed, 3 cannot run here (no .NET SDK, python3/pip/node/npm missing).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
REPO="$ROOT"; export REPO
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! http lane cannot run: crates cannot be resolved here" >&2; exit 3; }

cannot_run() {
  echo "################################################################" >&2
  echo "### http lane CANNOT RUN: $*" >&2
  echo "################################################################" >&2
  exit 3
}
command -v dotnet >/dev/null 2>&1 || cannot_run "no .NET SDK (dotnet) on PATH: the sample web host is ASP.NET Core (install the .NET SDK 10)"
for tool in python3 node npm; do
  command -v "$tool" >/dev/null 2>&1 || cannot_run "'$tool' not found on PATH"
done

echo "== http lane: setup (the mcp lane's client environments)"
bash ci/mcp/setup.sh
rc=$?
if [[ $rc -eq 3 ]]; then cannot_run "ci/mcp/setup.sh reported missing tools"; fi
if [[ $rc -ne 0 ]]; then echo "http lane: setup failed (rc=$rc)" >&2; exit 1; fi
VENV_PY="$ROOT/ci/.cache/mcp-venv/bin/python"

echo "== http lane: cargo build --release (the native library)"
cargo build --release -q || { echo "http lane: cargo build failed" >&2; exit 1; }
echo "== http lane: dotnet build (the sample web host, the C# client check)"
OUT="$ROOT/ci/.cache/http"
mkdir -p "$OUT"
dotnet build bindings/dotnet/samples/AppFunctions.WebSample -c Release -o "$OUT/web" --nologo -v quiet -clp:NoSummary >"$OUT/web-build.txt" 2>&1 \
  || { cat "$OUT/web-build.txt" >&2; echo "http lane: the sample web host did not build" >&2; exit 1; }
dotnet build ci/http/dotnet/HttpClientCheck.csproj -c Release -o "$OUT/client" --nologo -v quiet -clp:NoSummary >"$OUT/client-build.txt" 2>&1 \
  || { cat "$OUT/client-build.txt" >&2; echo "http lane: the C# client check did not build" >&2; exit 1; }

LOGDIR="$(mktemp -d)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$LOGDIR"
}
trap cleanup EXIT
mkdir -p "$LOGDIR/transcripts"

# waits for a process's first line matching PREFIX and prints the URL after it
url_of() {  # FILE PREFIX
  for _ in $(seq 1 300); do
    local line
    line=$(grep -m1 "^$2" "$1" 2>/dev/null) && { echo "${line#"$2"}"; return 0; }
    sleep 0.1
  done
  return 1
}

echo "== http lane: starting the sample web host (ci/demo.sh serve does the same)"
dotnet "$OUT/web/AppFunctions.WebSample.dll" --port 0 >"$LOGDIR/host.out" 2>"$LOGDIR/host.err" &
PIDS+=($!)
MCP_URL=$(url_of "$LOGDIR/host.out" "mcp: ") || { cat "$LOGDIR/host.err" >&2; echo "http lane: the host did not start" >&2; exit 1; }
echo "   $(cat "$LOGDIR/host.out" | tr '\n' ' ')"
ORIGIN="${MCP_URL%/mcp}"

fail=0
run_check() {  # NAME COMMAND... (the URL of a logging proxy in front of the host is appended)
  local name="$1"; shift
  # started here, not in a command substitution, so that cleanup knows its pid
  python3 ci/http/proxy.py --upstream "$ORIGIN" --log "$LOGDIR/transcripts/$name.log" >"$LOGDIR/proxy-$name.out" 2>&1 &
  PIDS+=($!)
  local url
  url=$(url_of "$LOGDIR/proxy-$name.out" "proxy: ") || { echo "http lane: the proxy did not start" >&2; fail=1; return; }
  echo "== http lane: $name"
  timeout 300 "$@" "$url/mcp" | tee "$LOGDIR/$name.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
}
t0=$(date +%s)
run_check ts node ci/http/client_check.mjs
run_check python "$VENV_PY" ci/http/client_check.py
run_check dotnet dotnet "$OUT/client/HttpClientCheck.dll"
run_check inspector python3 ci/mcp/inspector_check.py --url
# straight to the host: a proxy would hold the flood's upstream streams after the client
# closed them
echo "== http lane: hostile"
timeout 300 python3 ci/http/hostile_check.py "$MCP_URL" | tee "$LOGDIR/hostile.txt"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
# the .NET binding's one-call stdio serving (dispatcher.ServeMcpStdio()), same host program
echo "== http lane: dotnet-stdio"
timeout 300 "$VENV_PY" ci/http/stdio_check.py dotnet -- dotnet "$OUT/web/AppFunctions.WebSample.dll" --stdio | tee "$LOGDIR/dotnet-stdio.txt"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
echo "== http lane: schema"
AF_SHARED="$AF_SHARED" "$VENV_PY" ci/mcp/schema_check.py validate "$LOGDIR"/transcripts/*.log | tee "$LOGDIR/schema.txt"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
kill -0 "${PIDS[0]}" 2>/dev/null || { echo "FAIL the host died during the checks"; cat "$LOGDIR/host.err"; fail=1; }
echo "http lane: the checks took $(( $(date +%s) - t0 ))s"

read -r P F < <(cat "$LOGDIR"/*.txt | awk '/^[0-9]+ passed, [0-9]+ failed$/ {p+=$1; f+=$3} END {print p+0, f+0}')
if [[ $fail -ne 0 && $F -eq 0 ]]; then F=1; fi
echo "http lane: $([[ $fail -eq 0 ]] && echo ok || echo FAILED)"
echo "http: $P passed, $F failed"
exit $fail
