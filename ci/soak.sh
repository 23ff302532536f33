#!/usr/bin/env bash
# Soak and fault injection: examples/soak.rs drives normal traffic through the C ABI
# mixed with injected faults for the given time, checking its invariants as it goes
# (docs/robustness.md).
#
#   ci/soak.sh [seconds]          default 20 (the CI run); e.g. ci/soak.sh 3600
#
# Environment: SOAK_THREADS (traffic threads, default 2), SOAK_RSS_NOISE_KIB (allowed RSS
# growth after warm-up, default 4096), SOAK_SLOW_MS (how long each injected slow host
# callback blocks, default 25), SOAK_LATENESS_MS (the most a timeout may fire after its
# deadline, default 1000). The last line is `soak: N passed, M failed`
# (invariant checks); the exit status is 0 when none failed.
set -uo pipefail
REPO="${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$REPO"
SECS="${1:-20}"
command -v cargo >/dev/null || { echo "!!! soak: cannot run: no cargo on PATH" >&2; exit 3; }
echo "[soak] building examples/soak.rs (release)"
cargo build -q --release --example soak || { echo "[soak] build failed" >&2; exit 1; }
echo "[soak] running for ${SECS} s"
exec "$REPO/target/release/examples/soak" "$SECS"
