#!/usr/bin/env bash
# mcp lane: peer-test our MCP server (`demo mcp`, stdio) with the official
# Python (`mcp` on PyPI) and TypeScript (`@modelcontextprotocol/sdk`) clients.
#
#   bash ci/lanes/mcp.sh                 # against target/release/examples/demo mcp
#   MCP_SERVER_CMD="python3 ci/mcp/fastmcp_demo.py" bash ci/lanes/mcp.sh   # any server
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
  echo "== mcp lane: cargo build --release --example demo"
  if ! cargo build --release --example demo; then
    echo "mcp lane: build failed" >&2
    exit 1
  fi
  SERVER=("$ROOT/target/release/examples/demo" mcp)
fi

fail=0
LOGDIR="$(mktemp -d)"
trap 'rm -rf "$LOGDIR"' EXIT
echo "== mcp lane: Python SDK client"
"$VENV_PY" ci/mcp/client_check.py --mode both -- "${SERVER[@]}" | tee "$LOGDIR/py.txt"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
echo "== mcp lane: agent views over MCP (Python SDK client: collapse, expansion, list_changed)"
"$VENV_PY" ci/mcp/list_changed_check.py -- "${SERVER[@]}" | tee "$LOGDIR/views.txt"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1
echo "== mcp lane: TypeScript SDK client"
node ci/mcp/client_check.mjs -- "${SERVER[@]}" | tee "$LOGDIR/node.txt"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail=1

# One closing line for the whole lane (sums both clients' `N passed, M failed`).
read -r P F < <(cat "$LOGDIR"/*.txt | awk '/^[0-9]+ passed, [0-9]+ failed$/ {p+=$1; f+=$3} END {print p+0, f+0}')
if [[ $fail -ne 0 && $F -eq 0 ]]; then F=1; fi   # a client died before its summary
echo "mcp lane: $([[ $fail -eq 0 ]] && echo ok || echo FAILED)"
echo "mcp: $P passed, $F failed"
exit $fail
