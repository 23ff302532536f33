#!/usr/bin/env bash
# mcp lane: peer-test our MCP server (`demo mcp`, stdio) with independent clients in
# both protocol eras, and validate every message the server sends in these checks
# against the published JSON schema of the revision in force (../shared/specs/mcp):
#   - the official Python SDK (`mcp`, from ../shared/wheels offline): handshake and
#     2026-07-28, list_changed in both (a subscriptions/listen stream in 2026-07-28);
#   - the official TypeScript SDK (`@modelcontextprotocol/sdk`, npm): handshake;
#   - the MCP Inspector CLI (`@modelcontextprotocol/inspector`, npm): both eras;
#   - the official C# SDK client (`ModelContextProtocol`, NuGet; ci/mcp/dotnet) where
#     the .NET SDK is installed (loudly skipped where not): both eras, list_changed in
#     both;
#   - scripted conversations in every supported revision (ci/mcp/schema_check.py);
#   - a hostile client: 300 MB without a newline, then a request (ci/mcp/oversize_check.py).
#
#   bash ci/lanes/mcp.sh                 # against target/release/examples/demo mcp
#   MCP_SERVER_CMD="python3 ci/mcp/fastmcp_demo.py" bash ci/lanes/mcp.sh   # the SDK checks against any server
#
# Exit: 0 all checks passed, 1 a check or the build failed,
#       3 the lane cannot run here (python3/pip/node/npm missing).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
REPO="$ROOT"; export REPO
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! mcp lane cannot run: crates cannot be resolved here" >&2; exit 3; }

cannot_run() {
  echo "################################################################" >&2
  echo "### mcp lane CANNOT RUN: $*" >&2
  echo "### (needs python3 >= 3.10 with pip+venv, node >= 18 and npm)" >&2
  echo "################################################################" >&2
  exit 3
}
for tool in python3 node npm; do
  command -v "$tool" >/dev/null 2>&1 || cannot_run "'$tool' not found on PATH"
done
python3 -m pip --version >/dev/null 2>&1 || cannot_run "pip for python3 not found"

echo "== mcp lane: setup"
t0=$(date +%s)
bash ci/mcp/setup.sh
rc=$?
if [[ $rc -eq 3 ]]; then cannot_run "ci/mcp/setup.sh reported missing tools"; fi
if [[ $rc -ne 0 ]]; then echo "mcp lane: setup failed (rc=$rc)" >&2; exit 1; fi
echo "mcp lane: setup took $(( $(date +%s) - t0 ))s"

VENV_PY="$ROOT/ci/.cache/mcp-venv/bin/python"
if [[ -n "${MCP_SERVER_CMD:-}" ]]; then
  # shellcheck disable=SC2206
  SERVER=($MCP_SERVER_CMD)
else
  # built the way a new user builds it, through ci/demo.sh, whose build must show progress
  echo "== mcp lane: ci/demo.sh --help (cargo build --release --example demo)"
  demo_err="$(mktemp)"
  if ! bash ci/demo.sh --help >/dev/null 2>"$demo_err"; then
    cat "$demo_err" >&2
    echo "mcp lane: build failed" >&2
    exit 1
  fi
  tail -3 "$demo_err"
  if ! grep -q '^\[demo\] cargo build' "$demo_err" || ! grep -qE '^ *Finished ' "$demo_err"; then
    echo "mcp lane: ci/demo.sh showed no build progress (no '[demo] cargo build' and cargo 'Finished' lines on stderr)" >&2
    exit 1
  fi
  rm -f "$demo_err"
  SERVER=("$ROOT/target/release/examples/demo" mcp)
fi

fail=0
LOGDIR="$(mktemp -d)"
trap 'rm -rf "$LOGDIR"' EXIT
mkdir -p "$LOGDIR/transcripts"
# every client talks to the server through the logging proxy; schema_check.py reads the logs
logged() { echo python3 "$ROOT/ci/mcp/stdio_proxy.py" "$LOGDIR/transcripts/$1.log" -- "${SERVER[@]}"; }
run_check() {  # NAME COMMAND...: runs a check, keeps its output for the summary
  local name="$1"; shift
  echo "== mcp lane: $name"
  "$@" | tee "$LOGDIR/$name.txt"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
}
# shellcheck disable=SC2046
run_check python "$VENV_PY" ci/mcp/client_check.py --mode both -- $(logged python)
# shellcheck disable=SC2046
run_check node node ci/mcp/client_check.mjs -- $(logged node)

if [[ -n "${MCP_SERVER_CMD:-}" ]]; then
  echo "!!! mcp lane: MCP_SERVER_CMD is set: the checks of the demo's toolkit, list_changed (--metadata-file), the scripted conversations and the oversize probe are skipped" >&2
else
  # shellcheck disable=SC2046
  run_check python-views "$VENV_PY" ci/mcp/list_changed_check.py -- $(logged python-views)
  # shellcheck disable=SC2046
  run_check inspector python3 ci/mcp/inspector_check.py -- $(logged inspector)
fi

if [[ -n "${MCP_SERVER_CMD:-}" ]]; then
  :
elif command -v dotnet >/dev/null 2>&1; then
  echo "== mcp lane: C# SDK client (dotnet build)"
  DOTNET_OUT="$ROOT/ci/.cache/mcp-dotnet"
  if dotnet build "$ROOT/ci/mcp/dotnet/McpClientCheck.csproj" -c Release -o "$DOTNET_OUT" --nologo -v quiet >"$LOGDIR/dotnet-build.txt" 2>&1; then
    # shellcheck disable=SC2046
    run_check dotnet dotnet "$DOTNET_OUT/McpClientCheck.dll" -- $(logged dotnet)
  else
    cat "$LOGDIR/dotnet-build.txt" >&2
    echo "mcp lane: the C# client did not build" >&2
    echo "0 passed, 1 failed" >"$LOGDIR/dotnet.txt"
    fail=1
  fi
else
  echo "################################################################" >&2
  echo "### mcp lane: NO .NET SDK here: the C# SDK client check is SKIPPED" >&2
  echo "### (install the .NET SDK 10 to run ci/mcp/dotnet)" >&2
  echo "################################################################" >&2
fi

if [[ -z "${MCP_SERVER_CMD:-}" ]]; then
  run_check conversations "$VENV_PY" ci/mcp/schema_check.py conversations --log "$LOGDIR/transcripts/conversations.log" -- "${SERVER[@]}"
  run_check oversize python3 ci/mcp/oversize_check.py --mb 300 --max-rss-mb 64 -- "${SERVER[@]}"
fi
run_check schema "$VENV_PY" ci/mcp/schema_check.py validate "$LOGDIR"/transcripts/*.log

# One closing line for the whole lane (sums every check's `N passed, M failed`).
read -r P F < <(cat "$LOGDIR"/*.txt | awk '/^[0-9]+ passed, [0-9]+ failed$/ {p+=$1; f+=$3} END {print p+0, f+0}')
if [[ $fail -ne 0 && $F -eq 0 ]]; then F=1; fi   # a client died before its summary
echo "mcp lane: $([[ $fail -eq 0 ]] && echo ok || echo FAILED)"
echo "mcp: $P passed, $F failed"
exit $fail
