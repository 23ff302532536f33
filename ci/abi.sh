#!/usr/bin/env bash
# The ABI baseline check (docs/abi.md): include/appfunctions.h against abi/v<N>.txt.
#   ci/abi.sh           fails naming each incompatible difference; notes compatible additions
#   ci/abi.sh --bless   records the header as the baseline (after a compatible addition)
set -euo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
command -v python3 >/dev/null || { echo "!!! ci/abi.sh cannot run: no python3" >&2; exit 3; }
command -v "${CC:-cc}" >/dev/null || { echo "!!! ci/abi.sh cannot run: no C compiler (${CC:-cc})" >&2; exit 3; }
exec python3 "$REPO/ci/abi.py" "$@"
