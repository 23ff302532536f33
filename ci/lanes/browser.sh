#!/usr/bin/env bash
# browser lane: the debug page (AppFunctions.AspNetCore's MapAppFunctionsDebugPage over the
# core's page and API) in a real browser: Debian's chromium (apt), headless, driven by npm
# playwright-core (no browser download) against the sample web host. The checks are
# ci/browser/check.mjs; the screenshot is kept in target/artifacts/browser/.
# Exit: 0 passed, 1 failed, 3 cannot run here (no .NET SDK, node/npm, or chromium).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
REPO="$ROOT"; export REPO
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! browser lane cannot run: crates cannot be resolved here" >&2; exit 3; }
cannot_run() {
  echo "################################################################" >&2
  echo "### browser lane CANNOT RUN: $*" >&2
  echo "################################################################" >&2
  exit 3
}
command -v dotnet >/dev/null 2>&1 || cannot_run "no .NET SDK (dotnet) on PATH: the sample web host is ASP.NET Core"
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || cannot_run "node and npm are needed for playwright-core"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [[ ! -x "$CHROMIUM" ]]; then
  echo "[browser] installing Debian's chromium (apt)"
  if command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true
  fi
fi
[[ -x "$CHROMIUM" ]] || cannot_run "no chromium at $CHROMIUM and it could not be installed with apt"
export CHROMIUM
echo "[browser] $("$CHROMIUM" --version 2>/dev/null | head -1)"

NODEDIR="$ROOT/ci/.cache/browser-node"
stamp="$(sha256sum ci/browser/package.json | cut -c1-16)"
if [[ ! -f "$NODEDIR/.stamp" || "$(cat "$NODEDIR/.stamp")" != "$stamp" || ! -d "$NODEDIR/node_modules/playwright-core" ]]; then
  echo "[browser] npm install playwright-core into $NODEDIR"
  rm -rf "$NODEDIR"; mkdir -p "$NODEDIR"
  cp ci/browser/package.json "$NODEDIR/"
  (cd "$NODEDIR" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error) || { echo "[browser] npm install failed" >&2; exit 1; }
  echo "$stamp" >"$NODEDIR/.stamp"
fi
export BROWSER_NODE_DIR="$NODEDIR"

echo "[browser] building the native library and the sample web host"
cargo build --release -q || { echo "[browser] cargo build failed" >&2; exit 1; }
OUT="$ROOT/ci/.cache/http"
mkdir -p "$OUT"
dotnet build bindings/dotnet/samples/AppFunctions.WebSample -c Release -o "$OUT/web" --nologo -v quiet -clp:NoSummary >"$OUT/web-build.txt" 2>&1 \
  || { cat "$OUT/web-build.txt" >&2; echo "[browser] the sample web host did not build" >&2; exit 1; }

LOG="$(mktemp -d)"
dotnet "$OUT/web/AppFunctions.WebSample.dll" --port 0 >"$LOG/host.out" 2>"$LOG/host.err" &
HOST=$!
trap 'kill $HOST 2>/dev/null; wait 2>/dev/null; rm -rf "$LOG"' EXIT
for _ in $(seq 1 300); do grep -q '^debug: ' "$LOG/host.out" 2>/dev/null && break; sleep 0.1; done
DEBUG_URL=$(sed -n 's/^debug: //p' "$LOG/host.out")
MCP_URL=$(sed -n 's/^mcp: //p' "$LOG/host.out")
[[ -n "$DEBUG_URL" ]] || { cat "$LOG/host.err" >&2; echo "[browser] the host did not start" >&2; exit 1; }
echo "[browser] $DEBUG_URL"
ART="$ROOT/target/artifacts/browser"
mkdir -p "$ART"
timeout 300 node ci/browser/check.mjs "$DEBUG_URL" "$MCP_URL" "$ART/debug-page.png"
rc=$?
[[ -f "$ART/debug-page.png" ]] && echo "[browser] screenshot: $ART/debug-page.png"
exit $rc
