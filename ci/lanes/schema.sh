#!/usr/bin/env bash
# Schema lane: every schema the core emits passes an independent validator's draft
# 2020-12 meta-schema check, and that validator agrees with our binder on a corpus of
# valid and invalid arguments (ci/schema/check.py).
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! schema lane cannot run: crates cannot be resolved here" >&2; exit 3; }
command -v python3 >/dev/null || { echo "!!! schema lane cannot run: no python3" >&2; exit 3; }
VENV="$REPO/ci/.cache/schema-venv"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import jsonschema, rfc3339_validator" 2>/dev/null; then
  python3 -m venv "$VENV" || { echo "!!! schema lane cannot run: python3 -m venv failed" >&2; exit 3; }
  mapfile -t PIP_ARGS < <(af_pip_args)
  "$VENV/bin/pip" install -q "${PIP_ARGS[@]}" "jsonschema==4.26.0" "rfc3339-validator==0.1.4" \
    || { echo "!!! schema lane cannot run: pip could not install jsonschema" >&2; exit 3; }
fi
cargo run -q --example schema_corpus > "$REPO/target/schema-corpus.json"
"$VENV/bin/python" "$REPO/ci/schema/check.py" < "$REPO/target/schema-corpus.json"
