#!/usr/bin/env bash
# The main job on a fresh machine: builds and runs the demo host (the seeds' orders and
# notes apps). Arguments go to the demo: `ci/demo.sh mcp`, `ci/demo.sh export openai`,
# `ci/demo.sh agent`, `ci/demo.sh --help`.
# `ci/demo.sh serve [--port N]` builds and starts the ASP.NET Core sample web host instead
# (the same orders and notes functions) on loopback, and prints exactly two lines on
# stdout: `mcp: http://127.0.0.1:PORT/mcp` and `debug: http://127.0.0.1:PORT/appfunctions`
# (default port 5000; 0 picks a free one). It needs the .NET SDK and says so without it.
# It is `cargo run --example demo`, with crates taken from the vendored copy when
# crates.io cannot be reached (ci/env.sh). The build shows its progress on stderr (cargo's
# "Compiling ..." lines; the first build takes a few minutes), then the demo runs.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO
cd "$REPO"
if [[ "${1:-}" == "serve" ]] && ! command -v dotnet >/dev/null 2>&1; then
  echo "ci/demo.sh serve: the .NET SDK is missing (no 'dotnet' on PATH): the web host is ASP.NET Core." >&2
  echo "  Install the .NET SDK 10 (https://dot.net), or use 'ci/demo.sh mcp' (MCP over stdio, no .NET needed)." >&2
  exit 3
fi
source "$REPO/ci/env.sh"
af_cargo_setup
if [[ "${1:-}" == "serve" ]]; then
  shift
  port=5000
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --port) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || { echo "ci/demo.sh serve: --port needs a number" >&2; exit 2; }
              port="$2"; shift 2 ;;
      *) echo "ci/demo.sh serve: unknown option $1 (usage: ci/demo.sh serve [--port N])" >&2; exit 2 ;;
    esac
  done
  cargo build -q --release >&2
  out="$REPO/target/demo-web"
  dotnet build "$REPO/bindings/dotnet/samples/AppFunctions.WebSample" -c Release -o "$out" --nologo -v quiet -clp:NoSummary >&2 \
    || { echo "ci/demo.sh serve: the sample web host did not build" >&2; exit 1; }
  exec dotnet "$out/AppFunctions.WebSample.dll" --port "$port"
fi
echo "[demo] cargo build --release --example demo (the first build takes a few minutes)" >&2
cargo build --release --example demo >&2
exec cargo run -q --release --example demo -- "$@"
