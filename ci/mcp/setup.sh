#!/usr/bin/env bash
# Create the mcp lane's throwaway client environments (idempotent; fast when present).
#   ci/.cache/mcp-venv : Python venv with the official `mcp` SDK + jsonschema
#   ci/.cache/mcp-node : Node folder with @modelcontextprotocol/sdk + ajv (draft 2020-12)
#                        + the MCP Inspector CLI (@modelcontextprotocol/inspector)
# Pins live in ci/mcp/requirements.txt (+ requirements.lock for transitive deps)
# and ci/mcp/node/package.json (+ package-lock.json). A stamp holding a hash of
# the pin files makes a second run a no-op.
# Exit codes: 0 ok, 3 = a required tool (python3/pip/node/npm) is missing.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${MCP_CACHE_DIR:-$ROOT/ci/.cache}"
VENV="$CACHE/mcp-venv"
NODEDIR="$CACHE/mcp-node"
PY="${PYTHON:-python3}"

missing=()
command -v "$PY"  >/dev/null 2>&1 || missing+=("$PY")
"$PY" -m pip --version >/dev/null 2>&1 || missing+=("pip (for $PY)")
"$PY" -c 'import venv' >/dev/null 2>&1 || missing+=("python venv module")
command -v node >/dev/null 2>&1 || missing+=(node)
command -v npm  >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  echo "!!! mcp setup: cannot run, missing: ${missing[*]}" >&2
  exit 3
fi
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
  echo "!!! mcp setup: $PY is $("$PY" -V 2>&1); mcp 2.x needs Python >= 3.10" >&2
  exit 3
fi

mkdir -p "$CACHE"
REPO="$ROOT"; source "$ROOT/ci/env.sh"
mapfile -t PIP_ARGS < <(af_pip_args)
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

# ---- Python ----
py_stamp="$(hash_of "$HERE/requirements.txt" "$HERE/requirements.lock" 2>/dev/null || hash_of "$HERE/requirements.txt")-$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [[ -f "$VENV/.stamp" && "$(cat "$VENV/.stamp")" == "$py_stamp" && -x "$VENV/bin/python" ]]; then
  echo "mcp setup: python venv up to date ($VENV)"
else
  echo "mcp setup: creating python venv at $VENV"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  [[ ${#PIP_ARGS[@]} -eq 0 ]] && { "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true; }
  if [[ -f "$HERE/requirements.lock" ]]; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PIP_ARGS[@]}" -r "$HERE/requirements.txt" -c "$HERE/requirements.lock"
  else
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PIP_ARGS[@]}" -r "$HERE/requirements.txt"
  fi
  echo "$py_stamp" > "$VENV/.stamp"
fi

# ---- Node ----
node_stamp="$(hash_of "$HERE/node/package.json" "$HERE/node/package-lock.json" 2>/dev/null || hash_of "$HERE/node/package.json")"
if [[ -f "$NODEDIR/.stamp" && "$(cat "$NODEDIR/.stamp")" == "$node_stamp" && -d "$NODEDIR/node_modules/@modelcontextprotocol/sdk" && -d "$NODEDIR/node_modules/@modelcontextprotocol/inspector" ]]; then
  echo "mcp setup: node folder up to date ($NODEDIR)"
else
  echo "mcp setup: installing node packages into $NODEDIR"
  rm -rf "$NODEDIR"
  mkdir -p "$NODEDIR"
  cp "$HERE/node/package.json" "$NODEDIR/"
  if [[ -f "$HERE/node/package-lock.json" ]]; then
    cp "$HERE/node/package-lock.json" "$NODEDIR/"
    # npm ci refuses a lock that lacks an optional dependency the registry does not
    # serve (vite's napi-windows-process-start-time, under the Inspector); npm install
    # then installs the same locked versions
    (cd "$NODEDIR" && { npm ci --no-audit --no-fund --loglevel=error 2>/dev/null \
      || { echo "mcp setup: npm ci refused the lock; npm install with the same lock"; npm install --no-audit --no-fund --loglevel=error; }; })
  else
    (cd "$NODEDIR" && npm install --no-audit --no-fund --loglevel=error)
  fi
  echo "$node_stamp" > "$NODEDIR/.stamp"
fi

"$VENV/bin/python" - <<'PY'
import importlib.metadata as m
print("mcp setup: python mcp", m.version("mcp"), "| jsonschema", m.version("jsonschema"))
PY
node -e 'const r=(n)=>require(process.argv[1]+"/node_modules/"+n+"/package.json").version;console.log("mcp setup: node @modelcontextprotocol/sdk",r("@modelcontextprotocol/sdk"),"| ajv",r("ajv"),"| @modelcontextprotocol/inspector",r("@modelcontextprotocol/inspector"))' "$NODEDIR"
