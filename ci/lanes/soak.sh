#!/usr/bin/env bash
# Soak lane: a short soak and fault-injection run (ci/soak.sh, 20 s by default;
# AF_SOAK_SECONDS to change it). Exit 0 passed, 1 failed, 3 cannot run here.
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
source "$REPO/ci/env.sh"; af_cargo_setup || { echo "!!! soak lane cannot run: crates cannot be resolved here" >&2; exit 3; }
command -v cargo >/dev/null || { echo "!!! soak lane cannot run: no cargo on PATH" >&2; exit 3; }
[[ -r /proc/self/statm ]] || { echo "!!! soak lane cannot run: no /proc/self/statm to sample RSS" >&2; exit 3; }
bash ci/soak.sh "${AF_SOAK_SECONDS:-20}"
rc=$?
case $rc in
  0) exit 0 ;;
  3) exit 3 ;;
  *) exit 1 ;;
esac
