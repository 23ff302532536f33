#!/usr/bin/env bash
# Fuzz lane: every cargo-fuzz target for a short time (ci/fuzz.sh, 20 s each by default;
# AF_FUZZ_SECONDS to change it). Exit 0 no crash, 1 a crash or build failure, 3 cannot
# run here (cargo-fuzz cannot be installed, or rustc refuses the sanitizer flags).
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
cd "$REPO"
bash ci/fuzz.sh "${AF_FUZZ_SECONDS:-20}"
rc=$?
case $rc in
  0) exit 0 ;;
  3) echo "!!! fuzz lane COULD NOT RUN on this machine (see the message above)" >&2; exit 3 ;;
  *) exit 1 ;;
esac
